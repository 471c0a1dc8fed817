"""formats/_conformance.py is where mypy checks every format module against formats/protocol.py;
these tests check that its list names every format, each by the protocol it meets at run time
(a writer as FormatWriter, a chart writer as ChartWriter), that neither module imports a format
at run time, and the registry's writer look-ups."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from flamespace.errors import ArgumentError
from flamespace.formats import _conformance, registry


def checked() -> dict[str, str]:
    """Module name -> protocol name, from _conformance.py's ``_name: Protocol[...] = module`` lines."""
    found: dict[str, str] = {}
    for node in ast.walk(ast.parse(Path(_conformance.__file__).read_text())):
        if isinstance(node, ast.AnnAssign) and isinstance(node.value, ast.Name):
            annotation = node.annotation
            assert isinstance(annotation, ast.Subscript) and isinstance(annotation.value, ast.Name), ast.dump(node)
            found[node.value.id] = annotation.value.id
    return found


def test_every_format_is_checked_against_the_protocol_it_meets() -> None:
    expected = {}
    for fmt in registry.formats():
        writes, charts = registry.writes(fmt), bool(getattr(fmt, "charts", False))
        expected[fmt.name.replace("-", "_")] = (
            "ChartWriter" if writes and charts else "FormatWriter" if writes else "FormatModule"
        )
    assert checked() == expected


def test_protocols_and_their_checks_import_no_format_at_run_time() -> None:
    code = (
        "import sys, flamespace.formats\n"
        "def public(): return {m for m in sys.modules if m.startswith('flamespace.formats.') and not m.split('.')[-1].startswith('_')}\n"
        "before = public()\n"
        "import flamespace.formats.protocol, flamespace.formats._conformance\n"
        "print(' '.join(sorted(public() - before)))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    # beside what the package itself imports, the two modules add no format
    assert result.stdout.split() == ["flamespace.formats.protocol"]


def test_writer_refuses_a_read_only_format_naming_the_writable_ones() -> None:
    assert registry.writer("pprof").name == "pprof"
    for call in (registry.writer, registry.write_options):
        with pytest.raises(ArgumentError, match="cannot write the gdb format; writable formats: .*folded"):
            call("gdb")


def test_read_only_formats_without_options_of_their_own_share_one_record() -> None:
    from flamespace.formats import _options, bpftrace, gecko

    assert bpftrace.ReadOptions is gecko.ReadOptions is _options.ReadOptions
    assert registry.read_options(bpftrace) == registry.read_options(gecko) == []
    assert bpftrace.ReadOptions(skip_invalid=True).skip_invalid
