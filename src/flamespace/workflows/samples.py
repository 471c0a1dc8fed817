"""Samples of runs (one profile file per run, or stored runs) read, screened and compared:
what compare, gate, plan and similarity --sample share.

:func:`load_sides` reads every side, leaves out unusable runs and checks that the rest can be
compared (the guard rails of :mod:`flamespace.stats.guards`); :func:`compare_sides` goes on to
pair the runs of interleaved rounds and compare the sides. Nothing here prints: what a reader
skipped and what the guard rails found go to the caller's callbacks.
"""

from __future__ import annotations

import os
import sys

from .._record import Record, record
from ..errors import InputError

TYPE_CHECKING = False  # typing costs start-up time (compare --help); annotations are strings (PEP 563)
if TYPE_CHECKING:
    from typing import Callable, TypeVar
    from collections.abc import Iterable, Mapping, Sequence

    from .._types import Number, Stack
    from ..core.metadata import Metadata
    from ..diagnostics import Diagnostics
    from ..formats.folded import ColumnReader
    from ..stats.comparison import CompareOptions, Comparison
    from ..stats.matrix import RunRows
    from ..stats.guards import Finding, Screening
    from ..stats.matrix import Sample

    T = TypeVar("T")
    #: Wraps the runs as they are read (a progress bar): (items, label, count) -> the same items.
    Track = Callable[[Iterable[T], str, int], Iterable[T]]


def missed_share(metadata: Metadata) -> float | None:
    """The share of its ticks a run's sampler missed (:meth:`Quality.missed_share
    <flamespace.collect.Quality.missed_share>`, the one definition): the recorder's
    ``missed_share`` header, or for runs recorded before it existed, computed from their
    ``ticks`` and ``missed``; None when the run has neither (another profiler's file)."""
    from ..collect import Quality

    labels = metadata.labels
    try:
        if "missed_share" in labels:
            return float(labels["missed_share"])
        quality = Quality()
        quality.ticks, quality.missed = int(labels["ticks"]), int(labels["missed"])
        return quality.missed_share()
    except (KeyError, ValueError):
        return None


