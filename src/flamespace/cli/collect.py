"""flamespace collect: run a program (or two, interleaved) many times under the profiler."""

from __future__ import annotations

import sys

from ._options import Argument, Command, Option
from ._recording import recorder_settings, recording_options, target_of
from ._report import warn

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..collect import Collection, Program, Run

#: Per-run warnings printed in full before they are only counted.
SHOWN_WARNINGS = 3


def run(
    runs: int,
    out_dir: str,
    baseline_cmd: str | None,
    candidate_cmd: str | None,
    baseline_env: tuple[str, ...],
    candidate_env: tuple[str, ...],
    baseline_cwd: str | None,
    candidate_cwd: str | None,
    warmup: int,
    keep_going: bool,
    overwrite: bool,
    show_output: bool,
    tracer: bool,
    module: str | None,
    code: str | None,
    mode: str,
    rate: float,
    weight: str | None,
    bytes_per_sample: int | None,
    idle: bool,
    no_lines: bool,
    threads: bool,
    process_root: bool,
    async_stacks: bool,
    subprocesses: bool,
    duration: float | None,
    output_format: str,
    seed: int | None,
    no_header: bool,
    quiet: bool,
    command: tuple[str, ...],
    store: bool = False,
    sampler: str = "auto",
) -> int:
    """Run a Python program N times under the profiler: one profile per run, a sample for compare.

    Takes the program and every option as 'flamespace record' does. With --baseline-cmd and
    --candidate-cmd, runs two programs in rounds, each once per round in a random order
    (so that drift of the machine falls on both alike, and compare can test the runs of a
    round as a pair) into OUT_DIR/baseline/ and OUT_DIR/candidate/, ready for
    'flamespace compare'. A run that exits non-zero stops the collection (--keep-going: it
    is left out); each profile carries its quality in '# key: value' headers, and runs whose
    profile should not be trusted are named in a warning.

    \b
    Examples:
        flamespace collect -n 50 -o runs/ -- app.py --input data.csv
        flamespace collect -n 30 --warmup 2 --rate 1000 -o ab/ \\
            --baseline-cmd 'bench.py' --candidate-cmd 'bench.py' --candidate-env USE_NEW_PARSER=1
        flamespace collect -n 20 -o ab/ --baseline-cmd bench.py --baseline-cwd main/ \\
            --candidate-cmd bench.py --candidate-cwd pr/
        flamespace compare --baseline ab/baseline --candidate ab/candidate
    """
    from ..collect import collect_runs
    from ..formats import check_output_dir

    programs = _programs(
        command, module, code, baseline_cmd, candidate_cmd, baseline_env, candidate_env, baseline_cwd, candidate_cwd
    )
    if tracer:
        if sampler != "auto":
            from ..errors import ArgumentError

            raise ArgumentError("--sampler chooses where the sampler runs; --tracer traces every call inside the program")
        options = _trace_settings(
            mode, rate, weight, bytes_per_sample, idle, no_lines, threads, async_stacks, duration, seed, output_format
        )
    else:
        options = recorder_settings(
            mode, rate, weight, bytes_per_sample, idle, no_lines, threads, async_stacks, duration, seed, output_format, sampler
        )
    check_output_dir(out_dir)  # before the first run, not after it
    report = _Reporter(len(programs) * (runs + warmup), quiet)
    with report:
        result = collect_runs(
            programs,
            runs,
            out_dir,
            options,
            warmup=warmup,
            keep_going=keep_going,
            process_root=process_root,
            subprocesses=subprocesses,
            output_format=output_format,
            header=not no_header,
            show_output=show_output,
            overwrite=overwrite,
            on_run=report.run_done,
        )
    report.warnings_left()
    if store:
        from ._store import store_collection
        from ..store.labels import git_labels

        here = git_labels()
        store_collection(result, {p.name: {**here, **({"program": p.name} if p.name else {})} for p in programs}, "collect")
    short = [p for p in result.programs if len(result.profiles(p)) < min(2, runs)]  # failures left too few
    if result.failed:
        warn(f"flamespace collect: warning: {result.describe_failures()}")
    if not quiet:
        warn(_summary(result, warmup))
    if result.interrupted is not None:
        import signal

        warn(
            f"flamespace collect: interrupted by {signal.Signals(result.interrupted).name}: "
            "the run in progress was left out, the finished runs kept"
        )
        return 128 + result.interrupted
    if short:
        names = ", ".join(f"{len(result.profiles(p))} {p.name or 'kept'} runs" for p in short)
        warn(f"flamespace collect: error: too few good runs to compare ({names}; compare needs 2 or more)")
        return 1
    return 0


