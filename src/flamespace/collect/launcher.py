"""Runs a Python program under the profiler in a child interpreter and collects its profile.

The child is ``python -S -c <bootstrap>`` (see :mod:`._bootstrap`), so interpreter start-up
is part of the profile. Each profiled process (the program and, with ``subprocesses``, its
Python children) saves its :class:`~.raw.RawRecording` (:func:`.raw.dumps`) into a private temporary
directory; this side merges them into one :class:`~.recording.Recording`
(:func:`~.recording.merge`), with a ``name (pid)`` root frame per process when there is more
than one or when asked. :func:`record_program` is the public entry point.
"""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import time

from .._record import Record, record
from ..errors import FlamespaceError
from . import _stop_signals
from .options import SamplerOptions
from .raw import STATUS_SIZE, decode_status
from .target import Program, Target

TYPE_CHECKING = False  # typing and dataclasses cost record's start-up ~10 ms (docs/performance.md)
if TYPE_CHECKING:
    from typing import Any, Callable
    from collections.abc import Mapping

    from .._types import Output
    from .memory import MemoryOptions
    from .outside import OutsideSampler
    from .recording import RawRecording, Recording
    from .tracer import TraceOptions

#: How long a program may run on after a stop signal, or after --duration asked it to stop, before
#: it is killed.
STOP_GRACE_SECONDS = 5.0
#: How long a program that has saved its profile at --duration's end may run on before it is sent
#: SIGTERM (it ignores the Ctrl-C it was sent), and then SIGKILL.
SAVED_GRACE_SECONDS = 1.0


class RecordError(FlamespaceError):
    """The program ran but left no profile (killed with SIGKILL, say, or its profile could not be
    written). ``exit_code``, when set, is the code the command ends with (128 + the signal that
    killed the program or stopped us) rather than an error's 1."""

    def __init__(self, message: str, exit_code: int | None = None) -> None:
        super().__init__(message)
        self.exit_code = exit_code


@record(frozen=False)
class RecordResult(Record):
    """A finished run: the merged recording, the program's exit code and what happened."""

    recording: Recording
    exit_code: int
    processes: int
    stopped_by_duration: bool = False
    #: The signal (SIGINT, SIGTERM, SIGHUP) that stopped us while the program ran: the
    #: recording is what the program saved when we passed the signal on (partial).
    signal: int | None = None


@record
class Progress(Record):
    """How a recording is going, handed to ``record_program``'s ``progress`` a few times a second:
    seconds since the program started, and for the sampling modes the samples its main process
    took so far and the rate it achieved (None until the sampler first reports)."""

    seconds: float
    samples: int | None = None
    rate: float | None = None


#: How often ``progress`` is called while the program runs.
PROGRESS_SECONDS = 0.25


class Interrupted(RecordError):
    """A signal stopped us and the program saved nothing before it ended."""

    def __init__(self, message: str, signum: int) -> None:
        super().__init__(message, 128 + signum)
        self.signal = signum


def record_program(
    program: Program,
    options: SamplerOptions | MemoryOptions | TraceOptions,
    *,
    process_root: bool = False,
    subprocesses: bool = False,
    labels: Mapping[str, str] | None = None,
    stdout: Output = None,
    stderr: Output = None,
    progress: Callable[[Progress], None] | None = None,
) -> RecordResult:
    """Run ``program`` to its end under the recorder ``options`` ask for, as ``flamespace
    record`` does: its profile, exit code, and how many processes were recorded.

    The program runs in ``program.cwd`` with ``program.env`` set on top of our environment;
    its output goes to ``stdout``/``stderr`` (as for :class:`subprocess.Popen`; default:
    ours). ``labels`` (and ``program=<name>`` for a named program) go into the profile's
    metadata after ``command``. With ``subprocesses``, the Python processes it starts are
    recorded too; each process gets a ``name (pid)`` root frame then, or with ``process_root``.
    Raises :class:`RecordError` when the program left no profile. ``progress`` is called
    about every :data:`PROGRESS_SECONDS` while the program runs, with a :class:`Progress`
    (record's status line); without it the program has no channel to report through.
    """
    env = {**os.environ, **program.env} if program.env else None
    labels = {**(labels or {}), **({"program": program.name} if program.name else {})}
    return run(
        program.target,
        options,
        process_root=process_root,
        subprocesses=subprocesses,
        labels=labels,
        env=env,
        cwd=program.cwd,
        stdout=stdout,
        stderr=stderr,
        progress=progress,
        frame_root=program.frame_root,
    )


