"""IPython and Jupyter (flamespace/notebook.py, render/notebook.py): the magics run in IPython's
InteractiveShell and display the viewer (text/html, an iframe) with the short tree (text/plain);
profiles, comparisons and histories show themselves (_repr_html_); none of it is imported by
``import flamespace``."""

from __future__ import annotations

import html
import subprocess
import sys
import time

import numpy as np
import pytest

import flamespace as fs
from flamespace.render.html import read_payload

IPython = pytest.importorskip("IPython", reason="IPython is not installed (pip install '.[test]' or '.[notebook]')")

from IPython.core.interactiveshell import InteractiveShell  # noqa: E402
from IPython.utils.capture import capture_output  # noqa: E402

#: Code the cells call: two of the program's functions, one of them in json (library code).
SETUP = """\
import json, time

def parse(text):
    return json.loads(text)

def work(seconds=0.0, rounds=3):
    text = json.dumps([{"a": i, "b": [i] * 20} for i in range(300)])
    for _ in range(rounds):
        parse(text)
    end = time.process_time() + seconds
    while time.process_time() < end:
        parse(text)
"""


@pytest.fixture(scope="module")
def shell():
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "flamespace")
    shell.run_cell(SETUP)
    yield shell
    InteractiveShell.clear_instance()


def run(shell, cell: str):
    """The cell's displayed outputs (each a dict of MIME type -> data), its stdout and its result."""
    with capture_output() as captured:
        result = shell.run_cell(cell)
    return [output.data for output in captured.outputs], captured.stdout, result


def page_of(frame: str) -> str:
    """The document an iframe holds in its srcdoc."""
    assert frame.startswith('<iframe srcdoc="') and 'sandbox="allow-scripts' in frame
    return html.unescape(frame[len('<iframe srcdoc="') : frame.index('" title=')])


def test_load_ext_registers_the_magics(shell) -> None:
    magics = shell.magics_manager.magics
    assert "flamespace" in magics["line"] and "flamespace" in magics["cell"] and "flamespace_compare" in magics["line"]


def test_a_traced_cell_shows_the_viewer_and_the_tree(shell) -> None:
    """--trace is exact: every call is in the profile, so what is shown can be checked frame by frame."""
    outputs, _, result = run(shell, "%%flamespace --trace --save traced\nwork(rounds=5)\n")
    assert result.success, result.error_in_exec
    [output] = outputs
    text = output["text/plain"]
    assert "library code folded (--show-all)" in text.splitlines()[0]
    assert "└─ work (" in text and "parse (" in text and " in json" in text
    data = read_payload(page_of(output["text/html"]))
    assert any(name.startswith("work (") for name in data["names"])
    graph = shell.user_ns["traced"]
    assert isinstance(graph, fs.FlameGraph) and graph.metadata.unit == "ns"
    cell = f"<module> (<cell {shell.execution_count}>:1)"  # the count of the cell (In [N]) that ran it
    assert all(stack[0] == cell for stack in graph), sorted(graph)[:3]  # the notebook's frames cut off
    calls = {stack[-1].split(" (")[0] for stack in graph}
    assert {"work", "parse", "loads"} <= calls


def test_a_sampled_line_shows_the_main_thread_alone(shell) -> None:
    """Sampling: the kernel's own threads (history, heartbeat) only wait, so the tree shows the main thread."""
    outputs, _, result = run(shell, "%flamespace --rate 200 --save sampled work(seconds=0.3)")
    assert result.success, result.error_in_exec
    [output] = outputs
    graph = shell.user_ns["sampled"]
    assert graph.metadata.labels["mode"] == "wall" and graph.total() > 0
    assert "MainThread only" in output["text/plain"] and "<cell " in output["text/plain"]
    assert "text/html" in output


def test_memory_and_text_only(shell) -> None:
    outputs, _, result = run(shell, "%flamespace --memory --text --save allocated work(rounds=50)")
    assert result.success, result.error_in_exec
    [output] = outputs
    assert "text/html" not in output
    assert shell.user_ns["allocated"].metadata.unit == "bytes"


def test_an_exception_in_the_code_is_shown_and_the_profiler_stopped(shell) -> None:
    import threading

    before = threading.active_count()
    outputs, _, result = run(shell, "%%flamespace --rate 200\nwork(rounds=1)\nraise ValueError('in the cell')\n")
    assert isinstance(result.error_in_exec, ValueError) and not outputs
    assert threading.active_count() == before  # no sampler thread left behind
    outputs, _, result = run(shell, "%flamespace --trace work()")
    assert result.success and len(outputs) == 1


