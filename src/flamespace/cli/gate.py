"""flamespace gate: does this change make the program slower? Two git refs, one command, exit 0/3/1.

Makes a temporary worktree of each side, installs each into a virtualenv of its own (or runs
the trees as they are), collects interleaved runs of the same command from both, compares
them and writes the reports. Everything temporary is removed on every way out (``--keep``
keeps it), Ctrl-C and SIGTERM included. Declared as data (cli/_options.py).
"""

from __future__ import annotations

import os
import sys
import time

from .._record import Record, factory, record
from ..errors import FlamespaceError
from ..formats import check_output_dir, open_output, outputs_together
from ..collect import AIMED_SAMPLES, MAX_RATE, MIN_RATE
from . import collect as _collect
from . import _style
from . import compare as _compare
from ._options import Argument, Command, Option
from ._recording import SAMPLING
from ._report import warn

TYPE_CHECKING = False  # typing costs start-up time; annotations are strings (PEP 563)
if TYPE_CHECKING:
    from typing import Callable, Dict, List, Optional, Tuple

    from ..collect import Program, Run, Target
    from ..stats.comparison import CompareOptions, Comparison
    from ..stats.guards import RunTimeChange
    from ..stats.sample import Sample

#: Where the reports go unless --out-dir says otherwise.
DEFAULT_OUT_DIR = "flamespace-gate"
#: Files whose presence at a tree's root makes it installable with pip.
PROJECT_FILES = ("pyproject.toml", "setup.py")
#: Lines of pip's output (or git's) quoted when it fails.
TAIL_LINES = 15
#: The first pip that can install into another interpreter (``pip --python``), so that the
#: virtualenvs are made without a pip of their own (seconds faster each).
PIP_PYTHON_OPTION = (22, 3)
#: Identity for the commit that snapshots the working tree (CI machines often have none).
SNAPSHOT_IDENTITY = {
    "GIT_AUTHOR_NAME": "flamespace gate", "GIT_AUTHOR_EMAIL": "gate@flamespace.invalid",
    "GIT_COMMITTER_NAME": "flamespace gate", "GIT_COMMITTER_EMAIL": "gate@flamespace.invalid",
}
#: The name of every gate's temporary directory starts with this (tempfile.mkdtemp's prefix).
WORKSPACE_PREFIX = "flamespace-gate-"
#: The file in that directory naming the gate that made it ({"pid", "started", "host", "root"}): a later
#: gate removes the workspaces (and their git worktrees) of gates whose process is gone (kill -9).
OWNER_FILE = "owner.json"
#: The options of compare and collect that gate takes as they are (same names, defaults, help).
COMPARE_OPTIONS = ("method", "alternative", "alpha", "fdr", "permutations", "seed", "pairing", "min_delta", "min_rel",
                   "normalize", "min_runs", "min_fraction", "include_all", "limit", "force", "max_missed", "cluster")
COLLECT_OPTIONS = ("runs", "mode", "idle", "threads", "async_stacks", "subprocesses", "keep_going", "show_output", "store")


class GateError(FlamespaceError):
    """The gate could not be set up: not a git repository, unknown ref, install failed, ..."""


@record(frozen=False)
class Side(Record):
    """One side of the gate: a commit checked out in a worktree, and how its program runs."""

    name: str  # "baseline" or "candidate": its runs' subdirectory
    ref: str  # as the user gave it, or "working tree"
    commit: str
    description: str  # e.g. "main (1a2b3c4)"
    tree: str = ""
    python: str = sys.executable
    env: "Dict[str, str]" = factory(dict)


