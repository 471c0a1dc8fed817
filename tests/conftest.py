"""Shared test helpers: golden files, peer fixtures, strategies."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

# Laws are about values, not speed: no per-example deadline (a loaded CI machine made one
# example overrun hypothesis's default 200 ms and fail a correct test).
settings.register_profile("flamespace", deadline=None)
# In CI the examples are derived from each test's name (derandomize): a run's verdict depends on
# the code alone, and a latent bug that a random example happens to hit is found on a developer's
# machine (where examples stay random) instead of failing an unrelated change.
settings.register_profile("flamespace-ci", deadline=None, derandomize=True)
settings.load_profile("flamespace-ci" if os.environ.get("CI") == "true" else "flamespace")

DATA = Path(__file__).parent / "data"
PEER_FIXTURES = Path(__file__).resolve().parents[2] / "shared" / "peer-fixtures"
#: Set FLAMESPACE_UPDATE_GOLDENS=1 to rewrite golden files from the current output.
UPDATE_GOLDENS = os.environ.get("FLAMESPACE_UPDATE_GOLDENS") == "1"
#: CI (CI=true; .ci/run sets it) installs what the checks need (Chromium, Go's pprof, the peer
#: fixtures beside the clone): there a skipped check is a failure, so a green run never stands
#: for checks that did not run. On a user's machine a skip stays a skip, with its reason.
IN_CI = os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}
#: The skips CI allows, by a part of their reason: what no registry this CI reaches carries
#: (FlameGraph's Perl scripts, CPython 3.14 and 3.15: tests/remote/targets.py's NOT_IN_CI), and tests
#: run once for all the parameters they are given.
CI_ALLOWED_SKIPS = (
    "set FLAMEGRAPH_PL",
    "which CI cannot install",
    "compares every backend at once",
    "the frame backend's own behaviour",
)


def _skip_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    reason = str(longrepr[2]) if isinstance(longrepr, tuple) else str(longrepr)
    return reason.removeprefix("Skipped: ")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    """Under CI=true a skip whose reason is not in CI_ALLOWED_SKIPS becomes a failure."""
    outcome = yield
    report = outcome.get_result()
    if IN_CI and report.skipped and not hasattr(report, "wasxfail"):
        reason = _skip_reason(report)
        if not any(allowed in reason for allowed in CI_ALLOWED_SKIPS):
            report.outcome = "failed"
            report.longrepr = f"skipped under CI=true, where this check must run: {reason}"


def assert_golden(actual: str, relative: str, tmp_path: Path) -> None:
    """Compare with tests/data/<relative>; on mismatch keep the actual output and name its path."""
    golden = DATA / relative
    if UPDATE_GOLDENS:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_bytes(actual.encode("utf-8", "surrogateescape"))
        return
    expected = golden.read_bytes().decode("utf-8", "surrogateescape")
    if actual != expected:
        out = tmp_path / Path(relative).name
        out.write_bytes(actual.encode("utf-8", "surrogateescape"))
        pytest.fail(
            f"output differs from golden file {golden}; actual output in {out} (FLAMESPACE_UPDATE_GOLDENS=1 rewrites goldens)"
        )


@pytest.fixture
def peer_fixtures() -> Path:
    if not PEER_FIXTURES.is_dir():
        pytest.skip(f"peer fixtures not found at {PEER_FIXTURES} (they sit beside the clone in CI)")
    return PEER_FIXTURES
