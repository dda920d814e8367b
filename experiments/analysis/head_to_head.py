"""The per-instance head-to-head figure: two entrants' times on the same instances,
log-log, one panel per family (the report's scatter; ``race plot`` writes it too). It draws
the model of :func:`experiments.analysis.scatter_phase_models.scatter_model` (computed there).

matplotlib is imported by the drawing functions only: choosing the pair
(:func:`head_to_head_pair`, which every run's summary asks) does not load it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from experiments.analysis import censored_stats
from experiments.analysis.head_to_head_table import STRIP  # noqa: F401 - the strip the model draws

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from experiments.analysis.figure_models import FigureModel, Panel


#: grey level per n in the scatter (darker = larger n), cycled
N_GREYS = ["0.75", "0.55", "0.35", "0.0", "0.6", "0.4", "0.2"]


def head_to_head_pair(campaign: censored_stats.Campaign) -> tuple[str, str] | None:
    """The pair the report's scatter shows: the first entrant whose solver names a partner
    (:attr:`solvers.interface.Solver.partner`) that raced too, with that partner (dlx vs sat);
    else the first two entrants; None with fewer than two."""
    from solvers.registry import INSTALLED, parse_spec
    entrants = campaign.entrants
    for entrant in entrants:
        try:
            partner = INSTALLED.solver_class(parse_spec(entrant)[0]).partner
        except Exception:  # noqa: BLE001 - an entrant whose solver is gone has no partner
            continue
        if entrant == parse_spec(entrant)[0] and partner in entrants:
            return entrant, partner
    return (entrants[0], entrants[1]) if len(entrants) >= 2 else None


#: a panel narrower than this (inches, a column's) names every second decade only
NARROW_PANEL = 3.4
#: a figure narrower than this (inches, a column) writes its legend in three columns of short lines
COLUMN_WIDTH = 4.0


def _decades(ax: Axes, every: int) -> None:
    """Both log axes ticked at every ``every``-th decade (named), the others marked unnamed."""
    from matplotlib.ticker import LogLocator, NullFormatter
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_locator(LogLocator(base=10.0 ** every))
        axis.set_minor_locator(LogLocator(base=10.0, subs=(1.0,)) if every > 1 else LogLocator(subs="auto"))
        axis.set_minor_formatter(NullFormatter())


def _scatter_panel(ax: Axes, panel: Panel, order: list[str], limit: float, every: int) -> None:
    """One family's pairs: filled markers measured; a censored time hollow in the shaded
    strip beyond its limit line; the panel's corner text (the counts of censored pairs)."""
    from experiments.analysis.figure_style import MARKERS, NOTE_SIZE
    from experiments.analysis.log_axes import log_scale
    for series in panel.series:
        i = order.index(series.key)
        censored = series.marked(series.censored)
        grey, marker = N_GREYS[i % len(N_GREYS)], MARKERS[i % len(MARKERS)]
        ax.plot(series.x[~censored], series.y[~censored], linestyle="none", marker=marker, markersize=4.5,
                markerfacecolor=grey, markeredgecolor="black", markeredgewidth=0.5, label=series.label)
        ax.plot(series.x[censored], series.y[censored], linestyle="none", marker=marker, markersize=5,
                markerfacecolor="white", markeredgecolor="black", markeredgewidth=0.8, alpha=0.8)
    low, top = panel.x.limits or (limit / 1e3, limit * STRIP)
    ax.axvspan(limit, top, color="0.93", zorder=0, linewidth=0)
    ax.axhspan(limit, top, color="0.93", zorder=0, linewidth=0)
    ax.plot([low, limit], [low, limit], color="0.4", linewidth=0.8, linestyle="-")
    for line in (ax.axhline, ax.axvline):
        line(limit, color="0.3", linestyle=(0, (6, 3)), linewidth=0.9)
    log_scale(ax, "x")
    log_scale(ax)
    _decades(ax, every)
    ax.set_xlim(low, top)
    ax.set_ylim(low, top)
    ax.set_aspect("equal")
    if panel.corner:
        ax.text(0.03, 0.97, panel.corner, transform=ax.transAxes,
                ha="left", va="top", fontsize=NOTE_SIZE, color="0.25",
                bbox={"facecolor": "white", "edgecolor": "0.7", "linewidth": 0.5, "pad": 2})