def run(
    base: str, head: "Optional[str]", repo: str, out_dir: str, warmup: int, no_install: bool, lines: bool, keep: bool,
    command: "Tuple[str, ...]", **options: object,
) -> int:
    """Gate a change: run the same command from two git refs, interleaved, and compare them.

    Makes a temporary worktree of --base and of --head (default: the working tree as it is,
    so local changes can be gated before they are committed), installs each into a
    virtualenv of its own (pip install TREE; without a pyproject.toml or setup.py, or with
    --no-install, the trees run as they are), runs COMMAND -n times from the root of each
    tree, alternating, and compares the two samples of runs as 'flamespace compare' does.
    Paths in COMMAND are relative to the repository's root.

    Writes OUT_DIR/report.md (for a pull-request comment), report.json, report.txt, the
    delta flame graphs (delta.svg, ...) and the runs (runs/baseline/, runs/candidate/); prints
    the text report. The test is one-sided (--alternative greater: regressions only, all of
    --alpha for them). Exit code 0: no regression; 3: a stack significantly appeared or grew;
    1: bad usage, or the gate could not be set up (not a git repository, unknown ref,
    install failed, a run failed).

    With --base store:SELECTOR (store:branch=main,last=30) the baseline is those stored runs
    (flamespace store): only the head is checked out and run, and compared with them.

    \b
    Examples:
        flamespace gate --base origin/main -n 20 -- bench/workload.py
        flamespace gate --base v1.2 --head v1.3 -n 30 --min-rel 5% -- -m mypkg.bench --size 1000
        flamespace gate --base HEAD --no-install --alpha 0.01 -- bench/workload.py
        flamespace gate --base store:branch=main,last=30 -n 20 -- bench/workload.py
    """
    if command and command[0].startswith("-") and command[0] not in ("--", "-m", "-c"):
        from ._report import UsageError

        raise UsageError(f"No such option {command[0]!r}.")  # an unknown option before the program (it would be taken for it)
    words = list(command[1:] if command[:1] == ("--",) else command)
    if not words:
        from ._report import UsageError

        raise UsageError("nothing to run: give the command after --, e.g. flamespace gate --base main -- bench/workload.py")
    check_output_dir(out_dir)  # before any checkout, install or run
    stored = base.startswith("store:")  # the baseline is stored runs: only the head runs
    if stored:  # a selector that matches nothing (or a missing store) stops the gate before it runs anything
        from ..store import open_store

        open_store().snapshot().select(base)
    comparing = _compare.options_of(**options)  # type: ignore[arg-type]  # the records check the options before any checkout or install
    settings = _recorder_settings(lines, options)
    settings, choice = _rate_choice(settings, options["rate"], base if stored else None, _progress)  # type: ignore[arg-type]
    if choice is not None and warmup < 1:
        _progress("1 warm-up run a side after all, to time the benchmark and choose the rate (--rate skips it)")
        warmup = 1
    say = _progress
    root = _toplevel(repo)
    started = time.monotonic()
    with _Workspace(root, keep, say) as workspace:
        baseline = Side("baseline", base, "", f"the stored runs {base}") if stored else _side("baseline", base, root)
        sides = [baseline,
                 _side("candidate", head, root) if head is not None else _working_tree("candidate", root, workspace, out_dir)]
        if stored:
            say(f"baseline: {baseline.description}")
            sides = sides[1:]
        for side in sides:
            say(f"{side.name}: {side.description}")
            side.tree = workspace.checkout(side)
        targets = [_target(words, side) for side in sides]  # a missing script is found before installing
        install = not no_install and _installable(sides)
        for side in sides:
            if install:
                _install(side, workspace, out_dir, say)
            else:
                _run_as_is(side)
        targets = [target.replace(interpreter=side.python) for side, target in zip(sides, targets)]
        collection = _collect_runs(sides, targets, warmup, settings, out_dir, options, say, choice)
    result, samples, run_time = _compare_runs(collection, options, comparing, base if stored else None)
    if options.get("store"):  # after the comparison: a store: baseline must not take the runs just made
        from ._store import gate_labels, store_collection

        store_collection(collection, gate_labels(sides, root), "gate")
    rate = getattr(choice.settings if choice is not None else settings, "rate", None)  # (memory modes have none)
    gate = _gate_info([baseline, sides[-1]], targets[0], collection, samples, warmup, install, time.monotonic() - started,
                      run_time, rate)
    _write_reports(result, samples, gate, out_dir, options)
    if _style.enabled(sys.stdout):  # report.txt again, in colour
        _compare.write_stdout(_text_header(gate))
        _compare.echo_text_report(result, bool(options["include_all"]), int(options["limit"]) or None)  # type: ignore[call-overload]
    else:
        _compare.write_stdout(_read(os.path.join(out_dir, "report.txt")))
    verdict = "regression (exit 3)" if result.regressed else "no regression (exit 0)"
    say(f"{verdict}; reports in {out_dir}/ (report.md, report.json, report.txt, delta.svg)")
    return _compare.EXIT_REGRESSION if result.regressed else 0


