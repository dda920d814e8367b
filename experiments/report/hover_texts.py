"""The hover texts of the HTML report's figures: plotly reads a trace's name, hover text and
titles as markup (``<b>``, ``<span style>``), so every text that comes from the data (an
entrant, a family, an instance) goes through :func:`markup` first and shows as written.
:func:`instance_hovers` writes the hover box of every instance of a figure column by column."""

from __future__ import annotations

import html
import math

import numpy as np
import pandas as pd

from experiments.analysis import statistics as analysis

#: counters shown in hover texts and the work figure
HOVER_COUNTERS = ("nodes", "updates", "conflicts", "decisions", "propagations")


def markup(text: object) -> str:
    """``text`` with ``&``, ``<`` and ``>`` escaped: plotly shows it as written, never as markup."""
    return html.escape(str(text), quote=False)


def instance_hover(row: pd.Series | dict, limit: float) -> str:
    """instance, family, n, status, time and the counters it reports (one hover box)."""
    lines = [f"<b>{markup(row['entrant'])}</b>", f"instance {markup(row['instance'])}",
             f"{markup(row['family'])}, n = {row['n']}", f"status {markup(row['status'])}",
             f"time {analysis.format_seconds(row['time'], limit)}"]
    for counter in HOVER_COUNTERS:
        value = row.get(counter)
        if value is not None and not (isinstance(value, float) and math.isnan(value)):
            lines.append(f"{counter} {int(value):,}")
    return "<br>".join(lines)


def escaped(values: pd.Series) -> np.ndarray:
    """:func:`markup` of each value, computed once per distinct value."""
    codes, uniques = pd.factorize(values.astype(object), use_na_sentinel=False)
    return np.array([markup(u) for u in uniques], dtype=object)[codes] if len(uniques) else \
        np.array([], dtype=object)


def instance_hovers(rows: pd.DataFrame, limit: float) -> np.ndarray:
    """:func:`instance_hover` of every row of ``rows``, column by column (no loop per row
    but the formatting of each number)."""
    if not len(rows):
        return np.array([], dtype=object)
    times = [analysis.format_seconds(t, limit) for t in rows["time"].to_numpy(float).tolist()]
    text = ("<b>" + escaped(rows["entrant"]) + "</b><br>instance " + escaped(rows["instance"]) + "<br>"
            + escaped(rows["family"]) + ", n = " + rows["n"].astype(str).to_numpy(object)
            + "<br>status " + escaped(rows["status"]) + "<br>time " + np.array(times, dtype=object))
    for counter in HOVER_COUNTERS:
        if counter not in rows.columns:
            continue
        values = pd.to_numeric(rows[counter], errors="coerce").to_numpy(float)
        known = ~np.isnan(values)
        if known.any():
            text[known] = text[known] + np.array([f"<br>{counter} {int(v):,}" for v in values[known].tolist()],
                                                 dtype=object)
    return text
