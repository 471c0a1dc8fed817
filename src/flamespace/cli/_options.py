"""Every command as data, and the one parser that reads its command line.

A command (:class:`Command`) is its name, the function that does the work, its positional
:class:`Argument`\\ s and its :class:`Option`\\ s (``store``: subcommands instead). The same data
gives ``COMMAND --help`` (cli/_help.py) and the values the function is called with by their
``dest``. What the parser refuses is a :class:`~._report.UsageError` (or its
:class:`~._report.BadParameter`), reported in one line with exit 1 (cli/_report.py):
``flamespace svg: error: No such option '--bogus'. Did you mean '--base'? (see 'flamespace svg --help')``.

What it reads: long and short options (``-o FILE``, ``-oFILE``, grouped short flags ``-qv``),
``--opt=value``, flags and ``--x/--no-x`` pairs, choices, int and float ranges, non-negative
numbers, paths (checked readable, of the right type, existing with ``exists``), repeatable
options, required options, callbacks, ``--`` (everything after it is positional), and the
words of a program (record, trace, collect, gate: after the first positional word, after
``-m MODULE``/``-c CODE``, every word is the program's; an option we do not know starts it);
``-h``/``--help`` anywhere among the options prints the help. Nothing here imports more than
``os`` and ``stat``: start-up is docs/performance.md's table.
"""

from __future__ import annotations

import os
import stat

from ._report import BadParameter, UsageError, write_out

TYPE_CHECKING = False  # typing costs start-up time; annotations are strings (PEP 563)
if TYPE_CHECKING:
    from typing import Any, Callable
    from collections.abc import Sequence

#: What an option holds: a flag, a --x/--no-x pair, a converted value, a repeatable string,
#: a path (a file; ``dir``: a directory), a non-negative number (ints stay ints).
KINDS = ("flag", "pair", "int", "float", "str", "choice", "path", "dir", "multiple", "number")
#: What a positional argument holds: a path (file, directory or '-'), the words of a program,
#: a non-negative number, any text.
ARGUMENT_KINDS = ("path", "raw", "number", "str")
#: The name of each kind's values (its metavar, upper-cased, in --help).
TYPE_NAMES = {
    "int": "integer",
    "float": "float",
    "str": "text",
    "path": "path",
    "dir": "path",
    "multiple": "text",
    "number": "number",
    "raw": "text",
}
#: The name of a ranged option's values (its metavar in --help).
RANGE_NAMES = {"int": "INTEGER RANGE", "float": "FLOAT RANGE"}
#: What asks for a command's help, anywhere among its options.
HELP_FLAGS = ("-h", "--help")


def number(text: str) -> int | float:
    """A non-negative finite int or decimal number (ints stay ints, so counts stay exact); ValueError says what is wrong."""
    raw = text.strip()
    try:
        value: int | float = int(raw)
    except ValueError:
        try:
            value = float(raw)
        except ValueError:
            raise ValueError(f"{text!r} is not a number") from None
    if not value >= 0 or value == float("inf"):
        raise ValueError(f"{text!r} must be a finite number >= 0 (a flame graph has no negative values)")
    return value


def suggestion(word: str, possibilities: Sequence[str]) -> str:
    """`` Did you mean '--base'?`` (or ``(Did you mean one of: ...?)``), closest first; '' when nothing is close."""
    from difflib import get_close_matches  # only on an error

    close = get_close_matches(word, possibilities)
    if not close:
        return ""
    if len(close) == 1:
        return f" Did you mean {close[0]!r}?"
    return f" (Did you mean one of: {', '.join(repr(c) for c in close)}?)"


