"""The web UI of ``flamespace serve``: one page at ``/`` that asks the query API for everything it shows.

The page is built like the viewer's (render/html.py): stylesheets and the bundled script
(``render/js/serve_ui.mjs`` and what it imports) inlined, so it loads nothing else and nothing from
another host. What it shows inside comes from the API: the timeline from ``/windows``, the flame
graph as ``/merge?format=html`` (the viewer's own page), a comparison as ``/compare`` and
``/compare?format=html`` (``compare --html``'s page), the history as ``/history?format=svg``
(``history --svg``'s sparklines).
"""

from __future__ import annotations

import functools
import os

from . import API

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: The page's entry module (render/js/).
SCRIPT = "serve_ui.mjs"
#: The page's stylesheets (render/), in order: the viewer's look, the report's views, the UI's own.
STYLES = ("viewer.css", "report.css", "serve_ui.css")


def config() -> dict[str, Any]:
    """What the page script is told: where the API is, and how to show values of each known unit."""
    from ...core import units
    from ...render.html import unit_spec

    known = [units.SHARE_UNIT, *units.TIME_UNITS, *units.BYTE_UNITS]
    return {"api": API, "units": {unit: unit_spec(unit, "") for unit in known}}


@functools.lru_cache(maxsize=1)
def page() -> str:
    """The UI's page (made once a process: its parts are files of the package)."""
    from ...render.bundle import HERE, bundle
    from ...render.html import _json

    styles = []
    for name in STYLES:
        with open(os.path.join(os.path.dirname(HERE), name), encoding="utf-8") as stream:
            styles.append(stream.read())
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="generator" content="flamespace">\n'
        '<title>flamespace</title>\n<link rel="icon" href="data:,">\n<style>\n' + "".join(styles) + "</style>\n</head>\n"
        '<body class="serve-ui">\n'
        "<noscript>flamespace's UI is drawn by JavaScript: please enable it (the API is at "
        f"{API}, described at /openapi.json).</noscript>\n"
        f'<script type="application/json" id="flamespace-ui">{_json(config())}</script>\n'
        f"<script>\n{bundle(SCRIPT)}</script>\n</body>\n</html>\n"
    )


__all__ = ["SCRIPT", "STYLES", "config", "page"]
