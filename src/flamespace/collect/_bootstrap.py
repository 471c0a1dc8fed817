"""Runs inside the profiled interpreter: start recording, run ``site``, run the target, save.

The launcher starts ``python -S -c "...; _bootstrap.main(config)"``. With ``-S`` nothing
has run yet when the sampler starts, so the work of ``site``, ``.pth`` files,
``sitecustomize`` and every import before ``__main__`` is in the profile. Then the
target runs as it would under ``python``: same ``sys.argv``, ``sys.path[0]``, ``__main__``
attributes, exit code and traceback (without our frames). The recorder's
:class:`~.raw.RawRecording` is saved (:func:`.raw.dumps`)
into ``config["out_dir"]`` from an ``atexit`` handler registered before the target's own,
so it runs last: after non-daemon threads have finished and the target's handlers ran.

Imports are kept to modules a bare interpreter has loaded anyway, so the program's own
imports cost what they would cost without the profiler. :func:`start_recorder` is the one
place that knows which recorder records which kind (the in-process API uses it too).
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, NoReturn
    from collections.abc import Collection, Mapping

    from .protocol import Recorder

#: The environment variable that carries the recorder's configuration to child interpreters.
SUBPROCESS_ENV = "FLAMESPACE_SUBPROCESS"

_state: dict[str, Any] = {"saved": False, "deadline": False}
#: The file a launcher that samples us from outside leaves in ``out_dir`` before it stops us at --duration's end.
DEADLINE_NOTE = "deadline"


def main(config: dict[str, Any]) -> None:
    """Entry point of the child interpreter (``config`` comes as a Python literal)."""
    import atexit

    target = config["target"]
    if config.get("die_with"):
        _die_with(config["die_with"])
    _forget_the_working_directory()
    if config.get("outside") and _sampled_from_outside(config["outside"]):
        _state.update(recorder=None, config=config, saved=True)  # the launcher records: nothing to save here
    else:
        _state.update(recorder=_start_recorder(config), config=config)
        _save_on_every_exit()
        atexit.register(_save)
    if config.get("subprocesses"):
        _profile_child_interpreters(config)
    if config.get("site", True):
        import site

        _hide_our_no_site_flag()
        site.main()
    try:
        _run(target)
    except SystemExit:
        raise
    except BaseException as exc:  # what python itself does with an uncaught exception
        if isinstance(exc, KeyboardInterrupt) and (_state["deadline"] or _stopped_by_the_launcher(config)):
            sys.exit(0)  # --duration stopped the program on purpose
        tb = _without_our_frames(exc.__traceback__)
        sys.excepthook(type(exc), exc.with_traceback(tb), tb)  # the default hook prints exc.__traceback__
        sys.exit(130 if isinstance(exc, KeyboardInterrupt) else 1)


def _sampled_from_outside(pipes: Mapping[str, int]) -> bool:
    """Say we are ready, then wait for the launcher to attach (collect/outside.py): True when it samples
    this process from outside, False when this process must record itself."""
    try:
        os.write(pipes["ready"], b"ready\n")
        os.close(pipes["ready"])
        answer = os.read(pipes["go"], 1)
        os.close(pipes["go"])
    except OSError:
        return False
    return answer == b"o"


def _stopped_by_the_launcher(config: Mapping[str, Any]) -> bool:
    """Whether the launcher sampling us from outside stopped us at --duration's end (it leaves a note first)."""
    return bool(config.get("outside")) and os.path.exists(os.path.join(config["out_dir"], DEADLINE_NOTE))


def _die_with(parent: int) -> None:
    """Be killed when the launcher (process ``parent``) dies, even by ``kill -9`` (Linux; the
    launcher asks this of us only when the C extension is built for this interpreter)."""
    try:
        from ._waiter import die_with_parent

        die_with_parent(parent)
    except (ImportError, OSError):  # never stop the program for it
        pass


def _forget_the_working_directory() -> None:
    """``python -c`` (how we are started) puts '' (the working directory) first on sys.path;
    ``python script.py`` does not, and adds its own entry only after site has run. Left there,
    a sitecustomize.py in the working directory would run at start-up and modules there would
    be importable, which is not so under python. :func:`_run` adds the entry python would."""
    if sys.path and sys.path[0] == "" and not getattr(sys.flags, "safe_path", False):
        del sys.path[0]


