"""--colour-by, --colour-ratio and --event of the rendering commands (svg, html): the two profiles
of a flame graph coloured by a second metric (Gregg's CPI flame graph), read and checked here.

The second metric comes from another profile file of the same stacks (``--colour-by
instructions.folded``) or from another event of the same ``perf script`` input (``--colour-by
event:instructions`` with ``perf record -e cycles,instructions``): each input is then read once
per event by the perf reader's ``event_filter``. ``--event`` picks the widths' event (default:
the first event in the input, which perf does not promise to be the first one asked for).
"""

from __future__ import annotations

import os

from ..errors import ArgumentError, InputError
from ..render.options import RATIO_MODES
from ._options import Option

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from .._types import Drawable
    from ..core.vector import FlameGraph

#: ``--colour-by event:NAME``: event NAME of the input itself (a file of that name is written ``./event:NAME``).
EVENT_PREFIX = "event:"
#: Warn when more than this share of the second metric falls on stacks the widths do not have.
UNMATCHED_WARNING = 0.5

#: The options, for the svg and html commands.
OPTIONS = (
    Option(
        ("--colour-by",),
        "colour_by",
        "str",
        None,
        "Colour by a second metric of the same stacks, per frame the ratio of the two with its callees (Gregg's CPI "
        "flame graph): a profile file (instructions.folded), or 'event:NAME' for event NAME of the perf script input "
        "(perf record -e cycles,instructions). Widths stay the input's.",
        metavar="SOURCE",
    ),
    Option(
        ("--colour-ratio",),
        "colour_ratio",
        "choice",
        RATIO_MODES[0],
        "How --colour-by writes ratios: the colour metric per unit of the widths' (instructions/cycles), or the "
        "inverse (cycles/instructions, Gregg's CPI). The colours are the same.",
        choices=RATIO_MODES,
        show_default=True,
    ),
    Option(
        ("--event",),
        "event",
        "str",
        None,
        "perf script input: draw the samples of this event (default: the first event in the input).",
    ),
)


def read_inputs(
    files: Sequence[str],
    command: str,
    skip_invalid: bool,
    input_format: str | None,
    colour_by: str | None = None,
    event: str | None = None,
    chart: bool = False,
) -> tuple[Drawable, FlameGraph | None]:
    """The profile to draw (as the command reads it without these options) and, with ``colour_by``,
    the second metric's flame graph; InputError naming the file for inputs that do not fit.
    ``chart``: a single input that keeps time order is read as a flame chart (not with ``colour_by``)."""
    from ._render import read_drawable

    if colour_by is None and event is None:
        return read_drawable(files, command, skip_invalid, input_format, chart=chart), None
    from ..core.algebra import sum_graphs
    from ._common import expand_inputs

    paths = expand_inputs(files)
    colour: FlameGraph | None = None
    colour_event = colour_by[len(EVENT_PREFIX) :] if colour_by is not None and colour_by.startswith(EVENT_PREFIX) else None
    if colour_event is not None:
        if not colour_event:
            raise ArgumentError(f"--colour-by {colour_by!r} names no event (write event:NAME, e.g. event:instructions)")
        if colour_event == event:
            raise ArgumentError(f"--colour-by {colour_by} is the widths' event too: colour by another event")
        if "-" in paths:
            raise ArgumentError(f"--colour-by {colour_by} reads the input once per event: give a file, not stdin")
        colour = sum_graphs([_read_one(path, command, skip_invalid, input_format, colour_event) for path in paths])
    graphs = [_read_one(path, command, skip_invalid, input_format, event) for path in paths]
    profile = graphs[0] if len(graphs) == 1 else sum_graphs(graphs)
    if colour is not None and profile.metric == colour_event:
        raise InputError(
            f"the first event in the input is {colour_event}, the --colour-by event: name the widths' event with --event",
            ", ".join(paths),
        )
    if colour_by is not None and colour is None:
        colour = _named(_read_one(colour_by, command, skip_invalid, None, None), colour_by)
    if len(paths) == 1:
        profile = _named(profile, paths[0])
    if colour is not None:
        _check_match(profile, colour, ", ".join(paths), colour_by or "")
    return profile, colour


def count_name(profile: Drawable, colour: FlameGraph | None, countname: str | None) -> str | None:
    """--countname, or with --colour-by what the widths measured (``cycles``) when their unit does
    not say more than samples: the tooltips then read "600 cycles" beside "300 instructions"."""
    unit = getattr(profile, "unit", None)
    if countname or colour is None or unit not in (None, "samples"):
        return countname
    return getattr(profile, "metric", None)


def _read_one(path: str, command: str, skip_invalid: bool, input_format: str | None, event: str | None) -> FlameGraph:
    """One input as a flame graph (of ``event`` for perf script input; a flame chart's sum), reporting skipped lines."""
    from ..core.chart import FlameChart
    from ..core.differential import Differential
    from ..diagnostics import Diagnostics
    from ..formats import registry
    from ._common import report

    diagnostics = Diagnostics()
    try:
        profile = registry.read(
            path,
            input_format,
            skip_invalid=skip_invalid,
            diagnostics=diagnostics,
            options={"event_filter": event} if event is not None else None,
        )
    except ArgumentError as error:
        if event is None:
            raise
        raise InputError(
            f"has no events to choose ('{event}' is a perf script event): {error}", registry.display_name(path)
        ) from None
    if isinstance(profile, FlameChart):  # the colours and widths are compared stack by stack, not in time
        profile = profile.graph()
    if isinstance(profile, Differential):
        raise InputError(
            f"is differential input (two counts per line); '{command}' colours one profile by a second metric of the "
            "same stacks, each one count per line",
            registry.display_name(path),
        )
    if event is not None and not profile.total():
        name = registry.display_name(path)
        notes = [w[len(name) + 2 :] if w.startswith(name + ": ") else w for w in diagnostics.warnings]
        raise InputError("; ".join(notes) or f"no samples of event {event}", name)
    report(diagnostics)
    return profile


def _named(graph: FlameGraph, path: str) -> FlameGraph:
    """A graph that does not say what it measured named after its file (``instructions.folded``: instructions)."""
    if graph.metric or path == "-":
        return graph
    name = os.path.basename(path)
    for _ in range(2):  # app.folded.gz -> app
        stem, extension = os.path.splitext(name)
        if stem and extension:
            name = stem
    return graph.with_metadata(metric=name)


def _check_match(profile: FlameGraph, colour: FlameGraph, widths: str, colours: str) -> None:
    """Inputs of different programs: an error when no stack is in both, a warning when most of the
    second metric is on stacks the widths lack (counted only in their drawn callers)."""
    from ._report import warn

    total = colour.total()
    if not total:
        raise InputError("holds no samples of the second metric", colours)
    shared = sum(value for stack, value in colour.items() if stack in profile)
    if not shared:
        raise InputError(f"shares no stack with {widths}: are they profiles of the same program, collapsed alike?", colours)
    if shared < (1 - UNMATCHED_WARNING) * total:
        warn(
            f"flamespace: warning: {100 * (total - shared) / total:.0f}% of {colour.metric or 'the second metric'} "
            f"in {colours} is on stacks that {widths} does not have (drawn only in their callers' colours)"
        )
