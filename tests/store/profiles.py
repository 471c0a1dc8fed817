"""Profiles as Store.add takes them, from test data written as (values by stack text, metadata, source)."""

from __future__ import annotations

from flamespace.core.vector import FlameGraph


def profiles(items):  # type: ignore[no-untyped-def]
    """Each (values by stack text, metadata, source) as (FlameGraph, source), one at a time (a
    generator's failure mid-ingest stays mid-ingest)."""
    return ((FlameGraph.from_texts(values, metadata=metadata), source) for values, metadata, source in items)


def stored(snapshot, ids, mean: bool = False):  # type: ignore[no-untyped-def]
    """(values by stack text, metadata) of the profile ``snapshot.graph`` makes of ``ids``."""
    from flamespace.formats import folded

    graph = snapshot.graph(ids, mean=mean)
    return folded.texts(graph), graph.metadata
