"""Where CPython keeps what the out-of-process sampler reads, per version.

Two ways (docs/attach.md, "Versions"):

- **3.13 and later** publish ``_Py_DebugOffsets`` at the start of ``_PyRuntime``: a cookie
  (``xdebugpy``), the version, then the offsets of every field a debugger needs. Read from the
  target itself, they are right for its build, whatever patch release it is.
- **3.9 to 3.12** publish none: :data:`TABLES` holds each minor version's offsets, computed from
  that version's own headers (``tests/remote/layout_offsets.c`` regenerates them, and
  tests/remote/test_layouts.py checks them against every Python installed here). They are
  **checked against the target when attaching** (:mod:`.process`): the runtime's interpreter
  must point to thread states that point back to it, every native thread id read must be one of
  the process's threads (3.11+), and every frame's code object must have ``PyCode_Type``'s
  address (from the symbol table) as its type, names and file names ``PyUnicode_Type``'s. A build
  whose layout moved fails a check and is refused with the reason, never read wrongly.
"""

from __future__ import annotations

import struct

from ..._record import Record, record


#: FRAME_OWNED_BY_CSTACK (3.12+): a shim frame that the C stack owns, with no Python code.
CSTACK_OWNER = 3


@record
class Layout(Record):
    """The offsets (bytes) of what the sampler reads in one CPython build, and how it reads them.

    ``tstate_frame`` is the thread state's current-frame pointer (3.9, 3.10: a ``PyFrameObject``;
    3.13+: an interpreter frame); on 3.11 and 3.12 it is ``tstate_cframe``'s ``cframe_current``
    instead. ``instr_kind``: ``lasti-bytes`` (3.9's ``f_lasti``, a byte offset), ``lasti-units``
    (3.10's, in 2-byte code units) or ``pointer`` (3.11+: the instruction's address, in the code
    object's ``co_code_adaptive``). ``lines``: the line table's format (``lnotab`` 3.9,
    ``linetable`` 3.10, ``locations`` 3.11+). ``source``: where the offsets came from.
    """

    minor: int
    source: str
    interpreters_head: int
    interp_next: int
    interp_threads_head: int
    tstate_next: int
    tstate_interp: int
    tstate_thread_id: int
    tstate_native_thread_id: int | None
    tstate_frame: int | None
    tstate_cframe: int | None
    cframe_current: int | None
    frame_previous: int
    frame_code: int
    frame_instr: int
    instr_size: int
    frame_owner: int
    skip_owner: int
    instr_kind: str
    code_filename: int
    code_name: int
    code_qualname: int | None
    code_firstlineno: int
    code_linetable: int
    code_adaptive: int | None
    lines: str
    unicode_state: int
    unicode_length: int
    unicode_ascii_size: int
    unicode_compact_size: int
    bytes_size: int
    bytes_data: int
    #: Where the GIL's last holder (a thread state's address) and its locked flag are: offsets from
    #: ``_PyRuntime`` (``gil_base`` 'runtime': 3.9-3.11), from the interpreter ('interp': 3.13), or from the
    #: GIL structure the interpreter's pointer at ``gil_pointer`` points to ('pointer': 3.12).
    gil_base: str
    gil_pointer: int | None
    gil_holder: int
    gil_locked: int
    object_type: int = 8
    #: Low bits of the frame's code pointer that tag it rather than address it (3.14+'s stack references).
    code_tag_bits: int = 0

    def walk_layout(self) -> tuple[int, int, int, int, int, int, int]:
        """The frame layout as the C walker (``_remote.walk``) takes it."""
        return (
            self.frame_previous,
            self.frame_code,
            self.frame_instr,
            self.instr_size,
            self.frame_owner,
            self.skip_owner,
            self.code_tag_bits,
        )


_COMMON = dict(interp_next=0, tstate_next=8, tstate_interp=16, bytes_size=16, bytes_data=32, unicode_state=32, unicode_length=16)
_RUNTIME_GIL = dict(gil_base="runtime", gil_pointer=None)
_OLD_FRAMES = dict(
    tstate_native_thread_id=None,
    tstate_frame=24,
    tstate_cframe=None,
    cframe_current=None,
    frame_previous=24,
    frame_code=32,
    instr_size=4,
    frame_owner=-1,
    skip_owner=-1,
    code_qualname=None,
    code_filename=104,
    code_name=112,
    code_firstlineno=40,
    code_linetable=120,
    code_adaptive=None,
    unicode_ascii_size=48,
    unicode_compact_size=72,
    interpreters_head=32,
    interp_threads_head=8,
    tstate_thread_id=176,
)

