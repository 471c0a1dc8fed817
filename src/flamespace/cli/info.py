"""flamespace info: what a profile holds."""

from __future__ import annotations

from ._common import INPUT_OPTIONS, echo, echo_json, format_value, read_profile
from ._options import Argument, Command, Option

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..core.vector import FlameGraph


def describe(graph: FlameGraph) -> dict[str, object]:
    """Size and shape of a profile: the numbers 'flamespace info' prints."""
    frames: set[str] = set()
    max_depth = 0
    weighted_depth = 0.0
    for stack, value in graph.items():
        frames.update(stack)
        max_depth = max(max_depth, len(stack))
        weighted_depth += len(stack) * value
    total = graph.total()
    return {
        "unit": graph.unit,
        "metric": graph.metric,
        "norm": graph.norm(),
        "stacks": len(graph),
        "frames": len(frames),
        "max_depth": max_depth,
        "mean_depth": round(weighted_depth / total, 2) if total else 0,
        "metadata": dict(graph.labels),
    }


def _print(title: str | None, facts: dict[str, object]) -> None:
    if title:
        echo(f"{title}:")
    indent = "  " if title else ""
    for key, value in facts.items():
        if key == "metadata" and isinstance(value, dict):
            for name, text in value.items():
                echo(f"{indent}# {name}: {text}")
        elif value is not None:
            shown = format_value(value) if isinstance(value, (int, float)) and key != "mean_depth" else value
            echo(f"{indent}{key.replace('_', ' ')}: {shown}")


def run(input: str, as_json: bool, skip_invalid: bool, input_format: str | None) -> None:
    """Summarise INPUT (default stdin): norm (total), stacks, distinct frames, depth, unit, metadata.

    \b
    Examples:
        flamespace info profile.folded
        flamespace info --json run.speedscope.json
    """
    from ..core.differential import Differential

    profile = read_profile(input, skip_invalid, input_format)
    if isinstance(profile, Differential):
        sides = {"before": describe(profile.before), "after": describe(profile.after)}
        if as_json:
            echo_json({"differential": True, **sides})
        else:
            for side, side_facts in sides.items():
                _print(side, side_facts)
        return
    facts = describe(profile)
    if as_json:
        echo_json(facts)
    else:
        _print(None, facts)


SPEC = Command(
    "info",
    run,
    [Argument("input", default="-")],
    [
        Option(("--json",), "as_json", "flag", help="Print JSON."),
        *INPUT_OPTIONS,
    ],
)
