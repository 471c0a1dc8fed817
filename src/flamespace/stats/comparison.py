"""Compare two samples of flame graphs: which stacks changed, by how much, how sure we are."""

from __future__ import annotations

import math
from dataclasses import dataclass

from .._record import Record, factory, record
from typing import TYPE_CHECKING, Any, Callable
from collections.abc import Iterable, Sequence

from ..core.algebra import Decomposition, decompose
from ..core.differential import Differential
from ..core.metadata import Metadata
from ..core.vector import Delta, FlameGraph
from ..errors import ArgumentError, UnitMismatchError
from . import methods
from ._result import ALTERNATIVES as ALTERNATIVES  # the CLI reads it from here
from ._result import check_alternative
from .moderation import DEFAULT_STATISTIC, check_statistic
from .matrix import FrequencyFilter, Sample, TextStacks, align

if TYPE_CHECKING:
    import numpy as np

    from .._types import Number, Runs, Stack
    from ._result import TestResult

from .methods import DEFAULT_METHOD as DEFAULT_METHOD, METHODS as METHODS  # the CLI reads them from here

#: compare's question: what changed, in either direction? Two-sided, so that the family-wise
#: error bounds every false report, regression or improvement (docs/statistics.md, "both directions").
DEFAULT_ALTERNATIVE = "two-sided"
#: The gate's question: did anything regress (candidate > baseline)? One-sided: all of α for it.
GATE_ALTERNATIVE = "greater"
#: Relabellings: 2000 enumerates every split of up to 6 + 6 runs (924) and costs ~0.15 s at 100 runs × 10,000 stacks.
DEFAULT_PERMUTATIONS = 2000
KINDS = ("appeared", "grown", "disappeared", "shrunk")
#: --fdr's choices: "off" (the family-wise error) or a false-discovery-rate correction.
FDR_CHOICES = ("off", "bh", "by")
_INFINITY = float("inf")


@record
class Margin(Record):
    """Practical significance: ignore changes smaller than ``min_delta`` (absolute, in the unit)
    or than ``min_rel`` times the stack's baseline mean (a stack that appeared passes ``min_rel``)."""

    min_delta: float = 0.0
    min_rel: float = 0.0

    def __post_init__(self) -> None:
        if not (0 <= self.min_delta < _INFINITY and 0 <= self.min_rel < _INFINITY):  # nan and inf: no change would pass
            raise ArgumentError(
                f"the margins --min-delta and --min-rel must be ≥ 0 and finite, not {self.min_delta!r} and {self.min_rel!r}"
            )

    def passes(self, delta: float, baseline: float) -> bool:
        size = abs(delta)
        return size > 0 and size >= self.min_delta and size >= self.min_rel * abs(baseline)


