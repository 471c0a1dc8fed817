"""The agent: windows pushed in Pyroscope's protocols with their labels and samples, the label
blocks that split them, the bounded queue while the server is down, and the flush at the end.

The server is a tiny http.server in a thread (tests/collect/_pyroscope_server.py) that decodes
what arrives with the official push.proto schema and flamespace's pprof reader. Waits are bounds
on liveness (a minute), never timing checks; the sampled tests check where samples went, not
how many there are."""

from __future__ import annotations

import asyncio
import gzip
import threading
import time

import pytest

pytest.importorskip("google.protobuf", reason="protobuf (a test extra) decodes the pushes")

from flamespace.collect import agent as agent_module  # noqa: E402
from flamespace.collect.agent import Agent, AgentEngine, AgentOptions, Window  # noqa: E402
from flamespace.collect.labels import TABLE, labels  # noqa: E402
from flamespace.collect.options import SamplerOptions  # noqa: E402
from flamespace.collect.push import PushError, Series, connect_request, ingest_requests, send  # noqa: E402
from flamespace.core.metadata import Metadata  # noqa: E402
from flamespace.core.vector import FlameGraph  # noqa: E402
from flamespace.formats import pprof  # noqa: E402

from ..formats._profile_proto import profile_class  # noqa: E402
from ._pyroscope_server import PushRequest, PyroscopeServer, decode  # noqa: E402
from .test_engine import ByName, FakeClock, fake_frame  # noqa: E402

MAIN = threading.main_thread()


@pytest.fixture
def server():
    running = PyroscopeServer()
    yield running
    running.close()


def graph(values, unit="ns"):
    return FlameGraph(values, metadata=Metadata(unit=unit, metric="cpu"))


# -- the wire: what one window becomes -------------------------------------------------------------


def test_a_connect_push_holds_each_label_set_as_a_series_of_one_pprof_in_a_gzipped_body():
    a = graph({("main", "a"): 30, ("main",): 5})
    b = graph({("main", "b"): 7})
    series = [
        Series((("__name__", "process_cpu"), ("endpoint", "/a"), ("service_name", "shop")), a),
        Series((("__name__", "process_cpu"), ("endpoint", "/b ,{}=x"), ("service_name", "shop")), b),
    ]
    request = connect_request(series, 1_700_000_000_000_000_000, 1_700_000_010_000_000_000, 100.0)
    assert request.target == "/push.v1.PusherService/Push"
    assert request.headers["Content-Encoding"] == "gzip"  # as pyroscope-io sends its pushes
    decoded = PushRequest.FromString(gzip.decompress(request.body))
    assert [{p.name: p.value for p in s.labels} for s in decoded.series] == [dict(s.labels) for s in series]
    for one, wire in zip(series, decoded.series):
        (sample,) = wire.samples
        assert sample.ID  # a unique id per profile
        data = sample.raw_profile
        assert dict(pprof.parse_bytes(data).items()) == dict(one.graph.items())
        profile = profile_class().FromString(data)  # the official schema: when, how long, the period
        assert (profile.time_nanos, profile.duration_nanos, profile.period) == (
            1_700_000_000_000_000_000,
            10_000_000_000,
            10_000_000,
        )
        strings = profile.string_table
        assert (strings[profile.period_type.type], strings[profile.period_type.unit]) == ("cpu", "nanoseconds")


def test_an_ingest_push_names_service_and_labels_in_the_query():
    one = Series(
        (("__name__", "process_cpu"), ("endpoint", "/a"), ("region", "eu"), ("service_name", "shop")), graph({("f",): 3})
    )
    (request,) = ingest_requests([one], 1_700_000_000_400_000_000, 1_700_000_010_400_000_000, 100.0)
    (received,) = decode(request.target, request.body, request.headers)
    assert received.labels == {"service_name": "shop", "endpoint": "/a", "region": "eu"}
    assert received.query["from"] == "1700000000" and received.query["until"] == "1700000010"
    assert (received.query["format"], received.query["spyName"], received.query["sampleRate"]) == ("pprof", "flamespace", "100")
    assert dict(received.graph.items()) == {("f",): 3}