class Option:
    """One option: its flags (``secondary`` for the off side of a pair), where its value goes, how it
    is read and shown. ``choices``: a tuple, or a function that gives it when first needed (the
    writable formats: listing them imports every format). ``callback`` turns the value (converted, or the default) into the one the
    command gets, or raises BadParameter; ``minimum`` and ``maximum`` make an int or float option
    a range (``open``: both bounds excluded); ``exists``: a path must exist."""

    __slots__ = (
        "flags",
        "dest",
        "kind",
        "default",
        "choices",
        "help",
        "show_default",
        "secondary",
        "allow_dash",
        "metavar",
        "minimum",
        "maximum",
        "open",
        "exists",
        "required",
        "callback",
    )

    def __init__(
        self,
        flags: tuple[str, ...],
        dest: str,
        kind: str = "str",
        default: object = None,
        help: str = "",
        choices: tuple[str, ...] | Callable[[], tuple[str, ...]] = (),
        show_default: object = None,
        secondary: tuple[str, ...] = (),
        allow_dash: bool = False,
        metavar: str | None = None,
        minimum: float | None = None,
        required: bool = False,
        callback: Callable[[Any], Any] | None = None,
        maximum: float | None = None,
        open: bool = False,
        exists: bool = False,
    ) -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown option kind {kind!r}")
        if (minimum is not None or maximum is not None) and kind not in RANGE_NAMES:
            raise ValueError(f"a range is for int and float options, not {kind!r}")
        self.flags, self.dest, self.kind, self.default, self.help = flags, dest, kind, default, help
        self.choices, self.show_default, self.secondary, self.allow_dash = choices, show_default, secondary, allow_dash
        self.metavar, self.minimum, self.required, self.callback = metavar, minimum, required, callback
        self.maximum, self.open, self.exists = maximum, open, exists

    def choice_list(self) -> tuple[str, ...]:
        if callable(self.choices):
            self.choices = tuple(self.choices())
        return self.choices

    def ranged(self) -> bool:
        return self.minimum is not None or self.maximum is not None

    def in_range(self, value: float) -> bool:
        low, high = self.minimum, self.maximum
        if self.open:
            return (low is None or value > low) and (high is None or value < high)
        return (low is None or value >= low) and (high is None or value <= high)

    def range_text(self) -> str:
        """The range as --help and errors show it: x>=0, 0<x<1."""
        low, high = ("<", "<") if self.open else ("<=", "<=")
        if self.minimum is None:
            return f"x{high}{self.maximum}"
        if self.maximum is None:
            return f"x{'>' if self.open else '>='}{self.minimum}"
        return f"{self.minimum}{low}x{high}{self.maximum}"

    def takes_value(self) -> bool:
        return self.kind not in ("flag", "pair")

    def hint(self) -> str:
        """How errors name the option: ``'-o' / '--output'``."""
        return " / ".join(repr(flag) for flag in self.flags)

    def initial(self) -> object:
        """The value when the option is not given (an int or float default converted as a given one)."""
        if self.kind == "multiple":
            return tuple(self.default) if isinstance(self.default, (list, tuple)) else ()
        if self.kind == "flag":
            return bool(self.default)
        if self.default is None:
            return None
        return self.convert(str(self.default)) if self.kind in ("int", "float") else self.default

    def convert(self, text: str) -> object:
        """The value of ``text``; BadParameter (naming the option) if it cannot be one."""
        try:
            return self._converted(text)
        except BadParameter as exc:
            exc.param_hint = self.hint()
            raise

    def _converted(self, text: str) -> object:
        if self.kind in ("int", "float"):
            try:
                value: int | float = int(text) if self.kind == "int" else float(text)
            except ValueError:
                raise BadParameter(f"{text!r} is not a valid {TYPE_NAMES[self.kind]}.") from None
            if self.ranged() and not self.in_range(value):
                raise BadParameter(f"{value} is not in the range {self.range_text()}.")
            return value
        if self.kind == "number":
            try:
                return number(text)
            except ValueError as exc:
                raise BadParameter(str(exc)) from None
        choices = self.choice_list()
        if choices and text not in choices:
            raise BadParameter(f"{text!r} is not one of {', '.join(repr(choice) for choice in choices)}.")
        if self.kind in ("path", "dir"):
            check_path(text, self.allow_dash, dir_okay=self.kind == "dir", file_okay=self.kind == "path", exists=self.exists)
        return text

    def help_record(self) -> tuple[str, str]:
        """(flags and metavar, help text with its [default: ...; range; required]) as --help shows it."""

        def spelled(flags: Sequence[str]) -> str:
            text = ", ".join(sorted(flags, key=lambda flag: len(flag) - len(flag.lstrip("-"))))
            return text if not self.takes_value() else f"{text} {self.metavar_text()}"

        term = " / ".join([spelled(self.flags)] + ([spelled(self.secondary)] if self.secondary else []))
        extra = []
        default = bool(self.default) if self.kind == "flag" else self.default  # as given: 12, not 12.0
        if isinstance(self.show_default, str):
            extra.append(f"default: ({self.show_default})")
        elif self.show_default and default is not None:
            if isinstance(default, (list, tuple)):
                shown = ", ".join(str(d) for d in default)
            elif self.kind == "pair":
                shown = (self.flags if default else self.secondary)[0].lstrip("-")
            elif self.kind == "flag" and not default:
                shown = ""
            elif default == "":
                shown = '""'
            else:
                shown = str(default)
            if shown:
                extra.append(f"default: {shown}")
        if self.ranged() and not self.choice_list():
            extra.append(self.range_text())
        if self.required:
            extra.append("required")
        text = self.help or ""
        if extra:
            text = f"{text}  [{'; '.join(extra)}]" if text else f"[{'; '.join(extra)}]"
        return term, text

    def metavar_text(self) -> str:
        if self.metavar is not None:
            return self.metavar
        if self.choice_list():
            return "[" + "|".join(self.choice_list()) + "]"
        if self.ranged():
            return RANGE_NAMES[self.kind]
        return {"path": "FILE", "dir": "DIRECTORY"}.get(self.kind) or TYPE_NAMES[self.kind].upper()


