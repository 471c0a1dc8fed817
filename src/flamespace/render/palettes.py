"""Frame colours: flamegraph.pl's palettes, keyed by a hash of the name so output is repeatable.

flamegraph.pl's default seeds Perl's random generator with the sum of the name's characters;
we use CRC-32 of the name instead (same idea: one name, one colour, in every graph, but
anagrams do not collide). ``hash`` is flamegraph.pl's ``--hash`` (early characters weigh
most, so ``ext4_read`` and ``ext4_write`` get similar colours); ``random`` is random per frame.
"""

from __future__ import annotations

import os
import re
from zlib import crc32

from .options import SvgOptions

TYPE_CHECKING = False
if TYPE_CHECKING:
    import random
    from typing import Callable
    from collections.abc import Iterable

    from .._types import Rgb
SEPARATOR_COLOURS = {"--": "rgb(160,160,160)", "-": "rgb(200,200,200)"}
_MODULE = re.compile(r".(.*?)`")


def name_hash(name: str) -> float:
    """flamegraph.pl's --hash: a value in [0, 1] from the first few characters, early ones weighing most."""
    name = _MODULE.sub("", name, count=1)
    vector, weight, largest, mod = 0.0, 1.0, 1.0, 10
    for char in name:
        vector += (ord(char) % mod) / (mod - 1) * weight
        mod += 1
        largest += weight
        weight *= 0.70
        if mod > 12:
            break
    return 1 - vector / largest


def stable_hash(name: str) -> float:
    """A value in [0, 1) that depends only on the name (the default colouring)."""
    return crc32(name.encode("utf-8", "surrogateescape")) / 4294967296.0


# -- the base palettes: (v1, v2, v3) -> rgb, as flamegraph.pl's colour formulas --------------
def _hot(v1: float, v2: float, v3: float) -> Rgb:
    return 205 + int(50 * v3), int(230 * v1), int(55 * v2)


def _mem(v1: float, v2: float, v3: float) -> Rgb:
    return 0, 190 + int(50 * v2), int(210 * v1)


def _io(v1: float, v2: float, v3: float) -> Rgb:
    grey = 80 + int(60 * v1)
    return grey, grey, 190 + int(55 * v2)


def _red(v1: float, v2: float, v3: float) -> Rgb:
    other = 50 + int(80 * v1)
    return 200 + int(55 * v1), other, other


def _green(v1: float, v2: float, v3: float) -> Rgb:
    other = 50 + int(60 * v1)
    return other, 200 + int(55 * v1), other


def _blue(v1: float, v2: float, v3: float) -> Rgb:
    other = 80 + int(60 * v1)
    return other, other, 205 + int(50 * v1)


def _yellow(v1: float, v2: float, v3: float) -> Rgb:
    level = 175 + int(55 * v1)
    return level, level, 50 + int(20 * v1)


def _purple(v1: float, v2: float, v3: float) -> Rgb:
    level = 190 + int(65 * v1)
    return level, 80 + int(60 * v1), level


def _aqua(v1: float, v2: float, v3: float) -> Rgb:
    return 50 + int(60 * v1), 165 + int(55 * v1), 165 + int(55 * v1)


def _orange(v1: float, v2: float, v3: float) -> Rgb:
    return 190 + int(65 * v1), 90 + int(65 * v1), 0


BASE: dict[str, Callable[[float, float, float], Rgb]] = {
    "hot": _hot,
    "mem": _mem,
    "io": _io,
    "red": _red,
    "green": _green,
    "blue": _blue,
    "yellow": _yellow,
    "purple": _purple,
    "aqua": _aqua,
    "orange": _orange,
}


# -- multi palettes: pick a base palette from what the name looks like ---------------------
_JAVA_PACKAGE = re.compile(r"L?(java|javax|jdk|net|org|com|io|sun)/")
_JS_SOURCE = re.compile(r"/.*\.js")


def _java(name: str) -> str:
    if name.endswith("_[j]"):
        return "green"
    if name.endswith("_[i]"):
        return "aqua"
    if _JAVA_PACKAGE.match(name) or ":::" in name:
        return "green"
    if "::" in name:
        return "yellow"
    return "orange" if name.endswith("_[k]") else "red"


def _js(name: str) -> str:
    if name.endswith("_[j]"):
        return "green" if "/" in name else "aqua"
    if "::" in name:
        return "yellow"
    if _JS_SOURCE.search(name):
        return "green"
    if ":" in name:
        return "aqua"
    if name == " ":
        return "green"
    return "orange" if "_[k]" in name else "red"


