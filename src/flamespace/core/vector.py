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
from .stacks import StackTable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeVar
    from collections.abc import Hashable, ItemsView, Iterator, Mapping, ValuesView

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
        raise ArgumentError(
            f"stack {stack!r:.80} has the value {value:.3g}, not below {MAX_VALUE:g}, which no reader takes back; "
            "scale the profile down (flamespace scale) before writing it"
        )
    return value


def _check_number(value: Any, stack: Stack) -> Number:
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"value of stack {stack!r} is {value!r}, not a number")
    number = value if isinstance(value, (int, float)) else float(value)
    if isinstance(number, float) and not math.isfinite(number):
        raise ArgumentError(f"value of stack {stack!r} is {value!r}, not a finite number")
    return number


def _scalar(value: object) -> Number | None:
    """A real number (not a bool) as an int or float, as values are stored; None otherwise."""
    if isinstance(value, bool) or not isinstance(value, Real):
        return None
    if isinstance(value, (int, float)):
        return value
    return int(value) if isinstance(value, Integral) else float(value)


def scale_values(values: Mapping[K, Number], factor: Number, divide: bool = False) -> dict[K, Number]:
    """Every value times ``factor`` (divided by it with ``divide``); nothing left when multiplying by 0.

    The arithmetic of ``vector * factor`` and ``vector / divisor``, whether the vector keeps its
    stacks as frame tuples or as stack texts, so both give the same numbers.
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

    A vector keeps its stacks as frame tuples, or, when built by :meth:`from_texts` (the
    folded reader does), as stack texts (``a;b;c``) split into frames the first time a stack
    is asked for: adding, subtracting, scaling, comparing and writing such vectors never
    splits one. Which way it keeps them changes no answer.
    """

    __slots__ = ("_values", "_metadata", "_texts", "_table", "_plain")

    _values: dict[Stack, Number]
    _metadata: Metadata
    #: stack text -> value while no frames were asked for (None for a vector of frame tuples)
    _texts: dict[str, Number] | None
    _table: StackTable | None  # splits the texts (shared by the vectors made from one another)
    _plain: bool  # the texts hold no line break (folded writes them as they are)

    def __init__(
        self,
        values: Values = (),
        *,
        unit: str | None = None,
        metric: str | None = None,
        labels: Mapping[str, str] | None = None,
        metadata: Metadata | None = None,
    ) -> None:
        pairs = values.items() if isinstance(values, Mapping) else values
        summed: dict[Stack, Number] = {}
        for stack, value in pairs:
            stack = _check_stack(stack)
            summed[stack] = summed.get(stack, 0) + _check_number(value, stack)
        for stack, value in summed.items():
            if isinstance(value, float) and not math.isfinite(value):  # finite values whose sum overflows
                raise ArgumentError(f"the values of stack {stack!r} add up to {value!r}, not a finite number")
        self._validate(summed)
        self._values = {s: v for s, v in summed.items() if v != 0}
        self._metadata = _metadata(metadata, unit, metric, labels)
        self._texts = self._table = None
        self._plain = False

    @classmethod
    def from_texts(
        cls: type[V],
        values: Mapping[str, Number],
        *,
        unit: str | None = None,
        metric: str | None = None,
        labels: Mapping[str, str] | None = None,
        metadata: Metadata | None = None,
        stacks: dict[str, Stack] | None = None,
        checked: bool = True,
    ) -> V:
        """A vector over stack texts (frames joined with ';', as the folded format writes them; the
        empty text is the empty stack) -> value: equal to the vector over their frame tuples, which
        it splits only when a stack is asked for (never to add, subtract, scale, compare or write it).

        Values must be numbers, as for the constructor; zeros are left out. ``stacks``: a dict of
        stack text -> frames shared by the profiles of many runs, so that each text is split once
        and its tuple reused (``registry.read``'s ``stack_cache``). ``checked=False`` is for a
        reader that hands over its own dict of texts it read line by line (no line breaks),
        ``str`` keys and finite values of the right sign: the dict is then kept, not copied, and
        only its zeros are looked for (a big file's profile is made without a pass over it).
        """
        meta = _metadata(metadata, unit, metric, labels)
        if not checked:
            if 0 in values.values():  # a scan in C; zero counts are rare
                values = {text: value for text, value in values.items() if value}
            return cls._from_texts(values if isinstance(values, dict) else dict(values), meta, StackTable(stacks), plain=True)
        texts = _checked_texts(values)
        cls._validate(texts)
        return cls._from_texts(texts, meta, StackTable(stacks), plain=_no_line_breaks(texts))

    @classmethod
    def _validate(cls, values: Mapping[Any, Number]) -> None:
        """Hook for subclasses that restrict the values."""

    @classmethod
    def _trusted(cls: type[V], values: dict[Stack, Number], metadata: Metadata = EMPTY) -> V:
        """Wrap a dict the caller built correctly (no zeros, right signs). Takes ownership."""
        obj = cls.__new__(cls)
        obj._values = values
        obj._metadata = metadata
        obj._texts = obj._table = None
        obj._plain = False
        return obj

    @classmethod
    def _from_texts(cls: type[V], texts: dict[str, Number], metadata: Metadata, table: StackTable | None, plain: bool) -> V:
        """:meth:`_trusted` for a dict keyed by stack text (``plain``: none holds a line break). Takes ownership."""
        obj = cls.__new__(cls)
        obj._texts = texts
        obj._table = table or StackTable()
        obj._metadata = metadata
        obj._plain = plain
        return obj

    def __getattr__(self, name: str) -> Any:
        """The frame tuples of a vector kept as stack texts, split when first asked for (then the
        texts go: the tuples serve every later question, and the memory is the tuples' alone)."""
        if name in ("_texts", "_table", "_plain"):  # unset: a vector pickled before these slots were
            return None if name != "_plain" else False
        if name != "_values":
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        texts, table = self._texts, self._table
        if texts is None or table is None:
            raise AttributeError("_values")
        stack = table.stack
        values = self._values = {stack(text): value for text, value in texts.items()}
        self._texts = self._table = None
        return values

    # -- mapping -------------------------------------------------------------------------
    def __getitem__(self, stack: Stack) -> Number:
        return self._values[stack]

    def __iter__(self) -> Iterator[Stack]:
        return iter(self._values)

    def __len__(self) -> int:
        texts = self._texts
        return len(self._values if texts is None else texts)

    def items(self) -> ItemsView[Stack, Number]:
        """(stack, value) pairs, straight from the storage (Mapping's default looks each key up again)."""
        return self._values.items()

    def values(self) -> ValuesView[Number]:
        """The values, in the order of :meth:`items` (no stack split for them)."""
        texts = self._texts
        return (self._values if texts is None else texts).values()

    def __contains__(self, stack: object) -> bool:
        return stack in self._values

    def value(self, stack: Stack) -> Number:
        """The value at ``stack``; 0 outside the support."""
        return self._values.get(stack, 0)

    def sorted_items(self) -> list[tuple[Stack, Number]]:
        """(stack, value) pairs in the deterministic order used for output."""
        return sorted(self._values.items())

    # -- metadata ------------------------------------------------------------------------
    @property
    def metadata(self) -> Metadata:
        return self._metadata

    @property
    def unit(self) -> str | None:
        return self._metadata.unit

    @property
    def metric(self) -> str | None:
        return self._metadata.metric

    @property
    def labels(self) -> Mapping[str, str]:
        return self._metadata.labels

    def with_metadata(self: V, metadata: Metadata | None = None, **changes: Any) -> V:
        """The same vector with other metadata (or some fields changed)."""
        meta = metadata or self._metadata
        if changes:
            meta = meta.replace(**changes)
        texts = self._texts
        if texts is not None:
            return type(self)._from_texts(texts, meta, self._table, self._plain)
        return type(self)._trusted(self._values, meta)

    # -- measures ------------------------------------------------------------------------
    def support(self) -> frozenset[Stack]:
        """The stacks with a non-zero value."""
        return frozenset(self._values)

    def total(self) -> Number:
        """Sum of the values (for a flame graph: the width of the root)."""
        return sum(self.values())

    def norm(self) -> Number:
        """L1 norm: the sum of absolute values."""
        return sum(abs(v) for v in self.values())

    # -- algebra -------------------------------------------------------------------------
    def _keyed(
        self, other: StackVector
    ) -> tuple[dict[str, Number] | dict[Stack, Number], dict[str, Number] | dict[Stack, Number], bool]:
        """Both vectors' dicts keyed alike: by text when both keep texts (no split), else by stack."""
        mine, theirs = self._texts, other._texts
        if mine is not None and theirs is not None:
            return mine, theirs, True
        return self._values, other._values, False

    def _combine(self, other: StackVector, sign: int, cls: type[V]) -> V:
        mine, theirs, by_text = self._keyed(other)
        result: dict[Any, Number] = dict(mine)
        get = result.get
        for key, value in theirs.items():
            new = get(key, 0) + sign * value
            if new:
                result[key] = new
            else:
                result.pop(key, None)
        meta = self._metadata.combine(other._metadata)
        if by_text:
            return cls._from_texts(result, meta, self._table, self._plain and other._plain)
        return cls._trusted(result, meta)

    def _mapped(self, cls: type[V], values: dict[Any, Number]) -> V:
        """A vector of ``cls`` over this one's keys (texts or stacks) with new ``values``."""
        if self._texts is not None:
            return cls._from_texts(values, self._metadata, self._table, self._plain)
        return cls._trusted(values, self._metadata)

    def _storage(self) -> dict[str, Number] | dict[Stack, Number]:
        texts = self._texts
        return self._values if texts is None else texts

    def __add__(self, other: object) -> Any:
        if not isinstance(other, StackVector):
            return NotImplemented
        cls = FlameGraph if isinstance(self, FlameGraph) and isinstance(other, FlameGraph) else Delta
        return self._combine(other, 1, cls)

    def __sub__(self, other: object) -> Delta:
        if not isinstance(other, StackVector):
            return NotImplemented
        return self._combine(other, -1, Delta)

    def __neg__(self) -> Delta:
        return self._mapped(Delta, {s: -v for s, v in self._storage().items()})

    def __mul__(self, other: object) -> Any:
        factor = _scalar(other)
        if factor is None:
            return NotImplemented
        if isinstance(factor, float) and not math.isfinite(factor):
            raise ValueError(f"cannot scale by {factor!r}")
        if factor == 0:
            return self._mapped(type(self), {})
        cls = FlameGraph if isinstance(self, FlameGraph) and factor > 0 else Delta
        return self._mapped(cls, scale_values(self._storage(), factor))

    __rmul__ = __mul__

    def __truediv__(self, other: object) -> Any:
        divisor = _scalar(other)
        if divisor is None:
            return NotImplemented
        if divisor == 0:
            raise ZeroDivisionError("cannot divide a flame graph by zero")
        cls = FlameGraph if isinstance(self, FlameGraph) and divisor > 0 else Delta
        return self._mapped(cls, scale_values(self._storage(), divisor, divide=True))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, StackVector):
            return NotImplemented
        mine, theirs, _ = self._keyed(other)
        return mine == theirs

    __hash__ = None  # type: ignore[assignment]  # unhashable, as a dict: typeshed has no idiom for it

    def __repr__(self) -> str:
        shown = ", ".join(f"{';'.join(s)!r}: {v!r}" for s, v in self.sorted_items()[:5])
        more = f", ... ({len(self)} stacks)" if len(self) > 5 else ""
        unit = f", unit={self.unit!r}" if self.unit else ""
        return f"{type(self).__name__}({{{shown}{more}}}{unit})"


