"""Colour on a terminal: the one place that decides whether to colour and holds the styles.

Whether: ``flamespace --color auto|always|never`` (the group's option, :func:`set_mode`);
``auto`` colours a terminal unless ``NO_COLOR`` is set (https://no-color.org: any non-empty
value) or ``TERM=dumb``, and colours a pipe too when ``FORCE_COLOR`` is set (non-empty;
``NO_COLOR`` wins over it). The library has no colour: commands apply these styles (words
of :data:`ATTRIBUTES` and :data:`COLOURS`) to what it returns. A piped output is the same bytes as without colour.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO

MODES = ("auto", "always", "never")

#: A share of the total at or above which a frame or row is hot (bold red), or warm (yellow).
HOT_SHARE = 0.20
WARM_SHARE = 0.05
HOT, WARM = "bold red", "yellow"
#: A frame's ``(file:line)``: dimmed, so the function names stand out.
LOCATION = "dim"
#: compare: a significant regression (appeared, grew), a significant improvement (disappeared,
#: shrank), a row that is not a significant change (--all), the line with the verdict.
REGRESSION, IMPROVEMENT, UNCHANGED, VERDICT = "red", "green", "dim", "bold"
#: A change in a differential tree (``text``): more in the after profile, or less.
MORE, LESS = REGRESSION, IMPROVEMENT
#: compare's rows by the kind of change (no kind: not a significant change).
KIND_STYLES = {"appeared": REGRESSION, "grown": REGRESSION, "disappeared": IMPROVEMENT, "shrunk": IMPROVEMENT}

_mode = {"value": "auto"}


def set_mode(mode: str) -> None:
    """The ``--color`` choice, for every command of this process."""
    if mode not in MODES:
        raise ValueError(f"--color is one of {', '.join(MODES)}, not {mode!r}")
    _mode["value"] = mode


def enabled(stream: IO[str]) -> bool:
    """Whether to colour what goes to ``stream`` (stdout, or a file for -o: never a terminal)."""
    mode = _mode["value"]
    if mode != "auto":
        return mode == "always"
    environ = os.environ
    if environ.get("NO_COLOR"):
        return False
    if environ.get("FORCE_COLOR"):
        return True
    if environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def share_style(share: float) -> str | None:
    """The style of a share of the total (0.25 = 25%): hot, warm or none."""
    if share >= HOT_SHARE:
        return HOT
    if share >= WARM_SHARE:
        return WARM
    return None


def change_style(change: float) -> str | None:
    """The style of a change: more (red), less (green), none."""
    return MORE if change > 0 else LESS if change < 0 else None


_codes: dict[str, tuple[str, str]] = {}


def kind_style(kind: str | None) -> str:
    """The style of a row of compare's report, by its kind of change."""
    return KIND_STYLES.get(kind or "", UNCHANGED)


#: SGR codes of the style words (attributes in this order, then the colour: the last one named
#: wins), in the 16 standard colours.
ATTRIBUTES = {"bold": "1", "dim": "2", "italic": "3", "underline": "4", "blink": "5", "reverse": "7", "strike": "9"}
COLOURS = {name: str(30 + i) for i, name in enumerate(("black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"))}


def _sgr(style: str) -> tuple[str, str]:
    """(start, end) codes of a style made of the words above; ValueError names a word it does not know."""
    attributes, colour = set(), None
    for word in style.split():
        if word in ATTRIBUTES:
            attributes.add(word)
        elif word in COLOURS:
            colour = COLOURS[word]
        else:
            raise ValueError(f"unknown style word {word!r} in {style!r}")
    codes = [code for name, code in ATTRIBUTES.items() if name in attributes] + ([colour] if colour else [])
    return (f"\x1b[{';'.join(codes)}m", "\x1b[0m") if codes else ("", "")


def paint(text: str, style: str | None) -> str:
    """``text`` wrapped in the ANSI codes of ``style``."""
    if not style or not text:
        return text
    codes = _codes.get(style)
    if codes is None:
        codes = _codes[style] = _sgr(style)
    return codes[0] + text + codes[1]
