"""Analysis of a race campaign: from ``runs.csv`` to per-entrant, per-n statistics.

A campaign directory holds ``runs.csv`` (one row per cell: entrant x n x
instance x repeat) and ``meta.json`` (see the records contract). This module
loads it and summarises it, treating every run that did not end in a verified
answer (timeout, memout, error, wrong, unknown, skipped) as **censored**: its
time is "more than the limit", never a number to average.

Repeats of one instance are first collapsed to one time per instance (their
median, censored when the median is censored); all statistics are then over
instances. Per entrant and n:

* ``solved`` / ``total`` / ``solved_frac``: instances answered correctly within
  the limit;
* ``median_s``, ``q25_s``, ``q75_s``: quantiles of wall time over *all*
  instances with censored ones as +inf, so a quantile is ``inf`` ("> limit")
  exactly when at least that share of instances was not solved;
* ``par2_s``: PAR-2, the mean of the solved times with every unsolved instance
  counted as twice the limit (the SAT competition's secondary score);
* medians of the work counters and phase times over solved instances;
* counts of each status, ``wrong`` included (a wrong answer is loud).

A campaign may race several instance *families* (``unique``, ``minimal``, ``hard``,
...; :mod:`experiments.harness.identity`); every statistic is per family, and
:meth:`Campaign.family` gives the campaign restricted to one. In the loaded table,
column ``family`` holds each family's name in the campaign (its label, or its key where
two families share a label) and ``family_key`` its key (runs.csv's ``family``). Each
median and growth factor carries a seeded bootstrap interval over instances (:mod:`experiments.analysis.bootstrap`).

:func:`growth` fits how fast each entrant's median time grows with n.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from experiments.analysis import bootstrap
from experiments.harness import records, schema
from experiments.harness.identity import family_label, family_names, meta_family_labels
from experiments.harness.provenance import read_meta
from experiments.harness.schema import Status
from formats.errors import RaceError, printable

#: phase-time columns, in pipeline order
PHASES: list[str] = list(schema.PHASE_COLUMNS)
#: work-counter columns
COUNTERS: list[str] = list(schema.WORK_COUNTERS)
#: the instance families in the order the analysis shows them (the assignment's first), by label
FAMILIES: tuple[str, ...] = ("unique", "minimal", "hard", "holes")


def family_rank(name: str) -> int:
    """Where the family named ``name`` goes in :data:`FAMILIES`' order (others after them)."""
    label = family_label(name)
    return FAMILIES.index(label) if label in FAMILIES else len(FAMILIES)


def of_families(names: pd.Series, wanted: list[str]) -> pd.Series:
    """Which of the family ``names`` are ``wanted``: by name, or by label (``holes`` takes
    ``holes@0.3`` and ``holes@0.5``)."""
    return names.isin(wanted) | names.astype(str).map(family_label).isin(wanted)


@dataclass
class Campaign:
    """A loaded campaign: its directory, the runs table and the metadata."""
    path: Path
    runs: pd.DataFrame
    meta: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return str(self.meta.get("campaign") or self.path.name)

    @property
    def entrants(self) -> list[str]:
        """Entrants in the order the campaign declared them (then any others as they appear)."""
        declared = [str(e) for e in self.meta.get("entrants") or []]
        seen = list(dict.fromkeys(self.runs["entrant"].astype(str)))
        return [e for e in declared if e in seen] + [e for e in seen if e not in declared]

    @property
    def families(self) -> list[str]:
        """The names of the campaign's instance families: in :data:`FAMILIES`' order
        (:func:`family_rank`), the others after them in the order they first appear."""
        seen = list(dict.fromkeys(self.runs["family"].astype(str)))
        return sorted(seen, key=family_rank)

    def family(self, name: str) -> "Campaign":
        """The campaign restricted to the instances of the family named ``name``."""
        runs = self.runs[self.runs["family"] == name].reset_index(drop=True)
        return Campaign(self.path, runs, self.meta | {"family": name})

    def holes_by_n(self, name: str) -> dict[int, float]:
        """The hole fraction of the family ``name`` at each n (empty for families without holes)."""
        runs = self.runs[self.runs["family"].astype(str) == name]
        holes = pd.to_numeric(runs["holes"], errors="coerce")
        return {int(n): float(h) for n, h in zip(runs["n"], holes) if pd.notna(h)}

    @property
    def n_values(self) -> list[int]:
        return sorted(int(v) for v in self.runs["n"].unique())

    @property
    def timeout_s(self) -> float:
        """The campaign's time limit: meta.json's, else the largest in the runs."""
        value = self.meta.get("timeout_s")
        if value is None:
            value = pd.to_numeric(self.runs["timeout_s"], errors="coerce").max()
        return float(value)


