"""The OpenAPI 3.1 description of ``flamespace serve``'s endpoints, served at ``/openapi.json``.

Written by hand from the same constants the handlers use (paths, formats, choices), so a client
or a UI can be generated from it; tests/serve/test_app.py checks that every route is described
and every described route exists.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _param(
    name: str, description: str, schema: dict[str, Any] | None = None, where: str = "query", required: bool = False
) -> dict[str, Any]:
    return {"name": name, "in": where, "required": required, "description": description, "schema": schema or {"type": "string"}}


def _range(prefix: str = "") -> list[dict[str, Any]]:
    what = f"the {prefix.rstrip('_')} side's" if prefix else "the"
    return [
        _param(
            f"{prefix}selector",
            f"{what} windows: the store's selector (`service_name=api,region=eu`, `last=30`; with or without `store:`)",
        ),
        _param(
            f"{prefix}from",
            f"{what} range's start: ISO date-time (UTC), Unix seconds, `now` or `now-1h`; windows that start at or after it",
        ),
        _param(f"{prefix}until", f"{what} range's end (as `from`); windows that start at or before it"),
    ]


def _json_response(description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


ERROR = {
    "type": "object",
    "properties": {"error": {"type": "string"}, "parameter": {"type": "string", "description": "the parameter to blame"}},
    "required": ["error"],
}
ERRORS = {
    "400": _json_response("a bad parameter (named)", ERROR),
    "404": _json_response("the selector matches no stored window", ERROR),
}
STRINGS = {"type": "array", "items": {"type": "string"}}
#: How a client shows its token when the server has a --token-file (docs/serve.md, "Safe to expose").
SECURITY_SCHEMES = {
    "bearer": {"type": "http", "scheme": "bearer", "description": "Authorization: Bearer TOKEN"},
    "basic": {"type": "http", "scheme": "basic", "description": "the token as the password (any user name)"},
}
#: What the guard answers before a route (with --token-file: 401, 403; always: 429).
GUARD_ERRORS = {
    "401": _json_response("no token, or not one of the server's (with --token-file)", ERROR),
    "403": _json_response("a token without this route's role: ingest or read", ERROR),
    "429": _json_response("the client's rate limit: Retry-After says when to try again", ERROR),
}


def document() -> dict[str, Any]:
    """The OpenAPI document."""
    from ..._version import __version__
    from ...stats.comparison import ALTERNATIVES, METHODS
    from ...stats.history import BY, METRICS, TOP
    from . import API, MAX_BODY, PUSH_PATH
    from .guard import kind_of
    from .ingest import INGEST_FORMATS, REFUSED_FORMATS
    from .query import COMPARE_FORMATS, HISTORY_FORMATS, MERGE_FORMATS, WINDOWS_LIMIT

    window = {
        "type": "object",
        "properties": {
            "id": {"type": "integer"},
            "time": {"type": "string", "format": "date-time"},
            "time_end": {"type": "string", "format": "date-time"},
            "unit": {"type": ["string", "null"]},
            "metric": {"type": ["string", "null"]},
            "total": {"type": "number"},
            "stacks": {"type": "integer"},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        },
    }
    paths: dict[str, Any] = {
        PUSH_PATH: {
            "post": {
                "summary": "Pyroscope's push API (Connect, unary): a PushRequest of labelled series of pprof samples",
                "description": "Each sample becomes one stored window with its series' labels; its window is the pprof "
                "profile's time_nanos and duration_nanos. Answered once every profile is durably stored. "
                f"Bodies up to {MAX_BODY:,} bytes, gzip (Content-Encoding) or plain.",
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/proto": {"schema": {"type": "string", "format": "binary"}},
                        "application/json": {"schema": {"type": "object"}},
                    },
                },
                "responses": {
                    "200": {"description": "stored (an empty PushResponse)"},
                    "400": _json_response("a bad push: Connect's error", {"type": "object"}),
                    "413": _json_response("too large", {"type": "object"}),
                    "415": _json_response("neither application/proto nor application/json", {"type": "object"}),
                },
            }
        },
        "/ingest": {
            "post": {
                "summary": "Pyroscope's older ingest: one profile, its name and window in the query",
                "description": f"Formats taken: {', '.join(INGEST_FORMATS)} (pprof raw or as the multipart field "
                f"`profile`); {', '.join(REFUSED_FORMATS)} are refused with 415.",
                "parameters": [
                    _param("name", "APP{k=v,...}: service_name APP and labels", required=True),
                    _param("from", "the window's start, Unix seconds"),
                    _param("until", "the window's end, Unix seconds"),
                    _param("format", "the body's format", {"type": "string", "enum": list(INGEST_FORMATS)}),
                    _param("spyName", "kept as the label pyroscope.spy"),
                    _param("sampleRate", "kept as the label pyroscope.sample_rate"),
                ],
                "responses": {
                    "200": _json_response(
                        "stored", {"type": "object", "properties": {"stored": {"type": "array", "items": {"type": "integer"}}}}
                    ),
                    **ERRORS,
                    "413": _json_response("too large", ERROR),
                    "415": _json_response("a format not taken", ERROR),
                },
            }
        },
        f"{API}/labels": {
            "get": {
                "summary": "The label names of the windows a selector names",
                "parameters": _range(),
                "responses": {
                    "200": _json_response("label names", {"type": "object", "properties": {"labels": STRINGS}}),
                    **ERRORS,
                },
            }
        },
        f"{API}/labels/{{name}}/values": {
            "get": {
                "summary": "The values of one label among the windows a selector names",
                "parameters": [_param("name", "the label", where="path", required=True), *_range()],
                "responses": {
                    "200": _json_response(
                        "label values", {"type": "object", "properties": {"label": {"type": "string"}, "values": STRINGS}}
                    ),
                    **ERRORS,
                },
            }
        },
        f"{API}/windows": {
            "get": {
                "summary": "The stored windows a selector names, oldest first (the runs of a comparison; a timeline)",
                "parameters": [
                    *_range(),
                    _param("limit", "the latest N listed", {"type": "integer", "minimum": 1, "maximum": WINDOWS_LIMIT}),
                ],
                "responses": {
                    "200": _json_response(
                        "windows",
                        {
                            "type": "object",
                            "properties": {"count": {"type": "integer"}, "windows": {"type": "array", "items": window}},
                        },
                    ),
                    **ERRORS,
                },
            }
        },
        f"{API}/merge": {
            "get": {
                "summary": "The merged flame graph of the windows a selector names (flamespace store get)",
                "parameters": [
                    *_range(),
                    _param(
                        "format",
                        "flamespace-json (exact values and labels), folded, or html (the interactive viewer's page)",
                        {"type": "string", "enum": list(MERGE_FORMATS)},
                    ),
                    _param("mean", "the mean of the windows instead of their sum", {"type": "boolean"}),
                ],
                "responses": {
                    "200": {
                        "description": "the flame graph",
                        "content": {media.split(";")[0]: {"schema": {"type": "string"}} for media in MERGE_FORMATS.values()},
                    },
                    **ERRORS,
                },
            }
        },
        f"{API}/compare": {
            "get": {
                "summary": "flamespace compare of two selectors and ranges, each window a run",
                "description": "The comparison as `flamespace compare --json` writes it, and the guard rails' `findings`.",
                "parameters": [
                    *_range("baseline_"),
                    *_range("candidate_"),
                    _param("method", "the test", {"type": "string", "enum": list(METHODS)}),
                    _param("alpha", "the error rate controlled", {"type": "number"}),
                    _param("alternative", "which changes", {"type": "string", "enum": list(ALTERNATIVES)}),
                    _param("normalize", "compare shares of each window's total", {"type": "boolean"}),
                    _param(
                        "normalize_load",
                        "divide each window by its load (the weighted median over the stacks of each one's value against its usual)",
                        {"type": "boolean"},
                    ),
                    _param(
                        "format",
                        "json (compare --json's document), html (compare --html's page) or json-with-html "
                        "(both of one comparison: {comparison, html})",
                        {"type": "string", "enum": list(COMPARE_FORMATS), "default": "json"},
                    ),
                ],
                "responses": {
                    "200": {
                        "description": "the comparison",
                        "content": {
                            "application/json": {"schema": {"type": "object"}},
                            "text/html": {"schema": {"type": "string"}},
                        },
                    },
                    **ERRORS,
                },
            }
        },
        f"{API}/history": {
            "get": {
                "summary": "flamespace history of the windows a selector names: series and change points",
                "parameters": [
                    *_range(),
                    _param("by", "a point of the series", {"type": "string", "enum": list(BY), "default": "window"}),
                    _param(
                        "metric",
                        "value, share, or normalised (each window's values over its load)",
                        {"type": "string", "enum": list(METRICS)},
                    ),
                    _param("top", "the N largest stacks", {"type": "integer", "default": TOP}),
                    _param("stack", "a regular expression: the stacks whose text matches"),
                    _param("alpha", "the family-wise error rate", {"type": "number"}),
                    _param(
                        "format",
                        "json (history --format json's document) or svg (history --svg's sparklines)",
                        {"type": "string", "enum": list(HISTORY_FORMATS), "default": "json"},
                    ),
                ],
                "responses": {
                    "200": {
                        "description": "the history as history --format json writes it, or its sparklines",
                        "content": {
                            "application/json": {"schema": {"type": "object"}},
                            "image/svg+xml": {"schema": {"type": "string"}},
                        },
                    },
                    **ERRORS,
                },
            }
        },
        "/openapi.json": {
            "get": {"summary": "This document", "responses": {"200": _json_response("OpenAPI 3.1", {"type": "object"})}}
        },
        "/healthz": {
            "get": {"summary": "Whether the server is up", "responses": {"200": _json_response("ok", {"type": "object"})}}
        },
        "/": {
            "get": {
                "summary": "The web UI (with Accept: application/json alone: where the API is)",
                "responses": {
                    "200": {
                        "description": "the UI's page, or an index",
                        "content": {
                            "text/html": {"schema": {"type": "string"}},
                            "application/json": {"schema": {"type": "object"}},
                        },
                    }
                },
            }
        },
    }
    for path, methods in paths.items():
        for operation in methods.values():
            if kind_of(path) == "open":
                operation["security"] = []
            else:
                operation["responses"].update(GUARD_ERRORS)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "flamespace serve",
            "version": __version__,
            "description": "Continuous profiling over a flamespace store",
        },
        "paths": paths,
        "components": {"securitySchemes": SECURITY_SCHEMES},
        "security": [{"bearer": []}, {"basic": []}],
    }
