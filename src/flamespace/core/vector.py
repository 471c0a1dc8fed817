"""Flame graphs as vectors: finitely supported maps from stacks to numbers.

A :class:`FlameGraph` lives in the positive cone (every value > 0); a :class:`Delta` is any
signed vector, such as the difference of two flame graphs. Both are immutable. Stacks with
value zero are never stored, so the keys of a vector are exactly its support.
"""

from __future__ import annotations

import math
from numbers import Integral, Real
from _collections_abc import Mapping  # collections.abc without the import of collections (start-up: docs/performance.md)

from ..errors import ArgumentError
from .metadata import EMPTY, Metadata

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Dict, FrozenSet, Hashable, ItemsView, Iterable, Iterator, List, Mapping, Optional, Tuple, Type, TypeVar

    from .._types import Frame as Frame, Number as Number, Stack as Stack, Values as Values

    _Base = Mapping[Stack, Number]
    V = TypeVar("V", bound="StackVector")
    K = TypeVar("K", bound=Hashable)
else:
    # The public aliases without typing at run time (it costs the CLI ~10 ms of start-up).
    Frame = str
    Stack = tuple[str, ...]
    _Base = Mapping


def __getattr__(name: str) -> object:
    """``Number`` and ``Values`` for code that uses them at run time (they need typing)."""
    if name in ("Number", "Values"):
        from .. import _types

        value: object = getattr(_types, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: The largest magnitude a reader accepts for a count, weight or time: a sum of up to 10**8 such
#: values is still a finite float, and an int that large still converts to one. Comparing with it also
#: refuses NaN and the infinities (every comparison with NaN is false), and huge ints exactly.
MAX_VALUE = 1e300
#: The most digits an int below MAX_VALUE has (10**300 is below it: the float 1e300 is a little
#: above 10**300). Digit strings longer than this are out of range without converting them.
MAX_DIGITS = 301


def below_max(value: Number, stack: object) -> Number:
    """``value`` if it is below :data:`MAX_VALUE`; ArgumentError otherwise. Writers ask it: a sum
    can pass the limit each value kept, and no reader takes such a value back."""
    if not value < MAX_VALUE:
        raise ArgumentError(f"stack {stack!r:.80} has the value {value:.3g}, not below {MAX_VALUE:g}, which no reader takes back; "
                            "scale the profile down (flamespace scale) before writing it")
    return value


def _check_number(value: Any, stack: Stack) -> Number:
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"value of stack {stack!r} is {value!r}, not a number")
    number = value if isinstance(value, (int, float)) else float(value)
    if isinstance(number, float) and not math.isfinite(number):
        raise ArgumentError(f"value of stack {stack!r} is {value!r}, not a finite number")
    return number


def _scalar(value: object) -> Optional[Number]:
    """A real number (not a bool) as an int or float, as values are stored; None otherwise."""
    if isinstance(value, bool) or not isinstance(value, Real):
        return None
    if isinstance(value, (int, float)):
        return value
    return int(value) if isinstance(value, Integral) else float(value)


def scale_values(values: Mapping[K, Number], factor: Number, divide: bool = False) -> Dict[K, Number]:
    """Every value times ``factor`` (divided by it with ``divide``); nothing left when multiplying by 0.

    The arithmetic of ``vector * factor`` and ``vector / divisor``, also for values keyed by
    stack text (``formats.registry.read_texts``), so both give the same numbers.
    """
    if divide:
        return {key: value / factor for key, value in values.items()}
    if factor == 0:
        return {}
    return {key: value * factor for key, value in values.items()}


def _check_stack(stack: Any) -> Stack:
    if not isinstance(stack, tuple) or not all(isinstance(f, str) for f in stack):
        raise TypeError(f"a stack is a tuple of frame strings, root first; got {stack!r}")
    return stack


