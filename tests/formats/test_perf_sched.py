"""The perf-sched reader: off-CPU time as stackcollapse-perf-sched.awk computes it (run with gawk).

tests/data/perf/sched-events.txt is hand-made in perf script's layout (the kernel of the
development machine has no sched_stat_* events): two threads that sleep and wake each other,
a duplicated wake-up, a wake-up of a thread never seen leaving the CPU, a sleep under 1 us.
The expected files are the awk script's output (sorted) with each of its variables.
"""

from __future__ import annotations

import io

import pytest

import flamespace as fs
from flamespace.diagnostics import Diagnostics
from flamespace.formats import folded, perf_sched, registry

from ..conftest import DATA

EVENTS = DATA / "perf" / "sched-events.txt"


@pytest.mark.parametrize(
    "suffix, options",
    [
        ("", {}),
        ("-record_tid", {"tid": True}),
        ("-record_wake_stack", {"wake_stack": True}),
        ("-recurse", {"recurse": True}),
        ("-recurse-record_tid", {"recurse": True, "tid": True}),
    ],
)
def test_off_cpu_time_as_the_awk_script_computes_it(suffix, options):
    graph = registry.read(EVENTS, options=options)  # detected as perf-sched, not perf
    text = folded.dumps(graph, folded.WriteOptions(header=False))
    assert text.encode() == (DATA / "perf" / f"sched-events{suffix}.collapsed").read_bytes()
    assert graph.unit == "us" and graph.metric == "off-cpu"


def test_the_extension_breaks_the_tie_between_perf_sched_and_perf(tmp_path):
    """Both accept scheduler events (perf counts each event once); .perf names perf, .perf-sched this format."""
    for name, expected in (("s.perf", "perf"), ("s.perf-sched", "perf-sched"), ("s.txt", "perf-sched")):
        assert registry.detect(EVENTS.read_bytes(), name).name == expected


def test_without_stat_events_it_refuses_and_perf_reads_the_file():
    head = (DATA / "perf" / "c-program.perf").read_bytes()
    assert "no sched:sched_stat_sleep" in perf_sched.sniff(head)
    assert registry.detect(head).name == "perf"


def test_no_off_cpu_time_is_an_empty_profile_and_a_warning():
    diagnostics = Diagnostics()
    graph = perf_sched.parse(io.StringIO("app 1 [0] 1.0: sched:sched_switch: prev_comm=app prev_pid=1\n\n"), diagnostics=diagnostics)
    assert len(graph) == 0 and any("no off-CPU time" in m for m in diagnostics.messages())


def test_a_delay_out_of_range_is_an_input_error():
    text = EVENTS.read_text().replace("delay=5000000", "delay=" + "9" * 400)
    with pytest.raises(fs.InputError, match=r"<input>:\d+: delay 9+\.\.\. is out of range"):
        perf_sched.parse(io.StringIO(text))
