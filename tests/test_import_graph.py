"""The layer rule and the no-cycle rule of docs/architecture.md, held by tests/import_graph.py."""

from tests.import_graph import Import, imports, modules, problems


def test_the_import_graph_keeps_the_layers_and_has_no_cycles():
    assert problems() == []


def test_imports_are_found_with_their_kind():
    edges = set((e.source, e.target, e.kind) for e in imports())
    assert ("flamespace.core.vector", "flamespace.core.metadata", "module") in edges
    assert ("flamespace.core.vector", "flamespace._types", "typing") in edges
    assert ("flamespace.core.vector", "flamespace._types", "function") in edges  # __getattr__
    assert "flamespace.cli._options" in modules()


def test_an_upward_or_sideways_import_is_reported():
    up = Import("flamespace.core.vector", "flamespace.render.svg", "function", 7)
    sideways = Import("flamespace.stats.matrix", "flamespace.formats.folded", "typing", 3)
    down = Import("flamespace.render.svg", "flamespace.core.vector", "module", 1)
    assert problems([up, sideways, down]) == [
        "deferred cycle (closed by function imports): flamespace.core.vector <-> flamespace.render.svg",
        "layer: flamespace.core.vector (core) imports flamespace.render.svg (render), line 7 (function)",
        "layer: flamespace.stats.matrix (stats) imports flamespace.formats.folded (formats), line 3 (typing)",
    ]


def test_cycles_are_reported_and_deferred_ones_named_so():
    a, b, c = "flamespace.collect.a", "flamespace.collect.b", "flamespace.collect.c"
    found = problems(
        [
            Import(a, b, "module", 1),
            Import(b, a, "module", 1),
            Import(b, c, "module", 2),
            Import(c, b, "function", 5),
            Import(a, c, "typing", 3),
        ]
    )
    assert found == [
        f"cycle: {a} <-> {b}",
        f"deferred cycle (closed by function imports): {a} <-> {b} <-> {c}",
    ]
