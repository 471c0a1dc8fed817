"""record's live status line: on a terminal only, rewritten in place, erased before the summary;
the channel it reads (the sampler's status file) exists only when someone watches."""

from __future__ import annotations

import os
import subprocess
import textwrap
from pathlib import Path

from flamespace.collect import Program, SamplerOptions, launcher, parse_command
from flamespace.collect._bootstrap import SUBPROCESS_ENV, _profile_child_interpreters
from flamespace.collect.engine import Engine
from flamespace.collect.raw import STATUS_SIZE, decode_status, encode_status

from ..cli._terminal import CLI, run_on_terminal

#: The status line as drawn: rewritten from the start of the line, the cursor left there.
DRAWN = b"\r\x1b[Kflamespace record: "
CLEAR = b"\r\x1b[K"


def waiting_program(tmp_path: Path) -> Path:
    """A program that runs (sleeping) until the test creates ``go`` (at most 60 s), so that the
    status line has time to appear however slow the machine is."""
    program = tmp_path / "wait.py"
    program.write_text(
        textwrap.dedent(f"""\
        import os, time
        deadline = time.monotonic() + 60
        while not os.path.exists({str(tmp_path / "go")!r}) and time.monotonic() < deadline:
            time.sleep(0.02)
        print("done")
    """)
    )
    return program


def go_when(tmp_path: Path, pattern: bytes):
    """A ``seen`` callback that lets the waiting program end once the terminal shows ``pattern``."""

    def seen(shown: bytes) -> None:
        if pattern in shown:
            (tmp_path / "go").touch()

    return seen


def test_the_status_line_is_drawn_in_place_and_erased_before_the_summary(tmp_path):
    program = waiting_program(tmp_path)
    code, shown, out = run_on_terminal(
        ["record", "-o", str(tmp_path / "p.folded"), "--", str(program)],
        which="stderr",
        cwd=str(tmp_path),
        seen=go_when(tmp_path, b" samples \xc2\xb7 "),
    )
    assert code == 0 and out == b"done\n"
    draws = shown.split(DRAWN)[1:]
    assert draws, shown
    status = [d for d in draws if b" samples \xc2\xb7 " in d]
    assert status and all(
        d.split(b"\r")[0].split(b" \xc2\xb7 ")[0].endswith(b" s") for d in status
    )  # "1.2 s · 96 samples · 99 Hz"
    assert status[-1].split(b"\r")[0].split(b" \xc2\xb7 ")[2].split(b" ")[1] == b"Hz"
    last, summary = shown.rsplit(CLEAR, 1)
    assert summary.startswith(b"flamespace record: ") and b"wrote" in summary  # the summary, after the line was erased
    assert b"Ctrl-C" not in summary


def test_no_status_line_with_quiet_or_on_a_pipe(tmp_path):
    program = tmp_path / "short.py"
    program.write_text("import time\ntime.sleep(0.8)\n")
    code, shown, _ = run_on_terminal(
        ["record", "-q", "-o", str(tmp_path / "p.folded"), "--", str(program)], which="stderr", cwd=str(tmp_path)
    )
    assert code == 0 and b"Ctrl-C" not in shown and b"\x1b" not in shown
    piped = subprocess.run(
        CLI + ["record", "-o", str(tmp_path / "q.folded"), "--", str(program)],
        cwd=str(tmp_path),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=120,
    )
    assert piped.returncode == 0
    assert b"\x1b" not in piped.stderr and b"Ctrl-C" not in piped.stderr and b"\r" not in piped.stderr
    assert b"wrote" in piped.stderr.splitlines()[-1]  # the summary, as before


def test_progress_reports_time_samples_and_rate(tmp_path):
    program = waiting_program(tmp_path)
    reports = []

    def progress(report: launcher.Progress) -> None:
        reports.append(report)
        if report.samples:
            (tmp_path / "go").touch()

    result = launcher.record_program(
        Program(parse_command([str(program)])), SamplerOptions(rate=200), stdout=subprocess.DEVNULL, progress=progress
    )
    assert result.exit_code == 0 and reports
    seconds = [r.seconds for r in reports]
    assert seconds == sorted(seconds) and seconds[0] >= launcher.PROGRESS_SECONDS
    counted = [r.samples for r in reports if r.samples is not None]
    assert counted == sorted(counted) and counted[-1] > 0
    assert counted[-1] <= int(result.recording.graph.metadata.labels["samples"])
    assert all(r.rate is None or r.rate > 0 for r in reports)


def test_without_a_watcher_there_is_no_channel(tmp_path, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a status channel was made with nobody to read it")

    monkeypatch.setattr(launcher, "_Watch", refuse)
    program = tmp_path / "quick.py"
    program.write_text("pass\n")
    result = launcher.record_program(Program(parse_command([str(program)])), SamplerOptions())
    assert result.exit_code == 0


def test_memory_modes_report_time_only(tmp_path):
    from flamespace.collect import MemoryOptions

    program = waiting_program(tmp_path)
    reports = []

    def progress(report: launcher.Progress) -> None:
        reports.append(report)
        (tmp_path / "go").touch()

    launcher.record_program(
        Program(parse_command([str(program)])), MemoryOptions(mode="live"), stdout=subprocess.DEVNULL, progress=progress
    )
    assert reports and all(r.samples is None and r.rate is None for r in reports)


def test_status_records_survive_only_whole():
    record = encode_status(4210, 998, 12_300_000_000)
    assert len(record) == STATUS_SIZE and decode_status(record) == (4210, 998, 12_300_000_000)
    assert decode_status(b"") is None and decode_status(record[:30]) is None
    torn = encode_status(5000, 998, 12_300_000_000)[:21] + record[21:]  # a read that met a write
    assert decode_status(torn) is None


def test_only_the_main_process_reports(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", "")
    config = {
        "target": {},
        "site": True,
        "status": "/tmp/x/status",
        "recorder": "sampler",
        "arguments": {},
        "hook_dir": "/hook",
        "out_dir": "/tmp/x",
    }
    _profile_child_interpreters(config)
    assert "status" not in os.environ[SUBPROCESS_ENV]
    engine = Engine(SamplerOptions(), on_progress=(0.2, lambda quality, elapsed: None))
    assert engine.forked().on_progress is None  # a forked child does not write its parent's status


def test_the_status_line_fits_the_terminal(monkeypatch):
    from flamespace.cli._recording import StatusLine

    class Terminal:
        def __init__(self) -> None:
            self.text = ""

        def write(self, text: str) -> None:
            self.text += text

        def flush(self) -> None:
            pass

        def fileno(self) -> int:
            return 2

    full = "flamespace record: 12.3 s · 4,210 samples · 998 Hz (Ctrl-C stops and saves)"
    for columns, shown in ((200, full), (40, full[:39])):  # never as wide as the terminal: no wrap
        monkeypatch.setattr(os, "get_terminal_size", lambda fd: os.terminal_size((columns, 24)))
        stream = Terminal()
        line = StatusLine(stream)
        line.show(launcher.Progress(12.34, 4210, 998.4))
        assert stream.text == "\r\x1b[K" + shown + "\r"
        line.clear()
        assert stream.text.endswith("\r\r\x1b[K")
        line.clear()  # once
        assert stream.text.count("\x1b[K") == 2
