"""The gate: does this change make the program slower? Two git refs, interleaved runs, one answer.

:func:`gate` makes a temporary worktree of each side (:mod:`.workspace`), installs each into a
virtualenv of its own or runs the trees as they are (:mod:`.environments`), collects
interleaved runs of the same command from both, compares them (:func:`.samples.compare_sides`)
and writes the reports (:mod:`.gate_report`). It prints nothing: what it does is said through
``say``, and the result is a :class:`GateResult`.

    import flamespace as fs
    result = fs.gate("origin/main", ["bench/workload.py"], runs=20)
    result.regressed, result.comparison.kept, result.out_dir
"""

from __future__ import annotations

import os
import time

from .._record import Record, record
from ..errors import FlamespaceError
from . import GATE_OUT_DIR, GATE_WARMUP
from .workspace import GateError, GateStopped, Side

TYPE_CHECKING = False  # typing costs start-up time; annotations are strings (PEP 563)
if TYPE_CHECKING:
    from typing import Callable, Union
    from collections.abc import Sequence

    from ..collect import Collection, MemoryOptions, Run, SamplerOptions, Target
    from ..diagnostics import Diagnostics
    from ..stats.comparison import CompareOptions, Comparison
    from ..stats.guards import Finding, RunTimeChange
    from ..stats.matrix import Sample
    from .samples import Track

    Recorder = Union[SamplerOptions, MemoryOptions]

__all__ = ["DEFAULT_OUT_DIR", "DEFAULT_WARMUP", "GateError", "GateResult", "GateRun", "GateSide", "GateStopped", "gate"]

DEFAULT_OUT_DIR, DEFAULT_WARMUP = GATE_OUT_DIR, GATE_WARMUP  # (declared in the package: gate --help's start-up)
#: Rows of the reports' tables (None: all).
DEFAULT_LIMIT = 30


@record
class GateSide(Record):
    """One side of a gate as its reports name it."""

    ref: str  # as the caller gave it, or "working tree"
    commit: str | None  # None for stored runs
    description: str  # e.g. "main (1a2b3c4d5e)"
    runs: int  # runs compared
    stored: bool = False  # the stored runs a store: selector names (the baseline only)


@record
class GateRun(Record):
    """How a gate ran: the sides, the command, how many runs of each, at what rate, how long.
    :meth:`as_dict` is report.json's ``gate`` object."""

    base: GateSide
    head: GateSide
    command: str
    warmup: int
    rate: float | None  # Hz (None: a memory mode)
    installed: bool  # each side into a virtualenv of its own, else run from its tree
    seconds: float
    run_time: RunTimeChange | None = None  # the whole run's time change (None: the runs carry no time)

    def as_dict(self) -> dict[str, object]:
        """The JSON form, as report.json has it."""
        from ..stats.report import run_time_dict, run_time_line

        base, head = self.base, self.head
        return {
            "base": {"ref": base.ref, "commit": base.commit, **({"stored": True} if base.stored else {})},
            "head": {"ref": head.ref, "commit": head.commit},
            "command": self.command,
            "runs": {"baseline": base.runs, "candidate": head.runs},
            "warmup": self.warmup,
            "rate": self.rate,
            "installed": self.installed,
            "seconds": round(self.seconds, 1),
            "descriptions": {"base": base.description, "head": head.description},
            "run_time": None if self.run_time is None else run_time_dict(self.run_time),
            "run_time_line": None if self.run_time is None else run_time_line(self.run_time),
        }


@record
class GateResult(Record):
    """What a gate found: the comparison of the two sides' runs, the samples as tested, how it
    ran, and where its reports are (report.md, report.json, report.txt, delta.svg, runs/)."""

    comparison: Comparison
    samples: dict[str, Sample]
    run: GateRun
    out_dir: str
    collection: Collection

    @property
    def regressed(self) -> bool:
        """Whether a stack significantly appeared or grew (beyond the margin): the gate fails."""
        return self.comparison.regressed


