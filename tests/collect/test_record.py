"""flamespace record end to end: known-answer programs run in a child interpreter."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import flamespace as fs
from flamespace.cli import main

from .recorder_error import boundary_error_ns

FLAMESPACE = [os.path.join(os.path.dirname(sys.executable), "flamespace")]

PROGRAM = """
import json, threading, time

own = {}  # the program's own clock: wall and CPU ns of each timed call, per thread

def timed(function):
    def timing(*args):
        wall, cpu = time.perf_counter_ns(), time.thread_time_ns()
        function(*args)
        key = f"{function.__name__} {threading.current_thread().name}"
        own[key] = [time.perf_counter_ns() - wall, time.thread_time_ns() - cpu]
    return timing

@timed
def spin(seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass

@timed
def nap(seconds):
    time.sleep(seconds)

@timed
def worker():
    spin(0.4)

@timed
def main():
    t = threading.Thread(target=worker, name="worker")
    t.start()
    spin(0.4)
    nap(0.4)
    t.join()

main()
with open("own.json", "w") as file:
    json.dump(own, file)
"""


def own_clock(directory: Path, name: str, cpu: bool = False) -> float:
    """What the program measured itself, in ns, for the function ``name`` over its threads."""
    own = json.loads((directory / "own.json").read_text())
    return sum(times[1 if cpu else 0] for key, times in own.items() if key.split()[0] == name)


def time_in(graph: fs.FlameGraph, needle: str) -> float:
    return sum(v for s, v in graph.items() if any(needle in f for f in s))


def assert_agrees_with_own_clock(graph: fs.FlameGraph, directory: Path, name: str, threads: int = 1, cpu: bool = False) -> None:
    measured, own = time_in(graph, f"{name} (prog.py"), own_clock(directory, name, cpu)
    bound = boundary_error_ns(graph, 2 * threads)
    assert abs(measured - own) <= bound, (
        f"{name}: profile {measured / 1e6:.1f} ms, own clock {own / 1e6:.1f} ms, bound {bound / 1e6:.1f} ms"
    )


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def record(tmp_path, *args, output="out.folded"):
    out = tmp_path / output
    code = main(["record", "-q", "-o", str(out), *args])
    return code, out


# A gap this long (the recorder's own measure of how much the machine held it up) makes the
# bound of boundary_error_ns too wide to tell a right profile from a wrong one: run again.
DISTURBED_GAP_MS = 50.0


def record_undisturbed(tmp_path, *args) -> fs.FlameGraph:
    """Record the program; once more if the recorder reports it was held up (see above)."""
    for _ in range(2):
        code, out = record(tmp_path, *args)
        assert code == 0
        graph = fs.read(out)
        if float(graph.metadata.labels["longest_gap_ms"]) <= DISTURBED_GAP_MS:
            break
    return graph


@pytest.fixture
def program(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return write(tmp_path / "prog.py", PROGRAM)


#: Where the sampler runs (--sampler): the tests of what a recording holds run with each.
SAMPLERS = ("outside", "inside")


@pytest.mark.parametrize("sampler", SAMPLERS)
def test_wall_mode_gives_each_function_its_share_of_the_time(tmp_path, program, sampler):
    graph = record_undisturbed(tmp_path, "--sampler", sampler, "--rate", "1000", "--", str(program))
    assert graph.metadata.labels["sampler"] == sampler
    # Three threads-worth of about 0.4 s each: main spins, main sleeps, the worker spins.
    # A recorder that left out sleeping threads, or one thread, or counted one twice, is
    # 400 ms off; one that put time on the wrong function, by however much it misplaced.
    for name, threads in (("nap", 1), ("spin", 2), ("main", 1), ("worker", 1)):
        assert_agrees_with_own_clock(graph, tmp_path, name, threads)
    assert graph.metadata.unit == "ns" and graph.metadata.labels["mode"] == "wall"


@pytest.mark.parametrize("sampler", SAMPLERS)
def test_cpu_mode_leaves_out_sleeping(tmp_path, program, sampler):
    graph = record_undisturbed(tmp_path, "--sampler", sampler, "--mode", "cpu", "--rate", "1000", "--", str(program))
    assert graph.metadata.labels["sampler"] == sampler
    # The program's own CPU clock: about 0 in nap, up to 0.4 s in each spin (less when it
    # waited for a CPU). Counting wall time would give nap 400 ms.
    assert_agrees_with_own_clock(graph, tmp_path, "nap", cpu=True)
    assert_agrees_with_own_clock(graph, tmp_path, "spin", threads=2, cpu=True)


@pytest.mark.parametrize("sampler", SAMPLERS)
def test_idle_marks_off_cpu_time(tmp_path, program, sampler):
    graph = record_undisturbed(tmp_path, "--sampler", sampler, "--idle", "--rate", "1000", "--", str(program))
    assert graph.metadata.labels["sampler"] == sampler
    idle_nap = sum(v for s, v in graph.items() if s[-1] == "[idle]" and any("nap" in f for f in s))
    # Only the gap at the start of the nap, which has the end of the spin before it, can be
    # on-CPU time; idle marking that did not work would leave all 400 ms of it there.
    assert time_in(graph, "nap (prog.py") - idle_nap <= boundary_error_ns(graph, 1)
    assert idle_nap > 0


def test_threads_and_pid_add_root_frames(tmp_path, program):
    code, out = record(tmp_path, "--threads", "--process-root", "--no-lines", "--", str(program))
    roots = {stack[1] for stack in fs.read(out)}
    assert {"MainThread", "worker"} <= roots
    assert all(s[0].startswith("prog.py (") for s in fs.read(out))
    assert all(":" not in f.rpartition("(")[2] for s in fs.read(out) for f in s[2:] if "(" in f and "frozen" not in f)


@pytest.mark.parametrize("sampler", SAMPLERS)
def test_start_up_work_in_sitecustomize_is_in_the_profile(tmp_path, monkeypatch, sampler):
    monkeypatch.chdir(tmp_path)
    site_dir = tmp_path / "site"
    write(
        site_dir / "sitecustomize.py",
        """
        import time
        def slow_start_up():
            end = time.perf_counter() + 0.3
            while time.perf_counter() < end:
                pass
        slow_start_up()
    """,
    )
    monkeypatch.setenv("PYTHONPATH", str(site_dir))
    script = write(tmp_path / "quick.py", "x = 1\n")
    code, out = record(tmp_path, "--sampler", sampler, "--rate", "500", "--", str(script))
    assert code == 0
    graph = fs.read(out)
    assert graph.metadata.labels["sampler"] == sampler
    # The spin runs 300 ms by the wall clock however busy the machine; a share of the profile
    # would not do (the rest of the start-up stretches with the load).
    spun = time_in(graph, "slow_start_up (site/sitecustomize.py")
    assert spun >= 0.3e9 - boundary_error_ns(graph, 2), (spun, graph.metadata.labels["longest_gap_ms"])


def test_deep_recursion_is_recorded_whole(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    script = write(
        tmp_path / "deep.py",
        """
        import time
        def down(n):
            if n == 0:
                end = time.perf_counter() + 0.3
                while time.perf_counter() < end:
                    pass
                return
            down(n - 1)
        down(500)
    """,
    )
    code, out = record(tmp_path, "--", str(script))
    assert max(len(s) for s in fs.read(out)) >= 501


def test_exceptions_exit_codes_and_tracebacks_are_those_of_python(tmp_path, monkeypatch, capfd):
    monkeypatch.chdir(tmp_path)
    script = write(
        tmp_path / "fails.py",
        """
        def broken():
            raise ValueError("boom")
        broken()
    """,
    )
    code, out = record(tmp_path, "--", str(script))
    err = capfd.readouterr().err
    assert code == 1
    assert out.exists()
    assert 'File "' in err and 'fails.py", line 4' in err and "ValueError: boom" in err
    assert "_bootstrap" not in err and "<string>" not in err

    exits = write(tmp_path / "exits.py", "import sys\nsys.exit(7)\n")
    assert record(tmp_path, "--", str(exits))[0] == 7


def test_argv_path_and_main_are_those_of_python(tmp_path, monkeypatch, capfd):
    monkeypatch.chdir(tmp_path)
    write(
        tmp_path / "sub" / "show.py",
        """
        import sys, json
        print(json.dumps({"argv": sys.argv, "path0": sys.path[0], "name": __name__, "file": __file__}))
    """,
    )
    record(tmp_path, "--", "sub/show.py", "a", "--flag")
    shown = json.loads(capfd.readouterr().out.strip().splitlines()[-1])
    direct = json.loads(subprocess.run([sys.executable, "sub/show.py", "a", "--flag"], capture_output=True, text=True).stdout)
    assert shown == direct


@pytest.mark.parametrize("target", [["--", "sub/show.py"], ["-m", "show"], ["-c", "import show"]])
def test_sys_path_is_that_of_python_and_the_working_directory_is_not_on_it_early(tmp_path, monkeypatch, capfd, target):
    # We start `python -S -c ...`, whose '' entry python itself would not have while site runs.
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "sub"))  # where -m and -c find show.py
    write(tmp_path / "sitecustomize.py", "print('working directory sitecustomize ran')\n")
    write(tmp_path / "sub" / "show.py", "import sys, json\nprint(json.dumps(sys.path))\n")
    record(tmp_path, *target)
    shown = capfd.readouterr().out
    python_words = [w for w in target if w != "--"]
    direct = subprocess.run([sys.executable, *python_words], capture_output=True, text=True).stdout
    assert "sitecustomize ran" not in direct and shown == direct


def test_module_and_code_targets(tmp_path, monkeypatch, capfd):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "pkg" / "__init__.py", "")
    write(tmp_path / "pkg" / "tool.py", "import sys\nprint('tool', sys.argv[1:])\n")
    code, out = record(tmp_path, "-m", "pkg.tool", "x")
    assert code == 0 and "tool ['x']" in capfd.readouterr().out
    code, out = record(tmp_path, "-c", "import sys; print('code', sys.argv)", "y")
    assert code == 0 and "code ['-c', 'y']" in capfd.readouterr().out
    # py-spy's habit: the interpreter and its flags first.
    code, out = record(tmp_path, "--", "python", "-X", "dev", "-m", "pkg.tool", "z")
    assert code == 0 and "tool ['z']" in capfd.readouterr().out


def test_unicode_paths(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    script = write(
        tmp_path / "données" / "ünïcode.py",
        """
        import time
        def café():
            time.sleep(0.2)
        café()
    """,
    )
    code, out = record(tmp_path, "--", str(script), output="sortie ☃.folded")
    assert code == 0
    assert any("café (ünïcode.py:4)" in f for s in fs.read(out) for f in s)  # relative to the script's directory


def test_speedscope_output_is_a_timeline_per_thread(tmp_path, program):
    code, out = record(tmp_path, "--format", "speedscope", "--rate", "500", "--", str(program), output="p.speedscope.json")
    document = json.loads(out.read_text())
    assert document["$schema"] == "https://www.speedscope.app/file-format-schema.json"
    names = [p["name"] for p in document["profiles"]]
    assert "MainThread" in names and "worker" in names
    for profile in document["profiles"]:
        assert profile["type"] == "evented" and profile["unit"] == "nanoseconds"
        times = [e["at"] for e in profile["events"]]
        assert times == sorted(times)
        depth = 0
        for event in profile["events"]:
            depth += 1 if event["type"] == "O" else -1
            assert depth >= 0
        assert depth == 0
    chart = fs.read(out)  # the timeline, a thread per profile
    assert isinstance(chart, fs.FlameChart) and {"MainThread", "worker"} <= set(chart.threads)
    graph = chart.graph()
    assert graph.metadata.labels["mode"] == "wall"
    assert_agrees_with_own_clock(graph, tmp_path, "nap")


def test_live_mode_finds_what_is_still_allocated(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    script = write(
        tmp_path / "leak.py",
        """
        kept = []
        def leak():
            for _ in range(100):
                kept.append(bytearray(10_000))
        def temporary():
            return sum(len(bytearray(10_000)) for _ in range(100))
        leak()
        temporary()
    """,
    )
    code, out = record(tmp_path, "--mode", "live", "--", str(script))
    graph = fs.read(out)
    assert graph.metadata.unit == "bytes"
    leaked = sum(v for s, v in graph.items() if s[-1].startswith("leak (leak.py:5)"))
    assert 1_000_000 <= leaked < 1_100_000
    # (before 3.11 a code object keeps a freed frame for reuse: a few hundred bytes stay)
    assert sum(v for s, v in graph.items() if any("temporary" in f for f in s)) < 2_000


@pytest.mark.parametrize("sampler", SAMPLERS)
def test_ctrl_c_saves_the_profile(tmp_path, monkeypatch, sampler):
    monkeypatch.chdir(tmp_path)
    script = write(
        tmp_path / "forever.py",
        """
        import time
        print("ready", flush=True)
        while True:
            time.sleep(0.01)
    """,
    )
    out = tmp_path / "int.folded"
    process = subprocess.Popen(
        [*FLAMESPACE, "record", "-q", "--sampler", sampler, "-o", str(out), "--", str(script)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    assert process.stdout.readline().strip() == "ready"
    time.sleep(0.3)
    os.killpg(process.pid, signal.SIGINT)  # what the terminal does on Ctrl-C
    _, err = process.communicate(timeout=30)
    assert process.returncode == 130, err
    assert "KeyboardInterrupt" in err
    assert any("forever.py" in f for s in fs.read(out) for f in s)
    assert fs.read(out).metadata.labels["sampler"] == sampler


@pytest.mark.parametrize("sampler", SAMPLERS)
def test_duration_stops_the_program_and_keeps_the_profile(tmp_path, monkeypatch, sampler, capfd):
    monkeypatch.chdir(tmp_path)
    script = write(tmp_path / "forever.py", "import time\nwhile True:\n    time.sleep(0.01)\n")
    started = time.monotonic()
    code, out = record(tmp_path, "--sampler", sampler, "--duration", "0.5", "--", str(script))
    assert code == 0
    assert "KeyboardInterrupt" not in capfd.readouterr().err  # stopped on purpose: no traceback of the program's
    assert time.monotonic() - started < 60  # stopped (a program that runs forever), however busy the machine
    graph = fs.read(out)
    labels = graph.metadata.labels
    # It ran for at least the time asked, and what was kept is that time: each sample weighs the
    # time since the last, so the total is the recording's duration to within one gap (not a fixed
    # 0.5 s: on a loaded machine the stop itself can come a few hundred ms late).
    assert float(labels["duration_s"]) >= 0.5 - 0.001
    gap = float(labels["longest_gap_ms"]) * 1e6
    assert graph.total() == pytest.approx(float(labels["duration_s"]) * 1e9, abs=gap + 0.02e9)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--", "missing.py"], "no such script"),
        ([], "nothing to run"),
        # (-m x -c y: "-c y" are module x's arguments, as with python -m: tests/cli/test_program_args.py)
        (["--mode", "live", "--weight", "time", "-c", "pass"], "the memory modes weigh by bytes or count"),
        (["--", "python", "-Z", "x.py"], "unknown interpreter option"),
    ],
)
def test_usage_errors_are_one_line(tmp_path, monkeypatch, capsys, args, message):
    monkeypatch.chdir(tmp_path)
    assert main(["record", "-o", "x.folded", *args]) == 1
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_svg_output_is_a_flame_graph_of_the_run(tmp_path, program):
    from xml.dom import minidom

    code, out = record(tmp_path, "--format", "svg", "--", str(program), output="run.svg")
    assert code == 0
    document = minidom.parse(str(out))
    titles = [t.firstChild.data for t in document.getElementsByTagName("title") if t.firstChild]
    assert any(t.startswith("spin (prog.py:") for t in titles)
    assert "flamespace record: python" in out.read_text()
    # the python palette (Python code green, the standard library aqua), and labels that drop " (file:line)" first
    from flamespace.render import SvgOptions
    from flamespace.render.palettes import Colourer

    colour = Colourer(SvgOptions(colors="python"))
    for group in document.getElementsByTagName("g")[1:]:
        titles = group.getElementsByTagName("title")
        if titles and titles[0].firstChild and "(prog.py:" in titles[0].firstChild.data:
            name = titles[0].firstChild.data.rsplit(" (", 1)[0]
            assert group.getElementsByTagName("rect")[0].getAttribute("fill") == colour(name)
    assert '"location": " ' in out.read_text()


def test_a_wall_profile_of_several_threads_says_they_are_summed(tmp_path, capsys):
    """A 0.3 s run with three waiting threads holds about 1.2 s of wall time: the profile says how
    many threads it sums (the `threads` header), and record's summary and top's title say so."""
    script = write(
        tmp_path / "waiters.py",
        textwrap.dedent("""
        import threading, time
        waiters = [threading.Thread(target=time.sleep, args=(0.4,)) for _ in range(3)]
        for waiter in waiters:
            waiter.start()
        for waiter in waiters:
            waiter.join()
    """),
    )
    capsys.readouterr()
    code = main(["record", "--rate", "200", "-o", str(tmp_path / "out.folded"), "--", str(script)])
    err = capsys.readouterr().err
    assert code == 0
    graph = fs.read(tmp_path / "out.folded")
    assert graph.metadata.labels["threads"] == "4"
    assert "4 threads: " in err and "of thread time, summed" in err
    assert main(["top", str(tmp_path / "out.folded")]) == 0
    title = capsys.readouterr().out.splitlines()[0]
    assert title.endswith(f": 4 threads summed over {graph.metadata.labels['duration_s']} s)")


def test_one_thread_says_nothing_of_threads(tmp_path, capsys):
    script = write(tmp_path / "alone.py", "import time\ntime.sleep(0.2)\n")
    capsys.readouterr()
    assert main(["record", "-o", str(tmp_path / "out.folded"), "--", str(script)]) == 0
    assert "threads" not in capsys.readouterr().err
    assert fs.read(tmp_path / "out.folded").metadata.labels["threads"] == "1"
