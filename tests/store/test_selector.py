"""Store selectors: parsed in one place, with errors that name the bad part."""

from __future__ import annotations

from datetime import datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from flamespace.store.selector import COLUMNS, Selector, SelectorError, is_selector, parse_selector


def test_a_selector_of_labels_and_limits():
    chosen = parse_selector("store:branch=main,bench=parse,last=30,since=2026-11-01")
    assert chosen.labels == {"branch": "main", "bench": "parse"}
    assert chosen.last == 30 and chosen.since == datetime(2026, 11, 1) and chosen.until is None


def test_times_with_a_zone_become_utc():
    assert parse_selector("store:until=2026-11-01T12:00+02:00").until == datetime(2026, 11, 1, 10, 0)


@pytest.mark.parametrize(
    "text, says",
    [
        ("store:", "empty selector"),
        ("store:branch", "'branch' is not key=value"),
        ("store:branch=", "is not key=value"),
        ("store:=main", "is not key=value"),
        ("store:a=b=c", "is not key=value"),
        ("store:branch=main,branch=dev", "branch is given twice"),
        ("store:last=0", "last must be a whole number ≥ 1"),
        ("store:last=ten", "last must be a whole number"),
        ("store:since=yesterday", "since=yesterday is not a date"),
        ("store:since=2026-11-02,until=2026-11-01", "since is after until"),
        ("store:br anch=main", "is no key"),
        ("branch=main", "is not a store selector"),
    ],
)
def test_parse_errors_name_the_part(text, says):
    with pytest.raises(SelectorError, match=None) as caught:
        parse_selector(text)
    assert says in str(caught.value)


keys = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_-.0123456789", min_size=1, max_size=8).filter(
    lambda k: k not in ("last", "since", "until", "id")
)
values = st.text(
    alphabet=st.characters(blacklist_characters=",=", blacklist_categories=("Cs", "Zs", "Cc", "Zl", "Zp")),
    min_size=1,
    max_size=10,
)
times = st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1)).map(lambda t: t.replace(microsecond=0))


@given(
    st.dictionaries(keys, values, max_size=4),
    st.none() | st.integers(1, 10**6),
    st.none() | times,
    st.none() | st.integers(0, 10**6),
)
def test_a_selector_text_parses_back_to_itself(labels, last, since, ident):
    chosen = Selector(labels=labels, last=last, since=since, id=ident)
    if not chosen.text()[len("store:") :]:
        return  # nothing to select: the empty selector is an error (tested above)
    assert parse_selector(chosen.text()) == chosen


@given(st.text(max_size=40))
def test_parsing_raises_only_selector_errors(text):
    try:
        parse_selector("store:" + text)
    except SelectorError:
        pass


def test_label_columns_and_the_prefix():
    assert "commit" in COLUMNS and "branch" in COLUMNS
    assert is_selector("store:branch=main") and not is_selector("runs/") and not is_selector(None)
