"""flamespace.render imports its emitters on first use, and its functions named like their modules
(svg, text, layout) stay functions once those modules are imported."""

import subprocess
import sys

CHECK = """
import sys
import flamespace.render as render
assert "flamespace.render.svg" not in sys.modules and "flamespace.render.layout" not in sys.modules
import flamespace.render.svg, flamespace.render.text, flamespace.render.layout
from flamespace.render.svg import write_svg
from flamespace.render import text
assert callable(render.svg) and callable(render.text) and callable(render.layout), (render.svg, render.text)
assert render.svg.__module__ == "flamespace.render.svg" and text is render.text and render.write_svg is write_svg
assert render.Frame.__name__ == "Frame" and render.TextOptions.__name__ == "TextOptions"
print(render.text(__import__("flamespace").FlameGraph({("a", "b"): 3})), end="")
"""


def test_render_loads_lazily_and_keeps_its_functions():
    done = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "a" in done.stdout and "b" in done.stdout


def test_svg_help_loads_no_emitter():
    code = (
        "import sys; from flamespace.cli import main; main(['svg', '--help']); "
        "sys.stderr.write(' '.join(m for m in ('flamespace.render.svg', 'flamespace.render.layout') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0 and done.stderr == "", done.stderr