# -- git ----------------------------------------------------------------------------------


def _git(root: str, *args: str, env: Optional[Dict[str, str]] = None) -> str:
    """git's stdout, stripped; a GateError quoting git's message when it fails."""
    import subprocess  # (here, as json, shutil, signal and tempfile: not for gate --help)

    try:
        done = subprocess.run(["git", "-C", root, *args], capture_output=True, text=True,
                              env=None if env is None else {**os.environ, **env})
    except FileNotFoundError:
        raise GateError("git is not installed (flamespace gate checks out both refs with git worktree)") from None
    if done.returncode != 0:
        message = _tail(done.stderr, 3) or f"exit code {done.returncode}"
        raise GateError(f"git {' '.join(args[:2])} failed: {message}")
    return done.stdout.strip()


def _toplevel(directory: str) -> str:
    try:
        return _git(directory, "rev-parse", "--show-toplevel")
    except GateError:
        raise GateError(f"{os.path.abspath(directory)} is not in a git repository (flamespace gate compares two git refs; "
                        "use --repo, or collect and compare for other layouts)") from None


def _commit(root: str, ref: str) -> str:
    try:
        return _git(root, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}")
    except GateError:
        raise GateError(f"unknown ref {ref!r}: not a branch, tag or commit of {root} (in CI, fetch it first: "
                        f"git fetch origin {ref})") from None


def _side(name: str, ref: str, root: str) -> Side:
    commit = _commit(root, ref)
    return Side(name, ref, commit, f"{ref} ({commit[:10]})")


def _working_tree(name: str, root: str, workspace: "_Workspace", out_dir: str) -> Side:
    """The working tree as it is, as a commit (HEAD itself when nothing changed)."""
    head = _commit(root, "HEAD")
    commit = workspace.snapshot(head, out_dir)
    changes = "no uncommitted changes" if commit == head else "with uncommitted changes"
    return Side(name, "working tree", commit, f"the working tree (HEAD {head[:10]}, {changes})")


class _Workspace:
    """A temporary directory with the worktrees and virtualenvs; removed on every way out."""

    def __init__(self, root: str, keep: bool, say: Callable[[str], None]) -> None:
        self.root, self.keep, self.say = root, keep, say
        self.directory = ""
        self.trees: List[str] = []
        self._previous_sigterm: object = None

    def __enter__(self) -> "_Workspace":
        import signal
        import tempfile

        self.directory = tempfile.mkdtemp(prefix=WORKSPACE_PREFIX)
        _write_owner(self.directory, self.root)
        for stale, owner in _stale_workspaces(os.path.dirname(self.directory)):
            _remove_workspace(stale, owner)
            self.say(f"removed {stale} and its git worktrees, left by an earlier gate that is no longer running (pid {owner.get('pid')})")
        if _main_thread():
            self._previous_sigterm = signal.signal(signal.SIGTERM, _terminated)
        return self

    def __exit__(self, *exc: object) -> None:
        import shutil
        import signal

        if self._previous_sigterm is not None:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second SIGTERM must not cut the clean-up short
        try:
            if self.keep:
                _forget_owner(self.directory)  # kept on purpose: no later gate removes it
                self.say(f"kept the worktrees and virtualenvs in {self.directory} "
                         "(remove with: git worktree remove --force TREE)")
                return
            for tree in self.trees:
                try:
                    _git(self.root, "worktree", "remove", "--force", tree)
                except GateError:
                    pass  # removed below; prune forgets it
            shutil.rmtree(self.directory, ignore_errors=True)
            try:
                _git(self.root, "worktree", "prune")
            except GateError:
                pass
        finally:
            if self._previous_sigterm is not None:
                signal.signal(signal.SIGTERM, self._previous_sigterm)  # type: ignore[arg-type]

    def path(self, name: str) -> str:
        return os.path.join(self.directory, name)

    def snapshot(self, head: str, out_dir: str) -> str:
        """A commit of the working tree as it is (tracked changes and untracked files that
        are not ignored), made with a private index: the user's index and files are untouched.
        HEAD itself when nothing differs."""
        env = {"GIT_INDEX_FILE": self.path("index"), **SNAPSHOT_IDENTITY}
        _git(self.root, "read-tree", head, env=env)
        excluded = os.path.relpath(os.path.abspath(out_dir), self.root)
        pathspec = [] if excluded.startswith("..") else ["--", ".", f":(exclude){excluded}"]
        _git(self.root, "add", "--all", *pathspec, env=env)
        tree = _git(self.root, "write-tree", env=env)
        if tree == _git(self.root, "rev-parse", f"{head}^{{tree}}"):
            return head
        return _git(self.root, "commit-tree", tree, "-p", head, "-m", "flamespace gate: the working tree", env=env)

    def checkout(self, side: Side) -> str:
        tree = self.path(side.name)
        self.trees.append(tree)
        _git(self.root, "worktree", "add", "--detach", "--force", tree, side.commit)
        return tree


