"""The hardness landscape of a ``race landscape`` campaign: per n and hole fraction, each
entrant's solved fraction, censored median time and median work, and the peak.

Censoring as everywhere (:mod:`experiments.analysis.censored_stats`): an instance without a
verified answer counts as "> limit" (``inf``) for time and work alike, so a median is
``inf`` when at least half the instances were not answered.

**The peak** at n is the hole fraction where the *best* entrant there (lowest PAR-2 over
all fractions of that n) has its largest censored median *work* (its search counter:
nodes for backtracking and DLX, conflicts for SAT; time for an entrant without one);
ties (e.g. several censored medians) go to the larger PAR-2 of time, then to the smaller
fraction. Work, not time: a SAT solver's time grows with the number of empty cells
through the encoding alone (at n = 5 its median time is largest at 80% holes, where it
never conflicts), while its conflicts peak where the puzzles are hard (55%).
Its uncertainty is a bootstrap over instances:
the instances of one index share their solved grid across fractions (the generator's
fill stream), so indices are resampled with replacement, paired across fractions, and
the peak recomputed; ``low``/``high`` are the 5th and 95th percentiles of those peaks.

**The figure**'s data, median time against the share of empty cells with each n's peak
interval, is one model (:func:`landscape_model`) that two renderers draw: matplotlib
(:mod:`experiments.analysis.landscape_drawing`) and plotly
(:mod:`experiments.report.html_landscape`).
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from experiments.analysis import censored_stats
from experiments.analysis.figure_models import Axis, FigureModel, Panel, Series, lowest

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: work counters, in order of preference, for an entrant's "work" column
WORK_ORDER = ("nodes", "conflicts", "decisions", "propagations")
#: bootstrap resamples of the peak
RESAMPLES = 1000
_INDEX = re.compile(r"-(\d+)\.sudoku$")


def work_counter(runs: pd.DataFrame, entrant: str) -> str | None:
    """The work counter reported for ``entrant``'s answered runs (first of WORK_ORDER)."""
    mine = runs[(runs["entrant"] == entrant) & censored_stats.answered(runs)]
    return next((c for c in WORK_ORDER if mine[c].notna().any()), None)


def instance_table(campaign: censored_stats.Campaign) -> pd.DataFrame:
    """One row per (entrant, n, holes, index): time and work, median over repeats,
    ``inf`` when censored; ``work`` is NaN for an entrant without a work counter."""
    runs = campaign.runs.copy()
    ok = censored_stats.answered(runs) & runs["wall_s"].notna()
    runs["time"] = np.where(ok, runs["wall_s"], np.inf)
    runs["work"] = np.nan
    for entrant in runs["entrant"].unique():
        counter = work_counter(runs, entrant)
        if counter:
            mine = runs["entrant"] == entrant
            runs.loc[mine, "work"] = np.where(ok[mine], runs.loc[mine, counter], np.inf)
    runs["index"] = [int(m.group(1)) if (m := _INDEX.search(str(i))) else -1 for i in runs["instance"]]
    rows = []
    for (entrant, n, holes, index), group in runs.groupby(["entrant", "n", "holes", "index"]):
        rows.append({"entrant": entrant, "n": int(n), "holes": float(holes), "index": int(index),
                     "time": censored_stats.censored_quantile(group["time"].to_numpy(float), 0.5),
                     "work": censored_stats.censored_quantile(group["work"].to_numpy(float), 0.5)})
    return pd.DataFrame(rows, columns=["entrant", "n", "holes", "index", "time", "work"])


def landscape_table(campaign: censored_stats.Campaign, per_instance: pd.DataFrame | None = None
                    ) -> pd.DataFrame:
    """Per (n, holes, entrant): instances, solved_frac, median_s, par2_s, median_work and
    the work counter's name (entrants in campaign order)."""
    inst = instance_table(campaign) if per_instance is None else per_instance
    limit = campaign.timeout_s
    order = {e: i for i, e in enumerate(campaign.entrants)}
    rows = []
    for (n, holes, entrant), group in inst.groupby(["n", "holes", "entrant"]):
        times = group["time"].to_numpy(float)
        rows.append({"n": int(n), "holes": float(holes), "entrant": entrant,
                     "instances": len(group), "solved_frac": float(np.isfinite(times).mean()),
                     "median_s": censored_stats.censored_quantile(times, 0.5),
                     "par2_s": censored_stats.par2(times, limit),
                     "median_work": censored_stats.censored_quantile(group["work"].to_numpy(float), 0.5),
                     "counter": work_counter(campaign.runs, entrant) or ""})
    table = pd.DataFrame(rows)
    if table.empty:
        return table
    table["order"] = table["entrant"].map(order)
    return table.sort_values(["n", "holes", "order"]).drop(columns="order").reset_index(drop=True)