def start_in_subprocess(config: dict[str, Any]) -> None:
    """Profile this process, a Python child of a program recorded with ``subprocesses``
    (called by the ``sitecustomize`` hook in ``_hook/`` while the interpreter starts)."""
    import atexit

    _state.update(recorder=_start_recorder(config), config=config)
    _save_on_every_exit()
    atexit.register(_save)


def _profile_child_interpreters(config: dict[str, Any]) -> None:
    """Make the Python processes this program starts load the hook that profiles them."""
    child = {key: value for key, value in config.items() if key not in ("target", "site", "status", "die_with")}
    if child["recorder"] == "sampler":
        child["arguments"] = {**child["arguments"], "duration": None}  # the launcher stops the whole run
    os.environ[SUBPROCESS_ENV] = repr(child)
    path = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = config["hook_dir"] + (os.pathsep + path if path else "")


def _save_on_every_exit() -> None:
    """Beyond atexit: save on SIGTERM and SIGHUP, before ``os._exit`` (the ways multiprocessing's
    children end, and a closed terminal) and before ``os.exec*`` (which replaces the process, so
    that no atexit handler runs), and give a forked child a recorder of its own, or none (see
    :func:`_after_fork_in_child`)."""
    _mark_started()
    _save_on_sigterm()
    _save_on_crash()
    if "real_exit" not in _state:  # once per process, even across forks
        _state["real_exit"] = os._exit
        os._exit = _exit_after_saving
        _save_before_exec()
        os.register_at_fork(after_in_child=_after_fork_in_child)


def _save_on_crash() -> None:
    """Save, best effort, when the program crashes (a segfault in an extension, abort()): the C
    extension's fault handler calls :func:`_save`, then the process dies of the signal
    (``_waiter.c``, "Saving on a crash", says what can go wrong and how it is bounded). Without
    the C extension, or under a faulthandler enabled before us, a crash loses the recording."""
    try:
        from ._waiter import save_on_crash

        save_on_crash(_save)
    except (ImportError, OSError):
        pass


def _save_before_exec() -> None:
    """Wrap ``os.execv`` and ``os.execve``: every ``os.exec*`` function (execl, execlp, execvp,
    execvpe, ...) ends in one of them, looked up in ``os`` when it is called. What was recorded
    is saved first, as ``<pid>.before-exec``: the program the process becomes may be recorded
    under the same pid (``--subprocesses``) and save a ``<pid>.raw`` of its own."""
    for name in ("execv", "execve"):
        setattr(os, name, _exec_after_saving(getattr(os, name)))


def _exec_after_saving(real_exec: Callable[..., NoReturn]) -> Callable[..., NoReturn]:
    def exec_after_saving(*args: Any, **kwargs: Any) -> NoReturn:
        _save(BEFORE_EXEC)
        _forget_started()  # the new program says so itself if it records (--subprocesses)
        try:
            real_exec(*args, **kwargs)
        except BaseException:  # it goes on as it was: what it recorded so far is its profile
            _rename_note(BEFORE_EXEC, "raw")
            _mark_started()
            raise
        raise AssertionError("os.exec* returned")  # it never does: it replaces the process or raises

    exec_after_saving.__doc__ = real_exec.__doc__
    exec_after_saving.__name__ = real_exec.__name__
    return exec_after_saving


def _hide_our_no_site_flag() -> None:
    """``sys.flags`` as plain ``python`` would have it, without the ``-S`` we started with:
    code that copies the flags to child interpreters (multiprocessing's spawn and
    forkserver) must not start them without ``site``."""
    flags = sys.flags
    names = getattr(flags, "__match_args__", None) or _field_names(repr(flags))  # 3.9: no __match_args__
    if "no_site" not in names or len(names) != len(flags):
        return
    values = list(flags)
    values[names.index("no_site")] = 0
    from operator import itemgetter

    namespace: dict[str, Any] = {name: property(itemgetter(i)) for i, name in enumerate(names)}
    namespace["__repr__"] = lambda self: "sys.flags(" + ", ".join(f"{n}={v!r}" for n, v in zip(names, self)) + ")"
    sys.flags = type("flags", (tuple,), namespace)(values)


def _field_names(text: str) -> tuple:
    """The field names in a struct sequence's repr, ``sys.flags(debug=0, inspect=0, ...)``."""
    inside = text[text.find("(") + 1 : text.rfind(")")]
    return tuple(part.split("=", 1)[0].strip() for part in inside.split(",") if "=" in part)


