"""A flame graph of two mean profiles coloured by significance: what ``compare --out-dir`` draws.

Every stack is drawn at one side's mean (the candidate's, or the baseline's so that stacks
that disappeared are visible). Frames whose stack did not change significantly are grey;
the frame that ends a significantly changed stack (its leaf: where the change is) is red
when the stack grew or appeared, blue when it shrank or disappeared, deeper for larger
changes; the frames above it (its callers, whose subtree holds the change) are lightly
tinted, so a change too narrow to see can still be found by following the tint. A legend
says what the colours mean.

The input is plain data (two flame graphs and the kind of each changed stack), so this
module does not depend on the statistics that decided it. ``flamespace svg`` never comes
here: its output stays flamegraph.pl's.
"""

from __future__ import annotations

from ..core import units
from ..core.differential import Differential
from ..errors import ArgumentError
from .layout import layout
from .options import SvgOptions
from .palettes import stable_hash
from .svg import Drawing, draw, emit
from .colouring import ColourBar, amount, change_words

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection, Mapping

    from .._types import Destination, Stack
    from ..core.vector import FlameGraph

#: Kinds of a significant change (as ``Comparison``'s StackChange.kind) -> +1 more, -1 less.
DIRECTION = {"appeared": 1, "grown": 1, "disappeared": -1, "shrunk": -1}
VERB = {"appeared": "appeared", "grown": "grew", "disappeared": "disappeared", "shrunk": "shrank"}
#: The palette: strong colours for the leaf of a changed stack (at the smallest and largest
#: change), tints for frames that contain one, grey levels for the rest.
STRONG_LIGHTEST = 170
STRONG_DEEPEST = 80
TINT = {1: "rgb(255,218,218)", -1: "rgb(218,218,255)", 0: "rgb(236,218,240)"}
GREY_LIGHTEST = 228
GREY_DARKEST = 196


def strong(direction: int, size: float, largest: float) -> str:
    """Red (more) or blue (less), deeper as ``size`` nears ``largest``."""
    share = min(abs(size) / largest, 1.0) if largest else 1.0
    level = int(round(STRONG_LIGHTEST - (STRONG_LIGHTEST - STRONG_DEEPEST) * share))
    return f"rgb(255,{level},{level})" if direction > 0 else f"rgb({level},{level},255)"


def grey(name: str) -> str:
    """A light grey that varies a little by name, so neighbouring frames stay apart."""
    level = GREY_DARKEST + int((GREY_LIGHTEST - GREY_DARKEST) * stable_hash(name))
    return f"rgb({level},{level},{level})"


def legend(unit: str | None) -> list[tuple[str, str]]:
    """The colour key: (colour, meaning) for each kind of frame."""
    more, less = change_words(unit)
    return [
        (grey("legend"), "no significant change"),
        (strong(1, 1, 1), f"significantly {more}: grew or appeared"),
        (strong(-1, 1, 1), f"significantly {less}: shrank or disappeared"),
        (TINT[1], f"contains a significant change, net {more}"),
        (TINT[-1], f"contains a significant change, net {less}"),
    ]


class Colouring:
    """Which colour each frame of a significance-coloured graph gets (the SVG's and the HTML page's).

    ``changes``: candidate − baseline of each coloured stack (``kinds`` non-empty);
    ``largest``: the largest of them in size (1 when none), where the strong colours are
    deepest; ``inside``: each caller of a coloured stack -> the net change below it.
    """

    def __init__(self, baseline: FlameGraph, candidate: FlameGraph, kinds: Mapping[Stack, str]) -> None:
        self.kinds = kinds
        self.changes = {stack: candidate.value(stack) - baseline.value(stack) for stack, kind in kinds.items() if kind}
        self.largest = max(map(abs, self.changes.values()), default=0) or 1
        self.inside: dict[Stack, float] = {}
        for stack, change in self.changes.items():
            for depth in range(len(stack)):
                self.inside[stack[:depth]] = self.inside.get(stack[:depth], 0) + change

    def colour(self, stack: Stack, name: str, depth: int) -> str:
        """Strong at a significant stack's leaf, a tint on its callers, grey elsewhere."""
        kind = self.kinds.get(stack) if depth else None
        if kind:
            return strong(DIRECTION[kind], self.changes[stack], self.largest)
        if stack in self.inside:
            net = self.inside[stack]
            return TINT[(net > 0) - (net < 0)]
        return grey(name)


