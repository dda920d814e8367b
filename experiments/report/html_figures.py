"""The interactive figures of the HTML report (plotly), one per figure of the static report:
a thin renderer that draws the models of :mod:`experiments.analysis.figure_models` (what each
figure shows is computed there, once, for this renderer and the static one).

Each function returns a plotly Figure from a campaign; every entrant keeps the colour,
marker and dash :mod:`experiments.analysis.figure_style` gives it in every figure, static
or interactive (``styles``: the page's styles, the landscape's entrants included).
Censoring is shown, never hidden: a censored median is a hollow marker drawn at the limit
(as in the static figure), a censored instance a hollow point in its entrant's row of the
shaded strip above the time-limit line, and the hover text of each says "> limit". Hovering
an instance's point shows the instance, its status, time and work counters.

plotly reads a trace's name, hover text and titles as markup (``<b>``, ``<span style>``):
every text that comes from the data (an entrant, a family, an instance, a campaign's
name) goes through :func:`markup` first, so it shows as written.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from experiments.analysis import phase_plots
from experiments.analysis import censored_stats
from experiments.analysis.figure_models import (FigureModel, Panel, Series, cactus_model, lowest, runtime_model,
                                                solved_model, work_model)
from experiments.analysis.figure_style import EntrantStyle, campaign_styles, censored_rows, strip_top
from experiments.analysis.scatter_phase_models import phases_model
from experiments.analysis.virtual_best import NAME as VIRTUAL_BEST
from experiments.report.hover_texts import (HOVER_COUNTERS, cactus_hovers, escaped, instance_hover,  # noqa: F401
                                            instance_hovers, markup, median_hovers, phase_hovers, solved_hovers,
                                            work_hovers)

#: where a work median of 0 sits on a log axis (labelled "0")
ZERO_AT = 0.3
#: plotly's check of a trace's properties, off for the traces of one point per instance: it
#: looks at each element of their arrays (seconds at 100,000 points), which this module builds
UNCHECKED = False
#: pixels between two rows of the censored strip (its markers are 10 pixels, with a line)
ROW_PIXELS = 14.0
RUNTIME_HEIGHT = 500
LANDSCAPE_HEIGHT = 460
#: the time-limit line
LIMIT_LINE = {"dash": "dash", "color": "#555", "width": 1}


def trace_style(style: EntrantStyle, width: float = 2.0) -> dict[str, dict[str, Any]]:
    """The ``line`` and ``marker`` of a plotly trace in ``style``."""
    return {"line": {"color": style.colour, "dash": style.plotly_dash(width), "width": width},
            "marker": {"symbol": style.symbol, "color": style.colour}}


def _margins(height: int, legend_rows: int = 1) -> tuple[int, int, int]:
    """(top, bottom, plot-area height) in pixels of a figure ``height`` pixels tall."""
    top, bottom = 90, 70 + 24 * legend_rows
    return top, bottom, max(height - top - bottom, 100)


def _strip_rows(entrants: list[str], limit: float, low: float, height: int) -> dict[str, float]:
    """:func:`censored_rows` for a plotly figure ``height`` pixels tall (rows ROW_PIXELS apart)."""
    from experiments.analysis.figure_style import ROW_POINTS
    return censored_rows(entrants, limit, low, _margins(height)[2] * ROW_POINTS / ROW_PIXELS)


def _layout(fig: go.Figure, title: str, height: int = 420, legend_rows: int = 1, subtitle: str = "") -> go.Figure:
    """Title (and a smaller ``subtitle`` under it), size and a horizontal legend under the
    x-axis titles (never over a panel)."""
    top, bottom, plot_height = _margins(height, legend_rows)
    heading: dict[str, Any] = {"text": title, "y": 1.0, "yanchor": "top", "pad": {"t": 12}}
    if subtitle:
        heading["subtitle"] = {"text": subtitle}
    fig.update_layout(title=heading, height=height,
                      template="plotly_white", hovermode="closest",
                      legend={"orientation": "h", "yanchor": "top", "y": -62 / plot_height, "x": 0},
                      margin={"t": top, "l": 70, "r": 20, "b": bottom})
    return fig


def seconds(value: float, limit: float | None) -> str:
    return censored_stats.format_seconds(value, limit)


def _text(value: str) -> str:
    """A model's text as plotly markup: escaped, its line breaks ``<br>``."""
    return markup(value).replace("\n", "<br>")