def _write_owner(directory: str, root: str) -> None:
    """Mark ``directory`` as this process's workspace (see OWNER_FILE)."""
    import json

    with open(os.path.join(directory, OWNER_FILE), "w", encoding="utf-8") as out:
        json.dump({"pid": os.getpid(), "started": _start_time(os.getpid()), "host": os.uname().nodename, "root": root}, out)


def _forget_owner(directory: str) -> None:
    try:
        os.unlink(os.path.join(directory, OWNER_FILE))
    except OSError:
        pass


def _start_time(pid: int) -> Optional[int]:
    """When process ``pid`` started (clock ticks since boot, /proc/PID/stat), so that a reused pid
    is not taken for the gate that had it; None where there is no /proc."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return int(stat.read().rsplit(b")", 1)[1].split()[19])
    except (OSError, IndexError, ValueError):
        return None


def _alive(owner: Dict[str, object]) -> bool:
    """Whether the gate that wrote ``owner`` still runs (a process of another user counts as alive, and
    so does one on another host or container sharing the directory: its pids are not ours to ask)."""
    from ..collect.launcher import process_alive

    pid = owner.get("pid")
    if not isinstance(pid, int) or pid <= 0 or owner.get("host") != os.uname().nodename:
        return True  # not a mark this code wrote, or not this machine's: left alone
    if not process_alive(pid):
        return False
    started = owner.get("started")
    return started is None or _start_time(pid) in (None, started)


def _stale_workspaces(temporary: str) -> "List[Tuple[str, Dict[str, object]]]":
    """(directory, owner) of each gate workspace in ``temporary`` whose gate is gone; those
    without an owner file (kept with --keep, or made by an older flamespace) are left alone."""
    import json

    stale = []
    try:
        entries = [e for e in os.scandir(temporary) if e.name.startswith(WORKSPACE_PREFIX) and e.is_dir(follow_symlinks=False)]
    except OSError:
        return []
    for entry in entries:
        try:
            with open(os.path.join(entry.path, OWNER_FILE), encoding="utf-8") as mark:
                owner = json.load(mark)
        except (OSError, ValueError):
            continue
        if isinstance(owner, dict) and not _alive(owner):
            stale.append((entry.path, owner))
    return sorted(stale)


def _remove_workspace(directory: str, owner: Dict[str, object]) -> None:
    """Remove a dead gate's workspace: its worktrees from its repository's list, then the files."""
    import shutil

    root = owner.get("root")
    for side in ("baseline", "candidate"):
        tree = os.path.join(directory, side)
        if isinstance(root, str) and os.path.isdir(tree):
            try:
                _git(root, "worktree", "remove", "--force", tree)
            except GateError:
                pass  # removed below; prune forgets it
    shutil.rmtree(directory, ignore_errors=True)
    if isinstance(root, str) and os.path.isdir(root):
        try:
            _git(root, "worktree", "prune")
        except GateError:
            pass


def _terminated(signum: int, frame: object) -> None:
    """SIGTERM (a CI job cancelled): leave through the cleanup, exit as killed by SIGTERM would."""
    raise SystemExit(128 + signum)


def _main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


# -- the programs -------------------------------------------------------------------------


def _target(words: List[str], side: Side) -> "Target":
    """The command as it runs in ``side``'s tree (its script looked up there; same grammar as record)."""
    from ..collect import parse_command

    try:
        target = parse_command(words, directory=side.tree)
    except FlamespaceError as exc:
        if str(exc).startswith("no such script"):
            raise GateError(f"{words[0]}: no such file at the {side.name}'s {side.description} (paths in the "
                            "command are relative to the repository's root)") from None
        raise
    return target


