"""The arena's intervals (engine.intervals) against slow, obvious references: quantiles found by
integrating the densities numerically, the bootstrap against every resample of a small sample
enumerated, the blocks' figures worked out with the standard library's statistics."""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Callable

import pytest

from engine import intervals


def _simpson(f: Callable[[float], float], low: float, high: float, steps: int = 4000) -> float:
    h = (high - low) / steps
    total = f(low) + f(high)
    for i in range(1, steps):
        total += (4 if i % 2 else 2) * f(low + i * h)
    return total * h / 3


def _t_density(df: int) -> Callable[[float], float]:
    scale = math.gamma((df + 1) / 2) / (math.sqrt(df * math.pi) * math.gamma(df / 2))
    return lambda x: scale * (1 + x * x / df) ** (-(df + 1) / 2)


def _t975_by_integration(df: int) -> float:
    """Bisection on x until the density's integral from 0 to x is 0.475."""
    density = _t_density(df)
    low, high = 0.0, 20.0
    for _ in range(50):
        middle = (low + high) / 2
        if _simpson(density, 0.0, middle) < 0.475:
            low = middle
        else:
            high = middle
    return (low + high) / 2


@pytest.mark.parametrize("df", [1, 2, 3, 4, 7, 12, 20, 21, 30, 60, 200])
def test_the_t_percentile_is_the_densitys(df: int) -> None:
    assert intervals.t975(df) == pytest.approx(_t975_by_integration(df), abs=1.5e-3)


def test_the_t_percentile_needs_a_degree_of_freedom() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        intervals.t975(0)


@pytest.mark.parametrize(("q", "df"), [(0.5, 1), (3.84, 1), (2.0, 2), (7.8, 3), (1.0, 4), (9.0, 5)])
def test_the_chi_squared_tail_is_the_densitys(q: float, df: int) -> None:
    k = df / 2

    def density(x: float) -> float:
        return float(x ** (k - 1)) * math.exp(-x / 2) / (2**k * math.gamma(k))

    assert intervals.chi2_survival(q, df) == pytest.approx(
        _simpson(density, q, q + 120.0, 20000), abs=1e-6
    )


def test_the_bootstrap_interval_is_that_of_every_resample() -> None:
    values = [0.0, 1.0, 3.0, 7.0, 15.0]
    n = len(values)
    # Every one of the 5^5 resamples, each equally likely: the bootstrap's exact distribution.
    exact = sorted(sum(pick) / n for pick in itertools.product(values, repeat=n))

    def quantile(p: float) -> float:
        return exact[int(p * len(exact))]

    low, high = intervals.bootstrap(values)
    assert quantile(0.015) <= low <= quantile(0.035)
    assert quantile(0.965) <= high <= quantile(0.985)
    assert intervals.bootstrap(values) == (low, high)  # seeded: the same interval every time


def test_a_margin_in_blocks_is_the_block_means_interval_and_their_spread() -> None:
    values = [3.0, -1.0, 4.0, 1.0, 5.0, -9.0, 2.0, 6.0, 5.0, 3.0, 5.0, 8.0]
    found = intervals.margin(values, blocks=3)
    blocks = [values[0:4], values[4:8], values[8:12]]
    means = [statistics.fmean(b) for b in blocks]
    assert found.block_means == pytest.approx(means)
    assert found.mean == pytest.approx(statistics.fmean(values))
    assert found.blocks_half_width == pytest.approx(4.303 * statistics.stdev(means) / math.sqrt(3))
    errors = [statistics.stdev(b) / 2 for b in blocks]
    q = sum(((m - found.mean) / e) ** 2 for m, e in zip(means, errors, strict=True))
    assert found.spread_chance == pytest.approx(math.exp(-q / 2))  # chi-squared, 2 df
    assert found.half_width == max(found.blocks_half_width, found.bootstrap_half_width)
    assert "blocks +1.8 +1.0 +5.2" in found.detail()


def test_one_block_quotes_the_bootstrap() -> None:
    found = intervals.margin([1.0, 2.0, 4.0, 8.0])
    assert found.blocks_half_width == math.inf
    assert found.half_width == found.bootstrap_half_width
    assert found.spread_chance == 1.0
    with pytest.raises(ValueError, match="equal blocks"):
        intervals.margin([1.0, 2.0, 3.0], blocks=2)
