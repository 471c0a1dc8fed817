"""Every option of a rendered flame graph, with flamegraph.pl's defaults, checked once.

:class:`LayoutOptions` says which frames a profile lays out into (value units: what every
renderer shares); :class:`SvgOptions` adds how the SVG draws them (pixels, fonts, colours)
and takes its layout fields' defaults and checks from :class:`LayoutOptions`. The CLI
(``flamespace svg``) builds its options from these classes, so defaults and the meaning of
each field are written down here only.
"""

from __future__ import annotations

from .._record import Record, factory, fields, record
from ..errors import ArgumentError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any
    from collections.abc import Mapping

#: Palettes by name, as flamegraph.pl's --colors (plus "python": Python code vs native code).
PALETTES = (
    "hot",
    "mem",
    "io",
    "wakeup",
    "chain",
    "java",
    "js",
    "perl",
    "python",
    "red",
    "green",
    "blue",
    "aqua",
    "yellow",
    "purple",
    "orange",
)
#: Background gradients by name (first and last colour); "#rrggbb" gives a flat background.
BACKGROUNDS = {
    "yellow": ("#eeeeee", "#eeeeb0"),
    "blue": ("#eeeeee", "#e0e0ff"),
    "green": ("#eef2ee", "#e0ffe0"),
    "grey": ("#f8f8f8", "#e8e8e8"),
}
DELTA_MODES = ("inclusive", "self")
#: How a graph coloured by a second metric writes each frame's ratio: the colour metric per unit
#: of the width metric (instructions/cycles: IPC), or the width metric per unit of the colour
#: metric (cycles/instructions: Gregg's CPI). The colours are the same; only the numbers differ.
RATIO_MODES = ("colour/width", "width/colour")
TRUNCATE_SIDES = ("right", "left")
#: Patterns of the checks below, as text: ``re`` is imported by the checks that need it (it costs
#: `flamespace text` and `svg --help` a few ms of start-up), and caches them compiled.
_HEX_COLOUR = r"#[0-9A-Fa-f]{6}$"
_MINWIDTH = r"([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(%?)$"


def _matches(pattern: str, text: str) -> bool:
    """Whether ``pattern`` matches the start of ``text`` (``re`` imported when a check needs it)."""
    import re

    return re.match(pattern, text) is not None


def check_positive(name: str, value: float) -> None:
    """The rule of every size, scale and total: a finite number above 0 (inf and nan would end in a
    division by zero or an endless drawing, far from the option that caused it)."""
    if not 0 < value < _INFINITY:
        raise ArgumentError(f"{name} must be {POSITIVE}, not {value!r}")


def check_non_negative(name: str, value: float) -> None:
    """The rule of every least value or share: a finite number >= 0."""
    if not 0 <= value < _INFINITY:
        raise ArgumentError(f"{name} must be {NON_NEGATIVE}, not {value!r}")


_INFINITY = float("inf")
#: What :func:`check_positive` and :func:`check_non_negative` ask for, in words.
POSITIVE, NON_NEGATIVE = "a finite number > 0", "a finite number >= 0"


