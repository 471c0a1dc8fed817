"""The deterministic tracer: known-answer programs, exact counts and structure (never timing)."""

from __future__ import annotations

import sys
import threading

import pytest

import flamespace as fs
from flamespace.collect.tracer import Trace
from flamespace.collect import trace_engine
from flamespace.collect.trace_engine import available

pytestmark = pytest.mark.skipif(available() is not None, reason=f"no tracer here: {available()}")


@pytest.fixture(autouse=True, params=(*trace_engine.backends_here(), "python"))
def backend(request, monkeypatch):
    """Every test with each backend this interpreter has (sys.monitoring: 3.12+; the frame
    evaluation function: 3.11.4+ on Linux), and with the pure-Python fallback that
    stands in where the C extension is not built ("python"). A test that asks for what a
    backend cannot record (lines, builtins: not the frame backend) gets the next one."""
    if request.param == "python":
        from flamespace.collect import _pytracer

        monkeypatch.setattr(trace_engine, "_extension", lambda: _pytracer)
        monkeypatch.setattr(trace_engine, "extension_problem", lambda: "no C extension (a test)")
    else:
        here = trace_engine.backends_here()
        monkeypatch.setattr(trace_engine, "backends_here", lambda: here[here.index(request.param) :])
    return request.param


def short(stack):
    """A stack's function names (``fib (file:line)`` -> ``fib``, without ``test.<locals>.``)."""
    return tuple(frame.split(" (")[0].rsplit("<locals>.", 1)[-1] for frame in stack)


def counts(trace: Trace):
    """Calls per stack, by function names."""
    totals = {}
    for stack, count in trace.calls.items():
        totals[short(stack)] = totals.get(short(stack), 0) + count
    return totals


def rows(trace: Trace):
    return {short((row.function,))[0]: row for row in trace.table()}


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def fib_calls_by_depth(n, depth=1, out=None):
    out = {} if out is None else out
    out[depth] = out.get(depth, 0) + 1
    if n >= 2:
        fib_calls_by_depth(n - 1, depth + 1, out)
        fib_calls_by_depth(n - 2, depth + 1, out)
    return out


def nothing_installed():
    """No profile or trace function, no threading hook, no sys.monitoring tool, no frame evaluation
    function of ours: stop() left nothing."""
    from flamespace.collect import _tracer

    monitoring = getattr(sys, "monitoring", None)
    return (
        sys.getprofile() is None
        and sys.gettrace() is None
        and threading._profile_hook is None  # type: ignore[attr-defined]
        and (monitoring is None or monitoring.get_tool(2) is None)
        and not _tracer.active()
        and not _tracer.frame_hooked()
    )


def check_consistent(trace: Trace):
    """Every stack's derived inclusive time is integer and covers its callees; a stack called
    once has an inclusive time equal to its longest (one) call, measured from call to return."""
    inclusive = trace.inclusive()
    for stack, value in inclusive.items():
        assert isinstance(value, int)
        children = sum(v for s, v in inclusive.items() if len(s) == len(stack) + 1 and s[:-1] == stack)
        assert value == int(dict(trace.graph.items()).get(stack, 0)) + children
    for stack, count in trace.calls.items():
        if count == 1 and stack in trace.longest:
            assert trace.longest[stack] == inclusive[stack], stack


def test_recursion_gives_exact_counts_per_stack_and_function():
    with fs.trace() as t:
        fib(10)
    by_depth = fib_calls_by_depth(10)
    assert counts(t.result) == {("fib",) * depth: calls for depth, calls in by_depth.items()}
    row = rows(t.result)["fib"]
    assert (row.calls, row.primitive) == (177, 1)
    # recursion counted once per stack: the function's inclusive time is its outermost call's
    assert row.inclusive == t.result.inclusive()[next(s for s in t.result.calls if len(s) == 1)]
    assert row.exclusive == int(t.graph().total())
    check_consistent(t.result)
    assert nothing_installed()