@record
class CompareOptions(Record):
    """How :func:`compare` tests, each default and check written once (``flamespace compare``,
    ``gate`` (:data:`GATE_DEFAULTS`) and ``plan`` take their option defaults from here).

    ``method``: :data:`METHODS` (maxt: exact permutation test with ``permutations``
    relabellings and ``seed``; welch: per-stack t-tests; hotelling: Tornetta's T²).
    ``alpha``: the error rate controlled. ``alternative``: two-sided (the default: regressions
    and improvements, one error rate over both), greater (regressions only: the gate's) or
    less. ``fdr``: "off" (the family-wise error), "bh" or "by" (false-discovery rate; None
    means "off"). ``min_delta``, ``min_rel``: the :class:`Margin`. ``normalize``: compare
    shares of each run's total. ``normalize_load``: divide each run by its load (:mod:`.load`:
    runs at different loads, where one stack's growth must not show in every other's share).
    ``frequency``: which rare stacks are left untested.
    ``paired`` (maxt only): run i of the baseline and of the candidate were recorded in the
    same round of an interleaved collection; relabellings only swap the runs of a pair, so
    drift of the machine between rounds cannot look like a change. ``statistic`` (maxt only):
    ``welch`` or ``moderated`` (each stack's variance shrunk toward a prior from all stacks,
    for few runs and many stacks; :mod:`.moderation`).
    """

    method: str = DEFAULT_METHOD
    alpha: float = 0.05
    alternative: str = DEFAULT_ALTERNATIVE
    fdr: str = "off"
    permutations: int = DEFAULT_PERMUTATIONS
    seed: int | None = 0
    min_delta: float = 0.0
    min_rel: float = 0.0
    normalize: bool = False
    normalize_load: bool = False
    frequency: FrequencyFilter = FrequencyFilter()
    paired: bool = False
    statistic: str = DEFAULT_STATISTIC

    def __post_init__(self) -> None:
        method = methods.info(self.method)
        check_alternative(self.alternative)
        if self.fdr is None:  # the library's word for "off"
            object.__setattr__(self, "fdr", "off")
        if self.fdr not in FDR_CHOICES:
            raise ArgumentError(f"unknown FDR correction {self.fdr!r}; choose one of {', '.join(FDR_CHOICES)}")
        if self.fdr != "off" and not method.fdr:
            raise ArgumentError(
                f"{method.name} controls the family-wise error only; --fdr applies to "
                f"{' and '.join(m.name for m in methods.REGISTRY.values() if m.fdr)}"
            )
        if not 0 < self.alpha < 1:
            raise ArgumentError(f"alpha must be between 0 and 1, not {self.alpha}")
        if not self.permutations >= 1:
            raise ArgumentError(f"permutations must be at least 1, not {self.permutations}")
        if self.seed is not None and self.seed < 0:  # numpy's generators take none below 0
            raise ArgumentError(f"the seed must be at least 0, not {self.seed}")
        check_statistic(self.statistic)
        if self.normalize and self.normalize_load:
            raise ArgumentError("--normalize and --normalize-load are two ways to take out each run's load: choose one")
        if self.statistic != DEFAULT_STATISTIC and not method.permutations:
            raise ArgumentError(f"the {self.statistic} statistic is a permutation test's: use method {_permuting()}")
        if self.paired and not method.permutations:
            raise ArgumentError(f"a paired test is a permutation test: use --method {_permuting()} (or --pairing off)")
        self.margin  # checks min_delta and min_rel

    @property
    def margin(self) -> Margin:
        return Margin(self.min_delta, self.min_rel)

    @property
    def fdr_method(self) -> str | None:
        """The FDR correction, None for the family-wise error."""
        return None if self.fdr == "off" else self.fdr


#: The defaults the CLI shows and uses.
COMPARE_DEFAULTS = CompareOptions()
#: gate's: compare's but one-sided (a regression fails CI; an improvement never does).
GATE_DEFAULTS = COMPARE_DEFAULTS.replace(alternative=GATE_ALTERNATIVE)


@dataclass(frozen=True)  # the one dataclass left: its stack is split lazily into its __dict__ (a record has slots)
class StackChange:
    """One tested stack. ``kind`` is appeared/grown/disappeared/shrunk when the change is
    significant and beyond the margin (it is then part of Δ_r), else None."""

    stack: Stack
    baseline: float
    candidate: float
    delta: float
    lower: float
    upper: float
    p: float
    p_adjusted: float
    significant: bool
    kind: str | None
    detectable: float | None = None
    """The smallest change in the tested direction (in the unit) this comparison would find with
    80% power at its α and multiplicity correction; inf when the design cannot reach α."""

    if not TYPE_CHECKING:  # (so that type checkers still catch misspelt attributes)

        def __getattr__(self, name: str) -> Any:
            """``stack`` of a change made by :meth:`_of_text`: split from its text when first asked for."""
            state = self.__dict__
            if name != "stack" or "_text" not in state:
                raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
            stack = state["stack"] = state["_split"](state["_text"])
            return stack

    def __getstate__(self) -> dict[str, Any]:
        """Copies and pickles hold the frames (the splitter may be a closure)."""
        return {name: getattr(self, name) for name in _CHANGE_FIELDS}

    @classmethod
    def _of_text(
        cls,
        text: str,
        split: Callable[[str], Stack],
        baseline: float,
        candidate: float,
        delta: float,
        lower: float,
        upper: float,
        p: float,
        p_adjusted: float,
        significant: bool,
        kind: str | None,
        detectable: float | None,
    ) -> StackChange:
        """A change whose stack is kept as its text and split by ``split`` only when asked for
        (most of a comparison's 10,000 stacks are never shown); also quicker than ``__init__``."""
        change = object.__new__(cls)
        change.__dict__.update(
            _text=text,
            _split=split,
            baseline=baseline,
            candidate=candidate,
            delta=delta,
            lower=lower,
            upper=upper,
            p=p,
            p_adjusted=p_adjusted,
            significant=significant,
            kind=kind,
            detectable=detectable,
        )
        return change

    @property
    def by_stack(self) -> _ByStack:
        """A sort key in the order of ``stack`` that splits a stack kept as text only on a tie."""
        return _ByStack(self)

    @property
    def relative(self) -> float | None:
        """Δ as a fraction of the baseline mean (None when the stack is new): Δ % / 100."""
        from ..core.units import relative

        return relative(self.delta, self.baseline)

    @property
    def regression(self) -> bool:
        return self.kind in ("appeared", "grown")


