"""flamespace serve as a process (uvicorn on a loopback port): the real Pyroscope client pushes into
it, and a stop (SIGTERM, Ctrl-C) loses no acknowledged push."""

from __future__ import annotations

import gzip
import json
import os
import re
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from datetime import timedelta

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("duckdb")

from flamespace.store import open_store  # noqa: E402
from flamespace.workflows.serve import API, PUSH_PATH  # noqa: E402

from .pushes import T0, profile, push_proto  # noqa: E402

#: The installed command (as users start it).
FLAMESPACE = os.path.join(os.path.dirname(sys.executable), "flamespace")
#: How long a server or a client may take to start on a busy machine (a bound, not a measurement).
START_TIMEOUT = 60


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Served:
    """A ``flamespace serve`` process on a free loopback port."""

    def __init__(self, store: str, *options: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen(
            [FLAMESPACE, "serve", "--store", store, "--port", str(self.port), *options],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=5) as answer:
                    if answer.status == 200:
                        return
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.stop(signal.SIGKILL)
                    raise AssertionError(f"flamespace serve did not start: {self.process.stderr.read()}") from None
                time.sleep(0.2)

    def get(self, path: str, headers: dict[str, str] | None = None, **params: str) -> dict:
        request = urllib.request.Request(f"{self.url}{path}?{urllib.parse.urlencode(params)}", headers=headers or {})
        with urllib.request.urlopen(request, timeout=30) as answer:
            return json.loads(answer.read())

    def stop(self, how: int = signal.SIGTERM) -> tuple[int, str]:
        if self.process.poll() is None:
            self.process.send_signal(how)
        _, err = self.process.communicate(timeout=120)
        return self.process.returncode, err


@pytest.fixture
def served(tmp_path):
    server = Served(str(tmp_path / "store"))
    yield server
    server.stop(signal.SIGKILL)


APP = """
import json, pyroscope, sys, time
auth = json.loads(sys.argv[2]) if len(sys.argv) > 2 else {}  # basic_auth_username, basic_auth_password
pyroscope.configure(application_name="checkout", server_address=sys.argv[1], tags={"region": "eu"}, sample_rate=100, **auth)

def busy_checkout():
    total = 0
    for i in range(200_000):
        total += i * i
    return total

end = time.time() + 3
while time.time() < end:
    busy_checkout()
pyroscope.shutdown()  # pushes what it sampled since the last push
"""


def test_the_pyroscope_client_pushes_into_serve(served, tmp_path):
    pytest.importorskip("pyroscope")
    script = tmp_path / "app.py"
    script.write_text(textwrap.dedent(APP))
    done = subprocess.run([sys.executable, str(script), served.url], capture_output=True, text=True, timeout=START_TIMEOUT * 2)
    assert done.returncode == 0, done.stderr
    check_pushed_by_pyroscope(served, tmp_path)


def check_pushed_by_pyroscope(served: Served, tmp_path, headers: dict[str, str] | None = None) -> None:
    listed = served.get(f"{API}/windows", headers, selector="service_name=checkout")
    assert listed["count"] >= 1
    labels = listed["windows"][0]["labels"]
    assert (labels["service_name"], labels["region"], labels["__name__"]) == ("checkout", "eu", "process_cpu")
    assert listed["windows"][0]["time"] < listed["windows"][0]["time_end"]
    request = urllib.request.Request(
        f"{served.url}{API}/merge?selector=service_name=checkout&format=folded", headers=headers or {}
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        merged = answer.read().decode()
    assert re.search(r"^<module> \(\S*app\.py:\d+\);busy_checkout \(\S*app\.py:\d+\) \d+$", merged, re.M), merged
    code, err = served.stop()
    assert code == 0 and "Traceback" not in err, err
    (row, *_) = open_store(str(tmp_path / "store")).snapshot().profiles()
    assert row["labels"]["service_name"] == "checkout"


TAGGED_APP = """
import pyroscope, sys, time
pyroscope.configure(application_name="shop", server_address=sys.argv[1], tags={"region": "eu"}, sample_rate=100)

def busy_checkout():
    total = 0
    for i in range(200_000):
        total += i * i
    return total

def busy_browse():
    return sum(i for i in range(200_000))

end = time.time() + 3
while time.time() < end:
    with pyroscope.tag_wrapper({"endpoint": "/checkout"}):
        busy_checkout()
    busy_browse()
pyroscope.shutdown()
"""


def test_the_pyroscope_clients_tag_wrapper_labels_are_windows_a_selector_finds(served, tmp_path):
    """pyroscope.tag_wrapper's tags travel as pprof sample labels: each set is a window of its own,
    with the series' labels and the tag, so ``endpoint=/checkout`` selects the tagged code only."""
    pytest.importorskip("pyroscope")
    script = tmp_path / "app.py"
    script.write_text(textwrap.dedent(TAGGED_APP))
    done = subprocess.run([sys.executable, str(script), served.url], capture_output=True, text=True, timeout=START_TIMEOUT * 2)
    assert done.returncode == 0, done.stderr
    tagged = served.get(f"{API}/windows", selector="service_name=shop,endpoint=/checkout")
    assert tagged["count"] >= 1
    assert {(w["labels"]["region"], w["labels"]["endpoint"]) for w in tagged["windows"]} == {("eu", "/checkout")}
    assert "/checkout" in served.get(f"{API}/labels/endpoint/values")["values"]
    with urllib.request.urlopen(
        f"{served.url}{API}/merge?selector=service_name=shop,endpoint=/checkout&format=folded", timeout=30
    ) as answer:
        merged = answer.read().decode()
    # the sampler reads the tag beside the stack, so a sample at the moment the tag changes may carry the
    # other's: a few of some hundred samples, not the bulk
    spent = {
        name: sum(int(line.rpartition(" ")[2]) for line in merged.splitlines() if name in line)
        for name in ("busy_checkout", "busy_browse")
    }
    assert spent["busy_checkout"] > 5 * spent["busy_browse"], merged
    every = served.get(f"{API}/windows", selector="service_name=shop")
    untagged = [w for w in every["windows"] if "endpoint" not in w["labels"]]
    assert untagged and len(every["windows"]) == len(untagged) + tagged["count"]


def push(url: str, k: int) -> int:
    """Push one window labelled ``n=k`` by hand (as the client does: gzip, application/proto); the status, or 0 if refused."""
    body = push_proto([({"service_name": "api", "n": str(k)}, [profile({f"main;f{k % 7}": k + 1}, T0 + timedelta(seconds=k))])])
    request = urllib.request.Request(
        url + PUSH_PATH,
        data=gzip.compress(body),
        headers={"content-type": "application/proto", "content-encoding": "gzip"},
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return 0


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL])
def test_a_stop_during_concurrent_pushes_keeps_every_acknowledged_push(tmp_path, how):
    """A stop (or kill -9) while four clients push: every push answered 200 is in the store."""
    server = Served(str(tmp_path / "store"))
    acknowledged: list[int] = []
    statuses: list[int] = []

    def pusher(first: int) -> None:
        for k in range(first, first + 400, 4):
            status = push(server.url, k)
            statuses.append(status)
            if status == 200:
                acknowledged.append(k)
            if not status:
                return

    threads = [threading.Thread(target=pusher, args=(first,)) for first in range(4)]
    for t in threads:
        t.start()
    while len(acknowledged) < 20 and any(t.is_alive() for t in threads):
        time.sleep(0.05)
    code, err = server.stop(how)
    for t in threads:
        t.join()
    if how == signal.SIGKILL:
        assert code == -signal.SIGKILL
    else:
        assert code == 0 and "stopped by" in err and "Traceback" not in err, err
    assert acknowledged, statuses
    stored = {int(r["labels"]["n"]) for r in open_store(str(tmp_path / "store")).snapshot().profiles()}
    assert set(acknowledged) <= stored
    assert set(statuses) <= {0, 200, 503}


def test_a_taken_port_is_a_one_line_error(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [FLAMESPACE, "serve", "--store", str(tmp_path / "s"), "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=START_TIMEOUT,
            env={**os.environ},
        )
    assert done.returncode == 1
    assert f"could not listen on 127.0.0.1:{port}" in done.stderr and "Traceback" not in done.stderr


def test_ingest_by_hand_into_the_real_server(served, tmp_path):
    """/ingest, which pyroscope-io 1.x does not use (it pushes), as older agents send it."""
    query = urllib.parse.urlencode({"name": "legacy{host=h1}", "from": "1793527200", "until": "1793527210", "format": "folded"})
    request = urllib.request.Request(f"{served.url}/ingest?{query}", data=b"main;work 7\nmain;idle 3\n", method="POST")
    with urllib.request.urlopen(request, timeout=60) as answer:
        assert answer.status == 200 and len(json.loads(answer.read())["stored"]) == 1
    (window,) = served.get(f"{API}/windows", selector="service_name=legacy")["windows"]
    assert (window["labels"]["host"], window["time"], window["time_end"], window["total"]) == (
        "h1",
        "2026-11-01T10:00:00",
        "2026-11-01T10:00:10",
        10.0,
    )


AGENT_APP = """
import time
import flamespace.agent

def checkout():
    end = time.monotonic() + 0.05
    while time.monotonic() < end:
        sum(range(1000))

def browse():
    end = time.monotonic() + 0.05
    while time.monotonic() < end:
        sum(range(1000))

end = time.monotonic() + 3
while time.monotonic() < end:
    with flamespace.agent.labels(endpoint="/checkout"):
        checkout()
    browse()
"""


def test_flamespace_agent_pushes_into_flamespace_serve(served, tmp_path):
    """The two halves of continuous profiling, built apart, meet: `flamespace agent` (Connect push, the
    default) windows land in `flamespace serve` with their labels, one series per label block."""
    script = tmp_path / "shop.py"
    script.write_text(textwrap.dedent(AGENT_APP))
    done = subprocess.run(
        [FLAMESPACE, "agent", "--server", served.url, "--window", "1", "--label", "region=eu", "-q", "--", str(script)],
        capture_output=True,
        text=True,
        timeout=START_TIMEOUT * 2,
    )
    assert done.returncode == 0, done.stderr
    values = served.get(f"{API}/labels/endpoint/values")["values"]
    assert "/checkout" in values, values
    checkout = served.get(f"{API}/windows", selector="service_name=shop,endpoint=/checkout")
    assert checkout["count"] >= 1 and all(w["labels"]["region"] == "eu" for w in checkout["windows"])
    query = urllib.parse.urlencode({"selector": "service_name=shop,endpoint=/checkout", "format": "folded"})
    with urllib.request.urlopen(f"{served.url}{API}/merge?{query}", timeout=30) as answer:
        merged = answer.read().decode()
    assert "checkout (" in merged and "browse (" not in merged, merged  # the label block's samples only


# -- with tokens (--token-file)

INGEST_TOKEN = "ingest-0123456789abcdef"
READ_TOKEN = "read-0123456789abcdef00"
READ = {"Authorization": f"Bearer {READ_TOKEN}"}


@pytest.fixture
def guarded(tmp_path):
    tokens = tmp_path / "tokens"
    tokens.write_text(f"ingest {INGEST_TOKEN}\nread {READ_TOKEN}\n")
    os.chmod(tokens, 0o600)
    server = Served(str(tmp_path / "store"), "--token-file", str(tokens))
    yield server
    server.stop(signal.SIGKILL)


def test_the_pyroscope_client_pushes_with_basic_auth_into_serve_with_tokens(guarded, tmp_path):
    """pyroscope-io 1.4 sends basic auth only with a user name and a password (checked by capturing
    its requests); the password is the ingest token."""
    pytest.importorskip("pyroscope")
    script = tmp_path / "app.py"
    script.write_text(textwrap.dedent(APP))
    auth = json.dumps({"basic_auth_username": "checkout", "basic_auth_password": INGEST_TOKEN})
    done = subprocess.run(
        [sys.executable, str(script), guarded.url, auth], capture_output=True, text=True, timeout=START_TIMEOUT * 2
    )
    assert done.returncode == 0, done.stderr
    with pytest.raises(urllib.error.HTTPError) as refused:
        guarded.get(f"{API}/windows", selector="service_name=checkout")
    assert refused.value.code == 401
    check_pushed_by_pyroscope(guarded, tmp_path, READ)


def test_flamespace_agent_pushes_with_its_token_into_serve_with_tokens(guarded, tmp_path):
    """The agent's token from --token-file, and from $FLAMESPACE_TOKEN under flamespace.agent.start();
    without one, its pushes are refused (401) and counted as such."""
    script = tmp_path / "shop.py"
    script.write_text(textwrap.dedent(AGENT_APP))
    token_file = tmp_path / "agent-token"
    token_file.write_text(INGEST_TOKEN + "\n")
    run = [FLAMESPACE, "agent", "--server", guarded.url, "--window", "1", "-q"]
    env = {k: v for k, v in os.environ.items() if k != "FLAMESPACE_TOKEN"}
    done = subprocess.run(
        [*run, "--token-file", str(token_file), "--", str(script)],
        capture_output=True,
        text=True,
        timeout=START_TIMEOUT * 2,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert guarded.get(f"{API}/windows", READ, selector="service_name=shop")["count"] >= 1
    inside = tmp_path / "inside.py"
    inside.write_text(
        f"import flamespace.agent, sys\nflamespace.agent.start(server={guarded.url!r}, labels={{'service_name': 'inside'}}, window=1)\n"
        + textwrap.dedent(AGENT_APP)
        + "stats = flamespace.agent.stop()\nsys.exit(0 if stats.pushed and not stats.rejected else 1)\n"
    )
    done = subprocess.run(
        [sys.executable, str(inside)],
        capture_output=True,
        text=True,
        timeout=START_TIMEOUT * 2,
        env={**env, "FLAMESPACE_TOKEN": INGEST_TOKEN},
    )
    assert done.returncode == 0, done.stderr
    assert guarded.get(f"{API}/windows", READ, selector="service_name=inside")["count"] >= 1
    done = subprocess.run([*run, "--", str(script)], capture_output=True, text=True, timeout=START_TIMEOUT * 2, env=env)
    assert done.returncode == 0 and "refused by the server" in done.stderr and "401" in done.stderr, done.stderr


def status(server: Served, token: str) -> int:
    """The HTTP status of a read (``/windows``) showing ``token``."""
    request = urllib.request.Request(f"{server.url}{API}/windows", headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status
    except urllib.error.HTTPError as refused:
        return refused.code


def replace_tokens(path, text: str) -> None:
    """Write a token file as an operator should: a private file beside it, renamed over it."""
    new = path.with_name(path.name + ".new")
    new.write_text(text)
    os.chmod(new, 0o600)
    os.replace(new, path)


def eventually(condition: Callable[[], object], why: Callable[[], str]) -> None:
    """Wait until ``condition()`` holds, trying every 0.1 s; fail with ``why()`` after START_TIMEOUT
    (a bound for a busy machine, not a measurement)."""
    deadline = time.monotonic() + START_TIMEOUT
    while not condition():
        assert time.monotonic() < deadline, why()
        time.sleep(0.1)


def test_serve_reads_its_token_file_again_when_it_is_replaced_and_keeps_the_tokens_when_it_is_spoiled(tmp_path):
    """A live server: a token written into the file is taken and the one removed is refused, without a
    restart; a file with a bad line then leaves the tokens before it in force (said on stderr)."""
    old, new = "read-old-0123456789abcdef", "read-new-0123456789abcdef"
    tokens = tmp_path / "tokens"
    tokens.write_text(f"read {old}\n")
    os.chmod(tokens, 0o600)
    server = Served(str(tmp_path / "store"), "--token-file", str(tokens))
    said: list[str] = []  # the server's stderr, read as it comes (the reload is seen there)
    reader = threading.Thread(target=lambda: said.extend(server.process.stderr), daemon=True)
    reader.start()
    try:
        assert (status(server, old), status(server, new)) == (200, 401)
        replace_tokens(tokens, f"read {new}\n")
        eventually(lambda: status(server, new) == 200, lambda: f"the new token was not taken: {''.join(said)}")
        assert status(server, old) == 401
        replace_tokens(tokens, f"read {old}\nnot a token line\n")

        def kept() -> bool:
            status(server, new)  # a request makes the server look at the file
            return any("stay in force" in line for line in said)

        eventually(kept, lambda: f"the spoiled file was not looked at: {''.join(said)}")
        assert any(f"{tokens}:2: give a role and a token" in line for line in said), said
        assert (status(server, new), status(server, old)) == (200, 401)
    finally:
        server.process.kill()
        server.process.wait(timeout=120)
        reader.join(timeout=120)


def test_a_connection_beyond_max_connections_gets_503_and_the_next_one_after_them_is_served(tmp_path):
    """Idle connections (opened, nothing sent) count: with --max-connections 3, two held open leave
    the third asking over the limit; once they close, requests are served again."""
    server = Served(str(tmp_path / "store"), "--max-connections", "3")
    try:
        held = [socket.create_connection(("127.0.0.1", server.port), timeout=10) for _ in range(2)]
        deadline = time.monotonic() + START_TIMEOUT
        while True:  # the server accepts the held connections asynchronously: ask until it has counted them
            try:
                urllib.request.urlopen(server.url + "/healthz", timeout=10).close()
            except urllib.error.HTTPError as refused:
                assert refused.code == 503
                break
            assert time.monotonic() < deadline, "three connections at once were all served"
            time.sleep(0.1)
        for connection in held:
            connection.close()
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:
                with urllib.request.urlopen(server.url + "/healthz", timeout=10) as answer:
                    assert answer.status == 200
                break
            except urllib.error.HTTPError as refused:
                assert refused.code == 503 and time.monotonic() < deadline
                time.sleep(0.1)
    finally:
        server.stop(signal.SIGKILL)
