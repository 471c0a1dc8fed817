"""Pure transforms of flame graphs: each returns a new vector of the same kind.

All of them are built on :func:`remap`, which rewrites every stack and sums the values of
stacks that become equal, so totals are kept unless a transform drops stacks on purpose
(:func:`select`, :func:`rebase`).
"""

from __future__ import annotations

from .python_frames import IDLE_FRAME as IDLE_FRAME  # re-exported: flamespace.core.IDLE_FRAME
from .tree import Tree
from ..errors import ArgumentError
from .vector import StackVector

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is not imported at run time (start-up: `flamespace filter`)
    from typing import Callable, TypeVar
    from re import Pattern
    from collections.abc import Iterable

    from .._types import FrameMap, Number, Regex, Stack

    V = TypeVar("V", bound=StackVector)

#: Named frame equivalences for :func:`strip` and ``flamespace filter --strip``.
STRIP_PRESETS: dict[str, tuple[str, str]] = {
    # "f (file.py:12)" -> "f (file.py)", "file.c:12" -> "file.c": line numbers move when code changes
    "lines": (r":\d+(\)?)$", r"\1"),
    # perf's symbol offsets: "do_syscall_64+0x5b" -> "do_syscall_64"
    "offsets": (r"\+0x[0-9a-fA-F]+$", ""),
    # raw addresses, as difffolded.pl -s does: "0x7f3a12" -> "0x..."
    "hex": (r"0x[0-9a-fA-F]+", "0x..."),
    # annotation suffixes of perf/Java stacks: "_[k]" kernel, "_[j]" JIT, "_[i]" inlined, "_[w]" waker
    "annotations": (r"_\[[kjiw]\]$", ""),
}


def remap(graph: V, rewrite: Callable[[Stack], Stack | None]) -> V:
    """Apply ``rewrite`` to every stack (None drops it); values of equal results are summed."""
    values: dict[Stack, Number] = {}
    get = values.get
    for stack, value in graph.items():
        new = rewrite(stack)
        if new is not None:
            values[new] = get(new, 0) + value
    return type(graph)._trusted({s: v for s, v in values.items() if v}, graph.metadata)


def _compile(pattern: Regex) -> Pattern[str]:
    import re  # here: `flamespace top` uses this module without a pattern (start-up)

    try:
        return re.compile(pattern) if isinstance(pattern, str) else pattern
    except re.error as exc:
        raise ArgumentError(f"invalid regular expression {pattern!r}: {exc}") from None


def _frame_test(pattern: Regex) -> Callable[[str], bool]:
    """A cached 'does this frame match' test: frames repeat across stacks."""
    search = _compile(pattern).search
    cache: dict[str, bool] = {}

    def test(frame: str) -> bool:
        hit = cache.get(frame)
        if hit is None:
            hit = cache[frame] = search(frame) is not None
        return hit

    return test


def select(graph: V, include: Regex | None = None, exclude: Regex | None = None) -> V:
    """Keep the stacks with a frame matching ``include`` and none matching ``exclude``.

    Patterns are regular expressions searched in each frame (like grep on a folded file,
    but a pattern never matches across the ``;`` between frames).
    """
    wanted = _frame_test(include) if include is not None else None
    unwanted = _frame_test(exclude) if exclude is not None else None

    def keep(stack: Stack) -> Stack | None:
        if wanted is not None and not any(map(wanted, stack)):
            return None
        if unwanted is not None and any(map(unwanted, stack)):
            return None
        return stack

    return remap(graph, keep)


def rebase(graph: V, frames: str | Iterable[str]) -> V:
    """Re-root at a frame: keep stacks through one of ``frames``, cut everything above it.

    Names match exactly. The outermost occurrence is the new root, so recursive calls of
    the base frame stay visible (inferno's ``--base`` cuts at the innermost one).
    """
    return remap(graph, base_cutter(frames))