def test_every_node_of_the_c_tree_adds_up_exactly(tmp_path):
    """inclusive (call to return) = exclusive (between events) + callees' inclusive, for every node."""
    from flamespace.collect import _tracer

    def leaf():
        return 1

    def branch(n):
        return sum(leaf() for _ in range(n))

    _tracer.start(True, False, 10_000, "main", str(tmp_path / "events"))
    try:
        branch(3)  # the first entry (key 0), called twice at the root: one node
        branch(3)
        fib(6)
    finally:
        stream, threads, entries, recorded, dropped, end_ns, write_errno, forked, *_ = _tracer.stop()
    assert sys.getprofile() is None and dropped == 0 and not write_errno and not forked
    assert not (tmp_path / "events").exists()  # unlinked as soon as it was open
    (analysis,) = stream.analyse(end_ns, False, 1000, False)
    parents, keys, calls, inclusive, exclusive, longest, *_ = analysis
    children = [0] * len(parents)
    for node, parent in enumerate(parents):
        if parent >= 0:
            children[parent] += inclusive[node]
    for node in range(len(parents)):
        assert inclusive[node] == exclusive[node] + children[node]
        assert longest[node] <= inclusive[node]
    assert len(set(zip(parents, keys))) == len(parents)  # one node per stack
    names = [getattr(entries[k], "co_name", entries[k]) for k in keys]
    assert calls[names.index("branch")] == 2 and calls[names.index("leaf")] == 6
    assert calls[names.index("builtins.sum")] == 2


def test_generator_resumptions_are_calls_and_keep_the_stack():
    def inner():
        return 0

    def gen():
        for i in range(3):
            inner()
            yield i

    def consume():
        return list(gen())

    with fs.trace() as t:
        consume()
    assert counts(t.result) == {("consume",): 1, ("consume", "gen"): 4, ("consume", "gen", "inner"): 3}
    check_consistent(t.result)


def test_coroutine_resumptions_keep_the_stack():
    class Once:
        def __await__(self):
            yield

    async def step():
        await Once()
        return 1

    async def job():
        return await step() + await step()

    def drive():
        coroutine = job()
        try:
            while True:
                coroutine.send(None)
        except StopIteration:
            pass

    with fs.trace() as t:
        drive()
    found = counts(t.result)
    assert found[("drive", "job")] == 3  # started, and resumed after each suspension
    assert found[("drive", "job", "step")] == 4
    awaited = "Once.__await__" if sys.version_info >= (3, 11) else "__await__"  # co_qualname: 3.11+
    assert found[("drive", "job", "step", awaited)] == 4
    check_consistent(t.result)


def test_an_exception_unwinding_through_frames_pops_them():
    def boom(n):
        if n == 0:
            raise ValueError("deep")
        boom(n - 1)

    def after():
        return 1

    def catcher():
        try:
            boom(3)
        except ValueError:
            pass
        after()

    with fs.trace() as t:
        catcher()
    assert counts(t.result) == {
        ("catcher",): 1,
        ("catcher", "boom"): 1,
        ("catcher", "boom", "boom"): 1,
        ("catcher", "boom", "boom", "boom"): 1,
        ("catcher", "boom", "boom", "boom", "boom"): 1,
        ("catcher", "after"): 1,
    }
    check_consistent(t.result)


def test_an_exception_out_of_the_block_stops_the_trace():
    def fail():
        raise KeyError("x")

    with pytest.raises(KeyError):
        with fs.trace() as t:
            fail()
    assert counts(t.result) == {("fail",): 1}
    assert nothing_installed()


def test_a_thread_started_after_tracing_began_is_traced():
    def leaf():
        return 0

    def worker():
        for _ in range(5):
            leaf()

    with fs.trace(threads=True) as t:
        thread = threading.Thread(target=worker, name="the-worker")
        thread.start()
        thread.join()
    found = {stack[1:]: n for stack, n in counts(t.result).items() if stack[0] == "the-worker"}
    assert found[("Thread.run", "worker")] == 1
    assert found[("Thread.run", "worker", "leaf")] == 5
    check_consistent(t.result)
    # nothing left behind: a thread started now is not traced and gets no hook
    seen = []
    thread = threading.Thread(target=lambda: seen.append(sys.getprofile()))
    thread.start()
    thread.join()
    assert seen == [None] and nothing_installed()


def test_builtins_are_counted_with_the_option_only():
    def work():
        items = []
        for i in range(4):
            items.append(i)
        return len(items)

    with fs.trace(builtins=True) as t:
        work()
    found = counts(t.result)
    assert found[("work", "list.append")] == 4 and found[("work", "builtins.len")] == 1
    with fs.trace() as plain:
        work()
    assert counts(plain.result) == {("work",): 1}


def test_the_event_bound_stops_recording_and_says_so():
    with fs.trace(max_events=50) as t:
        fib(12)
    assert t.result.events == 50 and t.result.dropped > 0
    assert any("--max-events" in problem for problem in t.result.problems)
    assert sum(t.result.calls.values()) <= 50  # type: ignore[attr-defined]
    check_consistent(t.result)


