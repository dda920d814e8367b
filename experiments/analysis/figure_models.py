"""What each figure of a campaign shows, computed once: its series (x/y points), its censored
marks, its axes, its title and its notes, as plain data (:class:`FigureModel`).

Two renderers draw these models and compute nothing of their own: matplotlib
(:mod:`experiments.analysis.plots`, the PNG/PDF files and the LaTeX report) and plotly
(:mod:`experiments.report.html_figures`, the HTML page). A censored value (no answer
within the limit) is a mark, never a number averaged in: a series' ``y`` is NaN where its
``censored`` mask is set, and the renderers draw that point hollow at "> limit".

This module builds the runtime, solved, cactus and work figures from a campaign's summary
(:func:`experiments.analysis.censored_stats.summary`) and instance times; the phase split and
the head to head are built in :mod:`experiments.analysis.scatter_phase_models`, the hardness
landscape in :func:`experiments.analysis.landscape.landscape_model`.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd

from experiments.analysis import censored_stats, skipped_cells, virtual_best
from experiments.analysis.entrant_labels import short_label
from experiments.analysis.figure_style import family_title
from experiments.harness.schema import Status

Scale = Literal["linear", "log", "symlog", "category"]
Mark = Literal["line", "step", "bar", "points"]


def _no_mask() -> np.ndarray:
    return np.zeros(0, dtype=bool)


@dataclass(frozen=True, eq=False)
class Axis:
    """An axis: its label, scale (``symlog``: log with zeros shown), limits and ticks
    (None: the renderer's choice)."""

    label: str
    scale: Scale = "linear"
    limits: tuple[float, float] | None = None
    ticks: tuple[float, ...] | None = None


@dataclass(frozen=True, eq=False)
class Series:
    """One drawn series: ``x``/``y`` points (NaN ``y``: nothing drawn there), drawn at
    ``x + offset`` (entrants at one n set apart along x only). ``censored``: points known only
    to lie beyond the time limit (drawn hollow at "> limit"); ``hollow``: points drawn hollow
    for another reason the figure's notes give; ``band``: a shaded (low, high) range per point;
    ``rows``: the source row of each point (what a hover box tells)."""

    key: str
    label: str
    x: np.ndarray
    y: np.ndarray
    mark: Mark = "line"
    offset: float = 0.0
    censored: np.ndarray = field(default_factory=_no_mask)
    hollow: np.ndarray = field(default_factory=_no_mask)
    band: tuple[np.ndarray, np.ndarray] | None = None
    rows: pd.DataFrame | None = None

    @property
    def drawn_x(self) -> np.ndarray:
        """Where the points are drawn along x."""
        return np.asarray(self.x, dtype=float) + self.offset

    def marked(self, mask: np.ndarray) -> np.ndarray:
        """``mask`` as a boolean array as long as the series (all False when it is empty)."""
        return mask if len(mask) == len(self.x) else np.zeros(len(self.x), dtype=bool)


@dataclass(frozen=True, eq=False)
class Panel:
    """One panel: its series, axes and title; ``note`` is drawn instead of a plot when there
    is nothing to read; ``points`` one point per instance (for a page that tells each one on
    hover); ``labels`` texts written at x positions above the data (a bar's total); ``spans``
    x ranges (low, high) shaded behind the series (the landscape's hardness peak), named in
    the figure's notes; ``corner`` a text written in the panel's top left corner (the head to
    head's count of pairs beyond the limit)."""

    key: str
    title: str
    x: Axis
    y: Axis
    series: tuple[Series, ...] = ()
    note: str = ""
    points: tuple[Series, ...] = ()
    labels: tuple[tuple[float, str], ...] = ()
    spans: tuple[tuple[float, float], ...] = ()
    corner: str = ""


@dataclass(frozen=True, eq=False)
class FigureModel:
    """A figure: its panels, its title, the time limit drawn as a line (None: none) and
    ``notes`` (what the legend says besides the series: the cells left out, what hollow means);
    ``keys``: the series' keys in the legend's order (the campaign's entrants, the VBS last)."""

    name: str
    title: str
    panels: tuple[Panel, ...]
    limit: float | None = None
    notes: tuple[str, ...] = ()
    keys: tuple[str, ...] = ()

    @property
    def series(self) -> list[tuple[str, Series]]:
        """Every (panel key, series) of the figure, in drawing order."""
        return [(panel.key, s) for panel in self.panels for s in panel.series]

    def has_censored(self) -> bool:
        """Whether a censored mark is drawn anywhere."""
        return any(s.marked(s.censored).any() for _, s in self.series)

    def censored_keys(self) -> list[str]:
        """The keys of the series with a censored mark in some panel, in the legend's order
        (each gets a row of its own in a strip of censored values above the limit)."""
        marked = {s.key for _, s in self.series if s.marked(s.censored).any()}
        return [key for key in self.keys if key in marked]


#: the counters of the work figure, with their panel titles
WORK = [("nodes", "search-tree nodes"), ("updates", "DLX link updates"), ("conflicts", "CDCL conflicts")]
#: the work figure's note on a median taken over fewer than half the instances
FEW = "hollow: median over fewer than half the instances (the others unsolved)"


def dodge(index: int, count: int, width: float = 0.07) -> float:
    """Small x offset so markers of different entrants at the same n do not hide each other."""
    return (index - (count - 1) / 2) * width


def with_virtual_best(campaign: censored_stats.Campaign, table: pd.DataFrame,
                      per_instance: pd.DataFrame | None = None) -> tuple[pd.DataFrame, list[str]]:
    """``table`` with the virtual best solver's rows appended and the entrants to draw
    (the VBS last, so it takes the next style) when the campaign has two entrants or more;
    ``per_instance``: the campaign's :func:`censored_stats.instance_times`, when at hand. A VBS row
    where every entrant was skipped is left out, like theirs."""
    entrants = list(campaign.entrants)
    if not virtual_best.applies(campaign):
        return table, entrants
    best = skipped_cells.drawn(virtual_best.summary(campaign, per_instance))
    return pd.concat([table, best], ignore_index=True), entrants + [virtual_best.NAME]


def family_rows(table: pd.DataFrame, family: str, entrant: str) -> pd.DataFrame:
    """The rows of ``entrant`` in ``family`` (all of them without a family column), by n."""
    rows = table[table["entrant"] == entrant]
    if "family" in rows.columns:
        rows = rows[rows["family"] == family]
    return rows.sort_values("n")


def lowest(values: np.ndarray, limit: float) -> float:
    """The bottom of a log time axis that shows ``values`` (the smallest positive one / 1.6)."""
    values = values[np.isfinite(values) & (values > 0)]
    return float(values.min()) / 1.6 if values.size else limit / 1e3


def _n_axis(campaign: censored_stats.Campaign, family: str) -> Axis:
    ns = campaign.family(family).n_values
    return Axis("box size n (grid n²×n²)", ticks=tuple(float(n) for n in ns),
                limits=(min(ns) - 0.4, max(ns) + 0.4) if ns else None)


def _jitter(count: int, index: int, entrants: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return dodge(index, entrants, 0.09) + rng.uniform(-0.03, 0.03, count)


def runtime_model(campaign: censored_stats.Campaign, table: pd.DataFrame,
                  instances: pd.DataFrame) -> FigureModel:
    """Median wall time per solve vs n, one panel per family: the medians (a censored one a
    mark at the limit), the interquartile band (its top cut at the limit), the virtual best as
    an entrant; ``points``: each instance's time (``inf`` censored), jittered about its n.
    ``instances``: the campaign's instance times (:func:`censored_stats.instance_times` or the
    page's rows, which add work counters for the hover boxes)."""
    limit = campaign.timeout_s
    left_out = skipped_cells.note(table)            # a skipped cell is no censored time: named
    table, entrants = with_virtual_best(campaign, skipped_cells.drawn(table), instances)
    instances = instances[instances["status"] != Status.SKIPPED]
    times = instances["time"].to_numpy(float)
    low = lowest(np.concatenate([times, table["median_s"].to_numpy(float), table["q25_s"].to_numpy(float)]), limit)
    panels = []
    for col, family in enumerate(campaign.families, start=1):
        series, points = [], []
        for i, entrant in enumerate(entrants):
            rows = family_rows(table, family, entrant)
            if rows.empty:
                continue
            med, q25, q75 = (rows[c].to_numpy(float) for c in ("median_s", "q25_s", "q75_s"))
            band = np.isfinite(q25)
            series.append(Series(
                entrant, short_label(entrant), rows["n"].to_numpy(float), np.where(np.isfinite(med), med, np.nan),
                offset=dodge(i, len(entrants)), censored=np.isinf(med),
                band=(np.where(band, q25, np.nan), np.where(band, np.minimum(q75, limit), np.nan)), rows=rows))
            pts = instances[(instances["entrant"] == entrant) & (instances["family"] == family)]
            if len(pts):
                t = pts["time"].to_numpy(float)
                x = pts["n"].to_numpy(float) + _jitter(len(pts), i, len(entrants), col)   # spread about n
                points.append(Series(entrant, short_label(entrant), x, np.where(np.isfinite(t), t, np.nan),
                                     mark="points", censored=~np.isfinite(t), rows=pts))
        panels.append(Panel(family, family_title(campaign, family), _n_axis(campaign, family),
                            Axis("wall time per solve (s, log scale)", "log", (low, limit)),
                            tuple(series), points=tuple(points)))
    title = "Median time per instance (band: interquartile range)"
    if len(panels) == 1:
        title = f"{title}, {panels[0].title}"
    notes = (textwrap.fill(left_out, 60),) if left_out else ()
    return FigureModel("runtime", title, tuple(panels), limit, notes, tuple(entrants))


def solved_model(campaign: censored_stats.Campaign, table: pd.DataFrame,
                 per_instance: pd.DataFrame | None = None) -> FigureModel:
    """The share (%) of instances solved within the limit vs n, one panel per family, the
    virtual best too; a skipped cell is left out (not 0 % solved) and named in the notes."""
    left_out = skipped_cells.note(table)
    table, entrants = with_virtual_best(campaign, skipped_cells.drawn(table), per_instance)
    families = campaign.families
    panels = []
    for family in families:
        series = []
        for i, entrant in enumerate(entrants):
            rows = family_rows(table, family, entrant)
            if rows.empty:
                continue
            series.append(Series(entrant, short_label(entrant), rows["n"].to_numpy(float),
                                 rows["solved_frac"].to_numpy(float) * 100, offset=dodge(i, len(entrants), 0.05),
                                 rows=rows))
        title = (f"Solved within the limit, {family_title(campaign, family)}" if len(families) == 1
                 else f"{family}: solved")
        panels.append(Panel(family, title, _n_axis(campaign, family),
                            Axis(f"solved within {censored_stats.format_seconds(campaign.timeout_s)} (%)",
                                 "linear", (-5.0, 105.0)), tuple(series)))
    notes = (textwrap.fill(left_out, 60),) if left_out else ()
    return FigureModel("solved", "Instances solved within the limit", tuple(panels), None, notes,
                       tuple(entrants))


def cactus_model(campaign: censored_stats.Campaign, instances: pd.DataFrame) -> FigureModel:
    """For each entrant (and the virtual best), its answered instances (all families and n)
    sorted by time: the k-th fastest at x = k; censored instances are not on the curve."""
    entrants = list(campaign.entrants)
    frame = instances
    if virtual_best.applies(campaign):
        best = virtual_best.best_times(instances, entrants)
        best = best.assign(entrant=virtual_best.NAME,
                           status=np.where(best["winner"] != "", "solved", "censored"))
        frame = pd.concat([instances, best], ignore_index=True)
        entrants.append(virtual_best.NAME)
    series = []
    for entrant in entrants:
        mine = frame[(frame["entrant"] == entrant) & np.isfinite(frame["time"].to_numpy(float))]
        mine = mine.sort_values("time", kind="mergesort")
        series.append(Series(entrant, short_label(entrant), np.arange(1, len(mine) + 1, dtype=float),
                             mine["time"].to_numpy(float), mark="step", rows=mine))
    total = int(instances.groupby("entrant").size().max()) if len(instances) else 0
    families = campaign.families
    which = (family_title(campaign, families[0]) if len(families) == 1
             else f"all families ({', '.join(families)})")
    panel = Panel("all", "", Axis(f"instances solved (of {total}, all n)", limits=(0.0, total + 1.0)),
                  Axis("wall time per solve (s, log scale)", "log"), tuple(series))
    return FigureModel("cactus", f"Cactus plot, {which}", (panel,), campaign.timeout_s, (), tuple(entrants))


def work_model(campaign: censored_stats.Campaign, table: pd.DataFrame) -> FigureModel:
    """Median work counters over solved instances vs n: a panel per (family, counter), keys
    ``family/counter``; a median of 0 puts the panel on a symlog axis; a median over fewer
    than half the instances is hollow; a panel where every median is 0 or no entrant reports
    the counter carries a note instead of series."""
    families = campaign.families
    entrants = list(campaign.entrants)
    panels = []
    for family in families:
        for counter, name in WORK:
            series = []
            for i, entrant in enumerate(entrants):
                rows = family_rows(table, family, entrant)
                y = rows[counter].to_numpy(float) if counter in rows.columns else np.full(len(rows), np.nan)
                keep = np.isfinite(y) & (y >= 0)
                if keep.any():
                    few = rows["solved"].to_numpy(float) < rows["total"].to_numpy(float) / 2
                    series.append(Series(entrant, short_label(entrant), rows["n"].to_numpy(float),
                                         np.where(keep, y, np.nan), offset=dodge(i, len(entrants), 0.05),
                                         hollow=few & keep, rows=rows))
            values = np.concatenate([s.y[np.isfinite(s.y)] for s in series]) if series else np.array([])
            title = name if len(families) == 1 else f"{family}: {name}"
            n_axis = Axis("box size n", ticks=_n_axis(campaign, family).ticks,
                          limits=_n_axis(campaign, family).limits)
            if not (values > 0).any():
                note = (f"no {counter}\n(every median is 0:\n{', '.join(s.key for s in series)})" if series
                        else f"no entrant reports\n{counter}")
                panels.append(Panel(f"{family}/{counter}", title, n_axis, Axis(""), note=note))
                continue
            scale: Scale = "symlog" if (values == 0).any() else "log"
            panels.append(Panel(f"{family}/{counter}", title, n_axis,
                                Axis(f"{counter} per solve", scale), tuple(series)))
    title = "Work per solve (median over solved instances)"
    if len(families) == 1:
        title = f"{title}, {family_title(campaign, families[0])}"
    few = any(s.marked(s.hollow).any() for panel in panels for s in panel.series)
    return FigureModel("work", title, tuple(panels), None, (FEW,) if few else (), tuple(entrants))
