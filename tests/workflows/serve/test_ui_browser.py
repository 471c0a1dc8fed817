"""flamespace serve's web UI in a real browser (headless Chromium from /usr/bin/chromium, driven by
playwright, as tests/render's browser tests; skipped without them, and a skip fails under CI=true).

``flamespace serve`` runs on a loopback port; windows are pushed as an agent pushes them, a stack
getting slower after the label ``version=2`` (a deploy). The UI then draws the range's flame graph,
says the comparison of the range before the deploy with the range after it found that stack slower,
makes no request that leaves the server and logs no error; its URL, opened again, shows the same view.
Screenshots go to test-artifacts/ (git-ignored) for people to look at.
"""

from __future__ import annotations

import gzip
import random
import signal
import urllib.error
import urllib.parse
import urllib.request
from datetime import timedelta
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("duckdb")

from flamespace.workflows.serve import PUSH_PATH  # noqa: E402

from ...render.test_browser import ARTIFACTS, browser  # noqa: E402, F401  (the shared Chromium fixture)
from .pushes import T0, profile, push_proto  # noqa: E402
from .test_server import Served  # noqa: E402

#: Windows before and after the deploy (10 s each): enough runs for the comparison to find a 60% change.
WINDOWS = 20
#: The UI's URL of the pushed windows: the range around them, range A before the deploy and B after it.
DEPLOY = T0 + timedelta(seconds=10 * WINDOWS)
RANGE = {"service": "api", "from": "2026-11-01T09:58:00", "until": "2026-11-01T10:09:00"}
SPANS = {
    "afrom": T0.isoformat(),
    "auntil": (DEPLOY - timedelta(seconds=5)).isoformat(),
    "bfrom": DEPLOY.isoformat(),
    "buntil": (DEPLOY + timedelta(seconds=10 * WINDOWS)).isoformat(),
}
#: How long the UI may take to show something on a busy machine (a bound, not a measurement).
TIMEOUT_MS = 60_000


def push_windows(url: str, headers: dict[str, str] | None = None) -> None:
    """WINDOWS windows of version 1, then WINDOWS of version 2 where main;checkout;parse takes 60% longer
    (``headers``: more request headers, an ingest token)."""
    rng = random.Random(29)
    for k in range(2 * WINDOWS):
        after = k >= WINDOWS
        values = {
            "main;checkout;parse": (1600 if after else 1000) + rng.randint(-50, 50),
            "main;checkout;render": 500 + rng.randint(-50, 50),
            "main;idle": 200 + rng.randint(-20, 20),
        }
        labels = {"service_name": "api", "region": "eu", "version": "2" if after else "1"}
        body = gzip.compress(push_proto([(labels, [profile(values, T0 + timedelta(seconds=10 * k))])]))
        request = urllib.request.Request(
            url + PUSH_PATH,
            data=body,
            headers={"content-type": "application/proto", "content-encoding": "gzip", **(headers or {})},
        )
        with urllib.request.urlopen(request, timeout=60) as answer:
            assert answer.status == 200


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    server = Served(str(tmp_path_factory.mktemp("ui") / "store"))
    try:
        push_windows(server.url)
        yield server
    finally:
        server.stop(signal.SIGKILL)


class Watched:
    """A browser tab on the UI that records every request it makes and every error it logs."""

    def __init__(self, browser, served: Served, **options) -> None:  # noqa: F811
        self.context = browser.new_context(viewport={"width": 1280, "height": 900}, **options)
        self.page = self.context.new_page()
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.page.on("request", lambda request: self.requests.append(request.url))
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on("console", lambda message: message.type == "error" and self.errors.append(message.text))
        self.served = served

    def open(self, query: dict[str, str] | str) -> None:
        search = query if isinstance(query, str) else "?" + urllib.parse.urlencode(query)
        self.page.goto(self.served.url + "/" + search)

    def frame(self, ready: str):
        """The framed page (the viewer's, the comparison's) once ``ready`` (a script) holds in it."""
        handle = self.page.wait_for_selector("#page:not([hidden])", timeout=TIMEOUT_MS)
        frame = handle.content_frame()
        frame.wait_for_function(ready, timeout=TIMEOUT_MS)
        return frame

    def shot(self, name: str) -> None:
        ARTIFACTS.mkdir(exist_ok=True)
        self.page.screenshot(path=str(ARTIFACTS / f"serve-ui-{name}.png"), full_page=False)

    def left_the_server(self) -> list[str]:
        return [url for url in self.requests if not url.startswith(self.served.url + "/") and url != "about:srcdoc"]

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def tab(browser, served):  # noqa: F811
    watched = Watched(browser, served)
    yield watched
    watched.close()


VIEWER_DRAWN = "window.flamespaceViewer && window.flamespaceViewer.ready && window.flamespaceViewer.draws > 0"
COMPARISON_DRAWN = "window.flamespaceCompare && window.flamespaceCompare.ready"


