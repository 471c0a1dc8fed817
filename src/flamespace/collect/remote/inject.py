"""Recording a running CPython 3.14+ process from inside it: flamespace's own recorder, started in
the target by ``sys.remote_exec`` (PEP 768), for what cannot be read from outside (the memory
modes, asyncio stacks) or on request (``record --pid --inject``).

How (docs/attach.md, "In-process attach"):

1. A private directory (mode 0700, owned by the target's user) gets a small script.
2. The target's own interpreter (``/proc/PID/exe``, so of its exact version and build) runs
   ``sys.remote_exec(PID, script)``: CPython writes the script's path into the target's main
   thread state and asks its eval loop to run it at the next safe point (between two bytecodes
   of the main thread; a main thread blocked in a system call or C code runs it once it returns).
3. The script imports this flamespace (the controller's own package, its directory put on
   ``sys.path`` for the import only), starts the recorder (:func:`~.._bootstrap.start_recorder`,
   the one a profiled child starts), writes ``started`` and returns; a small thread of its own
   (its frames hidden from the profile) waits for ``stop``, or for the controller to die, and an
   ``atexit`` hook covers the target's exit. Either stops the recorder and writes ``result``
   (temporary file, then renamed) with the raw recording, which the controller merges as
   ``record`` merges a child's.
4. The controller removes the directory. If the target never ran the script (its main thread
   stayed blocked), a ``cancel`` marker tells the script, when it runs at last, to do nothing
   but remove the directory.

The C extensions of the package are built for the controller's Python: in a target of another
minor version or build, the pure-Python recorders work (wall, cpu, ``--async``, ``--mode live``)
and ``--mode alloc`` (which needs ``_alloc``) is refused with the reason; running flamespace with
the target's own Python (``python3.14 -m flamespace record --pid ...``) lifts that.
"""

from __future__ import annotations

import os
import subprocess
import time

from .process import AccessDenied, AttachError, ProcessGone, command_line

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

    from ..raw import RawRecording
    from .process import RemoteProcess

#: The first minor version with sys.remote_exec.
FIRST_MINOR = 14
#: How long the target's main thread may take to reach a safe point and start the recorder (s).
START_TIMEOUT = 15.0
#: How long the target may take to stop the recorder and write what it recorded (s).
RESULT_TIMEOUT = 60.0
#: How often the controller and the injected watcher look for what the other did (s).
POLL = 0.05
#: What the target's interpreter runs to ask the target to run the script.
_REMOTE_EXEC = "import sys; sys.remote_exec(int(sys.argv[1]), sys.argv[2])"


class InjectError(AttachError):
    """The recorder could not be started (or its recording collected) inside the target."""


class NotStarted(InjectError):
    """The recorder never started inside the target (it refused the script, did not run it in time, or the
    script failed before recording): nothing was recorded, and the target runs as before."""


def problem(process: RemoteProcess) -> str | None:
    """Why flamespace's recorder cannot be injected into ``process`` (None: it can be tried)."""
    if process.layout.minor < FIRST_MINOR:
        return (
            f"process {process.pid} runs Python {process.version}: running code inside a process needs "
            f"sys.remote_exec, Python 3.{FIRST_MINOR} or later"
        )
    return None


