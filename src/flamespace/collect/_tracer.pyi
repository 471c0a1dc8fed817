# Types of the C extension _tracer.c (the deterministic tracer's hooks, event file and call-tree builder).

from types import CodeType

CHUNK_EVENTS: int

Analysis = tuple[
    list[int],
    list[int],
    list[int],
    list[int],
    list[int],
    list[int],
    bytes | None,
    bytes | None,
    bytes | None,
    list[tuple[int, int, int, int]],
    int,
]

class Stream:
    """A stopped session's events, in their (unlinked) file."""

    def analyse(self, end_ns: int, segments: bool, max_depth: int, lines: bool, /) -> list[Analysis]:
        """Per thread: (parents, keys, calls, inclusive, exclusive, longest, times, nodes, weights, lines, deep):
        the call tree, with segments the stretches between events as int64 arrays, the
        (node, line, exclusive ns, hits) of each line of each node (line 0: before its first), and the calls folded beyond max_depth."""
    lost: bool
    """The program closed or reused the file's descriptor after stop(): nothing could be read."""
    def events(self) -> list[tuple[int, int, int, int]]:
        """(thread, kind, key, t ns) per event: kind 0 a call, 1 a return, 2 | line << 2 a line."""

def start(
    builtins: bool, lines: bool, max_events: int, thread_name: str, path: str, backend: int = ..., keep_path: bool = ..., /
) -> None:
    """backend: 0 the profile hook, 1 sys.monitoring callbacks (3.12+), 2 the frame evaluation function (3.11).
    keep_path: the file stays at path until stop (else it is unlinked at once), to be reopened there if the
    program closes or reuses its descriptor."""

def install_thread(thread_name: str, code: CodeType | None, /) -> bool: ...
def stop() -> tuple[Stream, list[tuple[str, int]], list[CodeType | str], int, int, int, int, bool, int, int, int, int]:
    """(stream, threads (name, ident), entries, recorded, dropped, end_ns, write_errno, forked, pauses, paused_ns,
    lost_at, reopens): pauses: how often the frame backend took its hook out while a stack was too deep for the C
    stack; lost_at: not 0, when the program closed or reused the event file's descriptor and the file could not be
    reopened (nothing was kept: the time it was found lost); reopens: how often it was reopened."""

def active() -> bool: ...
def frame_hooked() -> bool: ...
def now() -> int: ...
def on_start(*args: object) -> None: ...
def on_return(*args: object) -> None: ...
def on_c_call(*args: object) -> None: ...
def on_c_return(*args: object) -> None: ...
def on_line(*args: object) -> None: ...
