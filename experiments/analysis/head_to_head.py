"""The per-instance head-to-head figure: two entrants' times on the same instances,
log-log, one panel per family (the report's scatter; ``race plot`` writes it too).

matplotlib is imported by the drawing functions only: choosing the pair
(:func:`head_to_head_pair`, which every run's summary asks) does not load it."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from experiments.analysis import statistics as analysis
from experiments.harness.schema import Status

if TYPE_CHECKING:
    from matplotlib.figure import Figure


#: grey level per n in the scatter (darker = larger n), cycled
N_GREYS = ["0.75", "0.55", "0.35", "0.0", "0.6", "0.4", "0.2"]


def head_to_head_pair(campaign: analysis.Campaign) -> tuple[str, str] | None:
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


#: how far the censored strip beyond each limit line reaches (a factor of the limit)
STRIP = 4.0


def _spread(count: int, limit: float, seed: int) -> np.ndarray:
    """``count`` positions inside the censored strip (limit .. limit * STRIP, log-uniform,
    seeded): censored points spread out instead of hiding each other on one spot."""
    rng = np.random.default_rng(seed)
    return limit * STRIP ** rng.uniform(0.15, 0.85, count)


def _scatter_panel(ax, part: pd.DataFrame, ns: list[int], low: float, limit: float,
                   names: tuple[str, str]) -> None:
    """One family's pairs: filled markers measured; a censored time hollow in the shaded
    strip beyond its limit line (spread out), with the counts of censored pairs written out."""
    from experiments.analysis.figure_style import MARKERS
    from experiments.analysis.log_axes import log_scale
    counts = {"x": 0, "y": 0, "both": 0}
    for i, n in enumerate(ns):
        sub = part[part["n"] == n]
        if sub.empty:
            continue
        ta, tb = sub["time_a"].to_numpy(float), sub["time_b"].to_numpy(float)
        off_a, off_b = np.isinf(ta), np.isinf(tb)
        censored = off_a | off_b
        x = np.where(off_a, _spread(len(ta), limit, 2 * n), ta)
        y = np.where(off_b, _spread(len(tb), limit, 2 * n + 1), tb)
        counts["x"] += int((off_a & ~off_b).sum())
        counts["y"] += int((off_b & ~off_a).sum())
        counts["both"] += int((off_a & off_b).sum())
        grey, marker = N_GREYS[i % len(N_GREYS)], MARKERS[i % len(MARKERS)]
        ax.plot(x[~censored], y[~censored], linestyle="none", marker=marker, markersize=4.5,
                markerfacecolor=grey, markeredgecolor="black", markeredgewidth=0.5, label=f"n = {n}")
        ax.plot(x[censored], y[censored], linestyle="none", marker=marker, markersize=5,
                markerfacecolor="white", markeredgecolor="black", markeredgewidth=0.8, alpha=0.8)
    top = limit * STRIP
    ax.axvspan(limit, top, color="0.93", zorder=0, linewidth=0)
    ax.axhspan(limit, top, color="0.93", zorder=0, linewidth=0)
    ax.plot([low, limit], [low, limit], color="0.4", linewidth=0.8, linestyle="-")
    for line in (ax.axhline, ax.axvline):
        line(limit, color="0.3", linestyle=(0, (6, 3)), linewidth=0.9)
    log_scale(ax, "x")
    log_scale(ax)
    ax.set_xlim(low, top)
    ax.set_ylim(low, top)
    ax.set_aspect("equal")
    a, b = names
    said = [f"{a} only: {counts['x']}" if counts["x"] else "", f"{b} only: {counts['y']}" if counts["y"] else "",
            f"both: {counts['both']}" if counts["both"] else ""]
    said = [t for t in said if t]
    if said:
        ax.text(0.03, 0.97, "> limit (shaded strips)\n" + "\n".join(said), transform=ax.transAxes,
                ha="left", va="top", fontsize=6.5, color="0.25",
                bbox={"facecolor": "white", "edgecolor": "0.7", "linewidth": 0.5, "pad": 2})


def _raced(campaign: analysis.Campaign, pairs: pd.DataFrame,
           names: tuple[str, str]) -> tuple[pd.DataFrame, int]:
    """``pairs`` without those where either entrant's instance was skipped (never raced: it has
    no time, not a censored one), and how many were left out."""
    runs = campaign.runs
    gone = runs[runs["entrant"].isin(names) & (runs["status"] == Status.SKIPPED)]
    keys = set(zip(gone["family"], gone["n"], gone["instance"]))
    out = pd.Series([k in keys for k in zip(pairs["family"], pairs["n"], pairs["instance"])],
                    index=pairs.index, dtype=bool)
    return pairs[~out], int(out.sum())


def scatter_figure(campaign: analysis.Campaign, a: str | None = None, b: str | None = None,
                   width: float | None = None) -> Figure:
    """Per-instance head to head, log-log: A's time on x, B's on y, on the same instances
    (:func:`experiments.analysis.compare.paired_times`), one panel per family. A censored
    time sits in the shaded strip beyond the limit line of its axis (hollow marker, spread
    out; each panel counts them); marker shape and grey tone encode n; the diagonal marks
    equal times. ``width`` (inches): the figure's width, its panels stacked when side by side
    they would be narrower than 2 in; names longer than a legend's are cut (:func:`short_label`)."""
    from experiments.analysis.entrant_labels import short_label
    from experiments.analysis.figure_style import pyplot
    plt = pyplot()
    from matplotlib.lines import Line2D

    from experiments.analysis.compare import paired_times
    from experiments.analysis.figure_style import MARKERS, legend_below
    pair = (a, b) if a and b else head_to_head_pair(campaign)
    if pair is None:
        fig, ax = plt.subplots(figsize=(3.4, 1.2))
        ax.text(0.5, 0.5, "fewer than two entrants: no head to head", ha="center", va="center",
                transform=ax.transAxes, color="0.4")
        ax.set_axis_off()
        return fig
    a, b = pair
    pairs, skipped = _raced(campaign, paired_times(campaign, a, b), (a, b))
    families = list(dict.fromkeys(pairs["family"])) or campaign.families[:1]
    limit = campaign.timeout_s
    if width is not None and width / len(families) < 2.0:      # a column: the square panels stacked
        fig, stacked = plt.subplots(len(families), 1, figsize=(width, 3.0 * len(families)), squeeze=False)
        axes = stacked.T
    else:
        fig, axes = plt.subplots(1, len(families), figsize=(width or 3.3 * len(families) + 0.3, 3.4),
                                 squeeze=False)
    name_a, name_b = short_label(a), short_label(b)        # a whole command line is no axis label
    finite = np.concatenate([pairs["time_a"], pairs["time_b"]]).astype(float)
    finite = finite[np.isfinite(finite) & (finite > 0)]
    low = finite.min() / 2 if finite.size else limit / 1e3
    ns = sorted(pairs["n"].unique())
    for ax, family in zip(axes[0], families):
        part = pairs[pairs["family"] == family]
        _scatter_panel(ax, part, ns, low, limit, (name_a, name_b))
        ax.set_xlabel(f"{name_a}: wall time (s)")
        ax.set_ylabel(f"{name_b}: wall time (s)")
        above = int((part["time_b"] > part["time_a"]).sum())
        ax.set_title(f"{family} ({len(part)} instances; {name_b} slower on {above})" if len(families) > 1
                     else f"{name_b} vs {name_a} per instance, {family} puzzles ({name_b} slower on {above} "
                          f"of {len(part)})")
    handles = [Line2D([], [], linestyle="none", marker=MARKERS[i % len(MARKERS)], markersize=4.5,
                      markerfacecolor=N_GREYS[i % len(N_GREYS)], markeredgecolor="black") for i in range(len(ns))]
    labels = [f"n = {n}" for n in ns]
    if np.isinf(pairs[["time_a", "time_b"]].to_numpy(float)).any():   # only when one is drawn
        handles.append(Line2D([], [], linestyle="none", marker="o", markerfacecolor="white",
                              markeredgecolor="black", markersize=5.5))
        labels.append("censored (in the strip beyond the limit)")
    handles.append(Line2D([], [], color="0.3", linestyle=(0, (6, 3)), linewidth=0.9))
    labels.append(f"time limit ({analysis.format_seconds(limit)})")
    if skipped:                   # never raced: no time, so no point (not a censored one)
        handles.append(Line2D([], [], linestyle="none"))
        labels.append(f"left out: {skipped} pair(s) with a skipped side")
    legend_below(fig, handles, labels, min(len(labels), 4))
    return fig
