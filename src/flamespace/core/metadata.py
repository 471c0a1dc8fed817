"""What a profile measured: its unit, metric and free-form labels."""

from __future__ import annotations

from types import MappingProxyType

from .._record import Record, factory, record
from ..errors import UnitMismatchError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any
    from collections.abc import Mapping


@record
class Metadata(Record):
    """Describes the numbers of a flame graph.

    ``unit`` is what one count is (``samples``, ``ns``, ``bytes``); ``None`` means unknown
    and is compatible with every unit. ``metric`` names what was measured (``cpu``,
    ``wall``, ``alloc``). ``labels`` hold anything else (command, host, profiler version).
    """

    unit: str | None = None
    metric: str | None = None
    labels: Mapping[str, str] = factory(dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "labels", MappingProxyType(dict(self.labels)))

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle the labels as a dict: a read-only mapping proxy cannot be pickled (Dask, multiprocessing)."""
        return (Metadata, (self.unit, self.metric, dict(self.labels)))

    def replace(self, **changes: object) -> Metadata:
        values: dict[str, Any] = {"unit": self.unit, "metric": self.metric, "labels": self.labels}
        values.update(changes)
        return Metadata(**values)

    def combine(self, other: Metadata) -> Metadata:
        """Metadata of a sum or difference: units must agree, labels keep what both share."""
        if self.unit is not None and other.unit is not None and self.unit != other.unit:
            raise UnitMismatchError(f"cannot combine a profile in {self.unit!r} with one in {other.unit!r}")
        return Metadata(
            unit=self.unit if self.unit is not None else other.unit,
            metric=self.metric if self.metric == other.metric else None,
            labels={k: v for k, v in self.labels.items() if other.labels.get(k) == v},
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Metadata):
            return NotImplemented
        return (self.unit, self.metric, dict(self.labels)) == (
            other.unit,
            other.metric,
            dict(other.labels),
        )

    def __hash__(self) -> int:
        return hash((self.unit, self.metric, tuple(sorted(self.labels.items()))))


EMPTY = Metadata()
