"""Byte-for-byte conformance with the FlameGraph toolkit's collapsed output (../shared/peer-fixtures)."""

from __future__ import annotations

from pathlib import Path

import pytest

from flamespace.formats import folded, registry

from ..conftest import PEER_FIXTURES


def collapsed_files():
    if not PEER_FIXTURES.is_dir():
        return []
    return sorted(PEER_FIXTURES.glob("flamegraph-perf/expected/*.txt")) + sorted(
        PEER_FIXTURES.glob("flamegraph-examples/*-collapsed*.txt")
    )


@pytest.mark.parametrize("path", collapsed_files() or [None], ids=lambda p: p.name if p else "absent")
def test_reading_and_writing_reproduces_the_perl_output(path: Path, peer_fixtures):
    graph = registry.read(path)
    text = folded.dumps(graph, folded.WriteOptions(header=False))
    assert text.encode("utf-8", "surrogateescape") == path.read_bytes()
