"""IPython and Jupyter: ``%load_ext flamespace``, then ``%flamespace`` (a line) and ``%%flamespace``
(a cell) profile code and show the viewer under it; ``%flamespace_compare A B`` shows two saved
profiles side by side (docs/notebooks.md).

Needs IPython (``pip install 'flamespace[notebook]'``); nothing imports this module but
``flamespace.load_ipython_extension``. The code runs in the notebook's namespace, as the cell
would; its frames are named ``<cell N>`` (N: the cell's execution count), and the notebook's own
frames above them are cut off. The output is the viewer in an iframe (``render/notebook.py``) and
the short tree as its text, so a notebook saved without its HTML still says where time went.
"""

from __future__ import annotations

import linecache

from ._record import Record, record
from .errors import ArgumentError, FlamespaceError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any
    from collections.abc import Sequence

    from .core.vector import FlameGraph

#: The magics' options, in --help order.
USAGE = """\
%flamespace [options] STATEMENT      profile one line
%%flamespace [options]               profile the cell

  --trace            trace every call (exact counts and times) instead of sampling
  --mode MODE        wall (default), cpu, alloc or live
  --rate HZ          samples per second (default 100; wall and cpu)
  --memory           bytes allocated in the code (the same as --mode alloc)
  --thread NAME      the tree shows this thread ('all': every thread; default: the main thread
                     when the others only waited)
  --min-share SHARE  fold calls below this share into their caller in the tree (default 2%)
  --show-all         keep library frames in the tree
  --save NAME        keep the profile (a FlameGraph) in the variable NAME, e.g. for %flamespace_compare
  --text             show the tree only (no viewer)
"""


@record
class MagicOptions(Record):
    """What one ``%flamespace`` line says (see :data:`USAGE`)."""

    trace: bool = False
    mode: str = "wall"
    rate: float = 100.0
    thread: str | None = None
    min_share: float | None = None
    show_all: bool = False
    save: str | None = None
    text: bool = False


def parse_options(line: str) -> tuple[MagicOptions, str]:
    """The options of a magic's line (at its start) and the rest of it (``%flamespace``'s statement, as typed)."""
    from .collect.memory import MEMORY_MODES
    from .collect.sampler import MODES as SAMPLING_MODES

    takes = {"--mode": "mode", "--rate": "rate", "--thread": "thread", "--min-share": "min_share", "--save": "save"}
    flags = {"--trace": "trace", "--show-all": "show_all", "--text": "text"}
    values: dict[str, Any] = {}
    rest = line.strip()
    while rest.startswith("--"):
        word, _, rest = rest.partition(" ")
        rest = rest.lstrip()
        name, equals, given = word.partition("=")
        if name == "--":
            break
        if name in flags and not equals:
            values[flags[name]] = True
        elif name == "--memory" and not equals:
            values["mode"] = "alloc"
        elif name in takes:
            if not equals:
                given, _, rest = rest.partition(" ")
                rest = rest.lstrip()
                if not given:
                    raise ArgumentError(f"{name} needs a value")
            values[takes[name]] = _converted(name, given)
        else:
            raise ArgumentError(f"unknown option {name!r} (%flamespace? lists them)")
    options = MagicOptions(**values)
    modes = (*SAMPLING_MODES, *MEMORY_MODES)
    if options.mode not in modes:
        raise ArgumentError(f"--mode is one of {', '.join(modes)}, not {options.mode!r}")
    if options.trace and ("mode" in values or "rate" in values):
        raise ArgumentError("--trace records every call: --mode, --rate and --memory are for sampling")
    return options, rest


def _converted(name: str, text: str) -> Any:
    if name == "--rate":
        try:
            return float(text)
        except ValueError:
            raise ArgumentError(f"--rate takes a number of samples per second, not {text!r}") from None
    if name == "--min-share":
        raw = text.strip()
        try:
            return float(raw[:-1]) / 100 if raw.endswith("%") else float(raw)
        except ValueError:
            raise ArgumentError(f"--min-share takes a share such as 2% or 0.02, not {text!r}") from None
    return text


def run_profiled(code: str, namespace: dict[str, Any], options: MagicOptions, name: str) -> tuple[FlameGraph, list[str]]:
    """Run ``code`` in ``namespace`` under the profiler (or the tracer) ``options`` ask for: the
    profile of the code alone (its frames, file ``name``, and below; the caller's frames cut off)
    and the reasons to distrust it (too few samples, the sampler fell behind)."""
    compiled = compile(code, name, "exec")
    lines = code.splitlines(keepends=True)
    linecache.cache[name] = (len(code), None, lines, name)  # tracebacks show the cell's lines
    if options.trace:
        from .collect.tracer import trace

        with trace() as tracer:
            exec(compiled, namespace)
        graph, problems = tracer.graph(), tracer.problems
    else:
        from .collect.api import profile
        from .collect.sampler import MODES as SAMPLING

        settings: dict[str, Any] = {}
        if options.mode in SAMPLING:  # each thread under its name, and who only waited: the tree's thread choice
            settings.update(rate=options.rate, threads=True, idle=options.mode == "wall")
        with profile(mode=options.mode, **settings) as profiler:
            exec(compiled, namespace)
        graph, problems = profiler.graph, profiler.problems
    return from_cell(graph, name), problems


