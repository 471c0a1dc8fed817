"""Every option of a rendered flame graph, with flamegraph.pl's defaults, checked once.

The CLI (``flamespace svg``) builds its options from this class, so defaults and the
meaning of each field are written down here only.
"""

from __future__ import annotations

import re
from .._record import factory, fields, record
from ..errors import ArgumentError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Mapping, Optional, Tuple, Union

#: Palettes by name, as flamegraph.pl's --colors (plus "python": Python code vs native code).
PALETTES = (
    "hot", "mem", "io", "wakeup", "chain", "java", "js", "perl", "python",
    "red", "green", "blue", "aqua", "yellow", "purple", "orange",
)
#: Background gradients by name (first and last colour); "#rrggbb" gives a flat background.
BACKGROUNDS = {
    "yellow": ("#eeeeee", "#eeeeb0"),
    "blue": ("#eeeeee", "#e0e0ff"),
    "green": ("#eef2ee", "#e0ffe0"),
    "grey": ("#f8f8f8", "#e8e8e8"),
}
DELTA_MODES = ("inclusive", "self")
TRUNCATE_SIDES = ("right", "left")
_HEX_COLOUR = re.compile(r"#[0-9A-Fa-f]{6}$")
_MINWIDTH = re.compile(r"([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(%?)$")


