"""The LaTeX report, regenerated from a campaign.

:func:`write_generated` fills ``<report>/generated/`` with

* the figures of :mod:`experiments.plots` (PDF for LaTeX, PNG for the README),
* booktabs tables (bare ``tabular`` environments; captions live in report.tex),
* ``macros.tex``: one ``\\newcommand`` for every number the text quotes.

Macro names are letters only: ``\\<entrant><Quantity>N<n in words>``, e.g.
``\\dlxMedianNFive`` (median wall time of entrant ``dlx`` at n = 5, with its
unit), ``\\backtrackingSolvedNFour`` ("3/5"). Every macro for the entrants
``backtracking``, ``dlx``, ``sat`` and ``kissat`` and for n = 2..5 is always
defined ("n/a" when the campaign lacks it), so report.tex compiles from any
campaign.

:func:`build_pdf` runs latexmk in the report directory (``report.pdf`` is
left there). :func:`build` does both; without latexmk it still writes the
generated files and says how to install LaTeX.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import numpy as np
import pandas as pd

from experiments.analysis import plots
from experiments.analysis import statistics as analysis
from formats.errors import RaceError

#: the committed report sources (report.tex lives here)
REPORT_DIR: Path = Path(__file__).resolve().parents[2] / "report"
#: source files copied when the report is built in another directory
SOURCES: tuple[str, ...] = ("report.tex",)
#: entrants and n the text may quote; their macros always exist
CANONICAL_ENTRANTS: tuple[str, ...] = ("backtracking", "dlx", "sat", "kissat", "dlx:heuristic=first",
                                        "sat:encoding=extended", "sat:encoding=minimal")
CANONICAL_N: tuple[int, ...] = (2, 3, 4, 5)
INSTALL_HINT = ("apt-get update && apt-get install -y texlive-latex-base texlive-latex-recommended "
                "texlive-fonts-recommended latexmk poppler-utils")
MISSING = "n/a"

_DIGITS = ["Zero", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine"]
_NUMBER_WORDS = {10: "Ten", 11: "Eleven", 12: "Twelve"}


def number_word(value: int) -> str:
    """``5`` -> ``Five``, ``12`` -> ``Twelve``, ``195`` -> ``OneNineFive`` (letters only)."""
    if value in _NUMBER_WORDS:
        return _NUMBER_WORDS[value]
    return "".join(_DIGITS[int(d)] for d in str(value))


def macro_name(*parts: str) -> str:
    """A letters-only camelCase name from free text: ``("sat:backend=glucose4", "Median")``
    -> ``satBackendGlucoseFourMedian``."""
    words: list[str] = []
    for part in parts:
        for token in re.findall(r"[A-Za-z]+|[0-9]+", str(part)):
            words.append(number_word(int(token)) if token.isdigit() else token[0].upper() + token[1:])
    if not words:
        raise ValueError("empty macro name")
    name = "".join(words)
    return name[0].lower() + name[1:]


_ESCAPES = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
            "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def escape(text: object) -> str:
    """Text made safe for LaTeX (special characters escaped)."""
    text = "".join(_ESCAPES.get(ch, ch) for ch in str(text)).replace("µ", r"$\mu$")
    return text.replace("--", "-{}-")  # no en-dash ligature in command lines


def tex_seconds(value: float, limit: float | None = None) -> str:
    """A time for the text, with its unit: ``12.3\\,ms``; censored -> ``$>$\\,10\\,s``."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return MISSING
    text = analysis.format_seconds(value, limit)
    return escape(text).replace("> ", r"$>$\,").replace(" ", r"\,")