def significance_drawing(
    baseline: FlameGraph,
    candidate: FlameGraph,
    kinds: Mapping[Stack, str],
    options: SvgOptions | None = None,
    *,
    baseline_widths: bool = False,
    note: str = "",
    untested: Collection[Stack] = (),
) -> Drawing:
    """The frames of ``candidate`` (``baseline`` with ``baseline_widths``) coloured by ``kinds``.

    ``kinds``: stack -> appeared/grown/disappeared/shrunk for the significant changes to
    colour, or "" for a change that is significant but within the margin (drawn grey). Δ is
    always candidate − baseline, so red means more in the candidate on both sides. ``note``
    is a line under the colour key (the test and its error rate). ``untested``: stacks drawn
    but not tested (e.g. seen in too few runs), which their tooltips say.
    """
    options = options or SvgOptions()
    if options.reverse or options.base or options.flamechart:
        raise ArgumentError("a significance-coloured graph keeps stacks as tested: no reverse, base or flame chart")
    shown, other = (baseline, candidate) if baseline_widths else (candidate, baseline)
    drawn = layout(Differential(other, shown), options.layout_options())
    if drawn.empty:
        return draw(drawn, options)
    unit = candidate.metadata.unit or baseline.metadata.unit
    colouring = Colouring(baseline, candidate, kinds)
    changes, inside, largest = colouring.changes, colouring.inside, colouring.largest
    c = drawn.columns
    sign = -1 if baseline_widths else 1
    total = drawn.total
    colours: list[str] = []
    infos: list[str] = []
    path: list[str] = []
    for name, depth, value, delta in zip(c.names, c.depths, c.values, c.deltas or ()):
        del path[max(depth - 1, 0) :]
        if depth:
            path.append(name)
        stack = tuple(path)
        change = delta * sign  # candidate − baseline of this frame's inclusive value
        before = value - change if not baseline_widths else value
        kind = kinds.get(stack) if depth else None
        colours.append(colouring.colour(stack, name, depth))
        verdict = _verdict(stack, kind, change, changes, inside, baseline, candidate, unit, untested)
        share = f"{100 * value / total:.2f}%" if total else "-"
        infos.append(
            f" ({units.human(value, unit, name_counts=True)}, {share}; Δ {units.human(change, unit, signed=True)}, "
            f"Δ % {units.percent(units.relative(change, before))}; {verdict})"
        )
    picture = draw(drawn, options, colours=colours)
    picture.infos = infos
    if options.legend:
        picture.bar = scale_bar(largest if changes else 0, unit, options)
        picture.legend = legend(unit)
        picture.legend_note = note
    return picture


def scale_bar(largest: float, unit: str | None, options: SvgOptions) -> ColourBar:
    """The depth of the strong colours: from the largest shrinkage (deepest blue) to the largest growth."""
    stops = [(0.0, strong(-1, 1, 1)), (0.5, strong(-1, 0, 1)), (0.5, strong(1, 0, 1)), (1.0, strong(1, 1, 1))]
    signed = amount(largest, unit, options, signed=True) if largest else "0"
    return ColourBar(
        signed.replace("+", "\u2212", 1) if largest else "0",
        signed,
        stops,
        "the leaf of a significant change: deeper for a larger change, deepest at the largest",
    )


def _verdict(
    stack: Stack,
    kind: str | None,
    change: float,
    changes: Mapping[Stack, float],
    inside: Mapping[Stack, float],
    baseline: FlameGraph,
    candidate: FlameGraph,
    unit: str | None,
    untested: Collection[Stack] = (),
) -> str:
    """What the test said of the frame's own stack (if it was tested) and of the stacks below it.

    At a leaf the frame's Δ is its stack's; a frame with callees says "own time" (its own
    stack), since its Δ is the sum of everything below it.
    """
    own = candidate.value(stack) - baseline.value(stack)
    callees = stack in inside or abs(own - change) > 1e-9 * max(abs(own), abs(change), 1)
    label = ("own time" if unit in units.TIME_UNITS else "own value") if callees else ""
    parts = []
    if kind:
        parts.append(
            f"{label} significantly {VERB[kind]} by {units.human(abs(own), unit)}" if label else f"significant: {VERB[kind]}"
        )
    elif kind is not None:
        parts.append(f"{label + ': ' if label else ''}significant but within the margin")
    elif stack and (baseline.value(stack) or candidate.value(stack)):
        tested = "not tested: seen in too few runs" if stack in untested else "not significant"
        parts.append(f"{label + ': ' if label else ''}{tested}")
    if stack in inside:
        parts.append("contains a significant change")
    return "; ".join(parts) or "not significant"


def significance_svg(
    baseline: FlameGraph,
    candidate: FlameGraph,
    kinds: Mapping[Stack, str],
    options: SvgOptions | None = None,
    output: Destination = None,
    *,
    baseline_widths: bool = False,
    note: str = "",
    untested: Collection[Stack] = (),
) -> str | None:
    """Draw :func:`significance_drawing` as an SVG (``output`` as :func:`~flamespace.render.svg`)."""
    picture = significance_drawing(
        baseline, candidate, kinds, options, baseline_widths=baseline_widths, note=note, untested=untested
    )
    return emit(picture, output)
