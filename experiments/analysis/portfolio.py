"""Learn the rule of the ``auto`` entrant from one or more campaigns: per n and share of
empty cells, the entrant that answers most, fastest (``race portfolio CAMPAIGN...`` writes it to
``portfolio.csv`` in the current directory or where ``-o`` says; :mod:`solvers.auto` reads the
committed ``solvers/portfolio.csv`` unless given another table).

Per (family, n) of each campaign: the instances' shares of empty cells (from their clues)
and each entrant's wins (fastest verified answer per instance,
:func:`experiments.analysis.virtual_best.wins`), answers, median time and PAR-2. Several
campaigns are pooled per family key and n: wins, answers and instances add up (an
instance raced in two campaigns counts twice, once per campaign), so a campaign with a
longer limit on the hardest cells can teach what the main one could not. The pick of a
(family, n) is, among the entrants that answered the largest share of the instances they
raced there (a share, not a count: an entrant raced in only one of the pooled campaigns
is not outnumbered), the one with the lowest PAR-2 over those instances (then the most
wins, then the smaller median time, then campaign order), so the rule never trades
answers for speed, and among equals it weighs the tail: on hard puzzles the fastest
entrant on most instances can be the one whose slow instances cost the most (hard n = 5,
seed 11: in-process CaDiCaL won most puzzles but its sum was 1.5x kissat's; on all 50 hard
n = 5 puzzles raced, though, kissat's sum was twice CaDiCaL's).

Where nobody answered any instance of a (family, n), the pick of the same family at the
nearest n where somebody did is taken (the smaller n on a tie): a family keeps its kind
of difficulty from one n to the next, while two families at the same n can differ in
kind (propagation settles the one, search is needed for the other). A family nobody
answered at any n takes the pick of the family at the same n whose share is nearest.
Both are said in ``reason``. Then, per n, the families are ordered by their share and
the boundaries put half-way between neighbours; neighbours with the same pick merge
(the share matters only where the pick changes).

Only built-in entrants can be picked (a ``cmd:`` or plugin entrant is left out, and so is
``auto`` itself).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from experiments.analysis import censored_stats, virtual_best
from formats.errors import RaceError, write_reason
from formats.whole_file import replacing

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


def _tallies(campaign: censored_stats.Campaign) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Per (family key, n, entrant) of one campaign: ``wins``, ``solved``, ``median_s`` and
    ``instances``; per (family key, n, instance): its ``empty`` share; and per (family key,
    n, entrant, puzzle): the ``time`` (``inf`` unanswered) and the PAR-2 ``penalty`` of an
    unanswered run (twice the campaign's limit), the puzzle named by its sha256."""
    entrants = [e for e in campaign.entrants if _pickable(e)]
    if not entrants:
        raise RaceError(f"campaign {campaign.name}: no built-in entrant to learn from "
                        f"(entrants: {', '.join(campaign.entrants)})")
    runs = campaign.runs[campaign.runs["entrant"].isin(entrants)]
    sub = censored_stats.Campaign(campaign.path, runs.reset_index(drop=True),
                            campaign.meta | {"entrants": entrants})
    keys = dict(zip(runs["family"], runs["family_key"]))
    table = censored_stats.summary(sub)
    best = virtual_best.best_times(censored_stats.instance_times(sub.runs), entrants)
    rows = []
    for family in sub.families:
        for n in sorted(best.loc[best["family"] == family, "n"].unique()):
            here = best[(best["family"] == family) & (best["n"] == n)]
            stats = table[(table["family"] == family) & (table["n"] == n)].set_index("entrant")
            for order, e in enumerate(entrants):
                rows.append({"family": keys[family], "n": int(n), "entrant": e, "order": order,
                             "wins": int((here["winner"] == e).sum()), "instances": len(here),
                             "solved": int(stats.loc[e, "solved"]) if e in stats.index else 0,
                             "median_s": float(stats.loc[e, "median_s"]) if e in stats.index
                             else math.inf,
                             "par2_total": float(stats.loc[e, "par2_s"]) * len(here)
                             if e in stats.index else math.inf})
    shares = runs.drop_duplicates(["family_key", "n", "instance"]).assign(
        family=lambda f: f["family_key"],
        empty=lambda f: 1.0 - pd.to_numeric(f["clues"], errors="coerce") / f["n"].astype(float) ** 4)
    times = censored_stats.instance_times(sub.runs)
    times = times.assign(family=times["family"].map(keys),
                         puzzle=times["instance_sha256"].where(times["instance_sha256"] != "",
                                                               campaign.name + "/" + times["instance"]),
                         penalty=2 * campaign.timeout_s)
    return (pd.DataFrame(rows), shares[["family", "n", "instance", "empty"]],
            times[["family", "n", "entrant", "puzzle", "time", "penalty"]])