_CHANGE_FIELDS = (
    "stack",
    "baseline",
    "candidate",
    "delta",
    "lower",
    "upper",
    "p",
    "p_adjusted",
    "significant",
    "kind",
    "detectable",
)


class _ByStack:
    """Sorts as its change's stack; a key beside others (``(p, change.by_stack)``) that needs
    the frames only when the keys before it tie."""

    __slots__ = ("change",)

    def __init__(self, change: StackChange) -> None:
        self.change = change

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _ByStack) and (self.change is other.change or self.change.stack == other.change.stack)

    def __lt__(self, other: _ByStack) -> bool:
        return self.change.stack < other.change.stack

    __hash__ = None  # type: ignore[assignment]


@record
class Comparison(Record):
    """The result of :func:`compare`: per-stack changes, the global test, and Δ_r with its four parts."""

    method: str
    requested_method: str
    alpha: float
    n_baseline: int
    n_candidate: int
    unit: str | None
    normalized: bool
    frequency: FrequencyFilter
    dropped: int
    margin: Margin
    changes: tuple[StackChange, ...]
    statistic_name: str
    statistic: float
    p_value: float
    reduced: Delta
    parts: Decomposition
    options: dict[str, Any] = factory(dict)
    notes: tuple[str, ...] = ()
    alternative: str = DEFAULT_ALTERNATIVE
    control: str = "family-wise error"
    smallest_p: float = 0.0
    #: with ``normalize_load``: each side's runs' loads (:mod:`.load`), in the order of the runs given
    loads: tuple[tuple[float, ...], tuple[float, ...]] | None = None

    @property
    def tested(self) -> int:
        return len(self.changes)

    @property
    def kept(self) -> list[StackChange]:
        """The changes in Δ_r (significant and beyond the margin), largest |Δ| first."""
        return sorted((c for c in self.changes if c.kind), key=lambda c: (-abs(c.delta), c.by_stack))

    @property
    def regressions(self) -> list[StackChange]:
        """Stacks that significantly appeared or grew beyond the margin: what fails a CI gate."""
        return [c for c in self.kept if c.regression]

    @property
    def regressed(self) -> bool:
        return bool(self.regressions)

    def differential(self) -> Differential:
        """Δ_r as a before/after pair (the means of the stacks in Δ_r): differential flame-graph input."""
        return Differential(*_reduced_pair(self.changes, self.reduced.metadata))

    def _repr_html_(self) -> str | None:
        """In a notebook: the comparison page of both mean profiles (``compare --html``), in an iframe (core/display.py; the text output stays the repr)."""
        from ..core.display import html

        return html(self)


def _reduced_pair(changes: Iterable[StackChange], meta: Metadata) -> tuple[FlameGraph, FlameGraph]:
    kept = [c for c in changes if c.kind]
    before = FlameGraph._trusted({c.stack: c.baseline for c in kept if c.baseline}, meta)
    after = FlameGraph._trusted({c.stack: c.candidate for c in kept if c.candidate}, meta)
    return before, after


def _sample(runs: Runs, side: str) -> Sample:
    sample = runs if isinstance(runs, Sample) else Sample.from_graphs(runs)
    if sample.n < 2:
        raise ArgumentError(f"the {side} needs at least 2 runs to estimate the variation between runs; got {sample.n}")
    return sample


