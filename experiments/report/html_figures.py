"""The interactive figures of the HTML report (plotly), one per figure of the static report.

Each function returns a plotly Figure from a campaign; every entrant keeps the colour,
marker and dash :mod:`experiments.analysis.figure_style` gives it in every figure, static
or interactive (``styles``: the page's styles, the landscape's entrants included).
Censoring is shown, never hidden: a censored median is a hollow marker drawn at the limit
(as in the static figure), a censored instance a hollow point in its entrant's row of the
shaded strip above the time-limit line, and the hover text of each says "> limit". Hovering an instance's point shows the instance, its status, time and work
counters.

plotly reads a trace's name, hover text and titles as markup (``<b>``, ``<span style>``):
every text that comes from the data (an entrant, a family, an instance, a campaign's
name) goes through :func:`markup` first, so it shows as written.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from experiments.analysis import phase_plots, plots
from experiments.analysis import statistics as analysis
from experiments.analysis import skipped_cells, virtual_best
from experiments.harness.schema import Status
from experiments.analysis.figure_style import EntrantStyle, campaign_styles, censored_rows, strip_top
from experiments.report.hover_texts import HOVER_COUNTERS, escaped, instance_hover, instance_hovers, markup  # noqa: F401

#: where a work median of 0 sits on a log axis (labelled "0")
ZERO_AT = 0.3
#: plotly's check of a trace's properties, off for the traces of one point per instance: it
#: looks at each element of their arrays (seconds at 100,000 points), which this module builds
UNCHECKED = False
#: pixels between two rows of the censored strip (its markers are 10 pixels, with a line)
ROW_PIXELS = 14.0


def trace_style(style: EntrantStyle, width: float = 2.0) -> dict:
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
    heading = {"text": title, "y": 1.0, "yanchor": "top", "pad": {"t": 12}}
    if subtitle:
        heading["subtitle"] = {"text": subtitle}
    fig.update_layout(title=heading, height=height,
                      template="plotly_white", hovermode="closest",
                      legend={"orientation": "h", "yanchor": "top", "y": -62 / plot_height, "x": 0},
                      margin={"t": top, "l": 70, "r": 20, "b": bottom})
    return fig


def seconds(value: float, limit: float) -> str:
    return analysis.format_seconds(value, limit)


def _jitter(count: int, index: int, entrants: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (index - (entrants - 1) / 2) * 0.09 + rng.uniform(-0.03, 0.03, count)


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
    values = values[np.isfinite(values) & (values > 0)]
    return float(values.min()) / 1.6 if values.size else limit / 1e3


RUNTIME_HEIGHT = 500


def runtime_figure(campaign: analysis.Campaign, table: pd.DataFrame, instances: pd.DataFrame,
                   styles: dict[str, EntrantStyle] | None = None) -> go.Figure:
    """Time vs n per family: every instance as a faint point, the median as a line with its
    IQR band, the virtual best solver as its own line; a censored median hollow at the limit,
    a censored instance hollow in its entrant's row of the strip above the limit."""
    families = campaign.families
    limit = campaign.timeout_s
    styles = styles or campaign_styles(campaign)
    left_out = skipped_cells.note(table)          # skipped: no time, so not drawn, named
    table, entrants = plots.with_virtual_best(campaign, skipped_cells.drawn(table), instances)
    instances = instances[instances["status"] != Status.SKIPPED]
    fig = make_subplots(rows=1, cols=len(families), shared_yaxes=True,
                        subplot_titles=[markup(plots.family_title(campaign, k)) for k in families])
    times = instances["time"].to_numpy(float)
    censored_entrants = [e for e in entrants if np.isinf(times[instances["entrant"].to_numpy() == e]).any()]
    low = _lowest(np.concatenate([times, table["q25_s"].to_numpy(float)]), limit)
    rows_above = _strip_rows(censored_entrants, limit, low, RUNTIME_HEIGHT)
    for col, family in enumerate(families, start=1):
        for i, entrant in enumerate(entrants):
            st = styles[entrant]
            name = markup(entrant)
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
                                         fill="tonexty", fillcolor=_rgba(st.colour, 0.15),
                                         hoverinfo="skip", showlegend=False, legendgroup=entrant),
                              row=1, col=col)
            pts = instances[(instances["entrant"] == entrant) & (instances["family"] == family)]
            if len(pts):
                t = pts["time"].to_numpy(float)
                censored = ~np.isfinite(t)
                fig.add_trace(go.Scatter(
                    x=pts["n"].to_numpy(float) + _jitter(len(pts), i, len(entrants), col),
                    y=np.where(censored, rows_above.get(entrant, limit), t), mode="markers", legendgroup=entrant,
                    showlegend=False, name=f"{name} (instances)",
                    marker={"color": st.colour, "size": 5, "opacity": 0.45,
                            # one symbol unless some are censored: plotly checks each one of an array
                            "symbol": (np.where(censored, f"{st.symbol}-open", st.symbol)
                                       if censored.any() else st.symbol)},
                    text=instance_hovers(pts, limit),
                    customdata=pts["instance"].to_numpy(dtype=object), hovertemplate="%{text}<extra></extra>",
                    _validate=UNCHECKED), row=1, col=col)
            hover = [f"<b>{name}</b><br>{markup(family)}, n = {int(r.n)}<br>solved {int(r.solved)}/{int(r.total)}"
                     f"<br>median {seconds(r.median_s, limit)}"
                     f"<br>95% CI {analysis.format_interval(r.median_lo, r.median_hi, limit)}"
                     f"<br>IQR {seconds(r.q25_s, limit)} .. {seconds(r.q75_s, limit)}"
                     for r in rows.itertuples()]
            finite = np.isfinite(med)
            look = trace_style(st, 3 if entrant == virtual_best.NAME else 2)
            fig.add_trace(go.Scatter(
                x=x, y=np.where(finite, med, np.nan), mode="lines+markers", name=name, legendgroup=entrant,
                showlegend=col == 1, line=look["line"], marker={**look["marker"], "size": 8},
                text=hover, hovertemplate="%{text}<extra></extra>"), row=1, col=col)
            if (~finite).any():
                fig.add_trace(go.Scatter(
                    x=x[~finite], y=np.full((~finite).sum(), limit), mode="markers",
                    legendgroup=entrant, showlegend=False, name=f"{name} (median > limit)",
                    marker={"symbol": f"{st.symbol}-open", "size": 10, "color": st.colour,
                            "line": {"width": 2}},
                    text=[h for h, f in zip(hover, finite) if not f], hovertemplate="%{text}<extra></extra>"),
                    row=1, col=col)
        fig.add_hline(y=limit, line={"dash": "dash", "color": "#555", "width": 1}, row=1, col=col)
        fig.update_xaxes(title_text="box size n", dtick=1, row=1, col=col)
    _censored_axis(fig, rows_above, limit, low, len(families))
    fig.update_yaxes(title_text="wall time per solve (s)", row=1, col=1)
    return _layout(fig, f"Time per instance vs n (median line, IQR band, points: instances; hollow: "
                        f"> limit {seconds(limit, None)}, a median drawn at the limit, an instance in "
                        f"the shaded strip, a row per entrant)", RUNTIME_HEIGHT,
                   subtitle=markup(left_out))


