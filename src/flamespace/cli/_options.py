"""A command's arguments and options written once, as data: click builds the command from them,
a small parser reads the common cases without importing click, and ``COMMAND --help`` is laid
out from them without click (cli/_help.py); start-up: docs/performance.md.

The small parser gives up (returns None) on anything it does not fully understand (an
unknown or abbreviated option, a bad value, a missing argument, ``--help`` among other
arguments), and the caller then runs the click command, which prints the proper help or
error: so it can make a command start faster, never behave differently. Its results are
checked against click's in tests/cli/test_options_fast.py and tests/cli/test_svg_fast_path.py.
"""

from __future__ import annotations

import os
import stat
import sys

TYPE_CHECKING = False  # typing costs start-up time; annotations are strings (PEP 563)
if TYPE_CHECKING:
    from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple

#: What an option holds: a flag, a --x/--no-x pair, a converted value, a repeatable string,
#: a path (a file; ``dir``: a directory), a non-negative number (ints stay ints).
KINDS = ("flag", "pair", "int", "float", "str", "choice", "path", "dir", "multiple", "number")
#: What a positional argument holds: a path (file, directory or '-'), the words of a program
#: (click.UNPROCESSED), a non-negative number, any text.
ARGUMENT_KINDS = ("path", "raw", "number", "str")
#: click's name of each kind's type (its metavar, upper-cased, in --help).
TYPE_NAMES = {"int": "integer", "float": "float", "str": "text", "path": "path", "dir": "path", "multiple": "text",
              "number": "number", "raw": "text"}
#: click's name of a range type's values (its metavar in --help).
RANGE_NAMES = {"int": "INTEGER RANGE", "float": "FLOAT RANGE"}


def number(text: str) -> "int | float":
    """A non-negative finite int or decimal number (ints stay ints, so counts stay exact); ValueError says what is wrong."""
    raw = text.strip()
    try:
        value: "int | float" = int(raw)
    except ValueError:
        try:
            value = float(raw)
        except ValueError:
            raise ValueError(f"{text!r} is not a number") from None
    if not value >= 0 or value == float("inf"):
        raise ValueError(f"{text!r} must be a finite number >= 0 (a flame graph has no negative values)")
    return value