def tex_int(value: float) -> str:
    """An integer count with thousands separators: ``16680`` -> ``16,680``."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return MISSING
    return f"{int(round(value)):,}".replace(",", "{,}")


def tex_float(value: float, digits: int = 2) -> str:
    """A ratio or slope with ``digits`` significant digits (no exponent for usual sizes)."""
    if value is None or not math.isfinite(value):
        return MISSING
    if abs(value) >= 10 ** digits:
        return tex_int(value)
    return f"{value:.{digits}g}"


class Macros:
    """An ordered set of ``\\newcommand`` definitions with letters-only names."""

    def __init__(self) -> None:
        self.values: dict[str, str] = {}
        self.flags: dict[str, bool] = {}

    def add(self, name: str, value: object) -> None:
        if not re.fullmatch(r"[A-Za-z]+", name):
            raise ValueError(f"macro name {name!r} must be letters only")
        self.values[name] = str(value)

    def flag(self, name: str, value: bool) -> None:
        """A TeX conditional ``\\if<name>`` (e.g. ``\\ifhasKissat``), true or false."""
        if not re.fullmatch(r"[A-Za-z]+", name):
            raise ValueError(f"flag name {name!r} must be letters only")
        self.flags[name] = value

    def text(self) -> str:
        lines = ["% Generated by `race report` from the campaign; do not edit.",
                 "% Every number the report quotes is one of these macros."]
        for name, value in self.flags.items():
            lines += [f"\\newif\\if{name}", f"\\{name}{'true' if value else 'false'}"]
        lines += [f"\\newcommand{{\\{name}}}{{{value}}}" for name, value in self.values.items()]
        return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- sizes of the reductions

def minimal_clauses(n: int) -> int:
    """Structural clauses of the assignment's encoding: 4n^4 + (n^8 - n^6)/2."""
    return 4 * n ** 4 + (n ** 8 - n ** 6) // 2


def extended_clauses(n: int) -> int:
    """Lynce & Ouaknine's extended encoding: at-least-one and pairwise at-most-one for
    cells, rows, columns and boxes: 4n^4 + 4 n^4 (n^2 choose 2) = 4n^4 + 2(n^8 - n^6)."""
    return 4 * n ** 4 + 2 * (n ** 8 - n ** 6)


def sizes_table(ns: list[int]) -> pd.DataFrame:
    """Sizes of the three reductions for each n (before clues are applied)."""
    return pd.DataFrame([{"n": n, "side": n * n, "cells": n ** 4, "vars": n ** 6,
                          "minimal": minimal_clauses(n), "extended": extended_clauses(n),
                          "rows": n ** 6, "columns": 4 * n ** 4, "ones": 4 * n ** 6}
                         for n in ns])


# ---------------------------------------------------------------- tables

def _tabular(columns: str, header: list[str], body: list[list[str] | str]) -> str:
    """A booktabs tabular; a body entry that is a string is emitted as-is (e.g. \\midrule)."""
    lines = [f"\\begin{{tabular}}{{{columns}}}", r"\toprule", " & ".join(header) + r" \\", r"\midrule"]
    for row in body:
        lines.append(row if isinstance(row, str) else " & ".join(row) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines) + "\n"


def _grouped(table: pd.DataFrame, entrants: list[str], cells) -> list[list[str] | str]:
    body: list[list[str] | str] = []
    for k, entrant in enumerate(entrants):
        rows = table[table["entrant"] == entrant].sort_values("n")
        if rows.empty:
            continue
        if body:
            body.append(r"\midrule")
        for j, row in enumerate(rows.itertuples()):
            name = f"\\texttt{{{escape(entrant)}}}" if j == 0 else ""
            body.append([name, str(row.n), *cells(row)])
    return body


def summary_tabular(table: pd.DataFrame, entrants: list[str]) -> str:
    def cells(row) -> list[str]:
        iqr = (f"{tex_seconds(row.q25_s, row.limit_s)}--{tex_seconds(row.q75_s, row.limit_s)}"
               if not math.isnan(row.q25_s) else MISSING)
        failed = row.timeout + row.memout + row.error + row.unknown
        return [f"{row.solved}/{row.total}", tex_seconds(row.median_s, row.limit_s), iqr,
                tex_seconds(row.par2_s), str(failed) if not row.skipped else f"{failed} ({row.skipped} skipped)",
                str(row.wrong)]
    return _tabular("llrrrrrr", ["entrant", "$n$", "solved", "median", "IQR", "PAR-2",
                                 "unsolved", "wrong"], _grouped(table, entrants, cells))


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
                                  "propagations", "vars", "clauses"], _grouped(table, entrants, cells))


