"""Which format an output gets: ``--format`` if given, else what the name of ``-o`` says.

One rule for every command that writes (record, trace, convert, merge, filter, scale, sub):
py-spy users type ``-o profile.svg`` and expect a picture, not folded text in a file their
browser cannot open. An ending that names a format the command cannot write (``.pstats``,
``.pdf``) is refused with the list of what it can write; a name with no ending a format
claims gets the command's default (``-o run.out``, ``-o /dev/null``).

The endings are the format registry's (``formats.recognition.by_extension``) plus the pictures
flamespace draws (:data:`PICTURES`); a command's own table (``choices``) is asked first, so
the common cases never import every format module to find out.
"""

from __future__ import annotations

import os

from ..errors import ArgumentError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable
    from collections.abc import Mapping, Sequence

#: The pictures flamespace draws (svg and html commands, record's --format svg/html), by ending.
PICTURES = {"svg": (".svg",), "html": (".html", ".htm")}
#: Endings of files flamespace never writes, which people still type after -o: refused by name.
FOREIGN = {
    ".pdf": "PDF",
    ".png": "PNG",
    ".jpg": "JPEG",
    ".jpeg": "JPEG",
    ".gif": "GIF",
    ".webp": "WebP",
    ".ps": "PostScript",
    ".eps": "PostScript",
    ".txt.gz": "gzipped text",
}


def choose(
    output: str | None,
    given: str | None,
    command: str,
    writable: Sequence[str] | Callable[[], Sequence[str]],
    endings: Mapping[str, Sequence[str]],
    default: str = "folded",
    option: str = "--format",
) -> str:
    """The format to write ``output`` in: ``given`` (the command's ``option``) if set, else by the name.

    ``writable`` names every format the command writes (or is a function that does: asked only
    for names that ``endings`` does not settle); ``endings`` maps some of them to their endings
    (the longest match wins), the rest are found by the registry's extensions. ArgumentError
    when the ending names a format the command cannot write."""
    if given:
        return given
    if output is None or output == "-":
        return default
    name = os.path.basename(output).lower()
    own = _longest(name, endings)
    if own is not None:
        return own
    if "." not in name.lstrip("."):
        return default
    what = _foreign(name) or _longest(name, PICTURES) or _registry_format(output)
    if what is None:
        return default
    if callable(writable):
        writable = writable()
    if what in writable:
        return what
    listed = ", ".join(f"{fmt} ({first_ending(fmt, endings)})" for fmt in writable)
    raise ArgumentError(
        f"-o {output}: {command} cannot write {_describe(what)}; it writes {listed} (give another name, or {option} FORMAT)"
    )


def _longest(name: str, table: Mapping[str, Sequence[str]]) -> str | None:
    """The format whose ending ``name`` has, the longest ending winning (``.speedscope.json`` over ``.json``)."""
    best, length = None, 0
    for format_name, endings in table.items():
        for ending in endings:
            if name.endswith(ending) and len(ending) > length:
                best, length = format_name, len(ending)
    return best


def _foreign(name: str) -> str | None:
    return next((ending for ending in FOREIGN if name.endswith(ending)), None)


def _registry_format(output: str) -> str | None:
    from ..formats import recognition  # imports every format module: only for endings the command's table lacks

    fmt = recognition.by_extension(output)
    return None if fmt is None else fmt.name


def first_ending(fmt: str, endings: Mapping[str, Sequence[str]]) -> str:
    """The ending a file of ``fmt`` is given (a default output's name, the list in an error)."""
    if endings.get(fmt):
        return endings[fmt][0]
    if fmt in PICTURES:
        return PICTURES[fmt][0]
    from ..formats import registry

    return next(iter(registry.by_name(fmt).extensions), "no ending of its own")


def _describe(what: str) -> str:
    if what in FOREIGN:
        return f"{FOREIGN[what]} files ({what})"
    if what in PICTURES:
        return f"{what.upper()} pictures (`flamespace {what} PROFILE -o FILE` draws them)"
    return f"the {what} format"
