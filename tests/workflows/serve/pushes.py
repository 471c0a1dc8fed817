"""Pushes as agents send them, made by hand: pprof profiles with a window, PushRequests (protobuf
and JSON), /ingest bodies."""

from __future__ import annotations

import base64
import gzip
import json
from datetime import datetime, timezone

from flamespace.core.metadata import Metadata
from flamespace.core.vector import FlameGraph
from flamespace.formats import pprof
from flamespace.formats._protobuf import encode_bytes, encode_int

#: A window's start (pprof's time_nanos) and length in the tests.
T0 = datetime(2026, 11, 1, 10, 0, 0)
SECOND = 1_000_000_000


def nanos(when: datetime) -> int:
    return int(when.replace(tzinfo=timezone.utc).timestamp()) * SECOND


def profile(
    values: dict[str, int], start: datetime | None = T0, seconds: int = 10, unit: str = "ns", gzipped: bool = True
) -> bytes:
    """A pprof profile of ``values`` (stack text -> value) covering ``seconds`` from ``start`` (None: no time in it)."""
    graph = FlameGraph.from_texts(values, metadata=Metadata(unit=unit, metric="cpu"))
    raw = bytearray(pprof.encode(graph))
    if start is not None:
        encode_int(9, nanos(start), raw)  # time_nanos
        encode_int(10, seconds * SECOND, raw)  # duration_nanos
    return gzip.compress(bytes(raw)) if gzipped else bytes(raw)


def push_proto(series: list[tuple[dict[str, str], list[bytes]]]) -> bytes:
    """A PushRequest: each series its labels and raw profiles."""
    out = bytearray()
    for labels, samples in series:
        body = bytearray()
        for name, value in labels.items():
            pair = bytearray()
            encode_bytes(1, name.encode(), pair)
            encode_bytes(2, value.encode(), pair)
            encode_bytes(1, bytes(pair), body)
        for k, raw in enumerate(samples):
            sample = bytearray()
            encode_bytes(1, raw, sample)
            encode_bytes(2, f"id-{k}".encode(), sample)
            encode_bytes(2, bytes(sample), body)
        encode_bytes(1, bytes(body), out)
    return bytes(out)


def push_json(series: list[tuple[dict[str, str], list[bytes]]]) -> bytes:
    """The same PushRequest in proto3 JSON."""
    return json.dumps(
        {
            "series": [
                {
                    "labels": [{"name": k, "value": v} for k, v in labels.items()],
                    "samples": [{"rawProfile": base64.b64encode(raw).decode(), "ID": f"id-{k}"} for k, raw in enumerate(samples)],
                }
                for labels, samples in series
            ]
        }
    ).encode()


def multipart(field: str, payload: bytes, boundary: str = "flamespace-boundary") -> tuple[bytes, str]:
    """A multipart/form-data body with one file field, and its content type."""
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="{field}"; filename="profile.pprof"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n"
        ).encode()
        + payload
        + f"\r\n--{boundary}--\r\n".encode()
    )
    return body, f"multipart/form-data; boundary={boundary}"


def labelled_profile(samples: list[tuple[str, int, dict[str, str | tuple[int, str]]]], start: datetime = T0) -> bytes:
    """A pprof profile made by hand whose samples carry sample labels, as Go's pprof labels and
    pyroscope's tag_wrapper send them: each sample (stack text, value in ns, labels), a label's value
    a string, or a (number, unit) pair for a numeric label (unit "" for none)."""
    strings: dict[str, int] = {"": 0}

    def string(text: str) -> int:
        return strings.setdefault(text, len(strings))

    out = bytearray()
    kind = bytearray()
    encode_int(1, string("cpu"), kind)
    encode_int(2, string("nanoseconds"), kind)
    encode_bytes(1, bytes(kind), out)
    locations: dict[str, int] = {}
    for text, value, labels in samples:
        ids = [locations.setdefault(frame, len(locations) + 1) for frame in reversed(text.split(";"))]
        sample = bytearray()
        encode_bytes(1, b"".join(bytes([i]) for i in ids), sample)  # ids < 128: one byte each
        encode_bytes(2, bytes(encode_varint_bytes(value)), sample)
        for key, label_value in labels.items():
            label = bytearray()
            encode_int(1, string(key), label)
            if isinstance(label_value, str):
                encode_int(2, string(label_value), label)
            else:
                encode_int(3, label_value[0], label)
                encode_int(4, string(label_value[1]) if label_value[1] else 0, label)
            encode_bytes(3, bytes(label), sample)
        encode_bytes(2, bytes(sample), out)
    for frame, location_id in locations.items():
        function = bytearray()
        encode_int(1, location_id, function)
        encode_int(2, string(frame), function)
        encode_bytes(5, bytes(function), out)
        line = bytearray()
        encode_int(1, location_id, line)
        location = bytearray()
        encode_int(1, location_id, location)
        encode_bytes(4, bytes(line), location)
        encode_bytes(4, bytes(location), out)
    for text in strings:
        encode_bytes(6, text.encode(), out)
    encode_int(9, nanos(start), out)
    encode_int(10, 10 * SECOND, out)
    return gzip.compress(bytes(out))


def encode_varint_bytes(value: int) -> bytearray:
    from flamespace.formats._protobuf import encode_varint

    out = bytearray()
    encode_varint(value, out)
    return out
