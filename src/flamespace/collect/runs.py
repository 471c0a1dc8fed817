"""Many runs of one or two programs under the recorder: the samples that ``compare`` tests.

One profile is a noisy estimate; a *sample* of runs lets :func:`flamespace.compare` tell a
change from noise. With two programs (a baseline and a candidate) the runs go in rounds,
each program once per round in a random order (A B, B A, B A, A B, ...), so drift of the
machine (thermal throttling, a backup starting) falls on both alike instead of on whichever
ran last, and each run carries its round (the ``pair`` header) and the collection's id (the
``collection`` header) for a paired test: only the two runs of one round of one collection are a pair.

Layout of ``out_dir``: one program writes ``run-001.folded``, ``run-002.folded``, ... in it;
several write into a subdirectory each, named after the program (``baseline/``,
``candidate/``). Runs are numbered from 1 in the order they ran, with at least three digits
so that name order is run order; warm-up runs and failed runs are not written, so a failed
run leaves a gap in the numbers.
"""

from __future__ import annotations

import glob
import os
import subprocess
import tempfile
import time
from .._record import Record, factory, record
from typing import Any, Callable
from collections.abc import Sequence

from ..errors import ArgumentError, FlamespaceError
from ..formats import registry
from .launcher import Interrupted, RecordError, record_program
from .raw import Quality
from .sampler import SamplerOptions
from .target import Program

#: The exit code of a program stopped by Ctrl-C: the whole collection stops.
INTERRUPTED = 130
#: How much of a failed run's stderr is kept for the error message.
STDERR_TAIL_LINES = 5


class RunFailedError(FlamespaceError):
    """A run's program failed (non-zero exit code, or no profile): the collection stopped."""

    def __init__(self, message: str, run: Run) -> None:
        super().__init__(message)
        self.run = run


@record(frozen=False)
class Run(Record):
    """One finished run. ``number`` counts from 1 per program, warm-up runs apart."""

    program: str
    number: int
    warmup: bool
    exit_code: int
    seconds: float
    path: str | None = None  # the profile written; None for warm-up and failed runs
    problems: list[str] = factory(list)  # reasons not to trust its profile
    quality: Quality | None = None  # the sampler's figures (samples, ticks, time recorded); warm-up runs' too
    error: str = ""  # why it left no profile (killed by a signal, ...)
    stderr: str = ""  # the end of its stderr when it failed (unless its output was shown)

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.error

    def describe(self) -> str:
        """``baseline run 3`` / ``warm-up run 1`` as messages name it."""
        kind = "warm-up run" if self.warmup else "run"
        return f"{self.program} {kind} {self.number}" if self.program else f"{kind} {self.number}"


@record(frozen=False)
class Collection(Record):
    """What :func:`collect_runs` did: every run in the order they ran, where the profiles are."""

    out_dir: str
    programs: list[Program]
    runs: list[Run]
    seconds: float
    #: The signal that stopped the collection (SIGINT, SIGTERM, SIGHUP), or None: the runs
    #: finished before it are kept; the run it cut short is left out.
    interrupted: int | None = None

    def directory(self, program: Program) -> str:
        return program_directory(self.out_dir, program)

    def measured(self, program: Program) -> list[Run]:
        """The runs of ``program`` that count (not warm-up), failed or not."""
        return [r for r in self.runs if r.program == program.name and not r.warmup]

    def profiles(self, program: Program) -> list[str]:
        return [r.path for r in self.measured(program) if r.path is not None]

    @property
    def failed(self) -> list[Run]:
        return [r for r in self.runs if not r.ok]

    @property
    def untrusted(self) -> list[Run]:
        return [r for r in self.runs if r.problems and r.path is not None]

    def describe_failures(self) -> str:
        """The failed runs in a sentence: how many of all, the first few, their exit codes."""
        failed = self.failed
        codes = sorted({r.exit_code for r in failed})
        shown = ", ".join(r.describe() for r in failed[:5]) + (", ..." if len(failed) > 5 else "")
        return (
            f"{len(failed)} of {len(self.runs)} runs failed and were left out ({shown}; exit codes {', '.join(map(str, codes))})"
        )


