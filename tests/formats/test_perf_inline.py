"""perf's --inline and --context: addr2line and nm as stackcollapse-perf.pl runs them, here stand-ins
on PATH (the real tools need the recorded binaries; checked by hand against the Perl script with a
real binary, README "perf"). The expected stacks are what the Perl script printed with these same
stand-ins."""

from __future__ import annotations

import io
import stat
import sys

import pytest

from flamespace.formats import folded, perf

ADDR2LINE = """
import sys
address = sys.argv[sys.argv.index("-a") + 1]
answers = {
    "1189": "inner\\nfile.c:2\\nmiddle\\nfile.c:3 (discriminator 1)\\nouter\\nfile.c:4\\n",
    "0x101f": "outer\\nfile.c:9\\n",
}
sys.stdout.write(address + "\\n" + answers.get(address, "??\\n??:0\\n"))
"""
NM = 'print("0000000000001000 T outer")\n'

SAMPLES = """app 1 1.0: 5 cycles:
\t1189 outer+0x9 (/opt/app)
\t2000 outer+0x1f (/opt/app)
\t3000 [unknown] (/opt/app)
\tffffffff8103ce3b native_safe_halt ([kernel.kallsyms])

"""


@pytest.fixture
def tools(tmp_path, monkeypatch):
    for name, body in (("addr2line", ADDR2LINE), ("nm", NM)):
        script = tmp_path / name
        script.write_text(f"#!{sys.executable}\n{body}")
        script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{tmp_path}:/usr/bin:/bin")


def collapse(**options: bool) -> str:
    graph = perf.parse(io.StringIO(SAMPLES), perf.ReadOptions(**options))
    return folded.dumps(graph, folded.WriteOptions(header=False))


def test_inline_asks_addr2line_and_falls_back_to_nm_then_to_the_symbol(tools):
    assert collapse(inline=True) == "app;native_safe_halt;[app];outer;outer;middle;inner 5\n"


def test_context_adds_file_and_line(tools):
    assert collapse(inline=True, context=True) == (
        "app;native_safe_halt;[app];outer:file.c:9;outer:file.c:4;middle:file.c:3;inner:file.c:2 5\n"
    )


def test_without_addr2line_the_symbols_are_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no tools at all
    assert collapse(inline=True) == collapse()
