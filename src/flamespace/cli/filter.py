"""flamespace filter: select, rename, re-root and trim stacks."""

from __future__ import annotations

import re

from ..core import transforms
from ._common import INPUT_OPTIONS, OUTPUT_OPTIONS, output_format, parse_share, read_profile, write_profile
from ._options import Argument, Command, Option

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable
    from collections.abc import Sequence

    from ..core.vector import FlameGraph

_UNESCAPED_EQUALS = re.compile(r"(?<!\\)=")


def parse_map_rule(text: str) -> tuple[str, str]:
    """'RE=REPL' -> (RE, REPL); the first '=' not preceded by a backslash separates them."""
    from ._report import BadParameter

    match = _UNESCAPED_EQUALS.search(text)
    if match is None:
        raise BadParameter(f"{text!r} is not of the form 'REGEX=REPLACEMENT'", param_hint="'--map'")
    pattern, replacement = text[: match.start()], text[match.end() :]
    try:
        re.compile(pattern)
    except re.error as exc:
        raise BadParameter(f"invalid regular expression {pattern!r}: {exc}", param_hint="'--map'") from None
    return pattern, replacement


def _any_of(patterns: Sequence[str], option: str) -> str | None:
    for pattern in patterns:
        try:
            re.compile(pattern)
        except re.error as exc:
            from ._report import BadParameter

            raise BadParameter(f"invalid regular expression {pattern!r}: {exc}", param_hint=f"'{option}'") from None
    return "|".join(f"(?:{p})" for p in patterns) if patterns else None


def build_pipeline(
    grep: Sequence[str] = (),
    exclude: Sequence[str] = (),
    base: Sequence[str] = (),
    map_rules: Sequence[tuple[str, str]] = (),
    strip: Sequence[str] = (),
    fold_recursion: bool = False,
    reverse: bool = False,
    max_depth: int | None = None,
    prefix: Sequence[str] = (),
) -> list[Callable[[FlameGraph], FlameGraph]]:
    """The transforms in the order documented in ``flamespace filter --help``."""
    steps: list[Callable[[FlameGraph], FlameGraph]] = []
    rules = [transforms.STRIP_PRESETS[name] for name in strip] + list(map_rules)
    if rules:
        steps.append(lambda g: transforms.map_frames(g, rules))
    if fold_recursion:
        steps.append(transforms.fold_recursion)
    include, drop = _any_of(grep, "--grep"), _any_of(exclude, "--exclude")
    if include or drop:
        steps.append(lambda g: transforms.select(g, include, drop))
    if base:
        steps.append(lambda g: transforms.rebase(g, base))
    if reverse:
        steps.append(transforms.reverse)
    if max_depth is not None:
        steps.append(lambda g: transforms.limit_depth(g, max_depth))
    if prefix:
        steps.append(lambda g: transforms.prefix(g, *prefix))
    return steps


def run(
    input: str,
    grep: Sequence[str],
    exclude: Sequence[str],
    base: Sequence[str],
    map_rules: Sequence[str],
    strip: Sequence[str],
    fold_recursion: bool,
    reverse: bool,
    max_depth: int | None,
    prefix: Sequence[str],
    min_share: str | None,
    skip_invalid: bool,
    input_format: str | None,
    output: str,
    no_header: bool,
) -> None:
    """Transform the stacks of INPUT (default stdin).

    Steps run in this order: --strip and --map, --fold-recursion, --grep and --exclude,
    --base, --reverse, --max-depth, --prefix, --min-share. Stacks that become equal are
    merged. Differential input is transformed on both sides alike.

    \b
    Examples:
        flamespace filter --grep 'json' --exclude '^_bootstrap' profile.folded
        flamespace filter --strip lines --fold-recursion profile.folded
        flamespace filter --base 'handle_request (app.py:40)' --min-share 0.5% profile.folded
    """
    share = parse_share(min_share) if min_share is not None else None
    steps = build_pipeline(
        grep,
        exclude,
        base,
        [parse_map_rule(rule) for rule in map_rules],
        strip,
        fold_recursion,
        reverse,
        max_depth,
        prefix,
    )

    def apply(graph: FlameGraph) -> FlameGraph:
        for step in steps:
            graph = step(graph)
        return graph

    from ..core.differential import Differential

    fmt = output_format(output, "filter")  # a name filter cannot write fails before the input is read
    profile = read_profile(input, skip_invalid, input_format)
    if isinstance(profile, Differential):
        profile = profile.map(apply)
        if share is not None:
            both = profile.before + profile.after
            profile = profile.map(lambda g: transforms.prune(g, share, reference=both))
    else:
        profile = apply(profile)
        if share is not None:
            profile = transforms.prune(profile, share)
    write_profile(profile, output, no_header, fmt, command="filter")


SPEC = Command(
    "filter",
    run,
    [Argument("input", default="-")],
    [
        Option(("--grep",), "grep", "multiple", metavar="RE", help="Keep stacks with a frame matching RE (repeat: any of them)."),
        Option(("--exclude",), "exclude", "multiple", metavar="RE", help="Drop stacks with a frame matching RE (repeatable)."),
        Option(
            ("--base",),
            "base",
            "multiple",
            metavar="FRAME",
            help="Re-root at FRAME (exact name; repeatable): keep stacks through it, cut its callers.",
        ),
        Option(
            ("--map",),
            "map_rules",
            "multiple",
            metavar="RE=REPL",
            help="Rename frames by regex (Python re.sub; \\1 for groups; repeatable, in order). An empty result removes the frame.",
        ),
        Option(
            ("--strip",),
            "strip",
            "multiple",
            choices=tuple(transforms.STRIP_PRESETS),
            help="Named renamings: lines (line numbers), offsets (+0x1f), hex (0x...), annotations (_[k]).",
        ),
        Option(("--fold-recursion",), "fold_recursion", "flag", help="Collapse direct recursion: a;b;b;b;c -> a;b;c."),
        Option(
            ("--reverse",), "reverse", "flag", help="Reverse stacks (leaf first): merged from the leaf, shows who calls hot code."
        ),
        Option(
            ("--max-depth",),
            "max_depth",
            "int",
            minimum=0,
            metavar="N",
            help="Cut stacks after N frames; deeper time counts for the frame at depth N.",
        ),
        Option(
            ("--prefix",),
            "prefix",
            "multiple",
            metavar="FRAME",
            help="Add FRAME as a new root above every stack (e.g. the application name).",
        ),
        Option(
            ("--min-share",),
            "min_share",
            metavar="X",
            help="Fold frames below a share of the total (0.01 or 1%) into their parent; totals are kept.",
        ),
        *INPUT_OPTIONS,
        *OUTPUT_OPTIONS,
    ],
)
