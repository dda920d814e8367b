"""Figures of a race campaign (matplotlib, Agg backend), saved as PDF and PNG.

Every figure reads in greyscale: each entrant keeps one marker, one line
style and one colour across all figures; bars carry hatches. Axes are
labelled with units; entrants are named as on the command line. Censored
values (no answer within the limit) are never drawn as measurements: a censored
median is a hollow marker on the time-limit line (it is only known to be beyond it).
Values are drawn where they are: entrants at the same n are set apart along x only.
Each figure names its family and, under everything, its campaign.

``width`` (inches, ``race plot --width``): each figure laid out for that width, its type
8 to 10 points, so that it reads at its own size in a column (3.3 in) or across a page
(6.8 in); without it, each figure takes the size it needs.

:func:`plot_all` writes all of them; each ``*_figure`` function returns one
matplotlib Figure built from a :class:`experiments.analysis.statistics.Campaign`.
"""

from __future__ import annotations

import math
import textwrap

from pathlib import Path

from typing import TYPE_CHECKING, Callable, Iterable

import numpy as np
import pandas as pd

from experiments.analysis import statistics as analysis
from experiments.analysis import skipped_cells, virtual_best
from experiments.analysis.entrant_labels import short_label
from experiments.analysis.figure_style import (PRINT_SIZES, STYLE, campaign_styles, caption_below,
                                               family_title, fit_width, legend_below, pyplot,
                                               save_failure, save_figure, strip_top, tight_box)
from experiments.analysis.phase_plots import PHASE_NAMES, phases_figure  # noqa: F401
from formats.errors import RaceError, write_reason

if TYPE_CHECKING:
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

#: figure name -> what it shows (the file stem of the PDF and PNG)
FIGURES: dict[str, str] = {
    "runtime": "median wall time vs n with IQR band, censored medians at the limit (and the virtual best)",
    "solved": "fraction of instances solved within the limit vs n (and the virtual best)",
    "cactus": "instances solved vs time (all n together; and the virtual best)",
    "work": "work counters (nodes, updates, conflicts) vs n",
    "phases": "SAT phase split (check/encode/write/search/decode/verify) per n",
    "scatter": "per-instance head to head of two entrants (dlx vs sat by default), log-log",
}

def _dodge(index: int, count: int, width: float = 0.07) -> float:
    """Small x offset so markers of different entrants at the same n do not hide each other."""
    return (index - (count - 1) / 2) * width


#: up to this many n on an axis, each tick also names the grid size (more would overlap)
GRID_SIZE_TICKS = 5


#: the least room (inches) per tick for a tick that also names the grid size
GRID_SIZE_ROOM = 0.45
#: the least room (inches) per named tick: closer ticks name every second (third, ...) n
TICK_ROOM = 0.17


def _n_axis(ax, ns: list[int]) -> None:
    room = ax.get_position().width * ax.figure.get_size_inches()[0] / max(len(ns), 1)
    ax.set_xticks(ns)
    step = max(1, math.ceil(TICK_ROOM / room)) if room > 0 else 1    # crowded: every step-th n named
    ax.set_xticklabels([f"{n}\n({n * n}×{n * n})" for n in ns]
                       if len(ns) <= GRID_SIZE_TICKS and room >= GRID_SIZE_ROOM else
                       [str(n) if k % step == 0 else "" for k, n in enumerate(ns)])
    ax.set_xlabel("box size n (grid n²×n²)" if room * max(len(ns), 1) >= 1.8 else "box size n")
    if ns:
        ax.set_xlim(min(ns) - 0.4, max(ns) + 0.4)


def _family_axes(campaign: analysis.Campaign, width: float, height: float, sharey: bool = True,
                 fixed: float | None = None):
    """A figure with one panel per family (one panel for a one-family campaign), ``fixed``
    inches wide in all when given."""
    plt = pyplot()
    families = campaign.families
    if fixed is not None:
        width = fixed
    fig, axes = plt.subplots(1, len(families), figsize=(width if len(families) == 1 or fixed else 0.62 * width * len(families),
                                                      height), sharey=sharey, squeeze=False)
    return fig, list(zip(families, axes[0]))


def _family_rows(table: pd.DataFrame, family: str, entrant: str) -> pd.DataFrame:
    rows = table[table["entrant"] == entrant]
    if "family" in rows.columns:
        rows = rows[rows["family"] == family]
    return rows.sort_values("n")