def scatter_figure(campaign: censored_stats.Campaign, a: str | None = None, b: str | None = None,
                   width: float | None = None) -> Figure:
    """Per-instance head to head, log-log: A's time on x, B's on y, on the same instances
    (:func:`experiments.analysis.compare.paired_times`), one panel per family. A censored
    time sits in the shaded strip beyond the limit line of its axis (hollow marker, spread
    out; each panel counts them); marker shape and grey tone encode n; the diagonal marks
    equal times. ``width`` (inches): the figure's width, its panels stacked when side by side
    they would be narrower than 2 in; names longer than a legend's are cut (:func:`short_label`)."""
    from experiments.analysis.figure_style import pyplot
    from experiments.analysis.scatter_phase_models import scatter_model
    pair = (a, b) if a and b else head_to_head_pair(campaign)
    if pair is None:
        fig, ax = pyplot().subplots(figsize=(3.4, 1.2))
        ax.text(0.5, 0.5, "fewer than two entrants: no head to head", ha="center", va="center",
                transform=ax.transAxes, color="0.4")
        ax.set_axis_off()
        return fig
    return draw_scatter(scatter_model(campaign, *pair), width)


def draw_scatter(model: FigureModel, width: float | None = None) -> Figure:
    """The head-to-head model: a square log-log panel per family (stacked, sharing x, when
    ``width`` is too narrow for them side by side), a legend of the n (marker and grey) and
    of what the strips, the dashed lines and the notes mean. At a column's width the ticks
    name every second decade and the legend's lines are short."""
    import textwrap

    from experiments.analysis.figure_style import MARKERS, legend_below, pyplot
    plt = pyplot()
    limit = model.limit if model.limit is not None else float("inf")
    count = len(model.panels)
    stacked = width is not None and width / count < 2.0
    if stacked and width is not None:      # a column: the square panels stacked, one x axis named
        fig, grid = plt.subplots(count, 1, figsize=(width, 2.7 * count + 0.3), squeeze=False, sharex=True)
        axes = list(grid[:, 0])
    else:                                  # side by side: one y axis named; as tall as square panels need
        height = 3.4 if width is None else min(3.4, 0.9 * width / count + 1.2)
        fig, grid = plt.subplots(1, count, figsize=(width or 3.3 * count + 0.3, height), squeeze=False,
                                 sharey=True)
        axes = list(grid[0])
    panel_width = None if width is None else width if stacked else width / count
    every = 2 if panel_width is not None and panel_width < NARROW_PANEL else 1
    keys = {s.key: int(s.rows["n"].iloc[0]) if s.rows is not None and len(s.rows) else 0
            for _, s in model.series}
    order = sorted(keys, key=keys.__getitem__)
    for k, (ax, panel) in enumerate(zip(axes, model.panels)):
        _scatter_panel(ax, panel, order, limit, every)
        if not stacked or k == count - 1:
            ax.set_xlabel(panel.x.label)
        if stacked or k == 0:
            ax.set_ylabel(panel.y.label)
        ax.set_title(panel.title if count > 1 else f"{model.title}, {panel.title}")
    from matplotlib.lines import Line2D
    handles: list[Line2D] = [Line2D([], [], linestyle="none", marker=MARKERS[i % len(MARKERS)], markersize=4.5,
                                    markerfacecolor=N_GREYS[i % len(N_GREYS)], markeredgecolor="black")
                             for i in range(len(order))]
    labels = list(order)
    if model.has_censored():            # only when one is drawn
        handles.append(Line2D([], [], linestyle="none", marker="o", markerfacecolor="white",
                              markeredgecolor="black", markersize=5.5))
        labels.append("censored (in the strip beyond the limit)")
    handles.append(Line2D([], [], color="0.3", linestyle=(0, (6, 3)), linewidth=0.9))
    labels.append(f"time limit ({censored_stats.format_seconds(limit)})")
    for note in model.notes:            # never raced: no time, so no point (not a censored one)
        handles.append(Line2D([], [], linestyle="none"))
        labels.append(note)
    column = width is not None and width < COLUMN_WIDTH
    if column:
        labels = [textwrap.fill(label, 22) for label in labels]
    legend_below(fig, list(handles), labels, 3 if column else min(len(labels), 4),
                 handlelength=1.6 if column else 3.2)
    return fig