#: The offsets of 3.9-3.12 from each version's headers (tests/remote/layout_offsets.c prints them).
TABLES: dict[int, dict[str, object]] = {
    9: dict(
        _COMMON,
        **_OLD_FRAMES,
        **_RUNTIME_GIL,
        frame_instr=104,
        instr_kind="lasti-bytes",
        lines="lnotab",
        gil_holder=360,
        gil_locked=368,
    ),
    10: dict(
        _COMMON,
        **_OLD_FRAMES,
        **_RUNTIME_GIL,
        frame_instr=96,
        instr_kind="lasti-units",
        lines="linetable",
        gil_holder=360,
        gil_locked=368,
    ),
    11: dict(
        _COMMON,
        **_RUNTIME_GIL,
        gil_holder=368,
        gil_locked=376,
        interpreters_head=40,
        interp_threads_head=16,
        tstate_thread_id=152,
        tstate_native_thread_id=160,
        tstate_frame=None,
        tstate_cframe=56,
        cframe_current=8,
        frame_previous=48,
        frame_code=32,
        frame_instr=56,
        instr_size=8,
        frame_owner=69,
        skip_owner=-1,
        instr_kind="pointer",
        code_filename=112,
        code_name=120,
        code_qualname=128,
        code_firstlineno=72,
        code_linetable=136,
        code_adaptive=184,
        lines="locations",
        unicode_ascii_size=48,
        unicode_compact_size=72,
    ),
    12: dict(
        _COMMON,
        gil_base="pointer",
        gil_pointer=384,
        gil_holder=8,
        gil_locked=16,
        interpreters_head=40,
        interp_threads_head=72,
        tstate_thread_id=136,
        tstate_native_thread_id=144,
        tstate_frame=None,
        tstate_cframe=56,
        cframe_current=0,
        frame_previous=8,
        frame_code=0,
        frame_instr=56,
        instr_size=8,
        frame_owner=70,
        skip_owner=CSTACK_OWNER,
        instr_kind="pointer",
        code_filename=112,
        code_name=120,
        code_qualname=128,
        code_firstlineno=68,
        code_linetable=136,
        code_adaptive=192,
        lines="locations",
        unicode_ascii_size=40,
        unicode_compact_size=56,
    ),
}


def table_layout(minor: int) -> Layout | None:
    """The layout of 3.``minor`` from :data:`TABLES` (None if there is no table for it)."""
    fields = TABLES.get(minor)
    if fields is None:
        return None
    return Layout(minor=minor, source=f"the table for 3.{minor}, checked against the process", **fields)  # type: ignore[arg-type]


