"""How far a sampled time profile can be from the truth: the bound the timed tests use."""

from __future__ import annotations

import flamespace as fs

# The recorder's documented error (src/flamespace/collect/engine.py, docs/performance.md
# "Accuracy under CPU load"): each sample is weighted by the time since the previous one and
# the whole gap goes to the stack it sees, so a phase of one thread gains or loses at most
# one gap at each of its two ends; ``longest_gap_ms`` in the profile's headers says how long
# the longest gap was. On a busy machine gaps of 10-80 ms happen, so the tests take the bound
# from each run's own headers instead of fixing one: it cannot be exceeded by load, only by a
# recorder that puts time where it does not belong. SLACK_NS covers the header's rounding (0.1 ms)
# and a tick whose stack is read a switch interval (5 ms) after its time, should the sampler
# hand the GIL over between the two.
SLACK_NS = 6_000_000


def boundary_error_ns(graph: fs.FlameGraph, ends: int) -> float:
    """The most a phase with ``ends`` ends (2 per thread it runs in) can be off by."""
    return ends * float(graph.metadata.labels["longest_gap_ms"]) * 1e6 + SLACK_NS
