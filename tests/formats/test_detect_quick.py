"""formats/recognition.py's quicker pre-checks answer as the plain ones: ``token in head`` and the first line's pid."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from flamespace.formats import recognition

TOKENS = [
    b"sched:sched_stat_",
    b"<trace-query-result",
    b"\t \t",
    b"\n#",
    b"TID ",
    b"@[",
    b"%  [",
    b" : ",
    b"`",
    b"0x",
    b'  File "',
]
PIECES = st.sampled_from(
    TOKENS + [b"a", b";", b" ", b"\n", b"\r\n", b"\r", b"#", b"x", b"0", b"12", b"comm 12/3 ev:", b"m1.f (f:3) 5"]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(PIECES, max_size=60).map(b"".join), st.sampled_from(TOKENS))
def test_has_is_in(head, token):
    assert recognition._has(token, head) == (token in head)


def first_line_has_pid(head: bytes) -> bool:
    """The plain definition: every line of the head split."""
    for line in head.splitlines()[:64]:
        if line and not line.startswith(b"#"):
            return b":" in line and any(word.replace(b"/", b"").isdigit() for word in line.split()[1:-1])
    return True


LINES = st.sampled_from(
    [b"", b"#", b"# comment " * 50, b"a" * 300, b"comm 12/3 1.0: cycles:", b"f (a.py:1) 5", b"x" * 5000, b"p 1 :", b"\r"]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(LINES, max_size=120), st.sampled_from([b"\n", b"\r\n", b"\r"]), st.integers(0, 70_000))
def test_first_line_has_pid_reads_only_the_first_lines_but_answers_the_same(lines, newline, cut):
    head = newline.join(lines)[:cut]
    assert recognition._first_line_has_pid(head) == first_line_has_pid(head)


def _profile_heads() -> list[tuple[str, bytes]]:
    """The first bytes of every profile the tests and the peers' fixtures hold (gzip undone)."""
    import gzip
    from pathlib import Path

    from tests.conftest import PEER_FIXTURES

    heads = []
    for folder in (Path(__file__).resolve().parents[1] / "data", PEER_FIXTURES):
        for path in sorted(folder.rglob("*")) if folder.is_dir() else []:
            if path.is_file() and path.suffix not in (".svg", ".html", ".md", ".py", ".png"):
                data = path.read_bytes()[: recognition.SNIFF_BYTES * 4]
                if data[:2] == b"\x1f\x8b":
                    try:
                        data = gzip.decompress(data)
                    except (OSError, EOFError):
                        continue  # cut short above: a gzip member's end is needed
                heads.append((str(path), data[: recognition.SNIFF_BYTES]))
    return heads


def test_no_precheck_refuses_what_its_format_accepts():
    """A pre-check only saves importing a format: wherever the format's own sniff says yes (every
    profile in the tests' data and the peers' fixtures), its pre-check lets the head through."""
    heads = _profile_heads()
    assert len(heads) > 100
    wrong = []
    for name, precheck in recognition.PRECHECKS.items():
        check = precheck[0] if isinstance(precheck, tuple) else precheck
        fmt = recognition.load(name)
        wrong += [(name, path) for path, head in heads if fmt.sniff(head) is True and not check(head)]
    assert not wrong
