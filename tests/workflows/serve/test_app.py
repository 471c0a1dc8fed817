"""flamespace serve's HTTP application in-process (Starlette's TestClient): ingest, queries, errors."""

from __future__ import annotations

import gzip
import json
import threading
from datetime import timedelta

import pytest

pytest.importorskip("starlette")
pytest.importorskip("duckdb")

from starlette.testclient import TestClient  # noqa: E402

from flamespace.core.vector import FlameGraph  # noqa: E402
from flamespace.formats import flamespace_json, folded  # noqa: E402
from flamespace.store import open_store  # noqa: E402
from flamespace.workflows.serve import API, PUSH_PATH, create_app  # noqa: E402
from flamespace.workflows.serve.openapi import document  # noqa: E402

from .pushes import T0, multipart, profile, push_json, push_proto  # noqa: E402

PROTO = {"content-type": "application/proto"}


@pytest.fixture
def store(tmp_path):
    return str(tmp_path / "store")


@pytest.fixture
def client(store):
    with TestClient(create_app(store)) as c:
        yield c


def push(client, series, gzipped=True):
    body = push_proto(series)
    headers = {**PROTO, **({"content-encoding": "gzip"} if gzipped else {})}
    return client.post(PUSH_PATH, content=gzip.compress(body) if gzipped else body, headers=headers)


def stored_count(store):
    s = open_store(store)
    return s.snapshot().count() if s.exists() else 0


def windows_of(service, values_list, start=T0):
    """Series of one service: a window per values, 10 s apart."""
    return [({"service_name": service}, [profile(v, start + timedelta(seconds=10 * k))]) for k, v in enumerate(values_list)]


def test_a_push_is_stored_with_its_labels_and_window(client, store):
    answer = push(client, [({"service_name": "api", "region": "eu"}, [profile({"main;work": 30})])])
    assert (answer.status_code, answer.headers["content-type"], answer.content) == (200, "application/proto", b"")
    (row,) = open_store(store).snapshot().profiles()
    assert row["labels"]["service_name"] == "api" and row["labels"]["region"] == "eu"
    assert (row["time"].isoformat(), row["time_end"].isoformat()) == ("2026-11-01T10:00:00", "2026-11-01T10:00:10")


def test_a_json_push_is_answered_in_json(client, store):
    answer = client.post(
        PUSH_PATH,
        content=push_json([({"service_name": "api"}, [profile({"a": 1})])]),
        headers={"content-type": "application/json"},
    )
    assert (answer.status_code, answer.json()) == (200, {})
    assert stored_count(store) == 1


def test_merge_is_the_sum_of_the_pushed_profiles(client):
    values = [{"main;work": 30, "main;idle": 2}, {"main;work": 25, "main;io": 4}, {"main;work": 31}]
    for series in windows_of("api", values):
        assert push(client, [series]).status_code == 200
    push(client, windows_of("other", [{"x": 1}]))
    expected = FlameGraph.from_texts({"main;work": 86, "main;idle": 2, "main;io": 4})
    answer = client.get(f"{API}/merge", params={"selector": "service_name=api"})
    merged = flamespace_json.parse(__import__("io").StringIO(answer.text))
    assert folded.texts(merged) == folded.texts(expected) and merged.metadata.unit == "ns"
    text = client.get(f"{API}/merge", params={"selector": "store:service_name=api", "format": "folded"}).text
    assert sorted(line for line in text.splitlines() if not line.startswith("#")) == ["main;idle 2", "main;io 4", "main;work 86"]
    ranged = client.get(
        f"{API}/merge", params={"selector": "service_name=api", "from": "2026-11-01T10:00:05", "format": "folded"}
    )
    assert sorted(line for line in ranged.text.splitlines() if not line.startswith("#")) == ["main;io 4", "main;work 56"]