def test_the_chart_sums_to_the_graph_exactly():
    with fs.trace(chart=True) as t:
        fib(8)
    chart = t.chart()
    assert chart is not None and chart.metadata.unit == "ns"
    assert dict(chart.graph().items()) == dict(t.graph().items())
    timestamps = [sample.timestamp for sample in chart.samples()]
    assert timestamps == sorted(timestamps)


def test_the_table_formats(tmp_path):
    import csv
    import io
    import json

    from flamespace.collect.tracer import write_table

    with fs.trace() as t:
        fib(7)
    table = t.table()
    out = io.StringIO()
    write_table(table, out, "csv")
    parsed = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert [(short((r["function"],))[0], r["calls"], r["primitive"]) for r in parsed] == [("fib", "41", "1")]
    out = io.StringIO()
    write_table(table, out, "json")
    assert json.loads(out.getvalue())["functions"][0]["calls"] == 41
    out = io.StringIO()
    write_table(table, out, "text")
    assert out.getvalue().splitlines()[1].split()[:2] == ["41", "1"]


def test_results_before_the_block_ends_are_refused():
    tracer = fs.trace()
    with pytest.raises(fs.ArgumentError):
        tracer.graph()


def test_tracing_twice_at_once_is_refused():
    with fs.trace():
        with pytest.raises(RuntimeError):
            with fs.trace():
                pass
    assert nothing_installed()


def test_stop_removes_the_hook_from_threads_still_running():
    go, seen = threading.Event(), []

    def waiter():
        go.wait()
        seen.append(sys.getprofile())

    def leaf():
        return 0

    with fs.trace() as t:
        thread = threading.Thread(target=waiter)
        thread.start()
        leaf()
    go.set()
    thread.join()
    assert seen == [None]
    assert counts(t.result)[("leaf",)] == 1


def test_record_program_with_trace_options_gives_a_trace(tmp_path):
    script = tmp_path / "calls.py"
    script.write_text("def f():\n    return 1\n\nfor _ in range(7):\n    f()\n")
    from flamespace.collect import parse_command

    result = fs.record_program(fs.Program(parse_command([str(script)])), fs.TraceOptions())
    trace = result.recording.trace
    assert result.exit_code == 0 and trace is not None
    assert counts(trace)[("<module>", "f")] == 7
    assert result.recording.graph is trace.graph and trace.graph.metadata.labels["mode"] == "trace"
    assert fs.TraceOptions().engine_arguments()["max_events"] == fs.TraceOptions().max_events
    with pytest.raises(fs.ArgumentError):
        fs.TraceOptions(max_events=0)


def test_a_traced_programs_chart_sums_to_its_graph_with_thread_roots(tmp_path):
    from flamespace.collect import parse_command

    script = tmp_path / "threads.py"
    script.write_text("import threading\ndef f():\n    return 1\n\nt = threading.Thread(target=f)\nt.start()\nt.join()\nf()\n")
    result = fs.record_program(fs.Program(parse_command([str(script)])), fs.TraceOptions(threads=True, chart=True))
    chart, graph = result.recording.chart, result.recording.graph
    assert chart is not None
    assert dict(chart.graph().items()) == dict(graph.items())
    assert {stack[0] for stack in graph} >= {"MainThread", "Thread-1 (f)"}


def function_of(location):
    """``f (file:line)`` -> ``f (file)``: lines and frames of one function meet there."""
    name, _, where = location.partition(" (")
    return f"{short((name,))[0]} ({where.rsplit(':', 1)[0]})"


def test_events_stream_through_the_file_in_chunks_from_two_threads_at_once():
    """More events than a chunk holds, from two threads interleaved: counts stay exact."""
    from flamespace.collect import _tracer

    def worker():
        fib(16)  # 3,193 calls

    with fs.trace(threads=True) as t:
        thread = threading.Thread(target=worker, name="second")
        thread.start()
        fib(18)  # 8,361 calls: 16,722 events, more than two chunks
        thread.join()
    assert t.result.events > 2 * _tracer.CHUNK_EVENTS and t.result.dropped == 0
    by_thread = {}
    for stack, count in counts(t.result).items():
        if stack[-1] == "fib":
            by_thread[stack[0]] = by_thread.get(stack[0], 0) + count
    assert by_thread == {"MainThread": 8361, "second": 3193}
    check_consistent(t.result)


