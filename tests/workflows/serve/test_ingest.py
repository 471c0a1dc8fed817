"""Reading pushes (workflows/serve/ingest.py): the push API's PushRequest, /ingest's name and bodies."""

from __future__ import annotations

import random
import re
from datetime import datetime, timedelta

import pytest

from flamespace.formats import folded, pprof
from flamespace.workflows.serve.ingest import IngestError, ingest_request, parse_name, push_request

from .pushes import T0, labelled_profile, multipart, profile, push_json, push_proto

NOW = datetime(2026, 11, 28, 12, 0, 0)


@pytest.mark.parametrize("encode, kind", [(push_proto, "application/proto"), (push_json, "application/json")])
def test_a_push_request_gives_each_sample_with_its_series_labels_and_window(encode, kind):
    a, b = profile({"main;work": 30}), profile({"main;idle": 5}, T0 + timedelta(seconds=10), gzipped=False)
    body = encode([({"service_name": "api", "region": "eu"}, [a, b]), ({"service_name": "db"}, [a])])
    pushed = push_request(body, kind, NOW)
    assert [(dict(p.labels)["service_name"], folded.texts(p.graph)) for p in pushed] == [
        ("api", {"main;work": 30}),
        ("api", {"main;idle": 5}),
        ("db", {"main;work": 30}),
    ]
    assert pushed[0].labels["region"] == "eu"
    assert (pushed[1].labels["time"], pushed[1].labels["time_end"]) == (
        "2026-11-01T10:00:10.000000",
        "2026-11-01T10:00:20.000000",
    )


def test_a_profile_without_time_ends_now():
    graph_only = profile({"a": 1}, start=None)
    (pushed,) = push_request(push_proto([({"service_name": "x"}, [graph_only])]), "application/proto", NOW)
    assert (pushed.labels["time"], pushed.labels["time_end"]) == ("2026-11-28T11:59:50.000000", "2026-11-28T12:00:00.000000")


@pytest.mark.parametrize(
    "body, kind, message",
    [
        (b"\x0a\x05\x0a\x03", "application/proto", "not a PushRequest"),
        (b"{", "application/json", "not JSON"),
        (b"[]", "application/json", "expected"),
        (b"", "application/proto", "no profile"),
        (b"x", "text/plain", "application/proto or application/json"),
    ],
)
def test_a_bad_push_request_says_what_is_wrong(body, kind, message):
    with pytest.raises(IngestError, match=message):
        push_request(body, kind, NOW)


def test_a_bad_profile_in_a_push_names_its_series_and_sample():
    body = push_proto([({"service_name": "x"}, [profile({"a": 1}), b"\x12\x03zzz"])])
    with pytest.raises(IngestError, match="series 0 sample 1"):
        push_request(body, "application/proto", NOW)


def test_a_label_a_selector_could_not_name_is_refused():
    with pytest.raises(IngestError, match="cannot hold ','"):
        push_request(push_proto([({"service_name": "a,b"}, [profile({"a": 1})])]), "application/proto", NOW)


def test_push_request_raises_only_ingest_errors_on_random_bytes():
    good = push_proto([({"service_name": "api"}, [profile({"main;work": 30, "main;idle": 3})])])
    rng = random.Random(29)
    for _ in range(300):
        body = bytearray(good)
        for _ in range(rng.randint(1, 8)):
            body[rng.randrange(len(body))] = rng.randrange(256)
        cut = bytes(body[: rng.randint(0, len(body))]) if rng.random() < 0.3 else bytes(body)
        try:
            push_request(cut, "application/proto", NOW)
        except IngestError:
            pass


def test_the_name_parameter_gives_the_service_and_labels():
    assert parse_name("api{region=eu, host = h1}") == {"service_name": "api", "region": "eu", "host": "h1"}
    assert parse_name("api.cpu") == {"service_name": "api.cpu"}
    for bad in ("", "{a=b}", "api{region}", "api{region=eu"):
        with pytest.raises(IngestError) as caught:
            parse_name(bad)
        assert caught.value.parameter == "name"


def test_ingest_folded_with_its_window():
    (one,) = ingest_request(b"a;b 3\na;c 4\n", {"name": "api{v=2}", "from": "1793527200", "until": "1793527210"}, None, NOW)
    assert folded.texts(one.graph) == {"a;b": 3, "a;c": 4}
    assert dict(one.labels) == {
        "service_name": "api",
        "v": "2",
        "time": "2026-11-01T10:00:00.000000",
        "time_end": "2026-11-01T10:00:10.000000",
    }


def test_ingest_lines_counts_each_line_once():
    (one,) = ingest_request(b"a;b\na;b\na;c\n", {"name": "api", "format": "lines"}, None, NOW)
    assert folded.texts(one.graph) == {"a;b": 2, "a;c": 1}


