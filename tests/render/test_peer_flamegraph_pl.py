"""Conformance with flamegraph.pl: the same frames at the same places, for the options they share.

Needs Perl and a FlameGraph checkout (never committed here): set FLAMEGRAPH_PL to the path
of flamegraph.pl. Skips otherwise.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import flamespace as fs
from flamespace.render import SvgOptions, svg

FLAMEGRAPH_PL = os.environ.get("FLAMEGRAPH_PL", "")
FRAME = re.compile(r'<title>(.*?) \(([\d,]+) samples[^<]*</title><rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)"')


def frames(document: str) -> set:
    return {m.groups() for m in FRAME.finditer(document)}


@pytest.fixture
def perl_flamegraph() -> str:
    if not FLAMEGRAPH_PL or not Path(FLAMEGRAPH_PL).is_file() or not shutil.which("perl"):
        pytest.skip("set FLAMEGRAPH_PL to flamegraph.pl of github.com/brendangregg/FlameGraph (and install perl)")
    return FLAMEGRAPH_PL


@pytest.mark.parametrize(
    "flags,options",
    [
        ([], {}),
        (["--reverse"], {"reverse": True}),
        (["--inverted"], {"inverted": True}),
        (["--minwidth", "0.5%"], {"minwidth": "0.5%"}),
        (["--width", "800", "--height", "20"], {"width": 800, "height": 20}),
        (["--minwidth", "2"], {"minwidth": 2}),
        (["--reverse", "--minwidth", "3"], {"reverse": True, "minwidth": 3}),
        (["--flamechart"], {"flamechart": True}),
    ],
)
def test_same_frames_as_flamegraph_pl(perl_flamegraph: str, peer_fixtures: Path, flags: list, options: dict) -> None:
    source = peer_fixtures / "flamegraph-examples" / "example-perf-stacks-collapsed.txt"
    expected = subprocess.run(["perl", perl_flamegraph, *flags, str(source)], capture_output=True, text=True, check=True).stdout
    ours = svg(fs.read(source), SvgOptions(**options))
    assert frames(expected) and frames(ours) == frames(expected)


FILLED = re.compile(r'<title>(.*?)</title><rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)"[^>]*? fill="([^"]+)"')


def test_differential_self_deltas_colour_as_flamegraph_pl(perl_flamegraph: str, peer_fixtures: Path, tmp_path: Path) -> None:
    """--delta self is flamegraph.pl's colouring: same frames, same tooltips, same colours (the
    scale is the largest change of one stack in both; without our legend the same places too)."""
    source = peer_fixtures / "flamegraph-examples" / "example-perf-stacks-collapsed.txt"
    rows = [line.rsplit(" ", 1) for line in source.read_text().splitlines() if line.strip()]
    by_count = sorted(range(len(rows)), key=lambda i: -int(rows[i][1]))
    changed = {
        by_count[0]: 3,
        by_count[1]: 0.5,
        by_count[2]: 2,
        by_count[5]: 0,
    }  # the largest change drawn (flamegraph.pl scales by undrawn ones too)
    lines = [f"{stack} {count} {int(int(count) * changed.get(i, 1))}" for i, (stack, count) in enumerate(rows)]
    diff = tmp_path / "diff.folded"
    diff.write_text("\n".join(lines) + "\n")
    expected = subprocess.run(["perl", perl_flamegraph, str(diff)], capture_output=True, text=True, check=True).stdout
    ours = svg(fs.read(diff), SvgOptions(delta="self", legend=False))
    theirs = set(FILLED.findall(expected))
    assert len({fill for *_, fill in theirs}) > 3 and set(FILLED.findall(ours)) == theirs