def test_every_node_adds_up_across_chunks_and_threads(tmp_path):
    from flamespace.collect import _tracer

    def worker():
        fib(12)

    _tracer.start(True, False, 10**6, "main", str(tmp_path / "events"))
    try:
        thread = threading.Thread(target=worker)
        thread.start()
        fib(17)
        thread.join()
    finally:
        stream, threads, entries, recorded, dropped, end_ns, *_ = _tracer.stop()
    analyses = stream.analyse(end_ns, True, 1000, False)
    assert len(analyses) == len(threads) == 1  # threading.setprofile was not set: the thread was not traced
    parents, keys, calls, inclusive, exclusive, longest, times, nodes, weights, lines, deep = analyses[0]
    children = [0] * len(parents)
    for node, parent in enumerate(parents):
        if parent >= 0:
            children[parent] += inclusive[node]
    assert all(inclusive[n] == exclusive[n] + children[n] for n in range(len(parents)))
    from array import array

    seg_nodes, seg_weights = array("q"), array("q")
    seg_nodes.frombytes(nodes)
    seg_weights.frombytes(weights)
    per_node = [0] * len(parents)
    for node, weight in zip(seg_nodes, seg_weights):
        per_node[node] += weight
    assert per_node == exclusive  # the chart's stretches are the exclusive times, exactly
    assert len(stream.events()) == recorded and deep == 0 and lines == []


def test_line_times_known_answer_and_lines_add_up_to_their_functions(backend):
    if backend == "python":  # the fallback has no line times: said before anything runs
        with pytest.raises(fs.ArgumentError, match="time per line needs the C extension"):
            with fs.trace(line_times=True):
                pass
        return

    def body(n):
        total = 0
        for i in range(n):
            total += i
        return total

    def caller():
        return body(5) + body(3)

    with fs.trace(line_times=True) as t:
        caller()
    lines = t.result.lines
    assert lines is not None
    first = body.__code__.co_firstlineno
    hits = {
        int(loc.rsplit(":", 1)[1].rstrip(")")) - first: h
        for loc, (_, h) in lines.items()
        if loc.startswith("test_line_times") and "body" in loc
    }
    assert hits[1] == 2 and hits[3] == 8 and hits[4] == 2  # total = 0; total += i (5 + 3); return
    exclusive_by_function = {}
    for stack, value in t.graph().items():
        key = function_of(stack[-1])
        exclusive_by_function[key] = exclusive_by_function.get(key, 0) + value
    line_by_function = {}
    for location, (ns, _) in lines.items():
        key = function_of(location)
        line_by_function[key] = line_by_function.get(key, 0) + ns
    assert line_by_function == exclusive_by_function  # every ns of a function is on one of its lines
    assert [row.line for row in t.lines()][:1] and t.lines()[0].exclusive == max(ns for ns, _ in lines.values())
    assert nothing_installed()  # the line hook too
    with fs.trace() as plain:
        caller()
    assert plain.result.lines is None
    with pytest.raises(fs.ArgumentError):
        plain.lines()


def test_deep_calls_are_folded_into_their_caller_at_the_depth_bound():
    def down(n):
        if n:
            down(n - 1)

    with fs.trace(max_depth=10) as t:
        down(49)  # 50 nested calls
    found = counts(t.result)
    assert found == {("down",) * depth: 1 for depth in range(1, 11)}
    assert any("40 calls nested deeper than 10 frames" in problem for problem in t.result.problems)
    check_consistent(t.result)
    with pytest.raises(fs.ArgumentError):
        fs.TraceOptions(max_depth=0)


def test_asyncio_tasks_keep_their_stacks_and_exact_resumptions():
    import asyncio

    async def job(steps):
        for _ in range(steps):
            await asyncio.sleep(0)
        return steps

    async def main():
        return await asyncio.gather(job(3), job(5))

    with fs.trace() as t:
        asyncio.run(main())
    resumed = sum(n for stack, n in counts(t.result).items() if stack[-1] == "job")
    assert resumed == (3 + 1) + (5 + 1)  # each task starts once and resumes after every sleep(0)
    check_consistent(t.result)


