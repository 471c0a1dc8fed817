"""What the subcommands share: reading inputs, writing outputs, reporting, number formatting."""

from __future__ import annotations

import os
import sys

from ..core.differential import Differential
from ..diagnostics import Diagnostics
from ..errors import InputError
from ..formats import registry
from ._options import Option
from ._report import BadParameter, UsageError, report, warn

TYPE_CHECKING = False  # typing costs start-up time (flamespace svg); annotations are strings (PEP 563)
if TYPE_CHECKING:
    from typing import TypeVar
    from collections.abc import Iterable, Iterator, Sequence

    from .._types import Drawable, Number, Profile
    from ..core.vector import FlameGraph

    D = TypeVar("D", bound="Drawable")
    T = TypeVar("T")

#: --skip-invalid and --from, for every command that reads profiles.
INPUT_OPTIONS = (
    Option(
        ("--skip-invalid",),
        "skip_invalid",
        "flag",
        help="Skip malformed lines and report how many on stderr, instead of failing.",
    ),
    Option(
        ("--from",),
        "input_format",
        "choice",
        choices=tuple(registry.names()),
        help="Input format (default: detected from the content, then the file name).",
    ),
)


#: --thread NAME: what the pages, top and text show of a profile recorded with --threads.
THREAD_OPTION = Option(
    ("--thread",),
    "thread",
    "str",
    None,
    metavar="NAME",
    help="Show one thread: the stacks under the root frame of that name (a recording with --threads), "
    "without it; 'main' is also MainThread.",
)


def pick_thread(profile: D, name: str | None, source: str) -> D:
    """``--thread NAME``: the one thread of ``profile`` (both sides of a differential one); a name no
    stack starts with is an input error naming ``source`` and the threads there are."""
    if name is None:
        return profile
    from ..core.chart import FlameChart
    from ..core.transforms import one_thread
    from ..errors import ArgumentError

    if isinstance(profile, FlameChart):
        raise InputError(
            "--thread shows one thread of a flame graph; a flame chart draws each thread in a lane of its "
            "own (leave out --flamechart or --thread)",
            source,
        )
    try:
        if isinstance(profile, Differential):
            return profile.map(lambda side: one_thread(side, name))  # type: ignore[return-value]
        return one_thread(profile, name)
    except ArgumentError as exc:
        raise InputError(str(exc), source) from None


def folded_library(profile: D, fold: bool) -> D:
    """``--fold-library``: library frames folded into the program's (core/library.py; both sides of a
    differential profile); ``profile`` itself without it."""
    if not fold:
        return profile
    from ..core.transforms import fold_library

    if isinstance(profile, Differential):
        return profile.map(fold_library)  # type: ignore[return-value]
    return fold_library(profile)  # type: ignore[type-var]  # a flame graph; read_graph and pick_thread refuse charts


def picked_thread(
    profile: Drawable, colour: FlameGraph | None, name: str | None, files: Sequence[str]
) -> tuple[Drawable, FlameGraph | None]:
    """:func:`pick_thread` of a page's profile and of the second metric that colours it (--colour-by)."""
    source = ", ".join(files) or "<stdin>"
    return pick_thread(profile, name, source), pick_thread(colour, name, source) if colour is not None else None


def shown_thread(profile: Drawable) -> str | None:
    """The thread ``--thread`` kept (None: every thread is shown)."""
    graph = profile.after if isinstance(profile, Differential) else profile
    metadata = getattr(graph, "metadata", None)
    return metadata.labels.get("thread") if metadata is not None else None


def recorded_roots(profile: Drawable) -> tuple[str, ...]:
    """What a recording says its first frames are (its ``roots`` label: ``thread``, ``process,thread``),
    for the HTML page's picker; nothing when it says nothing (or something the page has no picker for)."""
    from ..core.transforms import root_kinds
    from ..core.vector import StackVector
    from ..render.html import ROOT_KINDS

    graph = profile.after if isinstance(profile, Differential) else profile
    kinds = root_kinds(graph) if isinstance(graph, StackVector) else ()
    return kinds if all(kind in ROOT_KINDS for kind in kinds) else ()


def thread_subtitle(subtitle: str, profile: Drawable) -> str:
    """A page's second title line saying which thread ``--thread`` kept (``subtitle`` as it is otherwise)."""
    thread = shown_thread(profile)
    if not thread:
        return subtitle
    return f"{subtitle} \u00b7 thread {thread} only" if subtitle else f"Thread {thread} only"


def checked_output(value: str | None) -> str | None:
    """The callback of -o: an output that cannot be written fails before any input is read."""
    from ..formats import check_output

    check_output(value)
    return value


