# Types of the C extension _tracer.c (the deterministic tracer's hook and call-tree builder).

from types import CodeType
from typing import List, Optional, Tuple, Union

class Buffer:
    """One thread's events."""

    @property
    def name(self) -> str: ...
    @property
    def ident(self) -> int: ...
    def __len__(self) -> int: ...
    def events(self) -> List[Tuple[int, int, int]]:
        """(kind, key, t ns) per event: kind 0 a call, 1 a return."""
    def analyse(
        self, end_ns: int, segments: bool, /
    ) -> Tuple[List[int], List[int], List[int], List[int], List[int], List[int], Optional[bytes], Optional[bytes], Optional[bytes]]:
        """(parents, keys, calls, inclusive, exclusive, longest, times, nodes, weights): the call tree
        (and, with segments, the stretches between events as int64 arrays)."""

def start(builtins: bool, max_events: int, thread_name: str, /) -> None: ...
def install_thread(thread_name: str, code: Optional[CodeType], /) -> bool: ...
def stop() -> Tuple[List[Buffer], List[Union[CodeType, str]], int, int, int]:
    """(buffers, entries, recorded, dropped, end_ns)."""
def active() -> bool: ...
def now() -> int: ...