def _perl(name: str) -> str:
    if "::" in name:
        return "yellow"
    if "Perl" in name or ".pl" in name:
        return "green"
    return "orange" if name.endswith("_[k]") else "red"


def _python(name: str) -> str:
    """Ours: Python code green, the standard library aqua (frozen modules too: importlib's
    bootstrap is stdlib code, not native), kernel orange, native code red."""
    if "<stdlib>" in name or "/lib/python" in name or "<frozen " in name:
        return "aqua"
    if ".py" in name or name.startswith("<"):
        return "green"
    return "orange" if name.endswith("_[k]") else "red"


def _chain(name: str) -> str:
    return "aqua" if "_[w]" in name else "blue"


CHOOSERS: dict[str, Callable[[str], str]] = {
    "java": _java,
    "js": _js,
    "perl": _perl,
    "python": _python,
    "chain": _chain,
    "wakeup": lambda name: "aqua",
}


#: What the colour families of a palette that picks them by name mean, for a page's key, in the
#: order a reader looks for them (the ``python`` palette: ours; the others are flamegraph.pl's).
KEYS: dict[str, tuple[tuple[str, str], ...]] = {
    "python": (("your code", "green"), ("standard library", "aqua"), ("native code", "red"), ("kernel", "orange")),
    "java": (("Java (and JIT)", "green"), ("inlined", "aqua"), ("C++", "yellow"), ("native code", "red"), ("kernel", "orange")),
    "js": (("JavaScript", "green"), ("built-ins", "aqua"), ("C++", "yellow"), ("native code", "red"), ("kernel", "orange")),
    "perl": (("Perl", "green"), ("C++", "yellow"), ("native code", "red"), ("kernel", "orange")),
    "chain": (("waker", "aqua"), ("off-CPU stack", "blue")),
}


def key(palette: str) -> dict[str, object]:
    """A page's colour key: each family's meaning and a colour of it (``items``), or, for a
    palette whose colours only tell names apart, a note that says so."""
    families = KEYS.get(palette)
    if families is not None:
        return {
            "items": [[meaning, "rgb({},{},{})".format(*BASE[family](0.5, 0.5, 0.5))] for meaning, family in families],
            "note": "Colour: what kind of code a frame is; width: its share of the total.",
        }
    return {
        "items": [],
        "note": f"Colour tells frames apart by name ({palette} palette): it does not measure anything; "
        "width is a frame's share of the total.",
    }


class Colourer:
    """The colour of each frame name under one set of options (cached: names repeat).

    ``palette``: a name -> colour map to keep colours the same across graphs (flamegraph.pl's
    palette.map): its colours are used, and every colour given to a name it lacks is added
    to it, for the caller to save (:func:`write_palette`). The colourer never reads or
    writes a file.
    """

    def __init__(self, options: SvgOptions, palette: dict[str, str] | None = None) -> None:
        self.options = options
        self._cache: dict[str, str] = dict(SEPARATOR_COLOURS)
        self._keep = palette is not None
        self._fixed: dict[str, str] = palette if palette is not None else {}
        self._rng: random.Random | None = None
        if options.random:
            import random

            self._rng = random.Random(options.seed)

    def __call__(self, name: str) -> str:
        colour = self._cache.get(name)
        if colour is None:
            colour = self._fixed.get(name) or self._compute(name)
            if self._rng is None or self._keep:
                self._cache[name] = colour
            if self._keep:
                self._fixed[name] = colour
        return colour

    def many(self, names: Iterable[str]) -> list[str]:
        """The colour of each of ``names``, in order (the cache is read inline: names repeat)."""
        if self._rng is not None:  # random colours are drawn in order
            get = self._cache.get
            return [get(name) or self(name) for name in names]
        names = names if isinstance(names, list) else list(names)
        cache = self._cache
        for name in set(names).difference(cache):
            self(name)
        return list(map(cache.__getitem__, names))

    def _compute(self, name: str) -> str:
        options = self.options
        if self._rng is not None:
            v1, v2, v3 = self._rng.random(), self._rng.random(), self._rng.random()
        elif options.hash:
            v1 = name_hash(name)
            v2 = v3 = name_hash(name[::-1])
        else:
            v1 = v2 = v3 = stable_hash(name)
        palette = options.colors
        chooser = CHOOSERS.get(palette)
        if chooser is not None:
            palette = chooser(name)
        r, g, b = BASE[palette](v1, v2, v3)
        return f"rgb({r},{g},{b})"