def test_send_tells_a_server_that_is_down_from_one_that_refuses_the_profile(server):
    request = connect_request([Series((("service_name", "x"),), graph({("f",): 1}))], 0, 1, 100.0)
    server.status = 503
    with pytest.raises(PushError) as down:
        send(server.url, request, 10.0)
    assert not down.value.permanent and "503" in str(down.value)
    server.status = 400
    with pytest.raises(PushError) as refused:
        send(server.url, request, 10.0)
    assert refused.value.permanent
    closed = PyroscopeServer()
    url = closed.url
    closed.close()  # nothing listens there now
    with pytest.raises(PushError) as unreachable:
        send(url, request, 10.0)
    assert not unreachable.value.permanent and url in str(unreachable.value)


def test_credentials_in_the_url_go_as_basic_auth_and_a_token_as_bearer(server):
    request = connect_request([Series((("service_name", "x"),), graph({("f",): 1}))], 0, 1, 100.0)
    send(server.url.replace("http://", "http://me:s%40cret@"), request, 10.0)
    send(server.url, request, 10.0, token="abc")
    assert server.headers[0]["Authorization"] == "Basic bWU6c0BjcmV0"  # me:s@cret
    assert server.headers[1]["Authorization"] == "Bearer abc"


# -- labels: which samples carry what ------------------------------------------------------------


def agent_engine(clock, windows):
    return AgentEngine(SamplerOptions(), 1000.0, windows.append, clock=clock, namer=ByName())


def test_samples_taken_inside_a_labels_block_go_to_that_label_sets_profile():
    clock, windows = FakeClock(), []
    e = agent_engine(clock, windows)
    e.begin()
    clock.now += 10
    with labels(endpoint="/checkout"):
        e.sample({MAIN.ident: fake_frame("main", "checkout"), 12345: fake_frame("worker")}, clock.now)
        clock.now += 20
        with labels(user="u1"):
            e.sample({MAIN.ident: fake_frame("main", "pay")}, clock.now)
    clock.now += 5
    e.sample({MAIN.ident: fake_frame("main", "idle")}, clock.now)
    window = e.take_window()
    assert window.tables == {
        (("endpoint", "/checkout"),): {("main", "checkout"): 10},
        (("endpoint", "/checkout"), ("user", "u1")): {("main", "pay"): 20},
        (): {("worker",): 10, ("main", "idle"): 5},
    }
    assert MAIN.ident not in TABLE.threads  # the blocks left nothing behind
    assert e.take_window().tables == {}  # each window starts afresh


def test_the_pushing_thread_is_left_out_of_the_samples():
    clock, windows = FakeClock(), []
    e = agent_engine(clock, windows)
    e.begin()
    e.excluded.add(4242)
    clock.now += 10
    e.sample({MAIN.ident: fake_frame("main"), 4242: fake_frame("push")}, clock.now)
    assert e.take_window().tables == {(): {("main",): 10}}


def test_labels_refuse_the_names_the_agent_sets_and_values_that_are_not_strings():
    with pytest.raises(ValueError, match="__name__"):
        labels(__name__="x")
    with pytest.raises(TypeError, match="port"):
        labels(port=8080)  # type: ignore[arg-type]


def test_an_asyncio_tasks_labels_follow_it_across_awaits_and_no_other_task_sees_them():
    seen = {}
    ident = threading.get_ident()

    async def labelled():
        with labels(endpoint="/a"):
            seen["a before"] = TABLE.of_thread(ident)  # what the sampler reads for this thread now
            await asyncio.sleep(0)
            await asyncio.sleep(0)
            seen["a after"] = TABLE.of_thread(ident)

    async def plain():
        await asyncio.sleep(0)
        seen["b"] = TABLE.of_thread(ident)  # runs while the other task is inside its block

    async def main():
        await asyncio.gather(labelled(), plain())

    with labels(region="eu"):  # the thread's labels: every task's base
        asyncio.run(main())
    assert seen == {
        "a before": (("endpoint", "/a"), ("region", "eu")),
        "a after": (("endpoint", "/a"), ("region", "eu")),
        "b": (("region", "eu"),),
    }
    assert not TABLE.tasks and MAIN.ident not in TABLE.threads


