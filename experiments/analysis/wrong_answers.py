"""Correctness before speed: what NEW got wrong that a time ratio cannot show.

``race compare OLD NEW`` pairs instances by time, and a wrong answer is only a censored
time there (as a timeout is). This module finds, per compared entrant, the instances on
which NEW's entrant

* answered **wrong** (a row with status ``wrong``: a grid that failed IsSolved or the
  clues, or a "no solution" refuted by a verified grid), or
* ended without an answer where OLD's entrant answered (a verified solution or a proof):
  in an **error**, out of **memory** (memout), out of **time** (timeout), with no answer
  (unknown), or **skipped** (its median at a smaller n was censored);

and says them in one line per entrant (:func:`fault_lines`), which the regression gate
(:mod:`experiments.analysis.regression_gate`) reports before it looks at noise or time: a
ratio only says "censored" for these, and one censored instance in four leaves the median
ratio, and so the timing question, untouched.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from experiments.analysis import censored_stats
from experiments.harness.schema import Status

#: instance names a line spells out before "and N more"
SHOWN = 10


#: the statuses of NEW that fail where OLD answered, and how a line says each
UNANSWERED: dict[str, str] = {
    Status.ERROR.value: "ended in an error", Status.MEMOUT.value: "ran out of memory",
    Status.TIMEOUT.value: "ran out of time", Status.UNKNOWN.value: "gave no answer (unknown)",
    Status.SKIPPED.value: "was skipped"}


@dataclass
class Faults:
    """One compared entrant's faults in NEW: (family, n, instance) of each wrong answer, and
    per status of :data:`UNANSWERED` of each instance where NEW ended so and OLD answered."""
    entrant: str
    wrong: list[tuple[str, int, str]] = field(default_factory=list)
    unanswered: dict[str, list[tuple[str, int, str]]] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.wrong or any(self.unanswered.values()))

    @property
    def errors(self) -> list[tuple[str, int, str]]:
        """The instances where NEW ended in an error and OLD answered."""
        return self.unanswered.get(Status.ERROR.value, [])

    def wrong_at(self, family: str, n: int) -> int:
        """How many instances of ``family`` at ``n`` NEW answered wrong."""
        return sum(1 for f, m, _ in self.wrong if (f, m) == (family, n))


def _runs(campaign: censored_stats.Campaign, entrant: str, n_values: list[int] | None,
          families: list[str] | None) -> pd.DataFrame:
    runs = censored_stats.instance_inputs(campaign.runs)       # what faults reads, no other column
    runs = runs[runs["entrant"] == entrant]
    if n_values:
        runs = runs[runs["n"].isin(n_values)]
    if families:
        runs = runs[censored_stats.of_families(runs["family"], families)]
    return runs


def _key(runs: pd.DataFrame) -> pd.Series:
    """An instance's identity across campaigns: its sha256, else family, n and file name
    (:func:`_keys`), worked out once per distinct (sha256, family, n, file name)."""
    columns = ["instance_sha256", "family", "n", "instance"]
    codes = pd.DataFrame({c: pd.factorize(runs[c], use_na_sentinel=False)[0] for c in columns})
    distinct = codes.groupby(columns, sort=False).ngroup().to_numpy()
    first = np.unique(distinct, return_index=True)[1]
    keys = _keys(runs[columns].iloc[first]).to_numpy(dtype=object)
    return pd.Series(keys[distinct], index=runs.index, dtype=object, name="instance_sha256")


def _keys(runs: pd.DataFrame) -> pd.Series:
    sha = runs["instance_sha256"].astype(object)
    named = runs["family"].astype(str) + "|" + runs["n"].astype(str) + "|" + runs["instance"].astype(str)
    return sha.where(sha.notna() & ~sha.astype(str).isin(["", "nan"]), named)


def _where(runs: pd.DataFrame) -> list[tuple[str, int, str]]:
    cells = {(str(f), int(n), str(i)) for f, n, i in zip(runs["family"], runs["n"], runs["instance"])}
    return sorted(cells)


def faults(old: censored_stats.Campaign, new: censored_stats.Campaign, old_entrant: str, new_entrant: str,
           n_values: list[int] | None = None, families: list[str] | None = None,
           label: str | None = None) -> Faults:
    """NEW's wrong answers and what it left unanswered where OLD answered (module docstring),
    for the entrant ``old_entrant`` of OLD paired with ``new_entrant`` of NEW, within the
    filters."""
    mine = _runs(new, new_entrant, n_values, families)
    theirs = _runs(old, old_entrant, n_values, families)
    wrong = mine[mine["status"] == Status.WRONG]
    answered_before = set(_key(theirs)[censored_stats.answered(theirs)])
    where_old_answered = mine[_key(mine).isin(answered_before)]
    unanswered = {status: _where(where_old_answered[where_old_answered["status"] == status])
                  for status in UNANSWERED}
    return Faults(label or old_entrant, _where(wrong),
                  {status: cells for status, cells in unanswered.items() if cells})


def names(cells: list[tuple[str, int, str]]) -> str:
    """``cells`` (family, n, instance) in words, the first :data:`SHOWN` of them spelled out."""
    shown = [f"{instance} ({family} n={n})" for family, n, instance in cells[:SHOWN]]
    more = f" and {len(cells) - SHOWN} more" if len(cells) > SHOWN else ""
    return ", ".join(shown) + more


def fault_line(found: Faults) -> str:
    """One line naming what ``found`` holds: the wrong answers, then each instance NEW left
    unanswered where OLD answered, by status."""
    parts = []
    if found.wrong:
        parts.append(f"answered WRONG on {len(found.wrong)} instance(s): {names(found.wrong)}")
    for status, words in UNANSWERED.items():
        cells = found.unanswered.get(status)
        if cells:
            parts.append(f"{words} where OLD answered on {len(cells)} instance(s): "
                         f"{names(cells)}")
    head = "wrong" if found.wrong else "unanswered"
    return f"race compare: {head}: NEW's {found.entrant} {'; '.join(parts)}"


def fault_lines(all_faults: list[Faults]) -> list[str]:
    """One line per entrant with a fault (none when NEW answered everything it answered
    right)."""
    return [fault_line(f) for f in all_faults if f]
