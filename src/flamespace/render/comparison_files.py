"""What a comparison of two samples of runs writes: the parts of Δ_r as folded files, the
delta pictures (delta.svg, delta-baseline.svg) and the comparison page, each drawing both
sides' mean profiles coloured by what changed significantly.

    import flamespace as fs
    result = fs.compare(baseline, candidate, alternative="greater")
    fs.render.write_comparison(result, "changes/", samples={"baseline": baseline, "candidate": candidate})
    fs.render.comparison_page(result, "changes.html")
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing costs start-up time; annotations are strings (PEP 563)
if TYPE_CHECKING:
    from typing import Any
    from collections.abc import Mapping

    from .._types import Destination
    from ..core.vector import FlameGraph
    from ..stats.comparison import Comparison
    from ..stats.matrix import Sample

#: The four parts of Δ_r, each written as PART.folded.
PARTS = ("appeared", "grown", "disappeared", "shrunk")
#: What the delta pictures say of the direction tested (a one-sided test leaves two of the four parts empty).
DIRECTION_WORDS = {"two-sided": "both directions", "greater": "regressions only", "less": "improvements only"}


def write_comparison(
    result: Comparison, out_dir: str, *, header: bool = True, samples: Mapping[str, Sample] | None = None
) -> None:
    """Into ``out_dir`` (made if need be): the four parts of Δ_r (empty files when nothing changed),
    Δ_r as two-column differential input (delta.folded; '# key: value' lines unless not ``header``)
    and both mean profiles drawn with their significant changes (:func:`write_delta_svgs`). All
    of them or none: a failure (a full disk) leaves the files of an earlier comparison as they were."""
    from ..formats import outputs_together, registry

    os.makedirs(out_dir, exist_ok=True)
    with outputs_together():  # all parts of one comparison, or the earlier ones untouched (a full disk)
        for name, graph in zip(PARTS, result.parts):
            registry.write(graph, os.path.join(out_dir, f"{name}.folded"), header=header)
        registry.write(result.differential(), os.path.join(out_dir, "delta.folded"), header=header)
        write_delta_svgs(result, out_dir, samples)


def mean_profiles(result: Comparison, samples: Mapping[str, Sample] | None = None) -> tuple[FlameGraph, FlameGraph]:
    """(baseline, candidate) mean flame graphs: of every stack when ``samples`` (the Sample of
    each side, its runs in the order compared) are given, else of the tested stacks (the means in ``result.changes``)."""
    import numpy as np

    from ..core.vector import FlameGraph

    meta = result.reduced.metadata
    sides = ("baseline", "candidate")
    if samples is not None and result.loads is not None and [len(x) for x in result.loads] != [samples[s].n for s in sides]:
        samples = None  # not the runs the loads are of: the tested stacks' means, each run over its load already
    if samples is None:
        baseline, candidate = (
            FlameGraph({c.stack: getattr(c, side) for c in result.changes if getattr(c, side)}, metadata=meta)
            for side in ("baseline", "candidate")
        )
        return baseline, candidate
    graphs = []
    for k, side in enumerate(sides):
        sample = samples[side].normalized() if result.normalized else samples[side]
        matrix = sample.matrix
        if result.loads is not None:  # each run over its load, as it was tested
            matrix = matrix / np.asarray(result.loads[k])[:, None]
        means = matrix.mean(axis=0)
        graphs.append(FlameGraph({s: float(m) for s, m in zip(sample.stacks, means) if m}, metadata=meta))
    return graphs[0], graphs[1]


def write_delta_svgs(result: Comparison, out_dir: str, samples: Mapping[str, Sample] | None = None) -> None:
    """delta.svg: the candidate's mean profile, grey unless a stack changed significantly (red:
    grew or appeared, blue: shrank; callers of a change tinted), with a legend.
    delta-baseline.svg: the same at the baseline means, where disappeared stacks have width
    (red still means more in the candidate). With ``samples`` ({"baseline": Sample,
    "candidate": Sample}) the rare stacks the frequency filter left out are drawn too (grey,
    "not tested"); without, only the tested stacks."""
    from .options import SvgOptions
    from .significance import significance_svg

    baseline, candidate = mean_profiles(result, samples)
    kinds = {c.stack: c.kind or "" for c in result.changes if c.significant}
    tested = {c.stack for c in result.changes}
    untested = (baseline.support() | candidate.support()) - tested
    verdict = _verdict(result)
    if untested:
        drawn = f"all stacks ({len(untested)} rare one(s) not tested, grey)"
    else:
        drawn = f"the {result.tested} tested stacks" + (f" ({result.dropped} rare one(s) left out)" if result.dropped else "")
    note = f"Test: {describe_test(result)}. Δ = candidate − baseline; Δ %: change relative to the frame's baseline mean."
    common: dict[str, Any] = dict(bgcolors="#ffffff", empty_text="No stacks were tested.")
    significance_svg(
        baseline,
        candidate,
        kinds,
        SvgOptions(
            title=f"Candidate mean profile: {verdict}",
            subtitle=f"widths: candidate means of {drawn}; disappeared stacks are in delta-baseline.svg",
            **common,
        ),
        os.path.join(out_dir, "delta.svg"),
        note=note,
        untested=untested,
    )
    significance_svg(
        baseline,
        candidate,
        kinds,
        SvgOptions(
            title=f"Baseline mean profile: {verdict}",
            subtitle=f"widths: baseline means of {drawn}; appeared stacks are in delta.svg",
            **common,
        ),
        os.path.join(out_dir, "delta-baseline.svg"),
        baseline_widths=True,
        note=note,
        untested=untested,
    )


def comparison_page(result: Comparison, path: Destination = None, samples: Mapping[str, Sample] | None = None) -> str | None:
    """The comparison page of both mean profiles (as :func:`write_delta_svgs` draws them): only
    the significant stacks coloured, the tests' p-values and intervals in the tooltips. ``path``
    as :func:`~flamespace.render.html.html`'s output (None: the page is returned)."""
    from .compare_page import comparison_html
    from .html import HtmlOptions

    baseline, candidate = mean_profiles(result, samples)
    note = f"Test: {describe_test(result)}. \u0394 = candidate \u2212 baseline; grey: no significant change."
    return comparison_html(
        [baseline, candidate],
        ["baseline", "candidate"],
        HtmlOptions(title=f"Candidate vs baseline: {_verdict(result)}"),
        path,
        tests={c.stack: c for c in result.changes},
        parts=result.parts,
        note=note,
    )


def _verdict(result: Comparison) -> str:
    changed = len(result.kept)
    return f"{changed} significant change(s)" if changed else "No significant change"


def describe_test(result: Comparison) -> str:
    """The test under the pictures' legend: method, direction, α, error controlled."""
    return f"{result.method} ({DIRECTION_WORDS[result.alternative]}), \u03b1 = {result.alpha:g}, {result.control}"
