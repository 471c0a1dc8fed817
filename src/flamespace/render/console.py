"""The first view of a profile: a short call tree a person reads at a glance in a terminal.

What ``flamespace record`` prints when no ``-o`` is given, ``flamespace text --tree`` prints for
a file, and a profile's plain-text output in a notebook. Four rewrites make it short, and each
says where the time went, so a line's time is always the sum of what is shown under it:

- **library folded**: standard-library and installed-package frames (``core.library``, the
  rule the HTML viewer's presets share) are folded into the nearest frame the program wrote;
  their time is labelled on that line (``0.21 s in json.loads``), and a frame reached through folded
  frames says which (``via _pytest, pluggy``). ``show_all`` keeps them.
- **small calls folded**: a call below ``min_share`` of the total goes to its caller's line
  (``0.01 s in 3 smaller calls``).
- **one thread when the others only waited**: with thread root frames (``roots: thread``), the
  main thread alone is shown when every other thread's time on a CPU (its time not under an
  ``[idle]`` leaf) is below ``min_share`` of the total; else every thread, each a root.
- **time off a CPU labelled**: an ``[idle]`` leaf (``record --idle``) is time its caller's line
  spent waiting, or ready to run with no CPU free (``0.26 s off CPU``).

Builtins (C functions) have no frame of their own in a sampled profile: their time is on the
line that called them, which is the frame's name (``work (app.py:11)``). Nothing here prints
or colours: :func:`console_lines` says what each part of a line is, and the caller styles it.
"""

from __future__ import annotations

from .._record import Record, record
from ..core.library import fold_stack
from ..core.python_frames import IDLE_FRAME
from ..core.transforms import MAIN_THREAD, one_thread, root_kinds, summed_threads
from ..core.units import count_name, format_count, human
from ..errors import ArgumentError
from .text import last_siblings, location_start

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable
    from collections.abc import Iterator

    from .._types import Stack
    from ..core.vector import FlameGraph

#: The label of time off a CPU (an ``[idle]`` leaf): waiting, or ready to run with no CPU free.
WAITING = "off CPU"
#: At most this many notes of where a line's time went (the rest summed as "other").
NOTES = 3
#: Thread choices: "auto" (the main thread when the others only waited), "all", or a thread's name.
AUTO, ALL = "auto", "all"


@record
class ConsoleOptions(Record):
    """``min_share``: calls below this share of the total are folded into their caller (0.02 = 2%);
    ``show_all``: keep library frames (else folded into the program's); ``thread``: ``auto`` (the
    main thread when every other one only waited), ``all``, or one thread's name (``main`` too)."""

    min_share: float = 0.02
    show_all: bool = False
    thread: str = AUTO

    def __post_init__(self) -> None:
        if not 0 <= self.min_share < 1:
            raise ArgumentError(f"min_share must be a share from 0 to below 1 (e.g. 0.02 for 2%), not {self.min_share!r}")


@record
class ConsoleRow(Record):
    """One line of the tree: ``depth`` below the top (0: a root), ``name`` (a frame), ``value``
    (inclusive), ``parts``: (label, value) of the time shown on this line rather than under it —
    ``self`` (its own, builtins it called included), a library function (folded library code:
    ``json.loads``), ``off CPU``, ``smaller`` (folded small calls) —, ``smaller``: how many calls that is, ``via``:
    the packages folded between it and its caller."""

    depth: int
    name: str
    value: float
    parts: tuple[tuple[str, float], ...]
    smaller: int
    via: tuple[str, ...]


@record
class ConsoleTree(Record):
    """The rows in order (callers first, heaviest sibling first), the total, the unit and what was
    done to the profile (``thread``: the thread shown alone, or None; ``waited``: how many other
    threads only waited; ``folded_library``: whether library frames were folded; ``min_share``: the
    share below which calls were folded); ``metric``: what the values measure (``wall``);
    ``threads``: how many threads' time the total sums (0: one, or not known)."""

    rows: tuple[ConsoleRow, ...]
    total: float
    unit: str | None
    thread: str | None
    waited: int
    folded_library: bool
    min_share: float
    metric: str = ""
    threads: int = 0


@record
class ConsoleLine(Record):
    """A line of text in parts, each (text, kind) — kind one of ``share``, ``value``, ``branch``,
    ``function``, ``location``, ``note`` (folded time, off CPU, via) or ``text`` —, and the
    line's share of the total (which a caller may colour by). ``text`` is the plain line."""

    parts: tuple[tuple[str, str], ...]
    share: float

    @property
    def text(self) -> str:
        return "".join(text for text, _ in self.parts)