#: The steps of :func:`diff_colour` on each side of white (the other channels from 210 down to 0).
DIFF_STEPS = 210


def diff_colour(delta: float, largest: float, negate: bool = False) -> str:
    """White for no change, red for growth, blue for shrinkage, saturated at ``largest``."""
    if negate:
        delta = -delta
    if delta > 0:
        level = int(DIFF_STEPS * (largest - delta) / largest)
        return f"rgb(255,{level},{level})"
    if delta < 0:
        level = int(DIFF_STEPS * (largest + delta) / largest)
        return f"rgb({level},{level},255)"
    return "rgb(255,255,255)"


def diff_ramp(negate: bool = False) -> list[str]:
    """Every colour :func:`diff_colour` gives, from full blue (−largest) through white to full red:
    entry ``DIFF_STEPS + d`` is the colour of a change of ``d / DIFF_STEPS`` of ``largest``, so a
    page script picks colours from it by the same arithmetic, without a copy of this module."""
    return [diff_colour(d, DIFF_STEPS, negate) for d in range(-DIFF_STEPS, DIFF_STEPS + 1)]


def diff_stops(negate: bool = False) -> list[tuple[float, str]]:
    """The colour bar of :func:`diff_colour` from −largest (offset 0) to +largest (offset 1),
    as gradient stops: linear on each side, white only at no change (a hard edge at 0.5)."""
    low, high = diff_colour(-1, 1, negate), diff_colour(1, 1, negate)
    near_low, near_high = diff_colour(-1e-9, 1, negate), diff_colour(1e-9, 1, negate)
    white = diff_colour(0, 1)
    return [(0.0, low), (0.5, near_low), (0.5, white), (0.5, near_high), (1.0, high)]


_RGB = re.compile(r"rgb\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)$")
_HEX = re.compile(r"#([0-9A-Fa-f]{2})([0-9A-Fa-f]{2})([0-9A-Fa-f]{2})$")
#: The colour of a label on a dark frame (black, the stylesheet's, on every other).
LIGHT_INK = "rgb(255,255,255)"


def relative_luminance(colour: str) -> float | None:
    """WCAG 2's relative luminance (0 black .. 1 white) of ``rgb(r,g,b)`` or ``#rrggbb``; None for other colours."""
    match = _RGB.match(colour) or _HEX.match(colour)
    if match is None:
        return None
    base = 10 if colour.startswith("rgb") else 16
    channels = []
    for text in match.groups():
        c = min(int(text, base), 255) / 255
        channels.append(c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4)
    r, g, b = channels
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(first: float, second: float) -> float:
    """WCAG 2's contrast ratio of two relative luminances (1 .. 21)."""
    light, dark = max(first, second), min(first, second)
    return (light + 0.05) / (dark + 0.05)


def needs_light_ink(colour: str) -> bool:
    """Whether white text reads better than black on ``colour``: WCAG's rule, the ink of higher
    contrast ratio wins (on pure blue white gives 8.6:1, black 2.4:1; on pure red black wins)."""
    luminance = relative_luminance(colour)
    if luminance is None:
        return False
    return contrast_ratio(luminance, 1.0) > contrast_ratio(luminance, 0.0)


def read_palette(path: str) -> dict[str, str]:
    """A ``name->rgb(r,g,b)`` file as flamegraph.pl's palette.map; missing file: empty.

    For the program's edge (the CLI's ``--cp``): pass the map to ``svg(..., palette=)``,
    then save it with :func:`write_palette`.
    """
    import os

    if not os.path.exists(path):
        return {}
    from ..errors import InputError

    table: dict[str, str] = {}
    with open(path, encoding="utf-8", errors="surrogateescape") as stream:
        for lineno, line in enumerate(stream, 1):
            line = line.rstrip("\r\n")
            if not line:
                continue
            name, arrow, colour = line.rpartition("->")
            if not arrow or not re.match(r"rgb\(\d{1,3},\d{1,3},\d{1,3}\)$", colour):
                raise InputError("expected 'name->rgb(r,g,b)'", path, lineno)
            table[name] = colour
    return table


def write_palette(path: str, table: dict[str, str]) -> None:
    """Save a palette map as flamegraph.pl's palette.map: one ``name->rgb(r,g,b)`` line per name, sorted.

    A file read back next time (not an output stream: '-' is a file name here).
    """
    from ..formats._io import open_output

    with open_output(os.path.join(".", path) if path == "-" else path) as out:
        out.writelines(f"{name}->{colour}\n" for name, colour in sorted(table.items()) if "\n" not in name)
