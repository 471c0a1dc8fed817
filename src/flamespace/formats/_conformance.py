"""Where mypy checks every format module against :mod:`.protocol`, with its own option records.

A module that lacks a member, or whose ``parse`` or ``dump`` takes other options or arguments,
fails here (one line a format: add yours; tests/formats/test_protocol.py checks that every
name in ``recognition.ORDER`` has its line, under the protocol it meets). Nothing imports this
module, and its body runs for type checkers only: the formats stay imported lazily. It is a
module of its own, outside the import cycle of the package, the registry and the protocols,
so that mypy knows the formats' inferred types (``extensions = ()``) when it checks them.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from . import (
        austin,
        bpftrace,
        chrome,
        cpuprofile,
        dtrace,
        elfutils,
        faulthandler,
        flamespace_json,
        folded,
        folded_diff,
        gdb,
        gecko,
        ghcprof,
        instruments,
        jstack,
        nytprof,
        perf,
        perf_sched,
        pmc,
        pprof,
        pstats,
        pyspy,
        sample,
        speedscope,
        stap,
        tachyon,
        tachyon_jsonl,
        vsprof,
        vtune,
        xctrace,
    )
    from .protocol import ChartWriter, FormatModule, FormatWriter

    _flamespace_json: ChartWriter[flamespace_json.ReadOptions, flamespace_json.WriteOptions] = flamespace_json
    _tachyon: FormatModule[tachyon.ReadOptions] = tachyon
    _tachyon_jsonl: FormatModule[tachyon_jsonl.ReadOptions] = tachyon_jsonl
    _speedscope: ChartWriter[speedscope.ReadOptions, speedscope.WriteOptions] = speedscope
    _gecko: ChartWriter[gecko.ReadOptions, gecko.WriteOptions] = gecko
    _chrome: ChartWriter[chrome.ReadOptions, chrome.WriteOptions] = chrome
    _cpuprofile: FormatModule[cpuprofile.ReadOptions] = cpuprofile
    _pprof: FormatWriter[pprof.ReadOptions, pprof.WriteOptions] = pprof
    _pstats: FormatModule[pstats.ReadOptions] = pstats
    _austin: FormatModule[austin.ReadOptions] = austin
    _perf_sched: FormatModule[perf_sched.ReadOptions] = perf_sched
    _perf: FormatModule[perf.ReadOptions] = perf
    _xctrace: FormatModule[xctrace.ReadOptions] = xctrace
    _vtune: FormatModule[vtune.ReadOptions] = vtune
    _vsprof: FormatModule[vsprof.ReadOptions] = vsprof
    _ghcprof: FormatModule[ghcprof.ReadOptions] = ghcprof
    _sample: FormatModule[sample.ReadOptions] = sample
    _instruments: FormatModule[instruments.ReadOptions] = instruments
    _jstack: FormatModule[jstack.ReadOptions] = jstack
    _faulthandler: FormatModule[faulthandler.ReadOptions] = faulthandler
    _gdb: FormatModule[gdb.ReadOptions] = gdb
    _elfutils: FormatModule[elfutils.ReadOptions] = elfutils
    _bpftrace: FormatModule[bpftrace.ReadOptions] = bpftrace
    _pmc: FormatModule[pmc.ReadOptions] = pmc
    _stap: FormatModule[stap.ReadOptions] = stap
    _dtrace: FormatModule[dtrace.ReadOptions] = dtrace
    _pyspy: FormatModule[pyspy.ReadOptions] = pyspy
    _nytprof: FormatModule[nytprof.ReadOptions] = nytprof
    _folded_diff: FormatWriter[folded_diff.ReadOptions, folded_diff.WriteOptions] = folded_diff
    _folded: FormatWriter[folded.ReadOptions, folded.WriteOptions] = folded
