"""Where a gate runs each side: a git worktree of its commit in a temporary directory that is
removed on every way out (Ctrl-C and SIGTERM included, and by the next gate after a kill -9)."""

from __future__ import annotations

import os
import sys

from .._record import Record, factory, record
from ..errors import FlamespaceError

TYPE_CHECKING = False  # typing costs start-up time; annotations are strings (PEP 563)
if TYPE_CHECKING:
    from typing import Callable

#: Identity for the commit that snapshots the working tree (CI machines often have none).
SNAPSHOT_IDENTITY = {
    "GIT_AUTHOR_NAME": "flamespace gate",
    "GIT_AUTHOR_EMAIL": "gate@flamespace.invalid",
    "GIT_COMMITTER_NAME": "flamespace gate",
    "GIT_COMMITTER_EMAIL": "gate@flamespace.invalid",
}
#: The name of every gate's temporary directory starts with this (tempfile.mkdtemp's prefix).
WORKSPACE_PREFIX = "flamespace-gate-"
#: The file in that directory naming the gate that made it ({"pid", "started", "host", "root"}): a later
#: gate removes the workspaces (and their git worktrees) of gates whose process is gone (kill -9).
OWNER_FILE = "owner.json"


class GateError(FlamespaceError):
    """The gate could not be set up: not a git repository, unknown ref, install failed, ..."""


