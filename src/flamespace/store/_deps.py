"""The store's optional dependencies (DuckDB, pyarrow), imported on first use with an error naming the extra."""

from __future__ import annotations

from ..errors import FlamespaceError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType

#: What to install for the store.
EXTRA = "flamespace[store]"


class StoreError(FlamespaceError):
    """A store that cannot be used as asked: missing extra, a selector matching nothing, a broken manifest."""


def modules() -> tuple[ModuleType, ModuleType, ModuleType]:
    """(duckdb, pyarrow, pyarrow.parquet), or :class:`StoreError` saying which extra to install."""
    try:
        import duckdb
        import pyarrow
        import pyarrow.parquet
    except ImportError as exc:
        raise StoreError(
            f"the profile store needs DuckDB and pyarrow ({exc.name} is not installed): pip install '{EXTRA}'"
        ) from None
    return duckdb, pyarrow, pyarrow.parquet
