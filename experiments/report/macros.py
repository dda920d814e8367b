"""``macros.tex``: the numbers report.tex quotes, one ``\\newcommand`` each.

Macro names are letters only: ``\\<entrant><Quantity>N<n in words>``, e.g.
``\\dlxMedianNFive`` (median wall time of entrant ``dlx`` at n = 5, with its
unit), ``\\backtrackingSolvedNFour`` ("3/5"). The macros are computed for the
entrants of :data:`CANONICAL_ENTRANTS` and the campaign's, and for n = 2..5 and
the campaign's n ("n/a" when the campaign lacks a number), so report.tex
compiles from any campaign; :class:`experiments.report.tex.Macros` keeps only
the ones the document uses.
"""

from __future__ import annotations

import json
import math
from datetime import datetime

import numpy as np
import pandas as pd

from experiments.analysis import bootstrap
from experiments.analysis import frontier as frontier_data
from experiments.analysis import censored_stats
from experiments.analysis.compare import TOLERANCE
from experiments.harness.schema import Status
from experiments.report import family_sections
from experiments.report.frontier import add_frontier
from experiments.report.virtual_best import add_virtual_best
from experiments.report.tex import (MISSING, Macros, escape, macro_name, number_word, tex_factor_high,
                                    tex_float, tex_int, tex_seconds)
from solvers import methods
from solvers.sat.sudoku_cnf import structural_clause_count

#: entrants and n the text may quote; their macros always exist
CANONICAL_ENTRANTS: tuple[str, ...] = ("backtracking", "dlx", "sat", "kissat", "dlx:heuristic=first",
                                        "sat:encoding=extended", "sat:encoding=minimal")
CANONICAL_N: tuple[int, ...] = (2, 3, 4, 5)
#: per-(entrant, n) quantities, all "n/a" when the entrant has no row at that n
PER_N = ("Median", "MedianLow", "MedianHigh", "MedianSec", "IqrLow", "IqrHigh", "Solved", "SolvedPct", "ParTwo", "Timeouts",
         "Nodes", "Updates", "Conflicts", "Decisions", "Propagations", "Vars", "Clauses",
         "MupsSearch", "EncodeShare", "SearchShare", "Search", "Encode", "Build")
#: the statuses whose campaign-wide counts are macros
COUNTED = (Status.TIMEOUT, Status.MEMOUT, Status.ERROR, Status.WRONG, Status.SKIPPED, Status.UNKNOWN)


def _capital(name: str) -> str:
    return name[0].upper() + name[1:]


def _params(campaign: censored_stats.Campaign, entrant: str) -> dict:
    values = campaign.runs.loc[campaign.runs["entrant"] == entrant, "params"].dropna()
    try:
        return json.loads(values.iloc[0]) if len(values) else {}
    except (json.JSONDecodeError, TypeError):
        return {}


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


def _created(meta: dict) -> str:
    created = str(meta.get("created_at") or "")
    try:
        return datetime.fromisoformat(created.replace("Z", "+00:00")).strftime("%Y-%m-%d %H:%M UTC")
    except ValueError:
        return created