def base_cutter(frames: str | Iterable[str]) -> Callable[[Stack], Stack | None]:
    """The stack rewrite of :func:`rebase`: from the outermost base frame on, or None."""
    bases = {frames} if isinstance(frames, str) else set(frames)

    def cut(stack: Stack) -> Stack | None:
        for index, frame in enumerate(stack):
            if frame in bases:
                return stack[index:]
        return None

    return cut


def _frame_rewriter(mapping: FrameMap) -> Callable[[str], str]:
    if callable(mapping):
        return mapping
    rules = [(_compile(pattern), replacement) for pattern, replacement in mapping]

    def apply(frame: str) -> str:
        for regex, replacement in rules:
            frame = regex.sub(replacement, frame)
        return frame

    return apply


def map_frames(graph: V, mapping: FrameMap) -> V:
    """Rename frames through ``mapping`` (a function or (regex, replacement) rules in order).

    Stacks that become equal are merged, so renamed or moved code compares equal. A frame
    mapped to the empty string is removed from its stack.
    """
    return remap(graph, stack_renamer(mapping))


def stack_renamer(mapping: FrameMap) -> Callable[[Stack], Stack]:
    """The stack each stack becomes when its frames are renamed as :func:`map_frames` renames them
    (each frame's new name computed once): for samples of runs renamed alike (``compare --map``)."""
    rewrite = _frame_rewriter(mapping)
    cache: dict[str, str] = {}

    def renamed(frame: str) -> str:
        new = cache.get(frame)
        if new is None:
            new = cache[frame] = rewrite(frame)
        return new

    def rename(stack: Stack) -> Stack:
        return tuple(f for f in map(renamed, stack) if f)

    return rename


def strip(graph: V, *presets: str) -> V:
    """Apply named equivalences from :data:`STRIP_PRESETS` (``lines``, ``hex``, ...)."""
    unknown = [p for p in presets if p not in STRIP_PRESETS]
    if unknown:
        raise ArgumentError(f"unknown strip preset {unknown[0]!r}; choose from {', '.join(STRIP_PRESETS)}")
    return map_frames(graph, [STRIP_PRESETS[p] for p in presets])


def fold_library(graph: V) -> V:
    """Fold standard-library and installed-package frames into the nearest frame the program wrote
    (:mod:`flamespace.core.library`: the rule the HTML viewer's presets share); the total is kept."""
    from .library import own_stack

    return remap(graph, own_stack)


def fold_recursion(graph: V) -> V:
    """Collapse direct recursion: consecutive repeats of a frame become one (a;b;b;c -> a;b;c)."""

    def fold(stack: Stack) -> Stack:
        folded = [f for i, f in enumerate(stack) if i == 0 or f != stack[i - 1]]
        return tuple(folded) if len(folded) != len(stack) else stack

    return remap(graph, fold)


def reverse(graph: V) -> V:
    """Reverse every stack (leaf first): merged from the leaf, it shows the callers of hot code."""
    return remap(graph, lambda stack: stack[::-1])


def limit_depth(graph: V, max_depth: int) -> V:
    """Cut stacks after ``max_depth`` frames; deeper samples count for their ancestor."""
    if max_depth < 0:
        raise ArgumentError(f"the maximum depth must be >= 0, not {max_depth}")
    return remap(graph, lambda stack: stack[:max_depth])


def prefix(graph: V, *frames: str) -> V:
    """Add ``frames`` above every stack's root (an application or host name)."""
    return remap(graph, lambda stack: frames + stack)