def run(
    target: Target,
    options: SamplerOptions | MemoryOptions | TraceOptions,
    *,
    process_root: bool = False,
    subprocesses: bool = False,
    labels: Mapping[str, str] | None = None,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    stdout: Output = None,
    stderr: Output = None,
    progress: Callable[[Progress], None] | None = None,
    frame_root: str | None = None,
) -> RecordResult:
    """Run ``target`` to its end under a recorder; the profile and the program's exit code.

    With ``subprocesses``, the Python processes it starts (``subprocess``, ``multiprocessing``
    with any start method, ``os.fork``) are recorded too, each under a ``name (pid)`` root.
    ``env`` is the program's whole environment and ``stdout``/``stderr`` where its output
    goes, and ``cwd`` where it runs, as for :class:`subprocess.Popen` (default: ours), so callers that run programs
    side by side (``flamespace collect``) need not change this process's environment.
    ``progress``: as for :func:`record_program`. Frames name the files under ``frame_root``
    (default: a script's directory) relative to it: :func:`program_dirs`.
    """
    out_dir = _private_directory("flamespace-record-")
    outside = None
    try:
        names_under = program_dirs(target, cwd, frame_root)
        config = _child_config(target, options, out_dir, subprocesses, names_under)
        outside = _outside_sampler(options, subprocesses, names_under)
        if outside is not None:
            config["outside"] = outside.child_config()
        try:
            watch = None if progress is None else _Watch(progress, out_dir, config)
        except OSError as exc:
            raise FlamespaceError(
                f"cannot write in {os.path.dirname(out_dir)}: {exc.strerror or exc} (set TMPDIR to a directory with room)"
            ) from None
        popen: dict[str, Any] = {"env": None if env is None else dict(env), "cwd": cwd, "stdout": stdout, "stderr": stderr}
        pid, returncode, signum = _run_child(target, config, options, popen, watch, outside)
        extra: dict[str, str] = {"sampler": "inside"} if isinstance(options, SamplerOptions) else {}
        if outside is not None and outside.recorder is not None:
            raw, lost, extra = outside.finish(target.argv)
            raws, main_error = [raw], None
        else:
            raws, lost, main_error = _collect_profiles(out_dir, pid, wait=subprocesses)
        from .recording import merge  # imported while the child ran (_import_for_the_end)

        if not raws and signum is not None:
            raise Interrupted(f"interrupted by {signal.Signals(signum).name} before the program saved a profile", signum)
        if not raws:
            raise _no_profile(returncode, main_error, out_dir)
        labels = {"command": target.describe(), **(labels or {}), **extra}
        recording = merge(raws, options, labels, process_root or subprocesses or len(raws) > 1)
        recording.problems.extend(lost)
        stopped = any(raw.deadline for raw in raws)
        if returncode < 0 and signum is None and not stopped:
            recording.problems.append(f"the program was killed by {_signal_name(-returncode)}: the profile ends there")
        exit_code = 0 if stopped else (128 - returncode if returncode < 0 else returncode)
        if signum is not None:
            exit_code = 128 + signum
        return RecordResult(recording, exit_code, len(raws), stopped, signum)
    finally:
        if outside is not None:
            outside.close()
        _remove_directory(out_dir)


def _outside_sampler(options: Any, subprocesses: bool, names_under: list[str]) -> OutsideSampler | None:
    """The launcher's side of sampling the program from outside (collect/outside.py), when the options ask for it."""
    if not isinstance(options, SamplerOptions) or options.sampler == "inside":
        return None
    from .outside import OutsideSampler, outside_wanted

    if not outside_wanted(options, subprocesses):
        return None
    return OutsideSampler(options, names_under, required=options.sampler == "outside")