def phases_tabular(table: pd.DataFrame, entrants: list[str]) -> str:
    present = [p for p in analysis.PHASES if table.loc[table["entrant"].isin(entrants), p].notna().any()]
    if not entrants or not present:
        return _tabular("l", ["no entrant reports phase times"], [])

    def cells(row) -> list[str]:
        return [tex_seconds(getattr(row, p)) if not math.isnan(getattr(row, p)) else "--" for p in present]
    return _tabular("ll" + "r" * len(present), ["entrant", "$n$", *[plots.PHASE_NAMES[p] for p in present]],
                    _grouped(table, entrants, cells))


def growth_tabular(growth: pd.DataFrame) -> str:
    body = []
    for row in growth.itertuples():
        span = f"{int(row.n_from)}--{int(row.n_to)}" if row.points >= 2 else (
            str(int(row.n_from)) if row.points == 1 else MISSING)
        body.append([f"\\texttt{{{escape(row.entrant)}}}", span, tex_float(row.slope),
                     tex_float(row.factor), tex_float(row.last_ratio)])
    return _tabular("lrrrr", ["entrant", "$n$ fitted", r"slope of $\log_{10} t$",
                              "factor per step", "last step ratio"], body)


def sizes_tabular(sizes: pd.DataFrame) -> str:
    body = [[str(r.n), f"${r.side}\\times{r.side}$", tex_int(r.vars), tex_int(r.minimal),
             tex_int(r.extended), f"${tex_int(r.rows)}\\times{tex_int(r.columns)}$", tex_int(r.ones)]
            for r in sizes.itertuples()]
    return _tabular("rrrrrrr", ["$n$", "grid", "variables $n^6$", "minimal clauses",
                                "extended clauses", "cover matrix", "ones $4n^6$"], body)


# ---------------------------------------------------------------- macros

def _params(campaign: analysis.Campaign, entrant: str) -> dict:
    values = campaign.runs.loc[campaign.runs["entrant"] == entrant, "params"].dropna()
    try:
        return json.loads(values.iloc[0]) if len(values) else {}
    except (json.JSONDecodeError, TypeError):
        return {}


def _ratio(fast: pd.Series | None, slow: pd.Series | None) -> str:
    """How many times ``fast``'s median beats ``slow``'s ("> x" when slow is censored)."""
    if fast is None or slow is None:
        return MISSING
    a, b = float(fast["median_s"]), float(slow["median_s"])
    if not math.isfinite(a) or a <= 0 or math.isnan(b):
        return MISSING
    if math.isinf(b):
        return f"$>$\\,{tex_float(float(slow['limit_s']) / a)}"
    return tex_float(b / a)


def _compare(a: pd.Series | None, b: pd.Series | None) -> str:
    """A phrase comparing medians: "3.9 times faster than", "at least 40 times slower than"."""
    if a is None or b is None:
        return MISSING
    ta, tb = float(a["median_s"]), float(b["median_s"])
    if math.isnan(ta) or math.isnan(tb) or ta <= 0 or tb <= 0:
        return MISSING
    if math.isinf(ta) and math.isinf(tb):
        return "(both beyond the limit) no faster than"
    if math.isinf(tb):
        return f"at least {tex_float(float(b['limit_s']) / ta)} times faster than"
    if math.isinf(ta):
        return f"at least {tex_float(float(a['limit_s']) / tb)} times slower than"
    return (f"{tex_float(tb / ta)} times faster than" if tb >= ta
            else f"{tex_float(ta / tb)} times slower than")


