"""formats/registry.py's quicker pre-checks answer as the plain ones: ``token in head`` and the first line's pid."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from flamespace.formats import registry

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
    assert registry._has(token, head) == (token in head)


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
    assert registry._first_line_has_pid(head) == first_line_has_pid(head)
