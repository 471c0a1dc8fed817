"""What to run: a script, a module (-m) or a code string (-c), and with which interpreter.

Understands the command lines people type: ``script.py args``, ``-m pkg args``,
``-c 'code'`` and py-spy's habit of naming the interpreter first
(``python -X dev script.py args``), whose flags are passed on.
"""

from __future__ import annotations

import os
import re
import sys
from .._record import Record, factory, record
from ..errors import ArgumentError

TYPE_CHECKING = False  # typing and dataclasses cost record's start-up ~10 ms (docs/performance.md)
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

#: Interpreter options that take a value (as a separate argument or glued on).
_FLAGS_WITH_VALUE = ("-X", "-W", "--check-hash-based-pycs")
_PLAIN_FLAGS = set("bBdEhiIOqRsSuvx") | {"OO", "bb"}
_INTERPRETER_NAME = re.compile(r"^(python|pypy)[0-9.]*(\.exe)?$")


@record
class Target(Record):
    """A Python program to run as ``python [flags] <kind> value args``."""

    kind: str  # "script", "module" or "code"
    value: str
    args: tuple[str, ...] = ()
    interpreter: str = sys.executable
    flags: tuple[str, ...] = ()

    @property
    def argv(self) -> list[str]:
        """``sys.argv`` as the program sees it under ``python``."""
        first = {"script": self.value, "module": self.value, "code": "-c"}[self.kind]
        return [first, *self.args]

    def describe(self) -> str:
        """The command as a person would type it (for metadata and messages)."""
        head = {"script": [self.value], "module": ["-m", self.value], "code": ["-c", self.value]}[self.kind]
        words = ["python", *self.flags, *head, *self.args]
        return " ".join(_quote(w) for w in words)

    @property
    def site_enabled(self) -> bool:
        """False when the interpreter flags include -S (then site is not run in the child either)."""
        return not any(f.startswith("-") and not f.startswith(("-X", "-W", "--")) and "S" in f for f in self.flags)


@record
class Program(Record):
    """A program to record (:func:`~.launcher.record_program`), once or many times
    (:func:`~.runs.collect_runs`): ``name`` is its subdirectory of a collection (and its
    ``program`` label in the profiles' metadata); ``env`` is set in its environment on top of ours; ``cwd`` is where
    it runs (default: ours), e.g. the root of its own checkout, so that two checkouts' frames
    get the same relative file names. ``frame_root``: the directory its frames name their files
    relative to (default: a script's own directory, else the working directory; see
    :func:`~.launcher.program_dirs`)."""

    target: Target
    name: str = ""
    env: Mapping[str, str] = factory(dict)
    cwd: str | None = None
    frame_root: str | None = None


def parse_command(
    command: Sequence[str], module: str | None = None, code: str | None = None, directory: str | None = None
) -> Target:
    """The target named by ``command`` (what follows ``--``), or by ``-m``/``-c`` given to us.

    A script's path is looked up in ``directory`` (default: the working directory), where
    the program will run; it is kept as given."""
    words = list(command)
    if module is not None and code is not None:
        raise ArgumentError("give either -m MODULE or -c CODE, not both")
    if module is not None:
        return Target("module", module, tuple(words))
    if code is not None:
        return Target("code", code, tuple(words))
    if not words:
        raise ArgumentError("nothing to run: give a script (flamespace record -- script.py args), -m MODULE or -c CODE")
    interpreter = sys.executable
    flags: list[str] = []
    if _INTERPRETER_NAME.match(os.path.basename(words[0])):
        interpreter = _resolve_interpreter(words.pop(0))
        while words and words[0].startswith("-") and words[0] not in ("-m", "-c", "-", "--"):
            flag = words.pop(0)
            if flag in _FLAGS_WITH_VALUE:
                if not words:
                    raise ArgumentError(f"the interpreter option {flag} needs a value")
                flags += [flag, words.pop(0)]
            elif flag.startswith(("-X", "-W")) or set(flag[1:]) <= _PLAIN_FLAGS or flag[1:] in _PLAIN_FLAGS:
                flags.append(flag)
            else:
                raise ArgumentError(f"unknown interpreter option {flag!r}")
        if words and words[0] == "--":
            words.pop(0)
        if not words or words[0] == "-":
            raise ArgumentError("a program read from stdin cannot be profiled; save it to a file")
    if words[0] in ("-m", "-c"):  # after an interpreter, or alone: `-m pkg.cli run` as python takes it
        kind = "module" if words[0] == "-m" else "code"
        if len(words) < 2:
            raise ArgumentError(f"the interpreter option {words[0]} needs a value")
        return Target(kind, words[1], tuple(words[2:]), interpreter, tuple(flags))
    script = words[0]
    where = os.path.join(directory, script) if directory is not None else script
    if not os.path.exists(where):
        raise ArgumentError(f"no such script: {script}" + (f" in {directory}" if directory is not None else ""))
    if os.path.isdir(where):
        raise ArgumentError(f"{script} is a directory; to run a package use -m, or name its __main__.py")
    return Target("script", script, tuple(words[1:]), interpreter, tuple(flags))


def _resolve_interpreter(name: str) -> str:
    if os.sep in name:
        return name
    import shutil

    found = shutil.which(name)
    if found is None:
        raise ArgumentError(f"interpreter not found on PATH: {name}")
    return found


def _quote(word: str) -> str:
    import shlex

    return shlex.quote(word)


def program_name(command: str | None) -> str | None:
    """What a recorded command (:meth:`Target.describe`, the ``command`` label) ran, as frames
    name it: the script's file name, ``-m MODULE``, or ``-c`` (whatever the code). The
    interpreter, its options, the script's directory and the arguments are left out: two
    versions of one program (two worktrees, a flag) legitimately differ there."""
    import shlex

    if not command:
        return None
    try:
        words = shlex.split(command)
    except ValueError:
        return command
    if words and _INTERPRETER_NAME.match(os.path.basename(words[0])):
        words.pop(0)
        while words and words[0].startswith("-") and words[0] not in ("-m", "-c", "-", "--"):
            if words.pop(0) in _FLAGS_WITH_VALUE and words:
                words.pop(0)
        if words and words[0] == "--":
            words.pop(0)
    if not words:
        return command
    if words[0] == "-m" and len(words) > 1:
        return f"-m {words[1]}"
    if words[0] == "-c":
        return "-c"
    return os.path.basename(words[0])


__all__ = ["Program", "Target", "parse_command", "program_name"]
