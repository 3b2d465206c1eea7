"""The arena's intervals: how far a margin measured over deals may be from the true one.

A margin is the mean of per-deal differences. Its deals are played in *blocks* of consecutive
seeds, and three intervals are worked out:

- the *bootstrap over deals*: the percentile interval of the mean over resamples of the deals
  (with replacement), which needs no normal shape of the per-deal differences (a game's points
  have long tails: one round of a 13-card hand can score 80);
- the *blocks' interval*: Student's t over the block means, with one degree of freedom fewer
  than blocks, which holds whatever makes blocks differ (deals that are not independent, a
  block of lucky seeds) and is wide with few blocks;
- the blocks' *spread*: Cochran's Q, the block means' squared distances from the pooled mean
  over their own squared standard errors, and the chance of a Q as large were the deals all
  alike (chi-squared, blocks less one degrees of freedom). A small chance says the blocks
  differ more than their deals' spread explains.

The arena quotes the wider of the two intervals, so the figure covers the spread between
blocks as well as within them. Resampling is seeded: the same deals give the same interval.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

Z95: Final = 1.96
"""The normal distribution's 97.5th percentile: a 95% interval is 1.96 standard errors."""
BOOTSTRAP_RESAMPLES: Final = 4000
T975: Final = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
)  # fmt: skip
"""Student's t, 97.5th percentile, for 1 to 20 degrees of freedom (beyond: a series)."""


def t975(df: int) -> float:
    """Student's t 97.5th percentile for ``df`` degrees of freedom: the table, then the
    Cornish-Fisher series in 1/df (within 0.001 from 21 degrees of freedom on)."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be at least 1, not {df}")
    if df <= len(T975):
        return T975[df - 1]
    z = Z95
    return (
        z
        + (z**3 + z) / (4 * df)
        + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
        + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * df**3)
    )


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def standard_error(values: Sequence[float]) -> float:
    """The sample standard deviation over the square root of the count (inf for one value)."""
    n = len(values)
    if n < 2:  # noqa: PLR2004 - no spread from one value
        return math.inf
    centre = mean(values)
    return math.sqrt(sum((v - centre) ** 2 for v in values) / (n - 1) / n)


def bootstrap(
    values: Sequence[float], resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0
) -> tuple[float, float]:
    """The 95% percentile interval of the mean over ``resamples`` resamples of ``values``."""
    rng = random.Random(f"three-thirteen-arena-bootstrap/{seed}")
    n = len(values)
    means = sorted(sum(rng.choices(values, k=n)) / n for _ in range(resamples))
    return means[int(0.025 * resamples)], means[math.ceil(0.975 * resamples) - 1]


def split(values: Sequence[float], blocks: int) -> list[Sequence[float]]:
    """``values`` in ``blocks`` consecutive blocks of equal size."""
    if blocks < 1 or len(values) % blocks:
        raise ValueError(f"{len(values)} values do not split into {blocks} equal blocks")
    size = len(values) // blocks
    return [values[i * size : (i + 1) * size] for i in range(blocks)]


def chi2_survival(q: float, df: int) -> float:
    """The chance a chi-squared variable of ``df`` degrees of freedom exceeds ``q`` (the
    closed forms of the regularised upper incomplete gamma function at half-integers)."""
    y = q / 2
    if df % 2 == 0:
        term, total = 1.0, 1.0
        for i in range(1, df // 2):
            term *= y / i
            total += term
        return math.exp(-y) * total
    total = math.erfc(math.sqrt(y))
    term = math.sqrt(y) / math.gamma(1.5)
    for i in range((df - 1) // 2):
        total += math.exp(-y) * term
        term *= y / (i + 1.5)
    return min(total, 1.0)


@dataclass(frozen=True, slots=True)
class Margin:
    """A mean over deals played in blocks, with the intervals above."""

    mean: float
    deals: int
    block_means: tuple[float, ...]
    bootstrap_low: float
    bootstrap_high: float
    blocks_half_width: float
    """t over the block means (inf with one block)."""
    spread_chance: float
    """The chance of blocks as far apart were the deals alike (1.0 with one block)."""

    @property
    def bootstrap_half_width(self) -> float:
        return max(self.mean - self.bootstrap_low, self.bootstrap_high - self.mean)

    @property
    def half_width(self) -> float:
        """The quoted half-width: the wider of the bootstrap's and the blocks' (one block:
        the bootstrap's)."""
        if len(self.block_means) < 2:  # noqa: PLR2004 - no blocks' interval from one block
            return self.bootstrap_half_width
        return max(self.bootstrap_half_width, self.blocks_half_width)

    def __str__(self) -> str:
        return f"{self.mean:+.1f} ± {self.half_width:.1f}"

    def detail(self) -> str:
        """The blocks and both intervals, on one line."""
        if len(self.block_means) < 2:  # noqa: PLR2004 - one block: the bootstrap alone
            return f"bootstrap over {self.deals} deals ± {self.bootstrap_half_width:.2f}"
        blocks = " ".join(f"{m:+.1f}" for m in self.block_means)
        return (
            f"blocks {blocks}; blocks' t ± {self.blocks_half_width:.2f}, bootstrap over "
            f"{self.deals} deals ± {self.bootstrap_half_width:.2f}; "
            f"spread between blocks p = {self.spread_chance:.2f}"
        )


def margin(values: Sequence[float], blocks: int = 1) -> Margin:
    """The mean of ``values`` (per-deal figures, block by block) and its intervals."""
    parts = split(values, blocks)
    block_means = tuple(mean(part) for part in parts)
    centre = mean(values)
    low, high = bootstrap(values)
    if blocks < 2:  # noqa: PLR2004 - no blocks' interval or spread from one block
        return Margin(centre, len(values), block_means, low, high, math.inf, 1.0)
    half = t975(blocks - 1) * standard_error(block_means)
    errors = [standard_error(part) for part in parts]
    if all(0 < e < math.inf for e in errors):
        q = sum(((m - centre) / e) ** 2 for m, e in zip(block_means, errors, strict=True))
        chance = chi2_survival(q, blocks - 1)
    else:  # a block of one deal or without spread (tiny runs): nothing to compare against
        chance = 1.0
    return Margin(centre, len(values), block_means, low, high, half, chance)


__all__ = ["Margin", "bootstrap", "chi2_survival", "margin", "split", "standard_error", "t975"]
