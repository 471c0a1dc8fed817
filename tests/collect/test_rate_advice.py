"""What rate gives a run enough samples: Quality.rate_for, the warning's advice, and
collect_runs recording the measured runs with options chosen from the warm-up runs."""

from __future__ import annotations

import pytest

import flamespace as fs
from flamespace.collect.raw import (
    AIMED_SAMPLES,
    MIN_TRUSTED_SAMPLES,
    Quality,
    round_rate,
)
from flamespace.collect.target import parse_command


def quality(seconds: float, ticks: int, samples: int, missed: int = 0) -> Quality:
    q = Quality()
    q.duration_ns, q.ticks, q.samples, q.missed = int(seconds * 1e9), ticks, samples, missed
    return q


def test_the_rate_for_a_number_of_samples_scales_with_the_threads_a_tick_finds() -> None:
    assert quality(0.5, 50, 50).rate_for(200) == pytest.approx(400)  # one thread: 200 samples in 0.5 s
    assert quality(0.5, 50, 150).rate_for(200) == pytest.approx(400 / 3)  # three threads a tick
    assert quality(0.004, 0, 0).rate_for(200) == pytest.approx(50_000)  # no tick yet: one thread assumed
    assert quality(0.5, 50, 0).rate_for(200) is None  # cpu mode, a program that only waited: no rate helps
    assert Quality().rate_for(200) is None


def test_rates_are_rounded_up_to_two_digits() -> None:
    assert [round_rate(r) for r in (4444.0, 4400.0, 96.1, 7.2, 10_001.0)] == [4500, 4400, 97, 8, 11_000]


def test_the_few_samples_warning_says_which_rate_would_do() -> None:
    """A 0.5 s run at 100 Hz (the default) has about 50 samples: --rate 400 gives 200."""
    (problem,) = quality(0.5, 48, 48).problems(100)
    assert problem == (
        f"only 48 samples (shares are uncertain below {MIN_TRUSTED_SAMPLES}; record longer, or raise "
        f"--rate: --rate 400 gives about {AIMED_SAMPLES} a run this long)"
    )


def test_too_short_for_any_rate_and_a_sampler_that_fell_behind_are_said_so() -> None:
    (short,) = quality(0.005, 1, 1).problems(10_000)[:1]
    assert "record longer: even --rate 10,000, the highest, would give about 50 (repeat the work" in short
    behind = quality(0.5, 40, 40, missed=160).problems(1000)
    assert "at 1,000 Hz a punctual sampler takes about 500 in a run this long, but this one missed ticks" in behind[0]
    assert "the sampler fell behind" in behind[1]


def test_the_measured_runs_use_the_options_chosen_from_the_warm_up_runs(tmp_path) -> None:
    seen = []

    def choose(warmups):
        seen.extend(warmups)
        return fs.SamplerOptions(rate=250)

    program = fs.Program(parse_command([], code="import time; time.sleep(0.05)"))
    result = fs.collect_runs([program], 2, tmp_path / "out", fs.SamplerOptions(rate=100), warmup=1, measured_options=choose)
    assert [(run.warmup, run.quality is not None and run.quality.duration_ns > 0) for run in seen] == [(True, True)]
    assert [fs.read(path).metadata.labels["rate_requested"] for path in result.profiles(program)] == ["250", "250"]
    with pytest.raises(fs.ArgumentError, match="need a warm-up run"):
        fs.collect_runs([program], 1, tmp_path / "none", fs.SamplerOptions(), measured_options=choose)