def campaign_macros(campaign: analysis.Campaign, table: pd.DataFrame, growth: pd.DataFrame) -> Macros:
    """All macros the report quotes (see the module docstring for the naming)."""
    m = Macros()
    meta, runs = campaign.meta, campaign.runs
    machine = meta.get("machine") or {}
    packages = meta.get("packages") or {}
    created = str(meta.get("created_at") or "")
    try:
        created = datetime.fromisoformat(created.replace("Z", "+00:00")).strftime("%Y-%m-%d %H:%M UTC")
    except ValueError:
        pass
    ns = campaign.n_values
    m.add("campaignName", f"\\texttt{{{escape(campaign.name)}}}")
    command = escape(meta.get("command", MISSING)).replace(",", ",\\allowbreak{}")
    m.add("campaignCommand", f"\\texttt{{{command}}}")
    m.add("campaignDate", escape(created or MISSING))
    m.add("campaignSeed", escape(meta.get("seed", MISSING)))
    m.add("campaignKind", escape(meta.get("kind", MISSING)))
    m.add("campaignInstances", escape(meta.get("instances", MISSING)))
    m.add("campaignRepeats", escape(meta.get("repeats", MISSING)))
    m.add("campaignTimeout", tex_seconds(campaign.timeout_s))
    memory = meta.get("memory_mb")
    m.add("campaignMemory", f"{tex_int(float(memory))}\\,MB" if memory else MISSING)
    m.add("campaignJobs", escape(meta.get("jobs", MISSING)))
    m.add("campaignExecutor", escape(meta.get("executor", MISSING)))
    commit = str(meta.get("git_commit") or MISSING)
    m.add("campaignGitCommit", f"\\texttt{{{escape(commit[:10])}}}"
          + (" (with uncommitted changes)" if commit.endswith("-dirty") else ""))
    m.add("campaignNValues", ", ".join(map(str, ns)))
    m.add("campaignNMin", min(ns))
    m.add("campaignNMax", max(ns))
    m.add("campaignEntrants", ", ".join(f"\\texttt{{{escape(e)}}}" for e in campaign.entrants))
    m.add("campaignEntrantCount", len(campaign.entrants))
    m.add("campaignCells", tex_int(len(runs)))
    m.add("campaignInstanceCount", tex_int(runs[["n", "instance"]].drop_duplicates().shape[0]))
    for status in ("timeout", "memout", "error", "wrong", "skipped", "unknown"):
        m.add(macro_name("campaign", status, "count"), tex_int(int((runs["status"] == status).sum())))
    m.add("machineCpu", escape(machine.get("cpu_model", MISSING)))
    m.add("machineCores", escape(machine.get("cores", MISSING)))
    ram = machine.get("ram_gb")
    m.add("machineRam", f"{float(ram):.0f}\\,GB" if isinstance(ram, (int, float)) else MISSING)
    m.add("machineOs", escape(machine.get("os", MISSING)).replace("-", "-\\allowbreak{}"))
    m.add("pythonVersion", escape(str(meta.get("python", MISSING)).split()[0]))
    m.add("kissatVersion", escape(meta.get("kissat_version") or MISSING))
    for package in ("numpy", "numba", "python-sat", "pandas"):
        m.add(macro_name(package, "version"), escape(packages.get(package, MISSING)))

    # instances: clues per n
    for n in sorted(set(ns) | set(CANONICAL_N)):
        w = number_word(n)
        clues = pd.to_numeric(runs.loc[runs["n"] == n, "clues"], errors="coerce").dropna()
        if len(clues):
            per_instance = runs.loc[runs["n"] == n].drop_duplicates("instance")
            c = pd.to_numeric(per_instance["clues"], errors="coerce").dropna()
            m.add(f"cluesMedianN{w}", tex_int(float(c.median())))
            m.add(f"cluesPctN{w}", f"{100 * float(c.median()) / n ** 4:.0f}")
            m.add(f"emptiesMedianN{w}", tex_int(n ** 4 - float(c.median())))
            m.add(f"cluesMinN{w}", tex_int(float(c.min())))
            m.add(f"cluesMaxN{w}", tex_int(float(c.max())))
        else:
            for q in ("cluesMedian", "cluesPct", "emptiesMedian", "cluesMin", "cluesMax"):
                m.add(f"{q}N{w}", MISSING)
        # reduction sizes (formulas)
        m.add(f"varsN{w}", tex_int(n ** 6))
        m.add(f"minimalClausesN{w}", tex_int(minimal_clauses(n)))
        m.add(f"extendedClausesN{w}", tex_int(extended_clauses(n)))
        m.add(f"coverColumnsN{w}", tex_int(4 * n ** 4))
        m.add(f"coverOnesN{w}", tex_int(4 * n ** 6))

    entrants = list(dict.fromkeys([*CANONICAL_ENTRANTS, *campaign.entrants]))
    all_n = sorted(set(ns) | set(CANONICAL_N))
    rows = {(r["entrant"], int(r["n"])): r for _, r in table.iterrows()}
    for entrant in entrants:
        e = macro_name(entrant)
        present = entrant in campaign.entrants
        m.flag(f"has{e[0].upper()}{e[1:]}", present)
        params = _params(campaign, entrant) if present else {}
        m.add(f"{e}Params", ", ".join(f"{escape(k)}={escape(v)}" for k, v in params.items()) or MISSING)
        m.add(f"{e}Encoding", escape(params.get("encoding", MISSING)))
        m.add(f"{e}Backend", escape(params.get("backend", MISSING)))
        sub = table[table["entrant"] == entrant]
        m.add(f"{e}SolvedTotal", f"{int(sub['solved'].sum())}/{int(sub['total'].sum())}" if present else MISSING)
        m.add(f"{e}WrongTotal", tex_int(int(sub["wrong"].sum())) if present else MISSING)
        complete = [int(r.n) for r in sub.itertuples() if r.solved == r.total and r.total > 0]
        m.add(f"{e}MaxAllSolvedN", max(complete) if complete else MISSING)
        failing = [int(r.n) for r in sub.itertuples() if r.solved < r.total]
        m.add(f"{e}FirstFailN", min(failing) if failing else MISSING)
        g = growth[growth["entrant"] == entrant]
        g = g.iloc[0] if len(g) else None
        m.add(f"{e}GrowthFactor", tex_float(g["factor"]) if g is not None else MISSING)
        m.add(f"{e}GrowthSlope", tex_float(g["slope"]) if g is not None else MISSING)
        m.add(f"{e}GrowthFrom", int(g["n_from"]) if g is not None and g["points"] else MISSING)
        m.add(f"{e}GrowthTo", int(g["n_to"]) if g is not None and g["points"] else MISSING)
        m.add(f"{e}GrowthPoints", int(g["points"]) if g is not None else MISSING)
        # SAT: how many formulas the clues alone decided (no variable left after propagation)
        solved = runs[(runs["entrant"] == entrant) & runs["status"].isin(analysis.ANSWERED)]
        has_vars = solved["vars"].dropna()
        m.add(f"{e}EmptyFormulaCount", tex_int(int((has_vars == 0).sum())) if len(has_vars) else MISSING)
        m.add(f"{e}FormulaCount", tex_int(len(has_vars)) if len(has_vars) else MISSING)
        # DLX: solves whose search tree is a single path (one node per cell plus the root)
        with_nodes = solved[solved["nodes"].notna() & solved["updates"].notna()]
        path = (with_nodes["nodes"] == with_nodes["n"] ** 4 + 1).sum()
        m.add(f"{e}NoBacktrackCount", tex_int(int(path)) if len(with_nodes) else MISSING)
        m.add(f"{e}NodesCount", tex_int(len(with_nodes)) if len(with_nodes) else MISSING)
        # CDCL: solves that needed no conflict at all (unit propagation alone)
        conflicts = solved["conflicts"].dropna()
        m.add(f"{e}ZeroConflictCount", tex_int(int((conflicts == 0).sum())) if len(conflicts) else MISSING)
        m.add(f"{e}ConflictCount", tex_int(len(conflicts)) if len(conflicts) else MISSING)
        for n in all_n:
            w = f"N{number_word(n)}"
            r = rows.get((entrant, n))
            if r is None:
                for q in ("Median", "MedianSec", "IqrLow", "IqrHigh", "Solved", "SolvedPct", "ParTwo",
                          "Timeouts", "Nodes", "Updates", "Conflicts", "Decisions", "Propagations",
                          "Vars", "Clauses", "MupsSearch", "EncodeShare", "SearchShare", "Search",
                          "Encode", "Build"):
                    m.add(f"{e}{q}{w}", MISSING)
                continue
            limit = float(r["limit_s"])
            m.add(f"{e}Median{w}", tex_seconds(r["median_s"], limit))
            m.add(f"{e}MedianSec{w}", f"{r['median_s']:.3g}" if math.isfinite(r["median_s"]) else "inf")
            m.add(f"{e}IqrLow{w}", tex_seconds(r["q25_s"], limit))
            m.add(f"{e}IqrHigh{w}", tex_seconds(r["q75_s"], limit))
            m.add(f"{e}Solved{w}", f"{int(r['solved'])}/{int(r['total'])}")
            m.add(f"{e}SolvedPct{w}", f"{100 * r['solved_frac']:.0f}")
            m.add(f"{e}ParTwo{w}", tex_seconds(r["par2_s"]))
            m.add(f"{e}Timeouts{w}", tex_int(int(r["timeout"])))
            for counter in ("nodes", "updates", "conflicts", "decisions", "propagations", "vars", "clauses"):
                m.add(f"{e}{counter.capitalize()}{w}", tex_int(r[counter]))
            search = r["t_search"]
            mups = r["updates"] / search / 1e6 if search and search > 0 and math.isfinite(r["updates"]) else math.nan
            m.add(f"{e}MupsSearch{w}", tex_float(mups))
            phases = {p: r[p] for p in analysis.PHASES if not math.isnan(r[p])}
            total = sum(phases.values())
            encode = phases.get("t_encode", 0.0) + phases.get("t_write", 0.0)
            m.add(f"{e}EncodeShare{w}", f"{100 * encode / total:.0f}" if total > 0 and "t_encode" in phases
                  else MISSING)
            m.add(f"{e}SearchShare{w}", f"{100 * phases['t_search'] / total:.0f}"
                  if total > 0 and "t_search" in phases else MISSING)
            for phase in ("search", "encode", "build"):
                value = r[f"t_{phase}"]
                m.add(f"{e}{phase.capitalize()}{w}", tex_seconds(value) if math.isfinite(value) else MISSING)
    # the entrant with the smallest median at each n (ties: campaign order)
    for n in all_n:
        at_n = table[(table["n"] == n) & np.isfinite(table["median_s"])]
        best = at_n.loc[at_n["median_s"].idxmin(), "entrant"] if len(at_n) else None
        m.add(f"fastestN{number_word(n)}", f"\\texttt{{{escape(best)}}}" if best else MISSING)
    # comparisons: how many times A's median beats B's, for every ordered pair
    for a in entrants:
        for b in entrants:
            if a == b:
                continue
            for n in all_n:
                m.add(f"speedup{macro_name(a)[0].upper()}{macro_name(a)[1:]}Over"
                      f"{macro_name(b)[0].upper()}{macro_name(b)[1:]}N{number_word(n)}",
                      _ratio(rows.get((a, n)), rows.get((b, n))))
                m.add(f"{macro_name(a)}Vs{macro_name(b)[0].upper()}{macro_name(b)[1:]}N{number_word(n)}",
                      _compare(rows.get((a, n)), rows.get((b, n))))
    return m


