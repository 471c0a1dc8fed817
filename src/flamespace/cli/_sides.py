"""The samples of runs of compare, gate, plan and similarity --sample as the command line gives
them: the guard rails' options, the sides' patterns expanded, what the library found said on
stderr. Reading, screening and comparing them is :mod:`flamespace.workflows.samples`'s."""

from __future__ import annotations

import os

from ..errors import InputError
from ._common import expand_inputs, parse_share
from ._options import Option
from ._report import warn

TYPE_CHECKING = False  # typing costs start-up time (compare --help); annotations are strings (PEP 563)
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from ..stats.guards import Finding
    from ..stats.matrix import Sample

#: --force and --max-missed, for every command that compares samples of runs.
GUARD_OPTIONS = (
    Option(
        ("--force",), "force", "flag", help="Compare runs that differ in mode or program anyway (a warning instead of a refusal)."
    ),
    Option(
        ("--max-missed",),
        "max_missed",
        metavar="X",
        help="Leave out runs whose sampler missed more than X of its samples (10% or 0.1; the missed_share header). "
        "Default: keep them, naming those beyond the recorder's own warning threshold.",
    ),
)


def expand_side(patterns: Sequence[str]) -> list[str]:
    """Files, directories (their profiles) and quoted globs -> the list of run files."""
    paths: list[str] = []
    for pattern in patterns:
        if pattern == "-":
            raise InputError("a sample of runs is read from files (one per run), not from stdin", "-")
        if not os.path.exists(pattern) and _has_magic(pattern):
            import glob

            matches = sorted(glob.glob(pattern))
            if not matches:
                raise InputError("no file matches this pattern", pattern)
            paths.extend(matches)
        else:
            paths.append(pattern)
    return expand_inputs(paths)


def expand_sides(sides: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    """Each side's patterns expanded (:func:`expand_side`)."""
    return {side: expand_side(patterns) for side, patterns in sides.items()}


def _has_magic(pattern: str) -> bool:
    """glob.has_magic without importing glob (and re, fnmatch) for plain paths: start-up."""
    return any(c in pattern for c in "*?[")


def parse_max_missed(text: str | None) -> float | None:
    """--max-missed's value: None (off) or a share."""
    return None if text is None else parse_share(text, "--max-missed")


def show_findings(findings: Sequence[Finding], command: str) -> None:
    """Each finding as one line on stderr: ``flamespace COMMAND: warning: ...``."""
    for finding in findings:
        warn(f"flamespace {command}: {finding.level}: {finding.message}")


def read_samples(
    sides: dict[str, Sequence[str]], command: str, skip_invalid: bool, input_format: str | None, cluster: str | None = None
) -> dict[str, Sample]:
    """One :class:`Sample` per side, through the guard rails; exploring commands (similarity)
    go on where compare would refuse, with a warning."""
    from ..workflows.samples import load_sides
    from ._common import progress
    from ._report import report

    samples, screening = load_sides(
        expand_sides(sides),
        force=True,
        skip_invalid=skip_invalid,
        input_format=input_format,
        min_runs_per_side=1,
        cluster=cluster,
        track=progress,
        on_diagnostics=report,
    )
    show_findings(screening.findings, command)
    return samples
