"""Analysis of a race campaign: from ``runs.csv`` to per-entrant, per-n statistics.

A campaign directory holds ``runs.csv`` (one row per cell: entrant x n x
instance x repeat) and ``meta.json`` (see the records contract). This module
loads it and summarises it, treating every run that did not end in a verified
answer (timeout, memout, error, wrong, unknown, skipped) as **censored**: its
time is "more than the limit", never a number to average.

Repeats of one instance are first collapsed to one time per instance (their
median, censored when the median is censored); all statistics are then over
instances. Per entrant and n:

* ``solved`` / ``total`` / ``solved_frac``: instances answered correctly within
  the limit;
* ``median_s``, ``q25_s``, ``q75_s``: quantiles of wall time over *all*
  instances with censored ones as +inf, so a quantile is ``inf`` ("> limit")
  exactly when at least that share of instances was not solved;
* ``par2_s``: PAR-2, the mean of the solved times with every unsolved instance
  counted as twice the limit (the SAT competition's secondary score);
* medians of the work counters and phase times over solved instances;
* counts of each status, ``wrong`` included (a wrong answer is loud).

A campaign may race several instance *families* (``unique``, ``minimal``, ``hard``,
...; :mod:`experiments.harness.identity`); every statistic is per family, and
:meth:`Campaign.family` gives the campaign restricted to one. In the loaded table,
column ``family`` holds each family's name in the campaign (its label, or its key where
two families share a label) and ``family_key`` its key (runs.csv's ``family``). Each
median and growth factor carries a seeded bootstrap interval over instances (:mod:`experiments.analysis.bootstrap`).

A campaign is read back by :mod:`experiments.analysis.campaign_data` (its :class:`Campaign`,
:func:`load` and :func:`answered` are imported here, where every caller finds them with the
statistics); how the median grows with n is :mod:`experiments.analysis.growth`.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from experiments.analysis import bootstrap
from experiments.analysis.campaign_data import (  # noqa: F401
    FAMILIES,
    Campaign,
    answered,
    campaign_root,
    family_rank,
    load,
    of_families,
    settle,
)
from experiments.harness import schema
from experiments.harness.schema import Status

#: phase-time columns, in pipeline order
PHASES: list[str] = list(schema.PHASE_COLUMNS)
#: work-counter columns
COUNTERS: list[str] = list(schema.WORK_COUNTERS)


# ---------------------------------------------------------------- censored statistics

def censored_quantile(times: np.ndarray | list[float], q: float) -> float:
    """The q-quantile (linear interpolation) of ``times`` where unsolved runs are ``inf``.

    Returns ``inf`` when the quantile falls on or next to a censored value (the
    honest answer is then "more than the limit"), ``nan`` for no data.
    """
    return sorted_quantile(np.sort(np.asarray(times, dtype=float)), q)


def sorted_quantile(values: np.ndarray, q: float) -> float:
    """:func:`censored_quantile` of ``values`` already sorted ascending (no copy, no sort)."""
    if values.size == 0:
        return math.nan
    position = q * (values.size - 1)
    lo, hi = int(math.floor(position)), int(math.ceil(position))
    if math.isinf(values[lo]) or math.isinf(values[hi]):
        return math.inf
    return float(values[lo] + (values[hi] - values[lo]) * (position - lo))


def par2(times: np.ndarray | list[float], limit: float) -> float:
    """PAR-2: mean time with every unsolved run (``inf``) counted as 2 x limit."""
    values = np.asarray(times, dtype=float)
    if values.size == 0:
        return math.nan
    return float(np.where(np.isinf(values), 2.0 * limit, values).mean())


INSTANCE_COLUMNS = ["entrant", "family", "n", "instance", "instance_sha256", "time", "status", "repeats",
                    "spread"]
#: the columns of the runs :func:`instance_times` reads
INSTANCE_INPUTS = ("entrant", "family", "n", "instance", "instance_sha256", "wall_s", "status", "verified")


def instance_inputs(runs: pd.DataFrame) -> pd.DataFrame:
    """``runs`` with only the columns :func:`instance_times` reads (those it has): what a caller
    selects before taking some of the rows, so that the other columns are not copied."""
    return runs[[c for c in INSTANCE_INPUTS if c in runs.columns]]


def instance_times(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per (entrant, family, n, instance), in the order each first appears: the median
    over repeats of the wall time, ``inf`` for censored runs (anything but a verified answer),
    the status of the instance (its first run's when that median is finite, else the worst
    status of its runs), and ``spread``, the coefficient of variation of the repeats' times
    (``nan`` unless there are two or more repeats, all answered). Columnar: one sort of the
    runs, no Python loop per instance."""
    if runs.empty:
        return pd.DataFrame(columns=INSTANCE_COLUMNS)
    family = (runs["family"].fillna("unique").astype(str) if "family" in runs.columns
              else pd.Series("unique", index=runs.index))
    columns = (runs["entrant"], family, runs["n"], runs["instance"])
    # the groups numbered as they first appear: by the codes of each column (no object copy)
    codes = pd.DataFrame({k: pd.factorize(values, use_na_sentinel=False)[0]
                          for k, values in enumerate(columns)})
    group = codes.groupby(list(codes.columns), sort=False).ngroup().to_numpy()
    wall = pd.to_numeric(runs["wall_s"], errors="coerce").to_numpy(dtype=float)
    time = np.where(answered(runs).to_numpy() & ~np.isnan(wall), wall, np.inf)
    order = np.lexsort((time, group))                   # by group, then time (inf last)
    sorted_time, sorted_group = time[order], group[order]
    groups = int(group.max()) + 1
    counts = np.bincount(group, minlength=groups)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    a, b = sorted_time[starts + (counts - 1) // 2], sorted_time[starts + counts // 2]
    with np.errstate(invalid="ignore"):
        median = np.where(np.isinf(a) | np.isinf(b), np.inf, a + (b - a) * 0.5)
    first = np.unique(group, return_index=True)[1]      # the first row of each group
    status_codes, words = pd.factorize(runs["status"].astype(str), use_na_sentinel=False)
    words = np.asarray(words, dtype=object)
    severity = {s: i for i, s in enumerate(schema.SEVERITY)}
    rank = np.array([severity.get(w, 0) for w in words], dtype=int)[status_codes]
    worst_rank = np.full(groups, -1, dtype=np.int64)
    np.maximum.at(worst_rank, group, rank)
    # the worst status: the first run (by position) of each group with the worst rank
    worst_rows = np.flatnonzero(rank == worst_rank[group])
    worst_row = worst_rows[np.unique(group[worst_rows], return_index=True)[1]]
    finite = np.isfinite(sorted_time)
    all_finite = np.bincount(sorted_group, weights=~finite, minlength=groups) == 0
    total = np.bincount(sorted_group, weights=np.where(finite, sorted_time, 0.0), minlength=groups)
    mean = total / counts
    squares = np.bincount(sorted_group, weights=np.where(finite, (sorted_time - mean[sorted_group]) ** 2, 0.0),
                          minlength=groups)
    with np.errstate(invalid="ignore", divide="ignore"):
        spread = np.where((counts > 1) & all_finite & (mean > 0),
                          np.sqrt(squares / np.maximum(counts - 1, 1)) / mean, math.nan)
    shas = np.full(groups, "", dtype=object)
    if "instance_sha256" in runs.columns:        # each group's first sha256 that is not NaN
        sha_codes, distinct = pd.factorize(runs["instance_sha256"])
        known = np.flatnonzero(sha_codes >= 0)
        at, where = np.unique(group[known], return_index=True)
        shas[at] = [str(v) for v in np.asarray(distinct, dtype=object)[sha_codes[known[where]]]]
    head = [values.iloc[first].to_numpy() for values in columns]
    return pd.DataFrame({
        "entrant": head[0], "family": head[1],
        "n": head[2].astype(int), "instance": head[3],
        "instance_sha256": shas, "time": median,
        "status": np.where(np.isfinite(median), words[status_codes[first]], words[status_codes[worst_row]]),
        "repeats": counts, "spread": spread}, columns=INSTANCE_COLUMNS)


def summary(campaign: Campaign, per_instance: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per family, entrant and n (families and entrants in campaign order, n ascending)
    the statistics described in the module docstring, with ``median_lo`` and
    ``median_hi``, the interval of the median (:func:`experiments.analysis.bootstrap.median_interval`).
    Times in seconds; ``inf`` = censored. One pass over the runs: each group's rows are
    taken by index, never by a mask over all runs. ``per_instance``: the campaign's
    :func:`instance_times` when the caller has it already (computed here otherwise)."""
    runs = campaign.runs
    per_instance = instance_times(runs) if per_instance is None else per_instance
    ok = answered(runs).to_numpy()
    run_groups = runs.groupby(["family", "entrant", "n"], sort=False).indices
    # the columns a group's statistics read, taken by index (never every column of its runs):
    # the limit and status of every run, the measurements of the answered ones
    needed = runs[["timeout_s", "status"]]
    measured = runs[["cpu_s", "peak_rss_mb", *COUNTERS, *PHASES]]
    inst_groups = per_instance.groupby(["family", "entrant", "n"], sort=False).indices
    times_all = per_instance["time"].to_numpy(dtype=float)
    rows = []
    for family in campaign.families:
        for entrant in campaign.entrants:
            ns = sorted(n for (f, e, n) in run_groups if f == family and e == entrant)
            for n in ns:
                at = run_groups[(family, entrant, n)]
                times = times_all[inst_groups.get((family, entrant, n), np.array([], dtype=int))]
                rows.append(_summary_row(needed.iloc[at], measured.iloc[at[ok[at]]], times,
                                         campaign.timeout_s)
                            | {"family": family, "entrant": entrant, "n": int(n)})
    columns = ["family", "entrant", "n"]
    frame = pd.DataFrame(rows)
    return frame[columns + [c for c in frame.columns if c not in columns]] if rows else frame


def _summary_row(cells: pd.DataFrame, solved_runs: pd.DataFrame, times: np.ndarray,
                 limit: float) -> dict:
    """The statistics of one (family, entrant, n): ``cells`` its runs (their limit and status),
    ``solved_runs`` the answered ones (their measurements), ``times`` its per-instance times
    (``inf`` = censored)."""
    cell_limit = pd.to_numeric(cells["timeout_s"], errors="coerce").max()
    cell_limit = float(cell_limit) if pd.notna(cell_limit) else limit
    interval = bootstrap.median_interval(times)
    finite = np.isfinite(times)
    ordered = np.sort(times)
    row = {
        "total": len(times), "solved": int(finite.sum()),
        "solved_frac": float(finite.mean()) if len(times) else math.nan,
        "runs": len(cells),
        "median_s": sorted_quantile(ordered, 0.5),
        "median_lo": interval.low, "median_hi": interval.high,
        "q25_s": sorted_quantile(ordered, 0.25),
        "q75_s": sorted_quantile(ordered, 0.75),
        "min_s": float(ordered[0]) if len(times) else math.nan,
        "max_solved_s": float(times[finite].max()) if finite.any() else math.nan,
        "par2_s": par2(times, cell_limit),
        "limit_s": cell_limit,
        "cpu_median_s": float(solved_runs["cpu_s"].median()) if len(solved_runs) else math.nan,
        "rss_median_mb": float(solved_runs["peak_rss_mb"].median()) if len(solved_runs) else math.nan,
    }
    counts = cells["status"].value_counts()
    for status in schema.STATUSES:  # runs per status ("solved" above counts instances)
        key = "solved_runs" if status == Status.SOLVED else status
        row[key] = int(counts.get(status, 0))
    for column in COUNTERS + PHASES:
        values = solved_runs[column].dropna()
        row[column] = float(values.median()) if len(values) else math.nan
    return row


def wrong_runs(campaign: Campaign) -> pd.DataFrame:
    """The rows whose status is ``wrong`` (should be empty; never hidden)."""
    return campaign.runs[campaign.runs["status"] == Status.WRONG]


# ---------------------------------------------------------------- formatting

def format_interval(low: float, high: float, limit: float | None = None) -> str:
    """A bootstrap interval of times for humans: ``[1.2 ms, 3.4 ms]``; a censored
    upper end reads ``> 10 s``."""
    if math.isnan(low) or math.isnan(high):
        return "n/a"
    return f"[{format_seconds(low, limit)}, {format_seconds(high, limit)}]"


def format_seconds(value: float, limit: float | None = None) -> str:
    """A time for humans: ``0.0123`` -> ``12.3 ms``; ``inf`` -> ``> 10 s`` (censored)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    if math.isinf(value):
        return f"> {format_seconds(limit)}" if limit is not None and math.isfinite(limit) else "> limit"
    if value == 0:
        return "0 s"
    rounded = float(f"{value:.3g}")           # 999.6 µs reads 1 ms, never 1e+03 µs
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs")):
        if rounded >= scale or unit == "µs":
            shown = rounded / scale
            return f"{shown:.3g} {unit}" if shown < 1000 else f"{value / scale:.0f} {unit}"
    return f"{value:.3g} s"