def _choice(name: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ArgumentError(f"{name} must be one of {', '.join(allowed)}, not {value!r}")


@record
class LayoutOptions(Record):
    """Which frames a profile lays out into, where and how wide, in value units (no pixels).

    ``reverse`` (stacks leaf first: merge from the hot end), ``base`` (re-root at these
    frames, as ``flamespace filter --base``), ``flamechart`` (keep input order, merge only
    neighbours), ``sort_by_value`` (siblings widest first), ``delta`` (differential input:
    "inclusive" gives each frame the change of its inclusive value, "self" of its own value,
    as flamegraph.pl), ``total`` (the value of the whole, if larger than the sum: the
    profile is laid out as part of a larger whole), ``mark_wakers`` (frames after a ``--``
    are named with ``_[w]``, as flamegraph.pl's ``--colors chain``).

    Frames narrower than the largest of these limits are not laid out (their value still
    counts in their parents): ``min_value`` (value units), ``min_percent`` (a percentage of
    the total, as flamegraph.pl's ``--minwidth N%``), ``min_width`` out of ``extent`` (the
    width a renderer draws the total at: flamegraph.pl's ``--minwidth`` of 0.1 pixels of a
    1180-pixel graph is ``min_width=0.1, extent=1180``). Each limit is computed as
    flamegraph.pl computes it, so the frames kept at the edge are the same.
    """

    reverse: bool = False
    base: tuple[str, ...] = ()
    flamechart: bool = False
    sort_by_value: bool = False
    delta: str = "inclusive"
    total: float | None = None
    mark_wakers: bool = False
    min_value: float = 0
    min_percent: float = 0
    min_width: float = 0
    extent: float | None = None

    def __post_init__(self) -> None:
        if isinstance(self.base, str):
            object.__setattr__(self, "base", (self.base,))
        _choice("delta", self.delta, DELTA_MODES)
        if self.total is not None:
            check_positive("total", self.total)
        for name in ("min_value", "min_percent", "min_width"):
            check_non_negative(name, getattr(self, name))
        if self.extent is not None:
            check_positive("extent", self.extent)
        if self.min_width and self.extent is None:
            raise ArgumentError("min_width needs the extent the total is drawn at")

    def least_value(self, total: float) -> float:
        """The smallest value laid out when the whole is worth ``total``."""
        least = self.min_value
        if self.min_percent:
            least = max(least, total * self.min_percent / 100)
        if self.min_width:
            least = max(least, self.min_width / (self.extent / total))  # type: ignore[operator]
        return least


#: The layout's defaults, which the renderers' option classes take as theirs.
LAYOUT_DEFAULTS = LayoutOptions()
#: Pixels left and right of the frames in an SVG (flamegraph.pl's xpad).
XPAD = 10


@record
class Appearance(Record):
    """What every picture of a flame graph shows alike (:class:`SvgOptions`, and the HTML
    page's ``HtmlOptions``): each field and default written once, here.

    ``title`` (default "Flame Graph", "Icicle Graph" or "Flame Chart"), ``subtitle``,
    ``colors`` (a palette of :data:`PALETTES`), ``hash`` (flamegraph.pl's name hash: similar
    names get similar colours), ``inverted`` (icicle: the root at the top), ``countname``
    (what counts are: default, the profile's unit, else "samples"), ``search_color``,
    ``drop_locations`` (a label that does not fit drops a trailing location, `` (file:line)``
    or `` (file)`` as Python profilers name frames, before it is cut: ``work (app.py:12)``
    becomes ``work``, then ``wo..``; names without such a suffix are cut as flamegraph.pl cuts
    them), ``negate`` (differential input, or colour by a second metric: swap red and blue),
    ``colour_ratio`` (one of :data:`RATIO_MODES`: how a second metric's ratios are written).
    Layout (as :class:`LayoutOptions`, which gives their defaults and checks): ``reverse``,
    ``base``, ``sort_by_value``, ``delta`` (the change each frame of differential input is
    coloured by).
    """

    title: str | None = None
    subtitle: str = ""
    colors: str = "hot"
    hash: bool = False
    inverted: bool = False
    countname: str = ""  # empty: the profile's unit names its counts (core.units.count_name)
    search_color: str = "rgb(230,0,230)"
    drop_locations: bool = True
    negate: bool = False
    colour_ratio: str = RATIO_MODES[0]
    reverse: bool = LAYOUT_DEFAULTS.reverse
    base: tuple[str, ...] = LAYOUT_DEFAULTS.base
    sort_by_value: bool = LAYOUT_DEFAULTS.sort_by_value
    delta: str = LAYOUT_DEFAULTS.delta

    def __post_init__(self) -> None:
        _choice("colors", self.colors, PALETTES)
        _choice("colour_ratio", self.colour_ratio, RATIO_MODES)
        _choice("delta", self.delta, DELTA_MODES)
        if isinstance(self.base, str):
            object.__setattr__(self, "base", (self.base,))

    def appearance(self) -> dict[str, Any]:
        """This record's :class:`Appearance` fields, to make another picture's options look alike."""
        return {name: getattr(self, name) for name in fields(Appearance)}


@record
class SvgOptions(Appearance):
    """How to draw a flame graph as an SVG: :class:`Appearance`'s fields, and the SVG's own.
    Every field has flamegraph.pl's meaning and default.

    Geometry: ``width`` (image pixels; ``fluid`` stretches to the window, laid out at
    ``width``), ``height`` (of one frame), ``minwidth`` (frames narrower than this are not
    drawn: pixels as a number, or a percentage of the total as a string ending in ``%``).
    Text: ``fonttype``, ``fontsize``, ``fontwidth`` (average glyph width / font size, used to
    fit labels), ``nametype``, ``notes`` (an XML comment), ``truncate`` ("right": ``name..`` as
    flamegraph.pl; "left": ``..name`` as inferno's default).
    Colour: ``bgcolors`` (a gradient of :data:`BACKGROUNDS` or ``#rrggbb``; default by
    palette), ``random`` (random colours; ``seed`` makes them repeatable), ``stroke_color``
    (frame outlines; "none" for none).
    Layout (as :class:`LayoutOptions`): ``flamechart``, ``total``; :meth:`layout_options` turns
    these, :class:`Appearance`'s layout fields and ``minwidth`` into the layout's options.
    Values: ``factor`` (multiply counts shown in tooltips).
    ``legend``: a colour bar under the title (differential input: the change at which colours
    saturate, and what red and blue mean; significance-coloured graphs: the colour key; colour
    by a second metric: the ratio's bar). Labels on dark frames of differential input are white
    (see :func:`~flamespace.render.palettes.needs_light_ink`).
    Colours that stay the same across graphs (flamegraph.pl's ``--cp``) come from a palette
    map the caller passes to :func:`~flamespace.render.svg.svg` (read and written with
    :func:`~flamespace.render.palettes.read_palette` and ``write_palette``).
    ``nameattr``: extra SVG attributes per frame name (``href``, ``title``, ``class``, ...),
    as read from flamegraph.pl's ``--nameattr`` file by :func:`read_nameattr`.
    ``encoding``: the character encoding of the file (declared and used). ``empty_text``: what
    the image says when there is nothing to draw (e.g. "No significant change").
    """

    width: int = 1200
    height: int = 16
    minwidth: float | str = 0.1
    fonttype: str = "Verdana"
    fontsize: float = 12
    fontwidth: float = 0.59
    nametype: str = "Function:"
    bgcolors: str | None = None
    random: bool = False
    seed: int | None = None
    flamechart: bool = LAYOUT_DEFAULTS.flamechart
    factor: float = 1
    total: float | None = LAYOUT_DEFAULTS.total
    notes: str = ""
    nameattr: Mapping[str, Mapping[str, str]] = factory(dict)
    encoding: str | None = None
    fluid: bool = False
    stroke_color: str = "none"
    truncate: str = "right"
    legend: bool = True
    empty_text: str = "ERROR: No valid input provided to flamespace."

    def __post_init__(self) -> None:
        Appearance.__post_init__(self)
        for name in ("width", "height", "fontsize", "fontwidth", "factor"):
            check_positive(name, getattr(self, name))
        if not self.width > 2 * XPAD:
            raise ArgumentError(f"width must be more than the margins' {2 * XPAD} pixels, not {self.width!r}")
        object.__setattr__(self, "base", self.layout_options().base)  # checks the layout's fields (and minwidth)
        _choice("truncate", self.truncate, TRUNCATE_SIDES)
        if self.bgcolors is not None and self.bgcolors not in BACKGROUNDS and not _matches(_HEX_COLOUR, self.bgcolors):
            raise ArgumentError(f"bgcolors must be one of {', '.join(BACKGROUNDS)} or a colour '#rrggbb', not {self.bgcolors!r}")
        if self.hash and self.random:
            raise ArgumentError("choose one of hash and random colours, not both")
        if self.encoding is not None:
            import codecs

            try:
                codecs.lookup(self.encoding)
            except LookupError:
                raise ArgumentError(f"unknown encoding {self.encoding!r}") from None

    def minwidth_spec(self) -> tuple[float, bool]:
        """(amount, is_percent) of ``minwidth``."""
        if isinstance(self.minwidth, (int, float)) and not isinstance(self.minwidth, bool):
            if self.minwidth < 0:
                raise ArgumentError(f"minwidth must be >= 0, not {self.minwidth!r}")
            return float(self.minwidth), False
        import re

        match = re.match(_MINWIDTH, str(self.minwidth).strip())
        if not match:
            raise ArgumentError(
                f"minwidth must be a number of pixels (0.1) or a percentage of the total (0.5%), not {self.minwidth!r}"
            )
        return float(match.group(1)), bool(match.group(2))

    def layout_options(self) -> LayoutOptions:
        """What to lay out: the layout's fields, ``minwidth`` (pixels of the frames' width, or a
        percentage) and the waker marks of the ``chain`` palette."""
        amount, percent = self.minwidth_spec()
        if percent:
            least = {"min_percent": amount}
        else:
            least = {"min_width": amount, "extent": self.width - 2 * XPAD}
        return LayoutOptions(
            reverse=self.reverse,
            base=self.base,
            flamechart=self.flamechart,
            sort_by_value=self.sort_by_value,
            delta=self.delta,
            total=self.total,
            mark_wakers=self.colors == "chain",
            **least,
        )

    def resolved_title(self) -> str:
        if self.title:
            return self.title
        if self.flamechart:
            return "Flame Chart"
        return "Icicle Graph" if self.inverted else "Flame Graph"

    def background(self) -> tuple[str, str]:
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
    def names(cls) -> tuple[str, ...]:
        return fields(cls)


def read_nameattr(path: str) -> dict[str, dict[str, str]]:
    """flamegraph.pl's --nameattr file: ``function<TAB>name=value<TAB>name=value...`` per line."""
    from ..errors import InputError

    table: dict[str, dict[str, str]] = {}
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
                bad = [a for a in attributes if not _matches(r"[A-Za-z_][\w.:-]*$", a)]
                if bad:
                    raise InputError(f"{bad[0]!r} is not an attribute name", path, lineno)
                table[function] = attributes
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", path) from None
    return table
