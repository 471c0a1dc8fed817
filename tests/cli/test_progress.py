"""The progress line on stderr (cli/_progress.py): drawn in place, notes above it, erased at the end."""

from __future__ import annotations

import io

from flamespace.cli._progress import BAR, Progress, track


def test_the_line_says_how_far_and_how_long_is_left():
    progress = Progress("runs", 4, io.StringIO())
    progress.started = 100.0
    progress.done = 1
    assert progress.line(130.0) == f"runs  1/4  {'━' * round(BAR / 4)}{'─' * (BAR - round(BAR / 4))}  1:30 left"
    progress.done = 4
    assert progress.line(200.0) == f"runs  4/4  {'━' * BAR}"


def test_a_note_goes_above_the_line_and_nothing_stays_at_the_end():
    stream = io.StringIO()
    progress = Progress("runs", 2, stream)
    progress.draw()
    progress.note("warning: run 1")
    progress.advance(2, label="run 2")
    progress.erase()
    text = stream.getvalue()
    assert "warning: run 1\n" in text and "run 2  2/2" in text
    assert text.endswith("\r\x1b[2K")  # the last line erased
    assert text.split("\n")[-1].rsplit("\r\x1b[2K", 1)[1] == ""


def test_track_yields_every_item_and_erases_its_line():
    stream = io.StringIO()
    assert list(track(range(5), "files", 5, stream)) == [0, 1, 2, 3, 4]
    assert stream.getvalue().endswith("\r\x1b[2K")
