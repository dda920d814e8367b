"""Macros of the instance families and of the head-to-head comparison.

For every family of :data:`experiments.analysis.censored_stats.FAMILIES` (and any other
the campaign has) a flag ``\\ifhasFamily<Kind>`` and, per entrant, macros named
``\\<family><Entrant><Quantity>`` that do not depend on which n were raced: the
largest n with a measured median and that median, the largest n solved on every
instance, the fitted growth factor with its bootstrap interval, the work at the
largest n (``\\hardSatGrowthFactor``, ``\\hardDlxLargestN``). "n/a" when the
family or entrant is absent, so report.tex compiles on any campaign.

The head to head (``\\headToHead...``) is :func:`experiments.analysis.compare.compare`
of the report's pair (:func:`experiments.analysis.head_to_head.head_to_head_pair`) on the
campaign's last family (the hardest), all n pooled.
"""

from __future__ import annotations

import math

import pandas as pd

from experiments.analysis import censored_stats
from experiments.analysis.compare import compare
from experiments.analysis.head_to_head import head_to_head_pair
from experiments.report.tex import (MISSING, Macros, escape, macro_name, tex_factor_high, tex_float,
                                    tex_int, tex_ratio, tex_seconds)
from formats.errors import RaceError

#: the work counters quoted at an entrant's largest n
WORK = ("nodes", "updates", "conflicts")


def of_family(frame: pd.DataFrame, family: str) -> pd.DataFrame:
    """The rows of ``frame`` (a summary or growth table) of family ``family``."""
    return frame[frame["family"] == family] if "family" in frame.columns else frame


def _capital(name: str) -> str:
    return name[0].upper() + name[1:]


def add_families(m: Macros, campaign: censored_stats.Campaign, table: pd.DataFrame, growth: pd.DataFrame,
                 canonical_entrants: tuple[str, ...]) -> None:
    """Every family's flag, sizes and per-entrant macros, then the head to head."""
    entrants = list(dict.fromkeys([*canonical_entrants, *campaign.entrants]))
    for family in dict.fromkeys([*censored_stats.FAMILIES, *campaign.families]):
        f = macro_name(family)
        present = family in campaign.families
        m.flag(f"hasFamily{_capital(f)}", present)
        part = campaign.family(family) if present else None
        add_family_sizes(m, f, part)
        rows, fits = of_family(table, family), of_family(growth, family)
        for entrant in entrants:
            add_family_entrant(m, macro_name(family, entrant), rows[rows["entrant"] == entrant],
                               fits[fits["entrant"] == entrant])
    add_head_to_head(m, campaign)


def add_family_sizes(m: Macros, f: str, family: censored_stats.Campaign | None) -> None:
    """The family's n, instances per n and the median share of empty cells."""
    if family is None or family.runs.empty:
        for q in ("NValues", "NMin", "NMax", "Instances", "HolesPct"):
            m.add(f"{f}{q}", MISSING)
        return
    runs = family.runs
    ns = family.n_values
    m.add(f"{f}NValues", ", ".join(map(str, ns)))
    m.add(f"{f}NMin", min(ns))
    m.add(f"{f}NMax", max(ns))
    per_n = runs.drop_duplicates(["n", "instance"]).groupby("n").size()
    m.add(f"{f}Instances", int(per_n.min()) if int(per_n.min()) == int(per_n.max())
          else f"{int(per_n.min())}--{int(per_n.max())}")
    instances = runs.drop_duplicates(["n", "instance"])
    clues = pd.to_numeric(instances["clues"], errors="coerce")
    holes = (1 - clues / instances["n"] ** 4).dropna()
    m.add(f"{f}HolesPct", f"{100 * float(holes.median()):.0f}" if len(holes) else MISSING)


def add_family_entrant(m: Macros, e: str, rows: pd.DataFrame, fit: pd.DataFrame) -> None:
    """One entrant's n-independent macros in one family (``e`` = ``<family><Entrant>``)."""
    rows = rows.sort_values("n")
    measured = rows[rows["median_s"].map(math.isfinite)]
    complete = [int(r.n) for r in rows.itertuples() if r.total and r.solved == r.total]
    failing = [int(r.n) for r in rows.itertuples() if r.solved < r.total]
    last = measured.iloc[-1] if len(measured) else None
    m.add(f"{e}SolvedTotal", f"{int(rows['solved'].sum())}/{int(rows['total'].sum())}" if len(rows)
          else MISSING)
    m.add(f"{e}MaxAllSolvedN", max(complete) if complete else MISSING)
    m.add(f"{e}FirstFailN", min(failing) if failing else MISSING)
    m.add(f"{e}LargestN", int(last["n"]) if last is not None else MISSING)
    m.add(f"{e}MedianAtLargest", tex_seconds(last["median_s"]) if last is not None else MISSING)
    m.add(f"{e}SolvedAtLargest", f"{int(last['solved'])}/{int(last['total'])}" if last is not None
          else MISSING)
    for counter in WORK:
        value = last[counter] if last is not None else math.nan
        m.add(f"{e}{_capital(counter)}AtLargest", tex_int(value))
    g = fit.iloc[0] if len(fit) and int(fit.iloc[0]["points"]) >= 2 else None
    m.add(f"{e}GrowthFactor", tex_float(g["factor"]) if g is not None else MISSING)
    m.add(f"{e}GrowthLow", tex_float(g["factor_lo"]) if g is not None else MISSING)
    m.add(f"{e}GrowthHigh", tex_factor_high(g["factor_hi"]) if g is not None else MISSING)
    m.add(f"{e}GrowthFrom", int(g["n_from"]) if g is not None else MISSING)
    m.add(f"{e}GrowthTo", int(g["n_to"]) if g is not None else MISSING)


HEAD_TO_HEAD = ("A", "B", "Family", "Pairs", "AWins", "BWins", "Ties", "Ratio", "RatioLow", "RatioHigh",
                "P")


def add_head_to_head(m: Macros, campaign: censored_stats.Campaign) -> None:
    """The report's pair compared on the last family, all n pooled (``\\headToHead<Q>``)."""
    pair = head_to_head_pair(campaign)
    family = campaign.families[-1]
    try:
        result = compare(campaign, *pair, families=[family]) if pair else None
    except RaceError:              # the two share no instance
        result = None
    if result is None:
        for q in HEAD_TO_HEAD:
            m.add(f"headToHead{q}", MISSING)
        return
    assert pair is not None                        # a result comes from a pair
    row = next((r for r in result.rows if r.n is None), result.rows[-1])
    values = {"A": f"\\texttt{{{escape(pair[0])}}}", "B": f"\\texttt{{{escape(pair[1])}}}",
              "Family": escape(family), "Pairs": row.pairs, "AWins": row.a_wins, "BWins": row.b_wins,
              "Ties": row.ties, "Ratio": tex_ratio(row.ratio.estimate),
              "RatioLow": tex_ratio(row.ratio.low), "RatioHigh": tex_ratio(row.ratio.high),
              "P": _p_value(row.test.p) if row.test.method != "none" else MISSING}
    for q in HEAD_TO_HEAD:
        m.add(f"headToHead{q}", values[q])


def _p_value(p: float) -> str:
    """A p-value with its relation, in math mode: ``$p=0.03$``, ``$p=5.7\\times10^{-4}$``,
    ``$p<10^{-6}$``."""
    if p < 1e-6:
        return r"$p<10^{-6}$"
    if p >= 1e-3:
        return f"$p={p:.2g}$"
    mantissa, exponent = f"{p:.1e}".split("e")
    return f"$p={mantissa}\\times10^{{{int(exponent)}}}$"
