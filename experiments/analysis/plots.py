"""Figures of a race campaign (matplotlib, Agg backend), saved as PDF and PNG: a thin
renderer that draws the models of :mod:`experiments.analysis.figure_models` (what each
figure shows is computed there, once, for this renderer and the HTML page's).

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
matplotlib Figure built from a :class:`experiments.analysis.censored_stats.Campaign`.
"""

from __future__ import annotations

import dataclasses
import math
import textwrap
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from experiments.analysis import censored_stats
from experiments.analysis.figure_models import (  # noqa: F401
    FEW,
    WORK,
    FigureModel,
    Panel,
    Series,
    cactus_model,
    runtime_model,
    solved_model,
    with_virtual_best,
    work_model,
)
from experiments.analysis.figure_style import (  # noqa: F401
    NOTE_SIZE,
    PRINT_SIZES,
    STYLE,
    EntrantStyle,
    campaign_styles,
    caption_below,
    family_title,
    fit_width,
    legend_below,
    pyplot,
    save_failure,
    save_figure,
    strip_top,
    tight_box,
)
from experiments.analysis.phase_plots import PHASE_NAMES, phases_figure  # noqa: F401
from formats.errors import RaceError, write_reason

if TYPE_CHECKING:
    from matplotlib.artist import Artist
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: figure name -> what it shows (the file stem of the PDF and PNG)
FIGURES: dict[str, str] = {
    "runtime": "median wall time vs n with IQR band, censored medians at the limit (and the virtual best)",
    "solved": "fraction of instances solved within the limit vs n (and the virtual best)",
    "cactus": "instances solved vs time (all n together; and the virtual best)",
    "work": "work counters (nodes, updates, conflicts) vs n",
    "phases": "SAT phase split (check/encode/write/search/decode/verify) per n",
    "scatter": "per-instance head to head of two entrants (dlx vs sat by default), log-log",
}

#: up to this many n on an axis, each tick also names the grid size (more would overlap)
GRID_SIZE_TICKS = 5
#: the least room (inches) per tick for a tick that also names the grid size
GRID_SIZE_ROOM = 0.45
#: the least room (inches) per named tick: closer ticks name every second (third, ...) n
TICK_ROOM = 0.17
#: the time-limit line
LIMIT_LINE: dict[str, Any] = {"color": "0.3", "linestyle": (0, (6, 3)), "linewidth": 0.9}


def _n_axis(ax: Axes, ns: list[int]) -> None:
    room = ax.get_position().width * ax.figure.bbox.width / ax.figure.dpi / max(len(ns), 1)
    ax.set_xticks(ns)
    step = max(1, math.ceil(TICK_ROOM / room)) if room > 0 else 1    # crowded: every step-th n named
    ax.set_xticklabels([f"{n}\n({n * n}×{n * n})" for n in ns]
                       if len(ns) <= GRID_SIZE_TICKS and room >= GRID_SIZE_ROOM else
                       [str(n) if k % step == 0 else "" for k, n in enumerate(ns)])
    ax.set_xlabel("box size n (grid n²×n²)" if room * max(len(ns), 1) >= 1.8 else "box size n")
    if ns:
        ax.set_xlim(min(ns) - 0.4, max(ns) + 0.4)


def _panel_ns(panel: Panel) -> list[int]:
    return [int(n) for n in panel.x.ticks or ()]


def _family_axes(count: int, width: float, height: float, fixed: float | None = None
                 ) -> tuple[Figure, list[Axes]]:
    """A figure with ``count`` panels side by side sharing y, ``fixed`` inches wide in all when given."""
    plt = pyplot()
    if fixed is not None:
        width = fixed
    fig, axes = plt.subplots(1, count, figsize=(width if count == 1 or fixed else 0.62 * width * count, height),
                             sharey=True, squeeze=False)
    return fig, list(axes[0])


