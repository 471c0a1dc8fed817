"""How a gate's side runs: installed into a virtualenv of its own, or from its tree as it is."""

from __future__ import annotations

import os
import sys

from .workspace import GateError, tail

TYPE_CHECKING = False  # typing costs start-up time; annotations are strings (PEP 563)
if TYPE_CHECKING:
    from typing import Callable

    from .workspace import Side, Workspace

#: Files whose presence at a tree's root makes it installable with pip.
PROJECT_FILES = ("pyproject.toml", "setup.py")
#: Lines of pip's output (or git's) quoted when it fails.
TAIL_LINES = 15
#: The first pip that can install into another interpreter (``pip --python``), so that the
#: virtualenvs are made without a pip of their own (seconds faster each).
PIP_PYTHON_OPTION = (22, 3)


def installable(sides: list[Side]) -> bool:
    """Install when every tree is a project pip can install; a tree that is and one that is not cannot compare."""
    able = [any(os.path.exists(os.path.join(s.tree, f)) for f in PROJECT_FILES) for s in sides]
    if all(able):
        return True
    if any(able):
        which = next(s for s, ok in zip(sides, able) if ok)
        raise GateError(
            f"only the {which.name} ({which.description}) has a pyproject.toml or setup.py, so only it could "
            "be installed; use --no-install to run both trees as they are"
        )
    return False


def install(side: Side, workspace: Workspace, out_dir: str, say: Callable[[str], None]) -> None:
    """A virtualenv of the side's own with its tree pip-installed; pip's output goes to OUT_DIR/install-SIDE.log."""
    venv = workspace.path(f"{side.name}-env")
    outside_pip = _pip_can_target()
    say(f"{side.name}: installing into a virtualenv (pip install {side.tree})")
    create = [sys.executable, "-m", "venv", *(["--without-pip"] if outside_pip else []), venv]
    _step(create, f"creating the {side.name}'s virtualenv failed", None)
    python = os.path.join(venv, "Scripts" if os.name == "nt" else "bin", "python")
    pip = [sys.executable, "-m", "pip", "--python", python] if outside_pip else [python, "-m", "pip"]
    os.makedirs(out_dir, exist_ok=True)
    log = os.path.join(out_dir, f"install-{side.name}.log")
    _step(
        [*pip, "install", "--disable-pip-version-check", side.tree],
        f"installing the {side.name} ({side.description}) failed",
        log,
    )
    side.python = python
    bin_dir = os.path.dirname(python)
    side.env = {"VIRTUAL_ENV": venv, "PATH": bin_dir + os.pathsep + os.environ.get("PATH", "")}


def run_as_is(side: Side) -> None:
    """No install: the tree (and its src/, for the src layout) first on the import path."""
    paths = [side.tree] + [os.path.join(side.tree, "src")] * os.path.isdir(os.path.join(side.tree, "src"))
    existing = os.environ.get("PYTHONPATH")
    side.env = {"PYTHONPATH": os.pathsep.join(paths + ([existing] if existing else []))}


def _pip_can_target() -> bool:
    try:
        from importlib.metadata import PackageNotFoundError, version
    except ImportError:  # pragma: no cover - Python < 3.8
        return False
    try:
        parts = version("pip").split(".")[:2]
        return tuple(int(p) for p in parts) >= PIP_PYTHON_OPTION
    except (PackageNotFoundError, ValueError):
        return False


def _step(argv: list[str], what: str, log: str | None) -> None:
    """Run a setup command; a GateError with the end of its output when it fails."""
    import subprocess

    done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if log is not None:
        with open(log, "w", encoding="utf-8") as file:
            file.write(done.stdout)
    if done.returncode != 0:
        where = f" (all of it in {log})" if log else ""
        raise GateError(f"{what}: exit code {done.returncode}; the end of its output{where}:\n{tail(done.stdout, TAIL_LINES)}")
