"""The models (:class:`experiments.analysis.figure_models.FigureModel`) of the SAT phase
split and of the per-instance head to head: what those figures show, computed once for
every renderer (the head to head from the wide table of
:mod:`experiments.analysis.head_to_head_table`, which the HTML page ships too)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.analysis import censored_stats
from experiments.analysis.entrant_labels import short_label
from experiments.analysis.figure_models import Axis, FigureModel, Panel, Series
from experiments.analysis.figure_style import family_title
from experiments.analysis.head_to_head_table import (
    STRIP,
    HeadToHeadTable,
    head_to_head_table,
)
from formats.errors import RaceError

PHASE_NAMES = {"t_check": "check", "t_build": "build", "t_encode": "encode", "t_write": "write",
               "t_search": "search", "t_decode": "decode", "t_verify": "verify"}


def sat_entrants(campaign: censored_stats.Campaign) -> list[str]:
    """Entrants that report a CNF encoding phase (the SAT entrants)."""
    runs = campaign.runs
    return [e for e in campaign.entrants
            if runs.loc[runs["entrant"] == e, "t_encode"].notna().any()]


def phases_model(campaign: censored_stats.Campaign, table: pd.DataFrame) -> FigureModel:
    """One panel per SAT entrant of the first family (the assignment's): a bar series per
    phase, its share (%) of the median solve at each n (x: the n), each n labelled with the
    sum of the phase medians; no panel and a note when no entrant is a SAT entrant."""
    family = campaign.families[0]
    first = table[table["family"] == family] if "family" in table.columns and len(table) else table
    entrants = sat_entrants(campaign)
    title = f"SAT phase split, {family_title(campaign, family)}"
    if not entrants:
        return FigureModel("phases", "SAT phase split", (), None, ("no SAT entrant in this campaign",))
    phases = [p for p in censored_stats.PHASES if first.loc[first["entrant"].isin(entrants), p].notna().any()]
    panels = []
    for entrant in entrants:
        rows = first[first["entrant"] == entrant].sort_values("n")
        rows = rows[rows[phases].notna().any(axis=1)]
        ns = rows["n"].to_numpy(float)
        values = rows[phases].fillna(0.0).to_numpy(dtype=float)
        totals = values.sum(axis=1)
        shares = 100 * values / np.where(totals > 0, totals, 1.0)[:, None]
        series = tuple(Series(phase, PHASE_NAMES[phase], ns, shares[:, j], mark="bar",
                              rows=pd.DataFrame({"n": ns, "seconds": values[:, j], "total": totals}))
                       for j, phase in enumerate(phases))
        panels.append(Panel(entrant, short_label(entrant), Axis("box size n", "category"),
                            Axis("share of median time (%)", "linear", (0.0, 100.0)), series,
                            labels=tuple((float(n), censored_stats.format_seconds(t)) for n, t in zip(ns, totals))))
    return FigureModel("phases", title, tuple(panels), None, ("above each bar: the sum of the phase medians",))


def censored_note(counts: dict[str, int], names: tuple[str, str]) -> str:
    """What a head-to-head panel says of its pairs beyond the limit (``counts``:
    :meth:`HeadToHeadTable.counts`), "" when there is none."""
    a, b = names
    said = [f"{a} only: {counts['x_only']}" if counts["x_only"] else "",
            f"{b} only: {counts['y_only']}" if counts["y_only"] else "",
            f"both: {counts['both']}" if counts["both"] else ""]
    said = [t for t in said if t]
    return "> limit (shaded strips)\n" + "\n".join(said) if said else ""


def scatter_model(campaign: censored_stats.Campaign, a: str, b: str, table: HeadToHeadTable | None = None
                  ) -> FigureModel:
    """Per-instance head to head of ``a`` (x) and ``b`` (y) on the same instances, log-log,
    a panel per family and a series per n (key ``n = <n>``), from the campaign's wide table
    (:func:`experiments.analysis.head_to_head_table.head_to_head_table`; ``table``, when at
    hand): a censored time is drawn at its place in the strip beyond the limit (its
    ``censored`` mark set); each panel's title and corner, and the notes (pairs left out for a
    skipped side), give the table's counts. A RaceError names an entrant not in the campaign."""
    for name in (a, b):
        if name not in campaign.entrants:
            raise RaceError(f"entrant {name!r} is not in campaign {campaign.name} "
                            f"(its entrants: {', '.join(campaign.entrants)})")
    table = head_to_head_table(campaign) if table is None else table
    pairs = table.pairs(a, b)
    families = list(dict.fromkeys(pairs["family"])) or campaign.families[:1]
    limit = campaign.timeout_s
    names = (short_label(a), short_label(b))
    low = table.low(a, b)
    ns = sorted(int(n) for n in pairs["n"].unique())
    axes = (Axis(f"{names[0]}: wall time (s)", "log", (low, limit * STRIP)),
            Axis(f"{names[1]}: wall time (s)", "log", (low, limit * STRIP)))
    panels = []
    for family in families:
        part = pairs[pairs["family"] == family]
        series = []
        for n in ns:
            sub = part[part["n"] == n]
            if sub.empty:
                continue
            ta, tb = sub["time_a"].to_numpy(float), sub["time_b"].to_numpy(float)
            series.append(Series(f"n = {n}", f"n = {n}", sub["x"].to_numpy(float), sub["y"].to_numpy(float),
                                 mark="points", censored=np.isinf(ta) | np.isinf(tb), rows=sub))
        counts = table.counts(a, b, family)
        title = f"{family}: {names[1]} slower on {counts['a_faster']} of {counts['pairs']}"
        panels.append(Panel(family, title, *axes, series=tuple(series), corner=censored_note(counts, names)))
    skipped = table.counts(a, b)["left_out"]
    notes = (f"left out: {skipped} pair(s) with a skipped side",) if skipped else ()
    return FigureModel("scatter", f"{names[1]} vs {names[0]} per instance", tuple(panels), limit, notes)
