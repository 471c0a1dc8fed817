"""Lazy package attributes (PEP 562), so importing a package costs only what is used.

``flamespace record`` starts its sampler inside the profiled interpreter before that
program's own imports run: every module flamespace imported eagerly there would be
missing from the start-up profile, and the CLI starts faster too.
"""

from __future__ import annotations

import sys


def lazy_exports(package: str, exports: dict[str, str]):
    """``__getattr__`` and ``__dir__`` for ``package`` that import ``exports[name]`` on first use."""

    def __getattr__(name: str) -> object:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        qualified = f"{package}.{module}"
        __import__(qualified)  # not importlib: it would pull in more modules
        # an export named like its module is the module itself (a subpackage such as render),
        # unless the module defines that name (render's svg, text and layout: functions)
        loaded = sys.modules[qualified]
        value = loaded if module == name and not hasattr(loaded, name) else getattr(loaded, name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(exports))

    return __getattr__, __dir__
