"""The page scripts' build step: ES modules (``render/js/*.mjs``) to one inline script.

A page is one file that asks for nothing (it opens from file:// offline), so it cannot load
modules; the same files are real ES modules for Node's test runner (``tests/js/``). This
inliner joins an entry module and everything it imports, dependencies first, into one classic
script: each module runs once, in a function scope of its own, and hands its exports to the
modules that import them. It is a small concatenator, not a parser: it reads the forms below at
the start of a line (top level, no indentation) and refuses any other ``import``/``export``
there, so a form it does not know fails at page-build time (and in its tests), never in a page.

- ``import { a, b as c } from "./x.mjs";`` and ``import * as x from "./x.mjs";`` (relative
  paths inside the folder; one statement may span lines);
- ``export function f(...)``, ``export class C``, ``export const|let|var NAME = ...`` (one name
  per declaration) and ``export { a, b as c };``.

Whole-line ``//`` comments are left out of the page (a sixth of its script; the modules keep
them), so a module must not start a line with ``//`` inside a string (modules use no template literals).

An import is the value the export had once its module ran (modules here export functions and
constants; a ``let`` reassigned later is not seen again), and imports may form no cycle.
"""

from __future__ import annotations

import os
import re


HERE = os.path.join(os.path.dirname(__file__), "js")
#: The bundle's table of modules: a name no module may declare.
TABLE = "flamespaceModules"

# Each form starts at a line's start: the patterns begin with the newline before it (the text is read with
# one put in front), a literal the regex engine finds fast, where "^" under re.M is tried at every character.
_IMPORT = re.compile(
    r'\nimport\s+(?:\{([^}]*)\}|\*\s+as\s+([A-Za-z_$][\w$]*))\s+from\s+"(\.\.?/[\w.\-/]+\.mjs)"\s*;[ \t]*(?=\n|$)'
)
_DECLARED = re.compile(r"\nexport\s+(?:async\s+)?(function\*?|class|const|let|var)\s+([A-Za-z_$][\w$]*)")
_LIST = re.compile(r"\nexport\s*\{([^}]*)\}\s*;[ \t]*(?=\n|$)")
_ANY = re.compile(r"\n((?:import|export)\b[^\n]*)")
_NAME = re.compile(r"[A-Za-z_$][\w$]*$")
_COMMENT_LINE = re.compile(r"\n[ \t]*//[^\n]*")


class BundleError(ValueError):
    """A module the inliner cannot join: names the file and what is wrong."""


class Module:
    """One module's text with its import and export statements taken out."""

    def __init__(self, name: str, body: str, imports: list[tuple[str, str, str]], exports: dict[str, str]) -> None:
        self.name = name
        self.body = body
        #: (local name, the other module, its export name; "*" for the whole namespace)
        self.imports = imports
        #: exported name -> local name
        self.exports = exports


def _pairs(text: str, where: str) -> list[tuple[str, str]]:
    """``a, b as c`` -> [("a", "a"), ("b", "c")]: (name outside, name inside) pairs."""
    pairs = []
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        words = item.split()
        if len(words) == 1 and _NAME.match(words[0]):
            pairs.append((words[0], words[0]))
        elif len(words) == 3 and words[1] == "as" and _NAME.match(words[0]) and _NAME.match(words[2]):
            pairs.append((words[0], words[2]))
        else:
            raise BundleError(f"{where}: cannot read {item!r} in an import or export list")
    return pairs


def parse(name: str, text: str) -> Module:
    """The imports and exports of module ``name`` (its path inside the folder), and its body without them."""
    imports: list[tuple[str, str, str]] = []
    exports: dict[str, str] = {}

    text = "\n" + text

    def line_of(offset: int) -> str:  # the line of text[offset], or of the line the newline there opens
        return f"{name}:{text.count(chr(10), 0, offset + 1)}"

    def take_import(match: re.Match[str]) -> str:
        target = os.path.normpath(os.path.join(os.path.dirname(name), match.group(3))).replace(os.sep, "/")
        if target.startswith("../"):
            raise BundleError(f"{line_of(match.start())}: {match.group(3)} is outside the modules' folder")
        if match.group(2):
            imports.append((match.group(2), target, "*"))
        else:
            imports.extend((inside, target, outside) for outside, inside in _pairs(match.group(1), line_of(match.start())))
        return "\n" * match.group(0).count("\n")  # keeps the lines where they were

    def take_list(match: re.Match[str]) -> str:
        for inside, outside in _pairs(match.group(1), line_of(match.start())):
            exports[outside] = inside
        return "\n" * match.group(0).count("\n")

    def take_declared(match: re.Match[str]) -> str:
        exports[match.group(2)] = match.group(2)
        return "\n" + match.group(0)[len("\nexport") :].lstrip()

    body = _IMPORT.sub(take_import, text)
    body = _LIST.sub(take_list, body)
    body = _DECLARED.sub(take_declared, body)
    left = _ANY.search(body)
    if left:
        raise BundleError(
            f"{line_of(left.start())}: the inliner cannot join {left.group(1).strip()[:60]!r} "
            "(see render/bundle.py for the forms it reads)"
        )
    taken = re.search(rf"\b{TABLE}\b", body) if TABLE in body else None
    if taken:
        raise BundleError(f"{line_of(taken.start())}: the name {TABLE} is the bundle's own")
    return Module(name, _COMMENT_LINE.sub("", body)[1:], imports, exports)


def _read(name: str, root: str) -> Module:
    path = os.path.join(root, name)
    try:
        with open(path, encoding="utf-8") as stream:
            return parse(name, stream.read())
    except FileNotFoundError:
        raise BundleError(f"no module {name} in {root}") from None


def modules(entry: str, root: str = HERE) -> list[Module]:
    """``entry`` and every module it imports, each after the modules it imports (no cycle)."""
    done: dict[str, Module] = {}
    order: list[Module] = []
    open_: list[str] = []

    def visit(name: str) -> None:
        if name in done:
            return
        if name in open_:
            raise BundleError("modules import each other: " + " -> ".join(open_[open_.index(name) :] + [name]))
        open_.append(name)
        module = _read(name, root)
        for _, target, _ in module.imports:
            visit(target)
        open_.pop()
        done[name] = module
        order.append(module)

    visit(entry)
    for module in order:
        for local, target, outside in module.imports:
            if outside != "*" and outside not in done[target].exports:
                raise BundleError(f"{module.name} imports {outside} from {target}, which does not export it")
    return order


def _wrapped(module: Module) -> str:
    """One module as an entry of the table: a function run once, its imports first, its exports returned."""
    lines = [f"// -- {module.name}", f'{TABLE}["{module.name}"] = (function () {{']
    for local, target, outside in module.imports:
        source = f'{TABLE}["{target}"]'
        lines.append(f"var {local} = {source};" if outside == "*" else f"var {local} = {source}.{outside};")
    exported = ", ".join(f"{outside}: {inside}" for outside, inside in module.exports.items())
    return "\n".join(lines) + "\n" + module.body.rstrip("\n") + f"\nreturn {{{exported}}};\n}})();\n"


def bundle(entry: str, root: str = HERE) -> str:
    """The classic script that runs ``entry`` (a path inside ``root``) with its imports, strict, in one scope."""
    parts = [_wrapped(module) for module in modules(entry, root)]
    return f'(function () {{\n"use strict";\nvar {TABLE} = {{}};\n' + "".join(parts) + "})();\n"


__all__ = ["HERE", "BundleError", "Module", "bundle", "modules", "parse"]