@record
class SvgOptions:
    """How to draw a flame graph. Every field has flamegraph.pl's meaning and default.

    Geometry: ``width`` (image pixels; ``fluid`` stretches to the window, laid out at
    ``width``), ``height`` (of one frame), ``minwidth`` (frames narrower than this are not
    drawn: pixels as a number, or a percentage of the total as a string ending in ``%``).
    Text: ``title`` (default "Flame Graph", "Icicle Graph" or "Flame Chart"), ``subtitle``,
    ``fonttype``, ``fontsize``, ``fontwidth`` (average glyph width / font size, used to fit
    labels), ``countname``, ``nametype``, ``notes`` (an XML comment), ``truncate`` ("right":
    ``name..`` as flamegraph.pl; "left": ``..name`` as inferno's default).
    Colour: ``colors`` (a palette of :data:`PALETTES`), ``bgcolors`` (a gradient of
    :data:`BACKGROUNDS` or ``#rrggbb``; default by palette), ``hash`` (flamegraph.pl's
    name hash: similar names get similar colours), ``random`` (random colours; ``seed``
    makes them repeatable), ``palette_file`` (flamegraph.pl's ``--cp``: a ``name->rgb()``
    file read before and written after, so colours stay the same across graphs),
    ``search_color``, ``stroke_color`` (frame outlines; "none" for none).
    Shape: ``reverse`` (stacks leaf first: merge from the hot end), ``inverted`` (icicle:
    the root at the top), ``flamechart`` (keep input order, merge only neighbours),
    ``sort_by_value`` (siblings widest first), ``base`` (re-root at these frames, as
    ``flamespace filter --base``).
    Values: ``factor`` (multiply counts shown in tooltips), ``total`` (the width of the
    root, if larger than the sum: draws the graph as part of a larger whole).
    Differential input: ``negate`` (swap red and blue), ``delta`` ("inclusive": colour every
    frame by the change of its inclusive value; "self": flamegraph.pl's colour of leaf
    changes only). ``nameattr``: extra SVG attributes per frame name (``href``, ``title``,
    ``class``, ...), as read from flamegraph.pl's ``--nameattr`` file by :func:`read_nameattr`.
    ``encoding``: the character encoding of the file (declared and used). ``empty_text``: what
    the image says when there is nothing to draw (e.g. "No significant change").
    """

    title: Optional[str] = None
    subtitle: str = ""
    width: int = 1200
    height: int = 16
    minwidth: Union[float, str] = 0.1
    fonttype: str = "Verdana"
    fontsize: float = 12
    fontwidth: float = 0.59
    countname: str = "samples"
    nametype: str = "Function:"
    colors: str = "hot"
    bgcolors: Optional[str] = None
    hash: bool = False
    random: bool = False
    seed: Optional[int] = None
    palette_file: Optional[str] = None
    reverse: bool = False
    inverted: bool = False
    flamechart: bool = False
    negate: bool = False
    factor: float = 1
    total: Optional[float] = None
    notes: str = ""
    nameattr: Mapping[str, Mapping[str, str]] = factory(dict)
    encoding: Optional[str] = None
    fluid: bool = False
    search_color: str = "rgb(230,0,230)"
    stroke_color: str = "none"
    truncate: str = "right"
    base: Tuple[str, ...] = ()
    sort_by_value: bool = False
    delta: str = "inclusive"
    empty_text: str = "ERROR: No valid input provided to flamespace."

    def __post_init__(self) -> None:
        if isinstance(self.base, str):
            object.__setattr__(self, "base", (self.base,))
        for name in ("width", "height", "fontsize", "fontwidth", "factor"):
            if not getattr(self, name) > 0:
                raise ArgumentError(f"{name} must be > 0, not {getattr(self, name)!r}")
        self.minwidth_spec()  # validates
        _choice("colors", self.colors, PALETTES)
        _choice("delta", self.delta, DELTA_MODES)
        _choice("truncate", self.truncate, TRUNCATE_SIDES)
        if self.bgcolors is not None and self.bgcolors not in BACKGROUNDS and not _HEX_COLOUR.match(self.bgcolors):
            raise ArgumentError(
                f"bgcolors must be one of {', '.join(BACKGROUNDS)} or a colour '#rrggbb', not {self.bgcolors!r}"
            )
        if self.total is not None and not self.total > 0:
            raise ArgumentError(f"total must be > 0, not {self.total!r}")
        if self.hash and self.random:
            raise ArgumentError("choose one of hash and random colours, not both")
        if self.encoding is not None:
            import codecs

            try:
                codecs.lookup(self.encoding)
            except LookupError:
                raise ArgumentError(f"unknown encoding {self.encoding!r}") from None

    def minwidth_spec(self) -> Tuple[float, bool]:
        """(amount, is_percent) of ``minwidth``."""
        if isinstance(self.minwidth, (int, float)) and not isinstance(self.minwidth, bool):
            if self.minwidth < 0:
                raise ArgumentError(f"minwidth must be >= 0, not {self.minwidth!r}")
            return float(self.minwidth), False
        match = _MINWIDTH.match(str(self.minwidth).strip())
        if not match:
            raise ArgumentError(
                f"minwidth must be a number of pixels (0.1) or a percentage of the total (0.5%), not {self.minwidth!r}"
            )
        return float(match.group(1)), bool(match.group(2))

    def resolved_title(self) -> str:
        if self.title:
            return self.title
        if self.flamechart:
            return "Flame Chart"
        return "Icicle Graph" if self.inverted else "Flame Graph"

    def background(self) -> Tuple[str, str]:
        """The two colours of the background gradient, defaulting by palette as flamegraph.pl."""
        name = self.bgcolors
        if name is None:
            if self.colors == "mem":
                name = "green"
            elif self.colors in ("io", "wakeup", "chain"):
                name = "blue"
            elif self.colors in ("red", "green", "blue", "aqua", "yellow", "purple", "orange"):
                name = "grey"
            else:
                name = "yellow"
        return BACKGROUNDS.get(name, (name, name))

    @classmethod
    def names(cls) -> Tuple[str, ...]:
        return fields(cls)


def _choice(name: str, value: str, allowed: Tuple[str, ...]) -> None:
    if value not in allowed:
        raise ArgumentError(f"{name} must be one of {', '.join(allowed)}, not {value!r}")


def read_nameattr(path: str) -> "dict[str, dict[str, str]]":
    """flamegraph.pl's --nameattr file: ``function<TAB>name=value<TAB>name=value...`` per line."""
    from ..errors import InputError

    table: "dict[str, dict[str, str]]" = {}
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as stream:
            for lineno, line in enumerate(stream, 1):
                line = line.rstrip("\r\n")
                if not line.strip():
                    continue
                function, tab, rest = line.partition("\t")
                pairs = [p for p in rest.split("\t") if p]
                if not tab or not pairs or any("=" not in p for p in pairs):
                    raise InputError("expected 'function<TAB>attribute=value[<TAB>attribute=value...]'", path, lineno)
                attributes = dict(p.split("=", 1) for p in pairs)
                bad = [a for a in attributes if not re.match(r"[A-Za-z_][\w.:-]*$", a)]
                if bad:
                    raise InputError(f"{bad[0]!r} is not an attribute name", path, lineno)
                table[function] = attributes
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", path) from None
    return table