def prune(graph: V, min_share: float, reference: StackVector | None = None) -> V:
    """Fold frames whose inclusive value is below ``min_share`` of the total into their parent.

    The parent keeps the pruned time as self time, so the total is unchanged. ``reference``
    (default: ``graph``) is the vector whose tree decides what is small; pass the sum of two
    sides to prune both sides of a comparison the same way.
    """
    if not 0 <= min_share <= 1:
        raise ArgumentError(f"the minimum share must be between 0 and 1, not {min_share}")
    tree = Tree.from_graph(reference if reference is not None else graph)
    threshold = min_share * abs(tree.root.value)

    def cut(stack: Stack) -> Stack:
        node = tree.root
        for depth, frame in enumerate(stack):
            child = node.children.get(frame)
            if child is None or abs(child.value) < threshold:
                return stack[:depth]
            node = child
        return stack

    return remap(graph, cut)


#: The name Python gives the main thread, which :func:`one_thread` also takes as ``main``.
MAIN_THREAD = "MainThread"
#: The metadata label that says what the first frames of each stack are, outermost first
#: (``thread``, ``process,thread``): recordings with --threads or --subprocesses set it.
ROOTS_LABEL = "roots"


def root_kinds(graph: StackVector) -> tuple[str, ...]:
    """What the first frames of ``graph``'s stacks are (its ``roots`` label), e.g. ``("thread",)``."""
    label = graph.metadata.labels.get(ROOTS_LABEL, "")
    return tuple(kind.strip() for kind in label.split(",") if kind.strip())


def summed_threads(graph: StackVector) -> int:
    """How many threads' time a time profile sums (its ``threads`` label), when more than one:
    its total is not the run's length then, since a waiting thread counts in full in wall mode
    (0 otherwise)."""
    from .units import TIME_UNITS

    try:
        threads = int(graph.metadata.labels.get("threads", "0"))
    except ValueError:
        return 0
    return threads if threads > 1 and graph.metadata.unit in TIME_UNITS else 0


def one_thread(graph: V, name: str) -> V:
    """The stacks of one thread, its root frame taken off: what pyinstrument shows first.

    Threads are root frames (a recording's ``--threads``; under process frames with
    ``roots: process,thread``). ``name`` is the thread's name; ``main`` is also the main thread
    (``MainThread``). The result's labels say which thread (``thread``) and that it holds one
    (``threads: 1``). A name that no stack has is an error naming the threads there are (or,
    when the stacks start with no thread frames, how to record them)."""
    kinds = root_kinds(graph)
    depth = kinds.index("thread") if "thread" in kinds else 0
    firsts: dict[str, Number] = {}
    for stack, value in graph.items():
        if len(stack) > depth:
            firsts[stack[depth]] = firsts.get(stack[depth], 0) + value
    wanted = name if name in firsts or name != "main" else MAIN_THREAD
    if wanted not in firsts:
        raise ArgumentError(_no_thread(name, firsts, "thread" in kinds))

    def keep(stack: Stack) -> Stack | None:
        return stack[:depth] + stack[depth + 1 :] if len(stack) > depth and stack[depth] == wanted else None

    picked = remap(graph, keep)
    labels = {**graph.metadata.labels, "thread": wanted, "threads": "1"}
    if "thread" in kinds:
        rest = [kind for kind in kinds if kind != "thread"]
        labels.pop(ROOTS_LABEL)
        if rest:
            labels[ROOTS_LABEL] = ",".join(rest)
    return type(picked)._trusted(dict(picked.items()), picked.metadata.replace(labels=labels))


def _no_thread(name: str, firsts: dict[str, Number], threaded: bool) -> str:
    """Why --thread NAME picks nothing: the threads there are, or that the stacks start with no thread."""
    total = sum(firsts.values()) or 1
    widest = sorted(firsts, key=lambda first: (-firsts[first], first))
    shown = ", ".join(f"{first} ({100 * firsts[first] / total:.0f}%)" for first in widest[:6])
    more = f" and {len(widest) - 6} more" if len(widest) > 6 else ""
    if threaded:
        return f"no thread named {name!r}; the threads are {shown}{more}"
    return (
        f"no thread named {name!r} among the stacks' first frames ({shown}{more}); "
        f"record with --threads to start each stack with its thread's name"
    )