def load_sides(
    sides: Mapping[str, Sequence[str]],
    *,
    force: bool = False,
    max_missed: float | None = None,
    skip_invalid: bool = False,
    input_format: str | None = None,
    min_runs_per_side: int | None = None,
    options: CompareOptions | None = None,
    cluster: str | None = None,
    rename: Callable[[Stack], Stack] | None = None,
    track: Track | None = None,
    on_diagnostics: Callable[[Diagnostics], None] | None = None,
    store: str | None = None,
) -> tuple[dict[str, Sample], Screening]:
    """Read each side's runs (profile files, or ``store:`` selectors) into a :class:`Sample`,
    with the guard rails of :func:`flamespace.stats.guards.screen`: empty runs and runs beyond
    ``max_missed`` left out, runs that cannot be compared refused (unless ``force``), fewer
    than ``min_runs_per_side`` runs a side (default: 2) an error.

    Each run is read as stack texts straight into the rows of the runs × stacks matrix (no
    flame graph per run); frames are split once per distinct stack. With ``options`` (the
    comparison to run), a method limit that the stacks read so far already break (Hotelling's
    p < n1 + n2 − 1) stops the reading there. A ``store:`` selector among a side's patterns
    stands for the stored runs it names, read by one aggregate of the store (on the Dask
    scheduler ``cluster`` names, or $DASK_SCHEDULER_ADDRESS, else in this process). ``rename``
    renames the stacks of both sides (``compare --map``) before they are compared. ``track``
    wraps the runs as they are read (a progress bar); ``on_diagnostics`` is handed what each
    reader skipped or warned of (a run's, the store's), as it is read: without it, that is not
    reported (nothing is skipped unless ``skip_invalid``). ``store``: the store selectors read
    (default: $FLAMESPACE_STORE, else .flamespace/store).

    Raises :class:`InputError` (exit 1) on what must stop the comparison; returns the samples
    and the screening, whose ``findings`` the caller shows and whose ``run_times`` feed
    :func:`after_comparison` once the comparison is done."""
    import_numpy()
    from ..collect import MAX_TRUSTED_MISSED_SHARE, program_name
    from ..stats.guards import MIN_RUNS, RunInfo, screen, is_late
    from ..core.stacks import StackTable
    from ..stats.matrix import RunRows, Sample

    from .stored import stored_runs

    files = {side: list(paths) for side, paths in sides.items()}
    stored = stored_runs(files, cluster, on_diagnostics, store)  # store: selectors -> their runs, read by one query
    everything = [(side, path) for side, paths in files.items() for path in paths]
    rows = RunRows()
    row_of: dict[str, int] = {}
    metadata: dict[str, Metadata] = {}
    infos: dict[str, list] = {side: [] for side in sides}
    limit = _early_limit(options, len(everything))
    left_out = 0
    reader = _column_reader(rows)
    for side, path in (track or _as_is)(everything, "reading runs", len(everything)):
        columns, values, meta = (
            stored[path] if path in stored else _read_run(path, skip_invalid, input_format, reader, on_diagnostics)
        )
        numbers: list[Number] = list(values.values()) if isinstance(values, dict) else values
        total = float(sum(numbers))
        info = RunInfo(path, side, meta, total, not any(numbers), missed_share(meta), program_name(meta.labels.get("command")))
        kept = not info.empty and not is_late(info, max_missed)
        left_out += not kept
        group = side if kept and limit else None
        row_of[path] = rows.add(values, group) if columns is None else rows.add_columns(columns, numbers, group)  # type: ignore[arg-type]
        metadata[path] = meta
        infos[side].append(info)
        if limit and kept:
            limit(rows, len(everything) - left_out)
    screening = screen(
        infos,
        force=force,
        max_missed=max_missed,
        warn_missed=MAX_TRUSTED_MISSED_SHARE,
        min_runs=MIN_RUNS if min_runs_per_side is None else min_runs_per_side,
    )
    fatal = screening.fatal
    if fatal:
        raise InputError("\n  ".join(f.message for f in fatal))
    table = StackTable({})  # the sides' stacks: one split for a stack both reach, their order computed once
    samples = {
        side: Sample.from_rows(
            rows,
            [row_of[run.name] for run in runs],
            table,
            names=[run.name for run in runs],
            metadata=[metadata[run.name] for run in runs],
        )
        for side, runs in screening.kept.items()
    }
    if rename is not None:
        samples = {side: sample.renamed(rename) for side, sample in samples.items()}
    if "baseline" in samples and "candidate" in samples:
        from ..stats.guards import overlap

        shared = overlap(_stack_totals(samples["baseline"]), _stack_totals(samples["candidate"]))
        if shared is not None:
            screening.findings.append(shared)
    return samples, screening


def _stack_totals(sample: Sample) -> dict[str, float]:
    """Each stack's value summed over the sample's runs, by stack text."""
    from ..stats.matrix import TextStacks

    texts = sample.stacks.texts if isinstance(sample.stacks, TextStacks) else [";".join(s) for s in sample.stacks]
    return dict(zip(texts, sample.matrix.sum(axis=0).tolist()))


#: What OpenBLAS reads for its number of threads (numpy's wheels), the user's choice when set.
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")


def import_numpy() -> None:
    """numpy imported with OpenBLAS on one thread, unless the user chose a number (BLAS_THREADS).

    When it loads, OpenBLAS starts a thread per core, and they spin waiting for work: about
    50 ms of CPU time at 2 cores, more on bigger machines, a tenth of a whole ``compare``. The
    statistics do no matrix product worth a thread (maxt's loop is our C; docs/performance.md).
    The variable is set only while numpy loads, so that programs the CLI starts (``gate``'s
    benchmarks) see the environment they were given."""
    if "numpy" in sys.modules:
        return
    if any(name in os.environ for name in BLAS_THREADS):
        import numpy  # noqa: F401

        return
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    try:
        import numpy  # noqa: F401,F811
    finally:
        del os.environ["OPENBLAS_NUM_THREADS"]


