"""The hardness-landscape figure drawn with matplotlib: a thin renderer of the model of
:func:`experiments.analysis.landscape.landscape_model` (computed there, once, for this renderer
and the HTML page's, :mod:`experiments.report.html_landscape`)."""

from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING

import numpy as np

from experiments.analysis import censored_stats

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from experiments.analysis.figure_models import FigureModel
    from experiments.analysis.figure_style import EntrantStyle

#: panels (one per n) in a row of the landscape figure
PANELS_PER_ROW = 3


def draw_landscape(model: FigureModel, styles: dict[str, EntrantStyle]) -> Figure:
    """The landscape model: a panel per n (three to a row), a line per entrant in its style of
    every figure, censored medians hollow in the entrant's row of the strip above the limit
    (joined by a dotted line), each panel's spans shaded, the legend in the last row's empty
    place or under it all (a matplotlib Figure)."""
    from experiments.analysis.figure_style import pyplot
    plt = pyplot()
    from matplotlib.artist import Artist
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    from experiments.analysis import plots
    from experiments.analysis.figure_style import axes_height_points, censored_rows
    from experiments.analysis.log_axes import log_scale

    limit = model.limit if model.limit is not None else math.inf
    if not model.panels:
        fig, ax = plt.subplots(figsize=(3.4, 1.2))
        ax.text(0.5, 0.5, "\n".join(model.notes), ha="center", va="center", transform=ax.transAxes, color="0.4")
        ax.set_axis_off()
        return fig
    low = model.panels[0].y.limits[0] if model.panels[0].y.limits else limit / 1e3
    columns = min(PANELS_PER_ROW, len(model.panels))
    rows = -(-len(model.panels) // columns)
    fig, grid = plt.subplots(rows, columns, figsize=(2.5 * columns + 0.5, 2.4 * rows + 0.4), squeeze=False,
                             sharey=True)
    axes = list(grid.ravel())
    rows_above = censored_rows(model.censored_keys(), limit, low, axes_height_points(fig, axes[0]))
    for ax, panel in zip(axes, model.panels):
        for series in panel.series:
            style = styles[series.key].matplotlib()
            censored_at = series.marked(series.censored)
            ax.plot(series.x, series.y, **style)
            if censored_at.any():
                y = np.where(censored_at, rows_above.get(series.key, limit), series.y)
                ax.plot(series.x, y, color=style["color"], linestyle=":", linewidth=0.9)
                ax.plot(series.x[censored_at], y[censored_at], linestyle="none",
                        marker=style["marker"], markerfacecolor="white",
                        markeredgecolor=style["color"], markersize=5)
        for x0, x1 in panel.spans:
            ax.axvspan(x0, x1, color="0.85", zorder=0)
        ax.axhline(limit, color="0.3", linestyle=(0, (6, 3)), linewidth=0.9)
        log_scale(ax)
        plots.censored_strip(ax, rows_above, limit, low)
        ax.set_title(panel.title)
        ax.set_xlabel(panel.x.label)
    for row in grid:
        row[0].set_ylabel(model.panels[0].y.label)
    handles: list[Artist] = [Line2D([], [], **styles[key].matplotlib()) for key in model.keys]
    labels = list(model.keys)
    handles += [Line2D([], [], color="0.3", linestyle=(0, (6, 3)), linewidth=0.9),
                Line2D([], [], linestyle="none", marker="o", markerfacecolor="white",
                       markeredgecolor="0.3", markersize=6)]
    labels += [f"time limit ({censored_stats.format_seconds(limit)})", "median > limit (censored)"]
    for note in model.notes:                   # the spans' name, with their grey
        handles.append(Patch(color="0.85"))
        labels.append(note)
    fig.suptitle(model.title, fontsize=9)
    spare = axes[len(model.panels):]
    if spare:                       # the legend in the row's empty place, not under it all
        for ax in spare:
            ax.set_visible(False)
        with warnings.catch_warnings():     # "Tight layout not applied": the figure is still drawn
            warnings.simplefilter("ignore", UserWarning)
            fig.tight_layout()
        box = spare[0].get_position()
        fig.legend(handles, labels, loc="center left", bbox_to_anchor=(box.x0 + 0.02, box.y0 + box.height / 2),
                   ncol=2 if len(spare) > 1 else 1, frameon=False, handlelength=3.2)
    else:
        plots.legend_below(fig, handles, labels, min(len(labels), 4))
    return fig
