# Types of the C extension _folded.c (the folded reader's loop over lines).

from typing import Dict, Tuple, Union

def sum_lines(
    data: bytes, start: int, counts: Dict[str, Union[int, float]], lineno: int, final: bool, /
) -> Tuple[int, int, int]:
    """Add the plain 'stack count' lines of ``data`` from ``start`` to ``counts``: (stop, lineno, status).

    status 1: stopped at a line for the Python reader; 0: at the end of the data (or of its last whole line).
    """
