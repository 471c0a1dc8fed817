"""The t, F and χ² tails and quantiles of stats._tails against scipy (which stays a test dependency)."""

from fractions import Fraction
from math import comb

import numpy as np
import pytest
from scipy import stats

from flamespace.stats import _tails

#: Degrees of freedom 1 to 10^4, fractional ones too (Welch's are).
DOF = np.concatenate([np.arange(1, 31), [1.5, 2.7, 45.3, 100, 333.3, 1000, 4999.5, 1e4]])
F_DOF = [1, 2, 3, 5, 10, 50, 200, 1000, 1e4]
RELATIVE = 1e-10
#: Against exact arithmetic: the worst seen on a grid of F(1..10^4, 1..10^4) tails against
#: 40-digit mpmath was 1.7e-13 (scipy's 1.2e-13), with room for another CPU's log and exp.
EXACT_RELATIVE = 2e-12
#: scipy's own tails lose precision below this (its F survival at 1e-298 is 60% off).
SCIPY_FLOOR = 1e-280


def relative_error(got, want):
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(got == want, 0.0, np.abs(got - want) / np.abs(want))


@pytest.mark.parametrize("df", DOF)
def test_t_tail_matches_scipy_to_the_far_tails(df):
    t = np.concatenate([np.linspace(-50, 50, 201), np.geomspace(1e-3, 1e150, 300)])
    want = stats.t.sf(t, df)
    kept = want >= SCIPY_FLOOR
    assert relative_error(_tails.t_sf(t, df)[kept], want[kept]).max() <= RELATIVE


@pytest.mark.parametrize("d1", F_DOF)
@pytest.mark.parametrize("d2", F_DOF)
def test_f_tail_matches_scipy_to_the_far_tails(d1, d2):
    f = np.geomspace(1e-6, 1e100, 300)
    want = stats.f.sf(f, d1, d2)
    kept = want >= SCIPY_FLOOR
    assert relative_error(_tails.f_sf(f, d1, d2)[kept], want[kept]).max() <= RELATIVE


def exact_beta(x: Fraction, a: int, b: int) -> Fraction:
    """I_x(a, b) for whole a, b: a binomial tail, in exact arithmetic (summed on its shorter side)."""
    n = a + b - 1
    if a <= b:
        return 1 - sum((comb(n, j) * x**j * (1 - x) ** (n - j) for j in range(a)), Fraction(0))
    return sum((comb(n, j) * x**j * (1 - x) ** (n - j) for j in range(a, n + 1)), Fraction(0))


@pytest.mark.parametrize(
    "d1, d2, f",
    [
        (50, 98, 5788177),
        (2, 4, 10**140),
        (6, 2, 10**290),
        (20, 30, 10**14),
        # many numerator dof, few denominator: log(1 − x) was taken as a
        # difference of two logs ≈ 20 there, and b = 5000 times its error
        # cost 1e-11 of relative precision (2e-13 now, as scipy's)
        (10000, 2, 60209),
        (10000, 4, 300),
        (2000, 2, 10**6),
    ],
)
def test_f_tail_beyond_scipys_precision_matches_exact_arithmetic(d1, d2, f):
    want = exact_beta(Fraction(d2, d2 + d1 * f), d2 // 2, d1 // 2)
    assert want > Fraction(1, 10**300)
    assert relative_error(_tails.f_sf(float(f), d1, d2), float(want)) <= EXACT_RELATIVE


@pytest.mark.parametrize("df", DOF)
def test_t_quantile_gives_back_its_tail(df):
    q = np.concatenate([np.geomspace(1e-200, 0.5, 120), np.linspace(0.01, 0.99, 49)])
    t = _tails.t_isf(q, df)
    judged = t < 1e150  # scipy's t tail is 0 beyond (t² overflows)
    assert relative_error(stats.t.sf(t[judged], df), q[judged]).max() <= RELATIVE
    usual = q >= 1e-6  # where scipy's own quantile is exact (at 1e-12 its F quantile is 3e-7 off)
    assert relative_error(t[usual], stats.t.isf(q[usual], df)).max() <= RELATIVE


@pytest.mark.parametrize("d1", F_DOF)
@pytest.mark.parametrize("d2", F_DOF)
def test_f_quantile_gives_back_its_tail(d1, d2):
    q = np.concatenate([np.geomspace(1e-200, 0.5, 60), np.linspace(0.01, 0.99, 30)])
    f = _tails.f_isf(q, d1, d2)
    finite = np.isfinite(f)  # F(1, 1) beyond 1e-154 lies past the largest float
    assert finite[q >= 1e-100].all()
    finite &= q >= 1e-150  # scipy's F(10^4, 1) tail is 0 at 1e-200; exact arithmetic checks beyond
    assert relative_error(stats.f.sf(f[finite], d1, d2), q[finite]).max() <= RELATIVE
    usual = q >= 1e-6
    assert relative_error(f[usual], stats.f.isf(q[usual], d1, d2)).max() <= RELATIVE


@pytest.mark.parametrize("df", [1, 2, 5, 9, 49, 100, 1000])
def test_chi2_quantile_gives_back_its_tail(df):
    p = np.concatenate([np.geomspace(1e-200, 0.5, 60), np.linspace(0.01, 0.99, 30)])
    x = _tails.chi2_ppf(p, df)
    judged = x > 1e-290  # χ²(1) below 1e-200 lies below 1e-400: 0 in floats
    assert relative_error(stats.chi2.cdf(x[judged], df), p[judged]).max() <= RELATIVE
    assert relative_error(x[judged], stats.chi2.ppf(p[judged], df)).max() <= RELATIVE


def test_edges():
    assert _tails.t_sf(np.inf, 3) == 0 and _tails.t_sf(-np.inf, 3) == 1 and _tails.t_sf(0.0, 3) == 0.5
    assert np.isnan(_tails.t_sf(np.nan, 3))
    assert _tails.f_sf(0.0, 2, 3) == 1 and _tails.f_sf(np.inf, 2, 3) == 0
    assert _tails.t_isf(0.5, 7) == 0 and _tails.t_isf(0.0, 7) == np.inf
    assert _tails.f_isf(1e-300, 1, 1) == np.inf  # beyond the largest float
    assert relative_error(_tails.t_isf(0.95, 7), -stats.t.isf(0.05, 7)) <= RELATIVE
    assert relative_error(_tails.normal_ppf(0.8), stats.norm.ppf(0.8)) <= 1e-14