COOKIE = b"xdebugpy"
#: The fields of ``_Py_DebugOffsets`` by minor version, in order (each a uint64 after the 8-byte cookie),
#: as that version's Include/internal/pycore_runtime.h (3.13) or pycore_debug_offsets.h (3.14+) declares
#: them; sections named as 3.13 names them (``interp.gil_locked`` is 3.14's ``gil_runtime_state_locked``).
#: The struct grows in every minor version (3.14 added ``interp.threads_main``, the frame's
#: ``stackpointer``, sets, generators, the remote debugger's fields; 3.15 more), so the version,
#: read first, says which list applies.
_DEBUG_FIELDS: dict[int, str] = {
    13: (
        "version free_threaded "
        "runtime.size runtime.finalizing runtime.interpreters_head "
        "interp.size interp.id interp.next interp.threads_head interp.gc interp.imports_modules interp.sysdict "
        "interp.builtins interp.ceval_gil interp.gil_runtime_state interp.gil_enabled interp.gil_locked interp.gil_holder "
        "tstate.size tstate.prev tstate.next tstate.interp tstate.current_frame tstate.thread_id tstate.native_thread_id "
        "tstate.datastack_chunk tstate.status "
        "frame.size frame.previous frame.executable frame.instr_ptr frame.localsplus frame.owner "
        "code.size code.filename code.name code.qualname code.linetable code.firstlineno code.argcount "
        "code.localsplusnames code.localspluskinds code.co_code_adaptive "
        "object.size object.ob_type "
        "type.size type.tp_name type.tp_repr type.tp_flags "
        "tuple.size tuple.ob_item tuple.ob_size "
        "list.size list.ob_item list.ob_size "
        "dict.size dict.ma_keys dict.ma_values "
        "float.size float.ob_fval "
        "long.size long.lv_tag long.ob_digit "
        "bytes.size bytes.ob_size bytes.ob_sval "
        "unicode.size unicode.state unicode.length unicode.asciiobject_size "
        "gc.size gc.collecting"
    ),
    14: (
        "version free_threaded "
        "runtime.size runtime.finalizing runtime.interpreters_head "
        "interp.size interp.id interp.next interp.threads_head interp.threads_main interp.gc interp.imports_modules "
        "interp.sysdict interp.builtins interp.ceval_gil interp.gil_runtime_state interp.gil_enabled interp.gil_locked "
        "interp.gil_holder interp.code_object_generation interp.tlbc_generation "
        "tstate.size tstate.prev tstate.next tstate.interp tstate.current_frame tstate.thread_id tstate.native_thread_id "
        "tstate.datastack_chunk tstate.status "
        "frame.size frame.previous frame.executable frame.instr_ptr frame.localsplus frame.owner frame.stackpointer "
        "frame.tlbc_index "
        "code.size code.filename code.name code.qualname code.linetable code.firstlineno code.argcount "
        "code.localsplusnames code.localspluskinds code.co_code_adaptive code.co_tlbc "
        "object.size object.ob_type "
        "type.size type.tp_name type.tp_repr type.tp_flags "
        "tuple.size tuple.ob_item tuple.ob_size "
        "list.size list.ob_item list.ob_size "
        "set.size set.used set.table set.mask "
        "dict.size dict.ma_keys dict.ma_values "
        "float.size float.ob_fval "
        "long.size long.lv_tag long.ob_digit "
        "bytes.size bytes.ob_size bytes.ob_sval "
        "unicode.size unicode.state unicode.length unicode.asciiobject_size "
        "gc.size gc.collecting "
        "gen.size gen.gi_name gen.gi_iframe gen.gi_frame_state "
        "llist.next llist.prev "
        "debugger.eval_breaker debugger.remote_debugger_support debugger.remote_debugging_enabled "
        "debugger.debugger_pending_call debugger.debugger_script_path debugger.debugger_script_path_size"
    ),
    15: (
        "version free_threaded "
        "runtime.size runtime.finalizing runtime.interpreters_head "
        "interp.size interp.id interp.next interp.threads_head interp.threads_main interp.gc interp.imports_modules "
        "interp.sysdict interp.builtins interp.ceval_gil interp.gil_runtime_state interp.gil_enabled interp.gil_locked "
        "interp.gil_holder interp.code_object_generation interp.tlbc_generation "
        "tstate.size tstate.prev tstate.next tstate.interp tstate.current_frame tstate.base_frame "
        "tstate.last_profiled_frame tstate.last_profiled_frame_seq tstate.thread_id tstate.native_thread_id "
        "tstate.datastack_chunk tstate.status tstate.holds_gil tstate.gil_requested tstate.current_exception "
        "tstate.exc_state "
        "err_stackitem.exc_value "
        "frame.size frame.previous frame.executable frame.instr_ptr frame.localsplus frame.owner frame.stackpointer "
        "frame.tlbc_index "
        "code.size code.filename code.name code.qualname code.linetable code.firstlineno code.argcount "
        "code.localsplusnames code.localspluskinds code.co_code_adaptive code.co_tlbc "
        "object.size object.ob_type "
        "type.size type.tp_name type.tp_repr type.tp_flags type.tp_basicsize type.tp_dictoffset "
        "heap_type.size heap_type.ht_cached_keys "
        "tuple.size tuple.ob_item tuple.ob_size "
        "list.size list.ob_item list.ob_size "
        "set.size set.used set.table set.mask "
        "dict.size dict.ma_keys dict.ma_values "
        "float.size float.ob_fval "
        "long.size long.lv_tag long.ob_digit "
        "bytes.size bytes.ob_size bytes.ob_sval "
        "unicode.size unicode.state unicode.length unicode.asciiobject_size unicode.compactunicodeobject_size "
        "gc.size gc.collecting gc.frame gc.generation_stats_size gc.generation_stats "
        "gen.size gen.gi_name gen.gi_iframe gen.gi_frame_state "
        "llist.next llist.prev "
        "debugger.eval_breaker debugger.remote_debugger_support debugger.remote_debugging_enabled "
        "debugger.debugger_pending_call debugger.debugger_script_path debugger.debugger_script_path_size"
    ),
}
DEBUG_FIELDS: dict[int, tuple[str, ...]] = {minor: tuple(text.split()) for minor, text in _DEBUG_FIELDS.items()}
#: The minor versions whose debug offsets this reader knows (a newer one is refused, not guessed).
DEBUG_MINORS = tuple(sorted(DEBUG_FIELDS))
#: How many bytes of ``_PyRuntime`` to read for them (the longest list).
DEBUG_OFFSETS_SIZE = 8 + 8 * max(len(fields) for fields in DEBUG_FIELDS.values())
#: 3.14+ keep the frame's code object as a ``_PyStackRef``: a pointer whose low bits tag how it is
#: counted (Include/internal/pycore_stackref.h's ``Py_TAG_BITS``, 1 or 3 by build); objects are
#: aligned to 16 bytes, so clearing the two low bits gives the object's address on every build.
STACKREF_TAG_BITS = 3
#: 3.14+: frames owned by the interpreter (an entry frame, 3) or by the C stack (3.14's 4) hold no
#: Python code; 3.12 and 3.13's C-stack frames are 3 too. The walker skips owners from this one up.
SHIM_OWNERS_FROM = 3