def test_labels_values_and_windows(client):
    push(
        client,
        [
            ({"service_name": "api", "region": "eu"}, [profile({"a": 1})]),
            ({"service_name": "db", "region": "us"}, [profile({"b": 1})]),
        ],
    )
    names = client.get(f"{API}/labels").json()["labels"]
    assert {"service_name", "region"} <= set(names) and "time" not in names
    assert client.get(f"{API}/labels/region/values").json() == {"label": "region", "values": ["eu", "us"]}
    assert client.get(f"{API}/labels/region/values", params={"selector": "service_name=db"}).json()["values"] == ["us"]
    listed = client.get(f"{API}/windows", params={"selector": "region=eu"}).json()
    assert listed["count"] == 1 and listed["windows"][0]["labels"]["service_name"] == "api"
    assert listed["windows"][0]["time_end"] == "2026-11-01T10:00:10"


def test_an_empty_store_answers_empty_lists(client):
    assert client.get(f"{API}/labels").json() == {"labels": []}
    assert client.get(f"{API}/windows").json() == {"count": 0, "windows": []}
    answer = client.get(f"{API}/merge")
    assert answer.status_code == 404 and answer.json()["parameter"] == "selector"


def test_ingest_folded_and_multipart_pprof(client, store):
    answer = client.post(
        "/ingest", params={"name": "api{region=eu}", "from": "1793527200", "until": "1793527210"}, content=b"a;b 3\n"
    )
    assert answer.status_code == 200 and len(answer.json()["stored"]) == 1
    body, kind = multipart("profile", profile({"main;work": 7}))
    answer = client.post("/ingest", params={"name": "api", "spyName": "pyspy"}, content=body, headers={"content-type": kind})
    assert answer.status_code == 200
    rows = open_store(store).snapshot().profiles()
    assert [r["labels"].get("pyroscope.spy") for r in rows] == [None, "pyspy"]
    assert rows[0]["labels"]["region"] == "eu"


@pytest.mark.parametrize(
    "params, body, headers, status, parameter",
    [
        ({"name": "api", "format": "trie"}, b"a 1\n", {}, 415, None),
        ({"name": "api"}, b"a;b x\n", {}, 400, None),
        ({"name": ""}, b"a 1\n", {}, 400, "name"),
        ({"name": "api", "from": "soon"}, b"a 1\n", {}, 400, "from"),
        ({"name": "api"}, b"\x1f\x8b\x08garbage", {"content-encoding": "gzip"}, 400, None),
        ({"name": "api"}, b"a 1\n", {"content-encoding": "br"}, 415, None),
        ({"name": "api"}, b"--x\r\n\r\n", {"content-type": "multipart/form-data; boundary=x"}, 400, "profile"),
    ],
)
def test_a_bad_ingest_is_refused_and_stores_nothing(client, store, params, body, headers, status, parameter):
    answer = client.post("/ingest", params=params, content=body, headers=headers)
    assert answer.status_code == status, answer.text
    assert answer.json()["error"] and answer.json().get("parameter") == parameter
    assert stored_count(store) == 0


def test_a_bad_push_is_a_connect_error_and_stores_nothing(client, store):
    good = ({"service_name": "api"}, [profile({"a": 1})])
    answer = client.post(PUSH_PATH, content=push_proto([good, ({"service_name": "api"}, [b"\x12\x02zz"])]), headers=PROTO)
    assert answer.status_code == 400 and answer.json()["code"] == "invalid_argument"
    assert "series 1 sample 0" in answer.json()["message"]
    answer = client.post(PUSH_PATH, content=b"{}", headers={"content-type": "text/plain"})
    assert answer.status_code == 415
    assert stored_count(store) == 0


def test_bodies_beyond_the_limit_are_refused(store):
    with TestClient(create_app(store, max_body=1000)) as small:
        big = push_proto([({"service_name": "api"}, [profile({f"main;f{i}": i + 1 for i in range(200)}, gzipped=False)])])
        assert len(big) > 1000
        answer = small.post(PUSH_PATH, content=big, headers=PROTO)
        assert answer.status_code == 413 and "1,000" in answer.json()["message"]
        bomb = gzip.compress(b"\0" * (300 << 20))
        answer = small.post("/ingest", params={"name": "api"}, content=bomb[:900], headers={"content-encoding": "gzip"})
        assert answer.status_code in (400, 413)
    assert stored_count(store) == 0


