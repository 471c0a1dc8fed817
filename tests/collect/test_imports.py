"""The import graph of flamespace.collect: no cycles, even counting imports made inside
functions (a function-level import must never be what breaks a cycle), and every module
importable alone in a fresh interpreter.

``python tests/collect/test_imports.py`` prints the graph (``module -> imported [in function]``).
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys

import pytest

import flamespace

PACKAGE = "flamespace.collect"
DIRECTORY = os.path.join(os.path.dirname(os.path.abspath(flamespace.__file__)), "collect")


def modules() -> list[str]:
    names = sorted(n[:-3] for n in os.listdir(DIRECTORY) if n.endswith(".py") and n != "__init__.py")
    package = [PACKAGE] if os.path.exists(os.path.join(DIRECTORY, "__init__.py")) else []
    return package + [f"{PACKAGE}.{n}" for n in names]


def _source_file(module: str) -> str:
    if module == PACKAGE:
        return os.path.join(DIRECTORY, "__init__.py")
    return os.path.join(DIRECTORY, module.rsplit(".", 1)[1] + ".py")


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (
        isinstance(test, ast.Name)
        and test.id == "TYPE_CHECKING"
        or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")
    )


def imports_of(module: str) -> list[tuple[str, bool]]:
    """(imported collect module, whether the import is inside a function) for each run-time
    import of ``module`` (imports under ``if TYPE_CHECKING:`` are for type checkers only)."""
    is_package = module == PACKAGE
    with open(_source_file(module), encoding="utf-8") as file:
        tree = ast.parse(file.read())
    found: list[tuple[str, bool]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for other in child.orelse:
                    visit(other, in_function)
                continue
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.ImportFrom):
                base = _resolve(module, is_package, child.module, child.level)
                targets = [base] if child.module else []
                targets += [f"{base}.{alias.name}" for alias in child.names]
                found.extend((t, in_function) for t in targets if t in MODULES and t != module)
            elif isinstance(child, ast.Import):
                found.extend((a.name, in_function) for a in child.names if a.name in MODULES and a.name != module)
            visit(child, inner)

    visit(tree, False)
    return found


def _resolve(module: str, is_package: bool, name: str | None, level: int) -> str:
    if level == 0:
        return name or ""
    parts = module.split(".")
    base = parts if is_package else parts[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


MODULES = set(modules())


def graph() -> dict[str, set[str]]:
    """module -> the collect modules it imports at run time (at module level or in a function)."""
    return {m: {target for target, _ in imports_of(m)} for m in modules()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Every cycle found by a depth-first search (one per back edge)."""
    found: list[list[str]] = []
    state: dict[str, int] = {}
    path: list[str] = []

    def walk(node: str) -> None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                found.append(path[path.index(nxt) :] + [nxt])
            elif nxt not in state:
                walk(nxt)
        path.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            walk(node)
    return found


def test_the_import_graph_of_collect_has_no_cycle() -> None:
    assert cycles(graph()) == []


def test_the_cycle_finder_finds_cycles() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c", "a"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


@pytest.mark.parametrize("module", modules())
def test_each_module_imports_alone(module: str) -> None:
    """In a fresh interpreter, with nothing of flamespace imported before it."""
    done = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


if __name__ == "__main__":
    for name in modules():
        for target, in_function in sorted(set(imports_of(name))):
            short = lambda m: m[len(PACKAGE) + 1 :] or "collect"  # noqa: E731
            print(f"{short(name)} -> {short(target)}{'  [in a function]' if in_function else ''}")
    print("cycles:", cycles(graph()) or "none")