def _rgba(hex_colour: str, alpha: float) -> str:
    h = hex_colour.lstrip("#")
    return f"rgba({int(h[0:2], 16)},{int(h[2:4], 16)},{int(h[4:6], 16)},{alpha})"


def solved_figure(campaign: analysis.Campaign, table: pd.DataFrame,
                  styles: dict[str, EntrantStyle] | None = None,
                  instances: pd.DataFrame | None = None) -> go.Figure:
    """Share of instances solved within the limit vs n, one panel per family, the VBS too
    (``instances``: the campaign's :func:`analysis.instance_times`, when at hand)."""
    families = campaign.families
    styles = styles or campaign_styles(campaign)
    left_out = skipped_cells.note(table)          # skipped is not 0 % solved: not drawn, named
    table, entrants = plots.with_virtual_best(campaign, skipped_cells.drawn(table), instances)
    fig = make_subplots(rows=1, cols=len(families), shared_yaxes=True,
                        subplot_titles=[markup(plots.family_title(campaign, k)) for k in families])
    for col, family in enumerate(families, start=1):
        for entrant in entrants:
            rows = table[(table["family"] == family) & (table["entrant"] == entrant)].sort_values("n")
            if rows.empty:
                continue
            look = trace_style(styles[entrant])
            fig.add_trace(go.Scatter(
                x=rows["n"], y=100 * rows["solved_frac"], mode="lines+markers", name=markup(entrant),
                legendgroup=entrant, showlegend=col == 1, line=look["line"], marker={**look["marker"], "size": 8},
                text=[f"<b>{markup(entrant)}</b><br>{markup(family)}, n = {int(r.n)}<br>solved "
                      f"{int(r.solved)}/{int(r.total)}" for r in rows.itertuples()],
                hovertemplate="%{text}<extra></extra>"), row=1, col=col)
        fig.update_xaxes(title_text="box size n", dtick=1, row=1, col=col)
    fig.update_yaxes(range=[-5, 105])
    fig.update_yaxes(title_text=f"solved within {seconds(campaign.timeout_s, None)} (%)", row=1, col=1)
    return _layout(fig, "Instances solved within the limit", subtitle=markup(left_out))