class GateStopped(BaseException):
    """A stop signal ended the gate (SIGTERM while it set up or ran, or a stop signal during the
    runs), which left through the clean-up. A BaseException, as KeyboardInterrupt is, so that no
    ``except Exception`` on the way takes it; ``exit_code`` is what a process killed by the
    signal exits with (128 + the signal)."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"stopped by signal {signum}")
        self.signal = signum

    @property
    def exit_code(self) -> int:
        return 128 + self.signal


@record(frozen=False)
class Side(Record):
    """One side of the gate: a commit checked out in a worktree, and how its program runs."""

    name: str  # "baseline" or "candidate": its runs' subdirectory
    ref: str  # as the user gave it, or "working tree"
    commit: str
    description: str  # e.g. "main (1a2b3c4)"
    tree: str = ""
    python: str = sys.executable
    env: dict[str, str] = factory(dict)


def git(root: str, *args: str, env: dict[str, str] | None = None) -> str:
    """git's stdout, stripped; a GateError quoting git's message when it fails."""
    import subprocess  # (here, as json, shutil, signal and tempfile: not for gate --help)

    try:
        done = subprocess.run(
            ["git", "-C", root, *args], capture_output=True, text=True, env=None if env is None else {**os.environ, **env}
        )
    except FileNotFoundError:
        raise GateError("git is not installed (flamespace gate checks out both refs with git worktree)") from None
    if done.returncode != 0:
        message = tail(done.stderr, 3) or f"exit code {done.returncode}"
        raise GateError(f"git {' '.join(args[:2])} failed: {message}")
    return done.stdout.strip()


def toplevel(directory: str) -> str:
    """The root of the git repository ``directory`` is in; a GateError saying what to do when none."""
    try:
        return git(directory, "rev-parse", "--show-toplevel")
    except GateError:
        raise GateError(
            f"{os.path.abspath(directory)} is not in a git repository (flamespace gate compares two git refs; "
            "use --repo, or collect and compare for other layouts)"
        ) from None


def commit_of(root: str, ref: str) -> str:
    """The commit ``ref`` names in the repository at ``root``; a GateError when it names none."""
    try:
        return git(root, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}")
    except GateError:
        raise GateError(
            f"unknown ref {ref!r}: not a branch, tag or commit of {root} (in CI, fetch it first: git fetch origin {ref})"
        ) from None


def side_at(name: str, ref: str, root: str) -> Side:
    """The side ``name`` at the commit ``ref`` names."""
    commit = commit_of(root, ref)
    return Side(name, ref, commit, f"{ref} ({commit[:10]})")


def working_tree(name: str, root: str, workspace: Workspace, out_dir: str) -> Side:
    """The working tree as it is, as a commit (HEAD itself when nothing changed)."""
    head = commit_of(root, "HEAD")
    commit = workspace.snapshot(head, out_dir)
    changes = "no uncommitted changes" if commit == head else "with uncommitted changes"
    return Side(name, "working tree", commit, f"the working tree (HEAD {head[:10]}, {changes})")


class Workspace:
    """A temporary directory with the worktrees and virtualenvs; removed on every way out."""

    def __init__(self, root: str, keep: bool, say: Callable[[str], None]) -> None:
        self.root, self.keep, self.say = root, keep, say
        self.directory = ""
        self.trees: list[str] = []
        self._previous_sigterm: object = None

    def __enter__(self) -> Workspace:
        import signal
        import tempfile

        self.directory = tempfile.mkdtemp(prefix=WORKSPACE_PREFIX)
        _write_owner(self.directory, self.root)
        for stale, owner in _stale_workspaces(os.path.dirname(self.directory)):
            _remove_workspace(stale, owner)
            self.say(
                f"removed {stale} and its git worktrees, left by an earlier gate that is no longer running (pid {owner.get('pid')})"
            )
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
                self.say(
                    f"kept the worktrees and virtualenvs in {self.directory} (remove with: git worktree remove --force TREE)"
                )
                return
            for tree in self.trees:
                try:
                    git(self.root, "worktree", "remove", "--force", tree)
                except GateError:
                    pass  # removed below; prune forgets it
            shutil.rmtree(self.directory, ignore_errors=True)
            try:
                git(self.root, "worktree", "prune")
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
        git(self.root, "read-tree", head, env=env)
        excluded = os.path.relpath(os.path.abspath(out_dir), self.root)
        pathspec = [] if excluded.startswith("..") else ["--", ".", f":(exclude){excluded}"]
        git(self.root, "add", "--all", *pathspec, env=env)
        tree = git(self.root, "write-tree", env=env)
        if tree == git(self.root, "rev-parse", f"{head}^{{tree}}"):
            return head
        return git(self.root, "commit-tree", tree, "-p", head, "-m", "flamespace gate: the working tree", env=env)

    def checkout(self, side: Side) -> str:
        tree = self.path(side.name)
        self.trees.append(tree)
        git(self.root, "worktree", "add", "--detach", "--force", tree, side.commit)
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


def _start_time(pid: int) -> int | None:
    """When process ``pid`` started (clock ticks since boot, /proc/PID/stat), so that a reused pid
    is not taken for the gate that had it; None where there is no /proc."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return int(stat.read().rsplit(b")", 1)[1].split()[19])
    except (OSError, IndexError, ValueError):
        return None


def _alive(owner: dict[str, object]) -> bool:
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


def _stale_workspaces(temporary: str) -> list[tuple[str, dict[str, object]]]:
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


def _remove_workspace(directory: str, owner: dict[str, object]) -> None:
    """Remove a dead gate's workspace: its worktrees from its repository's list, then the files."""
    import shutil

    root = owner.get("root")
    for side in ("baseline", "candidate"):
        tree = os.path.join(directory, side)
        if isinstance(root, str) and os.path.isdir(tree):
            try:
                git(root, "worktree", "remove", "--force", tree)
            except GateError:
                pass  # removed below; prune forgets it
    shutil.rmtree(directory, ignore_errors=True)
    if isinstance(root, str) and os.path.isdir(root):
        try:
            git(root, "worktree", "prune")
        except GateError:
            pass


def _terminated(signum: int, frame: object) -> None:
    """SIGTERM (a CI job cancelled): leave through the cleanup (the caller exits as killed by SIGTERM would)."""
    raise GateStopped(signum)


def _main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


def tail(text: str, lines: int) -> str:
    """The last ``lines`` lines of a command's output (quoted when it fails)."""
    return "\n".join(text.rstrip().splitlines()[-lines:])