def stack_texts(vector: StackVector, plain: bool = False) -> dict[str, Number] | None:
    """``vector``'s values keyed by stack text while it keeps its stacks so (built by
    :meth:`~StackVector.from_texts` and no frames asked for yet), else None: for the fast paths
    of the library (folded output, sums, the rows of a sample), which must not change it.
    ``plain``: None too when a text holds a line break (which folded output cannot hold)."""
    return None if plain and not vector._plain else vector._texts


def _no_line_breaks(texts: dict[str, Number]) -> bool:
    """Whether no text holds a line break: a scan in C of a few hundred kB of texts at a time."""
    keys = list(texts)
    for start in range(0, len(keys), 1024):
        joined = "".join(keys[start : start + 1024])
        if "\n" in joined or "\r" in joined:
            return False
    return True


def _metadata(metadata: Metadata | None, unit: str | None, metric: str | None, labels: Mapping[str, str] | None) -> Metadata:
    """``metadata`` (or none) with the fields given beside it in its place."""
    overrides = {"unit": unit, "metric": metric, "labels": labels}
    return (metadata or EMPTY).replace(**{k: v for k, v in overrides.items() if v is not None})


def _checked_texts(values: Mapping[str, Number]) -> dict[str, Number]:
    """A copy of ``values`` with str keys and finite int or float values (other real numbers
    converted, as the constructor converts them), zeros left out; TypeError or ArgumentError naming
    the first that is not. The common case (str keys, int or float values) is checked in C loops."""
    texts: dict[Any, Number] = dict(values)  # keys checked here
    if not set(map(type, texts)) <= {str}:
        bad = next(key for key in texts if not isinstance(key, str))
        raise TypeError(f"a stack text is a str (frames joined with ';'); got {bad!r}")
    kinds = set(map(type, texts.values()))
    if not kinds <= {int, float} or (
        float in kinds and not math.isfinite(sum(abs(v) for v in texts.values() if type(v) is float))
    ):
        texts = {text: _check_number(value, (text,)) for text, value in texts.items()}
    if 0 in texts.values():
        texts = {text: value for text, value in texts.items() if value != 0}
    return texts