def _private_directory(prefix: str) -> str:
    """:func:`_make_private_directory`, or a clear error naming $TMPDIR (full, read-only, missing);
    what recordings killed with SIGKILL left there goes first (:func:`_remove_stale_directories`)."""
    base = _temporary_base()
    if (base, prefix) not in _SWEPT:  # once a process: collect makes a directory a run
        _SWEPT.add((base, prefix))
        _remove_stale_directories(base, prefix)
    try:
        return _make_private_directory(prefix, base)
    except OSError as exc:
        raise FlamespaceError(
            f"cannot create the recording's temporary directory in {base}: {exc.strerror or exc}; "
            "free some space there or set TMPDIR to a directory with room"
        ) from None


def _temporary_base() -> str:
    return os.path.abspath(next((os.environ[name] for name in ("TMPDIR", "TEMP", "TMP") if os.environ.get(name)), "/tmp"))


def _make_private_directory(prefix: str, base: str) -> str:
    """A new directory that only we can use, in ``base`` ($TMPDIR, $TEMP, $TMP or /tmp: an absolute path:
    the child may run elsewhere): ``tempfile.mkdtemp`` without
    importing tempfile, which imports shutil, random and three compressors (about 4 ms of
    every recording's fixed cost); tempfile itself when those directories will not do."""
    for _ in range(10):
        path = os.path.join(base, f"{prefix}{os.getpid()}-{os.urandom(6).hex()}")
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            continue
        except OSError:
            break
        try:
            with open(os.path.join(path, OWNER), "w", encoding="utf-8") as file:
                file.write(_pid_namespace() + "\n")
        except OSError:
            pass  # (a full $TMPDIR: said when the profile cannot be saved) never taken for stale, then
        return path
    import tempfile

    return tempfile.mkdtemp(prefix=prefix)


#: In each recording's directory: the pid namespace of the flamespace that made it (the pid in the
#: directory's name means something only there: a container may share /tmp with other pids).
OWNER = "owner"
#: The temporary directories (and prefixes) swept of stale recordings' directories by this process.
_SWEPT: set[tuple[str, str]] = set()


def _pid_namespace() -> str:
    try:
        return os.readlink("/proc/self/ns/pid")
    except OSError:
        return "?"  # no /proc: directories are never taken for stale


def _remove_stale_directories(base: str, prefix: str) -> None:
    """Remove the directories ``PREFIX<pid>-...`` in ``base`` that a recording killed with SIGKILL
    left behind (a trace's event file in one can hold hundreds of MB): ours, made in this pid
    namespace (their ``owner`` file says), by a process that is gone. Anything else stays."""
    here, uid = _pid_namespace(), os.getuid()
    if here == "?":
        return
    try:
        entries = list(os.scandir(base))
    except OSError:
        return
    for entry in entries:
        pid = entry.name[len(prefix) :].split("-", 1)[0] if entry.name.startswith(prefix) else ""
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            if not entry.is_dir(follow_symlinks=False) or entry.stat(follow_symlinks=False).st_uid != uid:
                continue
            with open(os.path.join(entry.path, OWNER), encoding="utf-8") as file:
                namespace = file.read().strip()
        except OSError:
            continue  # no owner file: another program's, or one being made
        if namespace == here and not process_alive(int(pid)):
            _remove_directory(entry.path)


def _remove_directory(path: str) -> None:
    """Remove ``path`` and what the profiled processes left in it (files only; else shutil.rmtree)."""
    try:
        for entry in os.scandir(path):
            os.unlink(entry.path)
        os.rmdir(path)
    except OSError:
        import shutil

        shutil.rmtree(path, ignore_errors=True)


def program_dirs(target: Target, cwd: str | None = None, frame_root: str | None = None) -> list[str]:
    """The directories whose files the program's frames name relative to them: ``frame_root``,
    else a script's own directory, as found from ``cwd`` and with its links resolved (where
    Python imports its neighbours from); none for -m and -c (the working directory, as always).
    So ``a/bench.py`` and ``b/bench.py``, two checkouts of one program, both name ``bench.py``."""
    base = cwd or os.getcwd()
    if frame_root is not None:
        return [os.path.abspath(os.path.join(base, frame_root))]
    if target.kind != "script":
        return []
    script = os.path.join(base, target.value)
    return sorted({os.path.dirname(os.path.abspath(script)), os.path.dirname(os.path.realpath(script))})


