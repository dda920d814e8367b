"""Head-to-head comparison of two entrants on identical instances (``race compare``).

Instances are paired by ``instance_sha256`` (the file's bytes), ``n`` and family, so two entrants are compared only where they solved the very same
puzzle; a campaign without hashes falls back to the instance file name. Each
entrant's time on an instance is the median over its repeats, ``inf`` when
censored (no verified answer within the limit). Per pair:

* **outcome**: a tie when both are censored or their times differ by at most the
  tolerance (relative), else a win for the faster; a censored time always loses;
* **ratio** B/A: ``inf`` when only A answered, ``0`` when only B answered, ``1``
  when neither did; the median ratio gets a seeded bootstrap interval over pairs;
* **signed-rank test** (:mod:`experiments.analysis.signed_rank`) on log(B/A), a
  censored side ranking as the worst time (difference +-inf), both censored = 0.

A pyperf-style warning is raised when the repeats of an instance vary too much
to trust (coefficient of variation above :data:`SPREAD_LIMIT`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from experiments.analysis import bootstrap, censored_stats
from experiments.analysis.signed_rank import SignedRank, signed_rank_test
from formats.errors import RaceError

#: default tie tolerance: times within 5% of each other are a tie
TOLERANCE: float = 0.05
#: coefficient of variation of an instance's repeats above which the times are not trusted
SPREAD_LIMIT: float = 0.10


@dataclass
class PairedRow:
    """The comparison on one family and n (``n`` None: all n of the family pooled)."""
    family: str
    n: int | None
    pairs: int
    a_wins: int
    b_wins: int
    ties: int
    ratio: bootstrap.Interval
    test: SignedRank


@dataclass
class Comparison:
    """``race compare``'s result: A and B, one row per (family, n) plus pooled rows,
    and the warnings to print under the table."""
    campaign: str
    a: str
    b: str
    tolerance: float
    rows: list[PairedRow]
    warnings: list[str] = field(default_factory=list)


def paired_times(campaign: censored_stats.Campaign, a: str, b: str, n_values: list[int] | None = None,
                 families: list[str] | None = None) -> pd.DataFrame:
    """One row per instance both ``a`` and ``b`` ran: family, n, key, instance, time_a,
    time_b (``inf`` = censored). Raises RaceError for an entrant not in the campaign."""
    for name in (a, b):
        if name not in campaign.entrants:
            raise RaceError(f"entrant {name!r} is not in campaign {campaign.name} "
                            f"(its entrants: {', '.join(campaign.entrants)})")
    runs = censored_stats.instance_inputs(campaign.runs)
    if n_values:
        runs = runs[runs["n"].isin(n_values)]
    if families:
        runs = runs[censored_stats.of_families(runs["family"], families)]
    times = censored_stats.instance_times(runs[runs["entrant"].isin([a, b])])
    times["key"] = np.where(times["instance_sha256"].isin(["", "nan"]), times["instance"],
                            times["instance_sha256"])
    left = times[times["entrant"] == a][["family", "n", "key", "instance", "time"]]
    right = times[times["entrant"] == b][["family", "n", "key", "time"]]
    pairs = left.merge(right, on=["family", "n", "key"], suffixes=("_a", "_b"))
    order = {name: i for i, name in enumerate(campaign.families)}     # the analysis' one order
    return pairs.sort_values(["family", "n", "instance"], key=lambda c: c.map(order)
                             if c.name == "family" else c).reset_index(drop=True)


def outcomes(time_a: np.ndarray, time_b: np.ndarray, tolerance: float = TOLERANCE) -> np.ndarray:
    """Per pair: ``-1`` A faster, ``+1`` B faster, ``0`` a tie (see the module docstring)."""
    ta, tb = np.asarray(time_a, dtype=float), np.asarray(time_b, dtype=float)
    both = np.isinf(ta) & np.isinf(tb)
    with np.errstate(invalid="ignore", divide="ignore"):
        close = np.maximum(ta, tb) <= (1.0 + tolerance) * np.minimum(ta, tb)
    result = np.where(tb < ta, 1, -1)
    return np.where(both | (close & np.isfinite(ta) & np.isfinite(tb)), 0, result)


def ratios(time_a: np.ndarray, time_b: np.ndarray) -> np.ndarray:
    """Per pair B/A with the censoring rules of the module docstring."""
    ta, tb = np.asarray(time_a, dtype=float), np.asarray(time_b, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        plain = tb / ta
    plain = np.where(np.isinf(ta) & np.isfinite(tb), 0.0, plain)
    plain = np.where(np.isinf(tb) & np.isfinite(ta), np.inf, plain)
    return np.where(np.isinf(ta) & np.isinf(tb), 1.0, plain)


def log_differences(time_a: np.ndarray, time_b: np.ndarray) -> np.ndarray:
    """Per pair log(B) - log(A) where a censored time is worse than any measured one:
    ``+inf`` when only B is censored, ``-inf`` when only A is, ``0`` when both are."""
    ta, tb = np.asarray(time_a, dtype=float), np.asarray(time_b, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        d = np.log(tb) - np.log(ta)
    return np.where(np.isinf(ta) & np.isinf(tb), 0.0, d)


def paired_row(family: str, n: int | None, pairs: pd.DataFrame, tolerance: float) -> PairedRow:
    """The statistics of ``pairs`` (rows of :func:`paired_times`)."""
    ta, tb = pairs["time_a"].to_numpy(dtype=float), pairs["time_b"].to_numpy(dtype=float)
    outcome = outcomes(ta, tb, tolerance)
    return PairedRow(family, n, len(pairs), int((outcome == -1).sum()), int((outcome == 1).sum()),
                     int((outcome == 0).sum()), bootstrap.ratio_interval(ratios(ta, tb)),
                     signed_rank_test(log_differences(ta, tb)))


def spread_warnings(campaign: censored_stats.Campaign, entrants: list[str],
                    limit: float = SPREAD_LIMIT, per_instance: pd.DataFrame | None = None) -> list[str]:
    """pyperf-style warnings: per entrant, how many instances have repeats whose
    coefficient of variation exceeds ``limit``; a note when nothing was repeated.
    ``per_instance``: the campaign's :func:`censored_stats.instance_times`, when at hand."""
    if per_instance is None:
        runs = censored_stats.instance_inputs(campaign.runs)
        mine = runs["entrant"].isin(entrants)
        per_instance = censored_stats.instance_times(runs if mine.all() else runs[mine])
    times = per_instance[per_instance["entrant"].isin(entrants)]
    if (times["repeats"] <= 1).all():
        return ["note: 1 repeat per instance, so the run-to-run spread was not measured "
                "(race run --repeats 3 measures it)"]
    out = []
    for entrant in entrants:
        mine = times[(times["entrant"] == entrant) & times["spread"].notna()]
        bad = mine[mine["spread"] > limit]
        if len(bad):
            worst = bad.loc[bad["spread"].idxmax()]
            out.append(f"WARNING: {entrant}: the repeats of {len(bad)} of {len(mine)} instances vary by "
                       f"more than {100 * limit:.0f}% (coefficient of variation up to "
                       f"{100 * worst['spread']:.0f}%, n={worst['n']} {worst['instance']}); these "
                       f"times may not be reliable: rerun on a quiet machine or with more repeats")
    return out