def cactus_figure(campaign: analysis.Campaign, instances: pd.DataFrame,
                  styles: dict[str, EntrantStyle] | None = None) -> go.Figure:
    """The k-th fastest answered instance of each entrant (all families and n), the VBS too."""
    limit = campaign.timeout_s
    styles = styles or campaign_styles(campaign)
    entrants = list(campaign.entrants)
    frame = instances
    if virtual_best.applies(campaign):
        best = virtual_best.best_times(instances, entrants)
        best = best.assign(entrant=virtual_best.NAME, status=np.where(best["winner"] != "", "solved", "censored"))
        frame = pd.concat([instances, best], ignore_index=True)
        entrants.append(virtual_best.NAME)
    fig = go.Figure()
    for entrant in entrants:
        mine = frame[(frame["entrant"] == entrant) & np.isfinite(frame["time"].to_numpy(float))]
        mine = mine.sort_values("time", kind="mergesort")
        look = trace_style(styles[entrant])
        text = instance_hovers(mine, limit)
        if "winner" in mine.columns and len(mine):
            winner = mine["winner"].fillna("").astype(str)
            named = (winner != "").to_numpy()
            text[named] = text[named] + "<br>fastest: " + escaped(winner[named])
        fig.add_trace(go.Scatter(x=np.arange(1, len(mine) + 1), y=mine["time"], mode="lines+markers",
                                 name=markup(entrant), line={**look["line"], "shape": "hv"},
                                 marker={**look["marker"], "size": 5}, text=np.array(text, dtype=object),
                                 customdata=mine["instance"].to_numpy(dtype=object),
                                 hovertemplate="%{text}<extra></extra>", _validate=UNCHECKED))
    fig.add_hline(y=limit, line={"dash": "dash", "color": "#555", "width": 1})
    total = int(instances.groupby("entrant").size().max()) if len(instances) else 0
    fig.update_xaxes(title_text=f"instances solved (of {total}, all n)")
    fig.update_yaxes(type="log", title_text="wall time per solve (s)")
    families = campaign.families
    which = (markup(plots.family_title(campaign, families[0])) if len(families) == 1
             else f"all families ({markup(', '.join(families))})")
    return _layout(fig, f"Cactus plot: the k-th fastest solved instance, {which}")


def work_figure(campaign: analysis.Campaign, table: pd.DataFrame,
                styles: dict[str, EntrantStyle] | None = None) -> go.Figure:
    """Median work counters over solved instances vs n: a row per family, a column per
    counter (log y; a median of 0 sits at the "0" tick below 1; a note instead of a plot
    when every median is 0 or no entrant reports the counter)."""
    families = campaign.families
    styles = styles or campaign_styles(campaign)
    counters = [c for c, _ in plots.WORK]
    fig = make_subplots(rows=len(families), cols=len(counters), vertical_spacing=0.3 / len(families),
                        subplot_titles=[f"{markup(k)}: {t}" for k in families for _, t in plots.WORK])
    shown: set[str] = set()
    for r, family in enumerate(families, start=1):
        for c, counter in enumerate(counters, start=1):
            drawn = []
            for entrant in campaign.entrants:
                rows = table[(table["family"] == family) & (table["entrant"] == entrant)].sort_values("n")
                y = rows[counter].to_numpy(float)
                if np.isfinite(y).any():
                    drawn.append((entrant, rows, y))
            values = np.concatenate([y[np.isfinite(y)] for *_, y in drawn]) if drawn else np.array([])
            axis = {"row": r, "col": c}
            fig.update_xaxes(dtick=1, title_text="box size n" if r == len(families) else None, **axis)
            if not (values > 0).any():
                note = (f"no {counter}<br>(every median is 0: {markup(', '.join(e for e, *_ in drawn))})"
                        if drawn else f"no entrant reports {counter}")
                # paper coordinates: plotly draws no axes for a panel without traces
                index = (r - 1) * len(counters) + c
                suffix = "" if index == 1 else str(index)
                x0, x1 = fig.layout[f"xaxis{suffix}"].domain
                y0, y1 = fig.layout[f"yaxis{suffix}"].domain
                fig.add_annotation(text=note, x=(x0 + x1) / 2, y=(y0 + y1) / 2, xref="paper", yref="paper",
                                   showarrow=False, font={"color": "#666"})
                continue
            zero = bool((values == 0).any())
            for entrant, rows, y in drawn:
                look = trace_style(styles[entrant])
                # a median of fewer than half the instances (the others unsolved): hollow
                few = (rows["solved"] < rows["total"] / 2).to_numpy()
                symbol = look["marker"]["symbol"]
                fig.add_trace(go.Scatter(
                    x=rows["n"], y=np.where(y == 0, ZERO_AT, y) if zero else y, mode="lines+markers",
                    name=markup(entrant), legendgroup=entrant, showlegend=entrant not in shown,
                    line=look["line"], marker={**look["marker"], "size": 7,
                                               "symbol": [f"{symbol}-open" if f else symbol for f in few]},
                    text=[f"<b>{markup(entrant)}</b><br>{markup(family)}, n = {int(row.n)}<br>median {counter} "
                          f"{'n/a' if math.isnan(v) else f'{v:,.0f}'} over {int(row.solved)} of "
                          f"{int(row.total)} instances" for row, v in zip(rows.itertuples(), y)],
                    hovertemplate="%{text}<extra></extra>"), **axis)
                shown.add(entrant)
            # every panel the same ticks: decades only, written alike (10, 1k, 1M), "0" below 1
            low = 0 if zero else math.floor(math.log10(values[values > 0].min()))
            top = max(math.ceil(math.log10(values.max())), low + 1)
            ticks = [10 ** k for k in range(low, top + 1)]
            fig.update_yaxes(type="log", title_text=f"{counter} per solve", tickmode="array",
                             tickvals=([ZERO_AT] if zero else []) + [float(t) for t in ticks],
                             ticktext=(["0"] if zero else []) + [_count_text(t) for t in ticks], **axis)
    return _layout(fig, "Work per solve (median over solved instances)", 200 + 250 * len(families),
                   subtitle="hollow: a median over fewer than half the instances (the others unsolved)")