def _installable(sides: List[Side]) -> bool:
    """Install when every tree is a project pip can install; a tree that is and one that is not cannot compare."""
    able = [any(os.path.exists(os.path.join(s.tree, f)) for f in PROJECT_FILES) for s in sides]
    if all(able):
        return True
    if any(able):
        which = next(s for s, ok in zip(sides, able) if ok)
        raise GateError(f"only the {which.name} ({which.description}) has a pyproject.toml or setup.py, so only it could "
                        "be installed; use --no-install to run both trees as they are")
    return False


def _install(side: Side, workspace: _Workspace, out_dir: str, say: Callable[[str], None]) -> None:
    """A virtualenv of the side's own with its tree pip-installed; pip's output goes to OUT_DIR/install-SIDE.log."""
    venv = workspace.path(f"{side.name}-env")
    outside_pip = _pip_can_target()
    say(f"{side.name}: installing into a virtualenv (pip install {side.tree})")
    create = [sys.executable, "-m", "venv", *(["--without-pip"] if outside_pip else []), venv]
    _step(create, f"creating the {side.name}'s virtualenv failed", None)
    python = os.path.join(venv, "Scripts" if os.name == "nt" else "bin", "python")
    pip = [sys.executable, "-m", "pip", "--python", python] if outside_pip else [python, "-m", "pip"]
    os.makedirs(out_dir, exist_ok=True)
    log = os.path.join(out_dir, f"install-{side.name}.log")
    _step([*pip, "install", "--disable-pip-version-check", side.tree],
          f"installing the {side.name} ({side.description}) failed", log)
    side.python = python
    bin_dir = os.path.dirname(python)
    side.env = {"VIRTUAL_ENV": venv, "PATH": bin_dir + os.pathsep + os.environ.get("PATH", "")}


def _run_as_is(side: Side) -> None:
    """No install: the tree (and its src/, for the src layout) first on the import path."""
    paths = [side.tree] + [os.path.join(side.tree, "src")] * os.path.isdir(os.path.join(side.tree, "src"))
    existing = os.environ.get("PYTHONPATH")
    side.env = {"PYTHONPATH": os.pathsep.join(paths + ([existing] if existing else []))}


def _pip_can_target() -> bool:
    try:
        from importlib.metadata import PackageNotFoundError, version
    except ImportError:  # pragma: no cover - Python < 3.8
        return False
    try:
        parts = version("pip").split(".")[:2]
        return tuple(int(p) for p in parts) >= PIP_PYTHON_OPTION
    except (PackageNotFoundError, ValueError):
        return False


def _step(argv: List[str], what: str, log: Optional[str]) -> None:
    """Run a setup command; a GateError with the end of its output when it fails."""
    import subprocess

    done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if log is not None:
        with open(log, "w", encoding="utf-8") as file:
            file.write(done.stdout)
    if done.returncode != 0:
        where = f" (all of it in {log})" if log else ""
        raise GateError(f"{what}: exit code {done.returncode}; the end of its output{where}:\n{_tail(done.stdout, TAIL_LINES)}")


def _recorder_settings(lines: bool, options: Dict[str, object]):
    """The recorder's options (SamplerOptions or MemoryOptions) of gate's collect options;
    without --rate, the sampler's default rate (the warm-up runs' until :class:`_RateChoice` chose)."""
    from ._recording import SAMPLING, recorder_settings

    rate = SAMPLING["rate"] if options["rate"] is None else options["rate"]
    return recorder_settings(
        options["mode"], rate, None, None, options["idle"], not lines, options["threads"],  # type: ignore[arg-type]
        options["async_stacks"], None, None, "folded",  # type: ignore[arg-type]
    )


