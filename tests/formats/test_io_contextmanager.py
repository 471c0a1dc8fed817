"""formats._io's contextmanager (written out: contextlib costs start-up time) behaves as contextlib's."""

from __future__ import annotations

import contextlib

import pytest

from flamespace.formats import _io


def swallowing(log):
    try:
        log.append("enter")
        yield "value"
        log.append("after")
    except KeyError:
        log.append("swallowed")
    finally:
        log.append("finally")


def converting(log):
    try:
        yield 1
    except OSError as exc:
        raise ValueError(f"converted {exc}") from None
    finally:
        log.append("closed")


def plain(log):
    yield None
    log.append("done")


def no_yield(log):
    return
    yield  # pragma: no cover


def two_yields(log):
    yield 1
    yield 2


def outcome(make, generator, raised):
    """(what the with block saw, the exception that left it as type and text, the generator's log)."""
    log: list = []
    seen = None
    try:
        with make(generator)(log) as value:
            seen = value
            if raised is not None:
                raise raised
    except BaseException as exc:  # noqa: BLE001 - the point is to compare whatever leaves
        return seen, (type(exc), str(exc), type(exc.__cause__)), log
    return seen, None, log


@pytest.mark.parametrize("generator", [swallowing, converting, plain, no_yield, two_yields])
@pytest.mark.parametrize(
    "raised", [None, KeyError("k"), OSError("disk"), StopIteration(), RuntimeError("r"), KeyboardInterrupt()], ids=repr
)
def test_the_same_as_contextlib(generator, raised):
    ours = outcome(_io.contextmanager, generator, raised)
    theirs = outcome(contextlib.contextmanager, generator, raised)
    assert ours == theirs


def test_the_wrapper_keeps_the_functions_name_and_doc():
    assert _io.open_output.__name__ == "open_output" and "atomically" in (_io.open_output.__doc__ or "")