# -- end to end: a real sampler, a real server ---------------------------------------------------


def spin_a(stop):
    while not stop.is_set():
        sum(range(1000))


def spin_b(stop):
    while not stop.is_set():
        sum(range(1000))


def in_block(function, stop, **values):
    with labels(**values):
        function(stop)


@pytest.mark.parametrize("protocol", ["connect", "ingest"])
def test_windows_arrive_with_their_labels_and_the_samples_taken_under_them(server, protocol):
    options = AgentOptions(server.url, {"service_name": "shop", "region": "eu"}, window=0.2, protocol=protocol, mode="wall")
    stop = threading.Event()
    worker = threading.Thread(target=in_block, args=(spin_a, stop), kwargs={"endpoint": "/a"})
    agent = Agent(options).start()
    try:
        worker.start()

        def both(received):
            names = {r.labels.get("endpoint") for r in received if any("spin" in ";".join(s) for s in r.graph.keys())}
            return {"/a", "/b"} <= names

        main_stop = threading.Event()

        def watch():
            try:
                server.wait_for(both)
            finally:
                main_stop.set()

        timer = threading.Thread(target=watch)
        timer.start()
        in_block(spin_b, main_stop, endpoint="/b")  # until both label sets arrived (a minute at most)
        timer.join()
    finally:
        stop.set()
        worker.join()
        stats = agent.stop()
    assert both(server.received)
    for received in server.received:
        assert received.labels["service_name"] == "shop" and received.labels["region"] == "eu"
        if protocol == "connect":
            assert received.labels["__name__"] == "wall"
        stacks = [";".join(stack) for stack in received.graph.keys()]
        if any("spin_a" in s for s in stacks):
            assert received.labels.get("endpoint") == "/a"
        if any("spin_b" in s for s in stacks):
            assert received.labels.get("endpoint") == "/b"
    assert not any(
        "flamespace-agent-push" in ";".join(s) or "_push_loop" in ";".join(s) for r in server.received for s in r.graph.keys()
    )
    assert stats.pushed == len(server.received) == stats.windows
    assert stats.dropped == stats.rejected == stats.unsent == 0


class GatedTransport:
    """A transport that fails its first call (the server is down), blocks its second until
    ``gate`` opens, then delivers: decoded pushes in ``delivered``."""

    def __init__(self) -> None:
        self.calls = 0
        self.entered, self.gate = threading.Event(), threading.Event()
        self.delivered: list[FlameGraph] = []

    def __call__(self, server, request, timeout, token):
        self.calls += 1
        if self.calls == 1:
            raise PushError(f"{server}: connection refused")
        if self.calls == 2:
            self.entered.set()
            self.gate.wait(60)
        for received in decode(request.target, request.body, request.headers):
            self.delivered.append(received.graph)


def synthetic(n):
    return Window(n, n + 1, {(("n", str(n)),): {("window",): n}})


def test_while_the_server_is_down_the_queue_keeps_the_newest_windows_and_counts_the_dropped():
    transport, events = GatedTransport(), []
    options = AgentOptions("http://127.0.0.1:9", window=1000.0, queue=4, retry=0.05, mode="wall")
    agent = Agent(options, transport=transport, on_event=events.append).start()
    try:
        agent._window_done(synthetic(1))
        assert transport.entered.wait(60)  # failed once, now retrying window 1 (in flight)
        for n in range(2, 7):
            agent._window_done(synthetic(n))  # 2 and 3 are pushed out; 1 is on its way
        stats = agent.stats()
        assert (stats.windows, stats.dropped, stats.unsent, stats.failures) == (6, 2, 4, 1)
        transport.gate.set()  # the server is back
        deadline = time.monotonic() + 60
        while len(transport.delivered) < 4 and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        transport.gate.set()
        final = agent.stop()
    pushed = [g for g in transport.delivered if ("window",) in g]
    assert [g[("window",)] for g in pushed] == [1, 4, 5, 6]  # the kept windows, oldest first
    assert final.dropped == 2 and final.pushed >= 4 and final.unsent == 0
    assert any("cannot push" in e for e in events)
    assert any("dropped the oldest" in e and "2 dropped so far" in e for e in events)
    assert any("back" in e for e in events)