def _child_config(
    target: Target, options: Any, out_dir: str, subprocesses: bool, names_under: list[str] | None = None
) -> dict[str, Any]:
    config: dict[str, Any] = {
        "target": {"kind": target.kind, "value": target.value, "args": list(target.args)},
        "program_dirs": names_under or [],
        "out_dir": out_dir,
        "site": target.site_enabled,
        "package_parent": _package_parent(),
        "subprocesses": subprocesses,
        "hook_dir": os.path.join(os.path.dirname(os.path.abspath(__file__)), "_hook"),
    }
    if _child_can_die_with_us(target):
        config["die_with"] = os.getpid()  # the child asks the kernel itself (_bootstrap._die_with)
    if isinstance(options, SamplerOptions):
        config["recorder"] = "sampler"
        config["arguments"] = {**options.as_dict(), "root": ()}  # roots are added here, per process
    else:
        config["recorder"] = options.mode
        config["arguments"] = options.engine_arguments()
    return config


class _Watch:
    """Reports a run's :class:`Progress`: the time, and the figures the sampler of the program's
    main process writes into the status file of ``out_dir`` (``_bootstrap._status_writer``;
    sampling modes only). Polled by :func:`_wait`; calls ``report`` every :data:`PROGRESS_SECONDS`."""

    def __init__(self, report: Callable[[Progress], None], out_dir: str, config: dict[str, Any]) -> None:
        self.report = report
        self.path: str | None = None
        if config["recorder"] == "sampler":
            self.path = config["status"] = os.path.join(out_dir, "status")
            with open(self.path, "wb"):
                pass
        self.started = time.monotonic()
        self.due = self.started + PROGRESS_SECONDS  # a program that ends at once shows nothing
        self.figures: tuple[int, int, int] | None = None
        #: Where the figures come from when the program is sampled from outside (collect/outside.py).
        self.source: Callable[[], tuple[int, int, int] | None] | None = None

    def poll(self) -> None:
        now = time.monotonic()
        if now < self.due:
            return
        self.due = max(self.due + PROGRESS_SECONDS, now)
        if self.source is not None:
            self.figures = self.source() or self.figures
        elif self.path is not None:
            try:
                with open(self.path, "rb") as file:
                    self.figures = decode_status(file.read(STATUS_SIZE)) or self.figures  # a torn read: the last
            except OSError:
                pass
        samples = rate = None
        if self.figures is not None:
            samples, ticks, elapsed_ns = self.figures
            rate = ticks / (elapsed_ns / 1e9) if elapsed_ns else None
        self.report(Progress(now - self.started, samples, rate))


def bootstrap_code(config: Mapping[str, Any]) -> str:
    """The ``-c`` program of a profiled interpreter. The config travels as a Python literal:
    parsing it needs no import (json would be imported before the program's own imports)."""
    return (
        f"import sys; sys.path.insert(0, {config['package_parent']!r}); "
        "import flamespace.collect._bootstrap as _flamespace_bootstrap; del sys.path[0]; "
        f"_flamespace_bootstrap.main({dict(config)!r})"
    )


def child_argv(interpreter: str, flags: list[str], config: Mapping[str, Any]) -> list[str]:
    return [interpreter, *flags, "-S", "-c", bootstrap_code(config)]


def _package_parent() -> str:
    """The directory that holds the flamespace package (this file is flamespace/collect/launcher.py)."""
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


#: How often the launcher looks up from waiting for its child (its status line, its deadlines).
POLL_SECONDS = 0.1
#: ... while it samples the child from outside with no status line to draw: each look holds this process's
#: GIL, which the sampling thread needs, and on a loaded machine the scheduler can stop this thread while it
#: holds it (docs/statistics.md, "Sampling from outside the program").
OUTSIDE_POLL_SECONDS = 1.0

#: The signals that stop us: each is passed on to the program (SIGINT as SIGINT, so that it
#: sees KeyboardInterrupt; the others as SIGTERM), which saves its profile and ends.
STOP_SIGNALS = tuple(signal.Signals(s) for s in _stop_signals.STOP_SIGNALS)


