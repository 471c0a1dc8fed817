"""Profiles a Python process started by a program under ``flamespace record --subprocesses``.

The profiled program's environment puts this directory first on ``PYTHONPATH``, so every
Python process it starts imports this file as ``sitecustomize`` at start-up. It starts the
recorder described by ``FLAMESPACE_SUBPROCESS`` and then steps aside: it takes its own
directory off ``sys.path`` and imports the ``sitecustomize`` that would have run without
it, if there is one. It never stops a program from starting: a failure is written next to
the profiles for ``flamespace record`` to report.
"""


def _profile_this_process() -> None:
    import os
    import sys

    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [entry for entry in sys.path if os.path.abspath(entry or ".") != here]
    text = os.environ.get("FLAMESPACE_SUBPROCESS")  # flamespace.collect._bootstrap.SUBPROCESS_ENV
    if not text:
        return
    config = None
    try:
        config = eval(text, {"__builtins__": {}})  # a literal written by flamespace itself
        sys.path.insert(0, config["package_parent"])
        try:
            from flamespace.collect import _bootstrap
        finally:
            del sys.path[0]
        _bootstrap.start_in_subprocess(config)
    except Exception as exc:
        out_dir = config.get("out_dir") if isinstance(config, dict) else None
        if out_dir:
            try:
                with open(os.path.join(out_dir, f"{os.getpid()}.error"), "w", encoding="utf-8") as file:
                    file.write(f"{type(exc).__name__}: {exc}")
            except OSError:
                pass


def _run_the_real_sitecustomize() -> None:
    import sys

    this_module = sys.modules.pop("sitecustomize")
    try:
        import sitecustomize  # noqa: F401  (the next one on sys.path)
    except ImportError as exc:
        if exc.name != "sitecustomize":
            raise
    finally:
        # importlib re-reads sys.modules["sitecustomize"] when this import ends
        sys.modules.setdefault("sitecustomize", this_module)


_profile_this_process()
_run_the_real_sitecustomize()