def _count_text(value: int) -> str:
    """A decade as a short count: 1, 10, 100, 1k, 10k, 100k, 1M, ... 1G, ..."""
    for scale, suffix in ((10 ** 12, "T"), (10 ** 9, "G"), (10 ** 6, "M"), (10 ** 3, "k")):
        if value >= scale:
            return f"{value // scale:,}{suffix}"
    return str(value)


def phases_figure(campaign: analysis.Campaign, table: pd.DataFrame) -> go.Figure:
    """The SAT entrants' phase split: stacked shares of the median solve per n (first family)."""
    entrants = phase_plots.sat_entrants(campaign)
    family = campaign.families[0]
    first = table[table["family"] == family] if "family" in table.columns else table
    if not entrants:
        fig = go.Figure()
        fig.add_annotation(text="no SAT entrant in this campaign", showarrow=False)
        return _layout(fig, "SAT phase split", 200)
    phases = [p for p in analysis.PHASES if first.loc[first["entrant"].isin(entrants), p].notna().any()]
    fig = make_subplots(rows=1, cols=len(entrants), shared_yaxes=True, subplot_titles=[markup(e) for e in entrants])
    for col, entrant in enumerate(entrants, start=1):
        rows = first[first["entrant"] == entrant].sort_values("n")
        rows = rows[rows[phases].notna().any(axis=1)]
        values = rows[phases].fillna(0.0).to_numpy(float)
        totals = values.sum(axis=1)
        shares = 100 * values / np.where(totals > 0, totals, 1.0)[:, None]
        for j, phase in enumerate(phases):
            grey, _ = phase_plots.PHASE_STYLE[phase]
            level = int(255 * float(grey))
            fig.add_trace(go.Bar(
                x=[str(n) for n in rows["n"]], y=shares[:, j], name=plots.PHASE_NAMES[phase],
                legendgroup=phase, showlegend=col == 1, marker={"color": f"rgb({level},{level},{level})",
                                                                  "line": {"color": "black", "width": 0.5}},
                text=[f"{markup(entrant)}, {plots.PHASE_NAMES[phase]}: {seconds(v, None)} of {seconds(t, None)} "
                      f"(n = {n})" for v, t, n in zip(values[:, j], totals, rows["n"])],
                textposition="none", hovertemplate="%{text}<extra></extra>"), row=1, col=col)
        fig.add_trace(go.Scatter(                  # the total above each bar
            x=[str(n) for n in rows["n"]], y=[103] * len(rows), mode="text", showlegend=False,
            text=[seconds(t, None) for t in totals], textposition="top center",
            hoverinfo="skip", cliponaxis=False), row=1, col=col)
        fig.update_xaxes(title_text="box size n", type="category", row=1, col=col)
    fig.update_layout(barmode="stack")
    fig.update_yaxes(range=[0, 112])
    fig.update_yaxes(title_text="share of median time (%)", row=1, col=1)
    return _layout(fig, f"SAT phase split, {markup(plots.family_title(campaign, family))}",
                   subtitle="above each bar: the sum of the phase medians")


LANDSCAPE_HEIGHT = 460
