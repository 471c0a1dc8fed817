# Types of the C extension _unwind.c (native stacks of another process's threads).

def stop(tid: int, /) -> tuple[tuple[int, ...], int]:
    """Stop thread ``tid`` (PTRACE_SEIZE + PTRACE_INTERRUPT): its 17 registers in DWARF order, and a signal that
    arrived meanwhile (0: none) to hand back to :func:`resume`. OSError (with the errno) if it cannot be stopped."""

def resume(tid: int, signal: int, /) -> None:
    """Let a thread that :func:`stop` stopped go on (PTRACE_DETACH, delivering ``signal``)."""

def unwind(
    pid: int, registers: tuple[int, ...], modules: list[tuple[int, int, int, bytes, int, int]], max_frames: int, /
) -> tuple[list[int], int]:
    """The program counters of a thread's native stack, innermost first, and how the walk ended (0 complete, 1 an
    address in no module, 2 no unwind entry, 3 unwind information not understood, 4 a read failed, 5 too deep,
    6 a corrupt stack). ``modules``: (start, end, load bias, file bytes, delta, .eh_frame_hdr address), by start."""
