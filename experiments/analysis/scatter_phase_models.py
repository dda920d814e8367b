"""The models (:class:`experiments.analysis.figure_models.FigureModel`) of the SAT phase
split and of the per-instance head to head: what those figures show, computed once for
every renderer."""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.analysis import censored_stats
from experiments.analysis.entrant_labels import short_label
from experiments.analysis.figure_models import Axis, FigureModel, Panel, Series
from experiments.analysis.figure_style import family_title
from experiments.harness.schema import Status

PHASE_NAMES = {"t_check": "check", "t_build": "build", "t_encode": "encode", "t_write": "write",
               "t_search": "search", "t_decode": "decode", "t_verify": "verify"}


def sat_entrants(campaign: censored_stats.Campaign) -> list[str]:
    """Entrants that report a CNF encoding phase (the SAT entrants)."""
    runs = campaign.runs
    return [e for e in campaign.entrants
            if runs.loc[runs["entrant"] == e, "t_encode"].notna().any()]


def phases_model(campaign: censored_stats.Campaign, table: pd.DataFrame) -> FigureModel:
    """One panel per SAT entrant of the first family (the assignment's): a bar series per
    phase, its share (%) of the median solve at each n (x: the n), each n labelled with the
    sum of the phase medians; no panel and a note when no entrant is a SAT entrant."""
    family = campaign.families[0]
    first = table[table["family"] == family] if "family" in table.columns and len(table) else table
    entrants = sat_entrants(campaign)
    title = f"SAT phase split, {family_title(campaign, family)}"
    if not entrants:
        return FigureModel("phases", "SAT phase split", (), None, ("no SAT entrant in this campaign",))
    phases = [p for p in censored_stats.PHASES if first.loc[first["entrant"].isin(entrants), p].notna().any()]
    panels = []
    for entrant in entrants:
        rows = first[first["entrant"] == entrant].sort_values("n")
        rows = rows[rows[phases].notna().any(axis=1)]
        ns = rows["n"].to_numpy(float)
        values = rows[phases].fillna(0.0).to_numpy(dtype=float)
        totals = values.sum(axis=1)
        shares = 100 * values / np.where(totals > 0, totals, 1.0)[:, None]
        series = tuple(Series(phase, PHASE_NAMES[phase], ns, shares[:, j], mark="bar",
                              rows=pd.DataFrame({"n": ns, "seconds": values[:, j], "total": totals}))
                       for j, phase in enumerate(phases))
        panels.append(Panel(entrant, short_label(entrant), Axis("box size n", "category"),
                            Axis("share of median time (%)", "linear", (0.0, 100.0)), series,
                            labels=tuple((float(n), censored_stats.format_seconds(t)) for n, t in zip(ns, totals))))
    return FigureModel("phases", title, tuple(panels), None, ("above each bar: the sum of the phase medians",))


#: how far the censored strip beyond each limit line reaches (a factor of the limit)
STRIP = 4.0


def _spread(count: int, limit: float, seed: int) -> np.ndarray:
    """``count`` positions inside the censored strip (limit .. limit * STRIP, log-uniform,
    seeded): censored points spread out instead of hiding each other on one spot."""
    rng = np.random.default_rng(seed)
    return np.asarray(limit * STRIP ** rng.uniform(0.15, 0.85, count), dtype=float)


def _raced(campaign: censored_stats.Campaign, pairs: pd.DataFrame,
           names: tuple[str, str]) -> tuple[pd.DataFrame, int]:
    """``pairs`` without those where either entrant's instance was skipped (never raced: it has
    no time, not a censored one), and how many were left out."""
    runs = campaign.runs
    gone = runs[runs["entrant"].isin(names) & (runs["status"] == Status.SKIPPED)]
    keys = set(zip(gone["family"], gone["n"], gone["instance"]))
    out = pd.Series([k in keys for k in zip(pairs["family"], pairs["n"], pairs["instance"])],
                    index=pairs.index, dtype=bool)
    return pairs[~out], int(out.sum())


def censored_counts(series: tuple[Series, ...], limit: float) -> dict[str, int]:
    """How many censored pairs of a head-to-head panel lie beyond the limit on x only
    (``x``), on y only (``y``) and on both (``both``)."""
    counts = {"x": 0, "y": 0, "both": 0}
    for s in series:
        off_x, off_y = s.censored & (s.x > limit), s.censored & (s.y > limit)
        counts["x"] += int((off_x & ~off_y).sum())
        counts["y"] += int((off_y & ~off_x).sum())
        counts["both"] += int((off_x & off_y).sum())
    return counts


def scatter_model(campaign: censored_stats.Campaign, a: str, b: str) -> FigureModel:
    """Per-instance head to head of ``a`` (x) and ``b`` (y) on the same instances, log-log,
    a panel per family and a series per n (key ``n = <n>``); a censored time is drawn in the
    strip beyond the limit (limit .. limit * STRIP, spread out, seeded by n): its ``censored``
    mark is set and its x or y is that position. The notes count the pairs left out (a
    skipped side)."""
    from experiments.analysis.compare import paired_times
    pairs, skipped = _raced(campaign, paired_times(campaign, a, b), (a, b))
    families = list(dict.fromkeys(pairs["family"])) or campaign.families[:1]
    limit = campaign.timeout_s
    name_a, name_b = short_label(a), short_label(b)
    finite = np.concatenate([pairs["time_a"], pairs["time_b"]]).astype(float)
    finite = finite[np.isfinite(finite) & (finite > 0)]
    low = float(finite.min()) / 2 if finite.size else limit / 1e3
    ns = sorted(int(n) for n in pairs["n"].unique())
    axes = (Axis(f"{name_a}: wall time (s)", "log", (low, limit * STRIP)),
            Axis(f"{name_b}: wall time (s)", "log", (low, limit * STRIP)))
    panels = []
    for family in families:
        part = pairs[pairs["family"] == family]
        series = []
        for n in ns:
            sub = part[part["n"] == n]
            if sub.empty:
                continue
            ta, tb = sub["time_a"].to_numpy(float), sub["time_b"].to_numpy(float)
            x = np.where(np.isinf(ta), _spread(len(ta), limit, 2 * n), ta)
            y = np.where(np.isinf(tb), _spread(len(tb), limit, 2 * n + 1), tb)
            series.append(Series(f"n = {n}", f"n = {n}", x, y, mark="points",
                                 censored=np.isinf(ta) | np.isinf(tb), rows=sub))
        slower = int((part["time_b"] > part["time_a"]).sum())
        title = f"{family}: {name_b} slower on {slower} of {len(part)}"
        panels.append(Panel(family, title, *axes, series=tuple(series)))
    notes = (f"left out: {skipped} pair(s) with a skipped side",) if skipped else ()
    return FigureModel("scatter", f"{name_b} vs {name_a} per instance", tuple(panels), limit, notes)