class FlameGraph(StackVector):
    """A profile: an immutable map stack -> value > 0, with metadata.

    Values stay exact ``int`` while the inputs are ints; floats appear only after
    scaling or averaging. ``a + b`` is a FlameGraph, ``a - b`` a :class:`Delta`.
    """

    __slots__ = ()

    @classmethod
    def _validate(cls, values: Mapping[Any, Number]) -> None:
        if values and min(values.values()) < 0:  # a C loop; the offender is looked for only when there is one
            key, value = next((key, value) for key, value in values.items() if value < 0)
            text = key if isinstance(key, str) else ";".join(key)
            raise ArgumentError(
                f"a flame graph cannot hold the negative value {value!r} (stack {text!r}); use Delta for signed vectors"
            )

    def _repr_html_(self) -> str | None:
        """In a notebook: the interactive HTML viewer, in an iframe (core/display.py; the text output stays the repr)."""
        from .display import html

        return html(self)


class Delta(StackVector):
    """A signed vector over stacks, such as the difference of two flame graphs."""

    __slots__ = ()

    def positive(self) -> FlameGraph:
        """Δ⁺: the stacks that grew, with how much they grew."""
        return self._mapped(FlameGraph, {s: v for s, v in self._storage().items() if v > 0})

    def negative(self) -> FlameGraph:
        """Δ⁻: the stacks that shrank, with how much (as positive values)."""
        return self._mapped(FlameGraph, {s: -v for s, v in self._storage().items() if v < 0})
