# Types of the C extension _folded.c (the folded reader's loop over lines).

from typing import Dict, Tuple, Union

def sum_lines(
    data: bytes, start: int, counts: Dict[str, Union[int, float]], lineno: int, final: bool, ints_only: bool = False, /
) -> Tuple[int, int, int, int, int]:
    """Add the plain 'stack count' lines of ``data`` from ``start`` to ``counts``: (stop, lineno, status, added, plain).

    status 1: stopped at a line for the Python reader; 0: at the end of the data (or of its last whole line).
    ``plain``: lines added whose stack cannot end in a count (the input is not differential).
    ``ints_only``: leave decimal counts to the Python reader too.
    """
