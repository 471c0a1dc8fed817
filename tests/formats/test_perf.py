"""The perf reader: the rules of stackcollapse-perf.pl on small inputs, real perf output made here, and bad input."""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import flamespace as fs
from flamespace.diagnostics import Diagnostics
from flamespace.formats import folded, perf, registry

from ..conftest import DATA

PERF = DATA / "perf"


def collapse(text: str, **options: object) -> str:
    graph = perf.parse(io.StringIO(text), perf.ReadOptions(**options))  # type: ignore[arg-type]
    return folded.dumps(graph, folded.WriteOptions(header=False))


SAMPLE = """\
java 24636/25607 [000] 4794564.109216:     250 cycles:
\t7f722d142778 Ljava/io/PrintStream;::print+0x1f (/tmp/perf-19982.map)
\tffffffff8103ce3b native_safe_halt ([kernel.kallsyms])
\t7f53389994d0 [unknown] (/usr/lib/libjvm.so)
\t0 [unknown] ([unknown])

"""


def test_frames_root_first_with_the_period_as_value():
    assert collapse(SAMPLE) == "java;[unknown];[libjvm.so];native_safe_halt;java/io/PrintStream:::print 250\n"


@pytest.mark.parametrize(
    "option, root",
    [("pid", "java-24636"), ("tid", "java-24636/25607")],
)
def test_pid_and_tid_name_the_root(option, root):
    assert collapse(SAMPLE, **{option: True}).startswith(root + ";")


def test_annotations_and_addresses():
    text = collapse(SAMPLE, all=True, addrs=True)
    assert text == "java;[unknown <0>];[libjvm.so <7f53389994d0>];native_safe_halt_[k];java/io/PrintStream:::print_[j] 250\n"


def test_inlined_frames_are_split_and_marked():
    text = "app 1 1.0: 1 cycles:\n\t1 outer->inner(int)-> (/bin/a)\n\n"  # Perl's split drops the empty last part
    assert collapse(text) == "app;outer;inner_[i] 1\n"


def test_tidying_keeps_go_methods_and_anonymous_namespaces():
    text = (
        "go 1 1.0: 1 cycles:\n\t1 net/http.(*Client).Do (/bin/go)\n"
        "\t2 ns::(anonymous namespace)::f(int) (/bin/go)\n\t3 g(\"x\", 'y') (/bin/go)\n\n"
    )
    assert collapse(text) == "go;g;ns::(anonymous namespace)::f;net/http.(*Client).Do 1\n"


def test_only_the_first_event_type_is_kept_and_the_rest_named():
    text = "app 1 1.0: 5 cycles:\n\t1 f (m)\n\napp 1 2.0: 7 instructions:\n\t1 g (m)\n\n"
    diagnostics = Diagnostics()
    graph = perf.parse(io.StringIO(text), diagnostics=diagnostics)
    assert dict(graph.items()) == {("app", "f"): 5} and graph.metric == "cycles"
    assert any("instructions (1)" in m and "--event-filter" in m for m in diagnostics.messages())
    assert collapse(text, event_filter="instructions") == "app;g 7\n"


def test_a_one_character_command_is_read_as_the_perl_script_reads_it():
    """Its pattern wants two characters of command: the time and more join it (kept, for byte-for-byte output)."""
    assert collapse("a 1 1.0: 1 cycles:\n\t1 f (m)\n\n") == "a_1_1.0:;f 1\n"


def test_a_header_without_period_counts_one_and_zero_counts_one():
    assert collapse("app 1 1.0: cycles:\n\t1 f (m)\n\napp 1 1.0: 0 cycles:\n\t1 f (m)\n\n") == "app;f 2\n"


def test_the_last_sample_needs_its_blank_line_as_in_the_perl_script():
    diagnostics = Diagnostics()
    graph = perf.parse(
        io.StringIO("app 1 1.0: 3 cycles:\n\t1 f (m)\n\napp 1 2.0: 3 cycles:\n\t1 g (m)\n"), diagnostics=diagnostics
    )
    assert dict(graph.items()) == {("app", "f"): 3}
    assert any("line 4" in m and "blank line" in m for m in diagnostics.messages())


def test_a_one_line_sample_as_inferno_reads_it():
    assert collapse("     false 39654 19115.48:      1 cycles:u:  ffff9b201293 [unknown] ([unknown])\n") == "false;[unknown] 1\n"


def test_srcline_appends_the_source_line():
    text = "app 1 1.0: 1 cycles:\n\t408ebb f+0x8b (/bin/a)\n  file.cpp:137\n\t0 [unknown] ([unknown])\n\n"
    assert collapse(text, srcline=True) == "app;[unknown];f:file.cpp:137 1\n"