class Argument:
    """One positional argument: ``nargs`` -1 takes all that is left (a tuple); one with a default
    (or nargs -1, unless ``required``) may be left out. ``metavar``: its name in the usage line.
    A ``raw`` argument (nargs -1) holds a program and its arguments: the options end at its first word."""

    __slots__ = ("name", "kind", "nargs", "default", "metavar", "_required")

    def __init__(
        self,
        name: str,
        kind: str = "path",
        nargs: int = 1,
        default: str | None = None,
        required: bool | None = None,
        metavar: str | None = None,
    ) -> None:
        if kind not in ARGUMENT_KINDS:
            raise ValueError(f"unknown argument kind {kind!r}")
        self.name, self.kind, self.nargs, self.default, self.metavar = name, kind, nargs, default, metavar
        self._required = required

    @property
    def required(self) -> bool:
        if self._required is not None:
            return self._required
        return self.nargs == 1 and self.default is None

    def convert(self, text: str) -> object:
        try:
            if self.kind == "path":
                check_path(text, True, dir_okay=True)
            elif self.kind == "number":
                return number(text)
        except ValueError as exc:
            raise BadParameter(str(exc), f"'{self.hint()}'") from None
        except BadParameter as exc:
            exc.param_hint = f"'{self.hint()}'"
            raise
        return text

    def hint(self) -> str:
        """How errors name the argument: FACTOR, PILOT..., its metavar."""
        return self.metavar or self.name.upper() + ("..." if self.nargs != 1 else "")

    def usage(self) -> str:
        """The argument in the usage line: NAME, [NAME], [NAME]..., or its metavar."""
        if self.metavar is not None:
            return self.metavar
        text = self.name.upper()
        if not self.required:
            text = f"[{text}]"
        return text + ("..." if self.nargs != 1 else "")


def check_path(text: str, allow_dash: bool, dir_okay: bool, file_okay: bool = True, exists: bool = False) -> None:
    """BadParameter unless an existing path is readable, and not a directory (a regular file)
    unless allowed; with ``exists``, unless it exists. ('-' is stdin or stdout with ``allow_dash``.)"""
    if allow_dash and file_okay and text == "-":
        return
    name = "File" if not dir_okay else "Directory" if not file_okay else "Path"
    try:
        mode = os.stat(text).st_mode
    except OSError:
        if exists:
            raise BadParameter(f"{name} {text!r} does not exist.") from None
        return
    if not dir_okay and stat.S_ISDIR(mode):
        raise BadParameter(f"{name} {text!r} is a directory.")
    if not file_okay and stat.S_ISREG(mode):
        raise BadParameter(f"{name} {text!r} is a file.")
    if not os.access(text, os.R_OK):
        raise BadParameter(f"{name} {text!r} is not readable.")


