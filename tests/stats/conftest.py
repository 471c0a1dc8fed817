"""Random samples shaped like profiles (counts with a shared run-level slowdown)."""

from __future__ import annotations

import numpy as np
import pytest

from flamespace.stats import Sample


def counts(rng: np.random.Generator, n: int, means: np.ndarray) -> np.ndarray:
    slowdown = rng.lognormal(0.0, 0.05, size=(n, 1))
    return rng.poisson(means[None, :] * slowdown).astype(float)


def as_sample(matrix: np.ndarray, unit: str = "samples") -> Sample:
    from flamespace.core.metadata import Metadata

    return Sample([("main", f"f{j}") for j in range(matrix.shape[1])], matrix, Metadata(unit=unit))


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(20240607)