def test_a_full_disk_stops_recording_and_keeps_what_was_written(tmp_path):
    """The event file may not grow past 200 KiB (RLIMIT_FSIZE, as a full disk would): the trace
    keeps the events written before, says what was dropped, and still adds up."""
    import subprocess
    import textwrap

    script = textwrap.dedent(
        """
        import resource, signal, sys
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        import flamespace as fs
        sys.path.insert(0, %r)
        from test_trace import fib, check_consistent
        resource.setrlimit(resource.RLIMIT_FSIZE, (200 * 1024, 200 * 1024))
        with fs.trace() as t:
            fib(18)
        check_consistent(t.result)
        print(t.result.events, t.result.dropped, int(t.result.calls.total()))
        print(t.result.problems[0])
    """
        % str(__import__("pathlib").Path(__file__).parent)
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        env={**__import__("os").environ, "TMPDIR": str(tmp_path)},
    )
    assert done.returncode == 0, done.stderr
    numbers, problem = done.stdout.splitlines()
    events, dropped, calls = map(int, numbers.split())
    assert 0 < events < 16722 and dropped > 0 and events + dropped >= 16722
    assert 0 < calls < 8361
    assert "could not be written (File too large)" in problem and f"{dropped:,} events were dropped" in problem
    assert list(tmp_path.iterdir()) == []  # the event file was never visible


def test_a_forked_child_says_its_calls_are_not_recorded(backend):
    import os

    def leaf():
        return 0

    read, write = os.pipe()
    with fs.trace() as t:
        leaf()
        pid = os.fork()
        if pid == 0:  # the child leaves the block too: its trace says what it lacks
            leaf()
    if pid == 0:
        os.write(write, "\n".join(t.result.problems).encode() or b"none")
        os._exit(0)
    os.close(write)
    os.waitpid(pid, 0)
    child = os.read(read, 10000).decode()
    os.close(read)
    assert "was forked from the traced one" in child
    assert counts(t.result)[("leaf",)] == 1
    problems = [p for p in t.result.problems if "pure-Python fallback" not in p]
    assert [p for p in problems if "forked 1 child process while traced" in p] == problems != []


def test_weight_calls_makes_the_recordings_graph_the_call_counts(tmp_path):
    from flamespace.collect import parse_command

    script = tmp_path / "calls.py"
    script.write_text("def f():\n    return 1\n\nfor _ in range(7):\n    f()\n")
    result = fs.record_program(fs.Program(parse_command([str(script)])), fs.TraceOptions(weight="calls"))
    assert result.recording.graph is result.recording.trace.calls
    assert counts(result.recording.trace)[("<module>", "f")] == 7
    with pytest.raises(fs.ArgumentError):
        fs.TraceOptions(weight="bytes")


def test_generator_throw_and_close_are_one_call_each():
    def gen():
        while True:
            try:
                yield 1
            except ValueError:
                pass

    def drive():
        g = gen()
        next(g)
        g.throw(ValueError)
        g.throw(ValueError)
        g.close()  # GeneratorExit unwinds it: a call and a return

    with fs.trace() as t:
        drive()
    assert counts(t.result) == {("drive",): 1, ("drive", "gen"): 4}
    check_consistent(t.result)


def test_the_fallback_says_it_stands_in_for_the_extension(backend):
    with fs.trace() as t:
        fib(5)
    fallback = [p for p in t.result.problems if "pure-Python fallback" in p]
    assert len(fallback) == (1 if backend == "python" else 0)
    assert counts(t.result)[("fib",)] == 1


@pytest.mark.parametrize("segments, lines, max_depth", [(False, False, 1000), (True, True, 1000), (True, False, 4)])
def test_the_python_analysis_is_the_c_analysis(tmp_path, segments, lines, max_depth):
    """The same events through Stream.analyse (C) and _pytracer.analyse_events (Python): every
    figure equal (the fallback is the reference of the C analysis)."""
    from flamespace.collect import _pytracer, _tracer

    def worker():
        fib(9)
        [len(str(i)) for i in range(50)]

    _tracer.start(True, lines, 10**6, "main", str(tmp_path / "events"))
    try:
        thread = threading.Thread(target=worker)
        thread.start()
        thread.join()
        worker()
        fib(17)  # 5,167 calls: more than a chunk of events
    finally:
        stream, threads, entries, recorded, dropped, end_ns, *_ = _tracer.stop()
    by_thread = {}
    for thread_index, kind, key, t in stream.events():
        by_thread.setdefault(thread_index, []).append((t, kind, key))
    assert sum(len(events) for events in by_thread.values()) == recorded > _tracer.CHUNK_EVENTS
    for index, c_result in enumerate(stream.analyse(end_ns - 1000, segments, max_depth, lines)):
        python_result = _pytracer.analyse_events(by_thread.get(index, []), end_ns - 1000, segments, max_depth, lines)
        assert list(python_result) == list(c_result)


