"""flamespace's build backend: setuptools', behind a check of the Python it builds for.

pip installs ``[build-system] requires`` before it reads ``requires-python``: with only
``setuptools>=77`` (the first with PEP 639's ``license = "MIT"``, and itself Python >= 3.9),
``pip install .`` on Python 3.8 stopped with "Packages require a different Python ...
required by setuptools" and never said that flamespace needs 3.9. So the requirement of
setuptools carries a marker (nothing to install on an older Python) and this module, which
pip runs first, says what is wrong: the Python requirement, read from ``requires-python``
in pyproject.toml (its one place). Written for any Python 3 (no f-strings): it must run where
flamespace cannot.
"""

import os
import re
import sys

#: ``requires-python = ">=3.9"`` in pyproject.toml: the minimum version, as numbers.
_REQUIRES_PYTHON = re.compile(r'^requires-python\s*=\s*">=\s*(\d+)\.(\d+)"', re.MULTILINE)


def minimum_python(pyproject):
    """The (major, minor) that ``requires-python = ">=X.Y"`` in the text ``pyproject`` names."""
    found = _REQUIRES_PYTHON.search(pyproject)
    if found is None:
        raise ValueError('pyproject.toml has no requires-python = ">=X.Y"')
    return int(found.group(1)), int(found.group(2))


def too_old(version, pyproject):
    """The message for a Python ``version`` (a version_info) older than the project allows, else None."""
    major, minor = minimum_python(pyproject)
    if tuple(version[:2]) >= (major, minor):
        return None
    return ("flamespace needs Python >= {0}.{1}; this is Python {2}. Install it with a newer Python "
            "(e.g. python{0}.{1} -m pip install flamespace).".format(major, minor, ".".join(map(str, version[:3]))))


def _check():
    with open(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "pyproject.toml"),
              encoding="utf-8") as file:
        message = too_old(sys.version_info, file.read())
    if message is not None:
        raise SystemExit(message)


_check()

from setuptools.build_meta import *  # every hook, as setuptools defines them
from setuptools.build_meta import __all__  # noqa: F401