def add_campaign(m: Macros, campaign: censored_stats.Campaign) -> None:
    """The campaign's command, limits, counts, machine and versions."""
    meta, runs, ns = campaign.meta, campaign.runs, campaign.n_values
    m.add("campaignName", f"\\texttt{{{escape(campaign.name)}}}")
    command = escape(meta.get("command", MISSING)).replace(",", ",\\allowbreak{}")
    m.add("campaignCommand", f"\\texttt{{{command}}}")
    m.add("campaignDate", escape(_created(meta) or MISSING))
    for key in ("seed", "instances", "repeats", "jobs", "executor"):
        m.add(macro_name("campaign", key), escape(meta.get(key, MISSING)))
    m.add("campaignFamilies", escape(", ".join(campaign.families)))
    m.add("campaignFamilyCount", len(campaign.families))
    m.add("campaignFirstFamily", escape(campaign.families[0]))
    m.add("bootstrapResamples", tex_int(bootstrap.RESAMPLES))
    m.add("ciPct", f"{100 * bootstrap.CONFIDENCE:.0f}")
    m.add("compareTiePct", f"{100 * TOLERANCE:.0f}")
    m.add("campaignTimeout", tex_seconds(campaign.timeout_s))
    memory = meta.get("memory_mb")
    m.add("campaignMemory", f"{tex_int(float(memory))}\\,MB" if memory else MISSING)
    commit = str(meta.get("git_commit") or MISSING)
    m.add("campaignGitCommit", f"\\texttt{{{escape(commit[:10])}}}"
          + (" (with uncommitted changes)" if commit.endswith("-dirty") else ""))
    m.add("campaignNValues", ", ".join(map(str, ns)))
    m.add("campaignNMin", min(ns))
    m.add("campaignNMax", max(ns))
    m.add("campaignEntrants", ", ".join(f"\\texttt{{{escape(e)}}}" for e in campaign.entrants))
    m.add("campaignEntrantCount", len(campaign.entrants))
    raced = methods.of_entrants(campaign.entrants)     # the title's methods: those raced
    m.add("campaignMethods", escape(methods.names(raced)) if raced else "outside programs")
    m.add("campaignMethodCount", methods.count_word(len(raced)))
    m.add("campaignCells", tex_int(len(runs)))
    m.add("campaignInstanceCount", tex_int(runs[["n", "instance"]].drop_duplicates().shape[0]))
    for status in COUNTED:
        m.add(macro_name("campaign", status.value, "count"), tex_int(int((runs["status"] == status).sum())))
    machine, packages = meta.get("machine") or {}, meta.get("packages") or {}
    m.add("machineCpu", escape(machine.get("cpu_model", MISSING)))
    m.add("machineCores", escape(machine.get("cores", MISSING)))
    ram = machine.get("ram_gb")
    m.add("machineRam", f"{float(ram):.0f}\\,GB" if isinstance(ram, (int, float)) else MISSING)
    m.add("machineOs", escape(machine.get("os", MISSING)).replace("-", "-\\allowbreak{}"))
    m.add("pythonVersion", escape(str(meta.get("python", MISSING)).split()[0]))
    m.add("kissatVersion", escape(meta.get("kissat_version") or MISSING))
    for package in ("numpy", "numba", "python-sat", "pandas"):
        m.add(macro_name(package, "version"), escape(packages.get(package, MISSING)))


def add_instances(m: Macros, campaign: censored_stats.Campaign, all_n: list[int]) -> None:
    """Clues per n and the sizes of the reductions (formulas)."""
    runs = campaign.runs
    for n in all_n:
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
        m.add(f"varsN{w}", tex_int(n ** 6))
        m.add(f"minimalClausesN{w}", tex_int(structural_clause_count(n, "minimal")))
        m.add(f"extendedClausesN{w}", tex_int(structural_clause_count(n, "extended")))
        m.add(f"coverColumnsN{w}", tex_int(4 * n ** 4))
        m.add(f"coverOnesN{w}", tex_int(4 * n ** 6))