def _run_child(
    target: Target,
    config: dict[str, Any],
    options: Any,
    popen: dict[str, Any],
    watch: _Watch | None = None,
    outside: OutsideSampler | None = None,
) -> tuple[int, int, int | None]:
    """Start the child and wait for it: its pid, its return code, and the signal that stopped us (or None).

    A stop signal (:data:`STOP_SIGNALS`) is passed on to the child, which saves its profile
    and ends; it gets :data:`STOP_GRACE_SECONDS` for that, then is killed. A second signal
    kills it at once. A signal that came before the child started stops us without starting it
    (:class:`Interrupted`). On Linux the child is killed when we die (``kill -9``) too.
    """
    argv = child_argv(target.interpreter, list(target.flags), config)
    received, early_previous = _stop_signals.take()
    child: subprocess.Popen[bytes] | None = None

    def stop(signum: int, frame: object) -> None:
        received.append(signum)
        if child is None or child.returncode is not None:
            return
        try:
            if len(received) > 1:
                child.kill()
            else:
                child.send_signal(signal.SIGINT if signum == signal.SIGINT else signal.SIGTERM)
        except OSError:  # it has just ended
            pass

    # Handlers, not SIG_IGN: an ignored signal stays ignored in the child; a handler is reset by exec.
    # One ignored already (SIGHUP under nohup) stays so, here and in the child: nothing to stop for.
    previous: dict[int, Any] = (
        {s: signal.signal(s, stop) for s in STOP_SIGNALS if signal.getsignal(s) != signal.SIG_IGN} if _main_thread() else {}
    )
    previous.update(early_previous)  # what was there before _stop_signals.catch (the CLI's)
    try:
        received.extend(_stop_signals.take()[0])  # one that came just now
        if received:
            raise Interrupted(f"interrupted by {signal.Signals(received[0]).name} before the program started", received[0])
        if outside is not None:
            popen = {**popen, "pass_fds": outside.pass_fds()}
        try:
            child = subprocess.Popen(argv, **popen, **({} if config.get("die_with") else _die_with_us()))
        except OSError as exc:
            raise FlamespaceError(f"cannot start {target.interpreter}: {exc.strerror or exc}") from None
        if received:  # a signal came while it started
            stop(received.pop(), None)
        saved = os.path.join(config["out_dir"], f"{child.pid}.raw")
        try:
            _import_for_the_end()  # before the outside sampler starts: imports hold our GIL, which its thread needs
            poll = POLL_SECONDS
            if outside is not None and outside.start(child.pid, config["out_dir"]):
                saved = outside.deadline_note  # left when the outside sampler stops the program at --duration's end
                if watch is not None:
                    watch.source = outside.figures
                else:
                    poll = OUTSIDE_POLL_SECONDS
            returncode = _wait(child, getattr(options, "duration", None), received, watch, saved, poll)
        except BaseException:  # we are stopping all the same: the program must not run on alone
            child.kill()
            child.wait()
            raise
        return child.pid, returncode, (received[0] if received else None)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        _stop_signals.forget()


def _wait(
    child: subprocess.Popen[bytes],
    duration: float | None,
    received: list[int],
    watch: _Watch | None = None,
    saved: str | None = None,
    poll: float = 0.1,
) -> int:
    """The child's return code; it is stopped (then killed) when it overruns ``duration`` or
    :data:`STOP_GRACE_SECONDS` after a stop signal came (``received``). ``watch`` is polled
    about every ``poll`` seconds (it ends at once, whenever the child does).

    With ``duration``, the child saves its profile (the file ``saved``) and sends itself
    SIGINT when its time is up; one that goes on (it ignores SIGINT) gets
    :data:`SAVED_GRACE_SECONDS`, then SIGTERM, then as long again before SIGKILL: its profile is
    saved, nothing is lost by stopping it."""
    deadline = None if duration is None else time.monotonic() + duration + STOP_GRACE_SECONDS
    signalled = False
    terminated = False
    has_saved = False
    while True:
        if received and not signalled:
            signalled = True
            deadline = time.monotonic() + STOP_GRACE_SECONDS
        try:
            return _wait_briefly(child, poll if deadline is None else max(0.0, min(poll, deadline - time.monotonic())))
        except subprocess.TimeoutExpired:
            pass
        if watch is not None:
            watch.poll()
        if duration is not None and not has_saved and not signalled and saved is not None and os.path.exists(saved):
            has_saved = True
            deadline = min(deadline, time.monotonic() + SAVED_GRACE_SECONDS)  # type: ignore[type-var]
        if deadline is not None and time.monotonic() >= deadline:
            if terminated or signalled:  # it ignored SIGTERM too, or the signal we passed on
                child.kill()
                return child.wait()
            child.terminate()  # it ignored the Ctrl-C that --duration sent
            terminated = True
            deadline = time.monotonic() + (SAVED_GRACE_SECONDS if has_saved else STOP_GRACE_SECONDS)


