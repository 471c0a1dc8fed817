"""Workflows: what composes the profilers, the statistics, the renderers and the store into one
answer, so that each command of the CLI is one call: samples of runs read, screened and
compared (:mod:`.samples`, :mod:`.stored`), and the gate (:mod:`.gate`: worktrees, environments,
interleaved runs, the comparison and its reports). Layer 4: above collect, render and store,
below the CLI (docs/architecture.md)."""

#: The gate's defaults (:func:`.gate.gate`), here so that ``flamespace gate --help`` shows them
#: without importing the gate (its records cost milliseconds of start-up).
#: Where the reports go unless the caller says otherwise.
GATE_OUT_DIR = "flamespace-gate"
#: Runs of each side before the kept ones, not written (fresh trees compile their .pyc files).
GATE_WARMUP = 1