def _rate_choice(settings, given: Optional[float], stored: Optional[str],
                 say: Callable[[str], None]) -> "Tuple[object, Optional[_RateChoice]]":
    """The settings to record with, and the choice of the rate to make from the warm-up runs
    (None: --rate was given, a memory mode has no rate, or a stored baseline's rate is taken)."""
    from ..collect import SamplerOptions

    if given is not None or not isinstance(settings, SamplerOptions):
        return settings, None
    rate = _stored_rate(stored) if stored else None
    if rate is not None:
        say(f"rate: {rate:,g} Hz, the stored baseline's, so that both sides are sampled alike (--rate sets it)")
        return settings.replace(rate=rate), None
    if stored:
        say("the stored baseline's runs do not share one recorded rate (rate_requested): the rate is chosen "
            "from the warm-up runs")
    return settings, _RateChoice(settings, say)


def _stored_rate(selector: str) -> Optional[float]:
    """The rate the stored runs ``selector`` names were all recorded at (their rate_requested), else None."""
    from ..store import open_store

    snapshot = open_store().snapshot()
    rates = {row["labels"].get("rate_requested") for row in snapshot.profiles(snapshot.select(selector))}
    try:
        return float(rates.pop()) if len(rates) == 1 else None
    except (TypeError, ValueError):  # no such label, or not a number
        return None


class _RateChoice:
    """gate's sampling rate without --rate: one that gives each run about AIMED_SAMPLES samples,
    worked out from the warm-up runs (recorded at the default rate), never below that default
    nor above the sampler's highest; said on stderr. Called by collect_runs once they are done."""

    def __init__(self, settings, say: Callable[[str], None]) -> None:
        self.settings, self.say = settings, say

    def __call__(self, warmups: List["Run"]) -> object:
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
        why = (f"so that each run gets about {AIMED_SAMPLES} samples" if rate < MAX_RATE else
               f"the highest, and still only about {rate / need * AIMED_SAMPLES:.0f} samples a run: make the benchmark longer")
        if rate == default:
            why = f"the default: it gives each run {AIMED_SAMPLES} samples or more"
        self.say(f"rate: {rate:,g} Hz, {why} (the shortest warm-up run recorded {shortest.duration_ns / 1e9:.3g} s "
                 f"and {shortest.samples} samples at {default:g} Hz; --rate sets it)")
        self.settings = self.settings.replace(rate=rate)
        return self.settings


def _collect_runs(sides: List[Side], targets: List["Target"], warmup: int, settings: object, out_dir: str,
                  options: Dict[str, object], say: Callable[[str], None], choice: Optional[_RateChoice] = None):
    from ..collect import Program, collect_runs

    # frames named from the tree's root, as the command's paths are (bench/workload.py, not workload.py)
    programs = [Program(target, side.name, side.env, cwd=side.tree, frame_root=side.tree) for side, target in zip(sides, targets)]
    runs = int(options["runs"])  # type: ignore[call-overload]
    total = len(programs) * (runs + warmup)
    how = ", alternating" if len(programs) > 1 else ""
    say(f"running {targets[0].describe()}: {runs} runs a side after {warmup} warm-up{how}")
    counter = _Counter(total, say)
    result = collect_runs(
        programs, runs, os.path.join(out_dir, "runs"), settings, warmup=warmup, keep_going=bool(options["keep_going"]),
        subprocesses=bool(options["subprocesses"]), show_output=bool(options["show_output"]), overwrite=True,
        on_run=counter, measured_options=choice,
    )
    if result.interrupted is not None:  # the run in progress has been stopped: leave through the cleanup
        raise SystemExit(128 + result.interrupted)
    if result.failed:
        say(f"warning: {_collect._failures(result)}")
    if result.untrusted:
        first = result.untrusted[0]
        measured = sum(not run.warmup for run in result.runs)
        say(f"warning: {len(result.untrusted)} of {measured} runs should not be trusted, e.g. {first.describe()}: "
            f"{first.problems[0]} (see the '# ' headers of the runs' files)")
    short = [p.name for p in result.programs if len(result.profiles(p)) < 2]
    if short:
        raise GateError(f"too few good runs to compare on the {' and '.join(short)} side (2 or more needed)")
    return result


