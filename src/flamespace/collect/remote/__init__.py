"""Profiling a CPython process that is already running, from outside it (``record --pid``, ``dump --pid``,
``top --pid``).

Nothing runs inside the target: its memory is read with ``process_vm_readv`` (:mod:`._remote`,
a C extension), the layout of its structures taken from its own debug offsets (3.13+) or from a
table checked against it (3.9-3.12: :mod:`.layouts`). :func:`.process.attach` finds and checks a
process, :class:`.stacks.StackReader` reads its threads' stacks, :mod:`.recorder` samples them;
:mod:`.objects` reads Python objects (dicts, ints, strs, instances' attributes), with which
:mod:`.names` reads threading's thread names and :mod:`.frame_locals` a frame's local variables.
docs/attach.md is the user's guide.
"""