def test_the_ui_draws_the_ranges_flame_graph(tab):
    tab.open(RANGE)
    frame = tab.frame(VIEWER_DRAWN)
    assert frame.evaluate("window.flamespaceViewer.count") >= 5  # root, main, checkout, parse, render, idle
    bars = tab.page.locator("#timeline svg rect.bar")
    assert bars.count() >= 10, "the timeline draws the windows' totals"
    assert tab.page.locator("#service").input_value() == "api"
    assert "40 windows" in tab.page.locator("#timeline-note").inner_text()
    tab.shot("flame")
    assert tab.errors == [] and tab.left_the_server() == []


def test_comparing_the_ranges_names_the_stack_that_got_slower(tab):
    tab.open({**RANGE, "view": "compare", **SPANS})
    tab.page.wait_for_selector("#summary table.slower", timeout=TIMEOUT_MS)
    tab.frame(COMPARISON_DRAWN)
    slower = tab.page.locator("#summary table.slower").inner_text()
    assert "parse" in slower and "render" not in slower and "idle" not in slower
    assert "interval" in slower and "[" in slower, "each change with its interval"
    assert "1 stack slower, 0 faster" in tab.page.locator("#summary .verdict").inner_text()
    assert tab.page.locator("#summary table.faster").count() == 0
    tab.shot("compare")
    assert tab.errors == [] and tab.left_the_server() == []


def test_the_comparison_over_each_windows_load_is_one_click_and_in_the_url(tab):
    """The toggle asks compare --normalize-load's question; with three stacks (too few to tell a load)
    the summary says the windows were not divided, and why."""
    tab.open({**RANGE, "view": "compare", **SPANS})
    tab.page.wait_for_selector("#summary table.slower", timeout=TIMEOUT_MS)
    assert tab.page.locator("#summary .load-note").count() == 0  # one stack of three changed: no hint of load
    tab.page.locator("#per-load").click()
    tab.page.wait_for_selector("#summary .load-note", timeout=TIMEOUT_MS)
    assert "not divided by load: fewer than 5" in tab.page.locator("#summary .load-note").inner_text()
    assert "load=1" in tab.page.url and "on" in (tab.page.locator("#per-load").get_attribute("class") or "")
    tab.page.locator("nav.views a[data-view=history]").click()  # the history over each window's load too
    tab.page.wait_for_selector("#history svg", timeout=TIMEOUT_MS)
    assert "over the window's load" in tab.page.locator("#history p.muted").inner_text()
    assert "median value per profile of 3 stacks" in tab.page.locator("#history svg").inner_html()  # too few: the values
    assert tab.errors == [] and tab.left_the_server() == []


def test_a_shared_url_opens_the_same_view(tab, browser, served):  # noqa: F811
    tab.open(RANGE)
    tab.frame(VIEWER_DRAWN)
    tab.page.locator("#label-name").select_option("region")
    tab.page.wait_for_selector("#label-value:not([hidden]) option[value='eu']", state="attached", timeout=TIMEOUT_MS)
    tab.page.locator("#label-value").select_option("eu")
    tab.page.wait_for_selector("#labels .chip", timeout=TIMEOUT_MS)
    tab.page.locator("nav.views a[data-view=history]").click()
    tab.page.wait_for_selector("#history svg circle", state="attached", timeout=TIMEOUT_MS)
    shared = tab.page.url
    assert "view=history" in shared and "label=region%3Deu" in shared
    history = tab.page.locator("#history svg").inner_html()
    tab.shot("history")

    again = Watched(browser, served)
    try:
        again.page.goto(shared)
        again.page.wait_for_selector("#history svg circle", state="attached", timeout=TIMEOUT_MS)
        assert again.page.locator("#history svg").inner_html() == history
        assert again.page.locator("#labels .chip").inner_text().startswith("region=eu")
        assert again.page.url == shared
        assert again.errors == [] and again.left_the_server() == []
    finally:
        again.close()
    assert tab.errors == [] and tab.left_the_server() == []


def test_brushing_the_timeline_selects_a_range_into_the_url(tab):
    tab.open(RANGE)
    tab.frame(VIEWER_DRAWN)
    box = tab.page.locator("#timeline svg").bounding_box()
    assert box is not None
    y = box["y"] + box["height"] / 3
    tab.page.mouse.move(box["x"] + box["width"] * 0.2, y)
    tab.page.mouse.down()
    tab.page.mouse.move(box["x"] + box["width"] * 0.5, y, steps=5)
    tab.page.mouse.up()
    tab.page.wait_for_function("!location.search.includes('09%3A58')", timeout=TIMEOUT_MS)
    query = urllib.parse.parse_qs(urllib.parse.urlparse(tab.page.url).query)
    assert RANGE["from"] < query["from"][0] < query["until"][0] < RANGE["until"]
    tab.frame(VIEWER_DRAWN)
    assert tab.errors == [] and tab.left_the_server() == []