def family_picks(campaigns: censored_stats.Campaign | list[censored_stats.Campaign]) -> pd.DataFrame:
    """Per (family key, n), the campaigns pooled: ``empty_median``, the pick (``entrant``),
    its ``wins`` of ``instances`` and the ``reason`` (before the fill-in of the cells
    nobody answered, whose ``entrant`` is "")."""
    campaigns = campaigns if isinstance(campaigns, list) else [campaigns]
    tallies, shares, times = zip(*(_tallies(c) for c in campaigns))
    pooled = pd.concat([t.assign(source=i) for i, t in enumerate(tallies)], ignore_index=True)
    share = pd.concat(shares, ignore_index=True)
    # one time per (entrant, puzzle): the first campaign's answer, or the first campaign's
    # timeout if none answered it (a puzzle raced again with a longer limit counts as answered;
    # a puzzle raced in two campaigns by different entrants is one puzzle for the comparison)
    per_puzzle = pd.concat(times, ignore_index=True)
    per_puzzle = per_puzzle.assign(unanswered=~np.isfinite(per_puzzle["time"].to_numpy(float))) \
        .sort_values("unanswered", kind="mergesort").drop_duplicates(
        ["family", "n", "entrant", "puzzle"], keep="first").drop(columns="unanswered")
    rows = []
    family_order = list(dict.fromkeys(pooled["family"]))
    for family in family_order:
        mine = pooled[pooled["family"] == family]
        for n in sorted(mine["n"].unique()):
            cell = mine[mine["n"] == n].groupby("entrant", sort=False).agg(
                wins=("wins", "sum"), solved=("solved", "sum"), instances=("instances", "sum"),
                median_s=("median_s", "median"), par2_total=("par2_total", "sum"),
                order=("order", "min"))
            cell = cell.assign(answered=cell["solved"] / cell["instances"],
                               par2=cell["par2_total"] / cell["instances"], neg_wins=-cell["wins"])
            empty = share.loc[(share["family"] == family) & (share["n"] == n), "empty"].dropna()
            sources = mine.loc[mine["n"] == n, "source"].nunique()
            if int(cell["solved"].max()) == 0:
                pick, reason = "", "nobody answered"
                instances = int(cell["instances"].max())
            else:
                here = per_puzzle[(per_puzzle["family"] == family) & (per_puzzle["n"] == n)]
                best = cell[_level_on_shared(cell, here)]
                best, versus = _on_shared_puzzles(best, here)
                pick = str(best.sort_values(["par2", "neg_wins", "median_s", "order"],
                                            kind="mergesort").index[0])
                instances = int(cell.loc[pick, "instances"])
                digits, against = versus(pick)
                reason = (f"{family}: {cell.loc[pick, 'wins']}/{instances} wins, "
                          f"{cell.loc[pick, 'solved']}/{instances} answered, "
                          f"PAR-2 {_seconds(best.loc[pick, 'par2'], digits)}{against}"
                          + (f" ({sources} campaigns)" if sources > 1 else ""))
            rows.append({"family": family, "n": int(n), "empty_median": float(empty.median())
                         if len(empty) else math.nan, "entrant": pick,
                         "wins": int(cell.loc[pick, "wins"]) if pick else 0,
                         "instances": instances, "reason": reason})
    return pd.DataFrame(rows)