def _runtime_panel(ax, table: pd.DataFrame, family: str, entrants: list[str], styles: dict,
                   limit: float) -> list:
    """One family's medians; a censored median is a hollow marker at the limit, joined to the
    measured ones by a thin dotted line."""
    from experiments.analysis.log_axes import log_scale
    handles = []
    for i, entrant in enumerate(entrants):
        rows = _family_rows(table, family, entrant)
        x = rows["n"].to_numpy(dtype=float) + _dodge(i, len(entrants))
        med = rows["median_s"].to_numpy(dtype=float)
        q25, q75 = rows["q25_s"].to_numpy(dtype=float), rows["q75_s"].to_numpy(dtype=float)
        st = styles[entrant].matplotlib()
        finite, censored = np.isfinite(med), np.isinf(med)
        # the measured medians: a line that breaks where the median is censored
        (line,) = ax.plot(x, np.where(finite, med, np.nan), **st)
        handles.append(line)
        if censored.any():
            ax.plot(x, np.where(censored, limit, med), color=st["color"], linestyle=":", linewidth=0.9)
            ax.plot(x[censored], np.full(censored.sum(), limit), linestyle="none", marker=st["marker"],
                    markersize=5, markerfacecolor="white", markeredgecolor=st["color"],
                    markeredgewidth=1.2, zorder=3)
        band = np.isfinite(q25)
        if band.any():
            ax.fill_between(x, np.where(band, q25, np.nan), np.where(band, np.minimum(q75, limit), np.nan),
                            color=st["color"], alpha=0.15, linewidth=0)
    ax.axhline(limit, color="0.3", linestyle=(0, (6, 3)), linewidth=0.9)
    log_scale(ax)
    return handles


def censored_strip(ax, rows_above: dict[str, float], limit: float, low: float) -> None:
    """Shade the strip above ``limit`` that holds censored values (one row per entrant of
    ``rows_above``), label it "> limit" and keep the y ticks to measured times (at most
    ``limit``), the axis from ``low`` up to the strip's top."""
    from matplotlib.ticker import FixedLocator, LogLocator
    top = strip_top(rows_above, limit)
    ax.set_ylim(low, top)
    if rows_above:
        ax.axhspan(limit, top, color="0.94", zorder=0, linewidth=0)
        ax.text(0.01, (limit * top) ** 0.5, f"> {analysis.format_seconds(limit)}",
                transform=ax.get_yaxis_transform(), ha="left", va="center", fontsize=6.5, color="0.35")
    for locator, axis_set in ((LogLocator(), ax.yaxis.set_major_locator),
                              (LogLocator(subs="auto"), ax.yaxis.set_minor_locator)):
        ticks = [t for t in locator.tick_values(low, limit) if low <= t <= limit * 1.0001]
        axis_set(FixedLocator(ticks))


def _lowest(table: pd.DataFrame, limit: float) -> float:
    """The axis bottom for the medians and quartiles of ``table`` (half the smallest)."""
    values = table[["median_s", "q25_s"]].to_numpy(dtype=float).ravel()
    values = values[np.isfinite(values) & (values > 0)]
    return float(values.min()) / 1.6 if values.size else limit / 1e3


def with_virtual_best(campaign: analysis.Campaign, table: pd.DataFrame,
                      per_instance: pd.DataFrame | None = None) -> tuple[pd.DataFrame, list[str]]:
    """``table`` with the virtual best solver's rows appended and the entrants to draw
    (the VBS last, so it takes the next style) when the campaign has two entrants or more;
    ``per_instance``: the campaign's :func:`analysis.instance_times`, when at hand. A VBS row
    where every entrant was skipped is left out, like theirs."""
    entrants = list(campaign.entrants)
    if not virtual_best.applies(campaign):
        return table, entrants
    best = skipped_cells.drawn(virtual_best.summary(campaign, per_instance))
    return pd.concat([table, best], ignore_index=True), entrants + [virtual_best.NAME]


