"""``flamespace top --pid`` beside ``py-spy top`` on one running target: the CPU each costs per second.

Each viewer runs on a pseudo-terminal (so it draws its live view, as for a person) against the same
target (a main thread that spins through three functions, a thread that sleeps), at its default rate
(100 Hz both). Its CPU time (user + system, all its threads, from /proc/PID/stat) is read once its
first screen has shown a function of the target and again ``--seconds`` later: the steady cost per
second, start-up left out. ``--hogs N`` adds N busy processes (a loaded machine); each setting is run
``--runs`` times, and the mean and the range are printed, after ``uptime``.

    python benchmarks/bench_top.py                  # 10 s a run, 3 runs, 0 and 4 hogs
    python benchmarks/bench_top.py --seconds 5 --runs 2 --hogs 0
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import textwrap
import time
from pathlib import Path

from _cli import executable, peer  # benchmarks/: the installed flamespace and its peers

TARGET = textwrap.dedent("""
    import threading, time

    def sleeper():
        time.sleep(3600)

    def spin_a():
        for _ in range(20000):
            pass

    def spin_b():
        for _ in range(10000):
            pass

    def spin_c():
        for _ in range(5000):
            pass

    threading.Thread(target=sleeper, name="sleeper", daemon=True).start()
    print("ready", flush=True)
    while True:
        spin_a()
        spin_b()
        spin_c()
""")
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` (all its threads), in seconds."""
    with open(f"/proc/{pid}/stat", "rb") as file:
        fields = file.read().rsplit(b")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


#: How each viewer's screen counts its samples so far (flamespace: ticks; py-spy: "Total Samples").
COUNTS = (re.compile(rb"([\d,]+) ticks over"), re.compile(rb"Total Samples (?:\x1b\[1m)?(\d+)"))


def last_count(screen: bytes) -> int | None:
    """The last sample count the screen showed (None: none yet)."""
    for pattern in COUNTS:
        found = pattern.findall(screen)
        if found:
            return int(found[-1].replace(b",", b""))
    return None


def steady_cpu(command: list[str], seconds: float, shows: str = "spin_a") -> tuple[float, float | None]:
    """The share of one core ``command`` uses per second on a pseudo-terminal of 120x40, once its screen shows
    ``shows``, and the samples it took a second meanwhile (from its screen's count; None if it shows none)."""
    pid, master = pty.fork()
    if pid == 0:
        os.environ["TERM"] = "xterm"
        os.execv(command[0], command)
    fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    seen = b""
    deadline = time.monotonic() + 120

    def drain(until: float) -> None:
        nonlocal seen
        while time.monotonic() < until:
            if select.select([master], [], [], 0.1)[0]:
                try:
                    seen = (seen + os.read(master, 65536))[-20000:]
                except OSError:
                    return

    try:
        while shows.encode() not in seen:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{command[0]} showed no {shows!r}: {seen[-2000:]!r}")
            drain(time.monotonic() + 0.1)
        start, used, first = time.monotonic(), cpu_seconds(pid), last_count(seen)
        drain(start + seconds)
        used, elapsed, last = cpu_seconds(pid) - used, time.monotonic() - start, last_count(seen)
    finally:
        os.kill(pid, signal.SIGINT)
        drain(time.monotonic() + 1)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)
        os.close(master)
    # the screens are redrawn each second: the counts are up to a second old at both ends, so the rate is near
    rate = None if first is None or last is None else (last - first) / elapsed
    return used / elapsed, rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--hogs", type=int, nargs="+", default=[0, 4])
    parser.add_argument("--python", default=str(Path.home() / ".pyenv/versions/3.12.1/bin/python3.12"))
    args = parser.parse_args()
    flamespace, pyspy = executable(), peer("py-spy") or "py-spy"
    viewers = {"flamespace top --pid": [flamespace, "top", "--pid"], "py-spy top --pid": [pyspy, "top", "--pid"]}
    print("uptime:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    print(f"target: {args.python}; {args.seconds:g} s a run, {args.runs} runs; default rate (100 Hz) both")
    print(f"{'hogs':>4} {'viewer':<22} {'CPU % of a core':>16} {'range':>14} {'samples/s':>10}")
    with tempfile.TemporaryDirectory() as directory:
        script = Path(directory) / "target.py"
        script.write_text(TARGET)
        target = subprocess.Popen([args.python, str(script)], stdout=subprocess.PIPE, text=True)
        assert target.stdout is not None and target.stdout.readline() == "ready\n"
        try:
            for hogs in args.hogs:
                busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(hogs)]
                try:
                    for name, command in viewers.items():
                        runs = [steady_cpu([*command, str(target.pid)], args.seconds) for _ in range(args.runs)]
                        shares = [100 * share for share, _rate in runs]
                        rates = [rate for _share, rate in runs if rate is not None]
                        mean = sum(shares) / len(shares)
                        rate = f"{sum(rates) / len(rates):>10.0f}" if rates else f"{'?':>10}"
                        print(f"{hogs:>4} {name:<22} {mean:>16.1f} {min(shares):>6.1f} - {max(shares):<5.1f} {rate}", flush=True)
                finally:
                    for hog in busy:
                        hog.kill()
                        hog.wait()
        finally:
            target.kill()
            target.wait()
    print("uptime:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
