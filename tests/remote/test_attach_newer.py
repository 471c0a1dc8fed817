"""record --pid and dump --pid on CPython 3.14 and 3.15, read by their own ``_Py_DebugOffsets`` (a
struct that grows with each minor version) and their tagged frame references. These Pythons are not
in pyenv here nor in any registry CI reaches: the tests run where one is installed
(tests/remote/targets.py's NEWER_PYTHONS) and skip, with the reason, elsewhere (CI allows it)."""

from __future__ import annotations

import json
import time

import pytest

from flamespace.collect.remote import layouts
from flamespace.collect.remote import process as process_module
from flamespace.collect.remote.process import UnsupportedPython, attach

from ..collect.recorder_error import boundary_error_ns
from .targets import FOREVER, NEWER_PYTHONS, WORKER_SPINS, Target, flamespace, python
from .test_attach import record_phases, time_in

NEWER = list(NEWER_PYTHONS)


@pytest.mark.parametrize("name", NEWER)
def test_record_pid_gives_each_phase_its_own_clocks_time_on_newer_pythons(name, tmp_path):
    """The known-answer program of test_attach.py, on 3.14/3.15. (Failed before: refused as 'laid out differently'.)"""
    graph, truth = record_phases(python(name), tmp_path)
    bound = boundary_error_ns(graph, 2)
    for function, seconds in (("spin_a", truth["a"]), ("spin_b", truth["b"])):
        assert abs(time_in(graph, function) - seconds * 1e9) <= bound, (function, time_in(graph, function), seconds, bound)
    assert time_in(graph, "sleeper") >= (truth["a"] + truth["b"]) * 1e9 - bound
    assert graph.metadata.labels["target_python"].startswith(name + ".")
    assert "partial_stacks" not in graph.metadata.labels


@pytest.mark.parametrize("name", NEWER)
def test_dump_names_each_threads_function_and_the_gil_holder_on_newer_pythons(name, tmp_path):
    """Frames whose code reference carries 3.14's tag bits are named, the interpreter's entry frames are
    skipped (no '[partial stack]'), and the GIL's holder is read from the interpreter's offsets."""
    with Target(python(name), WORKER_SPINS, tmp_path) as target:
        time.sleep(0.2)  # the worker is in its loop
        done = flamespace("dump", "--pid", str(target.pid), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["python"].startswith(name + ".")
    threads = {thread["frames"][0].split(" (")[0]: thread for thread in report["threads"]}
    assert threads["worker_spin"]["holds_gil"] is True and threads["<module>"]["holds_gil"] is False
    assert threads["<module>"]["frames"] == ["<module> (target_program.py:10)"]  # time.sleep(3600)
    assert threads["worker_spin"]["frames"][-1].startswith("Thread._bootstrap (<stdlib>/threading.py:")
    assert all(thread["partial"] is None for thread in report["threads"])


@pytest.mark.parametrize("name", NEWER)
def test_debug_offsets_read_one_field_off_are_refused(name, tmp_path):
    """The offsets must describe structures that hold them: the table read 8 bytes off (a struct that grew
    where this reader did not expect) fails the check instead of being followed."""
    with Target(python(name), FOREVER, tmp_path) as target:
        process = attach(target.pid)
        head = process.read(process.runtime, layouts.DEBUG_OFFSETS_SIZE + 8)
    offsets = layouts.debug_offsets(head)
    assert offsets is not None and layouts.offsets_problem(offsets) is None
    shifted = head[:16] + head[24:]  # version kept, every field after it one place early
    problem = layouts.offsets_problem(layouts.debug_offsets(shifted) or {})
    assert problem is not None and "outside its structure" in problem


def test_a_newer_minor_version_than_known_is_refused_with_its_version(tmp_path, monkeypatch):
    """A Python whose debug offsets this reader has no list for (here 3.15 with its list removed, as 3.16
    will be) is refused with the version and what is read, never read with another version's list."""
    interpreter = python("3.15")
    monkeypatch.delitem(layouts.DEBUG_FIELDS, 15)
    with Target(interpreter, FOREVER, tmp_path) as target:
        with pytest.raises(UnsupportedPython) as caught:
            process_module.attach(target.pid)
    message = str(caught.value)
    assert f"process {target.pid} (python3.15) runs Python 3.15." in message
    assert "debug offsets of 3.13 to 3.15 only" in message


def test_a_free_threaded_python_is_refused_with_its_version(tmp_path, monkeypatch):
    """A free-threaded build (PEP 703: its debug offsets say so) is refused in one line, never read with
    the layout of a build with the GIL. No free-threaded CPython can be installed here, so pyenv's 3.13
    (whose flag reads 0) stands for one with the flag set."""
    real = layouts.debug_offsets

    def free_threaded(head: bytes):
        offsets = real(head)
        assert offsets is not None and offsets["free_threaded"] == 0  # the flag is where the reader looks
        return {**offsets, "free_threaded": 1}

    monkeypatch.setattr(process_module, "debug_offsets", free_threaded)
    with Target(python("3.13"), FOREVER, tmp_path) as target:
        with pytest.raises(UnsupportedPython) as caught:
            process_module.attach(target.pid)
    message = str(caught.value)
    assert f"process {target.pid} (python3.13) runs a free-threaded Python 3.13." in message
    assert "only builds with the GIL" in message