def collect_runs(
    programs: Sequence[Program],
    runs: int,
    out_dir: str | os.PathLike[str],
    options: SamplerOptions | Any,
    *,
    warmup: int = 0,
    keep_going: bool = False,
    process_root: bool = False,
    subprocesses: bool = False,
    output_format: str = "folded",
    header: bool = True,
    show_output: bool = False,
    overwrite: bool = False,
    on_run: Callable[[Run], None] | None = None,
    measured_options: Callable[[list[Run]], Any] | None = None,
) -> Collection:
    """Run each program ``runs`` times (after ``warmup`` discarded runs each), interleaved,
    and write one profile per run under ``out_dir`` (layout: module docstring).

    A run whose program exits non-zero (or leaves no profile) stops the collection with
    :class:`RunFailedError`; with ``keep_going`` it is left out (no file) and the rest run.
    The programs' output is discarded unless ``show_output`` (their stderr is kept to say why
    a run failed). With a ``seed`` in ``options``, run i samples with seed + i: repeatable,
    yet not the same intervals in every run. ``on_run`` is called after every run (progress).
    Directories that already hold runs are refused unless ``overwrite`` (their runs are
    deleted first), so two collections never mix. A stop signal (SIGINT, SIGTERM, SIGHUP) ends
    the collection after the run in progress saved what it could; that run is left out, the
    finished ones kept, and :attr:`Collection.interrupted` names the signal. With
    ``measured_options``, the warm-up runs (one at least) are recorded with ``options`` and the
    measured ones with what it returns, given the warm-up runs (gate's rate from their length).
    """
    if runs < 1:
        raise ArgumentError(f"the number of runs must be at least 1, not {runs}")
    if warmup < 0:
        raise ArgumentError(f"the number of warm-up runs cannot be negative, not {warmup}")
    if measured_options is not None and warmup < 1:
        raise ArgumentError("options chosen from the warm-up runs need a warm-up run at least")
    names = [p.name for p in programs]
    if not programs or len(set(names)) != len(names) or (len(programs) > 1 and "" in names):
        raise ArgumentError("give one program, or several with distinct names (their subdirectories)")
    out_dir = os.path.normpath(os.fspath(out_dir))
    extension = registry.by_name(output_format).extensions[0]
    for program in programs:
        _prepare_directory(program_directory(out_dir, program), overwrite)
    width = max(3, len(str(runs)))
    done: list[Run] = []
    start = time.monotonic()
    order = _round_order(getattr(options, "seed", None))
    collection = new_collection_id()
    recording = options
    for index in range(warmup + runs):
        if index == warmup and measured_options is not None:
            recording = measured_options([run for run in done if run.warmup])
        for program in order(programs):
            warm = index < warmup
            number = index + 1 if warm else index - warmup + 1
            path = None if warm else os.path.join(program_directory(out_dir, program), f"run-{number:0{width}d}{extension}")
            labels = {"collection": collection, "run": str(number), **({"pair": str(number)} if len(programs) > 1 else {})}
            try:
                result = _one_run(
                    program,
                    number,
                    warm,
                    path,
                    labels,
                    _options_for(recording, index),
                    process_root,
                    subprocesses,
                    output_format,
                    header,
                    show_output,
                )
            except Interrupted as exc:
                return Collection(out_dir, list(programs), done, time.monotonic() - start, exc.signal)
            done.append(result)
            if on_run is not None:
                on_run(result)
            if not result.ok and not keep_going:
                raise RunFailedError(_failure_message(result), result)
    return Collection(out_dir, list(programs), done, time.monotonic() - start)