def _notes(model: FigureModel) -> str:
    """The model's notes, each on one line."""
    return "<br>".join(markup(" ".join(note.split())) for note in model.notes)


def _censored_axis(fig: go.Figure, rows_above: dict[str, float], limit: float, low: float,
                   columns: int) -> None:
    """Each panel's log y axis from ``low`` to the top of the censored strip, ticks only at
    measured times (decades up to the limit), the strip shaded and labelled "> limit"."""
    top = strip_top(rows_above, limit)
    decades = [10.0 ** k for k in range(math.floor(math.log10(low)), math.floor(math.log10(limit)) + 1)]
    fig.update_yaxes(type="log", range=[math.log10(low), math.log10(top)], tickmode="array",
                     tickvals=[d for d in decades if d >= low])
    if not rows_above:
        return
    for col in range(1, columns + 1):
        fig.add_hrect(y0=limit, y1=top, fillcolor="#efefef", line={"width": 0}, layer="below", row=1, col=col)
        fig.add_annotation(x=0.01, xref="x domain" if col == 1 else f"x{col} domain",
                           y=math.log10((limit * top) ** 0.5), yref="y" if col == 1 else f"y{col}",
                           text=f"> {markup(seconds(limit, None))}", showarrow=False, xanchor="left",
                           font={"size": 10, "color": "#666"})


def _lowest(values: np.ndarray, limit: float) -> float:
    return lowest(values, limit)


def _rgba(hex_colour: str, alpha: float) -> str:
    h = hex_colour.lstrip("#")
    return f"rgba({int(h[0:2], 16)},{int(h[2:4], 16)},{int(h[4:6], 16)},{alpha})"


def _panels(model: FigureModel) -> go.Figure:
    """A row of panels sharing y, one per panel of ``model``, titled as its panels."""
    return make_subplots(rows=1, cols=max(len(model.panels), 1), shared_yaxes=True,
                         subplot_titles=[markup(p.title) for p in model.panels])


def _points(panel: Panel, key: str) -> Series | None:
    return next((s for s in panel.points if s.key == key), None)