def test_a_profile_the_server_refuses_is_counted_and_the_next_one_goes_on():
    delivered = []

    def transport(server, request, timeout, token):
        (received,) = decode(request.target, request.body, request.headers)
        n = received.graph.get(("window",))  # None: the last window, what the sampler saw of this test
        if n == 1:
            raise PushError("HTTP 400 Bad Request", permanent=True)
        if n is not None:
            delivered.append(n)

    agent = Agent(AgentOptions("http://127.0.0.1:9", window=1000.0, mode="wall"), transport=transport).start()
    agent._window_done(synthetic(1))
    agent._window_done(synthetic(2))
    stats = agent.stop()
    assert delivered == [2] and stats.rejected == 1 and "400" in (stats.last_error or "")
    with pytest.raises(RuntimeError, match="runs once"):
        agent.start()


def test_stop_pushes_the_last_partial_window(server):
    agent = Agent(AgentOptions(server.url, {"service_name": "svc"}, window=1000.0, mode="wall")).start()
    stop = threading.Event()
    timer = threading.Timer(0.3, stop.set)
    timer.start()
    spin_a(stop)
    stats = agent.stop()
    timer.join()
    assert stats.pushed == 1 and len(server.received) == 1
    assert any("spin_a" in ";".join(s) for s in server.received[0].graph.keys())


def test_options_refuse_what_cannot_work():
    from flamespace.errors import ArgumentError

    with pytest.raises(ArgumentError, match="http"):
        AgentOptions("127.0.0.1:4040")
    with pytest.raises(ArgumentError, match="window"):
        AgentOptions("http://h", window=0)
    with pytest.raises(ArgumentError, match="queue"):
        AgentOptions("http://h", queue=0)
    with pytest.raises(ArgumentError, match="__name__"):
        AgentOptions("http://h", {"__name__": "x"})
    with pytest.raises(ArgumentError, match="protocol"):
        AgentOptions("http://h", protocol="grpc")


def test_the_default_mode_is_on_cpu_where_threads_have_cpu_clocks():
    from flamespace.collect.clock import Clock

    assert agent_module.DEFAULT_MODE == ("cpu" if Clock.supports_thread_cpu() else "wall")
    assert AgentOptions("http://h").mode == agent_module.DEFAULT_MODE


def test_the_public_agent_runs_once_per_process_and_stop_pushes_what_it_recorded(server):
    import flamespace.agent

    assert flamespace.agent.labels is labels and flamespace.agent.stop() is None
    flamespace.agent.start(server.url, {"service_name": "svc"}, window=1000.0, mode="wall")
    try:
        with pytest.raises(RuntimeError, match="already runs"):
            flamespace.agent.start(server.url)
        stop = threading.Event()
        timer = threading.Timer(0.3, stop.set)
        timer.start()
        with flamespace.agent.labels(endpoint="/x"):
            spin_a(stop)
        timer.join()
        assert flamespace.agent.stats().windows == 0  # type: ignore[union-attr]  # running
    finally:
        stats = flamespace.agent.stop()
    assert stats is not None and stats.pushed == len(server.received) >= 1
    assert flamespace.agent.stats() is None
    labelled = [r for r in server.received if r.labels.get("endpoint") == "/x"]
    assert labelled and any("spin_a" in ";".join(s) for s in labelled[0].graph.keys())


def test_the_agent_is_reached_from_a_bare_import_of_flamespace():
    """``import flamespace`` then ``flamespace.agent.start(...)``, as docs/agent.md shows it, without
    importing the agent before it is used. (Failed before: AttributeError.)"""
    import subprocess
    import sys

    code = "import sys, flamespace; assert 'flamespace.agent' not in sys.modules; print(flamespace.agent.start.__module__)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "flamespace.agent", done.stderr