class Option:
    """One option: its flags (``secondary`` for the off side of a pair), where its value goes, how it
    is read and shown. ``callback`` is click's (context, parameter, value) -> value, called with
    None, None, value on the fast path; ``minimum`` and ``maximum`` make an int or float option
    click's IntRange or FloatRange (``open``: both bounds excluded); ``exists``: a path must exist."""

    __slots__ = ("flags", "dest", "kind", "default", "choices", "help", "show_default", "secondary", "allow_dash",
                 "metavar", "minimum", "maximum", "open", "exists", "required", "callback")

    def __init__(
        self,
        flags: "Tuple[str, ...]",
        dest: str,
        kind: str = "str",
        default: object = None,
        help: str = "",
        choices: "Tuple[str, ...]" = (),
        show_default: object = None,
        secondary: "Tuple[str, ...]" = (),
        allow_dash: bool = False,
        metavar: "Optional[str]" = None,
        minimum: "Optional[float]" = None,
        required: bool = False,
        callback: "Optional[Callable[[Any, Any, Any], Any]]" = None,
        maximum: "Optional[float]" = None,
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

    def ranged(self) -> bool:
        return self.minimum is not None or self.maximum is not None

    def in_range(self, value: float) -> bool:
        low, high = self.minimum, self.maximum
        if self.open:
            return (low is None or value > low) and (high is None or value < high)
        return (low is None or value >= low) and (high is None or value <= high)

    def range_text(self) -> str:
        """The range as click's help shows it: x>=0, 0<x<1."""
        low, high = ("<", "<") if self.open else ("<=", "<=")
        if self.minimum is None:
            return f"x{high}{self.maximum}"
        if self.maximum is None:
            return f"x{'>' if self.open else '>='}{self.minimum}"
        return f"{self.minimum}{low}x{high}{self.maximum}"

    def takes_value(self) -> bool:
        return self.kind not in ("flag", "pair")

    def initial(self) -> object:
        """The value when the option is not given, converted as click converts defaults."""
        if self.kind == "multiple":
            return tuple(self.default) if isinstance(self.default, (list, tuple)) else ()
        if self.kind == "flag":
            return bool(self.default)
        if self.default is None:
            return None
        return self.convert(str(self.default)) if self.kind in ("int", "float") else self.default

    def convert(self, text: str) -> object:
        """The value of ``text``; ValueError if click would refuse it."""
        if self.kind in ("int", "float"):
            value = int(text) if self.kind == "int" else float(text)
            if self.ranged() and not self.in_range(value):
                raise ValueError(text)
            return value
        if self.kind == "number":
            return number(text)
        if self.choices and text not in self.choices:
            raise ValueError(text)
        if self.kind in ("path", "dir"):
            check_path(text, self.allow_dash, dir_okay=self.kind == "dir", file_okay=self.kind == "path", exists=self.exists)
        return text

    def click_type(self) -> object:
        import click

        if self.choices:
            return click.Choice(self.choices)
        if self.ranged():
            kind = click.IntRange if self.kind == "int" else click.FloatRange
            return kind(self.minimum, self.maximum, min_open=self.open, max_open=self.open)  # type: ignore[arg-type]
        if self.kind == "int":
            return int
        return {"float": float, "path": click.Path(dir_okay=False, allow_dash=self.allow_dash, exists=self.exists),
                "dir": click.Path(file_okay=False, exists=self.exists), "number": number_type()}.get(self.kind)

    def click_settings(self) -> "Tuple[List[str], Dict[str, Any]]":
        """The declarations and settings of the click.Option this spec stands for."""
        declarations = [*self.flags] if not self.secondary else ["/".join(self.flags) + "/" + "/".join(self.secondary)]
        settings: "Dict[str, Any]" = {"help": self.help or None, "metavar": self.metavar, "callback": self.callback}
        # click tells "default=None" from no default: a required value stays required, a flag False;
        # a --x/--no-x pair given neither way is None (reader options: "not asked for")
        if self.kind == "pair" or (self.default is not None and (self.kind != "flag" or self.default)):
            settings["default"] = self.default
        if self.kind == "flag":
            settings["is_flag"] = True
        else:
            if self.kind != "pair":
                settings["type"] = self.click_type()
                settings["multiple"] = self.kind == "multiple"
                settings["required"] = self.required
        if self.show_default is not None:
            settings["show_default"] = self.show_default
        return [*declarations, self.dest], settings

    def click_parameter(self) -> object:
        import click

        declarations, settings = self.click_settings()
        return click.Option(declarations, **settings)

    def click_decorator(self) -> "Callable":
        """The click.option decorator this spec stands for."""
        import click

        declarations, settings = self.click_settings()
        return click.option(*declarations, **settings)

    def help_record(self) -> "Tuple[str, str]":
        """(flags and metavar, help text with its [default: ...; range; required]) as click's --help shows it."""
        def spelled(flags: "Sequence[str]") -> str:
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
        if self.ranged() and not self.choices:
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
        if self.choices:
            return "[" + "|".join(self.choices) + "]"
        if self.ranged():
            return RANGE_NAMES[self.kind]
        return {"path": "FILE", "dir": "DIRECTORY"}.get(self.kind) or TYPE_NAMES[self.kind].upper()


class Argument:
    """One positional argument: ``nargs`` -1 takes all that is left (a tuple); one with a default
    (or nargs -1, unless ``required``) may be left out. ``metavar``: its name in the usage line."""

    __slots__ = ("name", "kind", "nargs", "default", "metavar", "_required")

    def __init__(self, name: str, kind: str = "path", nargs: int = 1, default: "Optional[str]" = None,
                 required: "Optional[bool]" = None, metavar: "Optional[str]" = None) -> None:
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
        if self.kind == "path":
            check_path(text, True, dir_okay=True)
        elif self.kind == "number":
            return number(text)
        return text

    def click_parameter(self) -> object:
        import click

        kind = {"path": click.Path(allow_dash=True), "raw": click.UNPROCESSED, "number": number_type(),
                "str": click.STRING}[self.kind]
        settings: "Dict[str, Any]" = {"nargs": self.nargs, "type": kind, "required": self.required, "metavar": self.metavar}
        if self.default is not None:  # (click tells "default=None" from no default)
            settings["default"] = self.default
        return click.Argument([self.name], **settings)

    def usage(self) -> str:
        """The argument in the usage line, as click writes it: NAME, [NAME], [NAME]..., or its metavar."""
        if self.metavar is not None:
            return self.metavar
        text = self.name.upper()
        if not self.required:
            text = f"[{text}]"
        return text + ("..." if self.nargs != 1 else "")


def number_type() -> object:
    """click's type for :func:`number` (a non-negative int or decimal number)."""
    import click

    class NumberType(click.ParamType):
        name = "number"

        def convert(self, value: object, param: object, ctx: object) -> object:
            if isinstance(value, (int, float)):
                value = repr(value)
            try:
                return number(str(value))
            except ValueError as exc:
                self.fail(str(exc), param, ctx)  # type: ignore[arg-type]

    return NumberType()


def check_path(text: str, allow_dash: bool, dir_okay: bool, file_okay: bool = True, exists: bool = False) -> None:
    """What click.Path checks: an existing path is readable, and not a directory (a regular
    file) unless allowed; with ``exists``, that it exists."""
    if allow_dash and file_okay and text == "-":
        return
    try:
        mode = os.stat(text).st_mode
    except OSError:
        if exists:
            raise ValueError(text) from None
        return
    if (not dir_okay and stat.S_ISDIR(mode)) or (not file_okay and stat.S_ISREG(mode)) or not os.access(text, os.R_OK):
        raise ValueError(text)


def click_options(options: "Sequence[Option]") -> "Callable":
    """A decorator adding ``options`` to a click command, in table order (as --help lists them)."""

    def decorate(function: "Callable") -> "Callable":
        for option in reversed(options):
            function = option.click_decorator()(function)
        return function

    return decorate


class Command:
    """A command as data: its name, arguments, options, help and the function that does the work
    (called with every value by its dest, by click or by :meth:`run_fast`). ``interspersed``
    False: the first positional argument ends the options (the rest is a program and its
    arguments: record, collect). ``program_flags``: options whose value names the program
    (``-m MODULE``, ``-c CODE``): they end the options too, as with ``python -m``."""

    __slots__ = ("name", "run", "help", "arguments", "options", "interspersed", "program_flags", "max_width", "_flags")

    def __init__(
        self, name: str, run: "Callable[..., object]", arguments: "Sequence[Argument]", options: "Sequence[Option]",
        help: "Optional[str]" = None, interspersed: bool = True, max_width: "Optional[int]" = None,
        program_flags: "Sequence[str]" = (),
    ) -> None:
        self.name, self.run, self.arguments, self.options = name, run, tuple(arguments), tuple(options)
        self.help = run.__doc__ if help is None else help
        self.interspersed, self.max_width = interspersed, max_width
        self.program_flags = tuple(program_flags)
        self._flags: "Optional[Dict[str, Tuple[Option, bool]]]" = None

    def click_command(self) -> object:
        """The click command this stands for (imports click)."""
        import click

        # -h as well as --help, as the group says (cli/_group.py): click keeps a command's help
        # option once made, so a command first used outside the group must not lose -h.
        settings: "Dict[str, object]" = {"help_option_names": ["-h", "--help"]}
        if not self.interspersed:
            settings.update(ignore_unknown_options=True, allow_interspersed_args=False)
        if self.max_width is not None:
            settings["max_content_width"] = self.max_width
        params = [argument.click_parameter() for argument in self.arguments]
        params += [option.click_parameter() for option in self.options]
        ends_options = self.ends_options

        class ProgramCommand(click.Command):
            def parse_args(self, ctx: "click.Context", args: "List[str]") -> "List[str]":
                return super().parse_args(ctx, ends_options(args))

        return ProgramCommand(self.name, callback=self.run, params=params, help=self.help,  # type: ignore[arg-type]
                              context_settings=settings)

    def ends_options(self, args: "Sequence[str]") -> "List[str]":
        """``args`` with ``--`` after the value of the first program flag (``-m pytest -q``: ``-q`` is
        pytest's, not ours), so that click and :meth:`parse` alike leave the rest to the program."""
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
            elif any(word.startswith(flag) and len(word) > len(flag) and not flag.startswith("--")
                     for flag in self.program_flags):
                end = index + 1  # -mpytest
            else:
                option = self._option(word)
                index += 2 if option is not None and option.takes_value() and "=" not in word else 1
                continue
            if end < len(words) and words[end] != "--":
                words.insert(end, "--")
            break
        return words

    def _option(self, word: str) -> "Optional[Option]":
        return next((option for option in self.options if word.partition("=")[0] in (*option.flags, *option.secondary)), None)

    def module_getattr(self, module: str) -> "Callable[[str], Any]":
        """A module's ``__getattr__`` that makes ``command`` (the click command) on first use,
        so the module itself does not import click."""

        def __getattr__(name: str) -> object:
            if name != "command":
                raise AttributeError(f"module {module!r} has no attribute {name!r}")
            command = self.click_command()
            setattr(sys.modules[module], "command", command)
            return command

        return __getattr__

    def parse(self, args: "Sequence[str]") -> "Optional[Dict[str, object]]":
        """Every value by its dest (arguments by name) as click would give them, or None: let click decide."""
        if self._flags is None:
            self._flags = {}
            for option in self.options:
                self._flags.update({flag: (option, True) for flag in option.flags})
                self._flags.update({flag: (option, False) for flag in option.secondary})
        by_flag = self._flags
        if not all(isinstance(arg, str) for arg in args):
            return None  # main([..., 5]): click converts what it is given
        args = self.ends_options(args)
        values: "Dict[str, object]" = {option.dest: option.initial() for option in self.options}
        given: "Set[str]" = set()
        repeated: "Dict[str, List[str]]" = {}
        positional: "List[str]" = []
        index, count = 0, len(args)
        while index < count:
            arg = args[index]
            index += 1
            if arg == "--":
                positional.extend(args[index:])
                break
            if arg == "-" or not arg.startswith("-"):
                if not self.interspersed:
                    positional.extend(args[index - 1:])
                    break
                positional.append(arg)
                continue
            flag, equals, text = arg.partition("=")
            if not flag.startswith("--"):
                flag, equals, text = arg, "", ""  # "-o" alone; "-ofile" and grouped short flags go to click
            found = by_flag.get(flag)
            if found is None:
                return None  # --help, -h, an unknown or abbreviated option
            option, on = found
            given.add(option.dest)
            if not option.takes_value():
                if equals:
                    return None  # click: "does not take a value"
                values[option.dest] = on if option.kind == "pair" else True
                continue
            if not equals:
                if index >= count:
                    return None  # click: "requires an argument"
                text = args[index]
                index += 1
                if text.startswith("-") and text != "-":
                    return None  # might be meant as an option: let click judge
            try:
                value = option.convert(text)
            except ValueError:
                return None
            if option.kind == "multiple":
                repeated.setdefault(option.dest, []).append(text)
            else:
                values[option.dest] = value
        values.update((dest, tuple(texts)) for dest, texts in repeated.items())
        if any(option.required and option.dest not in given for option in self.options):
            return None
        taken = self._arguments(positional)
        if taken is None:
            return None
        values.update(taken)
        return values

    def _arguments(self, words: "List[str]") -> "Optional[Dict[str, object]]":
        """The positional arguments' values from ``words`` (one each, the rest to the nargs=-1 one), or None."""
        values: "Dict[str, object]" = {}
        rest = list(words)
        flexible = [argument for argument in self.arguments if argument.nargs != 1]
        for argument in self.arguments:
            if argument.nargs != 1:
                after = sum(1 for a in self.arguments[self.arguments.index(argument) + 1:] if a.nargs == 1)
                taken, rest = rest[: len(rest) - after], rest[len(rest) - after:]
                if argument.required and not taken:
                    return None  # click: "Missing argument"
                try:
                    values[argument.name] = tuple(argument.convert(word) for word in taken)
                except ValueError:
                    return None
                continue
            if not rest:
                if argument.required:
                    return None  # click: "Missing argument"
                values[argument.name] = argument.default
                continue
            try:
                values[argument.name] = argument.convert(rest.pop(0))
            except ValueError:
                return None
        if rest and not flexible:
            return None  # click: "Got unexpected extra argument"
        return values

    def run_fast(self, args: "Sequence[str]") -> "Tuple[bool, object]":
        """(True, result) when the small parser understood ``args`` (or they ask for help) and the command ran;
        (False, None) otherwise: the caller runs the click command."""
        if list(args) in (["--help"], ["-h"]):
            from ._help import command_help

            sys.stdout.write(command_help("flamespace " + self.name, self))
            sys.stdout.flush()
            return True, 0
        values = self.parse(args)
        if values is None:
            return False, None
        for option in self.options:
            if option.callback is not None:
                values[option.dest] = option.callback(None, None, values[option.dest])
        return True, self.run(**values)


def parse(options: "Sequence[Option]", args: "Sequence[str]") -> "Optional[Tuple[Dict[str, object], Tuple[str, ...]]]":
    """(values by dest, positional files) as click would give them for a command with ``options``
    and any number of path arguments, or None to let click decide."""
    values = Command("", lambda: None, [Argument("files", nargs=-1)], options).parse(args)
    if values is None:
        return None
    files = values.pop("files")
    return values, files  # type: ignore[return-value]


#: The prefix of a reader option's destination: ``--pid`` arrives as ``read_pid``, apart from the command's own options.
READER_PREFIX = "read_"


def reader_options(formats: "Sequence[str]") -> "Tuple[Option, ...]":
    """One option per field of each format's ``ReadOptions`` (but ``skip_invalid``), from the registry.

    ``--pid`` for perf's ``pid``; the help is the field's line of the record's docstring, after
    the formats that have it. A field several formats share is one option. Nothing is given
    unless the user says so (flags default to off, values to None; a field whose default is
    True is a ``--x/--no-x`` pair), so :func:`given_reader_options` can tell what was asked.
    """
    from ..formats import registry

    found: "Dict[str, Tuple[object, List[Tuple[str, str]]]]" = {}
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


def given_reader_options(values: "Dict[str, object]") -> "Dict[str, object]":
    """The reader options the user gave, by field name, taken out of a command's ``values``."""
    given: "Dict[str, object]" = {}
    for key in [k for k in values if k.startswith(READER_PREFIX)]:
        value = values.pop(key)
        if value is not None and value is not False:
            given[key[len(READER_PREFIX):]] = value
    return given