def _argmax_fraction(values: np.ndarray, times: np.ndarray, fractions: np.ndarray,
                     limit: float) -> float:
    """The fraction (rows of ``values`` and ``times``: fractions x instances) with the
    largest censored median of ``values``, ties to the larger PAR-2 of ``times``, then to
    the smaller fraction."""
    medians = np.array([censored_stats.censored_quantile(row, 0.5) for row in values])
    par2 = np.where(np.isinf(times), 2 * limit, times).mean(axis=1)
    best = np.lexsort((-fractions, par2, medians))[-1]
    return float(fractions[best])


def peak(per_instance: pd.DataFrame, n: int, limit: float, resamples: int = RESAMPLES,
         seed: int = 0) -> dict[str, float | str | int] | None:
    """The hardness peak at ``n`` (see the module docstring): ``holes``, ``low``, ``high``,
    ``entrant``, ``measure`` (``work`` or ``time``), ``instances``; None without data at n."""
    at_n = per_instance[per_instance["n"] == n]
    if at_n.empty:
        return None
    par2 = {e: censored_stats.par2(g["time"].to_numpy(float), limit) for e, g in at_n.groupby("entrant")}
    entrant = min(par2, key=lambda e: (par2[e], e))
    mine = at_n[at_n["entrant"] == entrant]
    measure = "work" if mine["work"].notna().all() else "time"
    grids = [mine.pivot_table(index="holes", columns="index", values=column, aggfunc="first")
             for column in (measure, "time")]
    keep = grids[0].columns[grids[0].notna().all() & grids[1].notna().all()]  # every fraction
    values, times = (g[keep].to_numpy(float) for g in grids)
    fractions = grids[0].index.to_numpy(float)
    found = _argmax_fraction(values, times, fractions, limit)
    rng = np.random.default_rng(seed)
    columns = len(keep)
    boot = []
    for _ in range(resamples if columns else 0):
        pick = rng.integers(columns, size=columns)
        boot.append(_argmax_fraction(values[:, pick], times[:, pick], fractions, limit))
    low, high = np.percentile(boot or [found], [5, 95], method="nearest")
    return {"n": n, "holes": found, "low": float(low), "high": float(high), "entrant": entrant,
            "measure": measure, "instances": columns}


def peaks(campaign: censored_stats.Campaign, per_instance: pd.DataFrame | None = None,
          resamples: int = RESAMPLES) -> list[dict]:
    """The peak of every n of the campaign (n ascending)."""
    inst = instance_table(campaign) if per_instance is None else per_instance
    found = [peak(inst, n, campaign.timeout_s, resamples) for n in campaign.n_values]
    return [p for p in found if p is not None]


def landscape_text(campaign: censored_stats.Campaign) -> str:
    """The end-of-run summary: per n a table (hole fraction x entrant: solved, median time,
    median work) and the peak with its interval."""
    inst = instance_table(campaign)
    table = landscape_table(campaign, inst)
    fmt = censored_stats.format_seconds
    limit = campaign.timeout_s
    entrants = [e for e in campaign.entrants if e in set(table["entrant"])]
    found = {p["n"]: p for p in peaks(campaign, inst)}
    lines = []
    for n, at_n in table.groupby("n"):
        widths = {e: max(30, len(e)) for e in entrants}      # names are never cut
        head = f"{'holes':>6}" + "".join(f"  {e:>{widths[e]}}" for e in entrants)
        lines += [f"== n={n}  (each entrant: solved  median time  median work; '>' = censored)",
                  head, "-" * len(head)]
        for holes, row in at_n.groupby("holes"):
            cells = []
            for e in entrants:
                r = row[row["entrant"] == e]
                if r.empty:
                    cells.append(f"  {'':>{widths[e]}}")
                    continue
                r = r.iloc[0]
                work = _format_work(r["median_work"])
                cell = f"{r['solved_frac']:>5.0%} {fmt(r['median_s'], limit):>11} {work:>11}"
                cells.append(f"  {cell:>{widths[e]}}")
            lines.append(f"{holes:>6.2f}" + "".join(cells))
        p = found.get(n)
        if p:
            lines.append(f"peak n={n}: {p['holes']:.2f} holes (90% bootstrap interval "
                         f"{p['low']:.2f}..{p['high']:.2f}, {p['instances']} instances, "
                         f"median {p['measure']} of {p['entrant']})")
        lines.append("")
    return "\n".join(lines).rstrip()


def _format_work(value: float) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if math.isinf(value):
        return "> limit"
    return f"{value:.3g}"


def landscape_family(campaign: censored_stats.Campaign) -> str:
    """What the landscape's puzzles are: the family kind and the pattern its holes are cut
    in (e.g. ``holes puzzles, balanced holes``), from the runs' families and the metadata."""
    kinds = sorted({str(f).split("@")[0] for f in campaign.runs["family"].dropna().unique()}) or ["holes"]
    pattern = (campaign.meta.get("generator_options") or {}).get("pattern")
    return f"{'/'.join(kinds)} puzzles" + (f", {pattern} holes" if pattern else "")


