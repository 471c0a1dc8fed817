"""The import graph of flamespace, and the two rules it must keep (docs/architecture.md).

    python -m tests.import_graph            # packages: who imports whom, and any violation
    python -m tests.import_graph --modules  # every module's imports

Read from the source with :mod:`ast` (nothing is imported). An import is one of three kinds:

- ``module``: runs when the module is imported (top level, class bodies, ``try``/``if`` there);
- ``function``: inside a function, runs when it is called (deferred for start-up time);
- ``typing``: under ``if TYPE_CHECKING:``, never runs.

Rule 1, no cycles: the ``module`` imports form no cycle (a module's import of its own package
is no edge: the package is always loaded first). Cycles that close only through
``function`` imports are listed too (as ``deferred cycles``), and fail as well: a function
import hides a cycle from the interpreter, not from the design. ``typing`` imports are left
out (they never run and may point anywhere a signature needs).

Rule 2, layers: no import of any kind runs from a lower layer to a higher one, or sideways
between two packages of one layer (the helpers of layer 0 may use each other). ``_types`` is exempt for ``typing`` imports: it names the
classes of every layer.
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path
from typing import NamedTuple
from collections.abc import Iterator

SRC = Path(__file__).resolve().parent.parent / "src"
ROOT = "flamespace"

#: Each package (or top-level module) and its layer: an import may only point to a lower layer.
LAYERS: dict[str, int] = {
    # helpers every layer may use: records, type aliases, lazy exports, the version, errors
    "_record": 0,
    "_types": 0,
    "_lazy": 0,
    "_version": 0,
    "_table": 0,
    "errors": 0,
    "diagnostics": 0,
    "core": 1,
    "formats": 2,
    "stats": 2,
    "collect": 3,
    "render": 3,
    "store": 3,
    # what composes collect, stats, render and store into one answer (compare's sides, the gate)
    "workflows": 4,
    "cli": 5,
    # the public API (re-exports everything) and the pytest entry point: nothing imports them
    "__init__": 6,
    "pytest_plugin": 6,
    # the continuous-profiling agent's public face (flamespace.agent.start/labels/stop)
    "agent": 6,
    # the IPython magics: a binding, as the command line is (nothing imports it but the root's load_ipython_extension)
    "notebook": 5,
}


class Import(NamedTuple):
    source: str  # importing module, dotted
    target: str  # imported flamespace module, dotted
    kind: str  # "module", "function" or "typing"
    line: int


def modules() -> dict[str, Path]:
    """Every flamespace module by dotted name (packages by their ``__init__``)."""
    found = {}
    for path in sorted((SRC / ROOT).rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def layer_key(module: str) -> str:
    """The entry of :data:`LAYERS` a module belongs to (``flamespace.core.vector`` -> ``core``)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _walk(body: list[ast.stmt], kind: str) -> Iterator[tuple[ast.stmt, str]]:
    """Import statements with their kind; a function body makes its imports ``function``."""
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, kind
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield from _walk(node.body, "typing" if kind == "typing" else "function")
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            yield from _walk(node.body, "typing")
            yield from _walk(node.orelse, kind)
        else:
            for field in ("body", "orelse", "finalbody", "handlers"):
                children = getattr(node, field, None)
                if isinstance(children, list):
                    yield from _walk([c for c in children if isinstance(c, ast.stmt)], kind)
                    for handler in children:
                        if isinstance(handler, ast.ExceptHandler):
                            yield from _walk(handler.body, kind)


def _resolve(importer: str, is_package: bool, node: ast.stmt, known: set[str]) -> Iterator[str]:
    """The flamespace modules an import statement loads (the deepest known module of each name)."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        assert isinstance(node, ast.ImportFrom)
        if node.level:
            package = importer.split(".") if is_package else importer.split(".")[:-1]
            package = package[: len(package) - (node.level - 1)]
            base = ".".join(package + ([node.module] if node.module else []))
        else:
            base = node.module or ""
        names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
    for name in names:
        while name and name not in known:
            name = name.rpartition(".")[0]
        if name.split(".")[0] == ROOT:
            yield name


def imports() -> list[Import]:
    """Every import of a flamespace module by a flamespace module."""
    found = modules()
    known = set(found)
    edges = []
    for module, path in found.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node, kind in _walk(tree.body, "module"):
            for target in _resolve(module, path.name == "__init__.py", node, known):
                if not module.startswith(target + "."):  # its own package: loaded first anyway
                    edges.append(Import(module, target, kind, node.lineno))
    return sorted(set(e for e in edges if e.source != e.target))


def _cycles(edges: list[Import], kinds: set[str]) -> list[list[str]]:
    """The strongly connected components (Tarjan, iterative) of more than one module."""
    graph: dict[str, set[str]] = defaultdict(set)
    for edge in edges:
        if edge.kind in kinds:
            graph[edge.source].add(edge.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(sorted(component))
    return sorted(components)


def layer_violations(edges: list[Import]) -> list[Import]:
    """Imports that point up a layer, or sideways to another package of the same layer."""
    wrong = []
    for edge in edges:
        source, target = layer_key(edge.source), layer_key(edge.target)
        if source == target or (source == "_types" and edge.kind == "typing"):
            continue
        if LAYERS[target] > LAYERS[source] or (LAYERS[target] == LAYERS[source] > 0):
            wrong.append(edge)
    return wrong


def problems(edges: list[Import] | None = None) -> list[str]:
    """Every broken rule, one line each (empty when the graph is as the design says)."""
    edges = imports() if edges is None else edges
    unknown = sorted({layer_key(m) for m in modules()} - set(LAYERS))
    found = [f"no layer for {name} (add it to LAYERS)" for name in unknown]
    runtime = _cycles(edges, {"module"})
    found += [f"cycle: {' <-> '.join(c)}" for c in runtime]
    found += [
        f"deferred cycle (closed by function imports): {' <-> '.join(c)}"
        for c in _cycles(edges, {"module", "function"})
        if c not in runtime
    ]
    found += [
        f"layer: {e.source} ({layer_key(e.source)}) imports {e.target} ({layer_key(e.target)}), line {e.line} ({e.kind})"
        for e in layer_violations(edges)
        if layer_key(e.source) not in unknown
    ]
    return found


def main(argv: list[str]) -> int:
    edges = imports()
    if "--modules" in argv:
        for source in sorted({e.source for e in edges}):
            for kind in ("module", "function", "typing"):
                targets = sorted({e.target for e in edges if e.source == source and e.kind == kind})
                if targets:
                    print(f"{source} [{kind}]: {', '.join(targets)}")
    else:
        counts: dict[tuple[str, str], int] = defaultdict(int)
        for edge in edges:
            if edge.kind != "typing" and layer_key(edge.source) != layer_key(edge.target):
                counts[layer_key(edge.source), layer_key(edge.target)] += 1
        for key in sorted(LAYERS, key=lambda k: (-LAYERS[k], k)):
            targets = sorted(((t, n) for (s, t), n in counts.items() if s == key), key=lambda tn: (-LAYERS[tn[0]], tn[0]))
            if targets:
                print(f"{key} (layer {LAYERS[key]}) -> " + ", ".join(f"{t} ({n})" for t, n in targets))
    found = problems(edges)
    for line in found:
        print(line)
    print("import graph: " + ("ok" if not found else f"{len(found)} problem(s)"))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
