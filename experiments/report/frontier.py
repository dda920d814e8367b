"""The frontier in the report: ``race report --frontier DIR``'s table (``table_frontier.tex``)
and the macros of the sentences that quote it (:mod:`experiments.analysis.frontier` computes
both from the frontier campaigns).

The campaigns given with ``--frontier`` are read by :func:`experiments.analysis.frontier.load`.
The table has one block per (campaign, family, n), headed by its n, family, median share of
empty cells, limit and puzzles;
in it one row per entrant: the cores it held, puzzles answered of those it raced, the censored
median wall time over all of them ("$>$ limit" when half or more were not answered), the
median wall time of the answered alone and, for an entrant on several cores, the median CPU
time of the answered over all its members; then a row "any entrant": the puzzles some entrant
answered and the same medians of the fastest answer per puzzle.

Macros: ``\\ifhasFrontier`` (frontier campaigns given), ``\\ifhasFrontierCores`` (one of their
entrants held several cores), ``\\frontierCampaigns``, ``\\frontierSizes`` ("$n=6$ and $n=7$"),
``\\frontierPuzzles``, ``\\frontierAnswered`` (puzzles some entrant answered),
``\\frontierUnanswered`` (puzzles no entrant answered), ``\\frontierLimits`` and
``\\frontierBest``: per (family,) n the entrant that answered the most (then the smallest PAR-2),
how many of how many, and the median wall time of those. "n/a" without frontier campaigns.
And where the main campaign's methods stop on the same families (:func:`add_main_reach`).
"""

from __future__ import annotations

import math

import pandas as pd

from experiments.report.tables import _tabular
from experiments.report.tex import MISSING, Macros, escape, tex_int, tex_seconds

#: the columns of the table: entrant, cores, answered, median, median of answered, CPU median
WIDTH = 6
#: what a cell says where the number does not apply (no answer; one core)
NONE = "--"


def _code(name: str) -> str:
    """``name`` in typewriter type, with a line break allowed after ``-:=+,`` (entrant and
    campaign names are long)."""
    text = escape(name)
    for mark in "-:=+,":
        text = text.replace(mark, mark + "\\allowbreak{}")
    return f"\\texttt{{{text}}}"


def _size(n: int) -> str:
    return f"$n={n}$ (${n * n}\\times{n * n}$)"


def _pct(share: float) -> str:
    return f"{100 * share:.0f}\\,\\%" if math.isfinite(share) else MISSING


def _listed(items: list[str], sep: str = ", ", last: str = " and ") -> str:
    """``a``, ``a and b``, ``a, b and c`` (each item once); "n/a" for none."""
    items = list(dict.fromkeys(items))
    if not items:
        return MISSING
    return items[0] if len(items) == 1 else sep.join(items[:-1]) + last + items[-1]


def _median(value: float, limit: float | None) -> str:
    return tex_seconds(value, limit) if not math.isnan(value) else NONE


def frontier_tabular(groups: pd.DataFrame, entrants: pd.DataFrame) -> str:
    """The table of the module docstring (a placeholder line when there is no frontier)."""
    if groups.empty:
        return _tabular("l", ["no frontier campaign (race report --frontier DIR)"], [])
    body: list[list[str] | str] = []
    for g in groups.itertuples():
        if body:
            body.append(r"\midrule")
        head = (f"{_size(g.n)}, {escape(g.family)}, {_pct(g.holes)} empty, limit {tex_seconds(g.limit_s)}, "
                f"{g.puzzles} puzzles ({_code(g.campaign)})")
        body.append(f"\\multicolumn{{{WIDTH}}}{{l}}{{{head}}} \\\\")
        rows = entrants[(entrants["source"] == g.source) & (entrants["family"] == g.family)
                        & (entrants["n"] == g.n)]
        for r in rows.itertuples():
            cpu = _median(r.cpu_answered_median_s, None) if r.cores > 1 else NONE
            body.append([_code(r.entrant), str(r.cores), f"{r.answered}/{r.total}", _median(r.median_s, r.limit_s),
                         _median(r.answered_median_s, r.limit_s), cpu])
        body.append(["any entrant", "", f"{g.anyone}/{g.puzzles}", _median(g.median_s, g.limit_s),
                     _median(g.answered_median_s, g.limit_s), ""])
    return _tabular("lrrrrr", ["entrant", "cores", "answered", "median", "median of answered",
                               "CPU median of answered"], body)