def draw_runtime(model: FigureModel, styles: dict[str, EntrantStyle]) -> go.Figure:
    """The runtime model: a median line per entrant with its IQR band, every instance a faint
    point; a censored median hollow at the limit, a censored instance hollow in its entrant's
    row of the strip above the limit."""
    limit = model.limit if model.limit is not None else math.inf
    fig = _panels(model)
    keys = list(dict.fromkeys(s.key for p in model.panels for s in p.points))
    censored_keys = [k for k in keys if any(s.key == k and s.marked(s.censored).any()
                                            for p in model.panels for s in p.points)]
    low = model.panels[0].y.limits[0] if model.panels and model.panels[0].y.limits else limit / 1e3
    rows_above = _strip_rows(censored_keys, limit, low, RUNTIME_HEIGHT)
    for col, panel in enumerate(model.panels, start=1):
        for series in panel.series:
            st, key = styles[series.key], series.key
            name = markup(key)
            x = series.drawn_x
            if series.band is not None:
                q25, q75 = series.band
                band = np.isfinite(q25)
                if band.any():
                    fig.add_trace(go.Scatter(x=x[band], y=q75[band], mode="lines", line={"width": 0},
                                             hoverinfo="skip", showlegend=False, legendgroup=key), row=1, col=col)
                    fig.add_trace(go.Scatter(x=x[band], y=q25[band], mode="lines", line={"width": 0},
                                             fill="tonexty", fillcolor=_rgba(st.colour, 0.15),
                                             hoverinfo="skip", showlegend=False, legendgroup=key), row=1, col=col)
            pts = _points(panel, key)
            if pts is not None and pts.rows is not None:
                censored = pts.marked(pts.censored)
                fig.add_trace(go.Scatter(
                    x=pts.drawn_x, y=np.where(censored, rows_above.get(key, limit), pts.y), mode="markers",
                    legendgroup=key, showlegend=False, name=f"{name} (instances)",
                    marker={"color": st.colour, "size": 5, "opacity": 0.45,
                            # one symbol unless some are censored: plotly checks each one of an array
                            "symbol": (np.where(censored, f"{st.symbol}-open", st.symbol)
                                       if censored.any() else st.symbol)},
                    text=instance_hovers(pts.rows, limit),
                    customdata=pts.rows["instance"].to_numpy(dtype=object), hovertemplate="%{text}<extra></extra>",
                    _validate=UNCHECKED), row=1, col=col)
            hover = median_hovers(series, panel.key, limit)
            look = trace_style(st, 3 if key == VIRTUAL_BEST else 2)
            fig.add_trace(go.Scatter(
                x=x, y=series.y, mode="lines+markers", name=name, legendgroup=key,
                showlegend=col == 1, line=look["line"], marker={**look["marker"], "size": 8},
                text=hover, hovertemplate="%{text}<extra></extra>"), row=1, col=col)
            censored = series.marked(series.censored)
            if censored.any():
                fig.add_trace(go.Scatter(
                    x=x[censored], y=np.full(int(censored.sum()), limit), mode="markers",
                    legendgroup=key, showlegend=False, name=f"{name} (median > limit)",
                    marker={"symbol": f"{st.symbol}-open", "size": 10, "color": st.colour, "line": {"width": 2}},
                    text=[h for h, c in zip(hover, censored) if c], hovertemplate="%{text}<extra></extra>"),
                    row=1, col=col)
        fig.add_hline(y=limit, line=LIMIT_LINE, row=1, col=col)
        fig.update_xaxes(title_text="box size n", dtick=1, row=1, col=col)
    _censored_axis(fig, rows_above, limit, low, len(model.panels))
    if model.panels:
        fig.update_yaxes(title_text=model.panels[0].y.label, row=1, col=1)
    return _layout(fig, f"{markup(model.title)}; points: instances; hollow: > limit {seconds(limit, None)}, a "
                        f"median drawn at the limit, an instance in the shaded strip, a row per entrant",
                   RUNTIME_HEIGHT, subtitle=_notes(model))


def runtime_figure(campaign: censored_stats.Campaign, table: pd.DataFrame, instances: pd.DataFrame,
                   styles: dict[str, EntrantStyle] | None = None) -> go.Figure:
    """Time vs n per family: every instance as a faint point, the median as a line with its
    IQR band, the virtual best solver as its own line; a censored median hollow at the limit,
    a censored instance hollow in its entrant's row of the strip above the limit."""
    return draw_runtime(runtime_model(campaign, table, instances), styles or campaign_styles(campaign))


def draw_solved(model: FigureModel, styles: dict[str, EntrantStyle]) -> go.Figure:
    """The solved model: the share solved per n, one panel per family."""
    fig = _panels(model)
    for col, panel in enumerate(model.panels, start=1):
        for series in panel.series:
            look = trace_style(styles[series.key])
            fig.add_trace(go.Scatter(
                x=series.drawn_x, y=series.y, mode="lines+markers", name=markup(series.key),
                legendgroup=series.key, showlegend=col == 1, line=look["line"], marker={**look["marker"], "size": 8},
                text=solved_hovers(series, panel.key), hovertemplate="%{text}<extra></extra>"), row=1, col=col)
        fig.update_xaxes(title_text="box size n", dtick=1, row=1, col=col)
        if panel.y.limits:
            fig.update_yaxes(range=list(panel.y.limits), row=1, col=col)
    if model.panels:
        fig.update_yaxes(title_text=model.panels[0].y.label, row=1, col=1)
    return _layout(fig, markup(model.title), subtitle=_notes(model))


