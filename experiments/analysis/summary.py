"""The end-of-run summary of a campaign, for the terminal.

Per entrant and n: solved/total instances, median wall time with its IQR
(censored statistics from :mod:`experiments.analysis`: an unsolved instance
counts as "more than the limit"), and the count of each failure status.
Wrong answers are never a quiet number in a column: they are listed loudly
below the table, as are instances on which entrants disagree (one proves
``unsat`` while another returns a verified solution).
"""

from __future__ import annotations

import math

import pandas as pd

from experiments.analysis import statistics as analysis
from experiments.harness.schema import FAILURES, Status


def summary_text(campaign: analysis.Campaign, table: pd.DataFrame | None = None) -> str:
    """The summary table of ``campaign`` (``table``: its :func:`analysis.summary`, computed
    when None) plus the loud warnings."""
    table = analysis.summary(campaign) if table is None else table
    fmt = analysis.format_seconds
    head = (f"{'entrant':<26}{'n':>3}{'solved':>9}{'median':>12}{'IQR':>24}"
            + "".join(f"{s:>9}" for s in FAILURES) + f"{'WRONG':>7}")
    lines = [head, "-" * len(head)]
    for row in table.itertuples():
        if row.skipped and row.skipped == row.runs:
            lines.append(f"{row.entrant:<26}{row.n:>3}{'-':>9}{Status.SKIPPED:>12}{'':>24}"
                         + "".join(f"{getattr(row, s):>9}" for s in FAILURES) + f"{row.wrong:>7}")
            continue
        median = fmt(row.median_s, row.limit_s)
        iqr = (f"{fmt(row.q25_s, row.limit_s)} .. {fmt(row.q75_s, row.limit_s)}"
               if not math.isnan(row.q25_s) else "")
        lines.append(f"{row.entrant:<26}{row.n:>3}{f'{row.solved}/{row.total}':>9}{median:>12}"
                     f"{iqr:>24}" + "".join(f"{getattr(row, s):>9}" for s in FAILURES)
                     + f"{row.wrong:>7}")
    lines += _wrong_block(campaign) + _disagreements(campaign)
    return "\n".join(lines)


def _wrong_block(campaign: analysis.Campaign) -> list[str]:
    wrong = analysis.wrong_runs(campaign)
    if wrong.empty:
        return []
    out = ["", f"!!! WRONG ANSWERS: {len(wrong)} cell(s) returned a grid that is NOT a solution !!!"]
    for r in wrong.head(20).itertuples():
        out.append(f"!!!   {r.entrant} n={r.n} {r.instance} repeat {r.repeat}: {r.message}")
    if len(wrong) > 20:
        out.append(f"!!!   ... and {len(wrong) - 20} more (status wrong in runs.csv)")
    return out


def _disagreements(campaign: analysis.Campaign) -> list[str]:
    runs = campaign.runs
    solved = set(runs.loc[runs["status"] == Status.SOLVED, "instance"])
    unsat = runs[(runs["status"] == Status.UNSAT) & runs["instance"].isin(solved)]
    if unsat.empty:
        return []
    out = ["", f"!!! DISAGREEMENT: {len(unsat)} cell(s) claim unsat on an instance another "
               f"entrant solved (verified) !!!"]
    for r in unsat.head(20).itertuples():
        out.append(f"!!!   {r.entrant} n={r.n} {r.instance}")
    return out