def runtime_figure(campaign: analysis.Campaign, table: pd.DataFrame | None = None,
                   per_instance: pd.DataFrame | None = None, width: float | None = None) -> Figure:
    """Median wall time per solve vs n (log y), IQR band, the limit as a dashed line; a
    censored median is a hollow marker drawn at the limit, joined by a thin dotted line; one
    panel per instance family."""
    from matplotlib.lines import Line2D
    table = analysis.summary(campaign) if table is None else table
    limit = campaign.timeout_s
    left_out = textwrap.fill(skipped_cells.note(table), 60)    # a legend entry: no wider
    table, entrants = with_virtual_best(campaign, skipped_cells.drawn(table), per_instance)
    styles = campaign_styles(campaign)
    censored = [e for e in entrants if np.isinf(table.loc[table["entrant"] == e, "median_s"].to_numpy(float)).any()]
    low = _lowest(table, limit)
    fig, panels = _family_axes(campaign, 6.4, 3.4, fixed=width)
    handles: list = []
    for family, ax in panels:
        handles = _runtime_panel(ax, table, family, entrants, styles, limit) or handles
        censored_strip(ax, {}, limit, low)              # ticks up to the limit, room above it
        _n_axis(ax, campaign.family(family).n_values)
        if len(panels) > 1:
            ax.set_title(family_title(campaign, family))
    panels[0][1].set_ylabel("wall time per solve (s, log scale)")
    labels = [short_label(e) for e in entrants]
    handles.append(Line2D([], [], color="0.3", linestyle=(0, (6, 3)), linewidth=0.9))
    labels.append(f"time limit ({analysis.format_seconds(limit)})")
    if censored:                          # the censored marker only when one is drawn
        handles.append(Line2D([], [], linestyle="none", marker="o", markerfacecolor="white",
                              markeredgecolor="0.3", markersize=6))
        labels.append("median > limit (censored; drawn at the limit)")
    if left_out:                          # a skipped cell is no censored time: not drawn, named
        handles.append(Line2D([], [], linestyle="none"))
        labels.append(left_out)
    legend_below(fig, handles, labels, 3 if len(panels) == 1 else 5)
    title = "Median time per instance (band: interquartile range)"
    if len(panels) == 1:
        panels[0][1].set_title(f"{title}, {family_title(campaign, panels[0][0])}")
    else:
        fig.suptitle(title, y=1.02)
    return fig


def solved_figure(campaign: analysis.Campaign, table: pd.DataFrame | None = None,
                  per_instance: pd.DataFrame | None = None, width: float | None = None) -> Figure:
    """Fraction of instances solved (verified) within the limit vs n, one panel per family."""
    from matplotlib.lines import Line2D
    table = analysis.summary(campaign) if table is None else table
    left_out = textwrap.fill(skipped_cells.note(table), 60)    # a legend entry: no wider
    table, entrants = with_virtual_best(campaign, skipped_cells.drawn(table), per_instance)
    styles = campaign_styles(campaign)
    fig, panels = _family_axes(campaign, 3.9, 2.8, fixed=width)
    for family, ax in panels:
        for i, entrant in enumerate(entrants):
            rows = _family_rows(table, family, entrant)
            # the share where it is; entrants at the same n apart along x only
            ax.plot(rows["n"].to_numpy(dtype=float) + _dodge(i, len(entrants), 0.05),
                    rows["solved_frac"].to_numpy(dtype=float) * 100, label=short_label(entrant),
                    **styles[entrant].matplotlib())
        ax.set_ylim(-5, 105)
        _n_axis(ax, campaign.family(family).n_values)
        ax.set_title(f"Solved within the limit, {family_title(campaign, family)}" if len(panels) == 1
                     else f"{family}: solved")
    panels[0][1].set_ylabel(f"solved within {analysis.format_seconds(campaign.timeout_s)} (%)")
    handles, labels = panels[0][1].get_legend_handles_labels()
    if left_out:                          # a skipped cell is not 0 % solved: not drawn, named
        handles, labels = handles + [Line2D([], [], linestyle="none")], labels + [left_out]
    legend_below(fig, handles, labels, 2 if len(panels) == 1 else 4)
    return fig


