"""The tables of 3.9-3.12 (collect/remote/layouts.py) hold what each version's own headers say."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from flamespace.collect.remote.layouts import DEBUG_FIELDS, TABLES, table_layout

from .targets import NEWER_PYTHONS, NOT_IN_CI, PYTHONS, python

SOURCE = Path(__file__).with_name("layout_offsets.c")
#: layout_offsets.c's names -> the Layout's fields.
FIELDS = {
    "runtime.interpreters_head": "interpreters_head",
    "interp.next": "interp_next",
    "interp.threads_head": "interp_threads_head",
    "tstate.next": "tstate_next",
    "tstate.interp": "tstate_interp",
    "tstate.thread_id": "tstate_thread_id",
    "tstate.native_thread_id": "tstate_native_thread_id",
    "tstate.cframe": "tstate_cframe",
    "tstate.frame": "tstate_frame",
    "cframe.current_frame": "cframe_current",
    "frame.previous": "frame_previous",
    "frame.code": "frame_code",
    "frame.instr": "frame_instr",
    "frame.owner": "frame_owner",
    "code.qualname": "code_qualname",
    "code.linetable": "code_linetable",
    "code.code_adaptive": "code_adaptive",
    "code.filename": "code_filename",
    "code.name": "code_name",
    "code.firstlineno": "code_firstlineno",
    "bytes.ob_size": "bytes_size",
    "bytes.ob_sval": "bytes_data",
    "unicode.state": "unicode_state",
    "unicode.length": "unicode_length",
    "unicode.ascii_size": "unicode_ascii_size",
    "unicode.compact_size": "unicode_compact_size",
    "gil.pointer": "gil_pointer",
    "gil.holder": "gil_holder",
    "gil.locked": "gil_locked",
}


def header_offsets(interpreter: Path, directory: Path) -> dict:
    config = "import sysconfig; print(sysconfig.get_paths()['include'])"
    include = subprocess.run([str(interpreter), "-c", config], capture_output=True, text=True, check=True).stdout.strip()
    program = directory / "offsets"
    subprocess.run(
        ["gcc", f"-I{include}", f"-I{include}/internal", str(SOURCE), "-o", str(program)], check=True, capture_output=True
    )
    printed = subprocess.run([str(program)], capture_output=True, text=True, check=True).stdout
    return json.loads("{" + printed.rstrip().rstrip(",") + "}")


@pytest.mark.parametrize("name", [name for name in PYTHONS if name not in ("3.13",)])
def test_each_table_is_what_the_headers_say(name, tmp_path):
    interpreter = python(name)
    if not any(Path(p).exists() for p in ("/usr/include/python3.11/internal",)) and name.startswith("system"):
        pytest.skip("needs python3.11-dev's internal headers")
    offsets = header_offsets(interpreter, tmp_path)
    minor = int(name.split(".")[-1])
    layout = table_layout(minor)
    assert layout is not None and minor in TABLES
    assert {field: getattr(layout, FIELDS[field]) for field in offsets} == offsets


#: The debug offsets' sections as Include/internal/pycore_debug_offsets.h names them -> layouts.DEBUG_FIELDS' names.
SECTIONS = {
    "runtime_state": "runtime",
    "interpreter_state": "interp",
    "thread_state": "tstate",
    "interpreter_frame": "frame",
    "code_object": "code",
    "pyobject": "object",
    "type_object": "type",
    "heap_type_object": "heap_type",
    "tuple_object": "tuple",
    "list_object": "list",
    "set_object": "set",
    "dict_object": "dict",
    "float_object": "float",
    "long_object": "long",
    "bytes_object": "bytes",
    "unicode_object": "unicode",
    "gen_object": "gen",
    "llist_node": "llist",
    "debugger_support": "debugger",
}
#: 3.14's names for the GIL fields, which the list keeps under 3.13's names.
RENAMED = {
    "interp.gil_runtime_state_enabled": "interp.gil_enabled",
    "interp.gil_runtime_state_locked": "interp.gil_locked",
    "interp.gil_runtime_state_holder": "interp.gil_holder",
}


def header_fields(header: Path) -> list[str]:
    """The fields of ``struct _Py_DebugOffsets`` in ``header``, in order, as section.field."""
    text = header.read_text()
    body = re.sub(r"//[^\n]*", "", text[text.index("typedef struct _Py_DebugOffsets {") : text.index("} _Py_DebugOffsets;")])
    fields: list[str] = []
    pending: list[str] = []
    inside = False
    for line in body.splitlines()[1:]:
        line = line.strip()
        if re.match(r"struct\s*\w*\s*\{", line):
            inside, pending = True, []
        elif inside and (closing := re.match(r"\}\s*(\w+);", line)):
            section = SECTIONS.get(closing.group(1), closing.group(1))
            fields += [RENAMED.get(f"{section}.{name}", f"{section}.{name}") for name in pending]
            inside = False
        elif field := re.match(r"uint64_t\s+(\w+);", line):
            (pending if inside else fields).append(field.group(1))
    return fields


@pytest.mark.parametrize("name", list(NEWER_PYTHONS))
def test_each_debug_offsets_list_is_the_headers_struct(name):
    """layouts.DEBUG_FIELDS[minor] is _Py_DebugOffsets as that version's own header declares it, field by field
    (a list one field off would read every later offset from its neighbour)."""
    interpreter = python(name)
    include = subprocess.run(
        [str(interpreter), "-c", "import sysconfig; print(sysconfig.get_paths()['include'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    header = Path(include) / "internal" / "pycore_debug_offsets.h"
    if not header.exists():
        pytest.skip(f"needs CPython {name}'s internal headers at {header}, {NOT_IN_CI}")
    assert list(DEBUG_FIELDS[int(name.split(".")[1])]) == header_fields(header)
