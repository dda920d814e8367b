"""Skipped is not timed out: a cell the skip rule never ran
(:mod:`experiments.harness.scheduling`: its entrant was censored at a smaller n of the family)
has no time, not a time above the limit.

In the statistics a skipped run is censored like every unanswered one: an instance whose runs
were partly skipped counts as unsolved in ``solved`` and as twice the limit in PAR-2. An
entrant, family and n whose every run was skipped is no measurement at all: the tables show it
as ``skipped`` (no median, no PAR-2, no solved share), and the figures leave it out and name it
(:func:`note`), never drawing it as a censored time or as 0 % solved.
"""

from __future__ import annotations

import pandas as pd

#: how the tables and figures say how skipped runs are counted
COUNTING = ("a skipped run (never raced: the entrant was censored at a smaller n) counts as "
            "unsolved in solved and PAR-2; an n whose every run was skipped reads skipped")


def mask(table: pd.DataFrame) -> pd.Series:
    """Per summary row (:func:`experiments.analysis.censored_stats.summary`), whether every run
    of its entrant, family and n was skipped."""
    if not len(table) or "skipped" not in table.columns or "runs" not in table.columns:
        return pd.Series(False, index=table.index)
    skipped = pd.to_numeric(table["skipped"], errors="coerce").fillna(0)
    return (skipped > 0) & (skipped == pd.to_numeric(table["runs"], errors="coerce"))


def drawn(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` without its all-skipped rows (what a figure draws)."""
    return table[~mask(table)]


def note(table: pd.DataFrame) -> str:
    """The all-skipped rows in words (``skipped, not run: backtracking hard n=5,6``), or ""."""
    rows = table[mask(table)]
    if not len(rows):
        return ""
    parts = []
    for (entrant, family), group in rows.groupby(["entrant", "family"], sort=False):
        parts.append(f"{entrant} {family} n={','.join(str(int(n)) for n in sorted(group['n']))}")
    return "skipped, not run: " + "; ".join(parts)