def _import_for_the_end() -> None:
    """Import what reading, merging and writing the profiles takes while the child starts: this
    process only waits then, so on a machine with a core to spare the imports cost the run nothing
    (they are part of record's and trace's fixed cost: docs/performance.md)."""
    import shlex  # noqa: F401  # Target.describe(), for the labels

    from .._version import platform_labels  # noqa: F401
    from ..formats import registry  # noqa: F401  # the writers (folded)
    from . import recording  # noqa: F401


def _wait_briefly(child: subprocess.Popen[bytes], timeout: float) -> int:
    """``child.wait(timeout)``, but woken the moment the child ends: Popen.wait polls with
    sleeps growing to 50 ms, which a short program would pay after its end (every run of
    ``collect``). Linux's pidfd (Python 3.9+) says when; elsewhere Popen.wait as it is."""
    pidfd_open = getattr(os, "pidfd_open", None)
    if pidfd_open is None or child.returncode is not None:
        return child.wait(timeout)
    try:
        pidfd = pidfd_open(child.pid)
    except OSError:  # no pidfd in this kernel, or the child was reaped already
        return child.wait(timeout)
    try:
        import select

        if not select.select([pidfd], [], [], timeout)[0]:  # a signal's handler runs in between (PEP 475)
            raise subprocess.TimeoutExpired(child.args, timeout)
    finally:
        os.close(pidfd)
    return child.wait()


def _child_can_die_with_us(target: Target) -> bool:
    """Whether the child can make itself die with us (Linux, with the C extension built for
    the interpreter it runs): then Popen needs no preexec_fn, which costs the ctypes import
    and Popen's slower way to start a program (part of record's fixed cost)."""
    if not sys.platform.startswith("linux") or os.path.realpath(target.interpreter) != os.path.realpath(sys.executable):
        return False
    try:
        from . import _waiter  # noqa: F401
    except ImportError:
        return False
    return True


def _die_with_us() -> dict[str, Any]:
    """Popen arguments that make the child die (SIGKILL) when we do, even by ``kill -9`` (Linux)."""
    if not sys.platform.startswith("linux"):
        return {}
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)  # loaded here: the forked child only calls it
    parent = os.getpid()

    def set_parent_death_signal() -> None:
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG = 1
        if os.getppid() != parent:  # we died before prctl took effect
            os._exit(1)

    return {"preexec_fn": set_parent_death_signal}


def _main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


def _collect_profiles(out_dir: str, main_pid: int, wait: bool) -> tuple[list[RawRecording], list[str], str | None]:
    """The raw recordings saved in ``out_dir``, what was lost, worded for a warning, and why
    the program's main process (``main_pid``) could not save its own (its error note), if so.

    Each recorded subprocess leaves ``<pid>.started`` when it starts, ``<pid>.raw`` when
    it saves, or ``<pid>.error`` when it could not record. A process that replaced itself
    (``os.exec*``) saved ``<pid>.before-exec`` first. With ``wait``, subprocesses still
    running when the program ended get :data:`STOP_GRACE_SECONDS` to finish.
    """
    deadline = time.monotonic() + (STOP_GRACE_SECONDS if wait else 0)
    while True:
        files = _files_by_kind(out_dir)
        running = [pid for pid in files["started"] - files["raw"] - set(files["error"]) if process_alive(pid)]
        if not running or time.monotonic() >= deadline:
            break
        time.sleep(0.05)
    from .raw import load

    raws: list[RawRecording] = []
    for kind in ("raw", "before-exec"):
        for pid in sorted(files[kind]):
            with open(os.path.join(out_dir, f"{pid}.{kind}"), "rb") as file:
                raws.append(load(file))
    raws.sort(key=lambda raw: raw.start_ns)
    main_error = files["error"].pop(main_pid, None) or None
    lost = [
        f"subprocess {pid} could not be recorded: {message or _full_disk(out_dir) or 'unknown error'}"
        for pid, message in sorted(files["error"].items())
    ]
    if main_error is not None and raws:
        lost.append(f"the program's main process: {main_error}")
    unsaved = sorted(files["started"] - files["raw"] - set(files["error"]))
    still_running = [pid for pid in unsaved if pid in running]
    ended = [pid for pid in unsaved if pid not in running]
    if still_running:
        lost.append(
            f"{_count(still_running, 'subprocess')} ({_pids(still_running)}) still running {STOP_GRACE_SECONDS:g} s "
            "after the program ended: not in the profile"
        )
    if ended:
        lost.append(
            f"{_count(ended, 'subprocess')} ({_pids(ended)}) ended without saving a profile "
            "(killed by a signal): not in the profile"
        )
    return raws, lost, main_error


