"""flamespace convert and flamespace formats: detection, reader options, output formats, merging."""

from __future__ import annotations

import json

import flamespace as fs
from flamespace.formats import folded

from ..conftest import DATA
from .test_cli import run, write

PERF = DATA / "perf" / "c-program.perf"


def test_perf_converts_to_what_stackcollapse_perf_pl_prints(capsys):
    code, out, err = run(capsys, "convert", PERF, "--no-header")
    assert code == 0 and out.encode() == (DATA / "perf" / "c-program.collapsed").read_bytes()
    code, out, _ = run(capsys, "convert", PERF, "--all", "--tid", "--no-header")
    assert code == 0 and out.encode() == (DATA / "perf" / "c-program-all-tid.collapsed").read_bytes()


def test_the_folded_output_names_the_event_and_the_unit(capsys):
    code, out, _ = run(capsys, "convert", PERF)
    assert code == 0 and out.startswith("# unit: ns\n# metric: cpu-clock:ppp\n")  # cpu-clock's periods are ns


def test_the_output_format_follows_the_extension_or_to(capsys, tmp_path):
    target = tmp_path / "c.speedscope.json"
    code, _, _ = run(capsys, "convert", PERF, "-o", target)
    assert code == 0 and "speedscope.app" in json.loads(target.read_text())["$schema"]
    assert fs.read(target).graph() == fs.read(PERF)  # type: ignore[union-attr]  (speedscope reads as a chart)
    other = tmp_path / "c.out"
    code, _, _ = run(capsys, "convert", PERF, "--to", "speedscope", "-o", other)
    assert code == 0 and other.read_text() == target.read_text()
    code, _, _ = run(capsys, "convert", PERF, "-o", tmp_path / "c.txt")
    assert code == 0 and folded.loads((tmp_path / "c.txt").read_text()) == fs.read(PERF)


def test_several_inputs_are_merged_and_it_is_said(capsys, tmp_path):
    extra = write(tmp_path / "extra.folded", "busy;main 7\n")
    code, out, err = run(capsys, "convert", PERF, extra)
    assert code == 0 and folded.loads(out) == fs.read(PERF) + fs.read(extra)
    assert "merged 2 inputs" in err


def test_an_option_of_another_format_is_an_error(capsys, tmp_path):
    extra = write(tmp_path / "extra.folded", "busy;main 7\n")
    code, out, err = run(capsys, "convert", extra, "--kernel")
    assert code == 1 and out == ""
    assert "kernel does not apply to the folded format" in err and "Traceback" not in err


def test_an_unknown_input_lists_what_was_tried(capsys, tmp_path):
    junk = write(tmp_path / "notes.txt", "these runs were taken on my laptop\n")
    code, _, err = run(capsys, "convert", junk)
    assert code == 1
    for reason in (
        "speedscope: does not start with '{'",
        "perf: its first line has no ':' after a process id",
        "folded: line 1: expected a count",
    ):
        assert reason in err, err


def test_other_commands_read_perf_output(capsys):
    code, out, _ = run(capsys, "top", "--raw", PERF)
    assert code == 0 and "leaf" in out
    code, out, _ = run(capsys, "merge", PERF, PERF)
    assert code == 0 and folded.loads(out) == fs.read(PERF) * 2


def test_formats_lists_every_format(capsys):
    from flamespace.formats import registry

    code, out, _ = run(capsys, "formats", "--json")
    rows = json.loads(out)
    assert code == 0 and [row["format"] for row in rows] == registry.names()
    perf = next(row for row in rows if row["format"] == "perf")
    assert perf["support"] == "read" and "--event-filter" in perf["options"] and "stackcollapse-perf.pl" in perf["reference"]


def test_convert_help_takes_reader_help_from_the_records(capsys):
    code, out, _ = run(capsys, "convert", "--help")
    assert code == 0 and "[perf] name the root frame comm-PID/TID." in " ".join(out.split())
