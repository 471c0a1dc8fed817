"""Runs inside the profiled interpreter: start recording, run ``site``, run the target, save.

The launcher starts ``python -S -c "...; _bootstrap.main(config)"``. With ``-S`` nothing
has run yet when the sampler starts, so the work of ``site``, ``.pth`` files,
``sitecustomize`` and every import before ``__main__`` is in the profile. Then the
target runs as it would under ``python``: same ``sys.argv``, ``sys.path[0]``, ``__main__``
attributes, exit code and traceback (without our frames). The raw recording is pickled
into ``config["out_dir"]`` from an ``atexit`` handler registered before the target's own,
so it runs last: after non-daemon threads have finished and the target's handlers ran.

Imports are kept to modules a bare interpreter has loaded anyway, so the program's own
imports cost what they would cost without the profiler.
"""

from __future__ import annotations

import os
import sys

from .engine import Engine

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Dict, Optional

_state: Dict[str, Any] = {"saved": False, "deadline": False}


def main(config: Dict[str, Any]) -> None:
    """Entry point of the child interpreter (``config`` comes as a Python literal)."""
    import atexit

    target = config["target"]
    recorder = _start_recorder(config)
    _state["recorder"] = recorder
    _state["config"] = config
    atexit.register(_save)
    if config.get("site", True):
        import site

        site.main()
    try:
        _run(target)
    except SystemExit:
        raise
    except BaseException as exc:  # what python itself does with an uncaught exception
        if isinstance(exc, KeyboardInterrupt) and _state["deadline"]:
            sys.exit(0)  # --duration stopped the program on purpose
        tb = _without_our_frames(exc.__traceback__)
        sys.excepthook(type(exc), exc.with_traceback(tb), tb)  # the default hook prints exc.__traceback__
        sys.exit(130 if isinstance(exc, KeyboardInterrupt) else 1)


def _start_recorder(config: Dict[str, Any]):  # type: ignore[no-untyped-def]
    """The sampler (or memory recorder) of ``config``, started."""
    kind = config.get("recorder", "sampler")
    hidden = set()
    if config["target"]["kind"] == "module":
        import runpy

        hidden.add(runpy.__file__)
    if kind != "sampler":
        from .memory import MemoryRecorder

        return MemoryRecorder(kind, **config["memory"], hidden_files=hidden).start()
    code_objects = {main.__code__, _run.__code__, _run_script.__code__, _run_code.__code__}
    return Engine(
        **config["sampler"],
        root_cut=code_objects,
        hidden_files=hidden,
        on_deadline=_on_deadline,
    ).start()


def _run(target: Dict[str, Any]) -> None:
    kind, value, args = target["kind"], target["value"], list(target["args"])
    if kind == "script":
        _run_script(value, args)
    elif kind == "module":
        import runpy

        sys.argv = ["-m", *args]
        sys.path.insert(0, os.getcwd())
        runpy._run_module_as_main(value, alter_argv=True)  # what `python -m` calls
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


def _run_code(code, path: Optional[str]) -> None:  # type: ignore[no-untyped-def]
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


def _without_our_frames(tb):  # type: ignore[no-untyped-def]
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

    _save()
    _state["deadline"] = True
    os.kill(os.getpid(), signal.SIGINT)


def _save() -> None:
    """Stop recording and pickle what was recorded for the launcher (once)."""
    if _state["saved"]:
        return
    _state["saved"] = True
    recorder, config = _state["recorder"], _state["config"]
    recorder.halt()
    import pickle

    data = recorder.raw() if hasattr(recorder, "raw") else raw_of_engine(recorder)
    data.update(pid=os.getpid(), argv=list(sys.argv), deadline=_state["deadline"])
    path = os.path.join(config["out_dir"], f"{os.getpid()}.pickle")
    with open(path + ".tmp", "wb") as file:
        pickle.dump(data, file, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(path + ".tmp", path)


def raw_of_engine(engine: Engine) -> Dict[str, Any]:
    """An engine's recording as plain data (what the launcher turns back into a Recording)."""
    chart = engine.sink.chart
    return {
        "kind": "sampler",
        "totals": engine.sink.totals,
        "chart": None if chart is None else (chart.stacks, chart.threads, *chart.columns()),
        "quality": engine.quality.as_dict(),
        "elapsed_ns": engine.elapsed_ns,
        "start_ns": engine.start_ns,
    }
