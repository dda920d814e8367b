"""Figures of a race campaign (matplotlib, Agg backend), saved as PDF and PNG.

Every figure reads in greyscale: each entrant keeps one marker, one line
style and one colour across all figures; bars carry hatches. Axes are
labelled with units; entrants are named as on the command line. Censored
values (no answer within the limit) are never drawn as measurements: they
sit on the time-limit line as hollow markers.

:func:`plot_all` writes all of them; each ``*_figure`` function returns one
matplotlib Figure built from a :class:`experiments.analysis.Campaign`.
"""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

from experiments import analysis  # noqa: E402
from formats.errors import RaceError  # noqa: E402

#: figure name -> what it shows (the file stem of the PDF and PNG)
FIGURES: dict[str, str] = {
    "runtime": "median wall time vs n with IQR band, censored medians at the limit",
    "solved": "fraction of instances solved within the limit vs n",
    "cactus": "instances solved vs time (all n together)",
    "work": "work counters (nodes, updates, conflicts) vs n",
    "phases": "SAT phase split (check/encode/write/search/decode/verify) per n",
}

MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]
LINESTYLES = ["-", "--", "-.", ":", (0, (5, 1, 1, 1)), (0, (1, 1)), (0, (8, 2)), (0, (3, 1, 1, 1, 1, 1))]
#: Okabe-Ito colours, ordered so neighbours differ in lightness too
COLOURS = ["#000000", "#E69F00", "#0072B2", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#999999"]
HATCHES = ["", "///", "...", "xxx", "\\\\\\", "ooo", "---", "+++"]
PHASE_NAMES = {"t_check": "check", "t_build": "build", "t_encode": "encode", "t_write": "write",
               "t_search": "search", "t_decode": "decode", "t_verify": "verify"}
STYLE = {"font.size": 9, "axes.titlesize": 9, "axes.labelsize": 9, "legend.fontsize": 8,
         "xtick.labelsize": 8, "ytick.labelsize": 8, "figure.dpi": 100, "savefig.bbox": "tight",
         "pdf.fonttype": 42, "axes.grid": True, "grid.alpha": 0.3, "grid.linewidth": 0.5}


def style(index: int) -> dict:
    """Line style of the entrant at ``index`` (stable across figures)."""
    return {"marker": MARKERS[index % len(MARKERS)], "linestyle": LINESTYLES[index % len(LINESTYLES)],
            "color": COLOURS[index % len(COLOURS)], "markersize": 5, "linewidth": 1.4}


def _dodge(index: int, count: int, width: float = 0.07) -> float:
    """Small x offset so markers of different entrants at the same n do not hide each other."""
    return (index - (count - 1) / 2) * width


def _n_axis(ax, ns: list[int]) -> None:
    ax.set_xticks(ns)
    ax.set_xticklabels([f"{n}\n({n * n}×{n * n})" for n in ns])
    ax.set_xlabel("box size n (grid n²×n²)")
    if ns:
        ax.set_xlim(min(ns) - 0.4, max(ns) + 0.4)


def runtime_figure(campaign: analysis.Campaign, table: pd.DataFrame | None = None) -> Figure:
    """Median wall time per solve vs n (log y), IQR band, hollow markers at the limit
    where the median is censored, the limit as a dashed line."""
    table = analysis.summary(campaign) if table is None else table
    limit = campaign.timeout_s
    entrants = campaign.entrants
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    for i, entrant in enumerate(entrants):
        rows = table[table["entrant"] == entrant].sort_values("n")
        x = rows["n"].to_numpy(dtype=float) + _dodge(i, len(entrants))
        med = rows["median_s"].to_numpy(dtype=float)
        lo = np.minimum(rows["q25_s"].to_numpy(dtype=float), limit)
        hi = np.minimum(rows["q75_s"].to_numpy(dtype=float), limit)
        st = style(i)
        finite = np.isfinite(med)
        ax.plot(x[finite], med[finite], label=entrant, **st)
        band = np.isfinite(rows["q25_s"].to_numpy(dtype=float))
        if band.any():
            ax.fill_between(x[band], lo[band], hi[band], color=st["color"], alpha=0.15, linewidth=0)
        censored = ~finite & ~np.isnan(med)
        if censored.any():
            ax.plot(x[censored], np.full(censored.sum(), limit), linestyle="none", marker=st["marker"],
                    markersize=7, markerfacecolor="white", markeredgecolor=st["color"],
                    markeredgewidth=1.4)
            if finite.any():
                last = np.flatnonzero(finite)[-1]
                first_cens = np.flatnonzero(censored)
                after = first_cens[first_cens > last]
                if after.size:
                    ax.plot([x[last], x[after[0]]], [med[last], limit], color=st["color"],
                            linestyle=":", linewidth=1.0)
    ax.axhline(limit, color="0.3", linestyle=(0, (6, 3)), linewidth=0.9)
    ax.set_yscale("log")
    ax.set_ylabel("wall time per solve (s, log scale)")
    _n_axis(ax, campaign.n_values)
    handles, labels = ax.get_legend_handles_labels()
    handles += [Line2D([], [], color="0.3", linestyle=(0, (6, 3)), linewidth=0.9),
                Line2D([], [], linestyle="none", marker="o", markerfacecolor="white",
                       markeredgecolor="0.3", markersize=7)]
    labels += [f"time limit ({analysis.format_seconds(limit)})", "median > limit"]
    ax.legend(handles, labels, loc="upper left", frameon=True, framealpha=0.9)
    ax.set_title("Median time per instance (band: interquartile range)")
    return fig


def solved_figure(campaign: analysis.Campaign, table: pd.DataFrame | None = None) -> Figure:
    """Fraction of instances solved (verified) within the limit vs n."""
    table = analysis.summary(campaign) if table is None else table
    entrants = campaign.entrants
    fig, ax = plt.subplots(figsize=(3.9, 3.0))
    for i, entrant in enumerate(entrants):
        rows = table[table["entrant"] == entrant].sort_values("n")
        ax.plot(rows["n"].to_numpy(dtype=float) + _dodge(i, len(entrants), 0.05),
                rows["solved_frac"].to_numpy(dtype=float) * 100, label=entrant, **style(i))
    ax.set_ylim(-5, 105)
    ax.set_ylabel(f"solved within {analysis.format_seconds(campaign.timeout_s)} (%)")
    _n_axis(ax, campaign.n_values)
    ax.legend(loc="lower left", framealpha=0.9)
    ax.set_title("Instances solved within the limit")
    return fig


def cactus_figure(campaign: analysis.Campaign) -> Figure:
    """Cactus plot: for each entrant, the k-th fastest solved instance (all n) at x = k."""
    per_instance = analysis.instance_times(campaign.runs)
    fig, ax = plt.subplots(figsize=(3.9, 3.0))
    for i, entrant in enumerate(campaign.entrants):
        times = np.sort(per_instance.loc[per_instance["entrant"] == entrant, "time"].to_numpy(float))
        times = times[np.isfinite(times)]
        if times.size == 0:
            continue
        st = style(i)
        ax.step(np.arange(1, times.size + 1), times, where="post", label=entrant,
                color=st["color"], linestyle=st["linestyle"], linewidth=st["linewidth"])
        ax.plot(np.arange(1, times.size + 1), times, linestyle="none", marker=st["marker"],
                color=st["color"], markersize=3.5, markevery=max(1, times.size // 6))
    ax.axhline(campaign.timeout_s, color="0.3", linestyle=(0, (6, 3)), linewidth=0.9,
               label="time limit")
    total = per_instance.groupby("entrant").size().max() if len(per_instance) else 0
    ax.set_xlim(0, total + 1)
    ax.set_yscale("log")
    ax.set_xlabel(f"instances solved (of {total}, all n)")
    ax.set_ylabel("wall time per solve (s, log scale)")
    ax.legend(loc="upper left", framealpha=0.9)
    ax.set_title("Cactus plot")
    return fig


WORK = [("nodes", "search-tree nodes"), ("updates", "DLX link updates"),
        ("conflicts", "CDCL conflicts")]


def work_figure(campaign: analysis.Campaign, table: pd.DataFrame | None = None) -> Figure:
    """Median work counters over solved instances vs n, one panel per counter (log y)."""
    table = analysis.summary(campaign) if table is None else table
    entrants = campaign.entrants
    fig, axes = plt.subplots(1, len(WORK), figsize=(7.0, 2.7))
    for ax, (counter, title) in zip(axes, WORK):
        drawn = zero = False
        for i, entrant in enumerate(entrants):
            rows = table[table["entrant"] == entrant].sort_values("n")
            y = rows[counter].to_numpy(dtype=float)
            keep = np.isfinite(y) & (y >= 0)
            if keep.any():
                zero = zero or bool((y[keep] == 0).any())
                ax.plot(rows["n"].to_numpy(dtype=float)[keep] + _dodge(i, len(entrants), 0.05), y[keep],
                        label=entrant, **style(i))
                drawn = True
        if drawn:
            if zero:  # a median of 0 (e.g. no conflicts) stays visible on a symlog axis
                ax.set_yscale("symlog", linthresh=1)
                ax.set_ylim(bottom=0)
            else:
                ax.set_yscale("log")
            ax.legend(loc="upper left", fontsize=7, framealpha=0.9)
        else:
            ax.text(0.5, 0.5, f"no entrant reports\n{counter}", ha="center", va="center",
                    transform=ax.transAxes, color="0.4")
        _n_axis(ax, campaign.n_values)
        ax.set_xlabel("n")
        ax.set_xticklabels([str(n) for n in campaign.n_values])
        ax.set_title(f"{title} (median)")
        ax.set_ylabel(f"{counter} per solve (log)" if drawn else "")
    fig.tight_layout()
    return fig


def sat_entrants(campaign: analysis.Campaign) -> list[str]:
    """Entrants that report a CNF encoding phase (the SAT entrants)."""
    runs = campaign.runs
    return [e for e in campaign.entrants
            if runs.loc[runs["entrant"] == e, "t_encode"].notna().any()]


def phases_figure(campaign: analysis.Campaign, table: pd.DataFrame | None = None) -> Figure:
    """Stacked bars: share of each phase in the median solve of every SAT entrant at every n,
    the bar labelled with the sum of the phase medians."""
    table = analysis.summary(campaign) if table is None else table
    entrants = sat_entrants(campaign)
    fig, ax = plt.subplots(figsize=(7.0, 2.9))
    if not entrants:
        ax.text(0.5, 0.5, "no SAT entrant in this campaign", ha="center", va="center",
                transform=ax.transAxes, color="0.4")
        ax.set_axis_off()
        return fig
    phases = [p for p in analysis.PHASES if table.loc[table["entrant"].isin(entrants), p].notna().any()]
    labels, positions, x = [], [], 0.0
    bottoms: list[float] = []
    bars: list[tuple[float, dict[str, float]]] = []
    for entrant in entrants:
        rows = table[table["entrant"] == entrant].sort_values("n")
        for row in rows.itertuples():
            values = {p: float(getattr(row, p)) for p in phases}
            if all(math.isnan(v) for v in values.values()):
                continue
            bars.append((x, values))
            labels.append(f"{entrant}\nn={row.n}")
            positions.append(x)
            x += 1
        x += 0.6
    for j, phase in enumerate(phases):
        bottoms = [0.0] * len(bars) if j == 0 else bottoms
        heights = []
        for k, (_, values) in enumerate(bars):
            total = sum(v for v in values.values() if not math.isnan(v))
            heights.append(100 * (values[phase] if not math.isnan(values[phase]) else 0.0) / total
                           if total > 0 else 0.0)
        ax.bar(positions, heights, bottom=bottoms, width=0.8, label=PHASE_NAMES[phase],
               color=str(0.15 + 0.7 * j / max(1, len(phases) - 1)), hatch=HATCHES[j % len(HATCHES)],
               edgecolor="black", linewidth=0.5)
        bottoms = [b + h for b, h in zip(bottoms, heights)]
    for pos, (_, values) in zip(positions, bars):
        total = sum(v for v in values.values() if not math.isnan(v))
        ax.text(pos, 102, analysis.format_seconds(total), ha="center", va="bottom", fontsize=6.5)
    ax.set_xticks(positions)
    ax.set_xticklabels(labels, fontsize=7)
    ax.set_ylim(0, 118)
    ax.set_ylabel("share of median time (%)")
    ax.set_title("Where SAT time goes (label: sum of phase medians)", pad=4)
    ax.grid(axis="x", visible=False)
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), framealpha=0.9)
    return fig


def plot_all(campaign: analysis.Campaign, outdir: str | Path,
             formats: tuple[str, ...] = ("pdf", "png")) -> list[Path]:
    """Write every figure of :data:`FIGURES` as ``outdir/<name>.<fmt>``; return the paths."""
    out = Path(outdir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RaceError(f"{out}: cannot create output directory ({exc.strerror})") from None
    table = analysis.summary(campaign)
    written: list[Path] = []
    with plt.rc_context(STYLE):
        builders = {
            "runtime": lambda: runtime_figure(campaign, table),
            "solved": lambda: solved_figure(campaign, table),
            "cactus": lambda: cactus_figure(campaign),
            "work": lambda: work_figure(campaign, table),
            "phases": lambda: phases_figure(campaign, table),
        }
        for name, build in builders.items():
            fig = build()
            fig.text(0.995, 0.005, f"campaign {campaign.name}", ha="right", va="bottom",
                     fontsize=5.5, color="0.5")
            for fmt in formats:
                path = out / f"{name}.{fmt}"
                fig.savefig(path, dpi=150 if fmt == "png" else None,
                            metadata={"CreationDate": None} if fmt == "pdf" else None)
                written.append(path)
            plt.close(fig)
    return written
