"""dump --locals: each frame's local variables, read from outside, on every CPython here."""

from __future__ import annotations

import json
import re
import time

import pytest

from flamespace.collect.remote.objects import VALUE_WIDTH

from .targets import LOCALS, PYTHONS, Target, flamespace, python


@pytest.mark.parametrize("name", list(PYTHONS))
def test_dump_locals_shows_each_variables_value_or_type(name, tmp_path):
    """(Failed before: dump had no --locals.)"""
    with Target(python(name), LOCALS, tmp_path) as target:
        done = flamespace("dump", "--pid", str(target.pid), "--locals", "--json")
    assert done.returncode == 0, done.stderr
    (thread,) = json.loads(done.stdout)["threads"]
    assert thread["locals_problem"] is None
    assert len(thread["locals"]) == len(thread["frames"])
    assert thread["frames"][0].startswith("inner (target_program.py:")
    inner, module = thread["locals"]
    assert module == {}  # a module's names are globals
    shown = dict(inner)
    assert re.fullmatch(r"<Thing at 0x[0-9a-f]+>", shown.pop("thing"))
    assert re.fullmatch(r"<list at 0x[0-9a-f]+>", shown.pop("items"))
    assert re.fullmatch(r"<function at 0x[0-9a-f]+>", shown.pop("closure"))
    assert re.fullmatch(r"<type at 0x[0-9a-f]+>", shown.pop("kind"))  # a class: its type is type
    assert re.fullmatch(r"<Color at 0x[0-9a-f]+>", shown.pop("color"))  # its type's type is a metaclass
    long_text = shown.pop("long_text")
    assert len(long_text) == VALUE_WIDTH and long_text == "'" + "x" * (VALUE_WIDTH - 4) + "..."
    assert shown == {
        "count": "42",
        "ratio": "2.5",
        "label": "'héllo ✓'",
        "flag": "True",
        "nothing": "None",
        "blob": "b'\\x00ab'",
        "big": str(-(2**100)),
        "shared": "'captured'",  # a cell (the closure shares it): its content
    }  # and not 'later', which is not assigned yet


def test_dump_locals_prints_them_under_their_frame(tmp_path):
    with Target(python("3.11"), LOCALS, tmp_path) as target:
        done = flamespace("dump", "--pid", str(target.pid), "--locals")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    (inner,) = [index for index, line in enumerate(lines) if line.startswith("    inner (target_program.py:")]
    assert lines[inner + 1 : inner + 4] == ["        count = 42", "        ratio = 2.5", "        label = 'héllo ✓'"]
    assert lines[-1] == "    <module> (target_program.py:21)"


@pytest.mark.parametrize("name", list(PYTHONS))
def test_the_python_walk_finds_the_frames_the_c_walker_finds(name, tmp_path):
    """dump --locals walks frames in Python (it needs their addresses): the same frames, the same way it ends."""
    from flamespace.collect.remote.frame_locals import walk_frames
    from flamespace.collect.remote.process import attach

    with Target(python(name), LOCALS, tmp_path) as target:
        process = attach(target.pid)
        for _attempt in range(1000):  # until it sleeps (it may be between its print and its sleep): a stable stack
            ((_address, state),) = process.thread_states()
            frame = process.current_frame(state)
            in_c = process.walk(frame, 100)
            in_python = walk_frames(process, frame, 100)
            if process.walk(frame, 100) == in_c:
                break
            time.sleep(0.01)
        cut = walk_frames(process, frame, 1)
    assert [(code, instruction) for _frame, code, instruction in in_python[0]] == [walked[:2] for walked in in_c[0]]
    assert in_python[1:] == in_c[1:] == (0, 0) and len(in_c[0]) == 2
    assert len(cut[0]) == 1 and cut[1] == 3  # too deep


def test_what_is_no_object_is_refused_not_described(tmp_path):
    """A stale pointer (a freed frame's slot) must not be described from whatever its bytes are. Here a word
    before a code object's tuple of names, read as an object, has that tuple as its 'type': refused (a tuple is
    no type), not named by the bytes its 'tp_name' points to. (Failed before the type check: '<\\x..  at 0x...>'.)"""
    from flamespace.collect.remote.process import attach
    from flamespace.collect.remote.stacks import StackReader

    with Target(python("3.12"), LOCALS, tmp_path) as target:
        reader = StackReader(attach(target.pid), keep_frames=True)
        ((_frame, code), _module) = reader.threads()[0].frame_addresses
        objects = reader.objects
        names = code + objects.layout.code_local_names[0]
        assert objects.type_of(objects.word(names)) == objects.symbols["PyTuple_Type"]
        with pytest.raises(ValueError, match="no type at"):
            objects.describe(names - objects.layout.object_type)
        assert objects.describe(objects.symbols["_Py_NoneStruct"]) == "None"
