"""pip install on a Python older than requires-python says so (build_backend/flamespace_build.py).

pip installs [build-system] requires before it reads requires-python: with an unmarked
``setuptools>=77`` (Python >= 3.9 itself), Python 3.8's pip stopped on setuptools' own need
and never named flamespace's. Checked by hand with pyenv's 3.8.18: ``pip install .`` now ends
with "flamespace needs Python >= 3.9; this is Python 3.8.18".
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
BACKEND = ROOT / "build_backend" / "flamespace_build.py"


def pyproject() -> dict:
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        import tomli as tomllib  # type: ignore[no-redef]
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_build_requirements_install_nothing_below_requires_python() -> None:
    """An unmarked requirement would be installed (and refused) on the old Python before our backend ran."""
    config = pyproject()
    oldest = config["project"]["requires-python"].removeprefix(">=")
    major, minor = (int(part) for part in oldest.split("."))
    older = {"python_version": f"{major}.{minor - 1}", "python_full_version": f"{major}.{minor - 1}.18"}
    for text in config["build-system"]["requires"]:
        requirement = Requirement(text)
        assert requirement.marker is not None and not requirement.marker.evaluate(older), text
        assert requirement.marker.evaluate({"python_version": oldest, "python_full_version": f"{oldest}.0"}), text
    assert config["build-system"]["build-backend"] == BACKEND.stem
    assert config["build-system"]["backend-path"] == [str(BACKEND.parent.relative_to(ROOT))]


def test_the_backend_names_the_python_requirement_on_an_older_python(tmp_path: Path) -> None:
    """The backend as pip runs it (imported first), in a tree whose requires-python this Python is older than."""
    (tmp_path / "build_backend").mkdir()
    shutil.copy(BACKEND, tmp_path / "build_backend")
    too_new = f"{sys.version_info.major}.{sys.version_info.minor + 1}"
    (tmp_path / "pyproject.toml").write_text(f'[project]\nname = "x"\nrequires-python = ">={too_new}"\n')
    done = subprocess.run(
        [sys.executable, "-c", "import flamespace_build"],
        check=False,
        cwd=tmp_path / "build_backend",
        capture_output=True,
        text=True,
        timeout=60,
    )
    this = ".".join(map(str, sys.version_info[:3]))
    assert done.returncode == 1
    assert done.stderr.strip() == (
        f"flamespace needs Python >= {too_new}; this is Python {this}. Install it with a "
        f"newer Python (e.g. python{too_new} -m pip install flamespace)."
    )


def test_the_backend_is_setuptools_on_a_python_the_project_supports() -> None:
    sys.path.insert(0, str(BACKEND.parent))
    try:
        import flamespace_build
        import setuptools.build_meta
    finally:
        sys.path.remove(str(BACKEND.parent))
    assert flamespace_build.too_old(sys.version_info, (ROOT / "pyproject.toml").read_text(encoding="utf-8")) is None
    for hook in setuptools.build_meta.__all__:
        assert getattr(flamespace_build, hook) is getattr(setuptools.build_meta, hook)


def test_the_sdist_carries_the_backend() -> None:
    manifest = (ROOT / "MANIFEST.in").read_text(encoding="utf-8").split()
    assert str(BACKEND.relative_to(ROOT)) in manifest