def _where(groups: pd.DataFrame) -> list[str]:
    """Each size's name in the text: "at $n=6$", with the family when the frontier has several
    and the campaign when two campaigns raced the same family and n."""
    several = groups["family"].nunique() > 1
    twice = groups.duplicated(["family", "n"], keep=False)
    return [f"at $n={g.n}$" + (f" on {escape(g.family)} puzzles" if several else "")
            + (f" in {_code(g.campaign)}" if again else "")
            for g, again in zip(groups.itertuples(), twice)]


def _best(g, where: str) -> str:
    """One size's best entrant as a phrase: "at $n=6$, \\texttt{kissat} (14 of 20 puzzles;
    median of those 12.3\\,s)"."""
    if not g.best or g.best_answered == 0:
        return f"{where}, none (no puzzle of {g.puzzles} answered)"
    cores = f" on {g.best_cores} cores" if g.best_cores > 1 else ""
    time = tex_seconds(g.best_answered_median_s)
    return (f"{where}, {_code(g.best)}{cores} ({g.best_answered} of {g.best_total} puzzles; "
            + (f"in {time})" if g.best_answered == 1 else f"median of those {time})"))


def add_main_reach(m: Macros, groups: pd.DataFrame, table: pd.DataFrame | None) -> None:
    """Where the main campaign's methods stop on the frontier's families:
    ``\\frontierMainFamilies`` (those it races too) and ``\\frontierMainLargestN``, the largest
    n at which some entrant's median is measured there (censored: at least half of the puzzles
    answered); ``\\ifhasFrontierMain`` when there is such an n."""
    families = [f for f in dict.fromkeys(groups["family"])
                if table is not None and "family" in table.columns and (table["family"] == f).any()]
    rows = table[table["family"].isin(families)] if families and table is not None \
        else pd.DataFrame(columns=["n", "median_s"])
    measured = rows[rows["median_s"].map(math.isfinite)]
    m.flag("hasFrontierMain", len(measured) > 0)
    m.add("frontierMainFamilies", _listed([escape(f) for f in families]))
    m.add("frontierMainLargestN", int(measured["n"].max()) if len(measured) else MISSING)


def add_frontier(m: Macros, groups: pd.DataFrame, entrants: pd.DataFrame,
                 table: pd.DataFrame | None = None) -> None:
    """The macros of the module docstring; ``table``: the main campaign's summary
    (:func:`experiments.analysis.censored_stats.summary`), for where its methods stop."""
    present = not groups.empty
    m.flag("hasFrontier", present)
    add_main_reach(m, groups, table)
    m.flag("hasFrontierCores", present and bool((entrants["cores"] > 1).any()))
    if not present:
        for name in ("Campaigns", "Sizes", "Puzzles", "Answered", "Unanswered", "Limits", "Best"):
            m.add(f"frontier{name}", MISSING)
        return
    m.add("frontierCampaigns", _listed([_code(c) for c in groups["campaign"]]))
    m.add("frontierSizes", _listed([f"$n={n}$" for n in sorted(set(groups["n"]))]))
    m.add("frontierPuzzles", tex_int(int(groups["puzzles"].sum())))
    m.add("frontierAnswered", tex_int(int(groups["anyone"].sum())))
    m.add("frontierUnanswered", tex_int(int(groups["nobody"].sum())))
    m.add("frontierLimits", _listed([tex_seconds(v) for v in sorted(set(groups["limit_s"]))]))
    m.add("frontierBest", _listed([_best(g, where) for g, where in zip(groups.itertuples(), _where(groups))],
                                  "; ", "; and "))
