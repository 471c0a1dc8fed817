# Types of the C extension _remote.c (reads of another process's memory).

def read(pid: int, address: int, size: int, /) -> bytes:
    """``size`` bytes of process ``pid``'s memory at ``address``; OSError (with the errno) if not all can be read."""

def walk(
    pid: int,
    frame: int,
    layout: tuple[int, int, int, int, int, int, int],
    type_offset: int,
    code_type: int,
    max_depth: int,
    code_fields: tuple[int, int, int],
    /,
) -> tuple[list[tuple[int, int, int]], int, int]:
    """The (code address, instruction, identity) of each frame from ``frame`` along its ``previous`` field,
    checking each code object's type; ``layout`` is (previous, code, instr, instr_size, owner, skip_owner,
    tag_bits): offsets (owner -1: none), the owners from which a frame is a shim to skip (-1: none), the low
    bits of the code pointer to clear; ``code_fields`` the offsets of a code object's name, file name and
    first line, which make its identity (a code object freed and another made at its address has another).
    Returns (frames, status, errno): status 0 complete, 1 a read failed, 2 not a code object, 3 too deep."""