def campaign_root(path: str | Path) -> Path:
    """The campaign directory ``path`` names: ``path`` itself when it holds runs.csv (or is
    no directory: :func:`load` says what is wrong), else the one campaign inside it (what
    ``race run --out PATH`` made). Raises RaceError when it holds several, naming them."""
    root = Path(path)
    if (root / "runs.csv").is_file() or not root.is_dir():
        return root
    inside = sorted(found.parent for found in root.glob("*/runs.csv"))
    if len(inside) > 1:
        names = ", ".join(p.name for p in inside[:5]) + (", ..." if len(inside) > 5 else "")
        raise RaceError(f"{root}: holds {len(inside)} campaigns ({names}); name one, "
                        f"e.g. {inside[0]}")
    return inside[0] if inside else root


def load(path: str | Path) -> Campaign:
    """Load ``path/runs.csv`` and ``path/meta.json`` (``path``: see :func:`campaign_root`).

    Raises RaceError when the directory or either file is missing, unreadable or
    malformed, when the header lacks a column, or when there are no valid rows.
    Rows are validated by :func:`experiments.harness.records.scan`: a damaged row
    is left out (and reported in one line on stderr), never counted.
    """
    root = campaign_root(path)
    if not root.is_dir():
        raise RaceError(f"{root}: not a campaign directory (expected runs.csv and meta.json in it)")
    csv_path, meta_path = root / "runs.csv", root / "meta.json"
    if not csv_path.is_file():
        raise RaceError(f"{csv_path}: missing (is {root} a campaign written by `race run`?)")
    runs = _valid_runs(csv_path)
    runs["entrant"] = runs["entrant"].astype(str)
    if not meta_path.is_file():
        raise RaceError(f"{meta_path}: missing (is {root} a campaign written by `race run`?)")
    meta = read_meta(meta_path)
    default = meta_family_labels(meta).split(",")[0].strip() or "unique"
    keys = runs["family"].astype(object).where(runs["family"].notna(), default).astype(str).str.strip()
    runs["family_key"] = keys
    runs["family"] = keys.map(family_names(keys))
    return Campaign(root, settle(runs, root), meta)


def settle(runs: pd.DataFrame, root: Path | None = None) -> pd.DataFrame:
    """Disagreements settled by the verified grid: an ``unsat`` claim on an instance for
    which another row holds a verified solution is ``wrong`` (not answered), whatever the
    order or the majority. The referee does this when a campaign runs; this also settles
    campaigns recorded before it did. Instances are matched by sha256 (else by family,
    n and file). With the campaign's directory ``root``, an ``unsat`` claim the referee
    did not rule on (blank ``referee``: recorded before it, or edited) is also checked
    against what its instance file records (:func:`_recorded_refutations`)."""
    runs = runs.copy()
    if root is not None:
        runs = _recorded_refutations(runs, root)
    ident = runs["instance_sha256"].astype(object).where(
        runs["instance_sha256"].notna(),
        runs["family"].astype(str) + "|" + runs["n"].astype(str) + "|" + runs["instance"].astype(str))
    proved = answered(runs) & (runs["status"] == Status.SOLVED)
    solved = set(ident[proved])
    refuted = (runs["status"] == Status.UNSAT) & ident.isin(solved)
    if refuted.any():
        by = {i: e for i, e in zip(ident[proved], runs.loc[proved, "entrant"])}
        runs["message"] = runs["message"].astype(object)     # all blank: read as float NaN
        runs.loc[refuted, "message"] = [
            f"claimed no solution, but {by[i]} returned a verified solution of this instance"
            for i in ident[refuted]]
        runs.loc[refuted, "status"] = Status.WRONG.value
        runs.loc[refuted, "verified"] = "False"
    return runs


