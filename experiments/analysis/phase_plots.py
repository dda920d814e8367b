"""The SAT phase-split figure (``phases.png``): where a SAT entrant's median solve goes,
encoding, writing, search, decoding and verifying, per n. It draws the model of
:func:`experiments.analysis.scatter_phase_models.phases_model` (computed there)."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from experiments.analysis import censored_stats
from experiments.analysis.figure_models import FigureModel
from experiments.analysis.figure_style import pyplot
from experiments.analysis.scatter_phase_models import (  # noqa: F401
    PHASE_NAMES,
    phases_model,
    sat_entrants,
)

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: fill grey and hatch per phase, chosen to differ in greyscale
PHASE_STYLE = {"t_check": ("0.92", ""), "t_build": ("0.75", "||"), "t_encode": ("0.5", "///"),
               "t_write": ("0.85", "..."), "t_search": ("0.25", "xx"), "t_decode": ("0.65", "\\\\"),
               "t_verify": ("1.0", "oo")}


#: the least room (inches) per bar for a bar whose n is named: closer bars name every second n
BAR_ROOM = 0.2


def phases_figure(campaign: censored_stats.Campaign, table: pd.DataFrame | None = None,
                  width: float | None = None) -> Figure:
    """One panel per SAT entrant: stacked bars of each phase's share of the median solve
    at every n, each bar labelled with the sum of the phase medians; the first family
    (the assignment's), named in the title. ``width`` (inches): the width it is laid out for."""
    table = censored_stats.summary(campaign) if table is None else table
    return draw_phases(phases_model(campaign, table), width)


def draw_phases(model: FigureModel, width: float | None = None) -> Figure:
    """The phase-split model: a panel per entrant, its phases stacked per n (every second n
    named where the bars of ``width`` inches would crowd their labels)."""
    plt = pyplot()
    if not model.panels:
        fig, ax = plt.subplots(figsize=(7.0, 1.2))
        ax.text(0.5, 0.5, " ".join(model.notes), ha="center", va="center", transform=ax.transAxes, color="0.4")
        ax.set_axis_off()
        return fig
    count = len(model.panels)
    size = max(3.2, 1.75 * count + 1.0)
    fig, axes = plt.subplots(1, count, figsize=(size, 2.7), sharey=True, squeeze=False)
    for ax, panel in zip(axes[0], model.panels):
        ns = [int(n) for n in (panel.series[0].x if panel.series else [])]
        bottom = np.zeros(len(ns))
        for series in panel.series:
            grey, hatch = PHASE_STYLE[series.key]
            ax.bar(range(len(ns)), series.y, bottom=bottom, width=0.75, color=grey, hatch=hatch,
                   edgecolor="black", linewidth=0.5, label=series.label)
            bottom += series.y
        for k, (_, text) in enumerate(panel.labels):
            ax.text(k, 102, text, ha="center", va="bottom", fontsize=6, rotation=90)
        ax.set_xticks(range(len(ns)))
        step = 2 if (width or size) / count / max(len(ns), 1) < BAR_ROOM else 1
        ax.set_xticklabels([str(n) if k % step == 0 else "" for k, n in enumerate(ns)])
        ax.set_xlabel(panel.x.label)
        ax.set_title(panel.title, fontsize=8, pad=40)      # above the totals, at 8 pt too
        ax.set_ylim(*(panel.y.limits or (0.0, 100.0)))
        ax.grid(axis="x", visible=False)
        ax.set_xlim(-0.6, max(len(ns), 1) - 0.4)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
    axes[0][0].set_ylabel(model.panels[0].y.label)
    fig.suptitle(f"{model.title} ({', '.join(model.notes)})", fontsize=9)
    with warnings.catch_warnings():     # "Tight layout not applied": the figure is still drawn
        warnings.simplefilter("ignore", UserWarning)
        fig.tight_layout()
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=max(len(labels), 1),
               frameon=False)
    return fig
