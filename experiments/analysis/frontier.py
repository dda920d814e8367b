"""Where the methods stop: the frontier campaigns summed up side by side.

A frontier campaign is an ordinary campaign (runs.csv + meta.json) that takes a few strong
entrants to sizes where the main campaign's methods stop, typically one family at one large n.
Every statistic here treats a puzzle without a verified answer as censored (its time is "more
than the limit", never a number): repeats are collapsed per puzzle by
:func:`experiments.analysis.censored_stats.instance_times` and medians over all puzzles are
:func:`experiments.analysis.censored_stats.censored_quantile`.

:func:`load` reads them (``race report --frontier DIR``). :func:`entrant_rows` gives one row per
(campaign, family, n, entrant): the cores the entrant's cells held, puzzles answered of those it
raced, the censored median wall time over all of them, the median wall time of the answered
alone, the median CPU time of the answered (every member's, for an entrant on several cores) and
PAR-2.

:func:`group_rows` gives one row per (campaign, family, n): n, family, the median share of empty
cells, the limit, the puzzles raced, how many some entrant answered (the virtual best solver,
:func:`experiments.analysis.virtual_best.best_times`) and how many none did, the censored median
of the fastest answer per puzzle, and the best entrant: the most puzzles answered, then the
smallest PAR-2, then the campaign's order.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from experiments.analysis import censored_stats, virtual_best
from experiments.analysis.multicore import cores_of
from formats.errors import RaceError

ENTRANT_COLUMNS = ["source", "campaign", "family", "n", "entrant", "cores", "answered", "total", "median_s",
                   "answered_median_s", "cpu_answered_median_s", "par2_s", "limit_s"]
GROUP_COLUMNS = ["source", "campaign", "family", "n", "holes", "limit_s", "puzzles", "anyone", "nobody",
                 "median_s", "answered_median_s", "best", "best_answered", "best_total", "best_cores",
                 "best_answered_median_s"]


def load(directories: list[Path]) -> list[censored_stats.Campaign]:
    """The frontier campaigns in ``directories`` (each given once, in the order given).
    Raises RaceError naming the directory when one is missing or is no readable campaign."""
    campaigns, seen = [], set()
    for directory in directories:
        key = Path(directory).resolve()
        if key in seen:
            continue
        seen.add(key)
        try:
            campaigns.append(censored_stats.load(directory))
        except RaceError as exc:
            raise RaceError(f"--frontier {directory}: {exc}") from None
    return campaigns


def _groups(campaign: censored_stats.Campaign):
    """(family, n, runs) of ``campaign``: families in the campaign's order, n ascending."""
    runs = campaign.runs
    for family in campaign.families:
        mine = runs[runs["family"] == family]
        for n in sorted(int(v) for v in mine["n"].unique()):
            yield family, n, mine[mine["n"] == n]


def _limit(runs: pd.DataFrame, campaign: censored_stats.Campaign) -> float:
    value = pd.to_numeric(runs["timeout_s"], errors="coerce").max()
    return float(value) if pd.notna(value) else campaign.timeout_s


def _holes(runs: pd.DataFrame, n: int) -> float:
    """The median share of empty cells over the puzzles of ``runs`` (from their clues; the
    generator's ``holes`` where no clue count was recorded), ``nan`` when neither is known."""
    puzzles = runs.drop_duplicates("instance")
    clues = pd.to_numeric(puzzles["clues"], errors="coerce")
    share = (1 - clues / n ** 4).where(clues.notna(), pd.to_numeric(puzzles["holes"], errors="coerce"))
    share = share.dropna()
    return float(share.median()) if len(share) else math.nan


def _answered_median(times: np.ndarray) -> float:
    finite = times[np.isfinite(times)]
    return float(np.median(finite)) if finite.size else math.nan


def entrant_rows(campaigns: list[censored_stats.Campaign]) -> pd.DataFrame:
    """One row per (campaign, family, n, entrant) of ``campaigns`` (module docstring), in the
    order of ``campaigns``: ``source`` the campaign's place in it, ``campaign`` its name."""
    out = []
    for source, campaign in enumerate(campaigns):
        per_instance = censored_stats.instance_times(campaign.runs)
        for family, n, runs in _groups(campaign):
            limit = _limit(runs, campaign)
            for entrant in campaign.entrants:
                cells = runs[runs["entrant"] == entrant]
                if cells.empty:
                    continue
                mine = per_instance[(per_instance["entrant"] == entrant) & (per_instance["family"] == family)
                                    & (per_instance["n"] == n)]
                times = mine["time"].to_numpy(dtype=float)
                ok = cells[censored_stats.answered(cells)]
                cpu = pd.to_numeric(ok["cpu_s"], errors="coerce").dropna()
                out.append({"source": source, "campaign": campaign.name, "family": family, "n": n,
                            "entrant": entrant,
                            "cores": int(cores_of(cells).max()),
                            "answered": int(np.isfinite(times).sum()), "total": len(times),
                            "median_s": censored_stats.censored_quantile(times, 0.5),
                            "answered_median_s": _answered_median(times),
                            "cpu_answered_median_s": float(cpu.median()) if len(cpu) else math.nan,
                            "par2_s": censored_stats.par2(times, limit), "limit_s": limit})
    return pd.DataFrame(out, columns=ENTRANT_COLUMNS)


def group_rows(campaigns: list[censored_stats.Campaign], entrants: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per (campaign, family, n) of ``campaigns`` (module docstring). ``entrants``:
    :func:`entrant_rows` of the same campaigns, when already computed."""
    entrants = entrant_rows(campaigns) if entrants is None else entrants
    out = []
    for source, campaign in enumerate(campaigns):
        best_times = virtual_best.best_times(censored_stats.instance_times(campaign.runs), campaign.entrants)
        for family, n, runs in _groups(campaign):
            times = best_times.loc[(best_times["family"] == family) & (best_times["n"] == n),
                                   "time"].to_numpy(dtype=float)
            anyone = int(np.isfinite(times).sum())
            rows = entrants[(entrants["source"] == source) & (entrants["family"] == family)
                            & (entrants["n"] == n)]
            # most answered, then the smallest PAR-2; a stable sort keeps the campaign's order on ties
            ranked = rows.assign(_a=-rows["answered"]).sort_values(["_a", "par2_s"], kind="mergesort")
            best = ranked.iloc[0] if len(ranked) else None
            out.append({"source": source, "campaign": campaign.name, "family": family, "n": n,
                        "holes": _holes(runs, n),
                        "limit_s": _limit(runs, campaign), "puzzles": len(times), "anyone": anyone,
                        "nobody": len(times) - anyone,
                        "median_s": censored_stats.censored_quantile(times, 0.5),
                        "answered_median_s": _answered_median(times),
                        "best": str(best["entrant"]) if best is not None else "",
                        "best_answered": int(best["answered"]) if best is not None else 0,
                        "best_total": int(best["total"]) if best is not None else 0,
                        "best_cores": int(best["cores"]) if best is not None else 1,
                        "best_answered_median_s": (float(best["answered_median_s"]) if best is not None
                                                   else math.nan)})
    return pd.DataFrame(out, columns=GROUP_COLUMNS)