def others_only_waited(graph: FlameGraph, min_share: float) -> tuple[str | None, int]:
    """(the main thread's name, how many other threads there are) when ``graph`` has thread root
    frames and every other thread's time on a CPU (if any) is below ``min_share`` of the total; else
    (None, 0). Time on a CPU is a thread's time not under an ``[idle]`` leaf (all of it in a
    profile recorded without ``--idle``, where waiting cannot be told from running)."""
    kinds = root_kinds(graph)
    if "thread" not in kinds:
        return None, 0
    depth = kinds.index("thread")
    running: dict[str, float] = {}
    for stack, value in graph.items():
        if len(stack) > depth:
            thread = stack[depth]
            running[thread] = running.get(thread, 0) + (0 if stack[-1] == IDLE_FRAME else value)
    if MAIN_THREAD not in running:
        return None, 0
    limit = min_share * graph.total()
    others = [thread for thread in running if thread != MAIN_THREAD]
    if all(running[thread] < limit for thread in others):
        return MAIN_THREAD, len(others)
    return None, 0


def console_tree(graph: FlameGraph, options: ConsoleOptions | None = None) -> ConsoleTree:
    """The tree of ``graph`` as :mod:`this module <flamespace.render.console>` says."""
    options = options or ConsoleOptions()
    shown, waited = _threads_shown(graph, options)
    if shown is not None:
        graph = one_thread(graph, shown)
    nodes = _Nodes()
    for stack, value in graph.items():
        nodes.add(stack, value, options.show_all)
    total = graph.total()
    rows = nodes.rows(options.min_share * abs(total))
    return ConsoleTree(
        rows=tuple(rows),
        total=total,
        unit=graph.metadata.unit or None,
        thread=shown or graph.metadata.labels.get("thread"),  # a profile of one thread says which
        waited=waited,
        folded_library=not options.show_all,
        min_share=options.min_share,
        metric=graph.metadata.metric or "",
        threads=0 if shown is not None else summed_threads(graph),
    )


def _threads_shown(graph: FlameGraph, options: ConsoleOptions) -> tuple[str | None, int]:
    """The thread to show alone (None: all) and how many others only waited (``auto``)."""
    if options.thread == ALL:
        return None, 0
    if options.thread != AUTO:
        return options.thread, 0
    return others_only_waited(graph, options.min_share)


class _Nodes:
    """The merged tree of folded stacks, in flat lists (walked without recursion: stacks are deep)."""

    def __init__(self) -> None:
        self.names: list[str] = [""]
        self.values: list[float] = [0]
        self.children: list[dict[str, int]] = [{}]
        self.parts: list[dict[str, float]] = [{}]
        self.via: list[list[str]] = [[]]

    def add(self, stack: Stack, value: float, show_all: bool) -> None:
        waiting = bool(stack) and stack[-1] == IDLE_FRAME
        if waiting:
            stack = stack[:-1]
        kept: Stack
        into: str | None
        via: tuple[tuple[str, ...], ...]
        if show_all:
            kept, into, via = stack, None, ()
        else:
            folded = fold_stack(stack)
            kept, into, via = folded.stack, folded.into, folded.via
        node = 0
        self.values[0] += value
        for depth, frame in enumerate(kept):
            child = self.children[node].get(frame)
            if child is None:
                child = self.children[node][frame] = len(self.names)
                self.names.append(frame)
                self.values.append(0)
                self.children.append({})
                self.parts.append({})
                self.via.append([])
            node = child
            self.values[node] += value
            if via and via[depth]:
                self.via[node].extend(p for p in via[depth] if p not in self.via[node])
        label = WAITING if waiting else into if into is not None else "self"
        self.parts[node][label] = self.parts[node].get(label, 0) + value

    def rows(self, threshold: float) -> list[ConsoleRow]:
        """Pre-order rows, heaviest child first; children below ``threshold`` folded into their parent."""
        rows: list[ConsoleRow] = []
        pending = [(child, 0) for child in self._kept_children(0, threshold)[::-1]]
        while pending:
            node, depth = pending.pop()
            kept = self._kept_children(node, threshold)
            small = [child for child in self.children[node].values() if child not in kept]
            parts = dict(self.parts[node])
            if small:
                parts["smaller"] = sum(self.values[child] for child in small)
            ordered = sorted(parts.items(), key=lambda item: (item[0] != "self", -abs(item[1]), item[0]))
            rows.append(
                ConsoleRow(
                    depth=depth,
                    name=self.names[node],
                    value=self.values[node],
                    parts=tuple(item for item in ordered if item[1]),
                    smaller=len(small),
                    via=tuple(self.via[node]),
                )
            )
            pending.extend((child, depth + 1) for child in kept[::-1])
        small_roots = [child for child in self.children[0].values() if abs(self.values[child]) < threshold]
        if small_roots:  # roots below the share: one line, so the roots still add up to the total
            value = sum(self.values[child] for child in small_roots)
            rows.append(ConsoleRow(depth=0, name="", value=value, parts=(("smaller", value),), smaller=len(small_roots), via=()))
        return rows

    def _kept_children(self, node: int, threshold: float) -> list[int]:
        children = [child for child in self.children[node].values() if abs(self.values[child]) >= threshold]
        return sorted(children, key=lambda child: (-abs(self.values[child]), self.names[child]))


