"""A tiny Pyroscope-like server for the agent's tests: http.server in a thread that decodes what
arrives, Connect pushes with grafana/pyroscope's push.proto (built here as a descriptor for the
``protobuf`` package, field numbers as in api/push/v1/push.proto and types/v1/types.proto) and
``/ingest`` calls from their query string, each profile read by flamespace's pprof reader."""

from __future__ import annotations

import gzip
import http.server
import threading
from typing import Any
from urllib.parse import parse_qs, urlsplit

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from flamespace.formats import pprof

F = descriptor_pb2.FieldDescriptorProto
SCHEMA = [
    ("LabelPair", [("name", 1, F.TYPE_STRING, F.LABEL_OPTIONAL, ""), ("value", 2, F.TYPE_STRING, F.LABEL_OPTIONAL, "")]),
    ("RawSample", [("raw_profile", 1, F.TYPE_BYTES, F.LABEL_OPTIONAL, ""), ("ID", 2, F.TYPE_STRING, F.LABEL_OPTIONAL, "")]),
    (
        "RawProfileSeries",
        [
            ("labels", 1, F.TYPE_MESSAGE, F.LABEL_REPEATED, "LabelPair"),
            ("samples", 2, F.TYPE_MESSAGE, F.LABEL_REPEATED, "RawSample"),
        ],
    ),
    ("PushRequest", [("series", 1, F.TYPE_MESSAGE, F.LABEL_REPEATED, "RawProfileSeries")]),
]


def push_request_class() -> Any:
    file = descriptor_pb2.FileDescriptorProto(name="push_test.proto", package="push.v1", syntax="proto3")
    for message_name, fields in SCHEMA:
        message = file.message_type.add(name=message_name)
        for field_name, number, kind, label, type_name in fields:
            field = message.field.add(name=field_name, number=number, type=kind, label=label)
            if type_name:
                field.type_name = f".push.v1.{type_name}"
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("push.v1.PushRequest"))


PushRequest = push_request_class()


class Received:
    """One profile that arrived: its labels, the profile (flamespace's reading of the pprof), the
    raw pprof bytes, the query (ingest) and the path it came by."""

    def __init__(self, labels: dict[str, str], raw: bytes, path: str, query: dict[str, str]) -> None:
        self.labels, self.raw, self.path, self.query = labels, raw, path, query
        self.graph = pprof.parse_bytes(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)


class PyroscopeServer:
    """Serves on 127.0.0.1 (a free port) until :meth:`close`; ``status`` is what it answers
    (503: down); ``received`` the profiles it accepted, ``requests`` every request's path."""

    def __init__(self) -> None:
        self.received: list[Received] = []
        self.requests: list[str] = []
        self.headers: list[dict[str, str]] = []
        self.status = 200
        self.arrived = threading.Condition()
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                with server.arrived:
                    server.requests.append(self.path)
                    server.headers.append(dict(self.headers))
                    status = server.status
                    if status == 200:
                        server.received.extend(decode(self.path, body, dict(self.headers)))
                    server.arrived.notify_all()
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_port}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def wait_for(self, predicate: Any, timeout: float = 60.0) -> bool:
        """Wait until ``predicate(received)`` holds (a bound on liveness, not a timing check)."""
        with self.arrived:
            return self.arrived.wait_for(lambda: predicate(self.received), timeout)

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join()


def decode(path: str, body: bytes, headers: dict[str, str]) -> list[Received]:
    parts = urlsplit(path)
    headers = {name.lower(): value for name, value in headers.items()}
    if headers.get("content-encoding") == "gzip":  # how pyroscope-io sends its pushes
        body = gzip.decompress(body)
    if parts.path == "/push.v1.PusherService/Push":
        assert headers.get("content-type") == "application/proto"
        request = PushRequest.FromString(body)
        found = []
        for series in request.series:
            labels = {pair.name: pair.value for pair in series.labels}
            for sample in series.samples:
                found.append(Received(labels, sample.raw_profile, parts.path, {}))
        return found
    assert parts.path == "/ingest", path
    query = {key: values[0] for key, values in parse_qs(parts.query).items()}
    name = query["name"]
    service, _, rest = name.partition("{")
    labels = dict(pair.split("=", 1) for pair in rest.rstrip("}").split(",") if pair)
    labels["service_name"] = service
    return [Received(labels, body, parts.path, query)]
