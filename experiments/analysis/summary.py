"""The end-of-run summary of a campaign, for the terminal.

Per instance family, entrant and n: solved/total instances, median wall time with
its bootstrap interval and IQR (censored statistics from :mod:`experiments.analysis`: an unsolved instance
counts as "more than the limit"), and the count of each failure status.
An entrant that held several cores per cell (``parallel``) also gets its total CPU time and
which member answered (:mod:`experiments.analysis.multicore`).
Wrong answers are never a quiet number in a column: they are listed loudly
below the table, including false "no solution" claims (the referee's verdicts, and
disagreements settled by a verified grid, :func:`experiments.analysis.censored_stats.settle`).
"""

from __future__ import annotations

import math

import pandas as pd

from experiments.analysis import censored_stats, multicore, virtual_best
from experiments.analysis import growth as growth_fit
from experiments.harness.schema import FAILURES, Status


def summary_text(campaign: censored_stats.Campaign, table: pd.DataFrame | None = None,
                 per_instance: pd.DataFrame | None = None) -> str:
    """The summary table of ``campaign`` (``table``: its :func:`censored_stats.summary`, computed
    when None), one block per instance family when there are several, the growth factors
    with their intervals, then the loud warnings. ``per_instance``: the campaign's
    :func:`censored_stats.instance_times`, when the caller has it (computed once here otherwise)."""
    per_instance = censored_stats.instance_times(campaign.runs) if per_instance is None else per_instance
    table = censored_stats.summary(campaign, per_instance) if table is None else table
    width = max([26, *(len(str(e)) + 2 for e in table["entrant"])]) if len(table) else 26
    widths = _widths(table)
    n_w, solved_w = widths
    head = (f"{'entrant':<{width}}{'n':>{n_w}}{'solved':>{solved_w}}{'median':>11}{'95% CI':>22}{'IQR':>23}"
            + "".join(f"{s:>9}" for s in FAILURES) + f"{'WRONG':>7}")
    lines = [head, "-" * len(head)]
    vbs = virtual_best.summary(campaign, per_instance) if virtual_best.applies(campaign) else pd.DataFrame()
    families = campaign.families
    for family in families:
        if len(families) > 1:
            lines.append(f"[{family} puzzles]")
        rows = table[table["family"] == family] if "family" in table.columns else table
        lines += [_row_text(row, width, widths) for row in rows.itertuples()]
        lines += _vbs_rows(vbs[(vbs["family"] == family) & vbs["n"].isin(rows["n"])], width, widths) \
            if len(vbs) else []
    if len(table) and table["skipped"].sum():
        from experiments.analysis.skipped_cells import COUNTING
        lines.append(f"skipped: {COUNTING}")
    lines += multicore.summary_lines(campaign)
    lines += _growth_block(campaign, table, per_instance)
    lines += _wins_block(campaign, table, per_instance)
    lines += _wrong_block(campaign)
    return "\n".join(lines)


def _widths(table: pd.DataFrame) -> tuple[int, int]:
    """The widths of the n and solved columns: every value of ``table`` (any n, any number of
    instances) fits with a space before it."""
    if not len(table):
        return 3, 9
    return (max(3, *(len(str(n)) + 1 for n in table["n"])),
            max(9, *(len(f"{t}/{t}") + 2 for t in table["total"])))


def _row_text(row, width: int = 26, widths: tuple[int, int] = (3, 9)) -> str:
    n_w, solved_w = widths
    fmt = censored_stats.format_seconds
    failures = "".join(f"{getattr(row, s):>9}" for s in FAILURES) + f"{row.wrong:>7}"
    if row.skipped and row.skipped == row.runs:
        return f"{row.entrant:<{width}}{row.n:>{n_w}}{'-':>{solved_w}}{Status.SKIPPED:>11}{'':>22}{'':>23}" + failures
    iqr = (f"{fmt(row.q25_s, row.limit_s)} .. {fmt(row.q75_s, row.limit_s)}"
           if not math.isnan(row.q25_s) else "")
    ci = censored_stats.format_interval(row.median_lo, row.median_hi, row.limit_s)
    return (f"{row.entrant:<{width}}{row.n:>{n_w}}{f'{row.solved}/{row.total}':>{solved_w}}"
            f"{fmt(row.median_s, row.limit_s):>11}{ci:>22}{iqr:>23}" + failures)


def _vbs_rows(rows: pd.DataFrame, width: int = 26, widths: tuple[int, int] = (3, 9)) -> list[str]:
    """The virtual best solver's rows (no failure columns: it is not a run)."""
    n_w, solved_w = widths
    fmt = censored_stats.format_seconds
    out = []
    for row in rows.itertuples():
        iqr = (f"{fmt(row.q25_s, row.limit_s)} .. {fmt(row.q75_s, row.limit_s)}"
               if not math.isnan(row.q25_s) else "")
        ci = censored_stats.format_interval(row.median_lo, row.median_hi, row.limit_s)
        out.append(f"{virtual_best.NAME + ' (VBS)':<{width}}{row.n:>{n_w}}{f'{row.solved}/{row.total}':>{solved_w}}"
                   f"{fmt(row.median_s, row.limit_s):>11}{ci:>22}{iqr:>23}")
    return out


