"""Entrants that ran on several cores (``parallel``: one member per core), told apart from the
single-core ones: the race's medians and PAR-2 compare wall time, which such an entrant
shortens by spending more cores; here its cells are also scored on their total CPU time (every
member's, the stopped ones' too: runs.csv's ``cpu_s``), so it is compared honestly both ways,
and which member gave each answer is counted (runs.csv's ``extra``: ``winner``, the index of
the answering member in the entrant's ``members``).

:func:`rows` gives one row per (family, entrant, n) of an entrant whose cells held more than one
core: ``cores``, answered / total, the wall-time median and PAR-2, the CPU-time median and
PAR-2 (a censored cell counts ``2 x limit x cores``), and the answers per member.
:func:`summary_lines` is its block of the end-of-run summary.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from experiments.analysis import censored_stats


def cores_of(runs: pd.DataFrame) -> pd.Series:
    """The cores each run held (blank, as in rows written before the column existed: 1)."""
    if "cores" not in runs.columns:
        return pd.Series(1, index=runs.index, dtype=int)
    return pd.to_numeric(runs["cores"], errors="coerce").fillna(1).clip(lower=1).astype(int)


def multicore_entrants(campaign: censored_stats.Campaign) -> list[str]:
    """The campaign's entrants (in its order) with a cell that held more than one core."""
    runs = campaign.runs
    several = set(runs.loc[cores_of(runs) > 1, "entrant"].astype(str))
    return [e for e in campaign.entrants if e in several]


def _members(entrant: str) -> list[str]:
    """The member specs of a ``parallel`` entrant spec (as the entrant splits them)."""
    from solvers.parallel import split_members
    from solvers.registry import parse_spec
    try:
        return split_members(parse_spec(entrant)[1].get("members", ""))
    except Exception:     # noqa: BLE001 - a spec from another version: members unnamed
        return []


def _winner(extra: object) -> int | None:
    try:
        value = json.loads(str(extra)).get("winner")
    except (ValueError, AttributeError):
        return None
    return int(value) if isinstance(value, (int, float)) and value >= 0 else None


def rows(campaign: censored_stats.Campaign) -> pd.DataFrame:
    """One row per (family, entrant, n) of the multi-core entrants (module docstring)."""
    runs = campaign.runs
    out = []
    for entrant in multicore_entrants(campaign):
        members = _members(entrant)
        mine = runs[runs["entrant"].astype(str) == entrant]
        for (family, n), cells in mine.groupby(["family", "n"], sort=True):
            cores = int(cores_of(cells).max())
            limit = float(pd.to_numeric(cells["timeout_s"], errors="coerce").max())
            ok = censored_stats.answered(cells)
            wall = np.where(ok, pd.to_numeric(cells["wall_s"], errors="coerce"), np.inf)
            cpu = np.where(ok, pd.to_numeric(cells["cpu_s"], errors="coerce"), np.inf)
            wins: dict[str, int] = {}
            for extra in cells.loc[ok, "extra"]:
                index = _winner(extra)
                if index is not None:
                    name = members[index] if index < len(members) else f"member {index}"
                    wins[name] = wins.get(name, 0) + 1
            out.append({"family": family, "entrant": entrant, "n": int(n), "cores": cores,
                        "answered": int(ok.sum()), "total": len(cells),
                        "wall_median_s": censored_stats.censored_quantile(wall, 0.5),
                        "wall_par2_s": censored_stats.par2(wall, limit),
                        "cpu_median_s": censored_stats.censored_quantile(cpu, 0.5),
                        "cpu_par2_s": censored_stats.par2(cpu, limit * cores),
                        "limit_s": limit, "wins": wins})
    return pd.DataFrame(out)


def wins_text(wins: dict[str, int]) -> str:
    """``sat:config=sat 12, kissat 8`` (most first; "none" when no member answered)."""
    ordered = sorted(wins.items(), key=lambda item: (-item[1], item[0]))
    return ", ".join(f"{name} {count}" for name, count in ordered) or "none"


def summary_lines(campaign: censored_stats.Campaign) -> list[str]:
    """The summary's block on the multi-core entrants ([] when there is none)."""
    table = rows(campaign)
    if table.empty:
        return []
    fmt = censored_stats.format_seconds
    several = len(campaign.families) > 1
    out = ["", "entrants on several cores: the medians above are wall time (each held one core "
               "per member); their total CPU time over all members, and which member answered:"]
    for row in table.itertuples():
        prefix = f"{row.family}: " if several else ""
        out.append(f"  {prefix}{row.entrant} n={row.n} on {row.cores} cores: "
                   f"{row.answered}/{row.total} answered; wall median {fmt(row.wall_median_s, row.limit_s)}, "
                   f"PAR-2 {fmt(row.wall_par2_s)}; CPU (all members) median "
                   f"{fmt(row.cpu_median_s, row.limit_s * row.cores)}, PAR-2 {fmt(row.cpu_par2_s)}; "
                   f"answered by {wins_text(row.wins)}")
    return out
