"""`flamespace record --format html`: the run written as the HTML viewer, with a thread picker
when stacks start with their thread."""

from __future__ import annotations

import textwrap

from flamespace.cli import main
from flamespace.render.html import read_payload

PROGRAM = textwrap.dedent("""
    import threading, time

    def spin(seconds):
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            pass

    worker = threading.Thread(target=spin, args=(0.3,), name="worker")
    worker.start()
    spin(0.3)
    worker.join()
""")


def test_record_writes_the_html_viewer_with_a_thread_picker(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "prog.py").write_text(PROGRAM)
    assert main(["record", "-q", "--rate", "200", "--threads", "--format", "html", "-o", "run.html", "--", "prog.py"]) == 0
    page = (tmp_path / "run.html").read_text()
    data = read_payload(page)
    assert data["title"] == "flamespace record: python prog.py" and data["roots"] == ["thread"]
    assert data["units"]["kind"] == "scaled"  # wall time in ns, shown in ms and s
    threads = {data["names"][name] for name, depth in zip(data["frames"]["name"], data["frames"]["depth"]) if depth == 1}
    assert {"MainThread", "worker"} <= threads
    assert any(name.startswith("spin (prog.py:") for name in data["names"])


def test_record_html_default_name_and_no_picker_without_threads(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["record", "-q", "--rate", "200", "--format", "html", "-c", "sum(range(10**6))"]) == 0
    written = list(tmp_path.glob("profile-*.html"))
    assert len(written) == 1 and read_payload(written[0].read_text())["roots"] == []
