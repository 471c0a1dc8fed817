"""Every relative link of the documentation leads somewhere: the file exists and, when the link
names a heading (``page.md#anchor``), the page has that heading. Pages move and headings are
renamed (docs/performance.md and docs/robustness.md were reorganised); a reader following a
link from another page should not land on nothing."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted([*ROOT.glob("*.md"), *(ROOT / "docs").glob("*.md")])
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
EXPLICIT_ANCHOR = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"")
FENCE = re.compile(r"^\s*(```|~~~)")


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"<[^>]+>", "", heading)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link in a heading keeps its text
    kept = "".join(c for c in text.lower() if c in " -_" or unicodedata.category(c)[0] in "LNM")
    return kept.replace(" ", "-")


def prose_lines(page: Path) -> list[str]:
    """The page's lines outside fenced code blocks (a link in code is an example, not a link)."""
    lines, fenced = [], False
    for line in page.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def anchors(page: Path) -> set[str]:
    """The anchors a page defines: its headings' slugs (repeats numbered as GitHub does) and ids."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    for line in prose_lines(page):
        found.update(EXPLICIT_ANCHOR.findall(line))
        match = HEADING.match(line)
        if match:
            base = slug(match[2])
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


def broken_links(page: Path) -> list[str]:
    """Each relative link of the page that leads nowhere, with the reason."""
    problems = []
    for line in prose_lines(page):
        line = re.sub(r"`[^`]*`", "", line)  # code spans are not links
        for target in [*LINK.findall(line), *IMAGE.findall(line)]:
            if re.match(r"[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                continue
            path, _, anchor = target.partition("#")
            destination = (page.parent / path).resolve() if path else page
            if not destination.exists():
                problems.append(f"{target}: no such file")
            elif anchor and destination.suffix == ".md" and anchor not in anchors(destination):
                problems.append(f"{target}: no heading #{anchor} in {destination.name}")
    return problems


@pytest.mark.parametrize("page", PAGES, ids=[str(page.relative_to(ROOT)) for page in PAGES])
def test_every_relative_link_leads_somewhere(page: Path) -> None:
    assert broken_links(page) == []


def test_the_slug_is_githubs() -> None:
    assert (
        slug("Every command beside its peer (`make bench`, `benchmarks/bench_commands.py`)")
        == "every-command-beside-its-peer-make-bench-benchmarksbench_commandspy"
    )
    assert slug("Store: history and the Dask cluster") == "store-history-and-the-dask-cluster"
    assert slug("compare of 50 + 50 runs") == "compare-of-50--50-runs"
