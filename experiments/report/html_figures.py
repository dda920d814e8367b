"""The interactive figures of the HTML report (plotly), one per figure of the static report.

Each function returns a plotly Figure from a campaign; entrants keep the colours and
markers of :mod:`experiments.analysis.plots`, the virtual best solver takes the next
style. Censoring is shown, never hidden: a censored median or instance sits on the
time-limit line as a hollow marker, and its hover text says "> limit". Hovering an
instance's point shows the instance, its status, time and work counters.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from experiments.analysis import figure_style, plots
from experiments.analysis import statistics as analysis
from experiments.analysis import virtual_best

#: plotly marker symbols in the order of plots.MARKERS (o s ^ D v P X *)
SYMBOLS = ["circle", "square", "triangle-up", "diamond", "triangle-down", "cross", "x", "star"]
DASHES = ["solid", "dash", "dashdot", "dot", "longdashdot", "dot", "longdash", "dashdot"]
#: counters shown in hover texts and the work figure
HOVER_COUNTERS = ("nodes", "updates", "conflicts", "decisions", "propagations")


#: plotly's names of the matplotlib markers of :data:`experiments.analysis.figure_style.METHOD_STYLES`
_SYMBOL_OF = {"h": "hexagon"}


def style(index: int, entrant: str = "") -> dict:
    """Colour, marker symbol and dash of the entrant at ``index`` (as in the static figures,
    a method's own look included)."""
    look = {"color": plots.COLOURS[index % len(plots.COLOURS)], "symbol": SYMBOLS[index % len(SYMBOLS)],
            "dash": DASHES[index % len(DASHES)]}
    own = figure_style.METHOD_STYLES.get(figure_style.method_of(entrant), {}) if entrant else {}
    if own:
        look.update(color=own["color"], symbol=_SYMBOL_OF.get(own["marker"], look["symbol"]))
    return look


def _layout(fig: go.Figure, title: str, height: int = 420) -> go.Figure:
    fig.update_layout(title=title, height=height, template="plotly_white", hovermode="closest",
                      legend={"orientation": "h", "y": -0.2}, margin={"t": 60, "l": 60, "r": 20, "b": 40})
    return fig


def seconds(value: float, limit: float) -> str:
    return analysis.format_seconds(value, limit)


def instance_hover(row: pd.Series | dict, limit: float) -> str:
    """instance, family, n, status, time and the counters it reports (one hover box)."""
    lines = [f"<b>{row['entrant']}</b>", f"instance {row['instance']}", f"{row['family']}, n = {row['n']}",
             f"status {row['status']}", f"time {seconds(row['time'], limit)}"]
    for counter in HOVER_COUNTERS:
        value = row.get(counter)
        if value is not None and not (isinstance(value, float) and math.isnan(value)):
            lines.append(f"{counter} {int(value):,}")
    return "<br>".join(lines)


def _jitter(count: int, index: int, entrants: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (index - (entrants - 1) / 2) * 0.09 + rng.uniform(-0.03, 0.03, count)


def runtime_figure(campaign: analysis.Campaign, table: pd.DataFrame, instances: pd.DataFrame) -> go.Figure:
    """Time vs n per family: every instance as a faint point (hollow on the limit line when
    censored), the median as a line with its IQR band, censored medians hollow at the
    limit, the virtual best solver as its own line."""
    families = campaign.families
    limit = campaign.timeout_s
    table, entrants = plots.with_virtual_best(campaign, table)
    fig = make_subplots(rows=1, cols=len(families), shared_yaxes=True,
                        subplot_titles=[plots.family_title(campaign, k) for k in families])
    for col, family in enumerate(families, start=1):
        for i, entrant in enumerate(entrants):
            st = style(i, entrant)
            rows = table[(table["family"] == family) & (table["entrant"] == entrant)].sort_values("n")
            if rows.empty:
                continue
            x = rows["n"].to_numpy(float) + (i - (len(entrants) - 1) / 2) * 0.09
            med, q25, q75 = (rows[c].to_numpy(float) for c in ("median_s", "q25_s", "q75_s"))
            band = np.isfinite(q25)
            if band.any():
                fig.add_trace(go.Scatter(x=x[band], y=np.minimum(q75[band], limit), mode="lines",
                                         line={"width": 0}, hoverinfo="skip", showlegend=False,
                                         legendgroup=entrant), row=1, col=col)
                fig.add_trace(go.Scatter(x=x[band], y=q25[band], mode="lines", line={"width": 0},
                                         fill="tonexty", fillcolor=_rgba(st["color"], 0.15),
                                         hoverinfo="skip", showlegend=False, legendgroup=entrant),
                              row=1, col=col)
            pts = instances[(instances["entrant"] == entrant) & (instances["family"] == family)]
            if len(pts):
                t = pts["time"].to_numpy(float)
                censored = ~np.isfinite(t)
                fig.add_trace(go.Scatter(
                    x=pts["n"].to_numpy(float) + _jitter(len(pts), i, len(entrants), col),
                    y=np.where(censored, limit, t), mode="markers", legendgroup=entrant, showlegend=False,
                    name=f"{entrant} (instances)",
                    marker={"color": st["color"], "size": 5, "opacity": 0.45,
                            "symbol": [f"{st['symbol']}-open" if c else st["symbol"] for c in censored]},
                    text=[instance_hover(r, limit) for r in pts.to_dict("records")],
                    customdata=pts["instance"].tolist(), hovertemplate="%{text}<extra></extra>"),
                    row=1, col=col)
            hover = [f"<b>{entrant}</b><br>{family}, n = {int(r.n)}<br>solved {int(r.solved)}/{int(r.total)}"
                     f"<br>median {seconds(r.median_s, limit)}"
                     f"<br>95% CI {analysis.format_interval(r.median_lo, r.median_hi, limit)}"
                     f"<br>IQR {seconds(r.q25_s, limit)} .. {seconds(r.q75_s, limit)}"
                     for r in rows.itertuples()]
            finite = np.isfinite(med)
            fig.add_trace(go.Scatter(
                x=x, y=np.where(finite, med, np.nan), mode="lines+markers", name=entrant, legendgroup=entrant,
                showlegend=col == 1, line={"color": st["color"], "dash": st["dash"], "width": 3 if
                                           entrant == virtual_best.NAME else 2},
                marker={"symbol": st["symbol"], "size": 8, "color": st["color"]},
                text=hover, hovertemplate="%{text}<extra></extra>"), row=1, col=col)
            if (~finite).any():
                fig.add_trace(go.Scatter(
                    x=x[~finite], y=np.full((~finite).sum(), limit), mode="markers", legendgroup=entrant,
                    showlegend=False, name=f"{entrant} (median > limit)",
                    marker={"symbol": f"{st['symbol']}-open", "size": 11, "color": st["color"],
                            "line": {"width": 2}},
                    text=[h for h, f in zip(hover, finite) if not f], hovertemplate="%{text}<extra></extra>"),
                    row=1, col=col)
        fig.add_hline(y=limit, line={"dash": "dash", "color": "#555", "width": 1}, row=1, col=col)
        fig.update_xaxes(title_text="box size n", dtick=1, row=1, col=col)
    fig.update_yaxes(type="log")
    fig.update_yaxes(title_text="wall time per solve (s)", row=1, col=1)
    return _layout(fig, f"Time per instance vs n (median line, IQR band, points: instances; hollow on "
                        f"the dashed line: > limit {seconds(limit, None)})", 480)


def _rgba(hex_colour: str, alpha: float) -> str:
    h = hex_colour.lstrip("#")
    return f"rgba({int(h[0:2], 16)},{int(h[2:4], 16)},{int(h[4:6], 16)},{alpha})"


def solved_figure(campaign: analysis.Campaign, table: pd.DataFrame) -> go.Figure:
    """Share of instances solved within the limit vs n, one panel per family, the VBS too."""
    families = campaign.families
    table, entrants = plots.with_virtual_best(campaign, table)
    fig = make_subplots(rows=1, cols=len(families), shared_yaxes=True, subplot_titles=families)
    for col, family in enumerate(families, start=1):
        for i, entrant in enumerate(entrants):
            rows = table[(table["family"] == family) & (table["entrant"] == entrant)].sort_values("n")
            if rows.empty:
                continue
            st = style(i, entrant)
            fig.add_trace(go.Scatter(
                x=rows["n"], y=100 * rows["solved_frac"], mode="lines+markers", name=entrant,
                legendgroup=entrant, showlegend=col == 1,
                line={"color": st["color"], "dash": st["dash"]}, marker={"symbol": st["symbol"], "size": 8},
                text=[f"<b>{entrant}</b><br>{family}, n = {int(r.n)}<br>solved {int(r.solved)}/{int(r.total)}"
                      for r in rows.itertuples()], hovertemplate="%{text}<extra></extra>"), row=1, col=col)
        fig.update_xaxes(title_text="box size n", dtick=1, row=1, col=col)
    fig.update_yaxes(range=[-5, 105])
    fig.update_yaxes(title_text=f"solved within {seconds(campaign.timeout_s, None)} (%)", row=1, col=1)
    return _layout(fig, "Instances solved within the limit")


def cactus_figure(campaign: analysis.Campaign, instances: pd.DataFrame) -> go.Figure:
    """The k-th fastest answered instance of each entrant (all families and n), the VBS too."""
    limit = campaign.timeout_s
    entrants = list(campaign.entrants)
    frame = instances
    if virtual_best.applies(campaign):
        best = virtual_best.best_times(instances, entrants)
        best = best.assign(entrant=virtual_best.NAME, status=np.where(best["winner"] != "", "solved", "censored"))
        frame = pd.concat([instances, best], ignore_index=True)
        entrants.append(virtual_best.NAME)
    fig = go.Figure()
    for i, entrant in enumerate(entrants):
        mine = frame[(frame["entrant"] == entrant) & np.isfinite(frame["time"].to_numpy(float))]
        mine = mine.sort_values("time", kind="mergesort")
        st = style(i, entrant)
        text = [instance_hover(r, limit) + (f"<br>fastest: {r['winner']}" if r.get("winner") else "")
                for r in mine.to_dict("records")]
        fig.add_trace(go.Scatter(x=np.arange(1, len(mine) + 1), y=mine["time"], mode="lines+markers",
                                 name=entrant, line={"color": st["color"], "dash": st["dash"], "shape": "hv"},
                                 marker={"symbol": st["symbol"], "size": 5}, text=text,
                                 customdata=mine["instance"].tolist(), hovertemplate="%{text}<extra></extra>"))
    fig.add_hline(y=limit, line={"dash": "dash", "color": "#555", "width": 1})
    total = int(instances.groupby("entrant").size().max()) if len(instances) else 0
    fig.update_xaxes(title_text=f"instances solved (of {total}, all families and n)")
    fig.update_yaxes(type="log", title_text="wall time per solve (s)")
    return _layout(fig, "Cactus plot: the k-th fastest solved instance")


def work_figure(campaign: analysis.Campaign, table: pd.DataFrame) -> go.Figure:
    """Median work counters over solved instances vs n: a row per family, a column per counter."""
    families = campaign.families
    counters = [c for c, _ in plots.WORK]
    fig = make_subplots(rows=len(families), cols=len(counters),
                        subplot_titles=[f"{k}: {t}" for k in families for _, t in plots.WORK])
    for r, family in enumerate(families, start=1):
        for c, counter in enumerate(counters, start=1):
            for i, entrant in enumerate(campaign.entrants):
                rows = table[(table["family"] == family) & (table["entrant"] == entrant)].sort_values("n")
                y = rows[counter].to_numpy(float)
                if not np.isfinite(y).any():
                    continue
                st = style(i, entrant)
                fig.add_trace(go.Scatter(
                    x=rows["n"], y=y, mode="lines+markers", name=entrant, legendgroup=entrant,
                    showlegend=(r, c) == (1, 1) or entrant not in _shown(fig),
                    line={"color": st["color"], "dash": st["dash"]}, marker={"symbol": st["symbol"], "size": 7},
                    text=[f"<b>{entrant}</b><br>{family}, n = {int(row.n)}<br>median {counter} "
                          f"{'n/a' if math.isnan(v) else f'{v:,.0f}'}" for row, v in zip(rows.itertuples(), y)],
                    hovertemplate="%{text}<extra></extra>"), row=r, col=c)
            fig.update_yaxes(type="log", row=r, col=c)
            fig.update_xaxes(dtick=1, title_text="box size n" if r == len(families) else None, row=r, col=c)
    return _layout(fig, "Work per solve (median over solved instances)", 260 + 220 * len(families))


def _shown(fig: go.Figure) -> set[str]:
    return {t.name for t in fig.data if t.showlegend}


def phases_figure(campaign: analysis.Campaign, table: pd.DataFrame) -> go.Figure:
    """The SAT entrants' phase split: stacked shares of the median solve per n (first family)."""
    entrants = plots.sat_entrants(campaign)
    first = table[table["family"] == campaign.families[0]] if "family" in table.columns else table
    if not entrants:
        fig = go.Figure()
        fig.add_annotation(text="no SAT entrant in this campaign", showarrow=False)
        return _layout(fig, "SAT phase split", 200)
    phases = [p for p in analysis.PHASES if first.loc[first["entrant"].isin(entrants), p].notna().any()]
    fig = make_subplots(rows=1, cols=len(entrants), shared_yaxes=True, subplot_titles=entrants)
    for col, entrant in enumerate(entrants, start=1):
        rows = first[first["entrant"] == entrant].sort_values("n")
        rows = rows[rows[phases].notna().any(axis=1)]
        values = rows[phases].fillna(0.0).to_numpy(float)
        totals = values.sum(axis=1)
        shares = 100 * values / np.where(totals > 0, totals, 1.0)[:, None]
        for j, phase in enumerate(phases):
            grey, _ = plots.PHASE_STYLE[phase]
            level = int(255 * float(grey))
            fig.add_trace(go.Bar(
                x=[str(n) for n in rows["n"]], y=shares[:, j], name=plots.PHASE_NAMES[phase],
                legendgroup=phase, showlegend=col == 1, marker={"color": f"rgb({level},{level},{level})",
                                                                  "line": {"color": "black", "width": 0.5}},
                text=[f"{plots.PHASE_NAMES[phase]}: {seconds(v, None)} of {seconds(t, None)} (n = {n})"
                      for v, t, n in zip(values[:, j], totals, rows["n"])],
                textposition="none", hovertemplate="%{text}<extra></extra>"), row=1, col=col)
        fig.update_xaxes(title_text="box size n", type="category", row=1, col=col)
    fig.update_layout(barmode="stack")
    fig.update_yaxes(range=[0, 100])
    fig.update_yaxes(title_text="share of median time (%)", row=1, col=1)
    return _layout(fig, f"SAT phase split ({campaign.families[0]} puzzles)")


def landscape_figure(landscape: analysis.Campaign) -> go.Figure:
    """Median time vs share of empty cells, one panel per n, one line per entrant; censored
    medians hollow at the limit (a ``race landscape`` campaign)."""
    from experiments.analysis.landscape import landscape_table
    table = landscape_table(landscape)
    limit = landscape.timeout_s
    ns = sorted(table["n"].unique())
    fig = make_subplots(rows=1, cols=len(ns), shared_yaxes=True, subplot_titles=[f"n = {n}" for n in ns])
    for col, n in enumerate(ns, start=1):
        for i, entrant in enumerate(landscape.entrants):
            rows = table[(table["n"] == n) & (table["entrant"] == entrant)].sort_values("holes")
            if rows.empty:
                continue
            st = style(i, entrant)
            med = rows["median_s"].to_numpy(float)
            censored = ~np.isfinite(med)
            fig.add_trace(go.Scatter(
                x=rows["holes"], y=np.where(censored, limit, med), mode="lines+markers", name=entrant,
                legendgroup=entrant, showlegend=col == 1, line={"color": st["color"], "dash": st["dash"]},
                marker={"symbol": [f"{st['symbol']}-open" if c else st["symbol"] for c in censored], "size": 8},
                text=[f"<b>{entrant}</b><br>n = {n}, {100 * r.holes:.0f}% empty<br>solved "
                      f"{100 * r.solved_frac:.0f}%<br>median {seconds(r.median_s, limit)}<br>median "
                      f"{r.counter or 'work'} {'> limit' if math.isinf(r.median_work) else r.median_work}"
                      for r in rows.itertuples()], hovertemplate="%{text}<extra></extra>"), row=1, col=col)
        fig.add_hline(y=limit, line={"dash": "dash", "color": "#555", "width": 1}, row=1, col=col)
        fig.update_xaxes(title_text="share of empty cells", tickformat=".0%", row=1, col=col)
    fig.update_yaxes(type="log")
    fig.update_yaxes(title_text="median wall time (s)", row=1, col=1)
    return _layout(fig, f"Hardness landscape (campaign {landscape.name}; hollow: median > limit)")
