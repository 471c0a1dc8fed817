"""Run the command line with stdout or stderr on a pseudo-terminal, as a person at a terminal would."""

from __future__ import annotations

import errno
import fcntl
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import time
from typing import Callable

#: The CLI as a program: ``python -c`` with main() (no console script needed on PATH).
CLI = [sys.executable, "-c", "import sys; from flamespace.cli import main; sys.exit(main())"]
COLUMNS = 120


def run_on_terminal(
    args: list[str],
    which: str = "stdout",
    env: dict[str, str] | None = None,
    timeout: float = 120.0,
    cwd: str | None = None,
    seen: Callable[[bytes], None] | None = None,
) -> tuple[int, bytes, bytes]:
    """Run ``flamespace ARGS`` with ``which`` ("stdout" or "stderr") on a terminal of
    :data:`COLUMNS` columns and the other on a pipe: (exit code, what the terminal got,
    what the pipe got; a terminal turns "\\n" into "\\r\\n"). The pipe's output must be small
    (it is read after the terminal's). ``seen`` is called with all the terminal got so far, as
    it comes (to act on what the program shows while it runs). ``env`` is added to ours, without NO_COLOR, FORCE_COLOR and TERM=dumb."""
    environ = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    environ["TERM"] = "xterm"
    environ.update(env or {})
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, COLUMNS, 0, 0))
    streams = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, which: slave}
    child = subprocess.Popen(CLI + args, stdin=subprocess.DEVNULL, env=environ, cwd=cwd, **streams)
    os.close(slave)
    terminal = bytearray()
    deadline = time.monotonic() + timeout
    try:
        while True:
            if not select.select([master], [], [], max(0.0, deadline - time.monotonic()))[0]:
                raise TimeoutError(f"flamespace {' '.join(args)} did not end within {timeout:g} s")
            try:
                chunk = os.read(master, 65536)
            except OSError as exc:  # EIO: the terminal's last writer closed it
                if exc.errno != errno.EIO:
                    raise
                break
            if not chunk:
                break
            terminal += chunk
            if seen is not None:
                seen(bytes(terminal))
        other = child.stdout if which == "stderr" else child.stderr
        piped = other.read() if other is not None else b""
        code = child.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        os.close(master)
        if child.poll() is None:
            child.kill()
            child.wait()
    return code, bytes(terminal), piped
