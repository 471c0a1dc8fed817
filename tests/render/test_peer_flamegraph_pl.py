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
    [([], {}), (["--reverse"], {"reverse": True}), (["--inverted"], {"inverted": True}),
     (["--minwidth", "0.5%"], {"minwidth": "0.5%"}), (["--width", "800", "--height", "20"], {"width": 800, "height": 20}),
     (["--minwidth", "2"], {"minwidth": 2}), (["--reverse", "--minwidth", "3"], {"reverse": True, "minwidth": 3}),
     (["--flamechart"], {"flamechart": True})],
)
def test_same_frames_as_flamegraph_pl(perl_flamegraph: str, peer_fixtures: Path, flags: list, options: dict) -> None:
    source = peer_fixtures / "flamegraph-examples" / "example-perf-stacks-collapsed.txt"
    expected = subprocess.run(["perl", perl_flamegraph, *flags, str(source)], capture_output=True, text=True, check=True).stdout
    ours = svg(fs.read(source), SvgOptions(**options))
    assert frames(expected) and frames(ours) == frames(expected)
