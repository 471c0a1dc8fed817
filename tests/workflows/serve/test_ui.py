"""flamespace serve's web UI: its routes in-process (what is served, as what, nothing from another host),
and the page's formats of the query API (the viewer's page, compare --html's, history --svg's)."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

pytest.importorskip("starlette")
pytest.importorskip("duckdb")

from starlette.testclient import TestClient  # noqa: E402

from flamespace.render.compare_page import read_comparison  # noqa: E402
from flamespace.render.html import read_payload  # noqa: E402
from flamespace.workflows.serve import API, create_app  # noqa: E402

from .pushes import T0  # noqa: E402
from .test_app import push, windows_of  # noqa: E402

#: An address a page could load something from: scheme-relative or http(s), with a host name.
ADDRESS = re.compile(r"(?:https?:)?//[A-Za-z0-9.-]+\.[A-Za-z]{2,}[^\s\"'<>)]*")
#: Addresses that name an XML namespace (SVG's), which no browser requests.
NAMESPACES = {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink", "http://www.w3.org/1999/xhtml"}


def external(text: str) -> set[str]:
    """The addresses in ``text`` a browser could request from another host."""
    return set(ADDRESS.findall(text)) - NAMESPACES


@pytest.fixture
def client(tmp_path):
    with TestClient(create_app(str(tmp_path / "store"))) as c:
        yield c


@pytest.fixture
def deployed(client):
    """Six windows of version 1, then six of version 2 where main;parse takes 60% longer."""
    rng = __import__("random").Random(7)
    before = [{"main;parse": 100 + rng.randint(-5, 5), "main;render": 50 + rng.randint(-5, 5)} for _ in range(6)]
    after = [{"main;parse": 160 + rng.randint(-5, 5), "main;render": 50 + rng.randint(-5, 5)} for _ in range(6)]
    for version, values, start in (("1", before, T0), ("2", after, T0 + timedelta(minutes=1))):
        for labels, samples in windows_of("api", values, start):
            assert push(client, [({**labels, "version": version}, samples)]).status_code == 200
    return client


def test_the_ui_is_one_html_page_that_asks_no_other_host(client):
    answer = client.get("/", headers={"accept": "text/html,application/xhtml+xml"})
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "text/html; charset=utf-8"
    page = answer.text
    assert '<script type="application/json" id="flamespace-ui">' in page and "flamespaceModules" in page
    assert external(page) == set()
    assert not re.search(r"<(?:script|link|img|iframe)[^>]*\s(?:src|href)=\"(?!data:)", page), "every part of the page is inline"
    assert "access-control-allow-origin" not in answer.headers


def test_the_ui_detects_an_external_address():
    """The check itself: an address of another host is found, the SVG namespace is not."""
    assert external('<script src="https://cdn.example.com/x.js"></script>') == {"https://cdn.example.com/x.js"}
    assert external("@import url(//fonts.googleapis.com/css)") == {"//fonts.googleapis.com/css"}
    assert external('<svg xmlns="http://www.w3.org/2000/svg">') == set()


def test_a_json_client_still_gets_the_index(client):
    answer = client.get("/", headers={"accept": "application/json"})
    assert answer.headers["content-type"] == "application/json"
    assert answer.json()["api"] == API


def test_merge_as_the_viewers_page(deployed):
    answer = deployed.get(f"{API}/merge", params={"selector": "service_name=api", "format": "html"})
    assert answer.status_code == 200 and answer.headers["content-type"] == "text/html; charset=utf-8"
    assert external(answer.text) == set()
    data = read_payload(answer.text)
    folded = deployed.get(f"{API}/merge", params={"selector": "service_name=api", "format": "folded"}).text
    assert data["total"] == sum(int(line.rsplit(" ", 1)[1]) for line in folded.splitlines() if not line.startswith("#"))
    assert "service_name=api" in data["title"]
    ranged = deployed.get(f"{API}/merge", params={"selector": "service_name=api", "from": "1793527200", "format": "html"})
    assert read_payload(ranged.text)["title"] == "Flame graph of service_name=api from 2026-11-01 10:00:00 UTC"


def test_compare_as_compare_htmls_page_names_the_grown_stack(deployed):
    params = {
        "baseline_selector": "service_name=api",
        "baseline_until": "2026-11-01T10:00:55",
        "candidate_selector": "service_name=api",
        "candidate_from": "2026-11-01T10:01:00",
    }
    answer = deployed.get(f"{API}/compare", params={**params, "format": "html"})
    assert answer.status_code == 200 and answer.headers["content-type"] == "text/html; charset=utf-8"
    assert external(answer.text) == set()
    compared = read_comparison(answer.text)
    assert "1 significant change" in compared["title"]
    as_json = deployed.get(f"{API}/compare", params=params).json()
    assert [(c["stack"], c["kind"]) for c in as_json["stacks"] if c["significant"]] == [(["main", "parse"], "grown")]
    # the UI's one request for both views of one comparison (it asked twice, comparing twice)
    both = deployed.get(f"{API}/compare", params={**params, "format": "json-with-html"}).json()
    assert both["comparison"] == as_json and read_comparison(both["html"])["title"] == compared["title"]


def test_history_as_sparklines_marks_the_change(deployed):
    answer = deployed.get(f"{API}/history", params={"selector": "service_name=api", "format": "svg", "stack": "parse"})
    assert answer.status_code == 200 and answer.headers["content-type"] == "image/svg+xml; charset=utf-8"
    assert answer.text.count("<circle") == 1, "one change point, one dot"
    assert "2026-11-01T10:01:00" in answer.text


@pytest.mark.parametrize("path", ["merge", "compare", "history"])
def test_a_format_the_api_does_not_write_is_a_400_naming_it(deployed, path):
    params = {"selector": "service_name=api", "baseline_selector": "version=1", "candidate_selector": "version=2"}
    answer = deployed.get(f"{API}/{path}", params={**params, "format": "pdf"})
    assert answer.status_code == 400 and answer.json()["parameter"] == "format"