def new_collection_id() -> str:
    """A fresh id for one collection (the ``collection`` label of each of its runs): a round
    number pairs two runs only within one collection, and the store tells two runs with the
    same counts apart by it. Random, not seeded: two collections with one --seed are still two."""
    import uuid

    return uuid.uuid4().hex[:COLLECTION_ID_DIGITS]


#: Hex digits of a collection id: 64 bits, so two collections never share one by chance.
COLLECTION_ID_DIGITS = 16


def program_directory(out_dir: str, program: Program) -> str:
    return os.path.join(out_dir, program.name) if program.name else out_dir


def _prepare_directory(directory: str, overwrite: bool) -> None:
    existing = sorted(glob.glob(os.path.join(glob.escape(directory), "run-*")))
    if existing and not overwrite:
        shown = ", ".join(os.path.basename(p) for p in existing[:3]) + (", ..." if len(existing) > 3 else "")
        raise ArgumentError(
            f"{directory} already holds runs ({shown}); choose another directory, or overwrite them "
            "(--overwrite) so that two collections do not mix"
        )
    for path in existing:
        if os.path.isfile(path):
            os.remove(path)
    os.makedirs(directory, exist_ok=True)


def _round_order(seed: int | None) -> Callable[[Sequence[Program]], list[Program]]:
    """The order of the programs within each round: a fresh random order every round (seeded
    by ``seed`` when there is one). Which version runs first is then a coin flip, so whatever
    the machine does — drift, a cache the first run warms for the second — it favours neither
    side on average, and a paired test (compare --pairing) is exact by design: under no change,
    the labelling observed is a random one of the relabellings it counts."""
    import random

    rng = random.Random(seed)

    def order(programs: Sequence[Program]) -> list[Program]:
        return rng.sample(list(programs), len(programs))

    return order


def _options_for(options: Any, index: int) -> Any:
    seed = getattr(options, "seed", None)
    return options if seed is None else options.replace(seed=seed + index)


def _one_run(
    program: Program,
    number: int,
    warmup: bool,
    path: str | None,
    labels: dict[str, str],
    options: Any,
    process_root: bool,
    subprocesses: bool,
    output_format: str,
    header: bool,
    show_output: bool,
) -> Run:
    started = time.monotonic()
    with tempfile.TemporaryFile() as errors:
        try:
            result = record_program(
                program,
                options,
                process_root=process_root,
                subprocesses=subprocesses,
                labels=labels,
                stdout=None if show_output else subprocess.DEVNULL,
                stderr=None if show_output else errors,
            )
        except Interrupted:
            raise
        except RecordError as exc:
            return Run(program.name, number, warmup, 1, time.monotonic() - started, error=str(exc), stderr=_tail(errors))
        seconds = time.monotonic() - started
        if result.signal is not None:  # a partial run would bias the sample: left out
            raise Interrupted("interrupted", result.signal)
        if result.exit_code == INTERRUPTED:
            raise KeyboardInterrupt
        stderr = _tail(errors) if result.exit_code != 0 and not show_output else ""
    outcome = Run(
        program.name,
        number,
        warmup,
        result.exit_code,
        seconds,
        problems=list(result.recording.problems),
        quality=result.recording.quality,
        stderr=stderr,
    )
    if outcome.ok and path is not None:
        registry.write(result.recording.profile_for(output_format), path, output_format, header=header)
        outcome.path = path
    return outcome


def _tail(stream: Any) -> str:
    stream.seek(0)
    lines = stream.read().decode("utf-8", "replace").rstrip().splitlines()
    return "\n".join(lines[-STDERR_TAIL_LINES:])


def _failure_message(run: Run) -> str:
    what = f"failed: {run.error}" if run.error else f"exited with code {run.exit_code}"
    tail = f"; the end of its stderr:\n{run.stderr}" if run.stderr else ""
    return f"{run.describe()} {what}{tail}"


__all__ = ["Collection", "Program", "Run", "RunFailedError", "collect_runs", "program_directory"]