def test_history_only_after_the_first_draw_has_no_stale_frame(tab):
    """Going from the flame graph to the history hides the framed page (no leftover of another view)."""
    tab.open(RANGE)
    tab.frame(VIEWER_DRAWN)
    tab.page.locator("nav.views a[data-view=history]").click()
    tab.page.wait_for_selector("#history svg", timeout=TIMEOUT_MS)
    assert tab.page.locator("#page").is_hidden()
    assert Path(tab.page.url).name.startswith("?") or "view=history" in tab.page.url


def test_with_a_token_file_the_ui_sends_the_read_token(browser, tmp_path):  # noqa: F811
    """Behind --token-file the browser asks for the read token (basic auth) to open the page; a token in
    the fragment (#token=...) goes with every API request as Bearer and is taken out of the URL."""
    read = "r" * 24
    tokens = tmp_path / "tokens"
    tokens.write_text(f"ingest {'i' * 24}\nread {read}\n")
    tokens.chmod(0o600)
    server = Served(str(tmp_path / "store"), "--token-file", str(tokens))
    try:
        context = browser.new_context(http_credentials={"username": "ui", "password": read})
        page = context.new_page()
        sent: list[str | None] = []
        page.on("request", lambda r: "/api/" in r.url and sent.append(r.headers.get("authorization")))
        page.goto(server.url + "/?range=15m#token=" + read)
        page.wait_for_selector("#timeline svg", timeout=TIMEOUT_MS)
        assert sent and set(sent) == {"Bearer " + read}
        assert "token" not in page.url
        assert page.locator("#token-box").is_hidden()
        context.close()
    finally:
        server.stop(signal.SIGKILL)


def test_behind_a_token_file_basic_auth_alone_opens_every_view(browser, tmp_path):  # noqa: F811
    """The browser's own basic auth (the read token as the password, no #token=) is enough: the page,
    its API requests, the flame graph and the comparison all load; without credentials the page is a 401."""
    read = "r" * 24
    tokens = tmp_path / "tokens"
    tokens.write_text(f"ingest {'i' * 24}\nread {read}\n")
    tokens.chmod(0o600)
    server = Served(str(tmp_path / "store"), "--token-file", str(tokens))
    try:
        push_windows(server.url, {"authorization": "Bearer " + "i" * 24})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(server.url + "/", timeout=60)
        assert refused.value.code == 401 and any(
            c.startswith("Basic") for c in refused.value.headers.get_all("www-authenticate", [])
        )

        watched = Watched(browser, server, http_credentials={"username": "anyone", "password": read})
        statuses: list[int] = []
        watched.page.on("response", lambda r: "/api/" in r.url and statuses.append(r.status))
        try:
            watched.open(RANGE)
            frame = watched.frame(VIEWER_DRAWN)
            assert frame.evaluate("window.flamespaceViewer.count") >= 5
            watched.open({**RANGE, "view": "compare", **SPANS})
            watched.page.wait_for_selector("#summary table.slower", timeout=TIMEOUT_MS)
            assert "parse" in watched.page.locator("#summary table.slower").inner_text()
            assert watched.page.locator("#token-box").is_hidden()
            assert statuses and set(statuses) == {200}, statuses
            assert watched.errors == [] and watched.left_the_server() == []
        finally:
            watched.close()
    finally:
        server.stop(signal.SIGKILL)


def test_a_range_without_windows_offers_the_range_up_to_the_latest(tab):
    """An empty range (the agent stopped, or data older than the preset) says where the selection's latest
    window is, and one click shows a range as long, ending at that window's end."""
    tab.open({**RANGE, "from": "2026-11-02T00:00:00", "until": "2026-11-02T00:11:00"})
    tab.page.wait_for_selector("#to-latest", timeout=TIMEOUT_MS)
    said = tab.page.locator("#summary").inner_text()
    assert "No window in this range for service_name=api" in said and "latest of its 40 windows" in said
    tab.page.locator("#to-latest").click()
    frame = tab.frame(VIEWER_DRAWN)
    assert frame.evaluate("window.flamespaceViewer.count") >= 5
    query = urllib.parse.parse_qs(urllib.parse.urlparse(tab.page.url).query)
    last_end = (DEPLOY + timedelta(seconds=10 * WINDOWS)).replace(tzinfo=None).isoformat()
    assert query["until"] == [last_end] and query["from"][0] < last_end
    assert tab.errors == [] and tab.left_the_server() == []


def test_a_range_that_is_not_one_names_the_bound_and_keeps_the_pickers(tab):
    tab.open({**RANGE, "from": "yesterday"})
    tab.page.wait_for_selector("#service option[value='api']", state="attached", timeout=TIMEOUT_MS)
    said = tab.page.locator("#problem").inner_text()
    assert said.startswith('The range cannot be read: from "yesterday" is not a time: write an ISO date-time')
    assert tab.page.locator("#timeline svg").count() == 0 and tab.page.locator("#page").is_hidden()
    assert tab.errors == [] and tab.left_the_server() == []
