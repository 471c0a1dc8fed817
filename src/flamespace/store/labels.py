"""Labels a stored profile gets from where it was made: git's commit and branch, ``--label k=v``."""

from __future__ import annotations

import os
import subprocess

from ..errors import ArgumentError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

#: CI variables that name the branch when the checkout is a detached HEAD (GitHub Actions, GitLab, generic).
BRANCH_VARIABLES = ("GITHUB_HEAD_REF", "GITHUB_REF_NAME", "CI_COMMIT_REF_NAME", "BRANCH_NAME")


def parse_labels(pairs: Sequence[str]) -> dict[str, str]:
    """``["k=v", ...]`` -> {k: v}; :class:`ArgumentError` naming a pair without ``=`` or key."""
    labels: dict[str, str] = {}
    for pair in pairs:
        key, equals, value = pair.partition("=")
        if not equals or not key.strip():
            raise ArgumentError(f"--label {pair!r}: give KEY=VALUE, e.g. --label bench=parse")
        labels[key.strip()] = value.strip()
    return labels


def git_labels(directory: str | None = None) -> dict[str, str]:
    """``commit`` and ``branch`` of the git checkout at ``directory`` (default: here), or {} outside one.
    A detached HEAD (CI checkouts) takes its branch from the CI's variables when they say."""
    commit = _git(directory, "rev-parse", "--verify", "--quiet", "HEAD")
    if not commit:
        return {}
    labels = {"commit": commit}
    branch = _git(directory, "rev-parse", "--abbrev-ref", "HEAD")
    if branch == "HEAD":
        branch = next((os.environ[v] for v in BRANCH_VARIABLES if os.environ.get(v)), None)
    if branch:
        labels["branch"] = branch
    return labels


def _git(directory: str | None, *args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", *args], cwd=directory, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 and done.stdout.strip() else None