def _line(ax: Axes, series: Series, style: EntrantStyle, limit: float | None) -> Artist:
    """One entrant's series: its line, its censored points hollow on the limit line (joined by
    a thin dotted line), its band, its other hollow points; the line returned for a legend."""
    st = style.matplotlib()
    x, y = series.drawn_x, series.y
    (line,) = ax.plot(x, y, label=series.label, **st)
    censored = series.marked(series.censored)
    if censored.any() and limit is not None:
        ax.plot(x, np.where(censored, limit, y), color=st["color"], linestyle=":", linewidth=0.9)
        ax.plot(x[censored], np.full(int(censored.sum()), limit), linestyle="none", marker=st["marker"],
                markersize=5, markerfacecolor="white", markeredgecolor=st["color"], markeredgewidth=1.2, zorder=3)
    hollow = series.marked(series.hollow)
    if hollow.any():
        ax.plot(x[hollow], y[hollow], linestyle="none", marker=st["marker"], markersize=6,
                markerfacecolor="white", markeredgecolor=st["color"], zorder=3)
    if series.band is not None and np.isfinite(series.band[0]).any():
        ax.fill_between(x, series.band[0], series.band[1], color=st["color"], alpha=0.15, linewidth=0)
    return line


def _legend_handle(**style: Any) -> Artist:
    from matplotlib.lines import Line2D
    return Line2D([], [], **style)


def censored_strip(ax: Axes, rows_above: dict[str, float], limit: float, low: float) -> None:
    """Shade the strip above ``limit`` that holds censored values (one row per entrant of
    ``rows_above``), label it "> limit" and keep the y ticks to measured times (at most
    ``limit``), the axis from ``low`` up to the strip's top."""
    from matplotlib.ticker import FixedLocator, LogLocator
    top = strip_top(rows_above, limit)
    ax.set_ylim(low, top)
    if rows_above:
        ax.axhspan(limit, top, color="0.94", zorder=0, linewidth=0)
        ax.text(0.01, (limit * top) ** 0.5, f"> {censored_stats.format_seconds(limit)}",
                transform=ax.get_yaxis_transform(), ha="left", va="center", fontsize=NOTE_SIZE, color="0.35")
    for locator, axis_set in ((LogLocator(), ax.yaxis.set_major_locator),
                              (LogLocator(subs="auto"), ax.yaxis.set_minor_locator)):
        ticks = [t for t in locator.tick_values(low, limit) if low <= t <= limit * 1.0001]
        axis_set(FixedLocator(ticks))


def _legend(fig: Figure, shown: dict[str, Artist], model: FigureModel, extra: list[tuple[Artist, str]],
            columns: int) -> None:
    """The entrants drawn (in model order), ``extra`` entries, then the model's notes (no handle)."""
    order = sorted(shown, key=lambda key: model.keys.index(key) if key in model.keys else len(model.keys))
    handles, labels = [shown[key] for key in order], [_label(model, key) for key in order]
    for handle, label in extra:
        handles.append(handle)
        labels.append(label)
    for note in model.notes:
        handles.append(_legend_handle(linestyle="none"))
        labels.append(note)
    legend_below(fig, handles, labels, columns)


def _label(model: FigureModel, key: str) -> str:
    return next(s.label for _, s in model.series if s.key == key)


def draw_runtime(model: FigureModel, styles: dict[str, EntrantStyle], width: float | None = None) -> Figure:
    """The runtime model: medians and bands, censored medians hollow at the limit, one panel
    per family, the limit dashed."""
    from experiments.analysis.log_axes import log_scale
    limit = model.limit if model.limit is not None else math.inf
    fig, axes = _family_axes(len(model.panels), 6.4, 3.4, fixed=width)
    shown: dict[str, Artist] = {}
    for panel, ax in zip(model.panels, axes):
        for series in panel.series:
            shown.setdefault(series.key, _line(ax, series, styles[series.key], limit))
        ax.axhline(limit, **LIMIT_LINE)
        log_scale(ax)
        low = panel.y.limits[0] if panel.y.limits else limit / 1e3
        censored_strip(ax, {}, limit, low)              # ticks up to the limit, room above it
        _n_axis(ax, _panel_ns(panel))
        if len(axes) > 1:
            ax.set_title(panel.title)
    axes[0].set_ylabel(model.panels[0].y.label)
    extra = [(_legend_handle(**LIMIT_LINE), f"time limit ({censored_stats.format_seconds(limit)})")]
    if model.has_censored():              # the censored marker only when one is drawn
        extra.append((_legend_handle(linestyle="none", marker="o", markerfacecolor="white",
                                     markeredgecolor="0.3", markersize=6),
                      "median > limit (censored; drawn at the limit)"))
    _legend(fig, shown, model, extra, 3 if len(axes) == 1 else 5)
    if len(axes) == 1:
        axes[0].set_title(model.title)
    else:
        fig.suptitle(model.title, y=1.02)
    return fig