#: -o FILE and --no-header, for every command that writes a profile (an output that cannot be
#: written fails before any input is read).
OUTPUT_OPTIONS = (
    Option(
        ("-o", "--output"),
        "output",
        "path",
        "-",
        "Where to write the result.",
        show_default="stdout",
        allow_dash=True,
        callback=checked_output,
    ),
    Option(
        ("--no-header",),
        "no_header",
        "flag",
        help="Do not write '# key: value' metadata lines (for tools that would read them as stacks).",
    ),
)


def expand_inputs(paths: Sequence[str]) -> list[str]:
    """Paths as given, each directory replaced by the profiles in it (name order), saying what was left out."""
    expanded: list[str] = []
    for path in paths or ["-"]:
        if path != "-" and os.path.isdir(path):
            expanded.extend(_directory_profiles(path))
        else:
            expanded.append(path)
    if expanded.count("-") > 1:
        raise UsageError("stdin ('-') can be read only once")
    return expanded


def _directory_profiles(path: str) -> list[str]:
    """The profile files of directory ``path`` in name order; what else it holds is named on stderr.

    Only regular files are opened (to recognise their format): a FIFO, socket or device in the
    directory is skipped and said so, never read (a FIFO would block the command)."""
    files, subdirectories, specials = _directory_entries(path)
    if subdirectories:  # not read: a directory of runs is flat, and a nested one is likely another sample
        warn(
            f"flamespace: skipped {len(subdirectories)} subdirector{'y' if len(subdirectories) == 1 else 'ies'}"
            f" in {path} (directories are not read recursively): {_first_names([n + '/' for n in subdirectories])}"
        )
    if specials:
        what = "entry in {} that is not a regular file" if len(specials) == 1 else "entries in {} that are not regular files"
        warn(
            f"flamespace: skipped {len(specials)} {what.format(path)} (FIFO, socket, device or broken link): {_first_names(specials)}"
        )
    profiles: list[str] = []
    others: list[str] = []
    for name in files:
        file = os.path.join(path, name)
        (profiles if registry.recognises(file) else others).append(file)
    if not profiles:
        raise InputError("the directory holds no profile files", path)
    others = [os.path.basename(f) for f in others]
    if others:
        warn(f"flamespace: skipped {len(others)} file(s) in {path} that are not profiles: {_first_names(others)}")
    return profiles


def _directory_entries(path: str) -> tuple[list[str], list[str], list[str]]:
    """The names in ``path`` (hidden ones left out), in name order: (regular files, directories, the rest).
    Symbolic links count as what they point to; one that points nowhere is among the rest."""
    import stat

    files: list[str] = []
    subdirectories: list[str] = []
    specials: list[str] = []
    for name in sorted(n for n in os.listdir(path) if not n.startswith(".")):
        try:
            mode = os.stat(os.path.join(path, name)).st_mode
        except OSError:
            mode = 0
        (files if stat.S_ISREG(mode) else subdirectories if stat.S_ISDIR(mode) else specials).append(name)
    return files, subdirectories, specials


def _first_names(names: Sequence[str], shown: int = 5) -> str:
    """The first ``shown`` names, then "..." if there are more: a warning stays one line."""
    return ", ".join(names[:shown]) + (", ..." if len(names) > shown else "")


def read_input(
    path: str,
    skip_invalid: bool = False,
    input_format: str | None = None,
    stack_cache: dict | None = None,
) -> Drawable:
    """Read one input as it is, reporting skipped lines on stderr: a store selector is the merged
    profile it names, an input that keeps time order a FlameChart."""
    if path.startswith("store:"):
        from ._store import read_selected

        return read_selected(path)
    diagnostics = Diagnostics()
    profile = registry.read(path, input_format, skip_invalid=skip_invalid, diagnostics=diagnostics, stack_cache=stack_cache)
    report(diagnostics)
    return profile


def read_profile(
    path: str,
    skip_invalid: bool = False,
    input_format: str | None = None,
    stack_cache: dict | None = None,
) -> Profile:
    """:func:`read_input`, an input that keeps time order (a FlameChart) summed into its flame graph."""
    from ..core.chart import FlameChart

    profile = read_input(path, skip_invalid, input_format, stack_cache)
    return profile.graph() if isinstance(profile, FlameChart) else profile


def read_graph(
    path: str, command: str, skip_invalid: bool = False, input_format: str | None = None, stack_cache: dict | None = None
) -> FlameGraph:
    """Read one input that must be a single profile, not a differential pair."""
    profile = read_profile(path, skip_invalid, input_format, stack_cache)
    if isinstance(profile, Differential):
        raise differential_input(path, command)
    return profile


