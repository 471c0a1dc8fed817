"""flamespace serve, safe to expose: tokens (--token-file), rate limits, no CORS, bound SQL parameters.

In-process (Starlette's TestClient); the limits run on a fake clock, so nothing here waits or times."""

from __future__ import annotations

import base64
import gzip
import os
import urllib.parse
from datetime import timedelta

import pytest

pytest.importorskip("starlette")
pytest.importorskip("duckdb")

from starlette.testclient import TestClient  # noqa: E402

from flamespace.workflows.serve import ALERT_METRIC, API, MAX_CONNECTIONS, PUSH_PATH, create_app  # noqa: E402
from flamespace.workflows.serve.guard import kind_of  # noqa: E402
from flamespace.workflows.serve.ratelimit import INGEST_LIMIT, QUERY_LIMIT, Limit, Limiter, parse_limit  # noqa: E402
from flamespace.workflows.serve.tokens import TokenFileError, credential, parse_tokens, read_token_file  # noqa: E402

from .pushes import T0, profile, push_proto  # noqa: E402

INGEST = "ingest-0123456789abcdef"
READ = "read-0123456789abcdef00"
BOTH = "both-0123456789abcdef00"
TOKENS = f"# tokens of the tests\ningest {INGEST}\nread   {READ}   # the dashboards\n\ningest {BOTH}\nread {BOTH}\n"


def bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def basic(token: str, user: str = "shop") -> dict[str, str]:
    return {"authorization": "Basic " + base64.b64encode(f"{user}:{token}".encode()).decode()}


def token_file(tmp_path, text: str = TOKENS, mode: int = 0o600) -> str:
    path = tmp_path / "tokens"
    path.write_text(text)
    os.chmod(path, mode)
    return str(path)