def _programs(
    command: Sequence[str],
    module: str | None,
    code: str | None,
    baseline_cmd: str | None,
    candidate_cmd: str | None,
    baseline_env: Sequence[str],
    candidate_env: Sequence[str],
    baseline_cwd: str | None = None,
    candidate_cwd: str | None = None,
) -> list[Program]:
    from ..collect import Program

    if baseline_cmd is None and candidate_cmd is None:
        if baseline_env or candidate_env or baseline_cwd or candidate_cwd:
            raise _usage_error("--baseline-env/-cwd and --candidate-env/-cwd go with --baseline-cmd and --candidate-cmd")
        return [Program(target_of(command, module, code))]
    if baseline_cmd is None or candidate_cmd is None:
        raise _usage_error("give both --baseline-cmd and --candidate-cmd (or one program after --)")
    if command or module is not None or code is not None:
        raise _usage_error("give the programs either as --baseline-cmd/--candidate-cmd or as one program after --, not both")
    return [
        Program(
            _target_of_string(cmd, f"--{side}-cmd", _directory(cwd, f"--{side}-cwd")),
            side,
            _environment(env, f"--{side}-env"),
            cwd,
        )
        for side, cmd, env, cwd in (
            ("baseline", baseline_cmd, baseline_env, baseline_cwd),
            ("candidate", candidate_cmd, candidate_env, candidate_cwd),
        )
    ]


def _directory(path: str | None, option: str) -> str | None:
    """A program's working directory, which must exist."""
    import os

    if path is not None and not os.path.isdir(path):
        raise _bad_parameter(f"{path!r} is not a directory", param_hint=f"'{option}'")
    return path


def _trace_settings(mode, rate, weight, bytes_per_sample, idle, no_lines, threads, async_stacks, duration, seed, output_format):
    """TraceOptions for --tracer: --weight time (exclusive ns) or count (calls, exact); the
    sampler's and memory's options do not apply."""
    from ..collect.tracer import TraceOptions
    from ..collect.trace_engine import available
    from ..errors import ArgumentError
    from ._recording import SAMPLING

    problem = available()
    if problem is not None:
        raise ArgumentError(f"--tracer is not available: {problem}")
    given = [
        name
        for name, value, default in (
            ("--mode", mode, SAMPLING["mode"]),
            ("--rate", rate, SAMPLING["rate"]),
            ("--bytes-per-sample", bytes_per_sample, None),
            ("--idle", idle, False),
            ("--async", async_stacks, False),
            ("--duration", duration, None),
            ("--seed", seed, None),
        )
        if value != default
    ]
    if given:
        raise ArgumentError(f"{', '.join(given)} {'applies' if len(given) == 1 else 'apply'} to sampling, not to --tracer")
    if weight not in (None, "time", "count"):
        raise ArgumentError(f"--tracer weighs 'time' (exclusive ns) or 'count' (calls), not {weight!r}")
    return TraceOptions(
        weight="calls" if weight == "count" else "time", lines=not no_lines, threads=threads, chart=output_format == "speedscope"
    )


def _usage_error(message: str) -> Exception:
    from ._report import UsageError

    return UsageError(message)


def _bad_parameter(message: str, param_hint: str) -> Exception:
    from ._report import BadParameter

    return BadParameter(message, param_hint=param_hint)


def _target_of_string(text: str, option: str, directory: str | None = None):
    """A program given as one string: the words of record's COMMAND, or '-m MODULE ...' / '-c CODE ...'
    (a script looked up in ``directory``, where it runs)."""
    import shlex

    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise _bad_parameter(f"{text!r}: {exc}", param_hint=f"'{option}'") from None
    if not words:
        raise _bad_parameter("the command is empty", param_hint=f"'{option}'")
    if words[0] in ("-m", "-c"):
        if len(words) < 2:
            raise _bad_parameter(f"{words[0]} needs a value", param_hint=f"'{option}'")
        value = words[1]
        return target_of(words[2:], value if words[0] == "-m" else None, value if words[0] == "-c" else None, directory)
    return target_of(words, None, None, directory)


def _environment(pairs: Sequence[str], option: str) -> dict[str, str]:
    env: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise _bad_parameter(f"{pair!r} is not NAME=VALUE", param_hint=f"'{option}'")
        env[name] = value
    return env


class _Reporter:
    """A progress bar on stderr (only when it is a terminal) and per-run warnings above it."""

    def __init__(self, total: int, quiet: bool) -> None:
        self.total, self.warned, self.unshown = total, 0, 0
        self.progress = None
        if not quiet and sys.stderr.isatty():
            from ._progress import Progress

            self.progress = Progress("runs", total)

    def __enter__(self) -> _Reporter:
        if self.progress is not None:
            self.progress.draw()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.progress is not None:
            self.progress.erase()

    def run_done(self, run: Run) -> None:
        if self.progress is not None:
            self.progress.advance(label=run.describe())
        if not run.problems or run.path is None:
            return
        self.warned += 1
        if self.warned > SHOWN_WARNINGS:
            self.unshown += 1
            return
        for problem in run.problems:
            self._echo(f"flamespace collect: warning: {run.describe()} ({run.path}): {problem}")

    def warnings_left(self) -> None:
        if self.unshown:
            warn(
                f"flamespace collect: warning: {self.unshown} more runs should not be trusted either "
                "(see the '# ' quality headers of their files)"
            )

    def _echo(self, line: str) -> None:
        if self.progress is not None:
            self.progress.note(line)
        else:
            warn(line)


