"""The SAT phase-split figure (``phases.png``): where a SAT entrant's median solve goes,
encoding, writing, search, decoding and verifying, per n."""

from __future__ import annotations

import warnings

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from experiments.analysis import statistics as analysis
from experiments.analysis.entrant_labels import short_label
from experiments.analysis.figure_style import family_title, pyplot

if TYPE_CHECKING:
    from matplotlib.figure import Figure

PHASE_NAMES = {"t_check": "check", "t_build": "build", "t_encode": "encode", "t_write": "write",
               "t_search": "search", "t_decode": "decode", "t_verify": "verify"}


def sat_entrants(campaign: analysis.Campaign) -> list[str]:
    """Entrants that report a CNF encoding phase (the SAT entrants)."""
    runs = campaign.runs
    return [e for e in campaign.entrants
            if runs.loc[runs["entrant"] == e, "t_encode"].notna().any()]


#: fill grey and hatch per phase, chosen to differ in greyscale
PHASE_STYLE = {"t_check": ("0.92", ""), "t_build": ("0.75", "||"), "t_encode": ("0.5", "///"),
               "t_write": ("0.85", "..."), "t_search": ("0.25", "xx"), "t_decode": ("0.65", "\\\\"),
               "t_verify": ("1.0", "oo")}


def phases_figure(campaign: analysis.Campaign, table: pd.DataFrame | None = None) -> Figure:
    """One panel per SAT entrant: stacked bars of each phase's share of the median solve
    at every n, each bar labelled with the sum of the phase medians; the first family
    (the assignment's), named in the title."""
    plt = pyplot()
    table = analysis.summary(campaign) if table is None else table
    family = campaign.families[0]
    if "family" in table.columns and len(table):
        table = table[table["family"] == family]   # the assignment's family
    entrants = sat_entrants(campaign)
    if not entrants:
        fig, ax = plt.subplots(figsize=(7.0, 1.2))
        ax.text(0.5, 0.5, "no SAT entrant in this campaign", ha="center", va="center",
                transform=ax.transAxes, color="0.4")
        ax.set_axis_off()
        return fig
    phases = [p for p in analysis.PHASES if table.loc[table["entrant"].isin(entrants), p].notna().any()]
    fig, axes = plt.subplots(1, len(entrants), figsize=(max(3.2, 1.75 * len(entrants) + 1.0), 2.7),
                             sharey=True, squeeze=False)
    for ax, entrant in zip(axes[0], entrants):
        rows = table[table["entrant"] == entrant].sort_values("n")
        rows = rows[rows[phases].notna().any(axis=1)]
        ns = rows["n"].astype(int).tolist()
        values = rows[phases].fillna(0.0).to_numpy(dtype=float)
        totals = values.sum(axis=1)
        shares = 100 * values / np.where(totals > 0, totals, 1.0)[:, None]
        bottom = np.zeros(len(ns))
        for j, phase in enumerate(phases):
            grey, hatch = PHASE_STYLE[phase]
            ax.bar(range(len(ns)), shares[:, j], bottom=bottom, width=0.75, color=grey, hatch=hatch,
                   edgecolor="black", linewidth=0.5, label=PHASE_NAMES[phase])
            bottom += shares[:, j]
        for k, total in enumerate(totals):
            ax.text(k, 102, analysis.format_seconds(total), ha="center", va="bottom", fontsize=6,
                    rotation=90)
        ax.set_xticks(range(len(ns)))
        ax.set_xticklabels([str(n) for n in ns])
        ax.set_xlabel("box size n")
        ax.set_title(short_label(entrant), fontsize=8, pad=30)
        ax.set_ylim(0, 100)
        ax.grid(axis="x", visible=False)
        ax.set_xlim(-0.6, max(len(ns), 1) - 0.4)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
    axes[0][0].set_ylabel("share of median time (%)")
    fig.suptitle(f"SAT phase split, {family_title(campaign, family)} (above each bar: the sum of "
                 "the phase medians)", fontsize=9)
    with warnings.catch_warnings():     # "Tight layout not applied": the figure is still drawn
        warnings.simplefilter("ignore", UserWarning)
        fig.tight_layout()
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=len(phases),
               frameon=False)
    return fig
