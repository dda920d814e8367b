"""The hardness-landscape figure of the HTML report (plotly): a thin renderer of the model of
:func:`experiments.analysis.landscape.landscape_model` (computed there, once, for this
renderer and the static one), styled as :mod:`experiments.report.html_figures`' figures."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from experiments.analysis import censored_stats
from experiments.analysis.figure_models import FigureModel
from experiments.analysis.figure_style import EntrantStyle, campaign_styles
from experiments.report.html_figures import (
    LANDSCAPE_HEIGHT,
    LIMIT_LINE,
    _censored_axis,
    _layout,
    _strip_rows,
    markup,
    seconds,
    trace_style,
)


def _work(value: float) -> str:
    if math.isnan(value):
        return "n/a"
    return "&gt; limit" if math.isinf(value) else f"{value:,.0f}"


def landscape_figure(landscape: censored_stats.Campaign, styles: dict[str, EntrantStyle] | None = None) -> go.Figure:
    """Median time vs share of empty cells, one panel per n, one line per entrant; censored
    medians hollow in their entrant's row above the limit, the hardness peak's interval
    shaded (a ``race landscape`` campaign)."""
    from experiments.analysis.landscape import landscape_model
    return draw_landscape(landscape_model(landscape), styles or campaign_styles(landscape), landscape.name)


def draw_landscape(model: FigureModel, styles: dict[str, EntrantStyle], campaign: str) -> go.Figure:
    """The landscape model: a panel per n, a line per entrant (its censored medians hollow in
    its row of the strip above the limit), each panel's spans shaded; ``campaign`` named in
    the subtitle."""
    limit = model.limit if model.limit is not None else math.inf
    subtitle = (f"campaign {markup(campaign)}; hollow in the strip above the dashed line: median &gt; limit"
                + "".join(f"; grey band: {markup(note)}" for note in model.notes))
    if not model.panels:
        return _layout(go.Figure(), markup(model.title), 200, subtitle=subtitle)
    low = model.panels[0].y.limits[0] if model.panels[0].y.limits else limit / 1e3
    rows_above = _strip_rows(model.censored_keys(), limit, low, LANDSCAPE_HEIGHT)
    fig = make_subplots(rows=1, cols=len(model.panels), shared_yaxes=True,
                        subplot_titles=[markup(p.title) for p in model.panels])
    for col, panel in enumerate(model.panels, start=1):
        for series in panel.series:
            look = trace_style(styles[series.key])
            censored = series.marked(series.censored)
            symbol = look["marker"]["symbol"]
            rows = series.rows if series.rows is not None else pd.DataFrame()
            fig.add_trace(go.Scatter(
                x=series.x, y=np.where(censored, rows_above.get(series.key, limit), series.y), mode="lines+markers",
                name=markup(series.key), legendgroup=series.key, showlegend=col == 1, line=look["line"],
                marker={**look["marker"], "size": 8, "symbol": [f"{symbol}-open" if c else symbol for c in censored]},
                text=[f"<b>{markup(series.key)}</b><br>n = {panel.key}, {100 * r.holes:.0f}% empty<br>solved "
                      f"{100 * r.solved_frac:.0f}%<br>median {seconds(r.median_s, limit)}<br>median "
                      f"{markup(r.counter or 'work')} {_work(r.median_work)}"
                      for r in rows.itertuples()],
                hovertemplate="%{text}<extra></extra>"), row=1, col=col)
        fig.add_hline(y=limit, line=LIMIT_LINE, row=1, col=col)
        for x0, x1 in panel.spans:
            fig.add_vrect(x0=x0, x1=x1, fillcolor="#d9d9d9", line={"width": 0}, layer="below", row=1, col=col)
        fig.update_xaxes(title_text=markup(panel.x.label), tickformat=".0%", row=1, col=col)
    _censored_axis(fig, rows_above, limit, low, len(model.panels))
    fig.update_yaxes(title_text=markup(model.panels[0].y.label), row=1, col=1)
    return _layout(fig, markup(model.title), LANDSCAPE_HEIGHT, subtitle=subtitle)
