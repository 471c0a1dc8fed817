"""Each frame's local variables, read from outside (``dump --locals``), on 3.9 to 3.13.

Names come from the code object (3.9, 3.10: ``co_varnames``, ``co_cellvars`` and ``co_freevars``, in
that order; 3.11+: ``co_localsplusnames``), values from the frame's ``localsplus`` array, slot by
slot; a variable a closure shares is a cell there, shown as its content. Values are described by
:meth:`.objects.ObjectReader.describe` (repr of int, float, str, bytes, bool and None; type and address
of anything else; at most :data:`.objects.VALUE_WIDTH` characters). A variable not yet assigned (or
deleted) is left out, as ``locals()`` leaves it out. A module's frame has no local variables (its
names are globals).

The frames are walked here in Python (:func:`walk_frames`, the same walk as the C walker of
``_remote.c``, which keeps no frame addresses) so that the frames named and the frames whose
variables are read are the same ones.
"""

from __future__ import annotations

import struct

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .objects import ObjectReader
    from .process import RemoteProcess

#: How a walk can end (as the C walker's status).
COMPLETE, READ_FAILED, NOT_CODE, TOO_DEEP = 0, 1, 2, 3
#: More local variables than this in one frame is a sign of a wrong read.
MAX_LOCALS = 1 << 12


def walk_frames(process: RemoteProcess, frame: int, max_depth: int) -> tuple[list[tuple[int, int, int]], int, int]:
    """The (frame address, code address, instruction) of each Python frame from ``frame`` outwards, and how
    the walk ended (status, errno) as ``_remote.walk`` says it."""
    layout = process.layout
    previous, code_at, instr_at, instr_size, owner, skip_owner, tag_bits = layout.walk_layout()
    span = max(previous + 8, code_at + 8, instr_at + instr_size, owner + 1)
    frames: list[tuple[int, int, int]] = []
    address = frame
    while address:
        if len(frames) >= max_depth:
            return frames, TOO_DEEP, 0
        try:
            data = process.read(address, span)
            code = struct.unpack_from("<Q", data, code_at)[0] & ~tag_bits  # 3.14+ tags the pointer
            following = struct.unpack_from("<Q", data, previous)[0]
            if owner >= 0 and skip_owner >= 0 and data[owner] >= skip_owner:
                address = following  # a shim frame (3.12+: the C stack's; 3.14+: the interpreter's too): no Python code
                continue
            kind = process.pointer(code + layout.object_type) if code else 0
        except OSError as exc:
            return frames, READ_FAILED, exc.errno or 0
        if kind != process.code_type:
            return frames, NOT_CODE, 0
        instruction = int.from_bytes(data[instr_at : instr_at + instr_size], "little", signed=True)
        frames.append((address, code, instruction))
        address = following
    return frames, COMPLETE, 0


def local_names(objects: ObjectReader, code: int) -> list[str]:
    """The names of the code object's ``localsplus`` slots, in order."""
    names: list[str] = []
    for offset in objects.layout.code_local_names:
        names.extend(objects.string(item) for item in objects.tuple_items(objects.word(code + offset)))
    if len(names) > MAX_LOCALS:
        raise ValueError(f"{len(names)} local names at {code:#x}")
    return names


def frame_locals(objects: ObjectReader, frame: int, code: int) -> dict[str, str]:
    """The frame's assigned local variables (name -> short description), in the code object's order."""
    names = local_names(objects, code)
    if not names:
        return {}
    data = objects.process.read(frame + objects.layout.frame_localsplus, 8 * len(names))
    values = struct.unpack(f"<{len(names)}Q", data)
    shown: dict[str, str] = {}
    for name, value in zip(names, values):
        if not value:
            continue  # not assigned yet, or deleted
        try:
            shown[name] = objects.describe(value)
        except (OSError, ValueError, UnicodeDecodeError, struct.error) as exc:
            shown[name] = f"<unreadable: {exc}>"
    return shown


__all__ = ["frame_locals", "local_names", "walk_frames"]
