"""The contract every format module meets (docs/architecture.md, "Seams": a new format).

A format is a module, not a class: :mod:`~.registry` imports it by name when first needed
and uses it through these attributes. :class:`FormatModule` is what every format has; a
format that can hold a profile is a :class:`FormatWriter` too, and a writer that keeps time
order (``charts = True``) a :class:`ChartWriter`: it is given a
:class:`~flamespace.core.chart.FlameChart` as it is, other writers the chart's flame graph.
Optional, asked with ``getattr``: ``description`` and ``reference`` (shown by ``flamespace
formats``) and ``why_not(head)``.

The protocols are generic in the format's own option records, so that mypy checks that
``parse`` takes the module's ``ReadOptions`` and ``dump`` its ``WriteOptions``; the
registry, which picks a format at run time and builds its options from names, holds them as
:data:`Format` and :data:`Writer` (options of any type).

This module imports ``typing``, so the formats and the registry import this module only under
``TYPE_CHECKING`` (the CLI's start-up must not pay for typing); type checkers and users import
it. :mod:`._conformance` is where mypy checks every format module against these protocols.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, TextIO, TypeVar

if TYPE_CHECKING:
    from .._types import Drawable, Profile, Stack
    from ..diagnostics import Diagnostics


class ReaderOptions(Protocol):
    """What every format's ``ReadOptions`` record has (the rest are the format's reader options)."""

    @property
    def skip_invalid(self) -> bool:
        """Skip a bad line or record with a warning instead of failing on it."""


R = TypeVar("R", bound=ReaderOptions)
W = TypeVar("W")


class FormatModule(Protocol[R]):
    """name, extensions, sniff, ReadOptions and parse: what the registry asks of every format."""

    @property
    def name(self) -> str:
        """The format's name, as ``--from``/``--to`` take it and :data:`~.recognition.ORDER` lists it."""

    @property
    def extensions(self) -> tuple[str, ...]:
        """File endings that claim a file for the format (``.gz`` aside); they only break ties."""

    @property
    def ReadOptions(self) -> type[R]:
        """The record of reader options ``parse`` takes: ``skip_invalid`` and the format's own."""

    def sniff(self, head: bytes) -> bool | str | None:
        """True if ``head`` (an input's first bytes) is of this format; None if too short to
        tell; False or a string saying why not."""

    def parse(
        self,
        stream: TextIO,
        options: R,
        *,
        source: str = ...,
        diagnostics: Diagnostics | None = ...,
        stack_cache: dict[str, Stack] | None = ...,
    ) -> Drawable:
        """The profile (or, for a format that keeps time order, the flame chart) in ``stream``."""


class FormatWriter(FormatModule[R], Protocol[R, W]):
    """A format that can hold a profile: its writer's options and ``dump``."""

    @property
    def WriteOptions(self) -> type[W]:
        """The record of writer options ``dump`` takes."""

    def dump(self, profile: Profile, stream: TextIO, options: W) -> None:
        """Write ``profile``; one the format cannot hold (a differential) is an ArgumentError."""


class ChartWriter(FormatWriter[R, W], Protocol[R, W]):
    """A writer that keeps time order (``charts = True``): it is given flame charts as they are."""

    @property
    def charts(self) -> bool:
        """True: :func:`~.registry.write` hands it a :class:`~flamespace.core.chart.FlameChart` unsummed."""

    def dump(self, profile: Drawable, stream: TextIO, options: W) -> None:
        """Write ``profile``, a chart in its time order; one the format cannot hold is an ArgumentError."""


#: A format picked at run time (its options built from names): what the registry hands out.
Format = FormatModule[Any]
#: A writable format picked at run time.
Writer = FormatWriter[Any, Any]


__all__ = ["ChartWriter", "Format", "FormatModule", "FormatWriter", "ReaderOptions", "Writer"]