class _Counter:
    """Progress on stderr: a line every tenth of the runs (at least every 5), so CI logs stay short."""

    def __init__(self, total: int, say: Callable[[str], None]) -> None:
        self.total, self.say, self.done = total, say, 0
        self.step = max(5, -(-total // 10))
        self.started = time.monotonic()

    def __call__(self, run: "Run") -> None:
        self.done += 1
        if self.done % self.step == 0 or self.done == self.total:
            self.say(f"{self.done}/{self.total} runs ({time.monotonic() - self.started:.0f} s)")


# -- compare and report -------------------------------------------------------------------


def _compare_runs(collection, options: Dict[str, object], comparing: "CompareOptions", stored: Optional[str] = None,
                  ) -> Tuple["Comparison", Dict[str, "Sample"], Optional["RunTimeChange"]]:
    """The two sides' runs through compare's guard rails and statistics (findings on stderr),
    and the change of the whole run's time; the baseline's are the runs the selector
    ``stored`` names when given."""
    from ..stats.comparison import compare
    from ..stats.guards import run_time_change
    from ..stats.report import single_level
    from ._samples import after_comparison, load_sides, parse_max_missed, show_findings

    directories = {**({"baseline": [stored]} if stored else {}),
                   **{p.name: [collection.directory(p)] for p in collection.programs}}
    samples, screening = load_sides(directories, "gate", force=bool(options["force"]),
                                    max_missed=parse_max_missed(options["max_missed"]),  # type: ignore[arg-type]
                                    options=comparing, cluster=options.get("cluster"))  # type: ignore[arg-type]
    show_findings(screening.findings, "gate")
    comparing, samples = _compare.paired_options(comparing, samples, screening, str(options["pairing"]), "gate")
    result = compare(samples["baseline"], samples["candidate"], options=comparing)
    show_findings(after_comparison(screening, result), "gate")
    return result, samples, run_time_change(screening.kept, single_level(result), comparing.paired)


def _gate_info(sides: List[Side], target: "Target", collection, samples: Dict[str, "Sample"], warmup: int, installed: bool,
               seconds: float, run_time: Optional["RunTimeChange"] = None, rate: Optional[float] = None) -> Dict[str, object]:
    from ..stats.report import run_time_dict, run_time_line

    stored = not sides[0].commit
    return {
        "base": {"ref": sides[0].ref, "commit": sides[0].commit or None, **({"stored": True} if stored else {})},
        "head": {"ref": sides[1].ref, "commit": sides[1].commit},
        "command": target.describe(),
        "runs": {**({"baseline": len(samples["baseline"].names)} if stored else {}),
                 **{p.name: len(collection.profiles(p)) for p in collection.programs}},
        "warmup": warmup,
        "rate": rate,
        "installed": installed,
        "seconds": round(seconds, 1),
        "descriptions": {"base": sides[0].description, "head": sides[1].description},
        "run_time": None if run_time is None else run_time_dict(run_time),
        "run_time_line": None if run_time is None else run_time_line(run_time),
    }


def _write_reports(result: "Comparison", samples: Dict[str, "Sample"], gate: Dict[str, object], out_dir: str,
                   options: Dict[str, object]) -> None:
    """The parts, delta graphs and the three reports of one gate, all appearing together: never
    this gate's report.md beside an earlier gate's report.json (a full disk)."""
    import json

    from ..stats import report

    limit = int(options["limit"]) or None  # type: ignore[call-overload]
    include_all = bool(options["include_all"])
    with outputs_together():
        _compare.write_parts(result, out_dir, True, samples)
        with open_output(os.path.join(out_dir, "report.md")) as file:
            file.write(_markdown_header(result, gate) + report.markdown(result, include_all, limit))
        with open_output(os.path.join(out_dir, "report.txt")) as file:
            file.write(_text_header(gate) + report.text(result, include_all, limit, 200))
        with open_output(os.path.join(out_dir, "report.json")) as file:
            json.dump({**report.as_dict(result), "gate": gate}, file, indent=2)
            file.write("\n")


def _how(gate: Dict[str, object]) -> str:
    runs = gate["runs"]
    if gate["base"].get("stored"):  # type: ignore[attr-defined]
        how = "installed into a virtualenv" if gate["installed"] else "run from its tree (PYTHONPATH)"
        return (f"`{gate['command']}`, {runs['baseline']} stored + {runs['candidate']} new runs (after "  # type: ignore[index]
                f"{gate['warmup']} warm-up), {how}; {gate['seconds']} s")
    how = "each installed into its own virtualenv" if gate["installed"] else "each run from its tree (PYTHONPATH)"
    return (f"`{gate['command']}`, {runs['baseline']} + {runs['candidate']} runs (after {gate['warmup']} warm-up "  # type: ignore[index]
            f"each), alternating, {how}; {gate['seconds']} s")


def _markdown_header(result: "Comparison", gate: Dict[str, object]) -> str:
    names = gate["descriptions"]
    verdict = "❌ **regression**" if result.regressed else "✅ **no regression**"
    return (f"## flamespace gate: {verdict}\n\n"
            f"Base: {names['base']}; head: {names['head']}.  \n"  # type: ignore[index]
            f"{_how(gate)}.{_run_time(gate, '  ')}\n\n")


def _text_header(gate: Dict[str, object]) -> str:
    names = gate["descriptions"]
    plain = _how(gate).replace("`", "")
    return f"Gate: base {names['base']} against head {names['head']}.\n{plain}.{_run_time(gate)}\n\n"  # type: ignore[index]


def _run_time(gate: Dict[str, object], line_break: str = "") -> str:
    """The whole run's time change as a line of the header (nothing when the runs carry no time)."""
    line = gate.get("run_time_line")
    return f"{line_break}\n{line}" if line else ""


def _progress(message: str) -> None:
    warn(f"flamespace gate: {message}")


def _tail(text: str, lines: int) -> str:
    return "\n".join(text.rstrip().splitlines()[-lines:])


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as file:
        return file.read()


def _taken(spec: Command, names: "Tuple[str, ...]", defaults: "Optional[Dict[str, object]]" = None) -> "Tuple[Option, ...]":
    """``spec``'s options named ``names`` (dests), as they are: one definition, one default;
    but for ``defaults`` (dest: default), where the gate's question differs from the command's."""
    import copy

    by_dest = {option.dest: option for option in spec.options}
    taken = []
    for name in names:
        option = by_dest[name]
        if defaults and name in defaults:
            option = copy.copy(option)
            option.default = defaults[name]
        taken.append(option)
    return tuple(taken)


#: The command: its own options, the program after them, then the options of compare and collect it takes.
SPEC = Command("gate", run, [Argument("command", "raw", nargs=-1)], [
    Option(("--base",), "base", required=True, metavar="REF",
           help="The baseline: a branch, tag or commit (e.g. origin/main), or stored runs: store:branch=main,last=30."),
    Option(("--head",), "head", metavar="REF",
           help="The candidate (default: the working tree as it is: HEAD with its uncommitted changes and "
                "untracked files that are not ignored)."),
    Option(("--repo",), "repo", "dir", ".", exists=True, show_default=True, help="A directory inside the git repository."),
    Option(("-o", "--out-dir"), "out_dir", "dir", DEFAULT_OUT_DIR, show_default=True,
           help="Where report.md, report.json, report.txt, the delta flame graphs and the runs go (a previous "
                "gate's runs there are replaced)."),
    Option(("--warmup",), "warmup", "int", 1, minimum=0, show_default=True,
           help="Runs of each side before the kept ones, not written (fresh trees compile their .pyc files)."),
    Option(("--no-install",), "no_install", "flag",
           help="Run the trees as they are, with PYTHONPATH set to the tree (and its src/), in the interpreter "
                "flamespace runs in; the default when a tree has no pyproject.toml or setup.py."),
    Option(("--lines",), "lines", "flag",
           help="Name frames with their line numbers (by default function and file: lines move between versions)."),
    Option(("--keep",), "keep", "flag", help="Keep the worktrees and virtualenvs (their place is printed)."),
    *_taken(_compare.SPEC, COMPARE_OPTIONS, {"alternative": _compare.GATE_ALTERNATIVE}),  # regressions only: what fails CI
    *_taken(_collect.SPEC, COLLECT_OPTIONS),
    Option(("--rate",), "rate", "float", None, metavar="HZ",
           help=f"Mean samples per second, {MIN_RATE:g} to {MAX_RATE:,g}. Default: a stored baseline's rate, else one "
                f"that gives each run about {AIMED_SAMPLES} samples, from the warm-up runs' length (at least "
                f"{SAMPLING['rate']:g}); said on stderr."),
], interspersed=False)
