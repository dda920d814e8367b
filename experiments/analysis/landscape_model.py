"""The model (:class:`experiments.analysis.figure_models.FigureModel`) of the hardness
landscape of a ``race landscape`` campaign: what its figure shows, computed once for the
static renderer (:func:`experiments.analysis.landscape.draw_landscape`) and the page's
(:func:`experiments.report.html_landscape.draw_landscape`).

A panel per n (key ``str(n)``), a series per entrant: x the share of empty cells, y the
median time over the instances of that share (NaN where the median is beyond the limit, its
``censored`` mark set: drawn hollow in the entrant's row of the strip above the limit),
``rows`` the :func:`experiments.analysis.landscape.landscape_table` rows of its points (what a
hover box tells: solved share, median time, median work). Each panel's ``spans`` hold the
hardness peak's 90% bootstrap interval (:func:`experiments.analysis.landscape.peaks`),
widened by :data:`SPAN_PAD` on each side so that an interval of one share still shows.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.analysis import censored_stats
from experiments.analysis.figure_models import Axis, FigureModel, Panel, Series, lowest

#: how far the shaded peak interval reaches beyond its ends (a share of empty cells)
SPAN_PAD = 0.01
#: what the shaded spans are (the figure's note)
PEAK = "hardness peak (90% bootstrap interval)"
#: the axes' labels
X_LABEL = "fraction of empty cells"
Y_LABEL = "median wall time (s, log scale)"


def landscape_model(campaign: censored_stats.Campaign, per_instance: pd.DataFrame | None = None) -> FigureModel:
    """The landscape figure of ``campaign`` (see the module docstring); ``per_instance``: its
    :func:`experiments.analysis.landscape.instance_table`, when at hand. No panel when the
    campaign has no rows."""
    from experiments.analysis.landscape import (
        instance_table,
        landscape_family,
        landscape_table,
        peaks,
    )
    inst = instance_table(campaign) if per_instance is None else per_instance
    table = landscape_table(campaign, inst)
    limit = campaign.timeout_s
    title = (f"Hardness landscape: {landscape_family(campaign)}, median time per instance vs the "
             f"fraction of empty cells")
    if table.empty:
        return FigureModel("landscape", title, (), limit, ("no landscape rows in this campaign",))
    found = {p["n"]: p for p in peaks(campaign, inst)}
    raced = set(table["entrant"])
    entrants = [e for e in campaign.entrants if e in raced]
    y_axis = Axis(Y_LABEL, "log", (lowest(table["median_s"].to_numpy(float), limit), limit))
    panels = []
    for n in sorted(int(n) for n in table["n"].unique()):
        at_n = table[table["n"] == n]
        series = []
        for entrant in entrants:
            rows = at_n[at_n["entrant"] == entrant].sort_values("holes", kind="mergesort").reset_index(drop=True)
            if rows.empty:
                continue
            median = rows["median_s"].to_numpy(float)
            series.append(Series(entrant, entrant, rows["holes"].to_numpy(float),
                                 np.where(np.isinf(median), np.nan, median), censored=np.isinf(median), rows=rows))
        peak = found.get(n)
        spans = ((float(peak["low"]) - SPAN_PAD, float(peak["high"]) + SPAN_PAD),) if peak else ()
        panels.append(Panel(str(n), f"n = {n} ({n * n}\u00d7{n * n})", Axis(X_LABEL), y_axis, tuple(series),
                            spans=spans))
    notes = (PEAK,) if any(p.spans for p in panels) else ()
    return FigureModel("landscape", title, tuple(panels), limit, notes, tuple(entrants))