def _level_on_shared(cell: pd.DataFrame, here: pd.DataFrame) -> pd.Series:
    """Which entrants of ``cell`` answered the largest share: each on its own puzzles, and also
    an entrant that answered at least as many as a leader on the puzzles both raced (its own
    share can be lower only because it raced harder puzzles besides: e.g. a second campaign
    with a 20 s limit where nobody answered)."""
    top = cell["answered"] >= cell["answered"].max() - 1e-12
    answered = here.assign(ok=np.isfinite(here["time"].to_numpy(float))).pivot_table(
        index="puzzle", columns="entrant", values="ok", aggfunc="first")
    for e in cell.index[~top]:
        for leader in cell.index[top]:
            if e not in answered or leader not in answered:
                continue
            both = answered[[e, leader]].dropna()
            if len(both) and both[e].astype(bool).sum() >= both[leader].astype(bool).sum():
                top[e] = True
                break
    return top


def _on_shared_puzzles(best: pd.DataFrame, here: pd.DataFrame):
    """Entrants tied on their share of answers are compared on the puzzles they all raced
    (PAR-2, answers, wins and median recomputed there), not each on its own instances: an
    entrant raced only on easier puzzles must not look faster for it. Returns the rows of
    ``best`` with those figures (unchanged when one entrant is left or they share no
    puzzle) and a function giving, for the pick, the significant digits its PAR-2 needs to
    read apart from the next best's, and the comparison's words for the reason."""
    if len(best) < 2:
        return best, lambda pick: (3, "")
    wide = here[here["entrant"].isin(best.index)].pivot(index="puzzle", columns="entrant", values="time")
    penalty = here.groupby("puzzle")["penalty"].max()
    wide = wide.dropna()
    if wide.empty:
        return best, lambda pick: (3, "")
    finite = np.isfinite(wide.to_numpy(float))
    par2 = np.where(finite, wide.to_numpy(float), penalty.loc[wide.index].to_numpy(float)[:, None])
    winners = wide.idxmin(axis=1)[finite.any(axis=1)]
    shared = best.copy()
    for j, e in enumerate(wide.columns):
        shared.loc[e, ["solved_shared", "par2", "median_s"]] = [
            int(finite[:, j].sum()), float(par2[:, j].mean()), float(np.median(par2[:, j]))]
        shared.loc[e, "neg_wins"] = -int((winners == e).sum())
    top = shared["solved_shared"].max()
    shared = shared[shared["solved_shared"] == top]
    count = len(wide)

    def versus(pick: str) -> tuple[int, str]:
        others = shared.drop(index=pick).sort_values("par2", kind="mergesort")
        if others.empty:
            return 3, ""
        runner = others.index[0]
        mine, theirs = shared.loc[pick, "par2"], others.loc[runner, "par2"]
        digits = next((d for d in (3, 4, 5, 6) if _seconds(mine, d) != _seconds(theirs, d)), 3)
        return digits, (f" against {_seconds(theirs, digits)} for {runner}, the next best, "
                        f"on the {count} puzzles {'both' if len(shared) == 2 else 'they all'} "
                        f"raced, fastest on {-int(shared.loc[pick, 'neg_wins'])} of them")
    return shared, versus


def _seconds(value: float, digits: int = 3) -> str:
    """A PAR-2 mean for a reason: ms below a second, else s; ``digits`` significant digits
    (more where two means would otherwise read the same)."""
    return f"{1000 * value:.{digits}g} ms" if value < 1 else f"{value:.{digits}g} s"