def gate(
    base: str,
    command: Sequence[str],
    *,
    runs: int,
    head: str | None = None,
    repo: str = ".",
    out_dir: str = DEFAULT_OUT_DIR,
    warmup: int = DEFAULT_WARMUP,
    install: bool = True,
    recorder: Recorder | None = None,
    choose_rate: bool = True,
    options: CompareOptions | None = None,
    pairing: str = "auto",
    force: bool = False,
    max_missed: float | None = None,
    cluster: str | None = None,
    keep: bool = False,
    keep_going: bool = False,
    subprocesses: bool = False,
    show_output: bool = False,
    store: bool = False,
    include_all: bool = False,
    limit: int | None = DEFAULT_LIMIT,
    say: Callable[[str], None] | None = None,
    track: Track | None = None,
    on_diagnostics: Callable[[Diagnostics], None] | None = None,
) -> GateResult:
    """Gate a change: run ``command`` from two git refs, interleaved, and compare the runs.

    Makes a temporary worktree of ``base`` and of ``head`` (None: the working tree as it is:
    HEAD with its uncommitted changes and untracked files that are not ignored) of the git
    repository ``repo`` is in, installs each into a virtualenv of its own (pip install TREE;
    not with ``install=False``, nor when a tree has no pyproject.toml or setup.py: the trees
    then run as they are, on PYTHONPATH), runs ``command`` (the words after ``python``, paths
    relative to the repository's root) ``runs`` times from each tree after ``warmup`` runs,
    alternating, and compares the two samples of runs with ``options`` (default:
    :data:`~flamespace.stats.comparison.GATE_DEFAULTS`, one-sided: regressions only).
    ``base`` may be ``store:SELECTOR``: the baseline is those stored runs, only the head runs.

    ``recorder`` records each run (default: :class:`~flamespace.collect.SamplerOptions` with
    ``lines=False``: frames named by function and file, as line numbers move between versions); with
    ``choose_rate`` a sampler's rate is a stored baseline's, else one that gives each run about
    :data:`~flamespace.collect.AIMED_SAMPLES` samples, from the warm-up runs. ``pairing``,
    ``force``, ``max_missed`` and ``cluster`` are :func:`.samples.compare_sides`'s; ``keep``
    keeps the worktrees and virtualenvs; ``keep_going``, ``subprocesses`` and ``show_output``
    are :func:`~flamespace.collect.collect_runs`'s; ``store`` adds the runs to the store.

    Writes OUT_DIR/report.md, report.json, report.txt (tables of ``limit`` rows, every tested
    stack with ``include_all``), the delta flame graphs and the runs (runs/baseline/,
    runs/candidate/). What it does, the guard rails' findings included, is said through
    ``say`` (a line each); what readers skipped goes to ``on_diagnostics``; ``track`` wraps
    the runs as they are read (a progress bar). Everything temporary is removed on every way
    out; SIGTERM (in the main thread) and a stop signal during the runs leave through that
    clean-up as :class:`GateStopped` (its ``exit_code``: 128 + the signal). Raises :class:`GateError` when the gate cannot
    be set up or run (not a git repository, unknown ref, install failed, too few good runs)
    and :class:`~flamespace.errors.InputError` when the runs cannot be compared.
    """
    from ..collect import SamplerOptions
    from ..formats import check_output_dir
    from ..stats.comparison import GATE_DEFAULTS
    from . import environments
    from .gate_report import write_reports
    from .workspace import Workspace, side_at, toplevel, working_tree

    tell: Callable[[str], None] = say if say is not None else _quiet
    options = GATE_DEFAULTS if options is None else options
    recorder = SamplerOptions(lines=False) if recorder is None else recorder
    words = list(command)
    if not words:
        raise GateError("nothing to run: give the command to gate, e.g. ['bench/workload.py']")
    check_output_dir(out_dir)  # before any checkout, install or run
    stored = base.startswith("store:")  # the baseline is stored runs: only the head runs
    if stored:  # a selector that matches nothing (or a missing store) stops the gate before it runs anything
        from ..store import open_store

        open_store().snapshot().select(base)
    settings, choice = _rate_choice(recorder, choose_rate, base if stored else None, tell)
    if choice is not None and warmup < 1:
        tell("1 warm-up run a side after all, to time the benchmark and choose the rate (--rate skips it)")
        warmup = 1
    root = toplevel(repo)
    started = time.monotonic()
    with Workspace(root, keep, tell) as workspace:
        baseline = Side("baseline", base, "", f"the stored runs {base}") if stored else side_at("baseline", base, root)
        sides = [
            baseline,
            side_at("candidate", head, root) if head is not None else working_tree("candidate", root, workspace, out_dir),
        ]
        if stored:
            tell(f"baseline: {baseline.description}")
            sides = sides[1:]
        for side in sides:
            tell(f"{side.name}: {side.description}")
            side.tree = workspace.checkout(side)
        targets = [_target(words, side) for side in sides]  # a missing script is found before installing
        installing = install and environments.installable(sides)
        for side in sides:
            if installing:
                environments.install(side, workspace, out_dir, tell)
            else:
                environments.run_as_is(side)
        targets = [target.replace(interpreter=side.python) for side, target in zip(sides, targets)]
        collection = _collect_runs(
            sides,
            targets,
            runs,
            warmup,
            settings,
            out_dir,
            tell,
            choice,
            keep_going=keep_going,
            subprocesses=subprocesses,
            show_output=show_output,
        )
    compared = _compare_runs(
        collection,
        options,
        base if stored else None,
        pairing,
        tell,
        force=force,
        max_missed=max_missed,
        cluster=cluster,
        track=track,
        on_diagnostics=on_diagnostics,
    )
    if store:  # after the comparison: a store: baseline must not take the runs just made
        from .stored import gate_labels, store_collection

        tell(store_collection(collection, gate_labels(sides, root), on_diagnostics).describe())
    rate = getattr(choice.settings if choice is not None else settings, "rate", None)  # (memory modes have none)
    counts = {
        **({"baseline": len(compared.samples["baseline"].names)} if stored else {}),
        **{p.name: len(collection.profiles(p)) for p in collection.programs},
    }
    head_side = sides[-1]
    ran = GateRun(
        GateSide(baseline.ref, baseline.commit or None, baseline.description, counts["baseline"], stored),
        GateSide(head_side.ref, head_side.commit, head_side.description, counts["candidate"]),
        targets[0].describe(),
        warmup,
        rate,
        installing,
        time.monotonic() - started,
        compared.run_time,
    )
    result = GateResult(compared.comparison, compared.samples, ran, out_dir, collection)
    write_reports(result, include_all, limit)
    return result


