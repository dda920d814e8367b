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
from experiments.analysis.campaign_data import (FAMILIES, Campaign, answered, campaign_root,  # noqa: F401
                                                family_rank, load, of_families, settle)
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
    values = np.sort(np.asarray(times, dtype=float))
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


def instance_times(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per (entrant, family, n, instance): the median over repeats of the wall
    time, ``inf`` for censored runs (anything but a verified answer), the status of
    the instance (``solved`` when that median is finite, else the worst status), and
    ``spread``, the coefficient of variation of the repeats' times (``nan`` unless
    there are two or more repeats, all answered)."""
    frame = runs.copy()
    if "family" not in frame.columns:
        frame["family"] = "unique"
    frame["family"] = frame["family"].fillna("unique").astype(str)
    ok = answered(frame) & frame["wall_s"].notna()
    frame["time"] = np.where(ok, frame["wall_s"], np.inf)
    rank = {s: i for i, s in enumerate(schema.SEVERITY)}
    rows = []
    for (entrant, family, n, instance), group in frame.groupby(["entrant", "family", "n", "instance"],
                                                               sort=False):
        times = group["time"].to_numpy(dtype=float)
        t = censored_quantile(times, 0.5)
        worst = max(group["status"], key=lambda s: rank.get(s, 0))
        spread = (float(np.std(times, ddof=1) / np.mean(times))
                  if len(times) > 1 and np.isfinite(times).all() and np.mean(times) > 0 else math.nan)
        sha = group["instance_sha256"].dropna() if "instance_sha256" in group else pd.Series([], dtype=str)
        rows.append({"entrant": entrant, "family": family, "n": int(n), "instance": instance,
                     "instance_sha256": str(sha.iloc[0]) if len(sha) else "",
                     "time": t, "status": group["status"].iloc[0] if math.isfinite(t) else worst,
                     "repeats": len(group), "spread": spread})
    return pd.DataFrame(rows, columns=INSTANCE_COLUMNS)


def summary(campaign: Campaign) -> pd.DataFrame:
    """Per family, entrant and n (families and entrants in campaign order, n ascending)
    the statistics described in the module docstring, with ``median_lo`` and
    ``median_hi``, the bootstrap interval of the median. Times in seconds; ``inf`` =
    censored."""
    runs = campaign.runs
    per_instance = instance_times(runs)
    rows = []
    for family in campaign.families:
        for entrant in campaign.entrants:
            mine = (runs["entrant"] == entrant) & (runs["family"] == family)
            for n in sorted(runs.loc[mine, "n"].unique()):
                cells = runs[mine & (runs["n"] == n)]
                inst = per_instance[(per_instance["entrant"] == entrant) & (per_instance["family"] == family)
                                    & (per_instance["n"] == n)]
                rows.append(_summary_row(cells, inst["time"].to_numpy(dtype=float), campaign.timeout_s)
                            | {"family": family, "entrant": entrant, "n": int(n)})
    columns = ["family", "entrant", "n"]
    frame = pd.DataFrame(rows)
    return frame[columns + [c for c in frame.columns if c not in columns]] if rows else frame


def _summary_row(cells: pd.DataFrame, times: np.ndarray, limit: float) -> dict:
    """The statistics of one (family, entrant, n): ``cells`` its runs, ``times`` its
    per-instance times (``inf`` = censored)."""
    solved_runs = cells[answered(cells)]
    cell_limit = pd.to_numeric(cells["timeout_s"], errors="coerce").max()
    cell_limit = float(cell_limit) if pd.notna(cell_limit) else limit
    interval = bootstrap.median_interval(times)
    finite = np.isfinite(times)
    row = {
        "total": len(times), "solved": int(finite.sum()),
        "solved_frac": float(finite.mean()) if len(times) else math.nan,
        "runs": len(cells),
        "median_s": censored_quantile(times, 0.5),
        "median_lo": interval.low, "median_hi": interval.high,
        "q25_s": censored_quantile(times, 0.25),
        "q75_s": censored_quantile(times, 0.75),
        "min_s": float(times.min()) if len(times) else math.nan,
        "max_solved_s": float(times[finite].max()) if finite.any() else math.nan,
        "par2_s": par2(times, cell_limit),
        "limit_s": cell_limit,
        "cpu_median_s": float(solved_runs["cpu_s"].median()) if len(solved_runs) else math.nan,
        "rss_median_mb": float(solved_runs["peak_rss_mb"].median()) if len(solved_runs) else math.nan,
    }
    for status in schema.STATUSES:  # runs per status ("solved" above counts instances)
        key = "solved_runs" if status == Status.SOLVED else status
        row[key] = int((cells["status"] == status).sum())
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
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs")):
        if value >= scale or unit == "µs":
            return f"{value / scale:.3g} {unit}"
    return f"{value:.3g} s"