def _fill_unanswered(picks: pd.DataFrame) -> pd.DataFrame:
    """Each (family, n) nobody answered takes the pick of the same family at the nearest
    n somebody answered (the smaller n on a tie); a family nobody answered at any n, the
    pick at the same n of the family with the nearest share (see the module docstring)."""
    picks = picks.copy()
    known = picks[picks["entrant"] != ""]
    for i in picks.index[picks["entrant"] == ""]:
        family, n = picks.loc[i, "family"], picks.loc[i, "n"]
        same = known[known["family"] == family]
        if len(same):
            near = same.loc[(same["n"] - n).abs().add(same["n"] / 1e6).idxmin()]
            why = f"{family}: nobody answered at n={n}, as at n={near['n']}"
        else:
            here = known[(known["n"] == n) & known["empty_median"].notna()]
            if not len(here) or pd.isna(picks.loc[i, "empty_median"]):
                continue
            near = here.loc[(here["empty_median"] - picks.loc[i, "empty_median"]).abs().idxmin()]
            why = f"{family}: nobody answered, nearest share {near['family']}"
        picks.loc[i, ["entrant", "wins", "reason"]] = [near["entrant"], 0, why]
    return picks


def learn(campaigns: censored_stats.Campaign | list[censored_stats.Campaign]) -> pd.DataFrame:
    """The rule table (columns :data:`COLUMNS`), one row per n and range of empty share,
    learned from one campaign or several pooled (see the module docstring)."""
    campaigns = campaigns if isinstance(campaigns, list) else [campaigns]
    picks = _fill_unanswered(family_picks(campaigns))
    source = "+".join(c.name for c in campaigns)
    rows: list[dict[str, Any]] = []
    for n in sorted(picks["n"].unique()):
        here = picks[(picks["n"] == n) & picks["empty_median"].notna() & (picks["entrant"] != "")]
        here = here.sort_values("empty_median").reset_index(drop=True)
        if here.empty:
            continue
        cuts = [0.0] + [float((a + b) / 2) for a, b in zip(here["empty_median"][:-1], here["empty_median"][1:])]
        cuts += [1.0]
        for i, row in here.iterrows():
            entry = {"n": int(n), "empty_from": round(cuts[i], 4), "empty_to": round(cuts[i + 1], 4),
                     "entrant": row["entrant"], "wins": int(row["wins"]), "instances": int(row["instances"]),
                     "family": row["family"], "empty_median": round(float(row["empty_median"]), 4),
                     "reason": row["reason"], "campaign": source}
            if rows and rows[-1]["n"] == n and rows[-1]["entrant"] == entry["entrant"]:
                last = rows[-1]
                last |= {"empty_to": entry["empty_to"], "wins": last["wins"] + entry["wins"],
                         "instances": last["instances"] + entry["instances"],
                         "family": f"{last['family']}+{entry['family']}",
                         "reason": f"{last['reason']}; {entry['reason']}"}
            else:
                rows.append(entry)
    if not rows:
        raise RaceError(f"campaign {source}: no instance answered by a built-in entrant")
    return pd.DataFrame(rows, columns=COLUMNS)


def write(table: pd.DataFrame, path: str | Path) -> Path:
    """Write the rule table as CSV (RaceError when it cannot be written)."""
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with replacing(target) as temporary:    # whole or not at all: auto reads it
            table.to_csv(temporary, index=False, float_format="%.4g")
    except OSError as exc:
        raise RaceError(f"cannot write the portfolio table: {write_reason(exc)}",
                        source=str(target)) from None
    return target


def describe(table: pd.DataFrame) -> str:
    """The rule for humans: one line per n and range."""
    width = max([len("pick"), *map(len, table["entrant"])]) + 2
    lines = [f"{'n':>3}  {'empty cells':<14}{'pick':<{width}}why"]
    for row in table.itertuples():
        span = f"{100 * row.empty_from:.0f}-{100 * row.empty_to:.0f}%"
        lines.append(f"{row.n:>3}  {span:<14}{row.entrant:<{width}}{row.reason}")
    return "\n".join(lines)