def console_lines(tree: ConsoleTree, raw: bool = False) -> Iterator[ConsoleLine]:
    """The tree's lines: share, value (right-aligned), branches, function, location and notes.
    Values in human units (``230 ms``); ``raw``: exact values in the profile's unit."""
    unit = tree.unit

    def amount(value: float) -> str:
        return f"{format_count(value)} {count_name(unit)}" if raw else human(value, unit)

    width = max((len(amount(row.value)) for row in tree.rows), default=0)
    open_levels: list[bool] = []
    last = last_siblings([row.depth for row in tree.rows])
    for row, is_last in zip(tree.rows, last):
        del open_levels[max(row.depth - 1, 0) :]
        branch = "".join("│  " if more else "   " for more in open_levels)
        if row.depth:
            branch += "└─ " if is_last else "├─ "
            open_levels.append(not is_last)
        share = row.value / tree.total if tree.total else 0.0
        parts: list[tuple[str, str]] = [(f"{100 * share:5.1f}%", "share"), ("  ", "text")]
        parts.append((amount(row.value).rjust(width), "value"))
        parts.append(("  " + branch, "branch"))
        if row.name:
            function, location = _split(row.name)
            parts.append((function, "function"))
            if location:
                parts.append((location, "location"))
        else:
            parts.append((f"{row.smaller} smaller {'root' if row.smaller == 1 else 'roots'}", "note"))
        notes = _notes(row, amount) if row.name else []
        if notes:
            parts.append(("  " + " · ".join(notes), "note"))
        yield ConsoleLine(parts=tuple(parts), share=share)


def _notes(row: ConsoleRow, amount: Callable[[float], str]) -> list[str]:
    """What a line says of the time on it: self (when there is more than that), folded library
    code, time off a CPU, smaller calls — at most :data:`NOTES` of them, the smallest of the rest summed
    as ``other``, so the line still adds up —; and the packages it was reached through."""
    if len(row.parts) == 1 and row.parts[0][0] == "self":
        return [f"via {', '.join(row.via)}"] if row.via else []
    notes = []
    ordered = sorted(row.parts, key=lambda part: -abs(part[1]))
    for label, value in ordered[:NOTES]:
        if label == "self":
            notes.append(f"{amount(value)} self")
        elif label == WAITING:
            notes.append(f"{amount(value)} {WAITING}")
        elif label == "smaller":
            notes.append(f"{amount(value)} in {row.smaller} smaller {'call' if row.smaller == 1 else 'calls'}")
        else:
            notes.append(f"{amount(value)} in {label}")
    rest = ordered[NOTES:]
    if rest:
        notes.append(f"{amount(sum(value for _, value in rest))} other")
    if row.via:
        notes.append("via " + ", ".join(row.via))
    return notes


def _split(name: str) -> tuple[str, str]:
    """``work (app.py:11)`` -> (``work``, `` (app.py:11)``)."""
    start = location_start(name)
    return name[:start], name[start:]


def summary(tree: ConsoleTree) -> str:
    """One line saying what the tree shows and what was folded, each with the option that changes it."""
    what = [f"{human(tree.total, tree.unit, name_counts=True)}{' ' + tree.metric if tree.metric else ''}"]
    if tree.threads > 1:
        what.append(f"{tree.threads} threads summed")
    if tree.thread is not None:
        if tree.waited:
            others = "1 other thread" if tree.waited == 1 else f"{tree.waited} other threads"
            what.append(f"{tree.thread} only ({others} only waited: --thread all)")
        else:
            what.append(f"{tree.thread} only")
    if tree.folded_library:
        what.append("library code folded (--show-all)")
    if tree.min_share:
        what.append(f"calls under {100 * tree.min_share:g}% folded (--min-share)")
    return " · ".join(what)


def console_text(graph: FlameGraph, options: ConsoleOptions | None = None, raw: bool = False) -> str:
    """The summary line and the tree as plain text (what a notebook shows as text/plain)."""
    tree = console_tree(graph, options)
    return "".join(line + "\n" for line in [summary(tree), *(line.text for line in console_lines(tree, raw))])


__all__ = [
    "ALL",
    "AUTO",
    "ConsoleLine",
    "ConsoleOptions",
    "ConsoleRow",
    "ConsoleTree",
    "console_lines",
    "console_text",
    "console_tree",
    "others_only_waited",
    "summary",
]
