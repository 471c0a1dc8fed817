"""The page scripts' build step (render/bundle.py): ES modules joined into one inline script."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from flamespace.render import bundle as B
from flamespace.render.chart_html import SCRIPT as CHART_SCRIPT
from flamespace.render.compare_page import SCRIPT as COMPARE_SCRIPT
from flamespace.render.html import SCRIPT as VIEWER_SCRIPT

ROOT = Path(__file__).resolve().parents[2]
ENTRIES = [VIEWER_SCRIPT, COMPARE_SCRIPT, CHART_SCRIPT, "report.mjs"]


def modules(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path


def run_node(script: str) -> str:
    node = shutil.which("node")
    if node is None:
        pytest.skip("needs node: apt-get install nodejs")
    done = subprocess.run([node, "-e", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_imports_and_exports_of_every_form_are_read() -> None:
    module = B.parse(
        "a.mjs",
        'import { x, y as z } from "./b.mjs";\nimport * as c from "./sub/c.mjs";\n'
        'import {\n  p,\n  q,\n} from "./d.mjs";\n'
        "export function f() {}\nexport const K = 1;\nexport class C {}\nlet g = 2;\nexport { g, K as KK };\n",
    )
    assert module.imports == [
        ("x", "b.mjs", "x"),
        ("z", "b.mjs", "y"),
        ("c", "sub/c.mjs", "*"),
        ("p", "d.mjs", "p"),
        ("q", "d.mjs", "q"),
    ]
    assert module.exports == {"f": "f", "K": "K", "C": "C", "g": "g", "KK": "K"}
    assert "export" not in module.body and "import" not in module.body
    assert "function f() {}" in module.body and "const K = 1;" in module.body


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("export default function () {}", "cannot join 'export default"),
        ('export * from "./b.mjs";', "cannot join 'export * from"),
        ('import x from "./b.mjs";', "cannot join 'import x from"),
        ('import { x } from "b.mjs";', "cannot join"),
        ('import { x } from "../b.mjs";', "outside the modules' folder"),
        ("export { a b };", "cannot read 'a b'"),
        ("var flamespaceModules = 1;", "the bundle's own"),
    ],
)
def test_a_form_the_inliner_does_not_read_fails_naming_the_file_and_line(text: str, says: str) -> None:
    with pytest.raises(B.BundleError) as error:
        B.parse("a.mjs", "// a module\n" + text + "\n")
    assert str(error.value).startswith("a.mjs:2: ") and says in str(error.value)


def test_cycles_missing_modules_and_missing_exports_fail(tmp_path: Path) -> None:
    root = modules(
        tmp_path,
        {
            "a.mjs": 'import { b } from "./b.mjs";\nexport const a = 1;\n',
            "b.mjs": 'import { a } from "./a.mjs";\nexport const b = 2;\n',
            "c.mjs": 'import { nothing } from "./d.mjs";\n',
            "d.mjs": "export const d = 1;\n",
            "e.mjs": 'import { x } from "./gone.mjs";\n',
        },
    )
    with pytest.raises(B.BundleError, match=r"modules import each other: a.mjs -> b.mjs -> a.mjs"):
        B.bundle("a.mjs", str(root))
    with pytest.raises(B.BundleError, match="c.mjs imports nothing from d.mjs, which does not export it"):
        B.bundle("c.mjs", str(root))
    with pytest.raises(B.BundleError, match="no module gone.mjs"):
        B.bundle("e.mjs", str(root))


def test_a_bundle_runs_each_module_once_after_its_imports_in_a_scope_of_its_own(tmp_path: Path) -> None:
    """A diamond (main imports left and right, both import base): base runs once, first; names that
    collide between modules stay each module's own; comments are left out."""
    root = modules(
        tmp_path,
        {
            "base.mjs": "// the base\nglobalThis.log.push('base');\nvar secret = 'base';\nexport function twice(x) { return 2 * x; }\n",
            "left.mjs": 'import { twice } from "./base.mjs";\nglobalThis.log.push("left");\nvar secret = "left";\n'
            "export const left = twice(1);\n",
            "sub/right.mjs": 'import * as base from "../base.mjs";\nglobalThis.log.push("right");\nexport const right = base.twice(2);\n',
            "main.mjs": 'import { left } from "./left.mjs";\nimport { right as r } from "./sub/right.mjs";\n'
            "globalThis.log.push('main ' + left + ' ' + r + ' ' + typeof secret);\n",
        },
    )
    text = B.bundle("main.mjs", str(root))
    assert "// the base" not in text and text.count('flamespaceModules["base.mjs"] = ') == 1
    out = run_node("globalThis.log = [];\n" + text + "\nconsole.log(JSON.stringify(globalThis.log));")
    assert out.strip() == '["base","left","right","main 2 4 undefined"]'


@pytest.mark.parametrize("entry", ENTRIES)
def test_every_page_script_bundles_to_a_script_node_can_parse(entry: str, tmp_path: Path) -> None:
    text = B.bundle(entry)
    path = tmp_path / "page.js"
    path.write_text(text)
    node = shutil.which("node")
    if node is None:
        pytest.skip("needs node: apt-get install nodejs")
    done = subprocess.run([node, "--check", str(path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_the_javascript_tests_fail_without_node_under_ci_and_skip_elsewhere(tmp_path: Path) -> None:
    """tests/run_js.py (make test): no node is a failure under CI=true, a skip with a note on a user's machine."""

    def run(ci: str) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "CI": ci, "PATH": str(tmp_path), "PYTHONPATH": str(ROOT)}
        return subprocess.run(
            [sys.executable, "-m", "tests.run_js"], capture_output=True, text=True, env=env, cwd=ROOT, timeout=120
        )

    in_ci, at_home = run("true"), run("")
    assert in_ci.returncode == 1 and "need Node 20 or later (no node on PATH)" in in_ci.stderr
    assert at_home.returncode == 0 and at_home.stdout.startswith("skipped: ")


def test_every_module_is_package_data() -> None:
    """An installed flamespace must hold every module a page imports (pyproject.toml's package-data)."""
    import fnmatch

    tomllib = pytest.importorskip("tomllib")
    globs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["flamespace.render"]
    for path in Path(B.HERE).iterdir():
        name = f"js/{path.name}"
        assert any(fnmatch.fnmatch(name, glob) for glob in globs), f"{name} is not in flamespace.render's package-data"