def solved_figure(campaign: censored_stats.Campaign, table: pd.DataFrame,
                  styles: dict[str, EntrantStyle] | None = None,
                  instances: pd.DataFrame | None = None) -> go.Figure:
    """Share of instances solved within the limit vs n, one panel per family, the VBS too
    (``instances``: the campaign's :func:`censored_stats.instance_times`, when at hand)."""
    return draw_solved(solved_model(campaign, table, instances), styles or campaign_styles(campaign))


def draw_cactus(model: FigureModel, styles: dict[str, EntrantStyle]) -> go.Figure:
    """The cactus model: each entrant's sorted answered times as a step line."""
    limit = model.limit if model.limit is not None else math.inf
    fig = go.Figure()
    (panel,) = model.panels
    for series in panel.series:
        look = trace_style(styles[series.key])
        rows = series.rows if series.rows is not None else pd.DataFrame()
        fig.add_trace(go.Scatter(x=series.x, y=series.y, mode="lines+markers",
                                 name=markup(series.key), line={**look["line"], "shape": "hv"},
                                 marker={**look["marker"], "size": 5}, text=cactus_hovers(rows, limit),
                                 customdata=rows["instance"].to_numpy(dtype=object) if len(rows) else [],
                                 hovertemplate="%{text}<extra></extra>", _validate=UNCHECKED))
    fig.add_hline(y=limit, line=LIMIT_LINE)
    fig.update_xaxes(title_text=markup(panel.x.label))
    fig.update_yaxes(type="log", title_text=markup(panel.y.label))
    return _layout(fig, markup(model.title))


def cactus_figure(campaign: censored_stats.Campaign, instances: pd.DataFrame,
                  styles: dict[str, EntrantStyle] | None = None) -> go.Figure:
    """The k-th fastest answered instance of each entrant (all families and n), the VBS too."""
    return draw_cactus(cactus_model(campaign, instances), styles or campaign_styles(campaign))


def _count_text(value: int) -> str:
    """A decade as a short count: 1, 10, 100, 1k, 10k, 100k, 1M, ... 1G, ..."""
    for scale, suffix in ((10 ** 12, "T"), (10 ** 9, "G"), (10 ** 6, "M"), (10 ** 3, "k")):
        if value >= scale:
            return f"{value // scale:,}{suffix}"
    return str(value)