def differential_input(path: str, command: str) -> InputError:
    """The error for two-count input given to a command that needs one count per line."""
    return InputError(
        f"is differential input (two counts per line); '{command}' needs a profile with one count per line",
        registry.display_name(path),
    )


def read_graphs(files: Sequence[str], command: str, skip_invalid: bool, input_format: str | None) -> Iterator[FlameGraph]:
    """Read inputs one at a time (so a sum holds one input in memory at once), with progress."""
    stack_cache: dict = {}
    for path in progress(files, "reading", len(files)):
        yield read_graph(path, command, skip_invalid, input_format, stack_cache)


#: The endings that name folded output without importing every format to ask (the rest: the registry's).
FOLDED_ENDINGS = {"folded": (".folded", ".collapsed", ".fold")}


def output_format(output: str, command: str, differential: bool = False) -> str:
    """The format -o's name asks for: any writable format of the registry (folded without an ending a
    format claims); differential output (two counts a line) only as folded. Called before the inputs
    are read, so a name the command cannot write fails first."""
    from ._output_format import choose

    return choose(output, None, command, ["folded"] if differential else _writable, FOLDED_ENDINGS)


def _writable() -> list[str]:
    """Every format that writes plain profiles, folded first (imports every format module to know)."""
    return ["folded", *(name for name in registry.writable_names() if name not in ("folded", "folded-diff"))]


def write_profile(profile: Profile, output: str, no_header: bool, fmt: str, *, command: str) -> None:
    """Write ``profile`` in ``fmt`` (what :func:`output_format` chose before the input was read); a
    differential profile, known only once read, only as folded (the error says so)."""
    from ..core.differential import Differential

    if isinstance(profile, Differential) and fmt != "folded":
        output_format(output, command, differential=True)  # raises: what differential output can be
    sys.stdout.flush()
    registry.write(profile, output, fmt, **header_setting(fmt, no_header))


def refuse_terminal(output: str, what: str, example: str) -> None:
    """A picture or page sent to a terminal is a screenful of markup: refuse it, saying how to save it."""
    if output == "-" and sys.stdout is not None and sys.stdout.isatty():
        from ..errors import ArgumentError

        raise ArgumentError(f"not writing {what} to the terminal: give -o FILE (e.g. -o {example}) or redirect the output")


def header_setting(output_format: str, no_header: bool) -> dict[str, bool]:
    """``header=`` for the writer of ``output_format`` if it writes '# key: value' lines (--no-header), else nothing."""
    return {"header": not no_header} if "header" in registry.write_options(output_format) else {}


def progress(items: Iterable[T], label: str, count: int) -> Iterable[T]:
    """A progress bar on stderr for long work, only when stderr is a terminal."""
    if count < 20 or not sys.stderr.isatty():
        return items
    from ._progress import track

    return track(items, label, count)


def parse_share(text: str, option: str = "--min-share", maximum: float | None = 1.0) -> float:
    """'0.01' or '1%' -> 0.01; at least 0 and at most ``maximum`` (None: no upper bound).
    A bad value is a BadParameter naming ``option``."""
    raw = text.strip()
    try:
        share = float(raw[:-1]) / 100 if raw.endswith("%") else float(raw)
    except ValueError:
        raise BadParameter(f"{text!r} is not a share such as 0.01 or 1%", param_hint=f"'{option}'") from None
    if not (0 <= share < float("inf") and (maximum is None or share <= maximum)):
        bound = f"between 0 and {maximum:g} ({100 * maximum:g}%)" if maximum is not None else "a finite number >= 0"
        raise BadParameter(f"{text!r} is not {bound}", param_hint=f"'{option}'")
    return share


def summed_threads(graph: FlameGraph) -> int:
    """:func:`flamespace.core.transforms.summed_threads` (imported when asked)."""
    from ..core.transforms import summed_threads as summed

    return summed(graph)


def format_value(value: Number) -> str:
    """A count for people: thousands separators, at most 6 significant digits for fractions."""
    if isinstance(value, int) or float(value).is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    return f"{value:,.6g}" if abs(value) >= 1e-4 else f"{value:.3e}"


def format_share(part: Number, whole: Number) -> str:
    return f"{100.0 * part / whole:.2f}%" if whole else "-"


def echo(text: str) -> None:
    """One line on stdout."""
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def echo_json(data: object) -> None:
    import json

    echo(json.dumps(data, indent=2, sort_keys=False))
