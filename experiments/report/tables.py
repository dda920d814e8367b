"""The booktabs tables of the report (bare ``tabular`` environments; captions live in
report.tex) and the sizes of the three reductions."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd

from experiments.analysis import plots
from experiments.analysis.bootstrap import CONFIDENCE
from experiments.analysis.censored_stats import PHASES
from experiments.report.tex import MISSING, escape, tex_factor_high, tex_float, tex_int, tex_seconds
from solvers.sat.sudoku_cnf import structural_clause_count


def sizes_table(ns: list[int]) -> pd.DataFrame:
    """Sizes of the three reductions for each n (before clues are applied)."""
    return pd.DataFrame([{"n": n, "side": n * n, "cells": n ** 4, "vars": n ** 6,
                          "minimal": structural_clause_count(n, "minimal"),
                          "extended": structural_clause_count(n, "extended"),
                          "rows": n ** 6, "columns": 4 * n ** 4, "ones": 4 * n ** 6}
                         for n in ns])


#: the header of an interval column
CI_HEADER = f"{100 * CONFIDENCE:.0f}\\,\\% CI"


def _tabular(columns: str, header: list[str], body: Sequence[list[str] | str]) -> str:
    """A booktabs tabular; a body entry that is a string is emitted as-is (e.g. \\midrule)."""
    lines = [f"\\begin{{tabular}}{{{columns}}}", r"\toprule", " & ".join(header) + r" \\", r"\midrule"]
    for row in body:
        lines.append(row if isinstance(row, str) else " & ".join(row) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines) + "\n"


def _grouped(table: pd.DataFrame, entrants: list[str], cells, width: int) -> list[list[str] | str]:
    """Rows per entrant and n; with several families, one block per family under an
    italic heading (``width``: the number of columns)."""
    body: list[list[str] | str] = []
    families = list(dict.fromkeys(table["family"])) if "family" in table.columns else [None]
    for family in families:
        part = table if family is None else table[table["family"] == family]
        if len(families) > 1:
            if body:
                body.append(r"\midrule")
            body.append(f"\\multicolumn{{{width}}}{{l}}{{\\emph{{{escape(family)} puzzles}}}} \\\\")
        first = True
        for entrant in entrants:
            rows = part[part["entrant"] == entrant].sort_values("n")
            if rows.empty:
                continue
            if not first:
                body.append(r"\addlinespace[2pt]" if len(families) > 1 else r"\midrule")
            first = False
            for j, row in enumerate(rows.itertuples()):
                name = f"\\texttt{{{escape(entrant)}}}" if j == 0 else ""
                body.append([name, str(row.n), *cells(row)])
    return body


def summary_tabular(table: pd.DataFrame, entrants: list[str]) -> str:
    def cells(row) -> list[str]:
        iqr = (f"{tex_seconds(row.q25_s, row.limit_s)}--{tex_seconds(row.q75_s, row.limit_s)}"
               if not math.isnan(row.q25_s) else MISSING)
        ci = (f"{tex_seconds(row.median_lo, row.limit_s)}--{tex_seconds(row.median_hi, row.limit_s)}"
              if not math.isnan(row.median_lo) else MISSING)
        failed = row.timeout + row.memout + row.error + row.unknown
        if row.skipped and row.skipped == row.runs:        # never raced: no time to show
            return ["--", "skipped", MISSING, MISSING, MISSING, f"{failed} ({row.skipped} skipped)",
                    str(row.wrong)]
        return [f"{row.solved}/{row.total}", tex_seconds(row.median_s, row.limit_s), ci, iqr,
                tex_seconds(row.par2_s), str(failed) if not row.skipped else f"{failed} ({row.skipped} skipped)",
                str(row.wrong)]
    return _tabular("llrrrrrrr", ["entrant", "$n$", "solved", "median", CI_HEADER, "IQR", "PAR-2",
                                  "unsolved", "wrong"], _grouped(table, entrants, cells, 9))


def work_tabular(table: pd.DataFrame, entrants: list[str]) -> str:
    def cells(row) -> list[str]:
        return [tex_int(row.nodes) if not math.isnan(row.nodes) else "--",
                tex_int(row.updates) if not math.isnan(row.updates) else "--",
                tex_int(row.conflicts) if not math.isnan(row.conflicts) else "--",
                tex_int(row.decisions) if not math.isnan(row.decisions) else "--",
                tex_int(row.propagations) if not math.isnan(row.propagations) else "--",
                tex_int(row.vars) if not math.isnan(row.vars) else "--",
                tex_int(row.clauses) if not math.isnan(row.clauses) else "--"]
    return _tabular("llrrrrrrr", ["entrant", "$n$", "nodes", "updates", "conflicts", "decisions",
                                  "propagations", "vars", "clauses"], _grouped(table, entrants, cells, 9))


def phases_tabular(table: pd.DataFrame, entrants: list[str]) -> str:
    present = [p for p in PHASES if table.loc[table["entrant"].isin(entrants), p].notna().any()]
    if not entrants or not present:
        return _tabular("l", ["no entrant reports phase times"], [])

    def cells(row) -> list[str]:
        return [tex_seconds(getattr(row, p)) if not math.isnan(getattr(row, p)) else "--" for p in present]
    return _tabular("ll" + "r" * len(present), ["entrant", "$n$", *[plots.PHASE_NAMES[p] for p in present]],
                    _grouped(table, entrants, cells, 2 + len(present)))


def growth_tabular(growth: pd.DataFrame) -> str:
    """Per family and entrant: fitted n range, slope, factor per step with its bootstrap
    interval, last step ratio (a family column when there are several families)."""
    families = list(dict.fromkeys(growth["family"])) if "family" in growth.columns and len(growth) else []
    several = len(families) > 1
    body: list[list[str] | str] = []
    previous = None
    for row in growth.itertuples():
        if several and body and row.family != previous:
            body.append(r"\midrule")
        previous = getattr(row, "family", None)
        span = f"{int(row.n_from)}--{int(row.n_to)}" if row.points >= 2 else (
            str(int(row.n_from)) if row.points == 1 else MISSING)
        ci = (f"{tex_float(row.factor_lo)}--{tex_factor_high(row.factor_hi)}"
              if row.points >= 2 and not math.isnan(row.factor_lo) else MISSING)
        cells = [f"\\texttt{{{escape(row.entrant)}}}", span, tex_float(row.slope), tex_float(row.factor), ci,
                 tex_float(row.last_ratio)]
        body.append(([escape(row.family)] if several else []) + cells)
    header = ["entrant", "$n$ fitted", r"slope of $\log_{10} t$", "factor per step", CI_HEADER,
              "last step ratio"]
    return _tabular(("l" if several else "") + "lrrrrr", (["family"] if several else []) + header, body)


def sizes_tabular(sizes: pd.DataFrame) -> str:
    body = [[str(r.n), f"${r.side}\\times{r.side}$", tex_int(r.vars), tex_int(r.minimal),
             tex_int(r.extended), f"${tex_int(r.rows)}\\times{tex_int(r.columns)}$", tex_int(r.ones)]
            for r in sizes.itertuples()]
    return _tabular("rrrrrrr", ["$n$", "grid", "variables $n^6$", "minimal clauses",
                                "extended clauses", "cover matrix", "ones $4n^6$"], body)


def noise_paragraph(warnings: list[str], readings: bool) -> str:
    """The report's paragraph on measurement noise: each warning of
    :func:`experiments.analysis.noise.warnings` as an item, else one sentence saying the
    campaign raised none (or recorded no machine readings, when it ran without them)."""
    from experiments.report.tex import escape
    if warnings:
        items = "\n".join(f"\\item {escape(w.removeprefix('WARNING: '))}" for w in warnings)
        return f"\\paragraph{{Noise warnings.}}\n\\begin{{itemize}}\n{items}\n\\end{{itemize}}\n"
    if readings:
        return ("\\paragraph{Noise warnings.} None: the machine was not busy at the start or the end, "
                "the calibration did not drift by more than 5\\,\\%, no repeats varied by more than "
                "10\\,\\%.\n")
    return ("\\paragraph{Noise warnings.} This campaign recorded no machine readings or "
            "calibration (it was run before \\texttt{race run} took them); no repeats of an "
            "instance varied by more than 10\\,\\%.\n")


def cores_section(campaign) -> str:
    """The report's paragraph and table on the entrants that held several cores per cell
    (:mod:`experiments.analysis.multicore`): their wall time (what the other tables compare)
    beside their total CPU time over all members, and which member answered; "" when the
    campaign has none."""
    from experiments.analysis import multicore
    table = multicore.rows(campaign)
    if table.empty:
        return ""
    body = []
    for row in table.itertuples():
        body.append([f"\\texttt{{{escape(row.entrant)}}}", escape(str(row.family)), str(row.n),
                     str(row.cores), f"{row.answered}/{row.total}",
                     tex_seconds(row.wall_median_s, row.limit_s), tex_seconds(row.wall_par2_s),
                     tex_seconds(row.cpu_median_s, row.limit_s * row.cores),
                     tex_seconds(row.cpu_par2_s), escape(multicore.wins_text(row.wins))])
    tabular = _tabular("lllrrrrrrp{0.22\\linewidth}",
                       ["entrant", "family", "$n$", "cores", "answered", "wall median", "wall PAR-2",
                        "CPU median", "CPU PAR-2", "answered by"], body)
    return ("Some entrants ran several searches at once, one per core (Table~\\ref{tab:cores}): the other "
            "tables and the figures give their \\emph{wall} time, which they shorten by holding more "
            "cores; this table also gives their \\emph{total CPU} time over all their members (a run "
            "not answered counts twice the limit times the cores in its CPU PAR-2) and which member "
            "gave each answer.\n\n"
            "\\begin{table}[tbp]\n\\centering\\footnotesize\\setlength{\\tabcolsep}{3pt}\n"
            "\\caption{Entrants on several cores: wall time and total CPU time of all members.}\n"
            "\\label{tab:cores}\n" + tabular + "\\end{table}\n")