def compare(
    baseline: Runs,
    candidate: Runs,
    method: str | None = None,
    alpha: float | None = None,
    *,
    options: CompareOptions | None = None,
    **changes: Any,
) -> Comparison:
    """Test which stacks differ between the mean flame graphs of two samples of runs.

    How is a :class:`CompareOptions` (``options``, default ``CompareOptions()``), with any of
    its fields given as keywords instead (``method`` and ``alpha`` also by position):
    ``compare(a, b, "welch", alternative="greater")``.

    ``baseline`` and ``candidate`` are :class:`Sample` objects or iterables of flame graphs
    (one per run). ``alternative``: ``two-sided`` (the default: regressions and improvements,
    the four parts of Δ_r), ``greater`` (candidate > baseline: regressions only, the gate's
    question) or ``less``. Whatever the number of stacks and directions, the error
    controlled is the family-wise error (the chance of any false report, in either tested
    direction) unless ``fdr`` is ``bh`` or ``by`` (false-discovery rate). ``method``: ``maxt`` (the default: exact
    permutation test, ``permutations`` and ``seed``), ``welch`` (per-stack t-tests, Holm or
    BH/BY) or ``hotelling`` (Tornetta's T², closed testing; family-wise only).
    ``normalize`` compares shares of each run's total instead of absolute values. ``paired``
    (maxt only): run i of ``baseline`` and of ``candidate`` were recorded one after the other
    (a round of an interleaved collection), and relabellings only swap the runs of a pair, so
    drift of the machine between rounds cannot look like a change.
    """
    from . import power

    if method is not None:
        changes["method"] = method
    if alpha is not None:
        changes["alpha"] = alpha
    try:
        options = (options or COMPARE_DEFAULTS).replace(**changes)
    except TypeError as exc:  # an unknown keyword
        raise TypeError(f"compare() got an unexpected keyword argument: {exc}") from None
    method, alpha, alternative, permutations = options.method, options.alpha, options.alternative, options.permutations
    normalize, frequency, margin, paired = options.normalize, options.frequency, options.margin, options.paired
    first, second = _sample(baseline, "baseline"), _sample(candidate, "candidate")
    try:
        meta = first.metadata.combine(second.metadata)
    except UnitMismatchError:
        raise UnitMismatchError(f"the baseline is in {first.unit!r} but the candidate in {second.unit!r}") from None
    if normalize:
        first, second = first.normalized(), second.normalized()
        meta = meta.replace(unit="share")
    stacks, x1, x2, dropped = align(first, second, frequency)
    n1, n2 = len(x1), len(x2)
    if paired and n1 != n2:
        raise ArgumentError(f"a paired test needs as many baseline runs as candidate runs; got {n1} and {n2}")
    loads, load_note = _divided_by_load(x1, x2) if options.normalize_load else (None, None)
    if loads is not None:
        x1, x2 = x1 / loads[:n1, None], x2 / loads[n1:, None]
    result = methods.load(method).run(x1, x2, options)
    detectable = _detectable(result, x1, x2, paired, alpha)
    stack_changes = _changes(stacks, x1.mean(axis=0).tolist(), x2.mean(axis=0).tolist(), result, detectable, margin)
    parts = decompose(*_reduced_pair(stack_changes, meta))
    notes = list(result.notes) + ([load_note] if load_note else [])
    if result.smallest_p > alpha:
        needed = power.min_runs(alpha, alternative, paired=paired)
        notes.insert(
            0,
            f"with {n1} + {n2} runs{' (paired)' if paired else ''} no p-value can go below {result.smallest_p:.2g} > α = {alpha:g}, "
            f"so no stack can be significant; {needed} runs a side can reach α"
            + (f" (and --permutations ≥ {int(math.ceil(1 / alpha))})" if permutations + 1 < 1 / alpha else ""),
        )
    return Comparison(
        method=method,
        requested_method=method,
        alpha=alpha,
        n_baseline=n1,
        n_candidate=n2,
        unit=meta.unit,
        normalized=normalize,
        frequency=frequency,
        dropped=dropped,
        margin=margin,
        changes=tuple(stack_changes),
        statistic_name=result.statistic_name,
        statistic=result.global_statistic,
        p_value=result.global_p,
        reduced=parts.delta,
        parts=parts,
        options=_options(options, result.details),
        notes=tuple(notes),
        alternative=alternative,
        control=result.control,
        smallest_p=result.smallest_p,
        loads=None if loads is None else (tuple(loads[:n1].tolist()), tuple(loads[n1:].tolist())),
    )


def _divided_by_load(x1: np.ndarray, x2: np.ndarray) -> tuple[np.ndarray | None, str]:
    """Each run's load over both sides' tested stacks (:func:`.load.loads`; one function of all runs,
    so the permutation test stays exact), and the note the report gives either way."""
    import numpy as np

    from . import load

    runs = np.vstack([x1, x2])
    found = load.loads(runs)
    if found is None:
        return None, (
            f"not divided by load: fewer than {load.LOAD_STACKS} tested stacks are above 0 in most runs, "
            "too few to tell a run's load from a change"
        )
    return found, (
        f"each run divided by its load (the weighted median over {load.stacks_used(runs)} stacks of each one's value against its usual; "
        f"{float(found.min()):.2f}-{float(found.max()):.2f}): values are at the runs' typical load"
    )