def _recorded_refutations(runs: pd.DataFrame, root: Path) -> pd.DataFrame:
    """``runs`` with each ``unsat`` row the referee did not rule on turned ``wrong`` when its
    instance file (under the campaign's or its ``--out`` directory's ``instances/``, and with
    the row's sha256) holds a solution that verifies (:func:`experiments.harness.referee.truth_of`:
    proof; what its header says is not)."""
    import hashlib

    from experiments.harness.referee import truth_of
    from formats import grid_text
    unruled = (runs["status"] == Status.UNSAT) & runs["referee"].isna()
    if not unruled.any():
        return runs
    evidence: dict[str, str] = {}
    caches = [d for d in (root.parent / "instances", root / "instances") if d.is_dir()]
    # the file, or (a generated family's) the file in its set's directory: listed once
    places = caches + [d for c in caches for d in sorted(c.iterdir()) if d.is_dir()]
    for instance, sha in set(zip(runs.loc[unruled, "instance"].astype(str),
                                 runs.loc[unruled, "instance_sha256"].astype(str))):
        paths = [d / instance for d in places]
        for path in paths:
            try:
                data = path.read_bytes() if path.is_file() else None
            except OSError:
                data = None
            if data is None or (sha not in ("", "nan") and hashlib.sha256(data).hexdigest() != sha):
                continue
            try:
                truth = truth_of(grid_text.parse(data.decode("utf-8"), str(path)), name=str(path))
            except (RaceError, UnicodeDecodeError):
                break
            if truth.proven:            # a verified solution it holds; its header is no proof
                evidence[instance] = truth.evidence
            break
    refuted = unruled & runs["instance"].astype(str).isin(evidence)
    if refuted.any():
        runs["message"] = runs["message"].astype(object)
        runs.loc[refuted, "message"] = [f"claimed no solution, but {evidence[i]}"
                                        for i in runs.loc[refuted, "instance"].astype(str)]
        runs.loc[refuted, "status"] = Status.WRONG.value
        runs.loc[refuted, "verified"] = "False"
    return runs


def _valid_runs(csv_path: Path) -> pd.DataFrame:
    """The valid rows of ``csv_path`` as a table (blank cells NaN, numbers numeric)."""
    found = records.scan(csv_path)
    if found.header_problem:
        raise RaceError(f"{found.header_problem} (expected the runs.csv header: "
                        f"{','.join(schema.COLUMNS[:6])},...)", source=str(csv_path), line=1)
    if found.damaged:
        print(f"race: warning: {printable(str(csv_path))}: left out {len(found.damaged)} damaged "
              f"row(s): {records.describe(found.damaged)}", file=sys.stderr)
    if not found.rows:
        raise RaceError("no runs recorded" + (" (no valid row)" if found.damaged else ""),
                        source=str(csv_path))
    runs = pd.DataFrame([{c: row[c] if row[c] else np.nan for c in schema.COLUMNS}
                         for row in found.rows], columns=list(schema.COLUMNS))
    for column in (*schema.NUMERIC, "seed", "clues"):
        runs[column] = pd.to_numeric(runs[column], errors="coerce")
    runs["n"] = runs["n"].astype(int)
    runs["repeat"] = runs["repeat"].fillna(0).astype(int)
    return runs


# ---------------------------------------------------------------- censored statistics

def censored_quantile(times: np.ndarray | list[float], q: float) -> float:
    """The q-quantile (linear interpolation) of ``times`` where unsolved runs are ``inf``.

    Returns ``inf`` when the quantile falls on or next to a censored value (the
    honest answer is then "more than the limit"), ``nan`` for no data.
    """
    values = np.sort(np.asarray(times, dtype=float))
    if values.size == 0:
        return math.nan
    position = q * (values.size - 1)
    lo, hi = int(math.floor(position)), int(math.ceil(position))
    if math.isinf(values[lo]) or math.isinf(values[hi]):
        return math.inf
    return float(values[lo] + (values[hi] - values[lo]) * (position - lo))


def par2(times: np.ndarray | list[float], limit: float) -> float:
    """PAR-2: mean time with every unsolved run (``inf``) counted as 2 x limit."""
    values = np.asarray(times, dtype=float)
    if values.size == 0:
        return math.nan
    return float(np.where(np.isinf(values), 2.0 * limit, values).mean())


def answered(runs: pd.DataFrame) -> pd.Series:
    """Per run, whether it is a measured answer (:func:`experiments.harness.schema.answered`);
    every other run is censored."""
    return pd.Series([schema.answered(status, verified)
                      for status, verified in zip(runs["status"], runs["verified"])],
                     index=runs.index, dtype=bool)