def _column_reader(rows: RunRows) -> ColumnReader | None:
    """The reader of folded runs straight into ``rows``' columns (None without the C core)."""
    from ..formats import folded

    return folded.ColumnReader(rows.index) if folded._core is not None else None


def _read_run(
    path: str,
    skip_invalid: bool,
    input_format: str | None,
    reader: ColumnReader | None = None,
    on_diagnostics: Callable[[Diagnostics], None] | None = None,
) -> tuple[bytes | None, dict[str, Number] | list[Number], Metadata]:
    """One run as (columns, values, metadata), skipped lines handed to ``on_diagnostics``: a folded file
    through ``reader`` (columns as intp bytes, values a list), else (None, {stack text: value}, ...)."""
    from ..diagnostics import Diagnostics
    from ..formats import folded, recognition, registry
    from ..formats._io import open_binary

    if reader is not None:
        diagnostics = Diagnostics()
        try:
            with open_binary(path) as (stream, name):
                head = stream.peek(recognition.SNIFF_BYTES)[: recognition.SNIFF_BYTES]
                fmt = registry.by_name(input_format) if input_format else registry.detect(head, name)
                if fmt is folded:
                    columns, numbers, meta = reader.read(
                        stream, folded.ReadOptions(skip_invalid=skip_invalid), source=name, diagnostics=diagnostics
                    )
                    _hand(diagnostics, on_diagnostics)
                    return columns, numbers, meta
        except folded.Inexact:  # read it as parse_texts does: the same values and errors
            pass
    diagnostics = Diagnostics()
    graph = registry.read_graph(path, input_format, skip_invalid=skip_invalid, diagnostics=diagnostics)
    _hand(diagnostics, on_diagnostics)
    return None, folded.texts(graph), graph.metadata  # a folded run's own texts: no join


def _hand(diagnostics: Diagnostics, on_diagnostics: Callable[[Diagnostics], None] | None) -> None:
    """``diagnostics`` to the caller's callback, when there is one."""
    if on_diagnostics is not None:
        on_diagnostics(diagnostics)


def _as_is(items: Iterable[T], label: str, count: int) -> Iterable[T]:
    """No progress shown: the items as they are (:data:`Track`)."""
    return items


def _early_limit(options: CompareOptions | None, files: int) -> Callable[[RunRows, int], None] | None:
    """The check of a method's limit while runs are read (None when the method has none):
    raises as soon as the stacks read so far exceed it for ``runs`` runs at most."""
    from ..stats import methods

    if options is None:
        return None
    check_stacks = methods.stack_check(options.method)
    if check_stacks is None:
        return None

    frequency, by_value = options.frequency, not options.normalize

    def check(rows: RunRows, runs: int) -> None:
        if rows.columns >= runs - 1:  # distinct stacks bound the varying ones
            check_stacks(rows.surely_varying(frequency.threshold(runs), by_value), runs, at_least=True)

    return check


