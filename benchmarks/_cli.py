"""How the benchmarks run flamespace's command line (and find the tools beside it), in one place.

Imported as ``from _cli import ...`` once a benchmark has put benchmarks/ first on sys.path, as
they do for their other shared helpers. Three ways to run the CLI, each for a reason:

* :func:`executable`: the console script installed beside the running interpreter, the
  version this environment holds (not whichever ``flamespace`` PATH finds first);
* :func:`python_command` (``python -c LAUNCH``): the same entry point under this interpreter
  from whichever ``flamespace`` package comes first on sys.path, so ``PYTHONPATH=OLD/src``
  runs another checkout in the same rounds;
* :func:`shell_command`: either of them as one line for ``sh -c``.

:func:`compile_package` byte-compiles a package before timing, as ``pip install`` does.
"""

from __future__ import annotations

import importlib.util
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

#: Where the running environment's scripts are: flamespace, and the peers pip installed beside it.
BIN = Path(sys.executable).parent


def executable() -> str:
    """The ``flamespace`` console script beside the running interpreter; exits with a one-line
    message when it is missing (the benchmark was run by a Python without flamespace installed)."""
    path = BIN / "flamespace"
    if not path.is_file():
        raise SystemExit(
            f"benchmarks: no flamespace executable at {path}: run the benchmark with the Python flamespace is installed in "
            "(e.g. .venv/bin/python after `make .venv/.installed`)"
        )
    return str(path)


def launch(entry: str = "script") -> str:
    """Python source for ``python -c`` that runs the command line as the console script does
    (argv[0] ``flamespace``, the exit code passed on). ``entry``: ``script``, the console
    script's own function (it freezes the objects out of the collector before exit), or
    ``main`` (without that step; older checkouts only have ``main``)."""
    if entry not in ("script", "main"):
        raise ValueError(f"launch: entry must be 'script' or 'main', not {entry!r}")
    return f"import sys; from flamespace.cli import {entry}; sys.argv[0] = 'flamespace'; sys.exit({entry}())"


def python_command(entry: str = "script") -> list[str]:
    """``python -c LAUNCH``: the arguments of flamespace go after it."""
    return [sys.executable, "-c", launch(entry)]


def shell_command(src: str | None = None) -> str:
    """The start of a shell command line running flamespace: this environment's executable, or,
    with ``src`` (another checkout's ``src`` directory), ``python -c`` of its ``main`` (the one
    entry every checkout has) with ``src`` first on PYTHONPATH."""
    if src is None:
        return shlex.quote(executable())
    return f"PYTHONPATH={shlex.quote(src)} {shlex.join(python_command('main'))}"


def compile_package(src: str | Path | None = None) -> None:
    """Byte-compile the flamespace package (this environment's, or the one in the source tree
    ``src``), as ``pip install`` does, so that no timed run pays for compiling modules
    (PYTHONDONTWRITEBYTECODE would otherwise make every run compile them). In a child process:
    this one stays small, and a parent's peak RSS is carried over exec into its children's."""
    if src is None:
        spec = importlib.util.find_spec("flamespace")
        if spec is None or spec.origin is None:
            raise SystemExit(f"benchmarks: the flamespace package is not importable by {sys.executable}")
        package = Path(spec.origin).parent
    else:
        package = Path(src) / "flamespace"
    if not package.is_dir():
        raise SystemExit(f"benchmarks: no flamespace package at {package} (give the source tree that holds it)")
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(package)], check=True)


def peer(name: str) -> str | None:
    """Another tool's executable (py-spy, memray, pyinstrument, ...): the one installed beside
    the running interpreter, else the first on PATH; None when neither has it."""
    return shutil.which(name, path=str(BIN)) or shutil.which(name)