class StackVector(_Base):
    """Common part of :class:`FlameGraph` and :class:`Delta`: storage, metadata, algebra.

    Equality is equality of the vectors; metadata (unit, labels) is not compared.
    """

    __slots__ = ("_values", "_metadata")

    _values: Dict[Stack, Number]
    _metadata: Metadata

    def __init__(
        self,
        values: Values = (),
        *,
        unit: Optional[str] = None,
        metric: Optional[str] = None,
        labels: Optional[Mapping[str, str]] = None,
        metadata: Optional[Metadata] = None,
    ) -> None:
        pairs = values.items() if isinstance(values, Mapping) else values
        summed: Dict[Stack, Number] = {}
        for stack, value in pairs:
            stack = _check_stack(stack)
            summed[stack] = summed.get(stack, 0) + _check_number(value, stack)
        for stack, value in summed.items():
            if isinstance(value, float) and not math.isfinite(value):  # finite values whose sum overflows
                raise ArgumentError(f"the values of stack {stack!r} add up to {value!r}, not a finite number")
        self._validate(summed)
        overrides = {"unit": unit, "metric": metric, "labels": labels}
        metadata = (metadata or EMPTY).replace(**{k: v for k, v in overrides.items() if v is not None})
        self._values = {s: v for s, v in summed.items() if v != 0}
        self._metadata = metadata

    @classmethod
    def _validate(cls, values: Dict[Stack, Number]) -> None:
        """Hook for subclasses that restrict the values."""

    @classmethod
    def _trusted(cls: Type[V], values: Dict[Stack, Number], metadata: Metadata = EMPTY) -> V:
        """Wrap a dict the caller built correctly (no zeros, right signs). Takes ownership."""
        obj = cls.__new__(cls)
        obj._values = values
        obj._metadata = metadata
        return obj

    # -- mapping -------------------------------------------------------------------------
    def __getitem__(self, stack: Stack) -> Number:
        return self._values[stack]

    def __iter__(self) -> Iterator[Stack]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def items(self) -> ItemsView[Stack, Number]:
        """(stack, value) pairs, straight from the storage (Mapping's default looks each key up again)."""
        return self._values.items()

    def __contains__(self, stack: object) -> bool:
        return stack in self._values

    def value(self, stack: Stack) -> Number:
        """The value at ``stack``; 0 outside the support."""
        return self._values.get(stack, 0)

    def sorted_items(self) -> List[Tuple[Stack, Number]]:
        """(stack, value) pairs in the deterministic order used for output."""
        return sorted(self._values.items())

    # -- metadata ------------------------------------------------------------------------
    @property
    def metadata(self) -> Metadata:
        return self._metadata

    @property
    def unit(self) -> Optional[str]:
        return self._metadata.unit

    @property
    def metric(self) -> Optional[str]:
        return self._metadata.metric

    @property
    def labels(self) -> Mapping[str, str]:
        return self._metadata.labels

    def with_metadata(self: V, metadata: Optional[Metadata] = None, **changes: Any) -> V:
        """The same vector with other metadata (or some fields changed)."""
        meta = metadata or self._metadata
        if changes:
            meta = meta.replace(**changes)
        return type(self)._trusted(self._values, meta)

    # -- measures ------------------------------------------------------------------------
    def support(self) -> FrozenSet[Stack]:
        """The stacks with a non-zero value."""
        return frozenset(self._values)

    def total(self) -> Number:
        """Sum of the values (for a flame graph: the width of the root)."""
        return sum(self._values.values())

    def norm(self) -> Number:
        """L1 norm: the sum of absolute values."""
        return sum(abs(v) for v in self._values.values())

    # -- algebra -------------------------------------------------------------------------
    def _combine(self, other: "StackVector", sign: int) -> Dict[Stack, Number]:
        result = dict(self._values)
        get = result.get
        for stack, value in other._values.items():
            new = get(stack, 0) + sign * value
            if new:
                result[stack] = new
            else:
                result.pop(stack, None)
        return result

    def __add__(self, other: object) -> Any:
        if not isinstance(other, StackVector):
            return NotImplemented
        meta = self._metadata.combine(other._metadata)
        cls = FlameGraph if isinstance(self, FlameGraph) and isinstance(other, FlameGraph) else Delta
        return cls._trusted(self._combine(other, 1), meta)

    def __sub__(self, other: object) -> "Delta":
        if not isinstance(other, StackVector):
            return NotImplemented
        meta = self._metadata.combine(other._metadata)
        return Delta._trusted(self._combine(other, -1), meta)

    def __neg__(self) -> "Delta":
        return Delta._trusted({s: -v for s, v in self._values.items()}, self._metadata)

    def __mul__(self, other: object) -> Any:
        factor = _scalar(other)
        if factor is None:
            return NotImplemented
        if isinstance(factor, float) and not math.isfinite(factor):
            raise ValueError(f"cannot scale by {factor!r}")
        if factor == 0:
            return type(self)._trusted({}, self._metadata)
        cls = FlameGraph if isinstance(self, FlameGraph) and factor > 0 else Delta
        return cls._trusted(scale_values(self._values, factor), self._metadata)

    __rmul__ = __mul__

    def __truediv__(self, other: object) -> Any:
        divisor = _scalar(other)
        if divisor is None:
            return NotImplemented
        if divisor == 0:
            raise ZeroDivisionError("cannot divide a flame graph by zero")
        cls = FlameGraph if isinstance(self, FlameGraph) and divisor > 0 else Delta
        return cls._trusted(scale_values(self._values, divisor, divide=True), self._metadata)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, StackVector):
            return NotImplemented
        return self._values == other._values

    __hash__ = None  # type: ignore[assignment]  # unhashable, as a dict: typeshed has no idiom for it

    def __repr__(self) -> str:
        shown = ", ".join(f"{';'.join(s)!r}: {v!r}" for s, v in self.sorted_items()[:5])
        more = f", ... ({len(self)} stacks)" if len(self) > 5 else ""
        unit = f", unit={self.unit!r}" if self.unit else ""
        return f"{type(self).__name__}({{{shown}{more}}}{unit})"


class FlameGraph(StackVector):
    """A profile: an immutable map stack -> value > 0, with metadata.

    Values stay exact ``int`` while the inputs are ints; floats appear only after
    scaling or averaging. ``a + b`` is a FlameGraph, ``a - b`` a :class:`Delta`.
    """

    __slots__ = ()

    @classmethod
    def _validate(cls, values: Dict[Stack, Number]) -> None:
        for stack, value in values.items():
            if value < 0:
                raise ArgumentError(
                    f"a flame graph cannot hold the negative value {value!r} (stack {';'.join(stack)!r}); "
                    "use Delta for signed vectors"
                )


class Delta(StackVector):
    """A signed vector over stacks, such as the difference of two flame graphs."""

    __slots__ = ()

    def positive(self) -> FlameGraph:
        """Δ⁺: the stacks that grew, with how much they grew."""
        return FlameGraph._trusted({s: v for s, v in self._values.items() if v > 0}, self._metadata)

    def negative(self) -> FlameGraph:
        """Δ⁻: the stacks that shrank, with how much (as positive values)."""
        return FlameGraph._trusted({s: -v for s, v in self._values.items() if v < 0}, self._metadata)