#: The signals a process saves its profile on, then dies of: SIGTERM (``multiprocessing.Pool``
#: stops its workers so; ``kill``, ``timeout``) and SIGHUP (a closed terminal sends it to the
#: whole process group, so the program gets it at the same time as the launcher).
SAVE_SIGNALS = ("SIGTERM", "SIGHUP")


def _save_on_sigterm() -> None:
    """A process stopped with SIGTERM or SIGHUP (:data:`SAVE_SIGNALS`)
    saves its profile, then dies of the signal as it would have. The program's own handler
    (or SIG_IGN, as under ``nohup``), if it has one, is left alone.

    A Python handler runs only when the main thread runs bytecode: a SIGTERM that comes just
    before the main thread blocks (on a semaphore, say) would be noted and never acted on,
    where the default action kills. The watchdog of ``_waiter.c`` sees to it that the handler
    runs (or, failing that, that the process dies of the signal); without the C extension
    that race stays."""
    import _signal  # `signal` would import enum first

    try:
        for name in SAVE_SIGNALS:
            signum = getattr(_signal, name)
            if _signal.getsignal(signum) == _signal.SIG_DFL:
                _signal.signal(signum, _save_then_die)
    except (ValueError, OSError):  # not the main thread
        return
    _watch_sigterm()


def _watch_sigterm() -> None:
    """Start the SIGTERM watchdog of this process, if our handler is SIGTERM's (again in a
    forked child: the parent's watchdog thread is not there)."""
    import _signal

    if _signal.getsignal(_signal.SIGTERM) is not _save_then_die:
        return
    try:
        from ._waiter import watch_sigterm

        watch_sigterm()
    except (ImportError, OSError):  # built without a C compiler, or no thread to spare
        pass


def _save_then_die(signum: int, frame: object) -> None:
    try:
        from ._waiter import sigterm_handled
    except ImportError:
        pass
    else:
        sigterm_handled()  # the watchdog stands down: saving may take a while
    if _state.get("saving"):  # the signal interrupted a save (on exit): let it finish first
        _state["pending_signal"] = signum
        return
    try:
        _save()
    finally:
        _die_of(signum)


