"""The virtual best solver in the report: its table (``table_vbs.tex``) and the macros of
the sentence that quotes it (:mod:`experiments.analysis.virtual_best` computes both).

Macros: ``\\ifhasVbs`` (two entrants or more), ``\\vbsSolvedTotal`` ("212/270"),
``\\vbsBestEntrant`` (the single entrant that solved most, all families and n) with
``\\vbsBestEntrantSolved``, and the largest finite speed-up of the VBS over the best
single entrant at one (family, n): ``\\vbsMaxSpeedup`` with ``\\vbsMaxSpeedupLow``,
``\\vbsMaxSpeedupHigh``, ``\\vbsMaxSpeedupFamily``, ``\\vbsMaxSpeedupN``,
``\\vbsMaxSpeedupEntrant``. "n/a" where there is no such number.
"""

from __future__ import annotations

import math

import pandas as pd

from experiments.analysis import censored_stats
from experiments.analysis import virtual_best
from experiments.report.tables import CI_HEADER, _tabular
from experiments.report.tex import MISSING, Macros, escape, tex_float, tex_seconds


def vbs_tabular(campaign: censored_stats.Campaign, table: pd.DataFrame) -> str:
    """Per family and n: the VBS's solved count and median with its interval, the wins of
    each entrant, the best single entrant and the VBS's speed-up over it with its interval."""
    if not virtual_best.applies(campaign):
        return _tabular("l", ["one entrant: no virtual best solver"], [])
    entrants = campaign.entrants
    rows = virtual_best.summary(campaign).set_index(["family", "n"])
    wins = virtual_best.wins(campaign, table)
    several = len(campaign.families) > 1
    body: list[list[str] | str] = []
    previous = None
    for row in wins.to_dict("records"):
        if several and previous is not None and row["family"] != previous:
            body.append(r"\midrule")
        vbs = rows.loc[(row["family"], row["n"])]
        limit = float(vbs["limit_s"])
        ci = (f"{tex_seconds(vbs['median_lo'], limit)}--{tex_seconds(vbs['median_hi'], limit)}"
              if not math.isnan(vbs["median_lo"]) else MISSING)
        speed = _tex_speedup(row["speedup"])
        speed_ci = (f"{_tex_speedup(row['speedup_lo'])}--{_tex_speedup(row['speedup_hi'])}"
                    if not math.isnan(row["speedup"]) else MISSING)
        wins_cells = [*[str(row[f"wins_{e}"]) for e in entrants], str(row["unanswered"])]
        if 0 < int(vbs["skipped"]) == int(vbs["runs"]):         # every entrant skipped: no time
            cells = [str(row["n"]), r"\multicolumn{3}{l}{skipped (not run)}", *wins_cells,
                     "--", "--", "--"]
        else:
            cells = [str(row["n"]), f"{int(vbs['solved'])}/{int(vbs['total'])}",
                     tex_seconds(vbs["median_s"], limit), ci, *wins_cells,
                     f"\\texttt{{{escape(row['best_single'])}}}" if row["best_single"] else MISSING,
                     speed, speed_ci]
        body.append(([escape(row["family"]) if row["family"] != previous else ""] if several else []) + cells)
        previous = row["family"]
    header = (["family"] if several else []) + ["$n$", "solved", "median", CI_HEADER,
                                                *[f"\\texttt{{{escape(e)}}}" for e in entrants], "nobody",
                                                "best single", "speed-up", CI_HEADER]
    columns = ("l" if several else "") + "rrrr" + "r" * len(entrants) + "rlrr"
    return _tabular(columns, header, body)


def _tex_speedup(value: float) -> str:
    if math.isnan(value):
        return MISSING
    return r"$\infty$" if math.isinf(value) else tex_float(value)


def add_virtual_best(m: Macros, campaign: censored_stats.Campaign, table: pd.DataFrame) -> None:
    """The macros of the module docstring."""
    present = virtual_best.applies(campaign)
    m.flag("hasVbs", present)
    vbs = virtual_best.summary(campaign) if present else pd.DataFrame()
    m.add("vbsSolvedTotal", f"{int(vbs['solved'].sum())}/{int(vbs['total'].sum())}" if present else MISSING)
    solved = table.groupby("entrant")["solved"].sum() if present else pd.Series(dtype=int)
    best = max(campaign.entrants, key=lambda e: int(solved.get(e, 0))) if present else None
    m.add("vbsBestEntrant", f"\\texttt{{{escape(best)}}}" if best else MISSING)
    m.add("vbsBestEntrantSolved", f"{int(solved[best])}/{int(vbs['total'].sum())}" if best else MISSING)
    wins = virtual_best.wins(campaign, table) if present else pd.DataFrame()
    finite = wins[wins["speedup"].map(math.isfinite)] if len(wins) else wins
    top = finite.loc[finite["speedup"].idxmax()] if len(finite) else None
    m.add("vbsMaxSpeedup", tex_float(top["speedup"]) if top is not None else MISSING)
    m.add("vbsMaxSpeedupLow", tex_float(top["speedup_lo"]) if top is not None else MISSING)
    m.add("vbsMaxSpeedupHigh", _tex_speedup(top["speedup_hi"]) if top is not None else MISSING)
    m.add("vbsMaxSpeedupFamily", escape(top["family"]) if top is not None else MISSING)
    m.add("vbsMaxSpeedupN", int(top["n"]) if top is not None else MISSING)
    m.add("vbsMaxSpeedupEntrant", f"\\texttt{{{escape(top['best_single'])}}}" if top is not None else MISSING)