def draw_work(model: FigureModel, styles: dict[str, EntrantStyle]) -> go.Figure:
    """The work model: a row of counter panels per family, log y (a median of 0 at the "0"
    tick below 1), decades ticked alike in every panel, a note for an empty panel."""
    columns = len({p.key.rsplit("/", 1)[-1] for p in model.panels}) or 1
    rows_count = max(len(model.panels) // columns, 1)
    fig = make_subplots(rows=rows_count, cols=columns, vertical_spacing=0.3 / rows_count,
                        subplot_titles=[markup(p.title) for p in model.panels])
    shown: set[str] = set()
    for index, panel in enumerate(model.panels, start=1):
        axis = {"row": (index - 1) // columns + 1, "col": (index - 1) % columns + 1}
        fig.update_xaxes(dtick=1, title_text="box size n" if axis["row"] == rows_count else None, **axis)
        if panel.note:
            # paper coordinates: plotly draws no axes for a panel without traces
            suffix = "" if index == 1 else str(index)
            x0, x1 = fig.layout[f"xaxis{suffix}"].domain
            y0, y1 = fig.layout[f"yaxis{suffix}"].domain
            fig.add_annotation(text=_text(panel.note), x=(x0 + x1) / 2, y=(y0 + y1) / 2, xref="paper",
                               yref="paper", showarrow=False, font={"color": "#666"})
            continue
        values = np.concatenate([s.y[np.isfinite(s.y)] for s in panel.series])
        zero = panel.y.scale == "symlog"
        counter = panel.key.rsplit("/", 1)[-1]
        for series in panel.series:
            look = trace_style(styles[series.key])
            symbol = look["marker"]["symbol"]
            fig.add_trace(go.Scatter(
                x=series.drawn_x, y=np.where(series.y == 0, ZERO_AT, series.y) if zero else series.y,
                mode="lines+markers", name=markup(series.key), legendgroup=series.key,
                showlegend=series.key not in shown, line=look["line"],
                marker={**look["marker"], "size": 7,
                        "symbol": [f"{symbol}-open" if f else symbol for f in series.marked(series.hollow)]},
                text=work_hovers(series, panel.key.rsplit("/", 1)[0], counter),
                hovertemplate="%{text}<extra></extra>"), **axis)
            shown.add(series.key)
        # every panel the same ticks: decades only, written alike (10, 1k, 1M), "0" below 1
        low = 0 if zero else math.floor(math.log10(values[values > 0].min()))
        top = max(math.ceil(math.log10(values.max())), low + 1)
        ticks = [10 ** k for k in range(low, top + 1)]
        fig.update_yaxes(type="log", title_text=markup(panel.y.label), tickmode="array",
                         tickvals=([ZERO_AT] if zero else []) + [float(t) for t in ticks],
                         ticktext=(["0"] if zero else []) + [_count_text(t) for t in ticks], **axis)
    return _layout(fig, markup(model.title), 200 + 250 * rows_count,
                   subtitle="hollow: a median over fewer than half the instances (the others unsolved)")


def work_figure(campaign: censored_stats.Campaign, table: pd.DataFrame,
                styles: dict[str, EntrantStyle] | None = None) -> go.Figure:
    """Median work counters over solved instances vs n: a row per family, a column per
    counter (log y; a median of 0 sits at the "0" tick below 1; a note instead of a plot
    when every median is 0 or no entrant reports the counter)."""
    return draw_work(work_model(campaign, table), styles or campaign_styles(campaign))


def draw_phases(model: FigureModel) -> go.Figure:
    """The phase-split model: a panel per SAT entrant, its phases' shares stacked per n, the
    sum of the phase medians above each bar."""
    if not model.panels:
        fig = go.Figure()
        fig.add_annotation(text=markup(" ".join(model.notes)), showarrow=False)
        return _layout(fig, markup(model.title), 200)
    fig = _panels(model)
    for col, panel in enumerate(model.panels, start=1):
        for series in panel.series:
            grey, _ = phase_plots.PHASE_STYLE[series.key]
            level = int(255 * float(grey))
            fig.add_trace(go.Bar(
                x=[str(int(n)) for n in series.x], y=series.y, name=markup(series.label),
                legendgroup=series.key, showlegend=col == 1, marker={"color": f"rgb({level},{level},{level})",
                                                                     "line": {"color": "black", "width": 0.5}},
                text=phase_hovers(series, panel.key), textposition="none",
                hovertemplate="%{text}<extra></extra>"), row=1, col=col)
        fig.add_trace(go.Scatter(                  # the total above each bar
            x=[str(int(n)) for n, _ in panel.labels], y=[103] * len(panel.labels), mode="text", showlegend=False,
            text=[markup(t) for _, t in panel.labels], textposition="top center",
            hoverinfo="skip", cliponaxis=False), row=1, col=col)
        fig.update_xaxes(title_text=markup(panel.x.label), type="category", row=1, col=col)
    fig.update_layout(barmode="stack")
    fig.update_yaxes(range=[0, 112])
    fig.update_yaxes(title_text=markup(model.panels[0].y.label), row=1, col=1)
    return _layout(fig, markup(model.title), subtitle=_notes(model))


def phases_figure(campaign: censored_stats.Campaign, table: pd.DataFrame) -> go.Figure:
    """The SAT entrants' phase split: stacked shares of the median solve per n (first family)."""
    return draw_phases(phases_model(campaign, table))