def compare(campaign: censored_stats.Campaign, a: str, b: str, n_values: list[int] | None = None,
            families: list[str] | None = None, tolerance: float = TOLERANCE) -> Comparison:
    """Compare ``b`` against ``a`` on their common instances (module docstring). Raises
    RaceError for an unknown entrant or when they share no instance."""
    pairs = paired_times(campaign, a, b, n_values, families)
    if pairs.empty:
        raise RaceError(f"{a} and {b} share no instance in campaign {campaign.name} "
                        f"(matched by instance_sha256, n and family)")
    rows = []
    for family in dict.fromkeys(pairs["family"]):
        part = pairs[pairs["family"] == family]
        ns = sorted(part["n"].unique())
        rows += [paired_row(family, int(n), part[part["n"] == n], tolerance) for n in ns]
        if len(ns) > 1:
            rows.append(paired_row(family, None, part, tolerance))
    return Comparison(campaign.name, a, b, tolerance, rows,
                      wrong_warnings(campaign, [a, b]) + spread_warnings(campaign, [a, b]))


def wrong_warnings(campaign: censored_stats.Campaign, entrants: list[str]) -> list[str]:
    """One loud line per entrant with wrong answers (censored in every pair: never faster)."""
    wrong = censored_stats.wrong_runs(campaign)
    out = []
    for entrant in entrants:
        count = int((wrong["entrant"] == entrant).sum())
        if count:
            out.append(f"!!! WRONG: {entrant} gave {count} wrong answer(s) (a grid that is not a "
                       "solution, or a false claim); each counts as unanswered here !!!")
    return out


def format_ratio(value: float) -> str:
    """A ratio for the table: 3 significant digits; ``inf`` and ``0`` kept as such."""
    if math.isnan(value):
        return "n/a"
    if math.isinf(value):
        return "inf"
    return "0" if value == 0 else f"{value:.3g}"