def add_entrant(m: Macros, campaign: censored_stats.Campaign, table: pd.DataFrame, growth: pd.DataFrame,
                entrant: str) -> None:
    """An entrant's parameters, totals, growth and solve-shape counts."""
    e = macro_name(entrant)
    present = entrant in campaign.entrants
    m.flag(f"has{_capital(e)}", present)
    params = _params(campaign, entrant) if present else {}
    m.add(f"{e}Params", ", ".join(f"{escape(k)}={escape(v)}" for k, v in params.items()) or MISSING)
    m.add(f"{e}Encoding", escape(params.get("encoding", MISSING)))
    m.add(f"{e}Backend", escape(params.get("backend", MISSING)))
    sub = table[table["entrant"] == entrant]
    m.add(f"{e}SolvedTotal", f"{int(sub['solved'].sum())}/{int(sub['total'].sum())}" if present else MISSING)
    m.add(f"{e}WrongTotal", tex_int(int(sub[Status.WRONG.value].sum())) if present else MISSING)
    complete = [int(r.n) for r in sub.itertuples() if r.solved == r.total and r.total > 0]
    m.add(f"{e}MaxAllSolvedN", max(complete) if complete else MISSING)
    failing = [int(r.n) for r in sub.itertuples() if r.solved < r.total]
    m.add(f"{e}FirstFailN", min(failing) if failing else MISSING)
    g = growth[growth["entrant"] == entrant]
    g = g.iloc[0] if len(g) else None
    m.add(f"{e}GrowthFactor", tex_float(g["factor"]) if g is not None else MISSING)
    m.add(f"{e}GrowthSlope", tex_float(g["slope"]) if g is not None else MISSING)
    m.add(f"{e}GrowthLow", tex_float(g["factor_lo"]) if g is not None else MISSING)
    m.add(f"{e}GrowthHigh", tex_factor_high(g["factor_hi"]) if g is not None else MISSING)
    m.add(f"{e}GrowthFrom", int(g["n_from"]) if g is not None and g["points"] else MISSING)
    m.add(f"{e}GrowthTo", int(g["n_to"]) if g is not None and g["points"] else MISSING)
    m.add(f"{e}GrowthPoints", int(g["points"]) if g is not None else MISSING)
    runs = campaign.runs
    mine = runs["entrant"] == entrant
    add_solve_shapes(m, e, runs[mine & censored_stats.answered(runs)])


def add_solve_shapes(m: Macros, e: str, solved: pd.DataFrame) -> None:
    """Counts over an entrant's answered runs: formulas the clues alone decided (SAT),
    search trees that are a single path (DLX), solves without a conflict (CDCL)."""
    has_vars = solved["vars"].dropna()
    m.add(f"{e}EmptyFormulaCount", tex_int(int((has_vars == 0).sum())) if len(has_vars) else MISSING)
    m.add(f"{e}FormulaCount", tex_int(len(has_vars)) if len(has_vars) else MISSING)
    with_nodes = solved[solved["nodes"].notna() & solved["updates"].notna()]
    path = (with_nodes["nodes"] == with_nodes["n"] ** 4 + 1).sum()    # one node per cell + the root
    m.add(f"{e}NoBacktrackCount", tex_int(int(path)) if len(with_nodes) else MISSING)
    m.add(f"{e}NodesCount", tex_int(len(with_nodes)) if len(with_nodes) else MISSING)
    conflicts = solved["conflicts"].dropna()
    m.add(f"{e}ZeroConflictCount", tex_int(int((conflicts == 0).sum())) if len(conflicts) else MISSING)
    m.add(f"{e}ConflictCount", tex_int(len(conflicts)) if len(conflicts) else MISSING)


def add_entrant_at(m: Macros, e: str, w: str, r: pd.Series | None) -> None:
    """An entrant's statistics at one n (``w`` = ``N<n in words>``) from its summary row."""
    if r is None:
        for q in PER_N:
            m.add(f"{e}{q}{w}", MISSING)
        return
    limit = float(r["limit_s"])
    m.add(f"{e}Median{w}", tex_seconds(r["median_s"], limit))
    m.add(f"{e}MedianLow{w}", tex_seconds(r["median_lo"], limit))
    m.add(f"{e}MedianHigh{w}", tex_seconds(r["median_hi"], limit))
    m.add(f"{e}MedianSec{w}", f"{r['median_s']:.3g}" if math.isfinite(r["median_s"]) else "inf")
    m.add(f"{e}IqrLow{w}", tex_seconds(r["q25_s"], limit))
    m.add(f"{e}IqrHigh{w}", tex_seconds(r["q75_s"], limit))
    m.add(f"{e}Solved{w}", f"{int(r['solved'])}/{int(r['total'])}")
    m.add(f"{e}SolvedPct{w}", f"{100 * r['solved_frac']:.0f}")
    m.add(f"{e}ParTwo{w}", tex_seconds(r["par2_s"]))
    m.add(f"{e}Timeouts{w}", tex_int(int(r[Status.TIMEOUT.value])))
    for counter in ("nodes", "updates", "conflicts", "decisions", "propagations", "vars", "clauses"):
        m.add(f"{e}{counter.capitalize()}{w}", tex_int(r[counter]))
    search = r["t_search"]
    mups = r["updates"] / search / 1e6 if search and search > 0 and math.isfinite(r["updates"]) else math.nan
    m.add(f"{e}MupsSearch{w}", tex_float(mups))
    phases = {p: r[p] for p in censored_stats.PHASES if not math.isnan(r[p])}
    total = sum(phases.values())
    encode = phases.get("t_encode", 0.0) + phases.get("t_write", 0.0)
    m.add(f"{e}EncodeShare{w}", f"{100 * encode / total:.0f}" if total > 0 and "t_encode" in phases
          else MISSING)
    m.add(f"{e}SearchShare{w}", f"{100 * phases['t_search'] / total:.0f}"
          if total > 0 and "t_search" in phases else MISSING)
    for phase in ("search", "encode", "build"):
        value = r[f"t_{phase}"]
        m.add(f"{e}{phase.capitalize()}{w}", tex_seconds(value) if math.isfinite(value) else MISSING)