def test_compare_two_saved_profiles(shell) -> None:
    run(shell, "%%flamespace --trace --save one\nwork(rounds=2)\n")
    run(shell, "%%flamespace --trace --save two\nwork(rounds=8)\n")
    [output], _, result = run(shell, "%flamespace_compare one two")
    assert result.success
    assert output["text/plain"].startswith("one → two (one: ")
    from flamespace.render.compare_page import read_comparison

    assert read_comparison(page_of(output["text/html"]))["title"] == "one → two"


@pytest.mark.parametrize(
    "cell, message",
    [
        ("%flamespace --bogus work()", "unknown option '--bogus'"),
        ("%flamespace --mode fast work()", "--mode is one of"),
        ("%flamespace --trace --rate 10 work()", "--trace records every call"),
        ("%flamespace --rate lots work()", "--rate takes a number"),
        ("%flamespace", "no code to profile"),
        ("%flamespace_compare one", "the names of two profiles"),
        ("%flamespace_compare one nowhere", "no variable 'nowhere'"),
        ("%flamespace_compare one SETUP_TEXT", "is a str, not a profile"),
    ],
)
def test_mistakes_are_one_line_usage_errors(shell, capsys, cell: str, message: str) -> None:
    shell.user_ns["SETUP_TEXT"] = "text"
    run(shell, "%%flamespace --trace --save one\nwork()\n")
    outputs, _, result = run(shell, cell)
    assert not outputs
    error = result.error_in_exec or result.error_before_exec
    assert type(error).__name__ == "UsageError" and message in str(error), error


def test_profiler_results_read_like_the_cli() -> None:
    """fs.profile() and fs.trace(), as blocks and decorators: the short tree in human units and the viewer."""
    tracer = fs.trace()

    @tracer
    def traced() -> None:
        import json

        for _ in range(20):
            json.loads(json.dumps(list(range(200))))

    traced()
    tree = tracer.tree()
    assert " ms" in tree or " µs" in tree
    assert "traced (" in tree and " in json" in tree and "<stdlib>" not in tree
    assert "<stdlib>/json" in tracer.tree(show_all=True, min_share=0)
    assert tracer._repr_html_().startswith("<iframe srcdoc=")
    profiler = fs.profile(rate=200, threads=True)
    assert profiler._repr_html_() is None  # nothing recorded yet
    with profiler:  # 0.2 s of work by the clock: about 40 samples however fast the machine is
        end = time.perf_counter() + 0.2
        while time.perf_counter() < end:
            sum(i * i for i in range(1000))
    assert profiler.tree(thread="all").splitlines()[0].startswith(tuple("0123456789"))


def test_objects_show_themselves() -> None:
    graph = fs.FlameGraph({("main (app.py:1)", "work (app.py:3)"): 30, ("main (app.py:1)",): 10}, unit="ms")
    data = read_payload(page_of(graph._repr_html_()))
    assert data["total"] == 40 and data["units"]
    assert fs.FlameGraph({})._repr_html_() is None
    from flamespace.core.metadata import Metadata

    chart = fs.FlameChart(Metadata(unit="ms"))
    chart.append(0, "MainThread", ("a", "b"), 5)
    chart.append(5, "MainThread", ("a",), 5)
    assert "flamespace-chart-data" in page_of(chart._repr_html_())
    runs = [fs.FlameGraph({("a",): 100 + i, ("a", "b"): 50 + 3 * i}) for i in range(5)]
    later = [fs.FlameGraph({("a",): 100 + i, ("a", "b"): 150 + 3 * i}) for i in range(5)]
    comparison = fs.compare(runs, later)
    assert "compare" in page_of(comparison._repr_html_()).lower()
    from flamespace.stats.history import History, analyse

    sums = np.array([[10.0, 11.0, 30.0, 31.0]])
    history = History(
        by="commit",
        points=("c1", "c2", "c3", "c4"),
        runs=np.array([1, 1, 1, 1]),
        totals=np.array([20.0, 20.0, 40.0, 40.0]),
        stacks=("a;b",),
        sums=sums,
        squares=sums**2,
        unit="ms",
    )
    table = history._repr_html_()
    assert table.startswith("<table>") and "<code>b</code>" in table and "31.0 ms" in table
    assert analyse(history, permutations=99)._repr_html_().startswith("<?xml")


def test_import_flamespace_imports_no_notebook_code() -> None:
    code = (
        "import sys, flamespace as fs; fs.FlameGraph({('a',): 1}); "
        "print(sorted(m for m in sys.modules if m.startswith(('IPython', 'flamespace.notebook', 'flamespace.render'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
