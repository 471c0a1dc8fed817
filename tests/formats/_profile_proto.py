"""pprof's profile.proto (github.com/google/pprof/proto/profile.proto) for the ``protobuf`` package,
built as a descriptor here (no protoc, no generated code): the official schema our own wire
decoder is checked against. Field names, numbers and types as in profile.proto."""

from __future__ import annotations

from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

F = descriptor_pb2.FieldDescriptorProto
INT64, UINT64, STRING, BOOL, MESSAGE = F.TYPE_INT64, F.TYPE_UINT64, F.TYPE_STRING, F.TYPE_BOOL, F.TYPE_MESSAGE
ONE, MANY = F.LABEL_OPTIONAL, F.LABEL_REPEATED

#: message -> [(field, number, type, label, message type)]
SCHEMA: list[tuple[str, list[tuple[str, int, int, int, str]]]] = [
    (
        "Profile",
        [
            ("sample_type", 1, MESSAGE, MANY, "ValueType"),
            ("sample", 2, MESSAGE, MANY, "Sample"),
            ("mapping", 3, MESSAGE, MANY, "Mapping"),
            ("location", 4, MESSAGE, MANY, "Location"),
            ("function", 5, MESSAGE, MANY, "Function"),
            ("string_table", 6, STRING, MANY, ""),
            ("drop_frames", 7, INT64, ONE, ""),
            ("keep_frames", 8, INT64, ONE, ""),
            ("time_nanos", 9, INT64, ONE, ""),
            ("duration_nanos", 10, INT64, ONE, ""),
            ("period_type", 11, MESSAGE, ONE, "ValueType"),
            ("period", 12, INT64, ONE, ""),
            ("comment", 13, INT64, MANY, ""),
            ("default_sample_type", 14, INT64, ONE, ""),
            ("doc_url", 15, STRING, ONE, ""),
        ],
    ),
    ("ValueType", [("type", 1, INT64, ONE, ""), ("unit", 2, INT64, ONE, "")]),
    ("Sample", [("location_id", 1, UINT64, MANY, ""), ("value", 2, INT64, MANY, ""), ("label", 3, MESSAGE, MANY, "Label")]),
    (
        "Label",
        [("key", 1, INT64, ONE, ""), ("str", 2, INT64, ONE, ""), ("num", 3, INT64, ONE, ""), ("num_unit", 4, INT64, ONE, "")],
    ),
    (
        "Mapping",
        [
            ("id", 1, UINT64, ONE, ""),
            ("memory_start", 2, UINT64, ONE, ""),
            ("memory_limit", 3, UINT64, ONE, ""),
            ("file_offset", 4, UINT64, ONE, ""),
            ("filename", 5, INT64, ONE, ""),
            ("build_id", 6, INT64, ONE, ""),
            ("has_functions", 7, BOOL, ONE, ""),
            ("has_filenames", 8, BOOL, ONE, ""),
            ("has_line_numbers", 9, BOOL, ONE, ""),
            ("has_inline_frames", 10, BOOL, ONE, ""),
        ],
    ),
    (
        "Location",
        [
            ("id", 1, UINT64, ONE, ""),
            ("mapping_id", 2, UINT64, ONE, ""),
            ("address", 3, UINT64, ONE, ""),
            ("line", 4, MESSAGE, MANY, "Line"),
            ("is_folded", 5, BOOL, ONE, ""),
        ],
    ),
    ("Line", [("function_id", 1, UINT64, ONE, ""), ("line", 2, INT64, ONE, ""), ("column", 3, INT64, ONE, "")]),
    (
        "Function",
        [
            ("id", 1, UINT64, ONE, ""),
            ("name", 2, INT64, ONE, ""),
            ("system_name", 3, INT64, ONE, ""),
            ("filename", 4, INT64, ONE, ""),
            ("start_line", 5, INT64, ONE, ""),
        ],
    ),
]


def profile_class() -> Any:
    """The message class of perftools.profiles.Profile."""
    file = descriptor_pb2.FileDescriptorProto(name="profile.proto", package="perftools.profiles", syntax="proto3")
    for message_name, fields in SCHEMA:
        message = file.message_type.add(name=message_name)
        for field_name, number, kind, label, type_name in fields:
            field = message.field.add(name=field_name, number=number, type=kind, label=label)
            if type_name:
                field.type_name = f".perftools.profiles.{type_name}"
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("perftools.profiles.Profile"))