def debug_version(data: bytes) -> int | None:
    """PY_VERSION_HEX from the debug offsets at the start of ``_PyRuntime`` (``data``, its first
    bytes); None without the cookie (3.12 or older, which have no such table)."""
    if data[:8] != COOKIE or len(data) < 16:
        return None
    version: int = struct.unpack_from("<Q", data, 8)[0]
    return version


def debug_offsets(data: bytes) -> dict[str, int] | None:
    """The ``_Py_DebugOffsets`` by field name from the first bytes of ``_PyRuntime``; None without
    the cookie, or for a minor version whose list of fields this reader does not know."""
    version = debug_version(data)
    if version is None:
        return None
    fields = DEBUG_FIELDS.get((version >> 16) & 0xFF)
    if fields is None or len(data) < 8 + 8 * len(fields):
        return None
    values = struct.unpack_from(f"<{len(fields)}Q", data, 8)
    return dict(zip(fields, values))


def offsets_problem(offsets: dict[str, int]) -> str | None:
    """Why ``offsets`` cannot be the debug offsets of a real build (None: they can). Every offset of a
    structure lies inside it (``size``), so a list of fields read one place off, or a table that is not
    what the cookie promised, fails here rather than being followed."""
    sizes = {name.split(".")[0]: value for name, value in offsets.items() if name.endswith(".size")}
    for name, value in offsets.items():
        section, _, field = name.partition(".")
        size = sizes.get(section)
        if size is None or field == "size" or field.endswith("_size") or field == "asciiobject_size":
            continue
        if not 0 <= value < size:
            return f"{name} is {value}, outside its structure of {size} bytes"
    if not 0 < sizes.get("runtime", 0) < 1 << 24 or not 0 < sizes.get("frame", 0) <= 512:
        return "implausible structure sizes"
    return None


def debug_layout(offsets: dict[str, int]) -> Layout:
    """The layout of a 3.13+ build from its own debug offsets."""
    minor = (offsets["version"] >> 16) & 0xFF
    return Layout(
        minor=minor,
        source="the debug offsets (_Py_DebugOffsets) of the process itself",
        interpreters_head=offsets["runtime.interpreters_head"],
        interp_next=offsets["interp.next"],
        interp_threads_head=offsets["interp.threads_head"],
        tstate_next=offsets["tstate.next"],
        tstate_interp=offsets["tstate.interp"],
        tstate_thread_id=offsets["tstate.thread_id"],
        tstate_native_thread_id=offsets["tstate.native_thread_id"],
        tstate_frame=offsets["tstate.current_frame"],
        tstate_cframe=None,
        cframe_current=None,
        frame_previous=offsets["frame.previous"],
        frame_code=offsets["frame.executable"],
        frame_instr=offsets["frame.instr_ptr"],
        instr_size=8,
        frame_owner=offsets["frame.owner"],
        skip_owner=SHIM_OWNERS_FROM,
        code_tag_bits=STACKREF_TAG_BITS if minor >= 14 else 0,
        instr_kind="pointer",
        code_filename=offsets["code.filename"],
        code_name=offsets["code.name"],
        code_qualname=offsets["code.qualname"],
        code_firstlineno=offsets["code.firstlineno"],
        code_linetable=offsets["code.linetable"],
        code_adaptive=offsets["code.co_code_adaptive"],
        lines="locations",
        unicode_state=offsets["unicode.state"],
        unicode_length=offsets["unicode.length"],
        unicode_ascii_size=offsets["unicode.asciiobject_size"],
        unicode_compact_size=offsets["unicode.asciiobject_size"] + 16,  # + utf8_length, utf8
        bytes_size=offsets["bytes.ob_size"],
        bytes_data=offsets["bytes.ob_sval"],
        object_type=offsets["object.ob_type"],
        gil_base="interp",
        gil_pointer=None,
        gil_holder=offsets["interp.gil_holder"],
        gil_locked=offsets["interp.gil_locked"],
    )


__all__ = [
    "COOKIE",
    "CSTACK_OWNER",
    "DEBUG_FIELDS",
    "DEBUG_MINORS",
    "DEBUG_OFFSETS_SIZE",
    "Layout",
    "TABLES",
    "debug_layout",
    "debug_offsets",
    "debug_version",
    "offsets_problem",
    "table_layout",
]
