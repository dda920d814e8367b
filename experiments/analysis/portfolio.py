"""Learn the rule of the ``auto`` entrant from a campaign: per n and share of empty cells,
the entrant that wins most often (``race portfolio CAMPAIGN`` writes it to
``solvers/portfolio.csv``, which :mod:`solvers.auto` reads).

Per (family, n) of the campaign: the family's median share of empty cells (from the
instances' clues) and each entrant's wins (fastest verified answer per instance,
:func:`experiments.analysis.virtual_best.wins`). The pick of that (family, n) is, among
the entrants that answered the most instances there, the one with the most wins (then
the smaller median time, then campaign order), so the rule never trades answers for speed.
Where nobody answered any instance, the pick of the family at the same n whose share is
nearest is taken (said in ``reason``). Then, per n, the families are ordered by their share
and the boundaries put half-way between neighbours; neighbours with the same pick merge
(the share matters only where the pick changes).

Only built-in entrants can be picked (a ``cmd:`` or plugin entrant is left out, and so is
``auto`` itself).
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from experiments.analysis import statistics as analysis
from experiments.analysis import virtual_best
from formats.errors import RaceError

COLUMNS = ["n", "empty_from", "empty_to", "entrant", "wins", "instances", "family", "empty_median",
           "reason", "campaign"]


def _pickable(entrant: str) -> bool:
    """A built-in entrant that runs anywhere: not an outside program (its path is this
    machine's), not one that itself picks per puzzle."""
    from solvers.registry import BUILTIN, parse_spec
    name = parse_spec(entrant)[0]
    if name not in BUILTIN.names():
        return False
    cls = BUILTIN.solver_class(name)
    return not cls.picks and cls.method != "external"


def family_picks(campaign: analysis.Campaign) -> pd.DataFrame:
    """Per (family, n): ``empty_median``, the pick (``entrant``), its ``wins`` of
    ``instances``, ``solved`` and the ``reason`` (before nearest-share fill-in)."""
    entrants = [e for e in campaign.entrants if _pickable(e)]
    if not entrants:
        raise RaceError(f"campaign {campaign.name}: no built-in entrant to learn from "
                        f"(entrants: {', '.join(campaign.entrants)})")
    runs = campaign.runs[campaign.runs["entrant"].isin(entrants)]
    sub = analysis.Campaign(campaign.path, runs.reset_index(drop=True),
                            campaign.meta | {"entrants": entrants})
    table = analysis.summary(sub)
    per_instance = analysis.instance_times(sub.runs)
    best = virtual_best.best_times(per_instance, entrants)
    shares = runs.drop_duplicates("instance").assign(
        empty=lambda f: 1.0 - pd.to_numeric(f["clues"], errors="coerce") / f["n"].astype(float) ** 4)
    rows = []
    for family in sub.families:
        for n in sorted(best.loc[best["family"] == family, "n"].unique()):
            here = best[(best["family"] == family) & (best["n"] == n)]
            empty = shares.loc[(shares["family"] == family) & (shares["n"] == n), "empty"].dropna()
            stats = table[(table["family"] == family) & (table["n"] == n)].set_index("entrant")
            wins = {e: int((here["winner"] == e).sum()) for e in entrants}
            solved = {e: int(stats.loc[e, "solved"]) if e in stats.index else 0 for e in entrants}
            median = {e: float(stats.loc[e, "median_s"]) if e in stats.index else math.inf for e in entrants}
            top = max(solved.values())
            if top == 0:
                pick, reason = "", "nobody answered"
            else:
                order = {e: i for i, e in enumerate(entrants)}
                pick = min((e for e in entrants if solved[e] == top),
                           key=lambda e: (-wins[e], median[e], order[e]))
                reason = f"{family}: {wins[pick]}/{len(here)} wins, {solved[pick]}/{len(here)} answered"
            rows.append({"family": family, "n": int(n), "empty_median": float(empty.median()) if len(empty)
                         else math.nan, "entrant": pick, "wins": wins.get(pick, 0), "instances": len(here),
                         "reason": reason})
    return pd.DataFrame(rows)


def learn(campaign: analysis.Campaign) -> pd.DataFrame:
    """The rule table (columns :data:`COLUMNS`), one row per n and range of empty share."""
    picks = family_picks(campaign)
    rows = []
    for n in sorted(picks["n"].unique()):
        here = picks[(picks["n"] == n) & picks["empty_median"].notna()].sort_values("empty_median")
        here = here.reset_index(drop=True)
        if (here["entrant"] == "").all():
            continue
        for i in here.index[here["entrant"] == ""]:       # nobody answered: nearest share's pick
            known = here[here["entrant"] != ""]
            near = known.loc[(known["empty_median"] - here.loc[i, "empty_median"]).abs().idxmin()]
            here.loc[i, "entrant"] = near["entrant"]
            here.loc[i, "wins"] = 0
            here.loc[i, "reason"] = f"{here.loc[i, 'family']}: nobody answered, nearest share {near['family']}"
        cuts = [0.0] + [float((a + b) / 2) for a, b in zip(here["empty_median"][:-1], here["empty_median"][1:])]
        cuts += [1.0]
        for i, row in here.iterrows():
            entry = {"n": int(n), "empty_from": round(cuts[i], 4), "empty_to": round(cuts[i + 1], 4),
                     "entrant": row["entrant"], "wins": int(row["wins"]), "instances": int(row["instances"]),
                     "family": row["family"], "empty_median": round(float(row["empty_median"]), 4),
                     "reason": row["reason"], "campaign": campaign.name}
            if rows and rows[-1]["n"] == n and rows[-1]["entrant"] == entry["entrant"]:
                last = rows[-1]
                last |= {"empty_to": entry["empty_to"], "wins": last["wins"] + entry["wins"],
                         "instances": last["instances"] + entry["instances"],
                         "family": f"{last['family']}+{entry['family']}",
                         "reason": f"{last['reason']}; {entry['reason']}"}
            else:
                rows.append(entry)
    if not rows:
        raise RaceError(f"campaign {campaign.name}: no instance answered by a built-in entrant")
    return pd.DataFrame(rows, columns=COLUMNS)


def write(table: pd.DataFrame, path: str | Path) -> Path:
    """Write the rule table as CSV (RaceError when it cannot be written)."""
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        table.to_csv(target, index=False, float_format="%.4g")
    except OSError as exc:
        raise RaceError(f"cannot write the portfolio table: {exc.strerror}", source=str(target)) from None
    return target


def describe(table: pd.DataFrame) -> str:
    """The rule for humans: one line per n and range."""
    lines = [f"{'n':>3}  {'empty cells':<14}{'pick':<16}why"]
    for row in table.itertuples():
        span = f"{100 * row.empty_from:.0f}-{100 * row.empty_to:.0f}%"
        lines.append(f"{row.n:>3}  {span:<14}{row.entrant:<16}{row.reason}")
    return "\n".join(lines)