def _wins_block(campaign: censored_stats.Campaign, table: pd.DataFrame, per_instance: pd.DataFrame) -> list[str]:
    """Who wins where: per family and n, the instances each entrant answered fastest,
    those nobody answered, and the VBS's speed-up over the best single entrant."""
    if not virtual_best.applies(campaign):
        return []
    wins = virtual_best.wins(campaign, table, per_instance)
    if not wins.empty:   # the (family, n) of the table it is given
        families = table["family"] if "family" in table.columns else campaign.families[:1] * len(table)
        shown = set(zip(families, table["n"]))
        wins = wins[[(k, n) in shown for k, n in zip(wins["family"], wins["n"])]]
    if wins.empty:
        return []
    entrants = campaign.entrants
    width = max(13, *(len(e) + 2 for e in entrants))
    several = len(campaign.families) > 1
    family_w = max(10, *(len(str(f)) + 2 for f in wins["family"]))
    n_w = max(3, *(len(str(n)) + 1 for n in wins["n"]))
    counts_w = {e: max(width, *(len(str(v)) + 2 for v in wins[f"wins_{e}"])) for e in entrants}
    nobody_w = max(8, *(len(str(v)) + 2 for v in wins["unanswered"]))
    head = ((f"{'family':<{family_w}}" if several else "") + f"{'n':>{n_w}}" + "".join(f"{e:>{counts_w[e]}}" for e in entrants)
            + f"{'nobody':>{nobody_w}}  {'best single':<{width}}{'VBS speed-up [95% CI]'}")
    out = ["", "who wins where: instances on which each entrant gave the fastest verified answer "
               "(the virtual best solver, VBS, takes it), and the VBS's median speed-up over the best "
               "single entrant:", head, "-" * len(head)]
    for row in wins.to_dict("records"):
        cells = "".join(f"{row[f'wins_{e}']:>{counts_w[e]}}" for e in entrants)
        speed = virtual_best.format_speedup(row["speedup"], row["speedup_lo"], row["speedup_hi"])
        out.append((f"{row['family']:<{family_w}}" if several else "") + f"{row['n']:>{n_w}}" + cells
                   + f"{row['unanswered']:>{nobody_w}}  {row['best_single'] or '-':<{width}}{speed}")
    return out


def _growth_block(campaign: censored_stats.Campaign, table: pd.DataFrame, per_instance: pd.DataFrame) -> list[str]:
    """The fitted growth factor per step of n with its bootstrap interval, per family."""
    growth = growth_fit.growth_table(campaign, table, per_instance)
    growth = growth[growth["points"] >= 2]
    if growth.empty:
        return []
    out = ["", "growth of the median time per step of n (fit over the n where the median is "
               "measured) [95% bootstrap CI]:"]
    for row in growth.itertuples():
        prefix = f"{row.family}: " if len(campaign.families) > 1 else ""
        high = "unbounded" if math.isinf(row.factor_hi) else f"{row.factor_hi:.3g}"
        interval = f"[{row.factor_lo:.3g}, {high}]"
        out.append(f"  {prefix}{row.entrant:<26} x{row.factor:<8.3g} {interval:<20} "
                   f"n = {int(row.n_from)}..{int(row.n_to)}")
    return out


def _wrong_block(campaign: censored_stats.Campaign) -> list[str]:
    wrong = censored_stats.wrong_runs(campaign)
    if wrong.empty:
        return []
    out = ["", f"!!! WRONG ANSWERS: {len(wrong)} cell(s) gave a wrong answer (a grid that is NOT "
               "a solution, or a false claim); none counts as solved !!!"]
    for r in wrong.head(20).itertuples():
        out.append(f"!!!   {r.entrant} n={r.n} {r.instance} repeat {r.repeat}: {r.message}")
    if len(wrong) > 20:
        out.append(f"!!!   ... and {len(wrong) - 20} more (status wrong in runs.csv)")
    return out


def family_summaries(campaign: censored_stats.Campaign,
                     per_instance: pd.DataFrame | None = None) -> str:
    """The end-of-run summary: one block per family, in the one family order
    (:attr:`experiments.analysis.censored_stats.Campaign.families`), each headed by its hole
    fraction per n when it has one (one table when there is one family). ``per_instance``: the
    campaign's :func:`censored_stats.instance_times`, when the caller has it."""
    families = campaign.families
    notes = "".join(f"\n{line}" for line in startup_notes(campaign))
    if len(families) <= 1:
        return summary_text(campaign, per_instance=per_instance) + notes
    blocks = []
    for family in families:
        holes = campaign.holes_by_n(family)
        detail = (" (" + ", ".join(f"n={n}: {h:.0%} holes" for n, h in sorted(holes.items())) + ")"
                  if holes else "")
        blocks.append(f"== {family}{detail}\n{summary_text(campaign.family(family))}")
    return "\n\n".join(blocks) + notes


def startup_notes(campaign: censored_stats.Campaign) -> list[str]:
    """One note per outside program (a ``cmd`` entrant) whose start-up the campaign measured
    (``startup_s`` in meta.json's ``entrant_provenance``: its answer to an empty puzzle): each
    of its times includes that start, where an in-process entrant's include none."""
    from experiments.analysis.campaign_data import entrant_labels
    found = campaign.meta.get("entrant_provenance") or {}
    labels = entrant_labels(list(found))
    shown = set(campaign.entrants)
    notes = []
    for spec, said in found.items():
        startup = said.get("startup_s") if isinstance(said, dict) else None
        name = labels.get(spec, spec)
        if isinstance(startup, (int, float)) and name in shown:
            notes.append(f"note: {name} is an outside program: each of its times includes its "
                         f"start, {censored_stats.format_seconds(float(startup))} (its answer to an "
                         "empty puzzle, in meta.json's entrant_provenance)")
    return notes
