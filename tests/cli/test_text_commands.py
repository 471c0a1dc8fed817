"""merge, sub and scale read stack texts, not frames: their output is what the frame path writes, byte for byte.

The goldens under tests/data/cli/ were written by the commands before they read texts; the
hypothesis test compares each command with the library's frame path on random inputs.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flamespace.cli import main
from flamespace.core.algebra import sum_graphs
from flamespace.core.differential import Differential
from flamespace.errors import InputError
from flamespace.formats import folded, registry

from ..conftest import assert_golden

# Stacks with spaces, tabs, non-ASCII (undecodable bytes: tests/formats/test_folded_texts.py), empty frames and the empty stack;
# counts as ints, decimals, zeros and with leading zeros; duplicates; headers; CRLF.
FRAMES = st.sampled_from(["main", "a", "b", "x y", "ü", "t\tu", "", "0x1F", "é", "z9", "w 7", "v\t1."])
STACK = st.lists(FRAMES, max_size=4).map(";".join)
COUNT = st.sampled_from(["1", "2", "0", "17", "007", "2.5", "0.1", "3.", "1000000000000000000000"])
HEADER = st.sampled_from(["", "# unit: samples\n", "# unit: ns\n", "# host: a\n", "# metric: cpu\n# host: b\n"])
FILE = st.tuples(HEADER, st.lists(st.tuples(STACK, COUNT), max_size=12), st.sampled_from(["\n", "\r\n"])).map(
    lambda parts: parts[0] + "".join(f"{stack} {count}{parts[2]}" for stack, count in parts[1])
)


def _run(capsys, *args) -> tuple:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def _result(capsys, *args) -> tuple:
    """(0, output) or (1, None), as :func:`_expected` gives them."""
    code, out, _ = _run(capsys, *args)
    return code, out if code == 0 else None


def _frames(path: Path):
    """What the commands read before: a profile, never differential input."""
    profile = registry.read(path)
    if isinstance(profile, Differential):
        raise InputError("is differential input", str(path))
    return profile


def _expected(function) -> tuple:
    """(0, output) of the frame path, or (1, None) when it fails (the commands then exit 1 too)."""
    try:
        return 0, function()
    except ValueError:  # InputError, UnitMismatchError, ArgumentError
        return 1, None


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(FILE, min_size=1, max_size=4), st.booleans(), st.sampled_from(["0", "1", "3", "0.5", "2.5"]))
def test_merge_sub_and_scale_write_what_the_frame_path_writes(capsys, texts, header, factor):
    with tempfile.TemporaryDirectory() as directory:
        paths = []
        for index, text in enumerate(texts):
            path = Path(directory) / f"run{index}.folded"
            path.write_bytes(text.encode("utf-8", "surrogateescape"))
            paths.append(path)
        options = {"header": header}
        flags = [] if header else ["--no-header"]
        graphs = lambda: [_frames(p) for p in paths]  # noqa: E731

        assert _result(capsys, "merge", *flags, *paths) == _expected(
            lambda: folded.dumps(sum_graphs(graphs()), folded.WriteOptions(**options))
        )
        assert _result(capsys, "merge", "--mean", *flags, *paths) == _expected(
            lambda: folded.dumps(sum_graphs(graphs()) / len(paths), folded.WriteOptions(**options))
        )
        first, second = paths[0], paths[-1]
        for normalize in ([], ["-n"]):
            actual = _result(capsys, "sub", *normalize, *flags, first, second)

            def difference() -> str:
                pair = Differential(_frames(first), _frames(second))
                return folded.dumps(pair.normalized() if normalize else pair, folded.WriteOptions(**options))

            assert actual == _expected(difference)
        number = float(factor) if "." in factor else int(factor)

        def scaled() -> str:
            profile = registry.read(first)  # scale takes differential input too: both sides
            if isinstance(profile, Differential):
                return folded.dumps(profile.map(lambda graph: graph * number), folded.WriteOptions(**options))
            return folded.dumps(profile * number, folded.WriteOptions(**options))

        assert _result(capsys, "scale", *flags, factor, first) == _expected(scaled)


DIFFERENTIAL = "a;b 1 2\nc 3 0\n"
BEFORE = "# unit: samples\n# host: h1\nmain;parse;lex 12\nmain;parse 3\nmain;eval\t7\nmain;ü 0.5\nmain;x y 2\n main 1\nmain;parse;lex 1\n"
AFTER = "# unit: samples\n# host: h1\r\nmain;parse;lex 20\r\nmain;eval\t1.25\r\nmain;gc 4\r\nmain;x y 2\r\n"


def test_goldens_written_before_the_text_path(capsys, tmp_path):
    before = tmp_path / "before.folded"
    after = tmp_path / "after.folded"
    diff = tmp_path / "diff.folded"
    before.write_text(BEFORE, encoding="utf-8")
    after.write_bytes(AFTER.encode())
    diff.write_text(DIFFERENTIAL, encoding="utf-8")
    cases = {
        "merge.folded": ["merge", before, after],
        "merge-mean.folded": ["merge", "--mean", before, after, after],
        "sub.folded": ["sub", before, after],
        "sub-n.folded": ["sub", "-n", after, before],
        "scale.folded": ["scale", "3", before],
        "scale-float.folded": ["scale", "0.1", after],
        "scale-differential.folded": ["scale", "2", diff],
    }
    for name, args in cases.items():
        code, out, err = _run(capsys, *args)
        assert code == 0, err
        assert_golden(out, f"cli/{name}", tmp_path)
    code, _, err = _run(capsys, "merge", before, diff)
    assert code == 1 and "diff.folded: is differential input (two counts per line); 'merge' needs a profile" in err