class Clock:
    """Seconds that move only when the test says."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def store(tmp_path):
    return str(tmp_path / "store")


@pytest.fixture
def client(store, tmp_path):
    with TestClient(create_app(store, token_file=token_file(tmp_path))) as c:
        yield c


def push(client, headers, labels=None, start=T0):
    body = gzip.compress(push_proto([(labels or {"service_name": "api"}, [profile({"main;work": 3}, start)])]))
    return client.post(
        PUSH_PATH, content=body, headers={"content-type": "application/proto", "content-encoding": "gzip", **headers}
    )


def ingest(client, headers):
    query = urllib.parse.urlencode({"name": "legacy{host=h1}", "from": "1793527200", "format": "folded"})
    return client.post(f"/ingest?{query}", content=b"main;work 7\n", headers=headers)


READ_PATHS = [
    f"{API}/labels",
    f"{API}/labels/service_name/values",
    f"{API}/windows",
    f"{API}/merge",
    "/openapi.json",
    "/",
    "/nowhere",
]

# -- tokens over HTTP


@pytest.mark.parametrize(
    "headers",
    [{}, bearer("wrong-0123456789abcdef"), basic("wrong-0123456789abcdef"), {"authorization": "Digest x"}, bearer("")],
    ids=["none", "bad-bearer", "bad-basic", "other-scheme", "empty"],
)
def test_a_missing_or_bad_token_gets_401_on_every_route_class(client, store, headers):
    answers = [push(client, headers), ingest(client, headers)] + [client.get(path, headers=headers) for path in READ_PATHS]
    for answer in answers:
        assert answer.status_code == 401, (answer.request.url, answer.text)
        assert answer.headers.get_list("www-authenticate") == ['Bearer realm="flamespace"', 'Basic realm="flamespace"']
    assert answers[0].json()["code"] == "unauthenticated"  # Connect's error on the push path
    assert all("error" in a.json() for a in answers[1:])
    assert not os.path.exists(store) or client.get(f"{API}/windows", headers=bearer(READ)).json()["count"] == 0
    health = client.get("/healthz", headers=headers)
    assert (health.status_code, health.json()) == (200, {"status": "ok"})  # open, and says nothing of the store


@pytest.mark.parametrize("form", [bearer, basic, lambda t: basic(t, user="")], ids=["bearer", "basic", "basic-no-user"])
def test_the_right_token_pushes_and_reads_as_bearer_and_as_basic_password(client, form):
    assert push(client, form(INGEST)).status_code == 200
    assert ingest(client, form(BOTH)).status_code == 200
    for path in READ_PATHS[:-1]:
        assert client.get(path, headers=form(READ)).status_code == 200, path
    assert client.get("/nowhere", headers=form(READ)).status_code == 404
    listed = client.get(f"{API}/windows", headers=form(BOTH)).json()
    assert sorted(w["labels"]["service_name"] for w in listed["windows"]) == ["api", "legacy"]


def test_an_ingest_token_cannot_read_and_a_read_token_cannot_push(client):
    answer = client.get(f"{API}/labels", headers=bearer(INGEST))
    assert answer.status_code == 403 and "ingest token" in answer.json()["error"]
    answer = push(client, bearer(READ))
    assert answer.status_code == 403 and answer.json()["code"] == "permission_denied"
    assert client.get(f"{API}/windows", headers=bearer(READ)).json()["count"] == 0


def test_without_a_token_file_every_request_is_let_through(store):
    with TestClient(create_app(store)) as c:
        assert push(c, {}).status_code == 200 and c.get(f"{API}/labels").status_code == 200


# -- the token file


def test_tokens_match_whole_tokens_only():
    tokens = parse_tokens(TOKENS)
    assert tokens.allows(INGEST, "ingest") and not tokens.allows(INGEST, "read")
    assert tokens.allows(BOTH, "ingest") and tokens.allows(BOTH, "read")
    for near in (INGEST[:-1], INGEST + "0", INGEST.upper(), "", None):
        assert not tokens.allows(near, "ingest")
    assert (tokens.count("ingest"), tokens.count("read")) == (2, 2)


@pytest.mark.parametrize(
    "text, line, message",
    [
        ("ingest 0123456789abcdef0\nwrite 0123456789abcdef01\n", 2, "give a role and a token"),
        ("read\n", 1, "give a role and a token"),
        ("# ok\nread 0123456789abcdef0 extra\n", 2, "give a role and a token"),
        ("read short\n", 1, "at least 16"),
        ("read 0123456789abcdéf0123\n", 1, "printable ASCII"),
    ],
)
def test_a_bad_token_file_names_its_file_and_line(tmp_path, text, line, message):
    path = token_file(tmp_path, text)
    with pytest.raises(TokenFileError, match=message) as caught:
        read_token_file(path)
    assert str(caught.value).startswith(f"{path}:{line}: ")


def test_a_token_file_without_tokens_is_refused(tmp_path):
    path = token_file(tmp_path, "# nothing yet\n\n")
    with pytest.raises(TokenFileError, match="no token in it"):
        read_token_file(path)


@pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX")
@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o620])
def test_a_token_file_others_can_read_is_refused(tmp_path, mode):
    path = token_file(tmp_path, mode=mode)
    with pytest.raises(TokenFileError, match=f"other users can read it \\(mode 0{mode:o}\\).*chmod 600"):
        read_token_file(path)
    os.chmod(path, 0o400)
    assert read_token_file(path).count("read") == 2


@pytest.mark.parametrize(
    "header, token",
    [
        ("Bearer abc", "abc"),
        ("bearer   abc ", "abc"),
        ("Basic " + base64.b64encode(b"user:pa:ss").decode(), "pa:ss"),
        ("Basic " + base64.b64encode(b"tok:").decode(), "tok"),
        ("Basic not-base64!", None),
        ("Token abc", None),
        ("", None),
        (None, None),
    ],
)
def test_credential_reads_bearer_and_basic_auth(header, token):
    assert credential(header) == token


def test_kinds_of_paths():
    assert [kind_of(p) for p in (PUSH_PATH, "/ingest", "/healthz", f"{API}/merge", "/", "/ui/app.js")] == [
        "ingest",
        "ingest",
        "open",
        "read",
        "read",
        "read",
    ]


# -- the token file read again


NEW = "new-0123456789abcdef000"


def replace_file(path: str, text: str, mode: int = 0o600) -> None:
    """As an operator should: a new file renamed over the old one."""
    fresh = path + ".new"
    with open(fresh, "w") as f:
        f.write(text)
    os.chmod(fresh, mode)
    os.replace(fresh, path)


def test_a_changed_token_file_is_read_again_without_a_restart(store, tmp_path, caplog):
    clock = Clock()
    path = token_file(tmp_path)
    with TestClient(create_app(store, token_file=path, clock=clock)) as c, caplog.at_level("WARNING", "flamespace.serve.tokens"):
        assert c.get(f"{API}/labels", headers=bearer(NEW)).status_code == 401
        replace_file(path, f"read {NEW}\ningest {INGEST}\n")  # READ revoked, NEW added
        assert c.get(f"{API}/labels", headers=bearer(NEW)).status_code == 401  # looked at once a second at most
        clock.now += 1.0
        assert c.get(f"{API}/labels", headers=bearer(NEW)).status_code == 200
        assert c.get(f"{API}/labels", headers=bearer(READ)).status_code == 401
        assert caplog.messages == [f"flamespace serve: read {path} again: 1 ingest and 1 read token(s)"]
        with open(path, "a") as f:  # written in place: seen too
            f.write(f"read {READ}\n")
        clock.now += 1.0
        assert c.get(f"{API}/labels", headers=bearer(READ)).status_code == 200
        assert push(c, bearer(INGEST)).status_code == 200


@pytest.mark.parametrize(
    "spoil, message",
    [
        (lambda path: replace_file(path, "read short\n"), ":1: "),
        (lambda path: os.chmod(path, 0o644), "other users can read it"),
        (lambda path: os.remove(path), "No such file"),
    ],
)
def test_a_token_file_spoilt_while_serving_keeps_the_tokens_before_it(store, tmp_path, caplog, spoil, message):
    clock = Clock()
    path = token_file(tmp_path)
    with TestClient(create_app(store, token_file=path, clock=clock)) as c, caplog.at_level("WARNING", "flamespace.serve.tokens"):
        spoil(path)
        for _ in range(2):
            clock.now += 1.0
            assert c.get(f"{API}/labels", headers=bearer(READ)).status_code == 200
            assert c.get(f"{API}/labels", headers=bearer(NEW)).status_code == 401
        assert len(caplog.messages) == 1, caplog.messages  # once per change, not per request
        assert path in caplog.messages[0] and message in caplog.messages[0]
        assert caplog.messages[0].endswith("the tokens read before stay in force")
        replace_file(path, f"read {NEW}\n")  # put right: read again
        clock.now += 1.0
        assert c.get(f"{API}/labels", headers=bearer(NEW)).status_code == 200


# -- rate limits


def test_a_client_over_its_limit_gets_429_then_recovers(store, tmp_path):
    clock = Clock()
    app = create_app(store, token_file=token_file(tmp_path), ingest_limit=Limit(1, 2), query_limit=Limit(0.5, 3), clock=clock)
    with TestClient(app) as c:
        statuses = [c.get(f"{API}/labels", headers=bearer(READ)).status_code for _ in range(4)]
        assert statuses == [200, 200, 200, 429]
        refused = c.get(f"{API}/labels", headers=bearer(READ))
        assert refused.headers["retry-after"] == "2" and "at most 0.5 a second" in refused.json()["error"]
        assert c.get(f"{API}/labels", headers=bearer(BOTH)).status_code == 200  # another token: its own bucket
        assert [push(c, bearer(INGEST)).status_code for _ in range(3)] == [200, 200, 429]  # pushes: their own bucket
        assert push(c, bearer(INGEST)).json()["code"] == "resource_exhausted"
        clock.now += 2.0
        assert c.get(f"{API}/labels", headers=bearer(READ)).status_code == 200
        assert c.get(f"{API}/labels", headers=bearer(READ)).status_code == 429
        assert push(c, bearer(INGEST)).status_code == 200


def test_guesses_share_their_address_bucket(store, tmp_path):
    """Bad tokens (each a different guess) are limited as one client: guessing is throttled."""
    clock = Clock()
    with TestClient(create_app(store, token_file=token_file(tmp_path), query_limit=Limit(1, 2), clock=clock)) as c:
        statuses = [c.get(f"{API}/labels", headers=bearer(f"guess-{k:016d}")).status_code for k in range(3)]
        assert statuses == [401, 401, 429]
        assert c.get(f"{API}/labels", headers=bearer(READ)).status_code == 200  # the right token has its own bucket


def test_without_tokens_made_up_tokens_do_not_get_buckets_of_their_own(store):
    with TestClient(create_app(store, query_limit=Limit(1, 1), clock=Clock())) as c:
        assert [c.get(f"{API}/labels", headers=bearer(f"made-up-{k:012d}")).status_code for k in range(2)] == [200, 429]


def test_the_limiter_keeps_a_bounded_number_of_clients():
    clock = Clock()
    limiter = Limiter(Limit(1, 1), clock, max_clients=2)
    assert [limiter.take(k) for k in "abc"] == [0.0, 0.0, 0.0]
    assert limiter.take("c") == 1.0 and limiter.take("b") == 1.0
    assert limiter.take("a") == 0.0  # forgotten (unused the longest): it starts afresh
    clock.now += 0.25
    assert limiter.take("a") == pytest.approx(0.75)


@pytest.mark.parametrize("text, limit", [("20:600", Limit(20, 600)), ("0.5", Limit(0.5, 1)), ("3", Limit(3, 3)), ("off", None)])
def test_parse_limit(text, limit):
    assert parse_limit(text) == limit


@pytest.mark.parametrize("text", ["", "x", "5:y", "0:10", "-1:3", "5:0", "inf:3", "nan"])
def test_a_bad_limit_is_refused(text):
    with pytest.raises(ValueError):
        parse_limit(text)


# -- CORS


def test_no_cors_headers_are_sent(client):
    origin = {"origin": "https://elsewhere.example", **bearer(READ)}
    answers = [
        client.get(f"{API}/labels", headers=origin),
        client.options(
            f"{API}/labels",
            headers={**origin, "access-control-request-method": "GET", "access-control-request-headers": "authorization"},
        ),
        push(client, {"origin": "https://elsewhere.example", **bearer(INGEST)}),
    ]
    for answer in answers:
        assert not [h for h in answer.headers if h.lower().startswith("access-control-")], answer.headers


# -- no SQL built from user strings


@pytest.fixture
def open_client(store):
    with TestClient(create_app(store)) as c:
        for k, (service, team) in enumerate([("api", "o'brien"), ("db", "ops"), ("web", 'say "hi"')]):
            assert push(c, {}, {"service_name": service, "team": team}, T0 + timedelta(seconds=10 * k)).status_code == 200
        yield c


def services(answer) -> list[str]:
    return [w["labels"]["service_name"] for w in answer.json()["windows"]]


@pytest.mark.parametrize(
    "selector, expected",
    [
        ("team=o'brien", ["api"]),
        ('team=say "hi"', ["web"]),
        ("service_name=api' OR 'a'<'b", []),
        ("service_name=api' OR TRUE --", []),
        ('service_name=api" OR "a"<"b', []),
        ("service_name=db') OR ('a'<'b", []),
        ("team=o'brien' OR team<>'", []),
        ("service_name=x' OR '1'='1", None),  # '=' in a value: a 400, never more windows
        ("service_name=api,x' OR '1'='1", None),
    ],
)
def test_selector_values_are_bound_parameters(open_client, selector, expected):
    answer = open_client.get(f"{API}/windows", params={"selector": selector})
    if expected is None:
        assert answer.status_code == 400 and answer.json()["parameter"] == "selector"
    else:
        assert (answer.status_code, services(answer)) == (200, expected)
    merged = open_client.get(f"{API}/merge", params={"selector": selector, "format": "folded"})
    assert merged.status_code == (400 if expected is None else 200 if expected else 404)


@pytest.mark.parametrize("name", ["team' OR '1'='1", 'team" OR 1=1 --', "$", "*", '"', "team\\", "a\\b", "$.team", "team)"])
def test_a_label_name_with_quotes_lists_nothing_or_is_a_400(open_client, name):
    answer = open_client.get(f"{API}/labels/{urllib.parse.quote(name, safe='')}/values")
    assert answer.status_code in (200, 400), answer.text
    if answer.status_code == 200:
        assert answer.json()["values"] == []
    else:
        assert answer.json()["parameter"] == "name"
    assert open_client.get(f"{API}/labels/team/values").json()["values"] == ["o'brien", "ops", 'say "hi"']


# -- the command line


@pytest.fixture
def served_args(monkeypatch):
    """What `flamespace serve` would serve with (the server itself not started)."""
    import flamespace.workflows.serve as serve_module

    calls: list[tuple] = []
    monkeypatch.setattr(serve_module, "serve", lambda *args, **options: calls.append((*args, options)))
    return calls


@pytest.mark.parametrize(
    "host, warned", [("127.0.0.1", False), ("localhost", False), ("::1", False), ("0.0.0.0", True), ("10.1.2.3", True)]
)
def test_serve_on_a_non_loopback_host_without_tokens_warns_once(served_args, capsys, tmp_path, host, warned):
    from flamespace.cli import main

    assert main(["serve", "--store", str(tmp_path / "s"), "--host", host]) == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert len(warnings) == int(warned), warnings
    if warned:
        assert (
            warnings[0]
            == f"flamespace serve: warning: anyone who reaches {host}:4040 can push and read profiles; give --token-file"
        )
    assert main(["serve", "--store", str(tmp_path / "s"), "--host", host, "--token-file", token_file(tmp_path)]) == 0
    assert "warning" not in capsys.readouterr().err


def test_serve_passes_its_token_file_and_limits(served_args, tmp_path):
    from flamespace.cli import main

    path = token_file(tmp_path)
    assert (
        main(["serve", "--store", str(tmp_path / "s"), "--token-file", path, "--ingest-limit", "5:50", "--query-limit", "off"])
        == 0
    )
    assert served_args[0][-4:-1] == (path, Limit(5, 50), None)
    assert main(["serve", "--store", str(tmp_path / "s")]) == 0
    assert served_args[1][-4:-1] == (None, INGEST_LIMIT, QUERY_LIMIT)  # the defaults, from ratelimit
    assert served_args[1][-1] == {"max_connections": MAX_CONNECTIONS, "alert_metric": ALERT_METRIC}
    assert main(["serve", "--store", str(tmp_path / "s"), "--max-connections", "64", "--alert-metric", "value"]) == 0
    assert served_args[2][-1] == {"max_connections": 64, "alert_metric": "value"}


@pytest.mark.parametrize(
    "options, message",
    [
        (["--ingest-limit", "fast"], "--ingest-limit: 'fast' is not RATE:BURST"),
        (["--query-limit", "0:3"], "--query-limit: a rate limit is a positive rate"),
        (["--token-file", "TOKENS_OPEN"], "other users can read it"),
    ],
)
def test_bad_serve_options_are_one_line_errors(served_args, capsys, tmp_path, options, message):
    from flamespace.cli import main

    options = [token_file(tmp_path, mode=0o644) if o == "TOKENS_OPEN" else o for o in options]
    assert main(["serve", "--store", str(tmp_path / "s"), *options]) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and not served_args


def test_the_openapi_document_says_how_to_authenticate():
    from flamespace.workflows.serve.openapi import document

    described = document()
    assert set(described["components"]["securitySchemes"]) == {"bearer", "basic"}
    for path, methods in described["paths"].items():
        for operation in methods.values():
            if kind_of(path) == "open":
                assert operation["security"] == []
            else:
                assert {"401", "403", "429"} <= set(operation["responses"]), path


def test_the_guard_sees_the_path_under_a_mount(store, tmp_path):
    """Mounted under a prefix (another ASGI app's), the ingest routes still take an ingest token."""
    from starlette.applications import Starlette
    from starlette.routing import Mount

    outer = Starlette(routes=[Mount("/profiles", app=create_app(store, token_file=token_file(tmp_path)))])
    with TestClient(outer) as c:  # (a mounted app's lifespan does not run: no writer, so no push is stored here)
        refused = c.post(f"/profiles{PUSH_PATH}", content=b"", headers=bearer(READ))
        assert (refused.status_code, refused.json()["code"]) == (403, "permission_denied")
        assert c.get(f"/profiles{API}/labels", headers=bearer(INGEST)).status_code == 403
        assert c.get(f"/profiles{API}/labels", headers=bearer(READ)).status_code == 200