def _quiet(message: str) -> None:
    """``say`` when the caller listens to nothing."""


def _target(words: list[str], side: Side) -> Target:
    """The command as it runs in ``side``'s tree (its script looked up there; same grammar as record)."""
    from ..collect import parse_command

    try:
        target = parse_command(words, directory=side.tree)
    except FlamespaceError as exc:
        if str(exc).startswith("no such script"):
            raise GateError(
                f"{words[0]}: no such file at the {side.name}'s {side.description} (paths in the "
                "command are relative to the repository's root)"
            ) from None
        raise
    return target


def _rate_choice(
    settings: Recorder,
    choose: bool,
    stored: str | None,
    say: Callable[[str], None],
) -> tuple[Recorder, RateChoice | None]:
    """The settings to record with, and the choice of the rate to make from the warm-up runs
    (None: the rate is the caller's, a memory mode has no rate, or a stored baseline's rate is taken)."""
    from ..collect import SamplerOptions

    if not choose or not isinstance(settings, SamplerOptions):
        return settings, None
    rate = _stored_rate(stored) if stored else None
    if rate is not None:
        say(f"rate: {rate:,g} Hz, the stored baseline's, so that both sides are sampled alike (--rate sets it)")
        return settings.replace(rate=rate), None
    if stored:
        say(
            "the stored baseline's runs do not share one recorded rate (rate_requested): the rate is chosen from the warm-up runs"
        )
    return settings, RateChoice(settings, say)


def _stored_rate(selector: str) -> float | None:
    """The rate the stored runs ``selector`` names were all recorded at (their rate_requested), else None."""
    from ..store import open_store

    snapshot = open_store().snapshot()
    rates = {row["labels"].get("rate_requested") for row in snapshot.profiles(snapshot.select(selector))}
    try:
        return float(rates.pop()) if len(rates) == 1 else None
    except (TypeError, ValueError):  # no such label, or not a number
        return None


class RateChoice:
    """The gate's sampling rate when the caller chose none: one that gives each run about
    AIMED_SAMPLES samples, worked out from the warm-up runs (recorded at ``settings``' rate,
    the default), never below that rate nor above the sampler's highest; said through ``say``.
    Called by collect_runs once the warm-up runs are done."""

    def __init__(self, settings: SamplerOptions, say: Callable[[str], None]) -> None:
        self.settings, self.say = settings, say

    def __call__(self, warmups: list[Run]) -> SamplerOptions:
        from ..collect import AIMED_SAMPLES, MAX_RATE, round_rate

        default = self.settings.rate
        timed = [run.quality for run in warmups if run.ok and run.quality is not None]
        needs = [q.rate_for(AIMED_SAMPLES) for q in timed]
        if not timed or any(need is None for need in needs):
            self.say(f"rate: {default:g} Hz (the default): the warm-up runs recorded nothing to time them by")
            return self.settings
        need = max(n for n in needs if n is not None)  # the shortest run's
        shortest = min(timed, key=lambda q: q.duration_ns)
        rate = min(max(round_rate(need), default), MAX_RATE)
        why = (
            f"so that each run gets about {AIMED_SAMPLES} samples"
            if rate < MAX_RATE
            else f"the highest, and still only about {rate / need * AIMED_SAMPLES:.0f} samples a run: make the benchmark longer"
        )
        if rate == default:
            why = f"the default: it gives each run {AIMED_SAMPLES} samples or more"
        self.say(
            f"rate: {rate:,g} Hz, {why} (the shortest warm-up run recorded {shortest.duration_ns / 1e9:.3g} s "
            f"and {shortest.samples} samples at {default:g} Hz; --rate sets it)"
        )
        self.settings = self.settings.replace(rate=rate)
        return self.settings