def _files_by_kind(out_dir: str) -> dict[str, Any]:
    files: dict[str, Any] = {"started": set(), "raw": set(), "before-exec": set(), "error": {}}
    for name in os.listdir(out_dir):
        stem, _, kind = name.partition(".")
        if not stem.isdigit() or kind not in files:
            continue  # e.g. a recording being written (.raw.tmp)
        if kind == "error":
            with open(os.path.join(out_dir, name), encoding="utf-8", errors="replace") as file:
                files["error"][int(stem)] = file.read().strip()  # empty: its words could not be written (a full disk)
        else:
            files[kind].add(int(stem))
    return files


def process_alive(pid: int) -> bool:
    """Whether process ``pid`` still runs (a zombie has ended: it only waits to be reaped)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            return file.read().rpartition(b")")[2].split()[0] != b"Z"
    except (OSError, IndexError):
        return True


def _count(items: list[int], noun: str) -> str:
    return f"{len(items)} {noun}{'' if len(items) == 1 else 'es'}"


def _pids(pids: list[int]) -> str:
    shown = ", ".join(str(pid) for pid in pids[:5])
    return "pid " + shown + (f" and {len(pids) - 5} more" if len(pids) > 5 else "")


def _no_profile(returncode: int, main_error: str | None, out_dir: str) -> RecordError:
    """Why the program left no profile, as the error to raise: killed by a signal (the exit code
    is 128 + the signal, as a shell gives), its save failed (its note, or a full disk), or it
    ended in a way that skips saving."""
    if returncode < 0:
        return RecordError(f"the program was killed by {_signal_name(-returncode)} before it saved its profile", 128 - returncode)
    if main_error is not None:
        return RecordError(f"{main_error} (set TMPDIR to a directory with room)")
    full = _full_disk(out_dir)
    if full is not None:
        return RecordError(
            f"cannot save the profile in {os.path.dirname(out_dir)}: {full}; "
            "free some space there or set TMPDIR to a directory with room"
        )
    return RecordError(
        f"the program ended (exit code {returncode}) without saving a profile: the interpreter could not start "
        "the profiler, or the program ended in a way that skips saving (posix.exec* or posix._exit, called directly)"
    )


def _signal_name(signum: int) -> str:
    try:
        name = signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"
    what = {
        "SIGSEGV": "a segmentation fault",
        "SIGBUS": "a bus error",
        "SIGABRT": "abort()",
        "SIGFPE": "an arithmetic fault",
        "SIGILL": "an illegal instruction",
    }.get(name)
    return f"{name} ({what})" if what else name


def _full_disk(path: str) -> str | None:
    """The system's words when the file system of ``path`` has no room left (no blocks or no
    inodes for us), else None."""
    try:
        stats = os.statvfs(path)
    except OSError:
        return None
    if stats.f_bavail == 0 or (stats.f_files and stats.f_favail == 0):
        return os.strerror(errno.ENOSPC)
    return None


__all__ = [
    "Interrupted",
    "Progress",
    "RecordError",
    "RecordResult",
    "bootstrap_code",
    "child_argv",
    "process_alive",
    "record_program",
    "run",
]
