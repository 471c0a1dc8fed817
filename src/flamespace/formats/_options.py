"""The reader options of a format that has none of its own: one record for them all.

Each such format re-exports it as its ``ReadOptions`` (``from ._options import ReadOptions as
ReadOptions``); a format that gains an option declares its own record instead, with the
option's ``name``: paragraph in its docstring (what ``flamespace convert --help`` shows).
"""

from __future__ import annotations

from .._record import Record, record


@record
class ReadOptions(Record):
    """How to read a format whose only reader option is the one every reader takes.

    ``skip_invalid``: skip a line or record that cannot be read, with a warning, instead of failing on it.
    """

    skip_invalid: bool = False


__all__ = ["ReadOptions"]