class Command:
    """A command as data: its name, arguments, options, help and the function that does the work
    (called with every value by its dest). ``interspersed`` False: the first positional argument
    ends the options (the rest is a program and its arguments: record, collect). ``program_flags``:
    options whose value names the program (``-m MODULE``, ``-c CODE``): they end the options too,
    as with ``python -m``. ``subcommands``: a group of commands (``store add``), each declared
    alike; the group itself runs nothing. ``more_options``: options that cost imports to list (convert's
    reader options come from every format), added when an unknown long option or ``--help`` needs them."""

    __slots__ = (
        "name",
        "run",
        "help",
        "arguments",
        "options",
        "interspersed",
        "program_flags",
        "max_width",
        "subcommands",
        "more_options",
        "_flags",
    )

    def __init__(
        self,
        name: str,
        run: Callable[..., object] | None,
        arguments: Sequence[Argument] = (),
        options: Sequence[Option] = (),
        help: str | None = None,
        interspersed: bool = True,
        max_width: int | None = None,
        program_flags: Sequence[str] = (),
        subcommands: Sequence[Command] = (),
        more_options: Callable[[], Sequence[Option]] | None = None,
    ) -> None:
        self.name, self.run, self.arguments, self.options = name, run, tuple(arguments), tuple(options)
        self.help = (run.__doc__ if run is not None else None) if help is None else help
        self.interspersed, self.max_width = interspersed, max_width
        self.program_flags = tuple(program_flags)
        self.subcommands = {command.name: command for command in subcommands}
        self.more_options = more_options
        self._flags: dict[str, tuple[Option, bool]] | None = None

    def add_more_options(self) -> bool:
        """Add :attr:`more_options` (once); whether there were any to add."""
        if self.more_options is None:
            return False
        more, self.more_options = self.more_options, None
        self.options += tuple(more())
        self._flags = None
        return True

    def by_flag(self) -> dict[str, tuple[Option, bool]]:
        """Every flag -> (its option, whether it is the on side)."""
        if self._flags is None:
            self._flags = {}
            for option in self.options:
                self._flags.update({flag: (option, True) for flag in option.flags})
                self._flags.update({flag: (option, False) for flag in option.secondary})
        return self._flags

    def main(self, prog: str, args: Sequence[object]) -> object:
        """Run the command for ``args`` (the words after ``prog``; a path or number is taken as its
        text): its help, a subcommand, or its function with the parsed values; UsageError for what cannot run."""
        words = [os.fspath(arg) if isinstance(arg, os.PathLike) else str(arg) for arg in args]
        if self.subcommands:
            return self._dispatch(prog, words)
        try:
            if self.asks_help(words):
                from ._help import command_help

                self.add_more_options()
                write_out(command_help(prog, self))
                return 0
            values = self.parse(words)
        except UsageError as exc:
            exc.prog = exc.prog or prog
            raise
        assert self.run is not None
        return self.run(**values)

    def _dispatch(self, prog: str, words: list[str]) -> object:
        """A group: its help, or the subcommand its first word names."""
        if not words or words[0] in HELP_FLAGS:
            if not words:
                raise UsageError("Missing command.", prog)
            from ._help import group_help

            write_out(group_help(prog, self.help or "", [(name, c.help or "") for name, c in self.subcommands.items()]))
            return 0
        first = words[0]
        if first.startswith("-"):
            raise UsageError(f"No such option {first!r}.{suggestion(first, HELP_FLAGS)}", prog)
        command = self.subcommands.get(first)
        if command is None:
            raise UsageError(f"No such command {first!r}.{suggestion(first, list(self.subcommands))}", prog)
        return command.main(f"{prog} {first}", words[1:])

    def asks_help(self, args: Sequence[str]) -> bool:
        """Whether -h or --help is among the options (not a value, not the program's)."""
        by_flag = self.by_flag()
        index = 0
        words = self.ends_options(args)
        while index < len(words):
            word = words[index]
            index += 1
            if word == "--" or (not self.interspersed and (word == "-" or not word.startswith("-"))):
                return False
            if word in HELP_FLAGS:
                return True
            found = by_flag.get(word)
            if found is not None and found[0].takes_value():
                index += 1  # its value, whatever it looks like
        return False

    def ends_options(self, args: Sequence[str]) -> list[str]:
        """``args`` with ``--`` after the value of the first program flag (``-m pytest -q``: ``-q`` is
        pytest's, not ours), so that the parser leaves the rest to the program."""
        words = list(args)
        if not self.program_flags:
            return words
        index = 0
        while index < len(words):
            word = words[index]
            if word == "--" or (not word.startswith("-") and not self.interspersed):
                break  # the options already end here
            if word in self.program_flags:
                end = index + 2
            elif any(
                word.startswith(flag) and len(word) > len(flag) and not flag.startswith("--") for flag in self.program_flags
            ):
                end = index + 1  # -mpytest
            else:
                found = self.by_flag().get(word.partition("=")[0])
                index += 2 if found is not None and found[0].takes_value() and "=" not in word else 1
                continue
            if end < len(words) and words[end] != "--":
                words.insert(end, "--")
            break
        return words

    def _takes_program(self) -> bool:
        return bool(self.arguments) and self.arguments[-1].kind == "raw"

    def parse(self, args: Sequence[str]) -> dict[str, object]:
        """Every value by its dest (arguments by name), callbacks applied; UsageError for what is wrong."""
        args = self.ends_options(args)
        given: dict[str, object] = {}
        repeated: dict[str, list[object]] = {}
        positional: list[str] = []
        index, count = 0, len(args)
        while index < count:
            arg = args[index]
            index += 1
            if arg == "--":
                positional.extend(args[index:])
                break
            if arg == "-" or not arg.startswith("-"):
                if not self.interspersed:
                    positional.extend(args[index - 1 :])
                    break
                positional.append(arg)
                continue
            pairs = self._option_words(arg, args, index)
            if pairs is None:  # an option we do not know: a program's own (record -x ...)
                positional.extend(args[index - 1 :])
                break
            for option, on, text, used in pairs:
                index += used
                if not option.takes_value():
                    given[option.dest] = on if option.kind == "pair" else True
                elif option.kind == "multiple":
                    repeated.setdefault(option.dest, []).append(option.convert(text))  # type: ignore[arg-type]
                else:
                    given[option.dest] = option.convert(text)  # type: ignore[arg-type]
        arguments = self._arguments(positional)  # a missing argument is said before a missing option
        values: dict[str, object] = {}
        for option in self.options:
            if option.dest in repeated:
                values[option.dest] = tuple(repeated[option.dest])
            elif option.dest in given:
                values[option.dest] = given[option.dest]
            elif option.required:
                raise UsageError(f"Missing option {option.hint()}.")
            else:
                values[option.dest] = option.initial()
        values.update(arguments)
        for option in self.options:
            if option.callback is not None:
                try:
                    values[option.dest] = option.callback(values[option.dest])
                except BadParameter as exc:
                    exc.param_hint = exc.param_hint or option.hint()
                    raise
        return values

    def _option_words(self, arg: str, args: Sequence[str], index: int) -> list[tuple[Option, bool, str | None, int]] | None:
        """The options ``arg`` gives: (option, on side, value text, words taken after ``arg``) each;
        None for an unknown option that starts a program's words."""
        by_flag = self.by_flag()
        if arg.startswith("--"):
            flag, equals, text = arg.partition("=")
            found = by_flag.get(flag)
            if found is None and self.add_more_options():
                by_flag = self.by_flag()
                found = by_flag.get(flag)
            if found is None:
                if self._takes_program():
                    return None
                raise UsageError(f"No such option {flag!r}.{suggestion(flag, [*by_flag, '--help'])}")
            option, on = found
            if not option.takes_value():
                if equals:
                    raise UsageError(f"Option {flag!r} does not take a value.")
                return [(option, on, None, 0)]
            if equals:
                return [(option, on, text, 0)]
            if index >= len(args):
                raise UsageError(f"Option {flag!r} requires an argument.")
            return [(option, on, args[index], 1)]
        found = by_flag.get(arg)
        if found is not None:  # -o FILE, -q
            option, on = found
            if not option.takes_value():
                return [(option, on, None, 0)]
            if index >= len(args):
                raise UsageError(f"Option {arg!r} requires an argument.")
            return [(option, on, args[index], 1)]
        pairs: list[tuple[Option, bool, str | None, int]] = []
        for position in range(1, len(arg)):  # -ofile, -qv
            flag = "-" + arg[position]
            found = by_flag.get(flag)
            if found is None:
                if self._takes_program() and not pairs:
                    return None
                raise UsageError(f"No such option {flag!r}.")
            option, on = found
            if option.takes_value():
                rest = arg[position + 1 :]
                if rest:
                    pairs.append((option, on, rest, 0))
                elif index < len(args):
                    pairs.append((option, on, args[index], 1))
                else:
                    raise UsageError(f"Option {flag!r} requires an argument.")
                break
            pairs.append((option, on, None, 0))
        return pairs

    def _arguments(self, words: list[str]) -> dict[str, object]:
        """The positional arguments' values from ``words`` (one each, the rest to the nargs=-1 one)."""
        values: dict[str, object] = {}
        rest = list(words)
        flexible = [argument for argument in self.arguments if argument.nargs != 1]
        for position, argument in enumerate(self.arguments):
            if argument.nargs != 1:
                after = sum(1 for a in self.arguments[position + 1 :] if a.nargs == 1)
                taken, rest = rest[: max(len(rest) - after, 0)], rest[max(len(rest) - after, 0) :]
                if argument.required and not taken:
                    raise UsageError(f"Missing argument {argument.hint()!r}.")
                values[argument.name] = tuple(argument.convert(word) for word in taken)
                continue
            if not rest:
                if argument.required:
                    raise UsageError(f"Missing argument {argument.hint()!r}.")
                values[argument.name] = argument.default
                continue
            values[argument.name] = argument.convert(rest.pop(0))
        if rest and not flexible:
            raise UsageError(f"Got unexpected extra argument{'s' if len(rest) > 1 else ''} ({' '.join(rest)})")
        return values