def test_ingest_pprof_raw_and_multipart():
    raw = profile({"main;work": 7})
    body, _ = multipart("profile", raw)
    for (one,) in (
        ingest_request(raw, {"name": "api", "format": "pprof", "spyName": "pyspy", "sampleRate": "100"}, None, NOW),
        ingest_request(body, {"name": "api"}, raw, NOW, multipart=True),
    ):
        assert folded.texts(one.graph) == {"main;work": 7}
        assert one.labels["time"] == "2026-11-01T10:00:00.000000"
    assert (
        ingest_request(raw, {"name": "api", "format": "pprof", "spyName": "pyspy"}, None, NOW)[0].labels["pyroscope.spy"]
        == "pyspy"
    )


@pytest.mark.parametrize("fmt", ["trie", "tree", "jfr", "speedscope", "bogus"])
def test_ingest_refuses_other_formats_with_415(fmt):
    with pytest.raises(IngestError) as caught:
        ingest_request(b"a 1\n", {"name": "api", "format": fmt}, None, NOW)
    assert caught.value.status == 415 and "pprof, folded, lines" in str(caught.value)


@pytest.mark.parametrize(
    "params, parameter",
    [({"name": "api", "from": "yesterday"}, "from"), ({"name": "api", "from": "20", "until": "10"}, "until")],
)
def test_ingest_names_a_bad_window_parameter(params, parameter):
    with pytest.raises(IngestError) as caught:
        ingest_request(b"a 1\n", params, None, NOW)
    assert caught.value.parameter == parameter


def test_ingest_refuses_a_bad_body_with_the_readers_message():
    with pytest.raises(IngestError, match="the profile:1: expected a count"):
        ingest_request(b"a;b notanumber\n", {"name": "api"}, None, NOW)
    with pytest.raises(IngestError, match="differential"):
        ingest_request(b"a;b 1 2\n", {"name": "api"}, None, NOW)


def test_sample_labels_split_a_window_into_one_window_per_label_set():
    """Go's pprof labels and pyroscope's tag_wrapper: string and numeric labels (with a unit, and
    without), on top of the series' labels (a sample's own wins); samples without labels are a
    window of their own; all share the profile's window."""
    raw = labelled_profile(
        [
            ("main;checkout", 30, {"endpoint": "/checkout"}),
            ("main;checkout;db", 5, {"endpoint": "/checkout"}),
            ("main;browse", 20, {"endpoint": "/browse", "region": "us"}),
            ("main;upload", 7, {"size": (1024, "bytes"), "retries": (3, "")}),
            ("main;idle", 4, {}),
            ("main;checkout", 1, {"endpoint": "/checkout"}),
        ]
    )
    pushed = push_request(push_proto([({"service_name": "api", "region": "eu"}, [raw])]), "application/proto", NOW)
    found = {
        tuple(sorted((k, v) for k, v in p.labels.items() if k not in ("time", "time_end"))): folded.texts(p.graph) for p in pushed
    }
    assert found == {
        (("region", "eu"), ("service_name", "api")): {"main;idle": 4},
        (("endpoint", "/checkout"), ("region", "eu"), ("service_name", "api")): {"main;checkout": 31, "main;checkout;db": 5},
        (("endpoint", "/browse"), ("region", "us"), ("service_name", "api")): {"main;browse": 20},
        (("region", "eu"), ("retries", "3"), ("service_name", "api"), ("size", "1024 bytes")): {"main;upload": 7},
    }
    assert {(p.labels["time"], p.labels["time_end"]) for p in pushed} == {
        ("2026-11-01T10:00:00.000000", "2026-11-01T10:00:10.000000")
    }
    (only,) = ingest_request(labelled_profile([("a;b", 3, {"endpoint": "/x"})]), {"name": "api", "format": "pprof"}, None, NOW)
    assert (only.labels["endpoint"], folded.texts(only.graph)) == ("/x", {"a;b": 3})


@pytest.mark.parametrize(
    "labels, message",
    [
        ({"time": "x"}, "series 0 sample 0: the sample label 'time' is the window's own label"),
        ({"bad key": "x"}, "series 0 sample 0: sample label 'bad key'"),
        ({"k": "a,b"}, "series 0 sample 0: sample label k='a,b'"),
    ],
)
def test_a_sample_label_a_selector_cannot_name_is_a_400_naming_it(labels, message):
    body = push_proto([({"service_name": "api"}, [labelled_profile([("a", 1, labels)])])])
    with pytest.raises(IngestError, match=re.escape(message)) as caught:
        push_request(body, "application/proto", NOW)
    assert caught.value.status == 400


def test_the_sample_labels_of_a_window_that_splits_it_into_too_many_windows_are_refused():
    many = [(f"f{k % 50}", 1, {"span": str(k)}) for k in range(pprof.MAX_LABEL_SETS + 1)]
    body = push_proto([({"service_name": "api"}, [labelled_profile(many)])])
    with pytest.raises(IngestError, match="more than 1,000 distinct sets of sample labels"):
        push_request(body, "application/proto", NOW)