def add_comparisons(m: Macros, table: pd.DataFrame, entrants: list[str], all_n: list[int]) -> None:
    """The fastest entrant at each n (ties: campaign order) and, for every ordered pair of
    entrants, a phrase comparing their medians (``\\backtrackingVsDlxNFive``)."""
    rows = {(r["entrant"], int(r["n"])): r for _, r in table.iterrows()}
    for n in all_n:
        at_n = table[(table["n"] == n) & np.isfinite(table["median_s"])]
        best = at_n.loc[at_n["median_s"].idxmin(), "entrant"] if len(at_n) else None
        m.add(f"fastestN{number_word(n)}", f"\\texttt{{{escape(best)}}}" if best else MISSING)
    for a in entrants:
        for b in entrants:
            if a == b:
                continue
            for n in all_n:
                m.add(f"{macro_name(a)}Vs{_capital(macro_name(b))}N{number_word(n)}",
                      _compare(rows.get((a, n)), rows.get((b, n))))


def campaign_macros(campaign: censored_stats.Campaign, table: pd.DataFrame, growth: pd.DataFrame,
                    wanted: set[str] | None = None, has_landscape: bool = False,
                    frontier: tuple[pd.DataFrame, pd.DataFrame] | None = None) -> Macros:
    """The report's macros (see the module docstring); with ``wanted`` (the control words
    report.tex uses) only those are kept. ``has_landscape``: the flag ``\\ifhasLandscape``
    (a landscape figure is included); ``frontier``: the frontier campaigns' group and entrant
    rows (:mod:`experiments.analysis.frontier`), whose macros
    (:func:`experiments.report.frontier.add_frontier`) are "n/a" without them."""
    m = Macros(wanted)
    m.flag("hasLandscape", has_landscape)
    add_campaign(m, campaign)
    family_sections.add_families(m, campaign, table, growth, CANONICAL_ENTRANTS)
    add_virtual_best(m, campaign, table)
    add_frontier(m, *(frontier or (frontier_data.group_rows([]), frontier_data.entrant_rows([]))), table)
    # the per-entrant, per-n macros describe the first family (the assignment's puzzles)
    first = campaign.families[0]
    campaign, table, growth = (campaign.family(first), family_sections.of_family(table, first),
                               family_sections.of_family(growth, first))
    all_n = sorted(set(campaign.n_values) | set(CANONICAL_N))
    entrants = list(dict.fromkeys([*CANONICAL_ENTRANTS, *campaign.entrants]))
    add_instances(m, campaign, all_n)
    rows = {(r["entrant"], int(r["n"])): r for _, r in table.iterrows()}
    for entrant in entrants:
        add_entrant(m, campaign, table, growth, entrant)
        for n in all_n:
            add_entrant_at(m, macro_name(entrant), f"N{number_word(n)}", rows.get((entrant, n)))
    add_comparisons(m, table, entrants, all_n)
    return m
