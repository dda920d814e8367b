"""The virtual best solver (VBS) of a campaign and "who wins where".

The VBS is the portfolio an oracle would run: on each instance (family, n, instance)
its time is the best *answered* time over the entrants, censored (``inf``) when no
entrant answered. Per family and n this module gives

* :func:`summary`: the VBS's rows in the shape of :func:`experiments.analysis.censored_stats.summary`
  (solved/total, censored median with its bootstrap interval, quartiles, PAR-2), entrant
  :data:`NAME`, so tables and figures draw it like an entrant;
* :func:`wins`: per family and n, how many instances each entrant wins (fastest answered;
  an exact tie goes to the entrant declared first), how many nobody answered, the best
  single entrant (the smallest censored median, then PAR-2, then campaign order) and the
  VBS's speed-up over it: median(best single) / median(VBS), with a paired bootstrap
  interval over instances (``inf``: the best single entrant's median is censored and the
  VBS's is not; ``nan``: both censored).

With fewer than two entrants the VBS is the entrant itself and :func:`applies` is False.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from experiments.analysis import bootstrap, censored_stats
from experiments.harness.schema import Status

#: the VBS's name in tables and legends
NAME = "virtual best"

KEYS = ["family", "n", "instance"]


def applies(campaign: censored_stats.Campaign) -> bool:
    """Whether the campaign has a VBS worth showing (two entrants or more)."""
    return len(campaign.entrants) >= 2


def best_times(per_instance: pd.DataFrame, entrants: list[str]) -> pd.DataFrame:
    """One row per (family, n, instance) of ``per_instance`` (:func:`censored_stats.instance_times`):
    ``time`` the best answered time over ``entrants`` (``inf`` when none answered) and
    ``winner`` the entrant that gave it ("" when none answered; an exact tie goes to the
    entrant earlier in ``entrants``)."""
    rank = {e: i for i, e in enumerate(entrants)}
    frame = per_instance[per_instance["entrant"].isin(rank)].copy()
    if frame.empty:
        return pd.DataFrame(columns=[*KEYS, "instance_sha256", "time", "winner"])
    frame["rank"] = frame["entrant"].map(rank)
    frame = frame.sort_values([*KEYS, "time", "rank"], kind="mergesort")
    best = frame.groupby(KEYS, sort=False).head(1).copy()
    best["winner"] = np.where(np.isfinite(best["time"].to_numpy(float)), best["entrant"], "")
    best = best.sort_values(["family", "n", "instance"], kind="mergesort")
    return best[[*KEYS, "instance_sha256", "time", "winner"]].reset_index(drop=True)


def summary(campaign: censored_stats.Campaign, per_instance: pd.DataFrame | None = None) -> pd.DataFrame:
    """The VBS's rows per family and n, columns as in :func:`censored_stats.summary` that concern
    times (family, entrant, n, total, solved, solved_frac, median_s, median_lo, median_hi,
    q25_s, q75_s, par2_s, limit_s), with ``runs`` (its instances) and ``skipped`` (those
    every entrant skipped): an n where every entrant was skipped is a skipped row
    (:mod:`experiments.analysis.skipped_cells`), not a censored one."""
    per_instance = censored_stats.instance_times(campaign.runs) if per_instance is None else per_instance
    best = best_times(per_instance, campaign.entrants)
    raced = per_instance[per_instance["entrant"].isin(campaign.entrants)]
    unraced = (raced.assign(unraced=raced["status"].astype(str) == Status.SKIPPED.value)
               .groupby(KEYS, sort=False)["unraced"].all().reset_index())
    best = best.merge(unraced, on=KEYS, how="left")
    limit = campaign.timeout_s
    rows = []
    for family in campaign.families:
        mine = best[best["family"] == family]
        for n in sorted(mine["n"].unique()):
            at_n = mine[mine["n"] == n]
            times = at_n["time"].to_numpy(float)
            interval = bootstrap.median_interval(times)
            finite = np.isfinite(times)
            skipped = int(at_n["unraced"].fillna(False).astype(bool).sum())
            rows.append({"family": family, "entrant": NAME, "n": int(n), "total": len(times),
                         "runs": len(times), "skipped": skipped,
                         "solved": int(finite.sum()), "solved_frac": float(finite.mean()),
                         "median_s": censored_stats.censored_quantile(times, 0.5),
                         "median_lo": interval.low, "median_hi": interval.high,
                         "q25_s": censored_stats.censored_quantile(times, 0.25),
                         "q75_s": censored_stats.censored_quantile(times, 0.75),
                         "par2_s": censored_stats.par2(times, limit), "limit_s": limit})
    return pd.DataFrame(rows)


def speedup_interval(single: np.ndarray, vbs: np.ndarray, resamples: int = bootstrap.RESAMPLES,
                     seed: int = bootstrap.SEED) -> bootstrap.Interval:
    """median(single) / median(vbs) over paired instances with its percentile bootstrap
    interval (instances resampled together). ``inf`` where only the VBS's median is
    measured; resamples where both medians are censored are dropped."""
    single, vbs = np.asarray(single, float), np.asarray(vbs, float)
    if single.size == 0:
        return bootstrap.NO_INTERVAL
    estimate = float(_ratio(bootstrap.censored_medians(single[None, :]),
                            bootstrap.censored_medians(vbs[None, :]))[0])
    resampled = np.concatenate([
        _ratio(bootstrap.censored_medians(single[picks]), bootstrap.censored_medians(vbs[picks]))
        for picks in bootstrap.resampled_picks(single.size, np.random.default_rng(seed), resamples)])
    return bootstrap.percentile_interval(estimate, resampled)


def _ratio(top: np.ndarray, bottom: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = top / bottom
    ratio = np.where(np.isinf(top) & np.isfinite(bottom), np.inf, ratio)
    return np.where(np.isinf(top) & np.isinf(bottom), np.nan, ratio)


def wins(campaign: censored_stats.Campaign, table: pd.DataFrame | None = None,
         per_instance: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per family and n: ``instances``, ``wins_<entrant>`` for each entrant, ``unanswered``
    (no entrant answered), ``best_single`` with its ``best_median_s``, the VBS's
    ``vbs_median_s`` and ``speedup`` with ``speedup_lo`` / ``speedup_hi``."""
    per_instance = censored_stats.instance_times(campaign.runs) if per_instance is None else per_instance
    table = censored_stats.summary(campaign) if table is None else table
    entrants = campaign.entrants
    best = best_times(per_instance, entrants)
    rows = []
    for family in campaign.families:
        for n in sorted(best.loc[best["family"] == family, "n"].unique()):
            here = best[(best["family"] == family) & (best["n"] == n)]
            row: dict = {"family": family, "n": int(n), "instances": len(here)}
            for entrant in entrants:
                row[f"wins_{entrant}"] = int((here["winner"] == entrant).sum())
            row["unanswered"] = int((here["winner"] == "").sum())
            single = _best_single(table, family, int(n), entrants)
            vbs = here.set_index("instance")["time"]
            row["vbs_median_s"] = censored_stats.censored_quantile(vbs.to_numpy(float), 0.5)
            row["best_single"] = single or ""
            if single is None:
                row |= {"best_median_s": math.nan, "speedup": math.nan, "speedup_lo": math.nan,
                        "speedup_hi": math.nan}
            else:
                mine = per_instance[(per_instance["entrant"] == single) & (per_instance["family"] == family)
                                    & (per_instance["n"] == n)].set_index("instance")["time"]
                paired = pd.concat([mine.rename("single"), vbs.rename("vbs")], axis=1, join="inner")
                interval = speedup_interval(paired["single"].to_numpy(float), paired["vbs"].to_numpy(float))
                row |= {"best_median_s": censored_stats.censored_quantile(mine.to_numpy(float), 0.5),
                        "speedup": interval.estimate, "speedup_lo": interval.low,
                        "speedup_hi": interval.high}
            rows.append(row)
    return pd.DataFrame(rows)


def _best_single(table: pd.DataFrame, family: str, n: int, entrants: list[str]) -> str | None:
    """The entrant with the smallest censored median at (family, n); PAR-2 then campaign
    order break ties (so among entrants all censored, the one that solved most wins); None
    when no entrant answered any instance there."""
    rows = table[(table["n"] == n) & table["entrant"].isin(entrants)]
    if "family" in rows.columns:
        rows = rows[rows["family"] == family]
    if rows.empty or int(rows["solved"].sum()) == 0:
        return None
    order = {e: i for i, e in enumerate(entrants)}
    ranked = rows.assign(order=rows["entrant"].map(order)).sort_values(
        ["median_s", "par2_s", "order"], kind="mergesort")
    return str(ranked["entrant"].iloc[0])


def format_speedup(value: float, low: float, high: float) -> str:
    """``x3.2 [2.1, 4.0]``; a censored end reads ``inf``, no value ``n/a``."""
    if math.isnan(value):
        return "n/a (all censored)"
    return f"x{_num(value)} [{_num(low)}, {_num(high)}]"


def _num(value: float) -> str:
    if math.isnan(value):
        return "n/a"
    return "inf" if math.isinf(value) else f"{value:.3g}"