def test_a_line_that_is_no_header_or_stack_names_its_line():
    text = "app 1 1.0: 1 cycles:\n\t1 f (m)\n\tTHIS IS NOT A FRAME\n\n"
    with pytest.raises(fs.InputError, match=r"<input>:3: expected a sample header .* found '\\tTHIS IS NOT A FRAME'"):
        collapse(text)
    diagnostics = Diagnostics()
    graph = perf.parse(io.StringIO(text), perf.ReadOptions(skip_invalid=True), diagnostics=diagnostics)
    assert dict(graph.items()) == {("app", "f"): 1} and diagnostics.skipped == 1


def test_an_empty_input_is_an_empty_profile_and_a_warning():
    diagnostics = Diagnostics()
    assert len(perf.parse(io.StringIO(""), diagnostics=diagnostics)) == 0
    assert any("no samples" in m for m in diagnostics.messages())


def test_a_period_out_of_range_is_an_input_error():
    with pytest.raises(fs.InputError, match="out of range"):
        collapse("app 1 1.0: " + "9" * 400 + " cycles:\n\t1 f (m)\n\n")


def test_long_runs_of_digits_do_not_backtrack_for_ever():
    """The Perl patterns' (\\d+)* is exponential in Python's re on a failing run of digits."""
    line = "app " + "1" * 5000 + "x: " + "2" * 5000 + "y cycles:\n\n"
    with pytest.raises(fs.InputError):
        collapse(line)


@pytest.mark.parametrize("name", ["c-program", "python-program"])
def test_real_perf_output_is_collapsed_as_the_perl_script_does(name):
    data = (PERF / f"{name}.perf").read_bytes()
    for suffix, options in (("", {}), ("-all-tid", {"all": True, "tid": True})):
        graph = registry.read(io.BytesIO(data), options=options)
        expected = (PERF / f"{name}{suffix}.collapsed").read_bytes()
        assert folded.dumps(graph, folded.WriteOptions(header=False)).encode() == expected


def test_real_perf_output_is_detected_and_weighs_its_periods():
    graph = fs.read(PERF / "c-program.perf")
    assert graph.metric == "cpu-clock:ppp"
    shares = {stack[-2]: value for stack, value in graph.items() if stack[-1] == "leaf"}
    assert shares["costly"] > shares["cheap"]  # three times the work; a sampled ratio, not asserted exactly


def test_sniff_says_why_not():
    assert perf.sniff(b"a;b 1\n") == "line 1 is not a sample header ('comm pid [cpu] time: [period] event:'): 'a;b 1'"
    assert perf.sniff(b"app 1 1.0: 1 cycles:\n\n").startswith("the sample at line 1 has no stack")
    assert perf.sniff(b"app 1 1.0: 1 cycles:\n") is None
    assert perf.sniff((PERF / "python-program.perf").read_bytes()) is True


@settings(max_examples=500, derandomize=True)
@given(st.text(alphabet=" \t()abf01_-+>[]:;/.\x85\xa0é", max_size=40))
def test_the_quick_split_of_a_stack_line_is_the_pattern_s(tail):
    """_stack_parts splits common lines with string methods: it must agree with the Perl pattern on every line."""
    for line in (tail, "\t" + tail, " 7f12 " + tail, "\t7f12 " + tail + ")", "ab_1 " + tail + " (m)"):
        match = perf._STACK.match(line)
        assert perf._stack_parts(line) == (None if match is None else match.groups()), line


def test_an_event_filter_that_keeps_nothing_names_the_events_there_are():
    diagnostics = Diagnostics()
    graph = perf.parse(
        io.StringIO("app 1 1.0: 5 cycles:\n\t1 f (m)\n\n"), perf.ReadOptions(event_filter="instructions"), diagnostics=diagnostics
    )
    assert len(graph) == 0 and any(
        "no samples of event instructions; the input has: cycles (1)" in m for m in diagnostics.messages()
    )


def _sample(event: str, period: str = "") -> str:
    return f"app 1 [000] 1.000: {period} {event}: \n\t1 work (/bin/app)\n\t2 main (/bin/app)\n\n"


@pytest.mark.parametrize(
    "text, unit",
    [
        (_sample("cpu-clock:ppp", "250000") * 2, "ns"),  # a clock event's periods are nanoseconds
        (_sample("task-clock", "1000"), "ns"),
        (_sample("cycles:u", "123456"), "cycles"),  # other events: counts of the event
        (_sample("cpu-clock") * 3, "samples"),  # no period: each sample counts 1
        (_sample("cpu-clock", "1000") + _sample("cpu-clock"), None),  # a mix counts neither
    ],
)
def test_the_unit_is_what_the_values_count(text: str, unit: str | None) -> None:
    """perf profiles said nothing of their unit: 1,821,821,820 nanoseconds were shown as samples."""
    import io

    assert perf.parse(io.StringIO(text)).metadata.unit == unit
