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

And how they time a whole process from the outside (:func:`measure`: wall, CPU and peak RSS
from wait4), round after round (:func:`measure_rounds`), and the medians (:func:`medians`).
"""

from __future__ import annotations

import importlib.util
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Hashable, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple, TypeVar

K = TypeVar("K", bound=Hashable)

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


def record_args(rate: float, out: str | Path, program: Sequence[str], sampler: str | None = None) -> list[str]:
    """The arguments of ``flamespace record`` (after the command that runs flamespace) of the
    load benchmarks: quiet, at ``rate`` Hz, into ``out``, of ``program`` (its argv), with
    ``--sampler`` when one is given (None: record's own choice)."""
    return ["record", "-q", *(["--sampler", sampler] if sampler else []), "--rate", f"{rate:g}", "-o", str(out), "--", *program]


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


class Measured(NamedTuple):
    """One whole process, seen from the outside."""

    wall: float  #: seconds from start to exit
    cpu: float  #: user + system seconds of it and of the children it waited for (wait4)
    peak_mb: float  #: its largest resident set, MB


def measure(
    argv: Sequence[str], env: Mapping[str, str] | None = None, accept: tuple[int, ...] = (0,), what: str = ""
) -> Measured:
    """Run ``argv`` to its end (stdout discarded) and measure it. An exit code not in ``accept``
    ends the benchmark with one line: ``what`` (default: the command line), the code, its stderr.
    The stderr goes to a file, not a pipe: a child writing more than a pipe holds would otherwise
    wait for a reader while this process waits for it to exit."""
    with tempfile.TemporaryFile() as stderr:
        started = time.perf_counter()
        child = subprocess.Popen(list(argv), env=None if env is None else dict(env), stdout=subprocess.DEVNULL, stderr=stderr)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - started
        child.returncode = code = os.waitstatus_to_exitcode(status)
        if code not in accept:
            stderr.seek(0)
            said = stderr.read().decode(errors="replace").strip()
            raise SystemExit(f"{what or shlex.join(argv)} failed ({code}): {said}")
    return Measured(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def pythonpath_first(src: str | None) -> dict[str, str] | None:
    """This process's environment with the source tree ``src`` first on PYTHONPATH (None for
    ``src`` None: the child inherits it unchanged)."""
    if src is None:
        return None
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [src, os.environ.get("PYTHONPATH")]))}


def measure_rounds(runs: Mapping[K, tuple[Sequence[str], Mapping[str, str] | None]], repeat: int) -> dict[K, list[Measured]]:
    """Each of ``runs`` (key: (argv, env)) once a round, in turn, so that drift in the machine's
    load hits them alike: ``repeat`` rounds after one to warm up (page cache, .pyc files), whose
    figures are dropped."""
    found: dict[K, list[Measured]] = {key: [] for key in runs}
    for round_ in range(repeat + 1):
        for key, (argv, env) in runs.items():
            measured = measure(argv, env)
            if round_:
                found[key].append(measured)
    return found


def medians(rows: Sequence[Measured]) -> Measured:
    """The median of each figure over ``rows``."""
    return Measured(*(statistics.median(row[k] for row in rows) for k in range(len(Measured._fields))))