# ---------------------------------------------------------------- build

@dataclass
class ReportFiles:
    """What :func:`build` produced."""
    generated: Path
    files: list[Path]
    pdf: Path | None
    message: str


def write_generated(campaign: analysis.Campaign, report_dir: str | Path = REPORT_DIR) -> list[Path]:
    """Write figures, tables and macros.tex into ``report_dir/generated``; return the paths."""
    out = Path(report_dir) / "generated"
    table = analysis.summary(campaign)
    growth = analysis.growth_table(campaign, table)
    written = plots.plot_all(campaign, out)
    entrants = campaign.entrants
    sat = plots.sat_entrants(campaign)
    ns = sorted(set(campaign.n_values) | set(CANONICAL_N))
    files = {
        "table_summary.tex": summary_tabular(table, entrants),
        "table_work.tex": work_tabular(table, entrants),
        "table_phases.tex": phases_tabular(table, sat),
        "table_growth.tex": growth_tabular(growth),
        "table_sizes.tex": sizes_tabular(sizes_table(ns)),
        "macros.tex": campaign_macros(campaign, table, growth).text(),
    }
    for name, text in files.items():
        path = out / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    table.replace([np.inf], "inf").to_csv(out / "summary.csv", index=False)
    written.append(out / "summary.csv")
    return written