def pair_sides(
    samples: dict[str, Sample], screening: Screening, mode: str, alpha: float, alternative: str, permutations: int
) -> tuple[dict[str, Sample], bool, list[Finding]]:
    """The sides with their runs in round order when they can be tested as pairs
    (:func:`flamespace.stats.guards.pair_runs`), whether they are, and a note saying so or why not."""
    from ..stats.guards import Finding, pair_runs
    from ..stats.power import smallest_p

    kept = screening.kept
    baseline, candidate = kept["baseline"], kept["candidate"]
    pairing = pair_runs(
        baseline,
        candidate,
        mode,
        reaches_alpha=lambda pairs: smallest_p(pairs, pairs, permutations, alternative, paired=True) <= alpha,
    )
    if not pairing.paired:
        interleaved = any(r.pair is not None for r in baseline + candidate)
        used = f"all {len(baseline)} + {len(candidate)} runs"
        note = [Finding("note", f"runs tested as unpaired ({used}): {pairing.reason}")] if interleaved and mode != "off" else []
        return samples, False, note
    rows = list(zip(*pairing.rows))
    paired = {side: samples[side].runs(list(indices)) for side, indices in zip(("baseline", "candidate"), rows)}
    message = f"{len(pairing.rows)} pairs of runs from the same rounds of their collection: drift between rounds cancels"
    return paired, True, [Finding("note", message + (f"; {pairing.reason}" if pairing.reason else ""))]


def after_comparison(screening: Screening, result) -> list[Finding]:
    """The machine's drift as a note, and a warning when it is larger than the largest change
    ``result`` (a :class:`~flamespace.stats.comparison.Comparison`) reports — unless the runs
    were tested as pairs, where drift between rounds cancels and cannot make a change."""
    from ..stats.guards import drift_findings

    unit = None if result.normalized else result.unit
    changes = [] if result.options.get("paired") else [change.delta for change in result.kept]
    return drift_findings(screening.run_times, changes, unit)


def paired(
    options: CompareOptions,
    samples: dict[str, Sample],
    screening: Screening,
    pairing: str,
) -> tuple[CompareOptions, dict[str, Sample], list[Finding]]:
    """``pairing`` (auto, on, off) applied: the options with ``paired`` set and the sides' runs in
    round order when they are tested as pairs (:func:`pair_sides`; only a method that relabels
    runs pairs them unless ``on``), and the note that says so or why not."""
    from ..stats.methods import info

    mode = pairing if info(options.method).permutations or pairing == "on" else "off"
    samples, is_paired, notes = pair_sides(samples, screening, mode, options.alpha, options.alternative, options.permutations)
    return options.replace(paired=is_paired), samples, notes


@record
class ComparedSides(Record):
    """Two samples of runs compared: the result, the samples as tested (in round order when
    paired), the options as run (``paired`` set) and the guard rails' screening."""

    comparison: Comparison
    samples: dict[str, Sample]
    options: CompareOptions
    screening: Screening


def compare_sides(
    sides: Mapping[str, Sequence[str]],
    options: CompareOptions,
    *,
    pairing: str = "auto",
    on_findings: Callable[[list[Finding]], None] | None = None,
    force: bool = False,
    max_missed: float | None = None,
    skip_invalid: bool = False,
    input_format: str | None = None,
    cluster: str | None = None,
    rename: Callable[[Stack], Stack] | None = None,
    track: Track | None = None,
    on_diagnostics: Callable[[Diagnostics], None] | None = None,
    store: str | None = None,
) -> ComparedSides:
    """Read the ``baseline`` and ``candidate`` sides' runs (:func:`load_sides`, which takes the
    other keywords), pair them as ``pairing`` says (:func:`paired`) and compare them.

    ``on_findings`` is handed the guard rails' findings as they come: the screening's, the
    pairing's note, then the machine's drift beside the result (:func:`after_comparison`)."""
    from ..stats.comparison import compare

    def found(findings: list[Finding]) -> None:
        if on_findings is not None:
            on_findings(findings)

    samples, screening = load_sides(
        sides,
        force=force,
        max_missed=max_missed,
        skip_invalid=skip_invalid,
        input_format=input_format,
        options=options,
        cluster=cluster,
        rename=rename,
        track=track,
        on_diagnostics=on_diagnostics,
        store=store,
    )
    found(screening.findings)
    options, samples, notes = paired(options, samples, screening, pairing)
    found(notes)
    result = compare(samples["baseline"], samples["candidate"], options=options)
    found(after_comparison(screening, result))
    return ComparedSides(result, samples, options, screening)