#: The prefix of a reader option's destination: ``--pid`` arrives as ``read_pid``, apart from the command's own options.
READER_PREFIX = "read_"


def reader_options(formats: Sequence[str]) -> tuple[Option, ...]:
    """One option per field of each format's ``ReadOptions`` (but ``skip_invalid``), from the registry.

    ``--pid`` for perf's ``pid``; the help is the field's line of the record's docstring, after
    the formats that have it. A field several formats share is one option. Nothing is given
    unless the user says so (flags default to off, values to None; a field whose default is
    True is a ``--x/--no-x`` pair), so :func:`given_reader_options` can tell what was asked.
    """
    from ..formats import registry

    found: dict[str, tuple[object, list[tuple[str, str]]]] = {}
    for name in formats:
        for field, default, help in registry.read_options(registry.by_name(name)):
            found.setdefault(field, (default, []))[1].append((name, help))
    options = []
    for field, (default, helps) in found.items():
        flag = "--" + field.replace("_", "-")
        if len({help for _, help in helps}) == 1:
            text = f"[{', '.join(name for name, _ in helps)}] {helps[0][1]}"
        else:  # one meaning per format: say each
            text = " ".join(f"[{name}] {help}" for name, help in helps)
        dest = READER_PREFIX + field
        if isinstance(default, bool):
            if default:
                options.append(Option((flag,), dest, "pair", None, text, secondary=("--no-" + field.replace("_", "-"),)))
            else:
                options.append(Option((flag,), dest, "flag", False, text))
        else:
            kind = "int" if isinstance(default, int) else "float" if isinstance(default, float) else "str"
            options.append(Option((flag,), dest, kind, None, text))
    return tuple(options)


def given_reader_options(values: dict[str, object]) -> dict[str, object]:
    """The reader options the user gave, by field name, taken out of a command's ``values``."""
    given: dict[str, object] = {}
    for key in [k for k in values if k.startswith(READER_PREFIX)]:
        value = values.pop(key)
        if value is not None and value is not False:
            given[key[len(READER_PREFIX) :]] = value
    return given