def _summary(result: Collection, warmup: int) -> str:
    import shlex

    kept = sum(len(result.profiles(p)) for p in result.programs)
    warm = f", after {warmup} warm-up run{'s' if warmup != 1 else ''} of each" if warmup else ""
    lines = [f"flamespace collect: {kept} runs kept{warm}, in {result.seconds:.1f} s"]
    for program in result.programs:
        files = result.profiles(program)
        label = f"{program.name}: " if program.name else ""
        span = " ... ".join(dict.fromkeys([_name(files[0]), _name(files[-1])])) if files else "none"
        lines.append(f"  {label}{len(files)} profile{'s' if len(files) != 1 else ''} in {result.directory(program)}/ ({span})")
    if len(result.programs) == 2:
        base, cand = (shlex.quote(result.directory(p)) for p in result.programs)
        lines.append(f"next: flamespace compare --baseline {base} --candidate {cand}")
    else:
        where = shlex.quote(result.directory(result.programs[0]))
        lines.append(f"next: flamespace merge --mean {where} -o mean.folded   # the mean profile")
        lines.append(f"  or: flamespace compare --baseline {where} --candidate OTHER-RUNS/")
    return "\n".join(lines)


def _name(path: str) -> str:
    import os

    return os.path.basename(path)


#: The command: its own options, then the program and recorder options it shares with record (as data).
SPEC = Command(
    "collect",
    run,
    [Argument("command", "raw", nargs=-1)],
    [
        Option(("-n", "--runs"), "runs", "int", 20, minimum=1, show_default=True, help="Runs of each program that are kept."),
        Option(
            ("-o", "--out-dir"),
            "out_dir",
            "dir",
            required=True,
            help="Where the profiles go: run-001.folded, ... (with two programs, in baseline/ and candidate/).",
        ),
        Option(
            ("--baseline-cmd",),
            "baseline_cmd",
            metavar="COMMAND",
            help="The baseline program, as one string: 'main.py --fast', '-m pkg.cli run', 'python -X dev job.py'.",
        ),
        Option(("--candidate-cmd",), "candidate_cmd", metavar="COMMAND", help="The candidate program, as --baseline-cmd."),
        Option(
            ("--baseline-env",),
            "baseline_env",
            "multiple",
            metavar="NAME=VALUE",
            help="Set in the baseline's environment. Repeatable.",
        ),
        Option(
            ("--candidate-env",),
            "candidate_env",
            "multiple",
            metavar="NAME=VALUE",
            help="Set in the candidate's environment. Repeatable.",
        ),
        Option(
            ("--baseline-cwd",),
            "baseline_cwd",
            metavar="DIR",
            help="Run the baseline in DIR (e.g. its own checkout): frames are named relative to where a program "
            "runs, so two checkouts run each from its root compare stack by stack.",
        ),
        Option(("--candidate-cwd",), "candidate_cwd", metavar="DIR", help="Run the candidate in DIR, as --baseline-cwd."),
        Option(
            ("--warmup",),
            "warmup",
            "int",
            0,
            minimum=0,
            show_default=True,
            help="Runs of each program before the kept ones, not written (warm caches, compiled .pyc files).",
        ),
        Option(
            ("--keep-going",),
            "keep_going",
            "flag",
            help="When a run fails (non-zero exit), leave it out and go on instead of stopping.",
        ),
        Option(
            ("--overwrite",), "overwrite", "flag", help="Delete the runs already in the output directories instead of refusing."
        ),
        Option(("--show-output",), "show_output", "flag", help="Let the programs print (by default their output is discarded)."),
        Option(
            ("--tracer",),
            "tracer",
            "flag",
            help="Trace every call instead of sampling (flamespace trace): exact call counts per stack, so that "
            "compare finds an added or removed call exactly (--weight count; default time, exclusive ns).",
        ),
        *recording_options(),
        Option(("-q", "--quiet"), "quiet", "flag", help="No progress bar and no summary (warnings and errors still)."),
        Option(
            ("--store",),
            "store",
            "flag",
            help="Also add the runs to the profile store ($FLAMESPACE_STORE, else .flamespace/store), labelled with "
            "their git commit and branch (needs flamespace[store]).",
        ),
    ],
    interspersed=False,
    program_flags=("-m", "-c"),
)
