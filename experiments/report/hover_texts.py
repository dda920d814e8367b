"""The hover texts of the HTML report's figures: plotly reads a trace's name, hover text and
titles as markup (``<b>``, ``<span style>``), so every text that comes from the data (an
entrant, a family, an instance) goes through :func:`markup` first and shows as written.
:func:`instance_hovers` writes the hover box of every instance of a figure column by column;
the others the hover box of each point of a figure model's series
(:class:`experiments.analysis.figure_models.Series`), from the rows it was computed from."""

from __future__ import annotations

import html
import math

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from experiments.analysis import censored_stats

if TYPE_CHECKING:
    from experiments.analysis.figure_models import Series

#: counters shown in hover texts and the work figure
HOVER_COUNTERS = ("nodes", "updates", "conflicts", "decisions", "propagations")


def markup(text: object) -> str:
    """``text`` with ``&``, ``<`` and ``>`` escaped: plotly shows it as written, never as markup."""
    return html.escape(str(text), quote=False)


def instance_hover(row: pd.Series | dict[str, Any], limit: float) -> str:
    """instance, family, n, status, time and the counters it reports (one hover box)."""
    lines = [f"<b>{markup(row['entrant'])}</b>", f"instance {markup(row['instance'])}",
             f"{markup(row['family'])}, n = {row['n']}", f"status {markup(row['status'])}",
             f"time {censored_stats.format_seconds(row['time'], limit)}"]
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
    times = [censored_stats.format_seconds(t, limit) for t in rows["time"].to_numpy(float).tolist()]
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


def _rows(series: Series) -> pd.DataFrame:
    return series.rows if series.rows is not None else pd.DataFrame()


def median_hovers(series: Series, family: str, limit: float) -> list[str]:
    """Each point of a runtime series: the entrant, the cell, solved, the median, its 95%
    interval and the interquartile range."""
    name = markup(series.key)
    return [f"<b>{name}</b><br>{markup(family)}, n = {int(r.n)}<br>solved {int(r.solved)}/{int(r.total)}"
            f"<br>median {censored_stats.format_seconds(r.median_s, limit)}"
            f"<br>95% CI {censored_stats.format_interval(r.median_lo, r.median_hi, limit)}"
            f"<br>IQR {censored_stats.format_seconds(r.q25_s, limit)} .. {censored_stats.format_seconds(r.q75_s, limit)}"
            for r in _rows(series).itertuples()]


def solved_hovers(series: Series, family: str) -> list[str]:
    """Each point of a solved series: the entrant, the cell and how many were solved."""
    return [f"<b>{markup(series.key)}</b><br>{markup(family)}, n = {int(r.n)}<br>solved "
            f"{int(r.solved)}/{int(r.total)}" for r in _rows(series).itertuples()]


def work_hovers(series: Series, family: str, counter: str) -> list[str]:
    """Each point of a work series: the entrant, the cell, the median counter and over how
    many instances it was taken."""
    return [f"<b>{markup(series.key)}</b><br>{markup(family)}, n = {int(r.n)}<br>median {counter} "
            f"{'n/a' if math.isnan(v) else f'{v:,.0f}'} over {int(r.solved)} of {int(r.total)} instances"
            for r, v in zip(_rows(series).itertuples(), series.y.tolist())]


def phase_hovers(series: Series, entrant: str) -> list[str]:
    """Each bar of a phase series: the entrant, the phase, its median and the solve's."""
    return [f"{markup(entrant)}, {markup(series.label)}: {censored_stats.format_seconds(r.seconds)} of "
            f"{censored_stats.format_seconds(r.total)} (n = {int(r.n)})" for r in _rows(series).itertuples()]


def cactus_hovers(rows: pd.DataFrame, limit: float) -> np.ndarray:
    """:func:`instance_hovers` of a cactus series' rows, and which entrant was fastest where
    the rows name one (the virtual best's)."""
    text = instance_hovers(rows, limit)
    if "winner" in rows.columns and len(rows):
        winner = rows["winner"].fillna("").astype(str)
        named = (winner != "").to_numpy()
        text[named] = text[named] + "<br>fastest: " + escaped(winner[named])
    return text
