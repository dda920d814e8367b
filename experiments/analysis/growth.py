"""How fast each entrant's median time grows with the box size n.

:func:`growth` fits the slope of log10(median time) against n over an entrant's solved range
(the factor per step of n) and the observed ratios between consecutive n; :func:`growth_table`
gives it per family and entrant with a bootstrap interval of the factor
(:mod:`experiments.analysis.bootstrap`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from experiments.analysis import bootstrap
from experiments.analysis.campaign_data import Campaign
from experiments.analysis.censored_stats import instance_times, summary


@dataclass
class Growth:
    """How an entrant's median time grows with n over its solved range.

    ``slope`` is the least-squares slope of log10(median seconds) against n,
    ``factor`` = 10**slope the fitted time multiplier per step of n, ``ratios``
    the observed median(n+1)/median(n) between consecutive measured n.
    """
    entrant: str
    n_values: list[int]
    slope: float
    factor: float
    ratios: dict[int, float]


def growth(table: pd.DataFrame, entrant: str, family: str | None = None) -> Growth:
    """Fit the growth of ``entrant``'s median time (in family ``family``; the table's
    first family when None) over its *solved range*: the n from the smallest measured
    one up to the last n before the first censored median (so a fit never skips an n
    where the entrant failed). Needs two points; slope and factor are ``nan`` otherwise."""
    rows = table[table["entrant"] == entrant]
    if "family" in rows.columns and len(rows):
        rows = rows[rows["family"] == (rows["family"].iloc[0] if family is None else family)]
    rows = rows.sort_values("n")
    ns: list[int] = []
    medians: list[float] = []
    for n, median in zip(rows["n"].astype(int), rows["median_s"].astype(float)):
        if not (math.isfinite(median) and median > 0):
            break
        ns.append(int(n))
        medians.append(float(median))
    if len(ns) >= 2:
        slope = float(np.polyfit(np.asarray(ns, dtype=float), np.log10(medians), 1)[0])
        factor = 10.0 ** slope
    else:
        slope = factor = math.nan
    ratios = {ns[i + 1]: medians[i + 1] / medians[i]
              for i in range(len(ns) - 1) if ns[i + 1] == ns[i] + 1}
    return Growth(entrant, ns, slope, factor, ratios)


def growth_table(campaign: Campaign, table: pd.DataFrame | None = None,
                 per_instance: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per family and entrant: measured n range, slope, factor per n step with its
    bootstrap interval (``factor_lo``, ``factor_hi``; instances resampled within each n),
    last step ratio. ``per_instance``: the campaign's :func:`instance_times`, when at hand."""
    per_instance = instance_times(campaign.runs) if per_instance is None else per_instance
    table = summary(campaign, per_instance) if table is None else table
    rows = []
    for family in campaign.families:
        for entrant in campaign.entrants:
            g = growth(table, entrant, family)
            mine = per_instance[(per_instance["entrant"] == entrant) & (per_instance["family"] == family)]
            interval = bootstrap.growth_interval(
                {n: mine.loc[mine["n"] == n, "time"].to_numpy(dtype=float) for n in g.n_values})
            rows.append({"family": family, "entrant": entrant,
                         "n_from": min(g.n_values) if g.n_values else math.nan,
                         "n_to": max(g.n_values) if g.n_values else math.nan,
                         "points": len(g.n_values), "slope": g.slope, "factor": g.factor,
                         "factor_lo": interval.low, "factor_hi": interval.high,
                         "last_ratio": g.ratios[max(g.ratios)] if g.ratios else math.nan})
    return pd.DataFrame(rows)
