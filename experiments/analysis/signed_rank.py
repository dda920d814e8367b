"""The Wilcoxon signed-rank test (two-sided), without scipy.

Zero differences are dropped (Wilcoxon's convention), tied absolute differences
get their average rank. The p-value is exact (the null distribution of the rank
sum by dynamic programming) when there are no ties and at most
:data:`EXACT_MAX` non-zero differences, else from the normal approximation with
the tie correction of the variance and a continuity correction.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: largest sample for the exact null distribution (2**n subsets, counted by DP)
EXACT_MAX: int = 50


@dataclass(frozen=True)
class SignedRank:
    """Result of the test: ``w_plus`` / ``w_minus`` the rank sums of the positive and
    negative differences, ``used`` the non-zero differences, ``z`` the normal score
    (``nan`` for the exact method), ``p`` the two-sided p-value, ``method``
    ``"exact"``, ``"normal"`` or ``"none"`` (no non-zero difference: p = 1)."""
    w_plus: float
    w_minus: float
    used: int
    z: float
    p: float
    method: str


def average_ranks(values: np.ndarray) -> np.ndarray:
    """Ranks 1..len of ``values``, ties sharing their average rank."""
    order = np.argsort(values, kind="mergesort")
    ranks = np.empty(len(values), dtype=float)
    sorted_values = values[order]
    start = 0
    while start < len(values):
        end = start
        while end + 1 < len(values) and sorted_values[end + 1] == sorted_values[start]:
            end += 1
        ranks[order[start:end + 1]] = (start + end) / 2.0 + 1.0
        start = end + 1
    return ranks


def exact_cdf(n: int, w: float) -> float:
    """P(W <= w) for the signed-rank statistic of ``n`` untied differences under the null:
    the share of the 2**n sign patterns whose positive rank sum is at most ``w``."""
    top = n * (n + 1) // 2
    counts = np.zeros(top + 1, dtype=float)
    counts[0] = 1.0
    for rank in range(1, n + 1):
        counts[rank:] = counts[rank:] + counts[:-rank].copy()
    return float(counts[: int(math.floor(w)) + 1].sum() / 2.0 ** n)


def signed_rank_test(differences: np.ndarray | list[float]) -> SignedRank:
    """The two-sided Wilcoxon signed-rank test of "the differences are symmetric about 0".
    ``differences`` may hold ``inf`` and ``-inf`` (a censored side): they rank above
    every finite difference (and tie with each other)."""
    d = np.asarray(differences, dtype=float)
    d = d[d != 0]
    if d.size == 0:
        return SignedRank(0.0, 0.0, 0, math.nan, 1.0, "none")
    ranks = average_ranks(np.abs(d))
    w_plus, w_minus = float(ranks[d > 0].sum()), float(ranks[d < 0].sum())
    n = d.size
    tied = len(np.unique(ranks)) < n
    if n <= EXACT_MAX and not tied:
        p = min(1.0, 2.0 * exact_cdf(n, min(w_plus, w_minus)))
        return SignedRank(w_plus, w_minus, n, math.nan, p, "exact")
    mean = n * (n + 1) / 4.0
    _, counts = np.unique(ranks, return_counts=True)
    variance = n * (n + 1) * (2 * n + 1) / 24.0 - float((counts ** 3 - counts).sum()) / 48.0
    if variance <= 0:
        return SignedRank(w_plus, w_minus, n, math.nan, 1.0, "normal")
    excess = w_plus - mean
    z = math.copysign(max(abs(excess) - 0.5, 0.0), excess) / math.sqrt(variance)
    p = min(1.0, math.erfc(abs(z) / math.sqrt(2.0)))
    return SignedRank(w_plus, w_minus, n, z, p, "normal")