class InjectedRecorder:
    """Records ``process`` from inside it with the recorder ``kind`` (:data:`~..raw.KINDS`: sampler,
    alloc, live) and its ``arguments``. :meth:`run` injects it, records until ``duration`` seconds,
    :meth:`stop` or the target's exit, and returns the :class:`~..raw.RawRecording`; ``ended`` says
    why it ended ('duration', 'stopped', 'exited')."""

    def __init__(self, process: RemoteProcess, kind: str, arguments: dict[str, Any]) -> None:
        self.process, self.kind = process, kind
        self.arguments = dict(arguments)
        if "duration" in self.arguments:
            self.arguments["duration"] = None  # the controller keeps the time
        self.ended = ""
        self.elapsed_ns = 0
        #: Seconds from asking the target to run the script to the recorder running in it (None until then).
        self.start_seconds: float | None = None
        self._stopping = False
        self.directory = ""

    def stop(self) -> None:
        """End the recording soon (safe from a signal handler)."""
        self._stopping = True

    def run(self, duration: float | None, on_wait: Callable[[float], None] | None = None) -> RawRecording:
        """Inject, record, collect. ``on_wait(seconds)`` is called while the target has not started yet."""
        self.directory = self._directory()
        script = os.path.join(self.directory, "inject.py")
        try:
            with open(script, "w", encoding="utf-8") as file:
                file.write(_script(self.directory, script, self.kind, self.arguments))
            self._chown(script)
            self._chown(self.directory)  # only now: the target's user never had the directory empty
            asked = time.monotonic()
            self._remote_exec(script)
            started = self._wait_started(on_wait)
            self.start_seconds = time.monotonic() - asked
            start = time.monotonic_ns()
            if started:
                self._record_until(duration, start)
            raw = self._collect()
        except BaseException:
            self._abandon()
            raise
        self._remove()
        return raw

    # -- steps -----------------------------------------------------------------------------

    def _directory(self) -> str:
        import tempfile

        return tempfile.mkdtemp(prefix="flamespace-inject-")

    def _chown(self, path: str) -> None:
        """As root, hand ``path`` to the target's user (the script must read it, the recorder write beside it)."""
        if os.geteuid() != 0:
            return
        try:
            status = os.stat(f"/proc/{self.process.pid}")
            os.chown(path, status.st_uid, status.st_gid)
        except OSError:
            pass

    def _remote_exec(self, script: str) -> None:
        pid = self.process.pid
        executable = _executable(pid)
        identity = helper_identity(pid, executable)
        environment = dict(os.environ)
        library_path = _environment_of(pid).get("LD_LIBRARY_PATH")
        if library_path and (identity is not None or not self._foreign()):
            environment["LD_LIBRARY_PATH"] = library_path  # never the other user's libraries into a process of ours
        user = {} if identity is None else {"user": identity[0], "group": identity[1]}
        try:
            done = subprocess.run(
                [executable, "-I", "-S", "-c", _REMOTE_EXEC, str(pid), script],
                capture_output=True,
                text=True,
                timeout=60,
                env=environment,
                **user,  # type: ignore[call-overload]  # user=, group=: Python 3.9+
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise NotStarted(f"cannot run process {pid}'s interpreter ({executable}) to inject flamespace: {exc}") from None
        if done.returncode != 0:
            lines = [line for line in done.stderr.strip().splitlines() if line.strip()]
            last = lines[-1] if lines else f"exit status {done.returncode}"
            if "PermissionError" in last or "Operation not permitted" in last:
                from .process import PERMISSION_HELP

                raise AccessDenied(f"permission denied running code in process {pid}: {PERMISSION_HELP}")
            raise NotStarted(f"process {pid} did not accept code to run (sys.remote_exec: {last})")

    def _wait_started(self, on_wait: Callable[[float], None] | None) -> bool:
        """True once the recorder runs in the target; False if stopped before (or the target exited)."""
        begin = time.monotonic()
        while True:
            error = self._file("error")
            if error is not None:
                raise InjectError(
                    f"flamespace could not record inside process {self.process.pid}: {error.decode(errors='replace')}"
                )
            if self._file("started") is not None:
                return True
            if not self.process.alive():
                raise ProcessGone(f"process {self.process.pid} exited before flamespace's recorder started in it")
            waited = time.monotonic() - begin
            if self._stopping:
                self.ended = "stopped"
                raise NotStarted(f"stopped before process {self.process.pid}'s main thread ran flamespace's recorder")
            if waited > START_TIMEOUT:
                raise NotStarted(
                    f"process {self.process.pid}'s main thread did not reach a point where it runs Python code within "
                    f"{START_TIMEOUT:.0f} s (blocked in a system call or C code?): nothing recorded"
                )
            if on_wait is not None:
                on_wait(waited)
            time.sleep(POLL)

    def _record_until(self, duration: float | None, start: int) -> None:
        deadline = None if duration is None else start + int(duration * 1e9)
        while True:
            if self._stopping:
                self.ended = "stopped"
                break
            if deadline is not None and time.monotonic_ns() >= deadline:
                self.ended = "duration"
                break
            if self._file("result") is not None or not self.process.alive():
                self.ended = "exited"
                break
            time.sleep(POLL)
        self.elapsed_ns = time.monotonic_ns() - start

    def _collect(self) -> RawRecording:
        from .. import raw as raw_module

        if self.ended != "exited":
            self._touch("stop")
        begin = time.monotonic()
        while time.monotonic() - begin < RESULT_TIMEOUT:
            data = self._file("result")
            if data is not None:
                if data[:1] != b"M" and self._foreign():
                    raise InjectError(
                        f"process {self.process.pid} belongs to another user and handed over a recording with a "
                        f"timeline, which is read by unpickling: not done for another user's process (write a flame "
                        f"graph format, or record as that user)"
                    )
                raw = raw_module.loads(data)
                raw.pid, raw.argv = self.process.pid, tuple(command_line(self.process.pid))
                self._leave_out_own(raw)
                return raw
            error = self._file("error")
            if error is not None:
                raise InjectError(
                    f"flamespace's recorder inside process {self.process.pid} failed: {error.decode(errors='replace')}"
                )
            if not self.process.alive() and self._file("result") is None:
                raise ProcessGone(f"process {self.process.pid} exited without handing over its recording")
            time.sleep(POLL)
        raise InjectError(f"process {self.process.pid} did not hand over its recording within {RESULT_TIMEOUT:.0f} s")

    def _leave_out_own(self, raw: RawRecording) -> None:
        """Leave out what the injection itself did: the main thread's samples while it ran the script, and the
        blocks the script allocated (a memory mode starts while the script is on the main thread's stack).
        Their frames name :data:`INJECTED_FILE`."""
        raw.totals = {stack: value for stack, value in raw.totals.items() if not any(INJECTED_MARK in frame for frame in stack)}

    def _foreign(self) -> bool:
        """Whether the target runs as another user than this process (its files are then not trusted to unpickle)."""
        try:
            return os.stat(f"/proc/{self.process.pid}").st_uid != os.geteuid()
        except OSError:
            return True

    def _file(self, name: str) -> bytes | None:
        """The file ``name`` of the directory (None if absent). Never through a symbolic link: once handed to the
        target's user, the directory holds what that user put there."""
        try:
            descriptor = os.open(os.path.join(self.directory, name), os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            return None
        with os.fdopen(descriptor, "rb") as file:
            return file.read()

    def _touch(self, name: str) -> None:
        """Create the empty file ``name`` (a signal to the script): never through a link, never truncating."""
        try:
            os.close(os.open(os.path.join(self.directory, name), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644))
        except FileExistsError:
            pass

    def _remove(self) -> None:
        import shutil

        shutil.rmtree(self.directory, ignore_errors=True)

    def _abandon(self) -> None:
        """After a failure: stop a recorder that may have started, or leave a cancel marker for a script
        not yet run (which then removes the directory itself)."""
        if not self.directory:
            return
        if self._file("started") is not None or self._file("error") is not None or not self.process.alive():
            if self._file("started") is not None and self._file("result") is None and self.process.alive():
                self._touch("stop")
                deadline = time.monotonic() + 5
                while self._file("result") is None and self._file("error") is None and time.monotonic() < deadline:
                    time.sleep(POLL)
            self._remove()
            return
        try:
            self._touch("cancel")
            self._chown(os.path.join(self.directory, "cancel"))
        except OSError:
            pass

    def describe(self) -> str:
        return " ".join(command_line(self.process.pid)) or str(self.process.pid)


def helper_identity(pid: int, executable: str) -> tuple[int, int] | None:
    """The (uid, gid) to run the target's interpreter as, to make the request; None: as this process.

    As root, for a process of another user, its interpreter is run as root only where that user cannot have
    changed it (owned by root, writable by nobody else); otherwise as the target's user (who may then lack the
    right to write into the process: ptrace_scope), never as root."""
    if os.geteuid() != 0:
        return None
    try:
        owner = os.stat(f"/proc/{pid}")
        binary = os.stat(executable)
    except OSError:
        return None
    if owner.st_uid == 0 or (binary.st_uid == 0 and not binary.st_mode & 0o022):
        return None
    return owner.st_uid, owner.st_gid


def _executable(pid: int) -> str:
    """The target's interpreter, as a path this process can run (through /proc when it is not visible here)."""
    try:
        path = os.readlink(f"/proc/{pid}/exe")
    except OSError:
        return f"/proc/{pid}/exe"
    return path if os.path.exists(path) and not path.endswith(" (deleted)") else f"/proc/{pid}/exe"


def _environment_of(pid: int) -> dict[str, str]:
    try:
        with open(f"/proc/{pid}/environ", "rb") as file:
            pairs = file.read().split(b"\0")
    except OSError:
        return {}
    found = {}
    for pair in pairs:
        name, equals, value = pair.partition(b"=")
        if equals:
            found[name.decode(errors="replace")] = value.decode(errors="replace")
    return found


def _package_parent() -> str:
    """The directory that holds this flamespace package (put on the target's sys.path for the import)."""
    import flamespace

    return os.path.dirname(os.path.dirname(os.path.abspath(flamespace.__file__)))


#: The file name the injected code is compiled under: one of flamespace's collect/ (it does not exist), so that the
#: recorders count its frames as the profiler's own (the memory recorders leave out what it allocates) and the
#: sampler hides its watcher thread; the controller leaves out the few samples that caught it running.
INJECTED_FILE = ("flamespace", "collect", "_injected.py")
INJECTED_MARK = "/".join(INJECTED_FILE)


def _script(directory: str, script: str, kind: str, arguments: dict[str, Any]) -> str:
    code_file = os.path.join(_package_parent(), *INJECTED_FILE)
    control = {
        "directory": directory,
        "script": script,
        "code_file": code_file,
        "kind": kind,
        "arguments": arguments,
        "package_parent": _package_parent(),
        "controller": os.getpid(),
    }
    # CPython runs the script in __main__'s namespace: it only execs the body in a namespace of its own, compiled
    # under INJECTED_FILE's name.
    return (
        f"exec(compile({INJECTED!r}, {code_file!r}, 'exec'), {{'__name__': '__flamespace_injected__', 'CONTROL': {control!r}}})\n"
    )


#: The body of the script the target runs (in its main thread, at a safe point), with ``CONTROL`` in its globals.
INJECTED = """
def _flamespace_injected(control):
    import os, sys, time, marshal, atexit, _thread

    directory = control["directory"]

    def path(name):
        return os.path.join(directory, name)

    def write(name, data):
        temporary = path(name + ".part")
        with open(temporary, "wb") as file:
            file.write(data)
        os.replace(temporary, path(name))

    def remove_all():
        for name in os.listdir(directory):
            os.remove(path(name))
        os.rmdir(directory)

    if os.path.exists(path("cancel")):  # the controller gave up waiting: leave nothing behind
        try:
            remove_all()
        except OSError:
            pass
        return
    parent = control["package_parent"]
    added = parent not in sys.path
    try:
        if added:
            sys.path.insert(0, parent)
        try:
            from flamespace.collect._bootstrap import start_recorder
            if control["kind"] == "alloc":
                from flamespace.collect.alloc import available
                problem = available()
                if problem is not None:
                    raise RuntimeError(
                        "--mode alloc needs flamespace's C extension built for this Python "
                        + sys.version.split()[0] + " (" + problem + "); run flamespace with this Python: "
                        + sys.executable + " -m flamespace record --pid ..."
                    )
        finally:
            if added and parent in sys.path:
                sys.path.remove(parent)
        recorder = start_recorder(control["kind"], control["arguments"], hidden_files=(control["code_file"],))
    except BaseException as exc:
        write("error", ("%s: %s" % (type(exc).__name__, exc)).encode("utf-8", "replace"))
        return
    state = {"done": False}

    def controller_alive():
        try:
            os.kill(control["controller"], 0)
        except ProcessLookupError:
            return False
        except OSError:
            return True
        return True

    def finish(deliver=True):
        if state["done"]:
            return
        state["done"] = True
        try:
            raw = recorder.stop()
            if not deliver:
                remove_all()
                return
            fields = raw.as_builtins()
            if fields is not None:
                data = b"M" + marshal.dumps(fields, 4)
            else:
                import pickle
                data = b"P" + pickle.dumps(raw, 4)
            write("result", data)
        except BaseException as exc:
            try:
                write("error", ("%s: %s" % (type(exc).__name__, exc)).encode("utf-8", "replace"))
            except OSError:
                pass

    stop_file = path("stop")

    def stop_asked():  # os.stat, a C function: a sample of this thread shows no frame that is not hidden
        try:
            os.stat(stop_file)
        except OSError:
            return False
        return True

    def watch():
        while not state["done"]:
            if stop_asked():
                finish()
                return
            if not controller_alive():
                finish(deliver=False)
                return
            time.sleep(0.05)

    _thread.start_new_thread(watch, ())
    atexit.register(finish)
    write("started", str(os.getpid()).encode())


_flamespace_injected(CONTROL)
"""


__all__ = ["FIRST_MINOR", "INJECTED", "INJECTED_MARK", "InjectError", "InjectedRecorder", "NotStarted", "problem"]
