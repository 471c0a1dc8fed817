"""The method seam (stats/methods.py): one registry, one entry point, capabilities read from it."""

from __future__ import annotations

import inspect
import re

import numpy as np
import pytest

from flamespace.errors import ArgumentError
from flamespace.stats import comparison, hotelling, maxt, methods, welch
from flamespace.stats.comparison import CompareOptions


def test_every_method_has_its_conformance_line() -> None:
    """mypy checks a method module against Method only where methods.py names it (as formats' _conformance)."""
    source = inspect.getsource(methods)
    for name in methods.REGISTRY:
        assert re.search(rf"^    _{name}: Method = {name}$", source, re.M), f"add '_{name}: Method = {name}' to methods.py"


def test_the_cli_lists_the_registry() -> None:
    assert comparison.METHODS == methods.METHODS and methods.DEFAULT_METHOD == "maxt"


def _runs(seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x1 = rng.poisson(50, size=(6, 4)).astype(float)
    x2 = rng.poisson(50, size=(6, 4)).astype(float)
    x2[:, 0] += 40
    return x1, x2


@pytest.mark.parametrize(
    ("name", "direct"),
    [
        (
            "maxt",
            lambda x1, x2, o: maxt.test(
                x1, x2, o.alpha, o.permutations, o.seed, o.alternative, o.fdr_method, paired=o.paired, statistic=o.statistic
            ),
        ),
        ("welch", lambda x1, x2, o: welch.test(x1, x2, o.alpha, o.fdr_method, o.alternative)),
        ("hotelling", lambda x1, x2, o: hotelling.test(x1, x2, o.alpha, o.alternative)),
    ],
)
def test_run_is_the_test_with_compares_options(name: str, direct) -> None:  # type: ignore[no-untyped-def]
    x1, x2 = _runs(1)
    options = CompareOptions(method=name, alternative="greater")
    seam, plain = methods.load(name).run(x1, x2, options), direct(x1, x2, options)
    assert np.array_equal(seam.p_adjusted, plain.p_adjusted) and np.array_equal(seam.significant, plain.significant)
    assert bool(seam.significant[0])


def test_capabilities_decide_what_options_a_method_takes() -> None:
    with pytest.raises(ArgumentError, match="--fdr applies to maxt and welch"):
        CompareOptions(method="hotelling", fdr="bh")
    with pytest.raises(ArgumentError, match="permutation test: use --method maxt"):
        CompareOptions(method="welch", paired=True)
    with pytest.raises(ArgumentError, match="unknown method 'anova'; choose one of maxt, welch, hotelling"):
        CompareOptions(method="anova")
    assert methods.stack_check("hotelling") is hotelling.check_stacks and methods.stack_check("maxt") is None