def draw_solved(model: FigureModel, styles: dict[str, EntrantStyle], width: float | None = None) -> Figure:
    """The solved model: the share solved per n, one panel per family."""
    fig, axes = _family_axes(len(model.panels), 3.9, 2.8, fixed=width)
    shown: dict[str, Artist] = {}
    for panel, ax in zip(model.panels, axes):
        for series in panel.series:
            shown.setdefault(series.key, _line(ax, series, styles[series.key], None))
        if panel.y.limits:
            ax.set_ylim(*panel.y.limits)
        _n_axis(ax, _panel_ns(panel))
        ax.set_title(panel.title)
    axes[0].set_ylabel(model.panels[0].y.label)
    _legend(fig, shown, model, [], 2 if len(axes) == 1 else 4)
    return fig


def draw_cactus(model: FigureModel, styles: dict[str, EntrantStyle], width: float | None = None) -> Figure:
    """The cactus model: each entrant's sorted answered times as a step line."""
    from experiments.analysis.log_axes import log_scale
    fig, ax = pyplot().subplots(figsize=(width or 3.9, 2.8))
    (panel,) = model.panels
    shown: dict[str, Artist] = {}
    for series in panel.series:
        st = styles[series.key].matplotlib()
        if len(series.x):
            ax.step(series.x, series.y, where="post", color=st["color"], linestyle=st["linestyle"],
                    linewidth=st["linewidth"])
            ax.plot(series.x, series.y, linestyle="none", marker=st["marker"], color=st["color"],
                    markersize=3.5, markevery=max(1, len(series.x) // 6))
        shown[series.key] = _legend_handle(**st)
    if model.limit is not None:
        ax.axhline(model.limit, **LIMIT_LINE)
    if panel.x.limits:
        ax.set_xlim(*panel.x.limits)
    log_scale(ax)
    ax.set_xlabel(panel.x.label)
    ax.set_ylabel(panel.y.label)
    _legend(fig, shown, model, [(_legend_handle(**LIMIT_LINE), "time limit")], 2)
    ax.set_title(model.title, wrap=True)
    return fig


def draw_work(model: FigureModel, styles: dict[str, EntrantStyle], width: float | None = None) -> Figure:
    """The work model: a row of counter panels per family (a column of them per family when
    ``width`` is a column's), log y (symlog where a median is 0), a note for an empty panel."""
    from experiments.analysis.log_axes import log_scale
    plt = pyplot()
    families = max(len(model.panels) // len(WORK), 1)
    narrow = width is not None and width < 5.0      # a column: a row per counter, a column per family
    if narrow and width is not None:
        fig, by_counter = plt.subplots(len(WORK), families, figsize=(width, 1.9 * len(WORK)), squeeze=False)
        grid = by_counter.T
    else:
        fig, grid = plt.subplots(families, len(WORK), figsize=(width or 7.0, 2.5 + 2.0 * (families - 1)),
                                 squeeze=False)
    shown: dict[str, Artist] = {}
    for k, panel in enumerate(model.panels):
        ax = grid[k // len(WORK)][k % len(WORK)]
        for series in panel.series:
            shown.setdefault(series.key, _line(ax, series, styles[series.key], None))
        if panel.note:
            ax.text(0.5, 0.5, panel.note, ha="center", va="center", transform=ax.transAxes, color="0.35")
            ax.set_yticks([])
            ax.grid(False)
        elif panel.y.scale == "symlog":     # a median of 0 (no conflicts at small n) stays visible
            log_scale(ax, symlog=True, linthresh=1)
            ax.set_ylim(bottom=0)
        else:
            log_scale(ax)
        ns = _panel_ns(panel)
        _n_axis(ax, ns)
        ax.set_xlabel(panel.x.label)
        ax.set_xticklabels([str(n) for n in ns])
        ax.set_title(panel.title)
        ax.set_ylabel(panel.y.label)
    fig.suptitle(model.title)
    few = [(_legend_handle(linestyle="none", marker="o", markersize=5, markerfacecolor="white",
                           markeredgecolor="0.3"), textwrap.fill(FEW, 40) if narrow else FEW)] if FEW in model.notes else []
    shown_model = dataclasses.replace(model, notes=tuple(n for n in model.notes if n != FEW))
    _legend(fig, shown, shown_model, few, 4)
    return fig


def runtime_figure(campaign: censored_stats.Campaign, table: pd.DataFrame | None = None,
                   per_instance: pd.DataFrame | None = None, width: float | None = None) -> Figure:
    """Median wall time per solve vs n (log y), IQR band, the limit as a dashed line; a
    censored median is a hollow marker drawn at the limit, joined by a thin dotted line; one
    panel per instance family."""
    per_instance = censored_stats.instance_times(campaign.runs) if per_instance is None else per_instance
    table = censored_stats.summary(campaign, per_instance) if table is None else table
    return draw_runtime(runtime_model(campaign, table, per_instance), campaign_styles(campaign), width)


def solved_figure(campaign: censored_stats.Campaign, table: pd.DataFrame | None = None,
                  per_instance: pd.DataFrame | None = None, width: float | None = None) -> Figure:
    """Fraction of instances solved (verified) within the limit vs n, one panel per family."""
    table = censored_stats.summary(campaign) if table is None else table
    return draw_solved(solved_model(campaign, table, per_instance), campaign_styles(campaign), width)


def cactus_figure(campaign: censored_stats.Campaign, per_instance: pd.DataFrame | None = None,
                  width: float | None = None) -> Figure:
    """Cactus plot: for each entrant, the k-th fastest solved instance (all n) at x = k
    (``per_instance``: the campaign's :func:`censored_stats.instance_times`, when at hand)."""
    per_instance = censored_stats.instance_times(campaign.runs) if per_instance is None else per_instance
    return draw_cactus(cactus_model(campaign, per_instance), campaign_styles(campaign), width)


def work_figure(campaign: censored_stats.Campaign, table: pd.DataFrame | None = None,
                width: float | None = None) -> Figure:
    """Median work counters over solved instances vs n, one panel per counter (log y;
    symlog when a median is 0; a note instead of a plot when every median is 0 or no
    entrant reports the counter) and one row of panels per instance family, one legend."""
    table = censored_stats.summary(campaign) if table is None else table
    return draw_work(work_model(campaign, table), campaign_styles(campaign), width)


def figure_builders(campaign: censored_stats.Campaign, table: pd.DataFrame | None = None,
                    per_instance: pd.DataFrame | None = None
                    ) -> dict[str, Callable[[float | None], Figure]]:
    """Each figure of :data:`FIGURES` by name: a function of the width (inches, or None) that
    draws it (on the current style)."""
    from experiments.analysis import head_to_head
    per_instance = censored_stats.instance_times(campaign.runs) if per_instance is None else per_instance
    table = censored_stats.summary(campaign, per_instance) if table is None else table
    return {
        "runtime": lambda width: runtime_figure(campaign, table, per_instance, width),
        "solved": lambda width: solved_figure(campaign, table, per_instance, width),
        "cactus": lambda width: cactus_figure(campaign, per_instance, width),
        "work": lambda width: work_figure(campaign, table, width),
        "phases": lambda width: phases_figure(campaign, table, width),
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


def draw(build: Callable[[float | None], Figure], caption: str, width: float | None = None) -> Figure:
    """``build(width)``'s figure with ``caption`` under it, laid out for ``width`` inches when
    given (:func:`experiments.analysis.figure_style.fit_width`: type of 8 to 10 points)."""
    fig = build(width)
    if width is not None:
        fit_width(fig, width)
    caption_below(fig, caption, PRINT_SIZES[0] if width is not None else 5.5)
    return fig


def plot_all(campaign: censored_stats.Campaign, outdir: str | Path,
             formats: tuple[str, ...] = ("pdf", "png"), table: pd.DataFrame | None = None,
             per_instance: pd.DataFrame | None = None, width: float | dict[str, float] | None = None,
             only: Iterable[str] | None = None) -> list[Path]:
    """Write every figure of :data:`FIGURES` (or those named in ``only``) as
    ``outdir/<name>.<fmt>``; return the paths. ``table`` and ``per_instance``: the campaign's
    :func:`censored_stats.summary` and :func:`censored_stats.instance_times`, when the caller has them
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