def campaign_epoch(campaign: analysis.Campaign) -> int | None:
    """The campaign's creation time (meta.json ``created_at``) in seconds since 1970."""
    try:
        stamp = datetime.fromisoformat(str(campaign.meta.get("created_at", "")).replace("Z", "+00:00"))
    except ValueError:
        return None
    return int(stamp.timestamp()) if stamp.tzinfo else None


def _first_latex_error(log: str) -> str:
    for line in log.splitlines():
        if re.match(r"^(\S+\.tex:\d+:|! )", line):
            return line.strip()
    return log.strip().splitlines()[-1] if log.strip() else "latexmk failed"


def build_pdf(report_dir: str | Path = REPORT_DIR, timeout: float = 300,
              epoch: int | None = None) -> Path:
    """Run latexmk on ``report_dir/report.tex``; return the PDF path. With ``epoch``
    (seconds since 1970) the PDF's dates and ID are fixed to it, so the same campaign
    gives the same bytes.

    Raises RaceError when latexmk is missing (naming the packages to install) or
    when LaTeX fails (with the first error line of the log).
    """
    root = Path(report_dir)
    if shutil.which("latexmk") is None:
        raise RaceError(f"latexmk not found; install LaTeX with: {INSTALL_HINT}")
    if not (root / "report.tex").is_file():
        raise RaceError(f"{root / 'report.tex'}: missing")
    cmd = ["latexmk", "-pdf", "-interaction=nonstopmode", "-halt-on-error", "-file-line-error",
           "report.tex"]
    try:
        env = dict(os.environ)
        if epoch is not None:
            env.update(SOURCE_DATE_EPOCH=str(epoch), FORCE_SOURCE_DATE="1")
        proc = subprocess.run(cmd, cwd=root, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        raise RaceError(f"latexmk did not finish within {timeout:.0f} s", source=str(root)) from None
    pdf = root / "report.pdf"
    if proc.returncode != 0 or not pdf.is_file():
        log_path = root / "report.log"
        log = log_path.read_text(errors="replace") if log_path.is_file() else proc.stdout + proc.stderr
        raise RaceError(f"LaTeX failed: {_first_latex_error(log)} (full log: {log_path})")
    return pdf


def build(campaign_dir: str | Path, report_dir: str | Path = REPORT_DIR, pdf: bool = True) -> ReportFiles:
    """Load the campaign, write ``report_dir/generated`` and (when ``pdf`` and latexmk is
    installed) build ``report_dir/report.pdf``. When ``report_dir`` is not the committed
    report directory, the LaTeX sources are copied there first."""
    campaign = analysis.load(campaign_dir)
    root = Path(report_dir)
    root.mkdir(parents=True, exist_ok=True)
    if root.resolve() != REPORT_DIR.resolve():
        for name in SOURCES:
            if not (REPORT_DIR / name).is_file():
                raise RaceError(f"{REPORT_DIR / name}: missing (the report sources)")
            shutil.copy2(REPORT_DIR / name, root / name)
    files = write_generated(campaign, root)
    generated = root / "generated"
    if not pdf:
        return ReportFiles(generated, files, None, f"wrote {len(files)} files to {generated}")
    if shutil.which("latexmk") is None:
        return ReportFiles(generated, files, None,
                           f"wrote {len(files)} files to {generated}; report.pdf NOT built: latexmk is "
                           f"missing. Install LaTeX with:\n  {INSTALL_HINT}")
    path = build_pdf(root, epoch=campaign_epoch(campaign))
    return ReportFiles(generated, files, path, f"wrote {len(files)} files to {generated}; built {path}")
