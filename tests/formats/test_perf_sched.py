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
    assert "no sched:sched_switch, sched:sched_stat_sleep" in perf_sched.sniff(head)
    assert registry.detect(head).name == "perf"


def test_no_off_cpu_time_is_an_empty_profile_and_a_warning():
    diagnostics = Diagnostics()
    graph = perf_sched.parse(
        io.StringIO("app 1 [0] 1.0: sched:sched_switch: prev_comm=app prev_pid=1\n\n"), diagnostics=diagnostics
    )
    assert len(graph) == 0 and any("no off-CPU time" in m for m in diagnostics.messages())


def test_a_delay_out_of_range_is_an_input_error():
    text = EVENTS.read_text().replace("delay=5000000", "delay=" + "9" * 400)
    with pytest.raises(fs.InputError, match=r"<input>:\d+: delay 9+\.\.\. is out of range"):
        perf_sched.parse(io.StringIO(text))


SWITCHES = DATA / "perf" / "sched-switch-events.txt"


@pytest.mark.parametrize(
    "suffix, options",
    [("", {}), ("-wake_stack", {"wake_stack": True}), ("-recurse-tid", {"recurse": True, "tid": True})],
)
def test_off_cpu_time_from_switch_time_stamps(suffix, options):
    """Kernels without schedstats: hand-computed expectations for sched-switch-events.txt.

    app (100) leaves the CPU at 1.000000 in app_wait, worker wakes it at 1.000500 (a second
    wake-up, by other, at 1.000600 changes nothing), it is back at 1.000700: 700 us. worker
    sleeps from 1.001000, woken by a timer on swapper at 1.004000, back at 1.004250: 3250 us.
    app leaves again at 1.002000 in app_read, worker wakes it at 1.005000, back at 1.005100:
    3100 us; in the chain graph the waker's last sleep follows '-'. batch is preempted (no
    wake-up) from 1.006000 to 1.006400: 400 us. other never comes back: not counted.
    """
    graph = registry.read(SWITCHES, options=options)  # detected as perf-sched: it has sched_switch events
    text = folded.dumps(graph, folded.WriteOptions(header=False))
    assert text.encode() == (DATA / "perf" / f"sched-switch-events{suffix}.collapsed").read_bytes()
    assert graph.unit == "us" and graph.metric == "off-cpu"
    assert graph.metadata.labels["off-cpu"] == "sched_switch time stamps"


def test_stat_events_win_unless_switch_is_asked_for():
    stat = registry.read(EVENTS)
    assert stat.metadata.labels["off-cpu"] == "sched_stat delays"
    switched = registry.read(EVENTS, options={"off_cpu": "switch"})
    assert switched.metadata.labels["off-cpu"] == "sched_switch time stamps"
    assert registry.read(SWITCHES, options={"off_cpu": "stat"}).total() == 0  # no sched_stat events: nothing


def test_nanosecond_time_stamps_are_exact():
    assert perf_sched._ns("1.000000700") - perf_sched._ns("1.0000007") == 0
    assert perf_sched._ns("12.5") == 12_500_000_000


def test_a_time_going_backwards_is_an_input_error_naming_the_line():
    text = SWITCHES.read_text().replace("1.000700: sched:sched_switch", "0.999000: sched:sched_switch")
    with pytest.raises(fs.InputError, match=r"<input>:25: time 0.999000 is before the switch"):
        perf_sched.parse(io.StringIO(text))
    diagnostics = Diagnostics()
    graph = perf_sched.parse(io.StringIO(text), perf_sched.ReadOptions(skip_invalid=True), diagnostics=diagnostics)
    assert ("app", "main", "app_wait") not in {stack[:3] for stack in graph}
    assert any("before the switch" in m for m in diagnostics.messages())


def test_a_bad_off_cpu_option_is_an_argument_error():
    with pytest.raises(fs.ArgumentError, match="off_cpu must be one of auto, stat, switch"):
        registry.read(SWITCHES, options={"off_cpu": "wall"})