def from_cell(graph: FlameGraph, name: str) -> FlameGraph:
    """Each stack from its first frame of the cell ``name`` on (the notebook's frames above it are
    cut; a thread root frame is kept); stacks without one (other threads) stay whole."""
    from .core.transforms import remap, root_kinds

    marker = f" ({name}:"
    keep = 1 if "thread" in root_kinds(graph) else 0

    def cut(stack: tuple[str, ...]) -> tuple[str, ...]:
        for index, frame in enumerate(stack):
            if marker in frame:
                return stack[:keep] + stack[index:] if index > keep else stack
        return stack

    return remap(graph, cut)


def show(graph: FlameGraph, options: MagicOptions, problems: Sequence[str] = ()) -> None:
    """Display ``graph`` under the cell: the viewer (HTML) and the short tree (text), after the
    reasons to distrust it (``problems``)."""
    from IPython.display import display

    from .render.notebook import html_of, text_of

    tree = {"show_all": options.show_all, "thread": options.thread or "auto"}
    if options.min_share is not None:
        tree["min_share"] = options.min_share
    text = text_of(graph, **tree)
    bundle = {"text/plain": "".join(f"warning: {problem}\n" for problem in problems) + text}
    if not options.text:
        page = html_of(graph)
        if page is not None:
            bundle["text/html"] = page
    display(bundle, raw=True)


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext flamespace``: register the magics with ``ipython``."""
    from IPython.core.error import UsageError
    from IPython.core.magic import Magics, line_cell_magic, line_magic, magics_class

    @magics_class
    class FlamespaceMagics(Magics):
        @line_cell_magic
        def flamespace(self, line: str, cell: str | None = None) -> None:
            """Profile a line (%flamespace STATEMENT) or a cell (%%flamespace) and show the viewer."""
            try:
                options, statement = parse_options(line)
            except ArgumentError as exc:
                raise UsageError(f"%flamespace: {exc}") from None
            code = cell if cell is not None else statement
            if not code.strip():
                raise UsageError(f"%flamespace: no code to profile\n{USAGE}")
            shell = self.shell
            assert shell is not None  # registered magics have their shell
            code = shell.transform_cell(code)  # IPython syntax (magics, !commands) to Python
            name = f"<cell {shell.execution_count}>"
            graph, problems = run_profiled(code, shell.user_ns, options, name)
            if options.save:
                shell.user_ns[options.save] = graph
            show(graph, options, problems)

        @line_magic
        def flamespace_compare(self, line: str) -> None:
            """%flamespace_compare A B: the profiles saved as A and B (--save) on one comparison page."""
            names = line.split()
            shell = self.shell
            assert shell is not None  # registered magics have their shell
            if len(names) != 2:
                raise UsageError("%flamespace_compare A B: the names of two profiles saved with %%flamespace --save NAME")
            missing = [name for name in names if name not in shell.user_ns]
            if missing:
                raise UsageError(
                    f"%flamespace_compare: no variable {missing[0]!r} (save a profile with %%flamespace --save NAME)"
                )
            try:
                display_comparison([shell.user_ns[name] for name in names], names)
            except FlamespaceError as exc:
                raise UsageError(f"%flamespace_compare: {exc}") from None

    ipython.register_magics(FlamespaceMagics)


def display_comparison(graphs: Sequence[FlameGraph], labels: Sequence[str]) -> None:
    """Two profiles on the comparison page (A left, B right, B − A below), with their totals as text."""
    from IPython.display import display

    from .core.units import human
    from .core.vector import FlameGraph
    from .render.compare_page import comparison_html
    from .render.notebook import iframe

    for graph, label in zip(graphs, labels):
        if not isinstance(graph, FlameGraph):
            raise ArgumentError(f"{label} is a {type(graph).__name__}, not a profile (a FlameGraph)")
    page = comparison_html(list(graphs), list(labels)) or ""
    totals = ", ".join(f"{label}: {human(graph.total(), graph.metadata.unit or None)}" for graph, label in zip(graphs, labels))
    display({"text/plain": f"{' → '.join(labels)} ({totals})", "text/html": iframe(page)}, raw=True)


__all__ = ["USAGE", "MagicOptions", "display_comparison", "from_cell", "load_ipython_extension", "parse_options", "run_profiled"]
