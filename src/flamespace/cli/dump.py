"""flamespace dump: every thread's current Python stack in a running process, read once from outside."""

from __future__ import annotations

from ._options import Command, Option

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..collect.remote.process import RemoteProcess
    from ..collect.remote.stacks import ThreadStack


def run(pid: int, as_json: bool, no_lines: bool, native: bool = False, native_all: bool = False) -> int:
    """Print every thread's current stack in the running Python process PID, innermost frame first.

    The process is read from outside (nothing runs inside it, it does not stop): for a
    program that hangs, or to see where a busy one is. Each thread shows its kernel id,
    its name (MainThread for the first) and whether the kernel has it running or waiting.

    \b
    Examples:
        flamespace dump --pid 12345
        flamespace dump --pid $(pgrep -f myserver) --json
        flamespace dump --pid 12345 --native
    """
    from ..collect.remote.process import ProcessGone, attach, command_line
    from ..collect.remote.stacks import StackReader
    from ._common import echo, echo_json

    process = attach(pid)
    reader: StackReader
    if native or native_all:
        from ..collect.remote.native_stacks import native_reader

        reader = native_reader(process, not no_lines, "all" if native_all else "yes")
    else:
        reader = StackReader(process, lines=not no_lines)
    try:
        threads = reader.threads(gil=True)
    except ProcessGone:
        from ..collect.remote.process import NoSuchProcess

        raise NoSuchProcess(f"process {pid} exited while its stacks were read") from None
    described = [_describe(process, stack) for stack in reversed(threads)]  # the main thread first
    if as_json:
        echo_json({"pid": pid, "python": process.version, "command": command_line(pid), "threads": described})
        return 0
    lines = [f"Process {pid}: {' '.join(command_line(pid))}", f"Python {process.version} (read with {process.layout.source})"]
    for thread in described:
        lines.append("")
        gil = ", holds the GIL" if thread["holds_gil"] else ""
        lines.append(f'Thread {thread["native_id"]} "{thread["name"]}" ({thread["state"]}{gil})')
        frames: list[str] = thread["frames"]  # type: ignore[assignment]  # made a list below
        lines.extend(f"    {frame}" for frame in frames)
        if not frames:
            lines.append("    (no Python frames)")
        if thread["partial"]:
            lines.append(f"    ... cut short: {thread['partial']}")
    echo("\n".join(lines))
    return 0


def _describe(process: RemoteProcess, stack: ThreadStack) -> dict[str, object]:
    """One thread as dump shows it: ids, name, state, frames innermost first, and why it is partial if it is."""
    from ..collect.remote.recorder import thread_name, thread_running

    native = stack.native_id
    name = thread_name(process.pid, stack)
    state = "unknown" if native is None else ("running" if thread_running(process.pid, native) else "waiting")
    return {
        "native_id": native,
        "thread_id": stack.thread_id,
        "name": name,
        "state": state,
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
            "state, whether it holds the GIL, frames (innermost first) and why its stack is partial, if it is.",
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
    ],
)
