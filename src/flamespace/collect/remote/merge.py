"""Putting a thread's Python frames where its native stack ran them (``--native``).

Each C frame of the evaluation loop (``_PyEval_EvalFrameDefault``) runs Python code, and is
replaced by the Python frames it was running:

- **3.9, 3.10**: one C call per Python frame (``PyEval_EvalFrameEx`` and ``_PyEval_EvalFrame``
  only lead to it), so each Python frame is a run of its own;
- **3.11**: a Python-to-Python call stays in the same C call, so one C frame runs a *run* of
  Python frames; the outermost frame of each run is the one the C call entered, marked
  ``is_entry`` in its ``_PyInterpreterFrame``;
- **3.12, 3.13**: each C call pushes a shim frame owned by the C stack
  (``FRAME_OWNED_BY_CSTACK``) before the frame it enters, so the frame just inside a shim ends a run.

:func:`python_runs` cuts the Python stack into those runs, :func:`merge` matches runs to the
evaluation-loop frames. They should be as many; when they are not, the difference is at the
innermost end (a C call entering or leaving the loop, caught before it linked or after it
unlinked its frame), so runs are matched from the outermost end, and a native stack that
could not be read to its end is matched from the innermost end and the Python frames it did not
reach are put above it, under :data:`NATIVE_CUT`. py-spy matches from the innermost end one Python
frame per C frame, which on 3.11+ misplaces every frame a C frame runs after the first (its
issues #673, #210, #770).

What is shown (``all_frames=False``, the default): Python frames, and below them the C frames
they led to: extensions, libraries, and the interpreter's own functions that do the work (a
sort, a dict lookup, ``time.sleep``). Hidden: the interpreter's call machinery, the C functions
of the Python executable or libpython whose name says *call* (``PyObject_Call``,
``_PyFunction_Vectorcall``, ``cfunction_vectorcall_O``, ...) or that belong to the evaluation
(``_PyEval_*``, ``PyEval_*``), and the frames of process and thread start-up above the outermost
Python frame (``_start``, ``main``, ``Py_RunMain``, ``start_thread``, ``clone3``).
``all_frames=True`` keeps every native frame but the evaluation loop's (which the Python frames
replace).
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from .native import NativeFrame

#: The root-side frame under which Python frames go that the native stack did not reach.
NATIVE_CUT = "[native stack cut]"
_MACHINERY = re.compile(r"call|^_?PyEval_", re.IGNORECASE)


def python_runs(frames: Sequence[tuple[str, bool]]) -> list[list[str]]:
    """Python frames ``(name, entry)``, innermost first, cut into runs (innermost first) that each end with
    an entry frame (the one a C call of the evaluation loop entered); a last run without one is kept."""
    runs: list[list[str]] = []
    run: list[str] = []
    for name, entry in frames:
        run.append(name)
        if entry:
            runs.append(run)
            run = []
    if run:
        runs.append(run)
    return runs


def hidden_by_default(frame: NativeFrame) -> bool:
    """The interpreter's call machinery (see the module's docstring)."""
    return frame.interpreter and _MACHINERY.search(frame.function) is not None


def merge(
    native: Sequence[NativeFrame],
    complete: bool,
    runs: Sequence[Sequence[str]],
    all_frames: bool = False,
    python_complete: bool = True,
) -> tuple[tuple[str, ...], int]:
    """The thread's stack root first from its ``native`` frames (innermost first; ``complete``: read to the
    outermost) and its Python ``runs`` (innermost first, from :func:`python_runs`; ``python_complete``: read to
    the outermost); and how many more runs there were than evaluation-loop frames (0 when they matched;
    negative: more C frames). Runs are matched from the outermost end only when both stacks reach it."""
    evals = [index for index, frame in enumerate(native) if frame.eval]
    surplus = len(runs) - len(evals)
    from_outer = python_complete and (complete or surplus <= 0)
    shift = surplus if from_outer else 0
    innermost_first: list[tuple[str, bool]] = []  # (name, is Python)
    seen = 0
    for frame in native:
        if frame.eval:
            index = seen + shift
            seen += 1
            if seen == 1 and shift > 0:  # runs no C frame was found for: inside the innermost one
                for run in runs[:shift]:
                    innermost_first.extend((name, True) for name in run)
            if 0 <= index < len(runs):
                innermost_first.extend((name, True) for name in runs[index])
            elif all_frames:
                innermost_first.append((frame.name, False))
            continue
        if all_frames or not hidden_by_default(frame):
            innermost_first.append((frame.name, False))
    if not evals and runs:  # no evaluation loop found at all (unnamed): Python frames above the native ones
        outer = [name for run in runs for name in run]
        innermost_first.extend((name, True) for name in outer)
    elif not from_outer and surplus > 0:
        reached = len(evals)
        innermost_first.append((NATIVE_CUT, False))
        for run in runs[reached:]:
            innermost_first.extend((name, True) for name in run)
    if runs and not all_frames:
        while innermost_first and not innermost_first[-1][1] and innermost_first[-1][0] != NATIVE_CUT:
            innermost_first.pop()  # start-up frames above the outermost Python frame
    return tuple(name for name, _python in reversed(innermost_first)), surplus


__all__ = ["NATIVE_CUT", "hidden_by_default", "merge", "python_runs"]
