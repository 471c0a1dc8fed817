"""flamespace dump: every thread's current Python stack in a running process, read once from outside."""

from __future__ import annotations

from ..collect.remote.objects import VALUE_WIDTH
from ._options import Command, Option

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..collect.remote.process import RemoteProcess
    from ..collect.remote.stacks import StackReader, ThreadStack


def run(
    pid: int, as_json: bool, no_lines: bool, native: bool = False, native_all: bool = False, show_locals: bool = False
) -> int:
    """Print every thread's current stack in the running Python process PID, innermost frame first.

    The process is read from outside (nothing runs inside it, it does not stop): for a
    program that hangs, or to see where a busy one is. Each thread shows its kernel id,
    its name (threading's: MainThread, Thread-1 (worker), ...) and whether the kernel has
    it running or waiting; --locals adds each frame's local variables.

    \b
    Examples:
        flamespace dump --pid 12345
        flamespace dump --pid $(pgrep -f myserver) --json
        flamespace dump --pid 12345 --native
        flamespace dump --pid 12345 --locals
    """
    from ..collect.remote.process import ProcessGone, attach, command_line
    from ..collect.remote.stacks import StackReader
    from ._common import echo, echo_json

    if show_locals and (native or native_all):
        from ..errors import ArgumentError

        raise ArgumentError("--locals reads the Python frames alone: leave out --native to see local variables")
    process = attach(pid)
    reader: StackReader
    if native or native_all:
        from ..collect.remote.native_stacks import native_reader

        reader = native_reader(process, not no_lines, "all" if native_all else "yes")
    else:
        reader = StackReader(process, lines=not no_lines, keep_frames=show_locals)
    try:
        threads = reader.threads(gil=True)
    except ProcessGone:
        from ..collect.remote.process import NoSuchProcess

        raise NoSuchProcess(f"process {pid} exited while its stacks were read") from None
    described = [_describe(process, stack) for stack in reversed(threads)]  # the main thread first
    if show_locals:
        for thread, stack in zip(described, reversed(threads)):
            thread["locals"], thread["locals_problem"] = _locals(reader, stack)
    if as_json:
        echo_json({"pid": pid, "python": process.version, "command": command_line(pid), "threads": described})
        return 0
    lines = [f"Process {pid}: {' '.join(command_line(pid))}", f"Python {process.version} (read with {process.layout.source})"]
    for thread in described:
        lines.append("")
        gil = ", holds the GIL" if thread["holds_gil"] else ""
        syscall = f" in {thread['syscall']}" if thread["syscall"] else ""
        lines.append(f'Thread {thread["native_id"]} "{thread["name"]}" ({thread["state"]}{syscall}{gil})')
        frames: list[str] = thread["frames"]  # type: ignore[assignment]  # made a list below
        variables: list[dict[str, str]] = thread.get("locals") or [{} for _ in frames]  # type: ignore[assignment]
        for frame, names in zip(frames, variables):
            lines.append(f"    {frame}")
            lines.extend(f"        {name} = {value}" for name, value in names.items())
        if thread.get("locals_problem"):
            lines.append(f"    ... locals not read further: {thread['locals_problem']}")
        if not frames:
            lines.append("    (no Python frames)")
        if thread["partial"]:
            lines.append(f"    ... cut short: {thread['partial']}")
    echo("\n".join(lines))
    return 0


def _locals(reader: StackReader, stack: ThreadStack) -> tuple[list[dict[str, str]], str | None]:
    """Each frame's local variables (innermost first, as the frames), and why the rest could not be read (None: all were)."""
    import struct

    from ..collect.remote.frame_locals import frame_locals
    from ..collect.remote.process import ProcessGone

    found: list[dict[str, str]] = []
    for frame, code in stack.frame_addresses:
        try:
            found.append(frame_locals(reader.objects, frame, code))
        except ProcessGone:
            raise
        except (OSError, ValueError, UnicodeDecodeError, struct.error) as exc:
            return found + [{} for _ in stack.frames[len(found) :]], f"a frame's variables could not be read ({exc})"
    return found, None


def _describe(process: RemoteProcess, stack: ThreadStack) -> dict[str, object]:
    """One thread as dump shows it: ids, name, state, frames innermost first, and why it is partial if it is."""
    from ..collect.remote.recorder import thread_running, waiting_in

    native = stack.native_id
    name = stack.name
    state = "unknown" if native is None else ("running" if thread_running(process.pid, native) else "waiting")
    syscall = waiting_in(process.pid, native) if state == "waiting" and native is not None else None
    return {
        "native_id": native,
        "thread_id": stack.thread_id,
        "name": name,
        "state": state,
        "syscall": syscall,
        "holds_gil": stack.holds_gil,
        "frames": list(reversed(stack.frames)),
        "partial": stack.partial,
    }


SPEC = Command(
    "dump",
    run,
    [],
    [
        Option(
            ("--pid",),
            "pid",
            "int",
            None,
            metavar="PID",
            minimum=1,
            required=True,
            help="The running Python process to read (CPython 3.9 to 3.13; see docs/attach.md).",
        ),
        Option(
            ("--json",),
            "as_json",
            "flag",
            help="Write JSON: pid, python, command and each thread's ids, name, "
            "state (and the system call a waiting thread is in), whether it holds the GIL, frames (innermost first) and why its stack is partial, if it is.",
        ),
        Option(("--no-lines",), "no_lines", "flag", help="Name frames by function and file only."),
        Option(
            ("--native",),
            "native",
            "flag",
            help="C frames of the interpreter, extensions and libraries among the Python frames (docs/attach.md, "
            "'Native frames'); each thread is stopped for the moment its stacks are read.",
        ),
        Option(
            ("--native-all",),
            "native_all",
            "flag",
            help="As --native, also keeping the interpreter's call machinery and the start-up frames.",
        ),
        Option(
            ("--locals",),
            "show_locals",
            "flag",
            help="Show each frame's local variables: the value of an int, float, str, bytes, bool or None (at most "
            f"{VALUE_WIDTH} characters), the type and address of anything else. JSON: 'locals', one object a frame.",
        ),
    ],
)