def test_a_gzip_bomb_is_refused(client, store):
    bomb = gzip.compress(b"a 1\n" * (80 << 20))  # 320 MiB of text in about 300 kB
    answer = client.post("/ingest", params={"name": "api"}, content=bomb, headers={"content-encoding": "gzip"})
    assert answer.status_code == 413 and "decompresses to more than" in answer.json()["error"]
    assert stored_count(store) == 0


@pytest.mark.parametrize(
    "path, params, parameter",
    [
        ("merge", {"selector": "service_name"}, "selector"),
        ("merge", {"selector": "service_name=api", "from": "tomorrowish"}, "from"),
        ("merge", {"selector": "service_name=api", "format": "svg"}, "format"),
        ("merge", {"selector": "service_name=api", "mean": "perhaps"}, "mean"),
        ("merge", {"selector": "service_name=api,since=2026-01-01", "from": "now-1h"}, "from"),
        ("merge", {"from": "2026-11-02", "until": "2026-11-01"}, "until"),
        ("windows", {"limit": "0"}, "limit"),
        ("history", {"by": "fortnight"}, "by"),
        ("history", {"top": "many"}, "top"),
        ("compare", {"baseline_selector": "service_name=api", "candidate_selector": "service_name=api", "alpha": "2"}, "alpha"),
        ("compare", {"baseline_selector": "service_name=nope", "candidate_selector": "service_name=api"}, "baseline_selector"),
    ],
)
def test_a_bad_query_names_its_parameter(client, path, params, parameter):
    for series in windows_of("api", [{"a": 1}, {"a": 2}, {"a": 3}]):
        push(client, [series])
    answer = client.get(f"{API}/{path}", params=params)
    assert answer.status_code in (400, 404), answer.text
    assert answer.json()["parameter"] == parameter and answer.json()["error"]


def test_compare_finds_the_stack_that_grew_after_a_deploy(client):
    rng = __import__("random").Random(7)
    before = [{"main;parse": 100 + rng.randint(-5, 5), "main;render": 50 + rng.randint(-5, 5)} for _ in range(6)]
    after = [{"main;parse": 160 + rng.randint(-5, 5), "main;render": 50 + rng.randint(-5, 5)} for _ in range(6)]
    for series in windows_of("api", before, T0):
        push(client, [({**series[0], "version": "1"}, series[1])])
    for series in windows_of("api", after, T0 + timedelta(minutes=5)):
        push(client, [({**series[0], "version": "2"}, series[1])])
    by_label = client.get(f"{API}/compare", params={"baseline_selector": "version=1", "candidate_selector": "version=2"}).json()
    by_range = client.get(
        f"{API}/compare",
        params={
            "baseline_selector": "service_name=api",
            "baseline_until": "2026-11-01T10:04:00",
            "candidate_selector": "service_name=api",
            "candidate_from": "2026-11-01T10:04:00",
        },
    ).json()
    for result in (by_label, by_range):
        assert result["runs"] == {"baseline": 6, "candidate": 6}
        significant = [(c["stack"], c["kind"]) for c in result["stacks"] if c["significant"]]
        assert significant == [(["main", "parse"], "grown")], result["stacks"]


