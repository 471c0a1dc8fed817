"""flamespace convert's options as data and its work, without click: ``flamespace convert`` with
arguments the small parser understands runs without importing click (start-up, as for svg;
the Perl collapsers it replaces start in about 10 ms). cli/convert.py builds the click
command from the same table; anything the small parser does not understand goes there.
"""

from __future__ import annotations

from ..formats import registry
from ._common import FOLDED_ENDINGS, INPUT_OPTIONS, expand_inputs, header_setting, report
from ._options import Option, given_reader_options, parse, reader_options
from ._report import warn

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Optional, Sequence, Tuple

    from .._types import Drawable

TO_HELP = "Output format (default: from the output's extension, else folded)."


def options(to_choices: "Tuple[str, ...]" = ()) -> "Tuple[Option, ...]":
    """convert's own options; ``--to`` is checked against ``to_choices`` when given (click's table:
    listing the writable formats imports every format, which the fast path does not need)."""
    return INPUT_OPTIONS + (
        Option(("--to",), "to", "choice" if to_choices else "str", help=TO_HELP, choices=to_choices),
        Option(("-o", "--output"), "output", "path", "-", help="Where to write the result.", show_default="stdout",
               allow_dash=True),
        Option(("--no-header",), "no_header", "flag",
               help="Do not write '# key: value' metadata lines (folded output as stackcollapse-*.pl prints it)."),
    )


def run_fast(args: "Sequence[str]") -> "Tuple[bool, object]":
    """(True, exit code) if the small parser understood ``args`` and the conversion ran; else (False, None)."""
    own = options()
    parsed = parse(own, args)
    if parsed is None:
        flags = {flag for option in own for flag in option.flags}
        if not any(a.startswith("--") and a != "--" and a.split("=")[0] not in flags for a in args):
            return False, None  # --help, a bad value, ...: click says what is wrong
        parsed = parse(own + reader_options(registry.names()), args)  # a reader option: import every format
        if parsed is None:
            return False, None
    values, files = parsed
    to = values.pop("to")
    if to is not None and (to not in registry.names() or not registry.writes(registry.by_name(str(to)))):
        return False, None
    from ..formats import check_output

    check_output(str(values["output"]))
    convert(files, to=to, **values)  # type: ignore[arg-type]
    return True, 0


def output_format(to: "Optional[str]", output: str) -> str:
    """--to, else the format whose ending the output's name has (refused if no format writes it), else folded."""
    from ._output_format import choose

    return choose(output, to, "convert", registry.writable_names, FOLDED_ENDINGS, option="--to")


def convert(inputs: "Sequence[str]", skip_invalid: bool, input_format: "Optional[str]", to: "Optional[str]",
            output: str, no_header: bool, **values: object) -> None:
    """What ``flamespace convert`` does: read every input (reader options by their ``read_`` names),
    merge several, write in the output format."""
    from ..diagnostics import Diagnostics

    reader = given_reader_options(dict(values))
    files = expand_inputs(inputs)
    target = output_format(to, output)
    profiles = []
    # Several inputs share their stacks' tuples through the cache; it keeps every stack's text
    # too (the size of a folded file), so one input is read without it and it goes before writing.
    stack_cache: "Optional[dict]" = {} if len(files) > 1 else None
    for path in files:
        diagnostics = Diagnostics()
        profiles.append(registry.read(path, input_format, skip_invalid=skip_invalid, diagnostics=diagnostics,
                                      stack_cache=stack_cache, options=reader))
        report(diagnostics)
    stack_cache = None
    if len(profiles) > 1:
        from ..core.algebra import sum_graphs

        profile: Drawable = sum_graphs(_graphs(profiles, files))
        warn(f"flamespace: merged {len(profiles)} inputs into one profile (the sum of their stacks)")
        profiles.clear()  # the inputs go before the sum is written
    else:
        profile = profiles[0]
    registry.write(profile, output, target, **header_setting(target, no_header))


def _graphs(profiles: list, files: "Sequence[str]") -> list:
    """The profiles as flame graphs (a chart summed over time), refusing differential inputs (which a sum cannot hold)."""
    from ..core.chart import FlameChart
    from ..core.differential import Differential
    from ..errors import InputError

    for profile, path in zip(profiles, files):
        if isinstance(profile, Differential):
            raise InputError("is differential input (two counts per line); convert merges only plain profiles", path)
    return [profile.graph() if isinstance(profile, FlameChart) else profile for profile in profiles]
