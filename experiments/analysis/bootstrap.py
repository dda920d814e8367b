"""Bootstrap confidence intervals for censored statistics (percentile bootstrap, seeded).

A censored time (no verified answer within the limit) is ``inf``. Resampling
instances with replacement and recomputing a censored median gives ``inf`` in
those resamples where half or more of the drawn instances were censored; an
interval whose upper end is ``inf`` is honest: "more than the limit".

Intervals are order statistics of the resampled values (no interpolation, so
an ``inf`` never turns into ``nan``). The same ``seed`` gives the same interval
on any machine, so a report regenerates bit for bit.

Cost: resamples are drawn in chunks of at most :data:`CHUNK` values (the same draws as all at
once), so memory stays bounded whatever the sample size. A median over more than
:data:`EXACT_ABOVE` instances needs no resampling at all: its interval is the distribution-free
order-statistic interval [x(k), x(m-k+1)] of the sorted sample, k the largest with
P(Binomial(m, 1/2) < k) <= (1-c)/2 (what the percentile bootstrap of a median approaches as m
grows), computed in O(m) with one partition.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: resamples per interval
RESAMPLES: int = 2000
#: the generator seed of every interval unless told otherwise
SEED: int = 20261122
#: two-sided coverage
CONFIDENCE: float = 0.95
#: at most this many resampled values held at once
CHUNK: int = 4_000_000
#: medians of more instances than this get the order-statistic interval, not resampling
EXACT_ABOVE: int = 2000


@dataclass(frozen=True)
class Interval:
    """A point estimate with its bootstrap interval [low, high] (``inf`` = censored)."""
    estimate: float
    low: float
    high: float
    confidence: float = CONFIDENCE

    def contains(self, value: float) -> bool:
        return self.low <= value <= self.high


NO_INTERVAL = Interval(math.nan, math.nan, math.nan)


def censored_medians(samples: np.ndarray) -> np.ndarray:
    """The censored median of each row of ``samples`` (rows partitioned here): linear
    interpolation between the middle order statistics, ``inf`` when either is ``inf``
    (the rule of :func:`experiments.analysis.censored_stats.censored_quantile`)."""
    values = np.asarray(samples, dtype=float)
    size = values.shape[1]
    lo, hi = (size - 1) // 2, size // 2
    values = np.partition(values, sorted({lo, hi}), axis=1)    # the middle two in place: O(size)
    a, b = values[:, lo], values[:, hi]
    with np.errstate(invalid="ignore"):
        middle = a + (b - a) * 0.5
    return np.where(np.isinf(a) | np.isinf(b), np.inf, middle)


def percentile_interval(estimate: float, resampled: np.ndarray,
                        confidence: float = CONFIDENCE) -> Interval:
    """The interval between the (1-c)/2 and (1+c)/2 order statistics of ``resampled``
    (``nan`` entries are dropped; none left gives ``nan`` ends)."""
    values = np.sort(np.asarray(resampled, dtype=float))
    values = values[~np.isnan(values)]
    if values.size == 0:
        return Interval(estimate, math.nan, math.nan, confidence)
    tail = (1.0 - confidence) / 2.0
    low = values[int(math.floor(tail * (values.size - 1)))]
    high = values[int(math.ceil((1.0 - tail) * (values.size - 1)))]
    return Interval(estimate, float(low), float(high), confidence)


def resample_medians(times: np.ndarray | list[float], rng: np.random.Generator,
                     resamples: int = RESAMPLES) -> np.ndarray:
    """``resamples`` censored medians of ``times`` resampled with replacement."""
    values = np.asarray(times, dtype=float)
    medians = [censored_medians(values[picks]) for picks in resampled_picks(values.size, rng, resamples)]
    return np.concatenate(medians) if medians else np.array([])


def resampled_picks(size: int, rng: np.random.Generator, resamples: int = RESAMPLES):
    """The bootstrap's index arrays, ``resamples`` rows of ``size`` draws from ``rng``, yielded in
    chunks of at most :data:`CHUNK` values (the same draws as one ``(resamples, size)`` array)."""
    step = max(1, CHUNK // max(size, 1))
    for at in range(0, resamples, step):
        yield rng.integers(0, size, size=(min(step, resamples - at), size))


def order_statistic_ranks(size: int, confidence: float = CONFIDENCE) -> tuple[int, int]:
    """The 0-based ranks (low, high) of the order-statistic interval for the median of
    ``size`` values: the largest k with P(Binomial(size, 1/2) < k) <= (1-c)/2, as
    (k - 1, size - k); (0, size - 1) when no k reaches the coverage."""
    half = np.arange((size + 1) // 2 + 1)
    steps = np.log((size - half[1:] + 1) / half[1:])             # log C(m, j) / C(m, j - 1)
    log_pmf = np.concatenate([[0.0], np.cumsum(steps)]) + size * math.log(0.5)
    below = np.concatenate([[0.0], np.cumsum(np.exp(log_pmf))])   # below[k] = P(B < k)
    k = int(np.searchsorted(below, (1.0 - confidence) / 2.0, side="right")) - 1
    k = max(k, 1)       # P(B < k) <= tail for this k
    return k - 1, size - k


def order_statistic_interval(values: np.ndarray, confidence: float = CONFIDENCE) -> Interval:
    """The censored median of ``values`` with its order-statistic interval (module docstring);
    ``inf`` ends stay ``inf`` (more than the limit)."""
    size = values.size
    low, high = order_statistic_ranks(size, confidence)
    middle = ((size - 1) // 2, size // 2)
    picked = np.partition(values, sorted({low, high, *middle}))
    a, b = picked[middle[0]], picked[middle[1]]
    estimate = math.inf if math.isinf(a) or math.isinf(b) else float(a + (b - a) * 0.5)
    return Interval(estimate, float(picked[low]), float(picked[high]), confidence)


def median_interval(times: np.ndarray | list[float], resamples: int = RESAMPLES, seed: int = SEED,
                    confidence: float = CONFIDENCE) -> Interval:
    """The censored median of ``times`` (``inf`` = censored) with its bootstrap interval
    over instances (over :data:`EXACT_ABOVE` instances: the order-statistic interval,
    no resampling); ``nan`` throughout for no data."""
    values = np.asarray(times, dtype=float)
    if values.size == 0:
        return NO_INTERVAL
    if values.size > EXACT_ABOVE:
        return order_statistic_interval(values, confidence)
    estimate = float(censored_medians(values[None, :])[0])
    resampled = resample_medians(values, np.random.default_rng(seed), resamples)
    return percentile_interval(estimate, resampled, confidence)


def slopes(ns: np.ndarray, log_medians: np.ndarray) -> np.ndarray:
    """Least-squares slope of each row of ``log_medians`` against ``ns``; ``inf`` for a
    row with a censored (``inf``) point: the growth is then more than measurable."""
    x = np.asarray(ns, dtype=float)
    dx = x - x.mean()
    y = np.asarray(log_medians, dtype=float)
    censored = np.isinf(y).any(axis=1)
    safe = np.where(np.isinf(y), 0.0, y)
    fitted = (safe - safe.mean(axis=1, keepdims=True)) @ dx / float(dx @ dx)
    return np.where(censored, np.inf, fitted)


def growth_interval(times_by_n: dict[int, np.ndarray], resamples: int = RESAMPLES, seed: int = SEED,
                    confidence: float = CONFIDENCE) -> Interval:
    """Bootstrap interval of the fitted growth factor per step of n, ``10**slope`` of
    log10(median time) against n, over the n of ``times_by_n`` (the fitted range,
    chosen by the caller: every median there is measured). Instances are resampled
    within each n; a resample whose median is censored at some n counts as growth
    beyond measure (``inf``). Needs two n; ``nan`` otherwise."""
    ns = sorted(times_by_n)
    if len(ns) < 2:
        return NO_INTERVAL
    rng = np.random.default_rng(seed)
    point = np.array([[float(censored_medians(np.asarray(times_by_n[n], float)[None, :])[0])
                       for n in ns]])
    columns = [resample_medians(times_by_n[n], rng, resamples) for n in ns]
    with np.errstate(divide="ignore"):
        estimate = float(10.0 ** slopes(np.array(ns), np.log10(point))[0])
        resampled = 10.0 ** slopes(np.array(ns), np.log10(np.column_stack(columns)))
    return percentile_interval(estimate, resampled, confidence)


def ratio_interval(ratios: np.ndarray | list[float], resamples: int = RESAMPLES, seed: int = SEED,
                   confidence: float = CONFIDENCE) -> Interval:
    """The median of paired ratios (``inf``: only the denominator's entrant answered;
    ``0``: only the numerator's) with its bootstrap interval over pairs: the same
    censored median as :func:`median_interval`, on ratios instead of times."""
    return median_interval(ratios, resamples, seed, confidence)