def test_compare_over_each_windows_load_names_what_grew_not_the_busier_hour(client):
    """The deploy's windows carry 50% more traffic (every stack alike) and parse costs 40% more on top."""
    rng = __import__("random").Random(3)

    def window(load, grown):
        return {f"main;s{k}": round(100 * (k + 1) * load * (grown if k == 0 else 1) * rng.uniform(0.97, 1.03)) for k in range(6)}

    for series in windows_of("api", [window(1.0, 1.0) for _ in range(6)], T0):
        push(client, [({**series[0], "version": "1"}, series[1])])
    for series in windows_of("api", [window(1.5, 1.4) for _ in range(6)], T0 + timedelta(minutes=5)):
        push(client, [({**series[0], "version": "2"}, series[1])])
    params = {"baseline_selector": "version=1", "candidate_selector": "version=2"}
    by_value = client.get(f"{API}/compare", params=params).json()
    assert len([c for c in by_value["stacks"] if c["significant"]]) == 6
    by_load = client.get(f"{API}/compare", params={**params, "normalize_load": "true"}).json()
    assert [(c["stack"], c["kind"]) for c in by_load["stacks"] if c["significant"]] == [(["main", "s0"], "grown")]
    both = client.get(f"{API}/compare", params={**params, "normalize_load": "true", "normalize": "true"})
    assert both.status_code == 400 and both.json()["parameter"] == "normalize_load"


def test_history_finds_the_window_where_a_stack_grew(client):
    values = [{"main;parse": 100, "main;render": 50}] * 8 + [{"main;parse": 200, "main;render": 50}] * 8
    for series in windows_of("api", values):
        push(client, [series])
    answer = client.get(f"{API}/history", params={"selector": "service_name=api", "stack": "parse"}).json()
    assert answer["by"] == "window" and len(answer["points"]) == 16
    (stack,) = answer["stacks"]
    (change,) = stack["changes"]
    assert change["point"] == "2026-11-01T10:01:20"


def test_concurrent_pushes_are_all_stored_with_distinct_ids(client, store):
    answers = []

    def one(k):
        answers.append(push(client, windows_of(f"svc{k % 3}", [{f"main;f{k}": k + 1}], T0 + timedelta(seconds=k))))

    threads = [threading.Thread(target=one, args=(k,)) for k in range(24)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [a.status_code for a in answers] == [200] * 24
    rows = open_store(store).snapshot().profiles()
    assert len(rows) == 24 == len({r["id"] for r in rows})
    assert sorted(r["total"] for r in rows) == [float(k + 1) for k in range(24)]


def test_a_push_the_store_cannot_write_is_a_503_and_stores_nothing(client, store, monkeypatch):
    from flamespace.store.store import Store

    def full(self, *args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Store, "add", full)
    answer = push(client, [({"service_name": "api"}, [profile({"a": 1})])])
    assert answer.status_code == 503 and "No space left" in answer.json()["message"]
    monkeypatch.undo()
    assert stored_count(store) == 0


def test_the_openapi_document_describes_every_route(client):
    served = client.get("/openapi.json").json()
    assert served == json.loads(json.dumps(document()))
    routes = {route.path for route in client.app.routes}
    assert set(served["paths"]) == routes
    for path, methods in served["paths"].items():
        for method, operation in methods.items():
            assert operation["summary"] and operation["responses"], (path, method)


def test_fuzzed_bodies_get_400_and_store_nothing(client, store):
    import random

    good = gzip.compress(push_proto([({"service_name": "api"}, [profile({"main;work": 30, "main;idle": 2})])]))
    rng = random.Random(2929)
    for _ in range(60):
        body = bytearray(good)
        for _ in range(rng.randint(1, 6)):
            body[rng.randrange(len(body))] = rng.randrange(256)
        headers = {**PROTO, "content-encoding": "gzip"} if rng.random() < 0.7 else PROTO
        answer = client.post(PUSH_PATH, content=bytes(body), headers=headers)
        assert answer.status_code in (200, 400), answer.text  # a flip in a label or a value can still be a push
        if answer.status_code == 400:
            assert answer.json()["code"] == "invalid_argument" and answer.json()["message"]
    before = stored_count(store)
    for _ in range(40):
        noise = bytes(rng.randrange(256) for _ in range(rng.randint(0, 300)))
        assert (
            client.post("/ingest", params={"name": "api", "format": rng.choice(["pprof", "folded"])}, content=noise).status_code
            == 400
        )
    assert stored_count(store) == before
