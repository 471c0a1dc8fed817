"""A command's options written once, as data: click builds the command from them, and a tiny
parser reads the common cases without importing click (start-up; docs/performance.md).

The tiny parser gives up (returns None) on anything it does not fully understand, and the
caller then runs the click command, which prints the proper help or error: so it can make a
command start faster, never behave differently. Its results are checked against click's in
tests/cli/test_options.py.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable

TYPE_CHECKING = False  # typing costs start-up time; annotations are strings (PEP 563)
if TYPE_CHECKING:
    from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

#: What an option holds: a flag, a --x/--no-x pair, a converted value, or a repeatable string.
KINDS = ("flag", "pair", "int", "float", "str", "choice", "path", "multiple")


class Option:
    """One option: its flags (``secondary`` for the off side of a pair), where its value goes, how it is read."""

    __slots__ = ("flags", "dest", "kind", "default", "choices", "help", "show_default", "secondary", "allow_dash")

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
    ) -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown option kind {kind!r}")
        self.flags, self.dest, self.kind, self.default, self.help = flags, dest, kind, default, help
        self.choices, self.show_default, self.secondary, self.allow_dash = choices, show_default, secondary, allow_dash

    def takes_value(self) -> bool:
        return self.kind not in ("flag", "pair")

    def initial(self) -> object:
        """The value when the option is not given, converted as click converts defaults."""
        if self.kind == "multiple":
            return tuple(self.default) if isinstance(self.default, Iterable) else ()
        if self.kind == "flag":
            return bool(self.default)
        if self.default is None:
            return None
        return self.convert(str(self.default)) if self.kind in ("int", "float") else self.default

    def convert(self, text: str) -> object:
        """The value of ``text``; ValueError if click would refuse it."""
        if self.kind == "int":
            return int(text)
        if self.kind == "float":
            return float(text)
        if self.kind == "choice" and text not in self.choices:
            raise ValueError(text)
        if self.kind == "path":
            check_path(text, self.allow_dash, dir_okay=False)
        return text

    def click_decorator(self) -> "Callable":
        """The click.option this spec stands for."""
        import click

        declarations = [*self.flags] if not self.secondary else ["/".join(self.flags) + "/" + "/".join(self.secondary)]
        settings: "Dict[str, Any]" = {"help": self.help or None}
        if self.kind in ("flag",):
            settings["is_flag"] = True
        elif self.kind == "pair":
            settings["default"] = self.default
        else:
            settings["default"] = self.default
            settings["type"] = {
                "int": int,
                "float": float,
                "str": None,
                "multiple": None,
                "choice": click.Choice(self.choices) if self.choices else None,
                "path": click.Path(dir_okay=False, allow_dash=self.allow_dash),
            }[self.kind]
            settings["multiple"] = self.kind == "multiple"
        if self.show_default is not None:
            settings["show_default"] = self.show_default
        return click.option(*declarations, self.dest, **settings)


def check_path(text: str, allow_dash: bool, dir_okay: bool) -> None:
    """What click.Path (exists=False) checks: an existing path is readable, and not a directory unless allowed."""
    if allow_dash and text == "-":
        return
    try:
        mode = os.stat(text).st_mode
    except OSError:
        return
    if (not dir_okay and stat.S_ISDIR(mode)) or not os.access(text, os.R_OK):
        raise ValueError(text)


def click_options(options: "Sequence[Option]") -> "Callable":
    """A decorator adding ``options`` to a click command, in table order (as --help lists them)."""

    def decorate(function: "Callable") -> "Callable":
        for option in reversed(options):
            function = option.click_decorator()(function)
        return function

    return decorate


def parse(options: "Sequence[Option]", args: "Sequence[str]", allow_dash_files: bool = True) -> "Optional[Tuple[Dict[str, object], Tuple[str, ...]]]":
    """(values by dest, positional files) as click would give them, or None to let click decide."""
    by_flag: "Dict[str, Tuple[Option, object]]" = {}
    for option in options:
        for flag in option.flags:
            by_flag[flag] = (option, True)
        for flag in option.secondary:
            by_flag[flag] = (option, False)
    values: "Dict[str, object]" = {option.dest: option.initial() for option in options}
    repeated: "Dict[str, List[str]]" = {}
    files: "List[str]" = []
    index, count = 0, len(args)
    while index < count:
        arg = args[index]
        index += 1
        if arg == "--":
            files.extend(args[index:])
            break
        if arg == "-" or not arg.startswith("-"):
            files.append(arg)
            continue
        flag, equals, text = arg.partition("=")
        if not flag.startswith("--"):
            flag, equals, text = arg, "", ""  # "-o" alone; "-ofile" and grouped short flags go to click
        found = by_flag.get(flag)
        if found is None:
            return None  # --help, -h, an unknown or abbreviated option
        option, on = found
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
    for dest, texts in repeated.items():
        values[dest] = tuple(texts)
    for path in files:
        try:
            check_path(path, allow_dash_files, dir_okay=True)
        except ValueError:
            return None
    return values, tuple(files)


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
