"""Workflows: what composes the profilers, the statistics, the renderers and the store into one
answer, so that each command of the CLI is one call: samples of runs read, screened and
compared (:mod:`.samples`, :mod:`.stored`), and the gate (:mod:`.gate`: worktrees, environments,
interleaved runs, the comparison and its reports). Layer 4: above collect, render and store,
below the CLI (docs/architecture.md)."""