#: Every backend of this interpreter (the fixture narrows trace_engine.backends_here per test).
ALL_BACKENDS = trace_engine.backends_here()


def test_every_backend_counts_the_same_calls(backend, monkeypatch):
    """Generators (made, resumed, thrown into), coroutines, exceptions, a class's __getitem__
    and a property: the same calls per stack whichever backend hears of them (the frame
    backend does not count the first run of a generator's frame, which only makes it)."""
    if backend != ALL_BACKENDS[0]:
        pytest.skip("compares every backend at once")
    monkeypatch.setattr(trace_engine, "backends_here", lambda: ALL_BACKENDS)

    class Table:
        def __getitem__(self, key):
            return key

        @property
        def size(self):
            return 3

    def gen():
        for i in range(3):
            try:
                yield i
            except KeyError:
                pass

    async def job():
        return sum(gen())

    def program():
        table = Table()
        total = sum(table[i] + table.size for i in range(20))  # specialised after a few rounds
        g = gen()
        next(g)
        g.throw(KeyError)
        total += sum(list(gen()) + [v for v in gen()])
        try:
            job().send(None)
        except StopIteration:
            pass
        try:
            table[None] + 1
        except TypeError:
            pass
        return total + fib(6)

    program()  # warm: first runs specialise, later ones do not differ by backend
    found = {}
    for name in ALL_BACKENDS:
        with fs.trace(backend=name) as t:
            program()
        found[name] = counts(t.result)
        check_consistent(t.result)
        assert nothing_installed()
    assert all(result == found[ALL_BACKENDS[0]] for result in found.values()), found
    first = found[ALL_BACKENDS[0]]
    assert first[("program", "<genexpr>", "Table.__getitem__")] == 20 and first[("program", "Table.__getitem__")] == 1


def test_threads_running_before_tracing_began_are_left_out_by_every_backend():
    """The monitoring and frame backends hear of every thread's calls; they leave out the
    threads that ran before start(), so that every backend traces the same threads (the one that
    started tracing and those started after it) and a block's trace holds no unrelated thread."""
    go, done = threading.Event(), threading.Event()

    def leaf():
        return 1

    def waiting():
        go.wait()
        for _ in range(4):
            leaf()
        done.set()

    def started_inside():
        leaf()

    thread = threading.Thread(target=waiting, name="early")
    thread.start()
    with fs.trace(threads=True) as t:
        go.set()
        done.wait(60)
        inside = threading.Thread(target=started_inside, name="inside")
        inside.start()
        inside.join()
    thread.join()
    found = counts(t.result)
    assert not any(stack[0] == "early" for stack in found)
    assert found[("inside", "Thread.run", "started_inside", "leaf")] == 1
    assert nothing_installed()


def test_a_recursion_deeper_than_the_c_stack_pauses_the_frame_backend(backend, tmp_path):
    """Every traced call recurses in C with the frame backend: a recursion the program survives
    untraced (recursion limit raised) pauses tracing instead of overflowing the C stack, and the
    result says so. In a child process: the failure this guards against is a crash."""
    if backend != "frame":
        pytest.skip("the frame backend's own behaviour")
    import subprocess

    script = (
        "import sys, flamespace as fs\n"
        "sys.setrecursionlimit(1_000_000)\n"
        "def down(n): return 0 if n == 0 else 1 + down(n - 1)\n"
        "def forever(): return forever()\n"
        "with fs.trace(backend='frame') as t:\n"
        "    depth = down(60_000)\n"
        "    after = down(10)\n"
        "    sys.setrecursionlimit(1000)\n"
        "    try:\n"
        "        forever()\n"
        "    except RecursionError:\n"
        "        after += 1\n"
        "print(depth, after, sum(n for s, n in t.result.calls.items() if 'forever' not in s[-1]))\n"
        "print(*t.result.problems, sep='\\n')\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    depth, after, calls = map(int, lines[0].split())
    assert (depth, after) == (60_000, 11)  # and a runaway recursion is the RecursionError it is untraced
    assert any("paused" in line and "1 time" in line for line in lines[1:]), lines
    assert 1_000 < calls < 60_000 + 11  # calls down to the pause, and the 11 after it, are recorded
