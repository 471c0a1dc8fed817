"""One browser tab per page under test, shared by the HTML pages' browser tests.

A :class:`Page` refuses and records every request but the page's own file and records
script errors; :func:`checked_pages` hands a test an opener and, after the test, asserts of
every page it opened that there were none (the pages work offline and without errors).
Subclasses say what their page sets when it is ready (``READY``), how their screenshots are
named (``PREFIX``) and add what their tests ask of the page.
"""

from __future__ import annotations

from .test_browser import ARTIFACTS


class Page:
    #: A JavaScript expression that is true once the page has drawn.
    READY = "window.flamespaceViewer && window.flamespaceViewer.ready"
    #: Screenshots are test-artifacts/<PREFIX>-<name>.png.
    PREFIX = "html"
    FULL_PAGE = False

    def __init__(self, browser, path, viewport=(1200, 700), init_script: str = "") -> None:
        self.context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
        if init_script:  # run in the page before its own scripts (e.g. to take an API away)
            self.context.add_init_script(init_script)
        self.requests: list = []
        self.errors: list = []
        own = path.as_uri()

        def route(route, request) -> None:
            if request.url.split("#")[0] == own:
                route.continue_()
            else:
                self.requests.append(request.url)
                route.abort()

        self.context.route("**/*", route)
        self.tab = self.context.new_page()
        self.tab.on("pageerror", lambda error: self.errors.append(str(error)))
        self.tab.on("console", lambda message: self.errors.append(message.text) if message.type == "error" else None)
        self.open(own)

    def open(self, url: str) -> None:
        """Go to ``url`` (the page, perhaps with a #fragment) and wait until it has drawn."""
        self.tab.goto(url)
        self.tab.wait_for_function(self.READY)

    def shot(self, name: str) -> None:
        ARTIFACTS.mkdir(exist_ok=True)
        self.tab.screenshot(path=str(ARTIFACTS / f"{self.PREFIX}-{name}.png"), full_page=self.FULL_PAGE)

    def check(self) -> None:
        assert not self.requests, f"the page asked for {self.requests}"
        assert not self.errors, self.errors
        self.context.close()


def checked_pages(make):
    """A fixture body: yields ``open_(...)`` (``make``'s arguments, returns the page it makes),
    then checks every page opened (no request but its own file, no script error)."""
    opened = []

    def open_(*args, **kwargs):
        page = make(*args, **kwargs)
        opened.append(page)
        return page

    yield open_
    for page in opened:
        page.check()
