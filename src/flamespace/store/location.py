"""Where the store is: the one place that decides (``--store PATH``, else ``FLAMESPACE_STORE``, else the default)."""

from __future__ import annotations

import os


#: The store of a project, relative to where flamespace runs (as .git is found by hand: no search upwards).
DEFAULT = os.path.join(".flamespace", "store")
#: The environment variable that names the store when no --store is given.
ENV = "FLAMESPACE_STORE"


def resolve(path: str | None = None) -> str:
    """The store's directory: ``path`` if given, else $FLAMESPACE_STORE, else :data:`DEFAULT`."""
    return os.fspath(path) if path else os.environ.get(ENV) or DEFAULT
