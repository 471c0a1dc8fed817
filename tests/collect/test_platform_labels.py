"""The python and host labels of recorded profiles are what ``platform`` says (read without importing it)."""

from __future__ import annotations

import platform

from flamespace._version import platform_labels


def test_platform_labels_are_platforms():
    assert platform_labels() == {"python": platform.python_version(), "host": platform.node()}
