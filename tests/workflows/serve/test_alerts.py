"""Alerts: a change point of a watched selector's stack is posted once, with its size and interval."""

from __future__ import annotations

import http.server
import json
import threading
from datetime import datetime, timedelta

import pytest

pytest.importorskip("duckdb")

from flamespace.core.metadata import Metadata  # noqa: E402
from flamespace.core.vector import FlameGraph  # noqa: E402
from flamespace.errors import ArgumentError  # noqa: E402
from flamespace.store import open_store  # noqa: E402
from flamespace.workflows.serve.alerts import Watcher, post_json  # noqa: E402

T0 = datetime(2026, 11, 1, 10, 0, 0)


def windows(store, service, parse_values):
    """A window a value of ``main;parse``, 10 s apart (``main;render`` flat beside it)."""
    items = []
    for k, value in enumerate(parse_values):
        start = T0 + timedelta(seconds=10 * k)
        labels = {"service_name": service, "time": start.isoformat(), "time_end": (start + timedelta(seconds=10)).isoformat()}
        items.append(
            (
                FlameGraph.from_texts(
                    {"main;parse": value, "main;render": 50 + k % 3}, metadata=Metadata(unit="ns", labels=labels)
                ),
                f"w{k}",
            )
        )
    store.add(items)


def test_a_step_is_posted_once_with_its_size_and_interval(tmp_path):
    store = open_store(str(tmp_path / "s"))
    windows(store, "api", [100, 101, 99, 100, 102, 100, 98, 101, 200, 201, 199, 200, 202, 198, 200, 201])
    windows(store, "db", [10] * 16)
    posted = []
    watcher = Watcher(
        store,
        ["service_name=api", "store:service_name=db", "service_name=none"],
        "http://hook",
        post=lambda url, body: posted.append((url, body)),
    )
    (alert,) = watcher.check()
    ((url, body),) = posted
    assert url == "http://hook" and body["stack"] == "main;parse" and body["selector"] == "store:service_name=api"
    assert body["interval"] == {"last_before": "2026-11-01T10:01:10", "first_after": "2026-11-01T10:01:20"}
    assert (body["before"], body["after"]) == (100.0, 200.0) and body["relative"] == pytest.approx(1.0)
    assert body["p"] <= 0.05 and "main;parse changed +100.0% (100 ns → 200 ns a window, p" in body["text"]  # human units
    assert body["metric"] == "value"  # two stacks: too few to tell the load, so the values as they are
    assert watcher.check() == [] and len(posted) == 1


def test_a_failing_webhook_is_tried_again(tmp_path):
    store = open_store(str(tmp_path / "s"))
    windows(store, "api", [100] * 8 + [200] * 8)

    def down(url, body):
        raise OSError("connection refused")

    watcher = Watcher(store, ["service_name=api"], "http://hook", post=down)
    assert watcher.check() == []
    posted = []
    watcher.post = lambda url, body: posted.append(body)
    assert len(watcher.check()) == 1 and len(posted) == 1


def test_a_bad_watched_selector_is_refused_at_once(tmp_path):
    with pytest.raises(ArgumentError, match="not key=value"):
        Watcher(open_store(str(tmp_path / "s")), ["service_name"], "http://hook")


def test_post_json_posts_to_a_real_webhook():
    received = []

    class Hook(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            received.append((self.headers["content-type"], json.loads(self.rfile.read(int(self.headers["content-length"])))))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Hook)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        post_json(f"http://127.0.0.1:{server.server_address[1]}/hook", {"text": "hello"})
    finally:
        server.shutdown()
    assert received == [("application/json", {"text": "hello"})]


def test_serve_posts_an_alert_after_pushes_make_a_step(tmp_path):
    import gzip
    import time

    from starlette.testclient import TestClient

    from flamespace.workflows.serve import PUSH_PATH, create_app

    from .pushes import profile, push_proto

    posted = []
    store = str(tmp_path / "s")
    app = create_app(store, watch=["service_name=api"], alert_webhook="http://hook", alert_every=0.1)
    app.state.server.watcher.post = lambda url, body: posted.append(body)
    with TestClient(app) as client:
        for k, value in enumerate([100, 102, 99, 101, 100, 98, 101, 100, 300, 301, 299, 300, 302, 298, 300, 301]):
            body = push_proto(
                [({"service_name": "api"}, [profile({"main;parse": value, "main;render": 50}, T0 + timedelta(seconds=10 * k))])]
            )
            answer = client.post(
                PUSH_PATH, content=gzip.compress(body), headers={"content-type": "application/proto", "content-encoding": "gzip"}
            )
            assert answer.status_code == 200
        deadline = time.monotonic() + 60  # a bound for a busy machine, not a measurement
        while not posted and time.monotonic() < deadline:
            time.sleep(0.1)
    assert [(p["stack"], p["interval"]["first_after"]) for p in posted] == [("main;parse", "2026-11-01T10:01:20")]


def busy_windows(store, service, grown_at=None):
    """16 windows of six stacks that all cost 1.6 times as much from window 8 on (more requests);
    with ``grown_at``, ``main;s0`` costs 1.5 times more again from that window (its code got slower)."""
    items = []
    for k in range(16):
        start = T0 + timedelta(seconds=10 * k)
        load = (1.6 if k >= 8 else 1.0) * (1 + 0.01 * (k % 3))
        values = {
            f"main;s{i}": 100.0 * (i + 1) * load * (1.5 if i == 0 and grown_at is not None and k >= grown_at else 1)
            for i in range(6)
        }
        labels = {"service_name": service, "time": start.isoformat(), "time_end": (start + timedelta(seconds=10)).isoformat()}
        items.append((FlameGraph.from_texts(values, metadata=Metadata(unit="ns", labels=labels)), f"{service}{k}"))
    store.add(items)


def test_more_requests_are_no_alert_by_default_but_a_stack_that_grew_is(tmp_path):
    store = open_store(str(tmp_path / "s"))
    busy_windows(store, "api")
    busy_windows(store, "db", grown_at=8)
    posted = []
    watcher = Watcher(store, ["service_name=api", "service_name=db"], "http://hook", post=lambda url, body: posted.append(body))
    watcher.check()
    assert [(p["selector"], p["stack"], p["metric"]) for p in posted] == [("store:service_name=db", "main;s0", "normalised")]
    assert posted[0]["relative"] == pytest.approx(0.5) and "a window at the typical load" in posted[0]["text"]
    by_value = []
    Watcher(store, ["service_name=api"], "http://hook", post=lambda url, body: by_value.append(body), metric="value").check()
    assert len(by_value) == 6  # every stack: the load alone


def test_an_unknown_alert_metric_is_refused_at_once(tmp_path):
    with pytest.raises(ArgumentError, match="unknown metric 'mean'; choose one of value, share, normalised"):
        Watcher(open_store(str(tmp_path / "s")), ["service_name=api"], "http://hook", metric="mean")
