"""A gate's reports: report.md (for a pull-request comment), report.txt and report.json, each
the comparison's report under a header that says how the gate ran, and the delta pictures."""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing costs start-up time; annotations are strings (PEP 563)
if TYPE_CHECKING:
    from .gate import GateResult, GateRun

#: The text report's width in report.txt (a terminal's own width is the caller's business).
TEXT_WIDTH = 200


def write_reports(result: GateResult, include_all: bool, limit: int | None) -> None:
    """The parts, delta graphs and the three reports of one gate into its ``out_dir``, all appearing
    together: never this gate's report.md beside an earlier gate's report.json (a full disk)."""
    import json

    from ..formats import open_output, outputs_together
    from ..render.comparison_files import write_comparison
    from ..stats import report

    comparison, out_dir = result.comparison, result.out_dir
    with outputs_together():
        write_comparison(comparison, out_dir, samples=result.samples)
        with open_output(os.path.join(out_dir, "report.md")) as file:
            file.write(markdown_header(result.run, comparison.regressed) + report.markdown(comparison, include_all, limit))
        with open_output(os.path.join(out_dir, "report.txt")) as file:
            file.write(text_header(result.run) + report.text(comparison, include_all, limit, TEXT_WIDTH))
        with open_output(os.path.join(out_dir, "report.json")) as file:
            json.dump({**report.as_dict(comparison), "gate": result.run.as_dict()}, file, indent=2)
            file.write("\n")


def _how(run: GateRun) -> str:
    """The command, the runs and how the sides ran, in a sentence (Markdown: the command in backticks)."""
    if run.base.stored:
        how = "installed into a virtualenv" if run.installed else "run from its tree (PYTHONPATH)"
        return (
            f"`{run.command}`, {run.base.runs} stored + {run.head.runs} new runs (after "
            f"{run.warmup} warm-up), {how}; {round(run.seconds, 1)} s"
        )
    how = "each installed into its own virtualenv" if run.installed else "each run from its tree (PYTHONPATH)"
    return (
        f"`{run.command}`, {run.base.runs} + {run.head.runs} runs (after {run.warmup} warm-up "
        f"each), alternating, {how}; {round(run.seconds, 1)} s"
    )


def markdown_header(run: GateRun, regressed: bool) -> str:
    """report.md's header: the verdict, the sides, how the gate ran, the whole run's time."""
    verdict = "❌ **regression**" if regressed else "✅ **no regression**"
    return (
        f"## flamespace gate: {verdict}\n\n"
        f"Base: {run.base.description}; head: {run.head.description}.  \n"
        f"{_how(run)}.{_run_time(run, '  ')}\n\n"
    )


def text_header(run: GateRun) -> str:
    """report.txt's header (and the terminal's): the sides, how the gate ran, the whole run's time."""
    plain = _how(run).replace("`", "")
    return f"Gate: base {run.base.description} against head {run.head.description}.\n{plain}.{_run_time(run)}\n\n"


def _run_time(run: GateRun, line_break: str = "") -> str:
    """The whole run's time change as a line of the header (nothing when the runs carry no time)."""
    if run.run_time is None:
        return ""
    from ..stats.report import run_time_line

    line = run_time_line(run.run_time)
    return f"{line_break}\n{line}" if line else ""