def cactus_figure(campaign: analysis.Campaign, per_instance: pd.DataFrame | None = None,
                  width: float | None = None) -> Figure:
    """Cactus plot: for each entrant, the k-th fastest solved instance (all n) at x = k
    (``per_instance``: the campaign's :func:`analysis.instance_times`, when at hand)."""
    from experiments.analysis.log_axes import log_scale
    from matplotlib.lines import Line2D
    plt = pyplot()
    per_instance = analysis.instance_times(campaign.runs) if per_instance is None else per_instance
    entrants = list(campaign.entrants)
    if virtual_best.applies(campaign):
        best = virtual_best.best_times(per_instance, entrants).assign(entrant=virtual_best.NAME)
        per_instance = pd.concat([per_instance, best[["entrant", *virtual_best.KEYS, "time"]]],
                                 ignore_index=True)
        entrants.append(virtual_best.NAME)
    styles = campaign_styles(campaign)
    fig, ax = plt.subplots(figsize=(width or 3.9, 2.8))
    handles, labels = [], []
    for entrant in entrants:
        times = np.sort(per_instance.loc[per_instance["entrant"] == entrant, "time"].to_numpy(float))
        times = times[np.isfinite(times)]
        st = styles[entrant].matplotlib()
        if times.size:
            ax.step(np.arange(1, times.size + 1), times, where="post", color=st["color"],
                    linestyle=st["linestyle"], linewidth=st["linewidth"])
            ax.plot(np.arange(1, times.size + 1), times, linestyle="none", marker=st["marker"],
                    color=st["color"], markersize=3.5, markevery=max(1, times.size // 6))
        handles.append(Line2D([], [], **st))
        labels.append(short_label(entrant))
    ax.axhline(campaign.timeout_s, color="0.3", linestyle=(0, (6, 3)), linewidth=0.9)
    handles.append(Line2D([], [], color="0.3", linestyle=(0, (6, 3)), linewidth=0.9))
    labels.append("time limit")
    total = per_instance.groupby("entrant").size().max() if len(per_instance) else 0
    ax.set_xlim(0, total + 1)
    log_scale(ax)
    ax.set_xlabel(f"instances solved (of {total}, all n)")
    ax.set_ylabel("wall time per solve (s, log scale)")
    legend_below(fig, handles, labels, 2)
    families = campaign.families
    ax.set_title(f"Cactus plot, {family_title(campaign, families[0])}" if len(families) == 1
                 else f"Cactus plot, all families ({', '.join(families)})", wrap=True)
    return fig


WORK = [("nodes", "search-tree nodes"), ("updates", "DLX link updates"),
        ("conflicts", "CDCL conflicts")]


def work_figure(campaign: analysis.Campaign, table: pd.DataFrame | None = None,
                width: float | None = None) -> Figure:
    """Median work counters over solved instances vs n, one panel per counter (log y;
    symlog when a median is 0; a note instead of a plot when every median is 0 or no
    entrant reports the counter) and one row of panels per instance family, one legend."""
    plt = pyplot()
    table = analysis.summary(campaign) if table is None else table
    families = campaign.families
    styles = campaign_styles(campaign)
    narrow = width is not None and width < 5.0      # a column: a row per counter, a column per family
    if narrow:
        fig, by_counter = plt.subplots(len(WORK), len(families), figsize=(width, 1.9 * len(WORK)),
                                       squeeze=False)
        grid = by_counter.T
    else:
        fig, grid = plt.subplots(len(families), len(WORK), figsize=(width or 7.0, 2.5 + 2.0 * (len(families) - 1)),
                                 squeeze=False)
    shown: dict[str, Line2D] = {}
    for row, family in enumerate(families):
        ns = campaign.family(family).n_values
        for ax, (counter, title) in zip(grid[row], WORK):
            drawn = _work_panel(ax, table, family, counter, campaign.entrants, styles, shown)
            _n_axis(ax, ns)
            ax.set_xlabel("box size n")
            ax.set_xticklabels([str(n) for n in ns])
            ax.set_title(title if len(families) == 1 else f"{family}: {title}")
            ax.set_ylabel(f"{counter} per solve" if drawn else "")
    fig.suptitle("Work per solve (median over solved instances)"
                 + (f", {family_title(campaign, families[0])}" if len(families) == 1 else ""))
    order = [e for e in campaign.entrants if e in shown] + [FEW] * (FEW in shown)
    few = textwrap.fill(FEW, 40) if narrow else FEW       # a column: the note on two lines
    legend_below(fig, [shown[e] for e in order], [short_label(e) if e != FEW else few for e in order], 4)
    return fig


#: the work figure's legend entry for a median taken over fewer than half the instances
FEW = "hollow: median over fewer than half the instances (the others unsolved)"


def _work_panel(ax, table: pd.DataFrame, family: str, counter: str, entrants: list[str], styles: dict,
                shown: dict[str, Line2D]) -> bool:
    """Draw ``counter``'s medians of ``family``; True when there is a curve to read."""
    from experiments.analysis.log_axes import log_scale
    from matplotlib.lines import Line2D
    series = []
    for i, entrant in enumerate(entrants):
        rows = _family_rows(table, family, entrant)
        y = rows[counter].to_numpy(dtype=float)
        keep = np.isfinite(y) & (y >= 0)
        if keep.any():
            few = rows["solved"].to_numpy(dtype=float) < rows["total"].to_numpy(dtype=float) / 2
            series.append((i, entrant, rows["n"].to_numpy(dtype=float), np.where(keep, y, np.nan),
                           few & keep))
    values = np.concatenate([y[np.isfinite(y)] for *_, y, _ in series]) if series else np.array([])
    if not values.size or not (values > 0).any():
        who = ", ".join(entrant for _, entrant, *_ in series)
        note = (f"no {counter}\n(every median is 0:\n{who})" if series
                else f"no entrant reports\n{counter}")
        ax.text(0.5, 0.5, note, ha="center", va="center", transform=ax.transAxes, color="0.35")
        ax.set_yticks([])
        ax.grid(False)
        return False
    for i, entrant, n, y, few in series:
        x, st = n + _dodge(i, len(entrants), 0.05), styles[entrant].matplotlib()
        (line,) = ax.plot(x, y, **st)
        shown.setdefault(entrant, line)
        if few.any():                     # a median of a few solved instances: marked hollow
            shown.setdefault(FEW, Line2D([], [], linestyle="none", marker="o", markersize=5,
                                         markerfacecolor="white", markeredgecolor="0.3"))
            ax.plot(x[few], y[few], linestyle="none", marker=st["marker"], markersize=6,
                    markerfacecolor="white", markeredgecolor=st["color"], zorder=3)
    if (values == 0).any():      # a median of 0 (e.g. no conflicts at small n) stays visible on symlog
        log_scale(ax, symlog=True, linthresh=1)
        ax.set_ylim(bottom=0)
    else:
        log_scale(ax)
    return True


def figure_builders(campaign: analysis.Campaign, table: pd.DataFrame | None = None,
                    per_instance: pd.DataFrame | None = None
                    ) -> dict[str, Callable[[float | None], "Figure"]]:
    """Each figure of :data:`FIGURES` by name: a function of the width (inches, or None) that
    draws it (on the current style)."""
    from experiments.analysis import head_to_head
    per_instance = analysis.instance_times(campaign.runs) if per_instance is None else per_instance
    table = analysis.summary(campaign, per_instance) if table is None else table
    return {
        "runtime": lambda width: runtime_figure(campaign, table, per_instance, width),
        "solved": lambda width: solved_figure(campaign, table, per_instance, width),
        "cactus": lambda width: cactus_figure(campaign, per_instance, width),
        "work": lambda width: work_figure(campaign, table, width),
        "phases": lambda width: phases_figure(campaign, table),
        "scatter": lambda width: head_to_head.scatter_figure(campaign, width=width),
    }


def chosen_figures(only: Iterable[str] | None) -> list[str]:
    """The names of :data:`FIGURES` to draw: all, or those of ``only`` (each checked; a
    RaceError names an unknown one and the known ones)."""
    if not only:
        return list(FIGURES)
    names = list(dict.fromkeys(only))
    unknown = [n for n in names if n not in FIGURES]
    if unknown:
        raise RaceError(f"no figure named {', '.join(repr(n) for n in unknown)}; the figures are "
                        f"{', '.join(FIGURES)}")
    return names


def draw(build: Callable[[float | None], "Figure"], caption: str, width: float | None = None) -> "Figure":
    """``build(width)``'s figure with ``caption`` under it, laid out for ``width`` inches when
    given (:func:`experiments.analysis.figure_style.fit_width`: type of 8 to 10 points)."""
    fig = build(width)
    if width is not None:
        fit_width(fig, width)
    caption_below(fig, caption, PRINT_SIZES[0] if width is not None else 5.5)
    return fig


def plot_all(campaign: analysis.Campaign, outdir: str | Path,
             formats: tuple[str, ...] = ("pdf", "png"), table: pd.DataFrame | None = None,
             per_instance: pd.DataFrame | None = None, width: float | dict[str, float] | None = None,
             only: Iterable[str] | None = None) -> list[Path]:
    """Write every figure of :data:`FIGURES` (or those named in ``only``) as
    ``outdir/<name>.<fmt>``; return the paths. ``table`` and ``per_instance``: the campaign's
    :func:`analysis.summary` and :func:`analysis.instance_times`, when the caller has them
    (computed here otherwise). ``width``: inches (one for all, or per figure name) each figure
    is laid out for (:func:`draw`); None: each takes the size it needs."""
    plt = pyplot()
    names = chosen_figures(only)
    out = Path(outdir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RaceError(f"{out}: cannot create output directory ({write_reason(exc)})") from None
    written: list[Path] = []
    with plt.rc_context(STYLE):
        builders = figure_builders(campaign, table, per_instance)
        for name in names:
            wide = width.get(name) if isinstance(width, dict) else width
            try:
                fig = draw(builders[name], f"campaign {campaign.name}", wide)
                box = tight_box(fig)
            except (MemoryError, OverflowError, ValueError) as exc:    # a figure too large to draw
                raise RaceError(f"cannot draw the figure ({save_failure(exc)})",
                                source=str(out / name)) from None
            for fmt in formats:
                path = out / f"{name}.{fmt}"
                save_figure(fig, path, dpi=150 if fmt == "png" else None, bbox_inches=box,
                            metadata={"CreationDate": None} if fmt == "pdf" else None)
                written.append(path)
            plt.close(fig)
    return written