def _collect_runs(
    sides: list[Side],
    targets: list[Target],
    runs: int,
    warmup: int,
    settings: Recorder,
    out_dir: str,
    say: Callable[[str], None],
    choice: RateChoice | None = None,
    *,
    keep_going: bool,
    subprocesses: bool,
    show_output: bool,
) -> Collection:
    """The sides' runs, interleaved, under OUT_DIR/runs/; progress, failed and untrusted runs said."""
    from ..collect import Program, collect_runs

    # frames named from the tree's root, as the command's paths are (bench/workload.py, not workload.py)
    programs = [Program(target, side.name, side.env, cwd=side.tree, frame_root=side.tree) for side, target in zip(sides, targets)]
    total = len(programs) * (runs + warmup)
    how = ", alternating" if len(programs) > 1 else ""
    say(f"running {targets[0].describe()}: {runs} runs a side after {warmup} warm-up{how}")
    counter = _Counter(total, say)
    result = collect_runs(
        programs,
        runs,
        os.path.join(out_dir, "runs"),
        settings,
        warmup=warmup,
        keep_going=keep_going,
        subprocesses=subprocesses,
        show_output=show_output,
        overwrite=True,
        on_run=counter,
        measured_options=choice,
    )
    if result.interrupted is not None:  # the run in progress has been stopped: leave through the cleanup
        raise GateStopped(result.interrupted)
    if result.failed:
        say(f"warning: {result.describe_failures()}")
    if result.untrusted:
        first = result.untrusted[0]
        measured = sum(not run.warmup for run in result.runs)
        say(
            f"warning: {len(result.untrusted)} of {measured} runs should not be trusted, e.g. {first.describe()}: "
            f"{first.problems[0]} (see the '# ' headers of the runs' files)"
        )
    short = [p.name for p in result.programs if len(result.profiles(p)) < 2]
    if short:
        raise GateError(f"too few good runs to compare on the {' and '.join(short)} side (2 or more needed)")
    return result


class _Counter:
    """Progress: a line every tenth of the runs (at least every 5), so CI logs stay short."""

    def __init__(self, total: int, say: Callable[[str], None]) -> None:
        self.total, self.say, self.done = total, say, 0
        self.step = max(5, -(-total // 10))
        self.started = time.monotonic()

    def __call__(self, run: Run) -> None:
        self.done += 1
        if self.done % self.step == 0 or self.done == self.total:
            self.say(f"{self.done}/{self.total} runs ({time.monotonic() - self.started:.0f} s)")


@record
class _Compared(Record):
    comparison: Comparison
    samples: dict[str, Sample]
    run_time: RunTimeChange | None


def _compare_runs(
    collection: Collection,
    options: CompareOptions,
    stored: str | None,
    pairing: str,
    say: Callable[[str], None],
    *,
    force: bool,
    max_missed: float | None,
    cluster: str | None,
    track: Track | None,
    on_diagnostics: Callable[[Diagnostics], None] | None,
) -> _Compared:
    """The two sides' runs through compare's guard rails and statistics (findings said), and the
    change of the whole run's time; the baseline's are the runs the selector ``stored`` names when given."""
    from ..stats.guards import run_time_change
    from ..stats.report import single_level
    from .samples import compare_sides

    def findings(found: list[Finding]) -> None:
        for finding in found:
            say(f"{finding.level}: {finding.message}")

    sides = {**({"baseline": [stored]} if stored else {}), **{p.name: collection.profiles(p) for p in collection.programs}}
    compared = compare_sides(
        sides,
        options,
        pairing=pairing,
        on_findings=findings,
        force=force,
        max_missed=max_missed,
        cluster=cluster,
        track=track,
        on_diagnostics=on_diagnostics,
    )
    run_time = run_time_change(compared.screening.kept, single_level(compared.comparison), compared.options.paired)
    return _Compared(compared.comparison, compared.samples, run_time)
