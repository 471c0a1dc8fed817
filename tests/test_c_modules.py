"""The C extensions declare what they share: the stateless ones load in a subinterpreter with
its own GIL (multi-phase init, no state of their own) and need no GIL on free-threaded builds;
the process-wide ones (the tracer, the sampler's waiter, the allocation sampler) say they need
the GIL. Built here with CPython 3.13 from pyenv (the first with both an isolated subinterpreter
API in ``_interpreters`` and ``Py_mod_gil``), whatever Python runs the tests."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src" / "flamespace"
PYTHON_313 = Path.home() / ".pyenv" / "versions" / "3.13.0" / "bin" / "python3.13"
#: The modules with no state of their own: they must load in an isolated subinterpreter.
STATELESS = {
    "_folded": SRC / "formats" / "_folded.c",
    "_maxt": SRC / "stats" / "_maxt.c",
    "_remote": SRC / "collect" / "remote" / "_remote.c",
    "_unwind": SRC / "collect" / "remote" / "_unwind.c",
}
#: The modules with process-wide state: they must keep the GIL on a free-threaded build.
PROCESS_WIDE = (SRC / "collect" / "_tracer.c", SRC / "collect" / "_waiter.c", SRC / "collect" / "_alloc.c")

LOAD = """
import _interpreters, sys
for name in sys.argv[2:]:
    interp = _interpreters.create()  # 'isolated': its own GIL, as PEP 684 allows
    error = _interpreters.exec(interp, f"import sys; sys.path.insert(0, {sys.argv[1]!r}); import {name}")
    print(name, "ok" if error is None else error.msg)
"""


@pytest.fixture(scope="module")
def python_313() -> Path:
    if not PYTHON_313.exists():
        pytest.skip(f"needs CPython 3.13.0 from pyenv at {PYTHON_313}")
    return PYTHON_313


def test_stateless_modules_load_in_a_subinterpreter_with_its_own_gil(python_313: Path, tmp_path: Path) -> None:
    """(Failed before: single-phase init, 'module _folded does not support loading in subinterpreters'.)"""
    config = "import sysconfig; print(sysconfig.get_paths()['include']); print(sysconfig.get_config_var('EXT_SUFFIX'))"
    include, suffix = subprocess.run([str(python_313), "-c", config], capture_output=True, text=True, check=True).stdout.split()
    for name, source in STATELESS.items():
        subprocess.run(
            [
                "gcc",
                "-shared",
                "-fPIC",
                "-O1",
                "-Wall",
                "-Werror",
                f"-I{include}",
                str(source),
                "-o",
                str(tmp_path / f"{name}{suffix}"),
            ],
            check=True,
            capture_output=True,
        )
    loaded = subprocess.run([str(python_313), "-c", LOAD, str(tmp_path), *STATELESS], capture_output=True, text=True, check=True)
    assert loaded.stdout.split("\n")[:-1] == [f"{name} ok" for name in STATELESS]


def test_every_module_says_whether_it_needs_the_gil() -> None:
    """A free-threaded build reads Py_mod_gil (multi-phase) or PyUnstable_Module_SetGIL (single-phase):
    without either, it assumes the GIL silently; each module says which it is."""
    for source in STATELESS.values():
        assert "{Py_mod_gil, Py_MOD_GIL_NOT_USED}" in source.read_text()
    for source in PROCESS_WIDE:
        assert "PyUnstable_Module_SetGIL(module, Py_MOD_GIL_USED)" in source.read_text()