INSTANCE_COLUMNS = ["entrant", "family", "n", "instance", "instance_sha256", "time", "status", "repeats",
                    "spread"]


def instance_times(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per (entrant, family, n, instance): the median over repeats of the wall
    time, ``inf`` for censored runs (anything but a verified answer), the status of
    the instance (``solved`` when that median is finite, else the worst status), and
    ``spread``, the coefficient of variation of the repeats' times (``nan`` unless
    there are two or more repeats, all answered)."""
    frame = runs.copy()
    if "family" not in frame.columns:
        frame["family"] = "unique"
    frame["family"] = frame["family"].fillna("unique").astype(str)
    ok = answered(frame) & frame["wall_s"].notna()
    frame["time"] = np.where(ok, frame["wall_s"], np.inf)
    rank = {s: i for i, s in enumerate(schema.SEVERITY)}
    rows = []
    for (entrant, family, n, instance), group in frame.groupby(["entrant", "family", "n", "instance"],
                                                               sort=False):
        times = group["time"].to_numpy(dtype=float)
        t = censored_quantile(times, 0.5)
        worst = max(group["status"], key=lambda s: rank.get(s, 0))
        spread = (float(np.std(times, ddof=1) / np.mean(times))
                  if len(times) > 1 and np.isfinite(times).all() and np.mean(times) > 0 else math.nan)
        sha = group["instance_sha256"].dropna() if "instance_sha256" in group else pd.Series([], dtype=str)
        rows.append({"entrant": entrant, "family": family, "n": int(n), "instance": instance,
                     "instance_sha256": str(sha.iloc[0]) if len(sha) else "",
                     "time": t, "status": group["status"].iloc[0] if math.isfinite(t) else worst,
                     "repeats": len(group), "spread": spread})
    return pd.DataFrame(rows, columns=INSTANCE_COLUMNS)


def summary(campaign: Campaign) -> pd.DataFrame:
    """Per family, entrant and n (families and entrants in campaign order, n ascending)
    the statistics described in the module docstring, with ``median_lo`` and
    ``median_hi``, the bootstrap interval of the median. Times in seconds; ``inf`` =
    censored."""
    runs = campaign.runs
    per_instance = instance_times(runs)
    rows = []
    for family in campaign.families:
        for entrant in campaign.entrants:
            mine = (runs["entrant"] == entrant) & (runs["family"] == family)
            for n in sorted(runs.loc[mine, "n"].unique()):
                cells = runs[mine & (runs["n"] == n)]
                inst = per_instance[(per_instance["entrant"] == entrant) & (per_instance["family"] == family)
                                    & (per_instance["n"] == n)]
                rows.append(_summary_row(cells, inst["time"].to_numpy(dtype=float), campaign.timeout_s)
                            | {"family": family, "entrant": entrant, "n": int(n)})
    columns = ["family", "entrant", "n"]
    frame = pd.DataFrame(rows)
    return frame[columns + [c for c in frame.columns if c not in columns]] if rows else frame


def _summary_row(cells: pd.DataFrame, times: np.ndarray, limit: float) -> dict:
    """The statistics of one (family, entrant, n): ``cells`` its runs, ``times`` its
    per-instance times (``inf`` = censored)."""
    solved_runs = cells[answered(cells)]
    cell_limit = pd.to_numeric(cells["timeout_s"], errors="coerce").max()
    cell_limit = float(cell_limit) if pd.notna(cell_limit) else limit
    interval = bootstrap.median_interval(times)
    finite = np.isfinite(times)
    row = {
        "total": len(times), "solved": int(finite.sum()),
        "solved_frac": float(finite.mean()) if len(times) else math.nan,
        "runs": len(cells),
        "median_s": censored_quantile(times, 0.5),
        "median_lo": interval.low, "median_hi": interval.high,
        "q25_s": censored_quantile(times, 0.25),
        "q75_s": censored_quantile(times, 0.75),
        "min_s": float(times.min()) if len(times) else math.nan,
        "max_solved_s": float(times[finite].max()) if finite.any() else math.nan,
        "par2_s": par2(times, cell_limit),
        "limit_s": cell_limit,
        "cpu_median_s": float(solved_runs["cpu_s"].median()) if len(solved_runs) else math.nan,
        "rss_median_mb": float(solved_runs["peak_rss_mb"].median()) if len(solved_runs) else math.nan,
    }
    for status in schema.STATUSES:  # runs per status ("solved" above counts instances)
        key = "solved_runs" if status == Status.SOLVED else status
        row[key] = int((cells["status"] == status).sum())
    for column in COUNTERS + PHASES:
        values = solved_runs[column].dropna()
        row[column] = float(values.median()) if len(values) else math.nan
    return row


@dataclass
class Growth:
    """How an entrant's median time grows with n over its solved range.

    ``slope`` is the least-squares slope of log10(median seconds) against n,
    ``factor`` = 10**slope the fitted time multiplier per step of n, ``ratios``
    the observed median(n+1)/median(n) between consecutive measured n.
    """
    entrant: str
    n_values: list[int]
    slope: float
    factor: float
    ratios: dict[int, float]


def growth(table: pd.DataFrame, entrant: str, family: str | None = None) -> Growth:
    """Fit the growth of ``entrant``'s median time (in family ``family``; the table's
    first family when None) over its *solved range*: the n from the smallest measured
    one up to the last n before the first censored median (so a fit never skips an n
    where the entrant failed). Needs two points; slope and factor are ``nan`` otherwise."""
    rows = table[table["entrant"] == entrant]
    if "family" in rows.columns and len(rows):
        rows = rows[rows["family"] == (rows["family"].iloc[0] if family is None else family)]
    rows = rows.sort_values("n")
    ns: list[int] = []
    medians: list[float] = []
    for n, median in zip(rows["n"].astype(int), rows["median_s"].astype(float)):
        if not (math.isfinite(median) and median > 0):
            break
        ns.append(int(n))
        medians.append(float(median))
    if len(ns) >= 2:
        slope = float(np.polyfit(np.asarray(ns, dtype=float), np.log10(medians), 1)[0])
        factor = 10.0 ** slope
    else:
        slope = factor = math.nan
    ratios = {ns[i + 1]: medians[i + 1] / medians[i]
              for i in range(len(ns) - 1) if ns[i + 1] == ns[i] + 1}
    return Growth(entrant, ns, slope, factor, ratios)


def growth_table(campaign: Campaign, table: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per family and entrant: measured n range, slope, factor per n step with its
    bootstrap interval (``factor_lo``, ``factor_hi``; instances resampled within each n),
    last step ratio."""
    table = summary(campaign) if table is None else table
    per_instance = instance_times(campaign.runs)
    rows = []
    for family in campaign.families:
        for entrant in campaign.entrants:
            g = growth(table, entrant, family)
            mine = per_instance[(per_instance["entrant"] == entrant) & (per_instance["family"] == family)]
            interval = bootstrap.growth_interval(
                {n: mine.loc[mine["n"] == n, "time"].to_numpy(dtype=float) for n in g.n_values})
            rows.append({"family": family, "entrant": entrant,
                         "n_from": min(g.n_values) if g.n_values else math.nan,
                         "n_to": max(g.n_values) if g.n_values else math.nan,
                         "points": len(g.n_values), "slope": g.slope, "factor": g.factor,
                         "factor_lo": interval.low, "factor_hi": interval.high,
                         "last_ratio": g.ratios[max(g.ratios)] if g.ratios else math.nan})
    return pd.DataFrame(rows)


def wrong_runs(campaign: Campaign) -> pd.DataFrame:
    """The rows whose status is ``wrong`` (should be empty; never hidden)."""
    return campaign.runs[campaign.runs["status"] == Status.WRONG]


# ---------------------------------------------------------------- formatting

def format_interval(low: float, high: float, limit: float | None = None) -> str:
    """A bootstrap interval of times for humans: ``[1.2 ms, 3.4 ms]``; a censored
    upper end reads ``> 10 s``."""
    if math.isnan(low) or math.isnan(high):
        return "n/a"
    return f"[{format_seconds(low, limit)}, {format_seconds(high, limit)}]"


def format_seconds(value: float, limit: float | None = None) -> str:
    """A time for humans: ``0.0123`` -> ``12.3 ms``; ``inf`` -> ``> 10 s`` (censored)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    if math.isinf(value):
        return f"> {format_seconds(limit)}" if limit is not None and math.isfinite(limit) else "> limit"
    if value == 0:
        return "0 s"
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs")):
        if value >= scale or unit == "µs":
            return f"{value / scale:.3g} {unit}"
    return f"{value:.3g} s"
