"""Shared test helpers: golden files, peer fixtures, strategies."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

# Laws are about values, not speed: no per-example deadline (a loaded CI machine made one
# example overrun hypothesis's default 200 ms and fail a correct test).
settings.register_profile("flamespace", deadline=None)
settings.load_profile("flamespace")

DATA = Path(__file__).parent / "data"
PEER_FIXTURES = Path(__file__).resolve().parents[2] / "shared" / "peer-fixtures"
#: Set FLAMESPACE_UPDATE_GOLDENS=1 to rewrite golden files from the current output.
UPDATE_GOLDENS = os.environ.get("FLAMESPACE_UPDATE_GOLDENS") == "1"


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
            f"output differs from golden file {golden}; actual output in {out} "
            "(FLAMESPACE_UPDATE_GOLDENS=1 rewrites goldens)"
        )


@pytest.fixture
def peer_fixtures() -> Path:
    if not PEER_FIXTURES.is_dir():
        pytest.skip(f"peer fixtures not found at {PEER_FIXTURES} (they sit beside the clone in CI)")
    return PEER_FIXTURES
