"""Inputs the fuzz campaign (benchmarks/fuzz_readers.py) found ending in an internal error, kept.

Each file under tests/data/fuzz/<format>/ is a minimised input that once raised something other
than our InputError (exit 2 in the CLI) from the reader of <format>; it must now be refused with
an InputError, read the way the CLI reads it (``registry.read`` of the path). A new finding:
copy its ``.bin`` from the campaign's output directory into tests/data/fuzz/<format>/.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import flamespace as fs
from flamespace.cli import main
from flamespace.formats import registry

CORPUS = Path(__file__).resolve().parent.parent / "data" / "fuzz"
CASES = sorted(CORPUS.glob("*/*.bin"))


def test_the_corpus_is_of_known_formats_and_small() -> None:
    assert CASES, f"no inputs under {CORPUS}"
    for path in CASES:
        assert path.parent.name in registry.names(), path
        assert path.stat().st_size <= 8192, f"{path} is not minimised"


@pytest.mark.parametrize("path", CASES, ids=[f"{path.parent.name}/{path.stem}" for path in CASES])
def test_a_once_crashing_input_is_an_input_error(path: Path) -> None:
    with pytest.raises(fs.InputError) as refused:
        registry.read(str(path), path.parent.name)
    assert str(path) in str(refused.value)  # the error names the file (and where in it, where the format can)


@pytest.mark.parametrize("path", CASES, ids=[f"{path.parent.name}/{path.stem}" for path in CASES])
def test_convert_ends_a_once_crashing_input_with_exit_1_and_one_line(
    path: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """What the user sees: `flamespace convert` says what was wrong in one line, exit 1 (not 2)."""
    assert main(["convert", str(path), "--from", path.parent.name, "-o", str(tmp_path / "out")]) == 1
    error = capsys.readouterr().err
    assert error.startswith(f"flamespace convert: error: {path}") and error.count("\n") == 1 and "internal error" not in error