def _detectable(result: TestResult, x1: np.ndarray, x2: np.ndarray, paired: bool, alpha: float) -> np.ndarray | None:
    """The change each stack's test would find with 80% power, with the noise of its own se and of the
    test's bar (:func:`.power.detectable`, :func:`.power.critical_noise`)."""
    from . import power

    inputs = detectable_inputs(result, x1, x2, paired, alpha)
    return None if inputs is None else power.detectable(**inputs)


def detectable_inputs(result: TestResult, x1: np.ndarray, x2: np.ndarray, paired: bool, alpha: float) -> dict[str, Any] | None:
    """What :func:`.power.detectable` takes for this comparison (per stack: the bar a changed stack must
    clear, se, df, shrunk kurtosis, the bar's noise; the runs behind the variance); None without a bar.
    benchmarks/sim_detectable_variants.py feeds the same inputs to other ways of solving for the figure."""
    from . import power

    if result.critical is None or result.se is None:
        return None
    df = power.degrees_of_freedom(x1, x2, paired)
    relabellings = int(result.details.get("relabellings", 0)) or power.relabellings(len(x1), len(x2), paired)
    if result.details.get("exact") and result.statistic_name == "max |t|" and len(x1) == len(x2):
        relabellings //= 2  # a labelling and its mirror give the same max |t|: N/2 distinct values
    critical = result.critical if result.changed_critical is None else result.changed_critical
    return {
        "critical": critical,
        "se": result.se,
        "df": df,
        "kurtosis": power.kurtosis_by_stack([x2 - x1] if paired else [x1, x2]),
        "runs": len(x1) if paired else len(x1) + len(x2),
        "noise": power.critical_noise(critical, relabellings, alpha, df),
    }


def _changes(
    stacks: Sequence[Stack],
    means1: list[float],
    means2: list[float],
    result: TestResult,
    detectable: np.ndarray | None,
    margin: Margin,
) -> list[StackChange]:
    """One :class:`StackChange` per tested stack; stacks kept as texts (:class:`TextStacks`)
    stay texts. Columns go through ``tolist`` (the same Python floats and bools as ``float()``
    and ``bool()`` of each element, made in one C call)."""
    columns = zip(
        means1,
        means2,
        result.lower.tolist(),
        result.upper.tolist(),
        result.p.tolist(),
        result.p_adjusted.tolist(),
        result.significant.tolist(),
        [None] * len(means1) if detectable is None else detectable.tolist(),
    )
    passes, out = margin.passes, []
    if isinstance(stacks, TextStacks):
        make, split, keys = StackChange._of_text, stacks.table.stack, stacks.texts
        for key, (m1, m2, lower, upper, p, p_adjusted, significant, least) in zip(keys, columns):
            significant = bool(significant)
            kind = _kind(m1, m2) if significant and passes(m2 - m1, m1) else None
            out.append(make(key, split, m1, m2, m2 - m1, lower, upper, p, p_adjusted, significant, kind, least))
        return out
    for stack, (m1, m2, lower, upper, p, p_adjusted, significant, least) in zip(stacks, columns):
        significant = bool(significant)
        kind = _kind(m1, m2) if significant and passes(m2 - m1, m1) else None
        out.append(StackChange(stack, m1, m2, m2 - m1, lower, upper, p, p_adjusted, significant, kind, least))
    return out


def _kind(baseline: Number, candidate: Number) -> str:
    if not baseline:
        return "appeared"
    if not candidate:
        return "disappeared"
    return "grown" if candidate > baseline else "shrunk"


def _options(options: CompareOptions, details: dict[str, Any]) -> dict[str, Any]:
    """The options the report shows: those the method takes, then what its test says of itself."""
    method = methods.info(options.method)
    shown: dict[str, Any] = {"fdr": options.fdr_method} if method.fdr else {}
    if method.permutations:
        shown.update(seed=options.seed, permutations=options.permutations)
    shown.update({k: (float(v) if not isinstance(v, (int, str)) else v) for k, v in details.items()})
    return shown


def _permuting() -> str:
    return " or ".join(m.name for m in methods.REGISTRY.values() if m.permutations)