def comparison_text(result: Comparison) -> str:
    """The table ``race compare`` prints, with its legend and warnings."""
    head = (f"{'family':<9}{'n':>4}{'pairs':>7}{'A faster':>10}{'B faster':>10}{'ties':>6}"
            f"{'median B/A':>12}  {'95% CI':<17}{'signed-rank p':>14}")
    lines = [f"campaign {result.campaign}: A = {result.a}, B = {result.b} "
             f"(paired on identical instances: instance_sha256, n, family)", head, "-" * len(head)]
    for row in result.rows:
        ci = f"[{format_ratio(row.ratio.low)}, {format_ratio(row.ratio.high)}]"
        p = "n/a" if row.test.method == "none" else f"{row.test.p:.2g}"
        n = "all" if row.n is None else str(row.n)
        lines.append(f"{row.family:<9}{n:>4}{row.pairs:>7}{row.a_wins:>10}{row.b_wins:>10}{row.ties:>6}"
                     f"{format_ratio(row.ratio.estimate):>12}  {ci:<17}{p:>14}")
    lines += ["",
              f"ties: times within {100 * result.tolerance:.0f}% or both censored; a timeout (any "
              f"censored run) loses to any answer.",
              "B/A < 1: B faster; inf: only A answered; 0: only B answered. CI: bootstrap over "
              f"pairs ({bootstrap.RESAMPLES} resamples, seeded).",
              "p: two-sided Wilcoxon signed-rank test on log(B/A), censored = slowest "
              "(exact without ties, else normal approximation)."]
    return "\n".join(lines + [w for w in result.warnings])


def comparison_markdown(result: Comparison) -> str:
    """The same as a Markdown table (to paste into a pull request or an issue)."""
    header = ["family", "n", "pairs", "A faster", "B faster", "ties", "median B/A", "95% CI",
              "signed-rank p"]
    lines = [f"**{result.b}** (B) against **{result.a}** (A), campaign {result.campaign}, paired on "
             "identical instances", "", "| " + " | ".join(header) + " |",
             "|" + "|".join("---" if i == 0 else "--:" for i in range(len(header))) + "|"]
    for row in result.rows:
        p = "n/a" if row.test.method == "none" else f"{row.test.p:.2g}"
        lines.append("| " + " | ".join([
            row.family, "all" if row.n is None else str(row.n), str(row.pairs), str(row.a_wins),
            str(row.b_wins), str(row.ties), format_ratio(row.ratio.estimate),
            f"[{format_ratio(row.ratio.low)}, {format_ratio(row.ratio.high)}]", p]) + " |")
    lines += ["", f"Ties: within {100 * result.tolerance:.0f}% or both censored. B/A < 1: B faster; "
              "inf: only A answered; 0: only B answered. CI: bootstrap over pairs "
              f"({bootstrap.RESAMPLES} resamples); p: Wilcoxon signed-rank on log(B/A)."]
    return "\n".join(lines + [f"> {w}" for w in result.warnings])


def json_number(value: float | int | None) -> float | int | str | None:
    """A number as JSON can hold it: ``inf`` and ``-inf`` as strings (a censored ratio stays
    apart from a missing one, as ``race export`` writes them), ``nan`` as null."""
    if value is None or isinstance(value, (bool, int, np.integer)):
        return value if not isinstance(value, np.integer) else int(value)
    number = float(value)
    if math.isnan(number):
        return None
    if math.isinf(number):
        return "inf" if number > 0 else "-inf"
    return number


def interval_json(interval: bootstrap.Interval) -> dict:
    """An interval for JSON (:func:`json_number`)."""
    return {"estimate": json_number(interval.estimate), "low": json_number(interval.low),
            "high": json_number(interval.high), "confidence": interval.confidence}


def signed_rank_json(test: SignedRank) -> dict:
    """A signed-rank test's result for JSON (:func:`json_number`)."""
    return {"p": json_number(test.p), "method": test.method, "w_plus": json_number(test.w_plus),
            "w_minus": json_number(test.w_minus), "used": test.used, "z": json_number(test.z)}


def comparison_json(result: Comparison) -> str:
    """The comparison as one JSON document: A, B, the tolerance, one object per row
    (``n`` null for the rows that pool every n) and the warnings."""
    import json
    rows = [{"family": row.family, "n": row.n, "pairs": row.pairs, "a_faster": row.a_wins,
             "b_faster": row.b_wins, "ties": row.ties, "ratio_b_over_a": interval_json(row.ratio),
             "signed_rank": signed_rank_json(row.test)} for row in result.rows]
    return json.dumps({"campaign": result.campaign, "a": result.a, "b": result.b,
                       "tolerance": result.tolerance, "rows": rows, "warnings": result.warnings},
                      indent=2)