def landscape_figure(campaign: censored_stats.Campaign, out_dir: Path) -> list[Path]:
    """Write :func:`landscape_plot` as ``landscape.pdf`` and ``landscape.png`` into
    ``out_dir``; return their paths."""
    from experiments.analysis.figure_style import pyplot
    plt = pyplot()

    from experiments.analysis import plots

    with plt.rc_context(plots.STYLE):
        fig = landscape_plot(campaign)
        out_dir.mkdir(parents=True, exist_ok=True)
        paths = [out_dir / "landscape.pdf", out_dir / "landscape.png"]
        box = plots.tight_box(fig)
        for path in paths:
            plots.save_figure(fig, path, dpi=150, bbox_inches=box,
                              metadata={"CreationDate": None} if path.suffix == ".pdf" else None)
        plt.close(fig)
    return paths


#: how far the shaded peak interval reaches beyond its ends (a share of empty cells)
SPAN_PAD = 0.01
#: what the shaded spans are (the figure's note)
PEAK = "hardness peak (90% bootstrap interval)"
#: the axes' labels
X_LABEL = "fraction of empty cells"
Y_LABEL = "median wall time (s, log scale)"


def landscape_model(campaign: censored_stats.Campaign, per_instance: pd.DataFrame | None = None) -> FigureModel:
    """The model (:class:`experiments.analysis.figure_models.FigureModel`) of the landscape
    figure of ``campaign``, computed once for the static renderer
    (:func:`experiments.analysis.landscape_drawing.draw_landscape`) and the page's
    (:func:`experiments.report.html_landscape.draw_landscape`); ``per_instance``: its
    :func:`instance_table`, when at hand. A panel per n (key ``str(n)``), a series per
    entrant: x the share of empty cells, y the median time over the instances of that share
    (NaN where it is beyond the limit, its ``censored`` mark set: drawn hollow in the
    entrant's row of the strip above the limit), ``rows`` its :func:`landscape_table` rows
    (what a hover box tells). Each panel's ``spans`` hold the hardness peak's 90% bootstrap
    interval (:func:`peaks`), widened by :data:`SPAN_PAD` on each side so that an interval of
    one share still shows. No panel when the campaign has no rows."""
    inst = instance_table(campaign) if per_instance is None else per_instance
    table = landscape_table(campaign, inst)
    limit = campaign.timeout_s
    title = (f"Hardness landscape: {landscape_family(campaign)}, median time per instance vs the "
             f"fraction of empty cells")
    if table.empty:
        return FigureModel("landscape", title, (), limit, ("no landscape rows in this campaign",))
    found = {p["n"]: p for p in peaks(campaign, inst)}
    raced = set(table["entrant"])
    entrants = [e for e in campaign.entrants if e in raced]
    y_axis = Axis(Y_LABEL, "log", (lowest(table["median_s"].to_numpy(float), limit), limit))
    panels = []
    for n in sorted(int(n) for n in table["n"].unique()):
        at_n = table[table["n"] == n]
        series = []
        for entrant in entrants:
            rows = at_n[at_n["entrant"] == entrant].sort_values("holes", kind="mergesort").reset_index(drop=True)
            if rows.empty:
                continue
            median = rows["median_s"].to_numpy(float)
            series.append(Series(entrant, entrant, rows["holes"].to_numpy(float),
                                 np.where(np.isinf(median), np.nan, median), censored=np.isinf(median), rows=rows))
        peak = found.get(n)
        spans = ((float(peak["low"]) - SPAN_PAD, float(peak["high"]) + SPAN_PAD),) if peak else ()
        panels.append(Panel(str(n), f"n = {n} ({n * n}\u00d7{n * n})", Axis(X_LABEL), y_axis, tuple(series),
                            spans=spans))
    notes = (PEAK,) if any(p.spans for p in panels) else ()
    return FigureModel("landscape", title, tuple(panels), limit, notes, tuple(entrants))


def landscape_plot(campaign: censored_stats.Campaign) -> Figure:
    """The landscape of ``campaign`` (:func:`landscape_model`) drawn by
    :func:`experiments.analysis.landscape_drawing.draw_landscape`, the campaign named under it
    all (a matplotlib Figure; draw it inside ``plt.rc_context(plots.STYLE)``)."""
    from experiments.analysis.figure_style import campaign_styles, caption_below
    from experiments.analysis.landscape_drawing import draw_landscape
    fig = draw_landscape(landscape_model(campaign), campaign_styles(campaign))
    caption_below(fig, f"campaign {campaign.name}")
    return fig
