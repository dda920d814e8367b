"""The hardness-landscape figure of the HTML report (plotly): median time vs the share of
empty cells, one panel per n (a ``race landscape`` campaign), styled as
:mod:`experiments.report.html_figures`' figures."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from experiments.analysis import censored_stats
from experiments.analysis.figure_style import EntrantStyle, campaign_styles
from experiments.report.html_figures import (LANDSCAPE_HEIGHT, _censored_axis, _layout, _lowest,
                                             _strip_rows, markup, seconds, trace_style)


def _work(value: float) -> str:
    if math.isnan(value):
        return "n/a"
    return "&gt; limit" if math.isinf(value) else f"{value:,.0f}"


def landscape_figure(landscape: censored_stats.Campaign, styles: dict[str, EntrantStyle] | None = None) -> go.Figure:
    """Median time vs share of empty cells, one panel per n, one line per entrant; censored
    medians hollow in their entrant's row above the limit, the hardness peak's interval
    shaded (a ``race landscape`` campaign)."""
    from experiments.analysis.landscape import instance_table, landscape_family, landscape_table, peaks
    per_instance = instance_table(landscape)
    table = landscape_table(landscape, per_instance)
    found = {p["n"]: p for p in peaks(landscape, per_instance)}
    limit = landscape.timeout_s
    styles = styles or campaign_styles(landscape)
    ns = sorted(table["n"].unique())
    entrants = [e for e in landscape.entrants if e in set(table["entrant"])]
    censored_entrants = [e for e in entrants
                         if np.isinf(table.loc[table["entrant"] == e, "median_s"].to_numpy(float)).any()]
    low = _lowest(table["median_s"].to_numpy(float), limit)
    rows_above = _strip_rows(censored_entrants, limit, low, LANDSCAPE_HEIGHT)
    fig = make_subplots(rows=1, cols=len(ns), shared_yaxes=True,
                        subplot_titles=[f"n = {n} ({n * n}\u00d7{n * n})" for n in ns])
    for col, n in enumerate(ns, start=1):
        for entrant in entrants:
            rows = table[(table["n"] == n) & (table["entrant"] == entrant)].sort_values("holes")
            if rows.empty:
                continue
            look = trace_style(styles[entrant])
            med = rows["median_s"].to_numpy(float)
            censored = ~np.isfinite(med)
            fig.add_trace(go.Scatter(
                x=rows["holes"], y=np.where(censored, rows_above.get(entrant, limit), med), mode="lines+markers",
                name=markup(entrant), legendgroup=entrant, showlegend=col == 1, line=look["line"],
                marker={**look["marker"], "size": 8,
                        "symbol": [f"{look['marker']['symbol']}-open" if c else look["marker"]["symbol"]
                                   for c in censored]},
                text=[f"<b>{markup(entrant)}</b><br>n = {n}, {100 * r.holes:.0f}% empty<br>solved "
                      f"{100 * r.solved_frac:.0f}%<br>median {seconds(r.median_s, limit)}<br>median "
                      f"{r.counter or 'work'} {_work(r.median_work)}"
                      for r in rows.itertuples()], hovertemplate="%{text}<extra></extra>"), row=1, col=col)
        fig.add_hline(y=limit, line={"dash": "dash", "color": "#555", "width": 1}, row=1, col=col)
        if n in found:
            fig.add_vrect(x0=found[n]["low"] - 0.01, x1=found[n]["high"] + 0.01, fillcolor="#d9d9d9",
                          line={"width": 0}, layer="below", row=1, col=col)
        fig.update_xaxes(title_text="share of empty cells", tickformat=".0%", row=1, col=col)
    _censored_axis(fig, rows_above, limit, low, len(ns))
    fig.update_yaxes(title_text="median wall time (s)", row=1, col=1)
    return _layout(fig, f"Hardness landscape: {markup(landscape_family(landscape))} (campaign "
                        f"{markup(landscape.name)})", LANDSCAPE_HEIGHT,
                   subtitle="hollow in the strip above the dashed line: median &gt; limit; grey band: the "
                            "hardness peak (90% bootstrap interval)")