def _die_of(signum: int) -> None:
    import _signal

    _signal.signal(signum, _signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _exit_after_saving(status: int) -> NoReturn:
    real_exit: Callable[[int], NoReturn] = _state["real_exit"]
    try:
        _save()
    finally:
        real_exit(status)


def _after_fork_in_child() -> None:
    """A forked child inherits the parent's recording, which is not its own: record afresh
    (with ``subprocesses``) or save nothing."""
    config = _state.get("config")
    if config is None:
        return
    _state["saved"] = True  # until a recorder of its own runs
    _watch_sigterm()
    if not config.get("subprocesses"):
        return
    try:
        recorder = _state["recorder"].forked()
        _state.update(recorder=recorder, saved=False, deadline=False)
        _mark_started()
    except Exception as exc:  # never break the program: say so next to the profiles
        _write_note("error", f"{type(exc).__name__}: {exc}")


def _mark_started() -> None:
    """Tell the launcher this process records, so it can wait for (or report) its profile."""
    if _state["config"].get("subprocesses"):
        _write_note("started", "")


def _forget_started() -> None:
    if _state["config"].get("subprocesses"):
        _remove_note("started")


def _note_path(kind: str) -> str:
    return os.path.join(_state["config"]["out_dir"], f"{os.getpid()}.{kind}")


def _remove_note(kind: str) -> None:
    try:
        os.unlink(_note_path(kind))
    except OSError:
        pass


def _rename_note(kind: str, new_kind: str) -> None:
    try:
        os.replace(_note_path(kind), _note_path(new_kind))
    except OSError:
        pass


def _write_note(kind: str, text: str) -> None:
    try:
        with open(_note_path(kind), "w", encoding="utf-8") as file:
            file.write(text)
    except OSError:
        pass


def _start_recorder(config: dict[str, Any]) -> Recorder:
    """The recorder of ``config`` (the sampler, a memory recorder or the tracer), started;
    its frames name the files under the program's directories relative to them."""
    if config.get("program_dirs"):
        from ..core.python_frames import set_program_dirs

        set_program_dirs(config["program_dirs"])
    kind = config["recorder"]
    code_objects, hidden = launcher_frames(config.get("target", {}).get("kind"))
    if kind == "trace":  # stacks start below our frames; the rest of this file is left out
        # The event file keeps its name in out_dir (the launcher removes it however we end) so that
        # the tracer can reopen it when the program closes its descriptor (_tracer.c).
        return start_recorder(
            kind,
            config["arguments"],
            hidden,
            root_cut=code_objects,
            private_files=(__file__,),
            forks_traced=bool(config.get("subprocesses")),
            event_dir=config["out_dir"],
            keep_event_file=True,
        )
    if kind != "sampler":
        return start_recorder(kind, config["arguments"], hidden)
    extras: dict[str, Any] = {"root_cut": code_objects, "on_deadline": _on_deadline}
    if config.get("status"):
        extras["on_progress"] = (STATUS_SECONDS, _status_writer(config["status"]))
    return start_recorder(kind, config["arguments"], hidden, **extras)


def launcher_frames(target_kind: str | None) -> tuple[set[Any], set[str]]:
    """Where a target's stacks start: the code objects of our frames below it (the sampler's
    ``root_cut``), and the files whose frames are left out at its root (runpy's, for -m)."""
    hidden = set()
    if target_kind == "module":
        import runpy

        hidden.add(runpy.__file__)
        hidden.add(runpy._run_module_as_main.__code__.co_filename)  # type: ignore[attr-defined]  # "<frozen runpy>" on 3.11+
    return {main.__code__, _run.__code__, _run_script.__code__, _run_code.__code__}, hidden


#: How often the sampler rewrites the status file the launcher reads (4 times a second) for record's status line.
STATUS_SECONDS = 0.2


def _status_writer(path: str) -> Callable[[Any, int], None]:
    """Writes the sampler's running figures into ``path`` in place, a few times a second, for
    the launcher's status line; only the program's main process has it. The file is opened for
    each write: a descriptor kept open could be closed by the program and its number reused."""
    from .raw import encode_status

    def write(quality: Any, elapsed_ns: int) -> None:
        fd = os.open(path, os.O_WRONLY)
        try:
            os.pwrite(fd, encode_status(quality.samples, quality.ticks, elapsed_ns), 0)
        finally:
            os.close(fd)

    return write


def start_recorder(
    kind: str, arguments: Mapping[str, Any], hidden_files: Collection[str] = (), **sampler_extras: Any
) -> Recorder:
    """The started recorder of ``kind`` (one of :data:`~.raw.KINDS`); each kind's module is
    imported only when that kind starts (a sampled program does not pay for tracemalloc).

    ``arguments`` are the options' recorder arguments (``SamplerOptions.as_dict()``,
    ``MemoryOptions.engine_arguments()``); frames of ``hidden_files`` at the root of a stack
    are left out (the launcher's ``runpy``). ``sampler_extras`` go to the sampler only
    (``root_cut``, ``on_deadline``: see :class:`~.engine.Engine`), and to the tracer
    (``root_cut``, ``private_files``: see :class:`~.trace_engine.TraceRecorder`).
    """
    if kind == "sampler":
        from types import SimpleNamespace  # loaded with threading: no import

        from .engine import SamplingRecorder

        # The parent made (and checked) the SamplerOptions these fields come from: the child reads
        # them as they are, without building the record class (collect/options.py, _record: ~1 ms
        # of its start-up without .pyc files; docs/performance.md).
        options = SimpleNamespace(**arguments)
        return SamplingRecorder(options, hidden_files=hidden_files, **sampler_extras).start()  # type: ignore[arg-type]
    if kind == "alloc":
        from .alloc import AllocRecorder

        return AllocRecorder(**arguments, hidden_files=hidden_files).start()
    if kind == "trace":
        from .trace_engine import TraceRecorder

        return TraceRecorder(**arguments, hidden_files=hidden_files, **sampler_extras).start()
    if kind == "live":
        from .memory import MemoryRecorder

        return MemoryRecorder(kind, **arguments, hidden_files=hidden_files).start()
    raise ValueError(f"no recorder records {kind!r}")


def _run(target: dict[str, Any]) -> None:
    kind, value, args = target["kind"], target["value"], list(target["args"])
    if kind == "script":
        _run_script(value, args)
    elif kind == "module":
        import runpy

        sys.argv = ["-m", *args]
        sys.path.insert(0, os.getcwd())
        runpy._run_module_as_main(value, alter_argv=True)  # type: ignore[attr-defined]  # what `python -m` calls: private, not in typeshed
    else:
        sys.argv = ["-c", *args]
        sys.path.insert(0, "")
        _run_code(compile(value, "<string>", "exec"), None)


def _run_script(path: str, args: list) -> None:
    sys.argv = [path, *args]
    sys.path.insert(0, os.path.dirname(os.path.realpath(path)))
    with open(path, "rb") as file:
        source = file.read()
    path = os.path.abspath(path)  # python gives __main__ an absolute __file__ (3.9+)
    _run_code(compile(source, path, "exec", dont_inherit=True), path)


def _run_code(code, path: str | None) -> None:
    main_module = sys.modules["__main__"]
    namespace = main_module.__dict__
    for name in [n for n in namespace if n not in ("__builtins__", "__name__")]:
        del namespace[name]
    namespace.update(__name__="__main__", __doc__=None, __package__=None, __spec__=None, __annotations__={})
    if path is not None:
        loader = sys.modules["_frozen_importlib_external"].SourceFileLoader("__main__", path)
        namespace.update(__file__=path, __cached__=None, __loader__=loader)
    else:
        namespace["__loader__"] = sys.modules["_frozen_importlib"].BuiltinImporter
    exec(code, namespace)


def _without_our_frames(tb):
    """The traceback from the target's first frame on, as python would print it."""
    runpy = sys.modules.get("runpy")
    ours = (__file__, getattr(runpy, "__file__", None))
    while tb is not None and tb.tb_next is not None:
        frame = tb.tb_frame
        is_launcher = frame.f_code.co_filename == "<string>" and frame.f_back is None  # our -c line
        if not (is_launcher or frame.f_code.co_filename in ours):
            break
        tb = tb.tb_next
    return tb


def _on_deadline() -> None:
    """--duration has passed: save the profile now and stop the program as Ctrl-C would."""
    import signal

    _state["deadline"] = True  # before saving: the profile says the run was stopped on purpose
    _save()
    os.kill(os.getpid(), signal.SIGINT)


#: The kind of file (``<pid>.<kind>``) the profile is saved as before ``os.exec*``.
BEFORE_EXEC = "before-exec"


def _save(kind: str = "raw") -> None:
    """Stop recording and save what was recorded for the launcher (once), as ``<pid>.<kind>``."""
    if _state["saved"]:
        return
    _state["saved"] = _state["saving"] = True
    import _signal

    try:  # a second Ctrl-C (the terminal's and the launcher's) must not cut the save short
        previous = _signal.signal(_signal.SIGINT, _signal.SIG_IGN)
    except ValueError:  # not the main thread
        previous = None
    try:
        _write_profile(_state["recorder"], _state["config"]["out_dir"], kind)
    finally:
        _state["saving"] = False
        if previous is not None:
            _signal.signal(_signal.SIGINT, previous)
        if "pending_signal" in _state:  # a SIGTERM came while saving: now die of it
            _die_of(_state.pop("pending_signal"))


def _write_profile(recorder: Recorder, out_dir: str, kind: str = "raw") -> None:
    """Save the recording as ``<pid>.<kind>`` in ``out_dir``. A write that fails (a full
    $TMPDIR) leaves a ``<pid>.error`` note if it can, never a traceback in the program's
    output: the launcher says what happened (it also looks at the disk when no note came)."""
    raw = recorder.stop()
    from .raw import dumps

    raw.pid, raw.argv, raw.process_name, raw.deadline = os.getpid(), tuple(sys.argv), _process_name(), _state["deadline"]
    path = os.path.join(out_dir, f"{os.getpid()}.{kind}")
    if not os.path.isdir(out_dir):
        return  # a subprocess that outlived the run: the launcher has reported it as missing
    try:
        with open(path + ".tmp", "wb") as file:
            file.write(dumps(raw))
        os.replace(path + ".tmp", path)
    except OSError as exc:
        try:
            os.unlink(path + ".tmp")
        except OSError:
            pass
        _write_note("error", f"cannot save the profile in {os.path.dirname(out_dir)}: {exc.strerror or exc}")


def _process_name() -> str | None:
    """multiprocessing's name of this process (``ForkPoolWorker-2``), if it is one of its children."""
    multiprocessing = sys.modules.get("multiprocessing")
    if multiprocessing is None:
        return None
    name = multiprocessing.current_process().name
    return None if name == "MainProcess" else name
