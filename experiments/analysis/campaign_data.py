"""A campaign read back: ``runs.csv`` and ``meta.json`` loaded, checked and settled.

:func:`load` turns a campaign directory into a :class:`Campaign`: the valid rows of runs.csv
(a damaged row is named on stderr and left out, never counted), the metadata (read and checked
by :func:`experiments.harness.provenance.read_meta`), each row's family under its name in the
campaign, each entrant under its label (a ``cmd`` entrant's ``name=``: :func:`entrant_labels`),
and every disagreement settled by the verified grid (:func:`settle`). Every reader of a campaign
(plots, reports, compare, export, portfolio) starts here.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from experiments.harness import records, runs_cache, schema
from experiments.harness.identity import family_label, family_names, meta_family_labels
from experiments.harness.provenance import read_meta
from experiments.harness.runs_table import RunsTable
from experiments.harness.schema import Status
from formats.errors import RaceError, printable

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
        specs = [str(e) for e in self.meta.get("entrants") or []]
        labels = entrant_labels(specs)
        declared = [labels.get(e, e) for e in specs]
        seen = [str(e) for e in pd.unique(self.runs["entrant"].astype(str))]
        return [e for e in declared if e in seen] + [e for e in seen if e not in declared]

    @property
    def families(self) -> list[str]:
        """The names of the campaign's instance families: in :data:`FAMILIES`' order
        (:func:`family_rank`), the others after them in the order they first appear."""
        seen = [str(f) for f in pd.unique(self.runs["family"].astype(str))]
        return sorted(seen, key=family_rank)

    def family(self, name: str) -> Campaign:
        """The campaign restricted to the instances of the family named ``name``."""
        mine = self.runs["family"] == name
        runs = (self.runs if mine.all() else self.runs[mine]).reset_index(drop=True)
        return Campaign(self.path, runs, self.meta | {"family": name})

    def holes_by_n(self, name: str) -> dict[int, float]:
        """The hole fraction of the family ``name`` at each n (empty for families without holes)."""
        runs = self.runs[["n", "holes"]][self.runs["family"].astype(str) == name]
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


def entrant_labels(specs: list[str]) -> dict[str, str]:
    """Entrant spec -> the label the analysis calls it by (:func:`solvers.registry.entrant_label`:
    a ``cmd`` entrant's ``name=``), for each spec that has one no other of ``specs`` has."""
    from solvers.registry import entrant_label
    found = {spec: entrant_label(spec) for spec in dict.fromkeys(specs)}
    taken = pd.Series(list(found.values())).value_counts()
    return {spec: label for spec, label in found.items()
            if label != spec and taken[label] == 1 and label not in found}


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


def load(path: str | Path, table: RunsTable | None = None) -> Campaign:
    """Load ``path/runs.csv`` and ``path/meta.json`` (``path``: see :func:`campaign_root`).
    ``table``: that runs.csv as a command already read it (:class:`RunsTable`, read again
    only when the file changed since).

    Raises RaceError when the directory or either file is missing, unreadable or
    malformed, when the header lacks a column, or when there are no valid rows.
    Rows are validated as :class:`RunsTable` reads them: a damaged row is left out (and
    reported in one line on stderr), never counted.
    """
    root = campaign_root(path)
    if not root.is_dir():
        raise RaceError(f"{root}: not a campaign directory (expected runs.csv and meta.json in it)")
    csv_path, meta_path = root / "runs.csv", root / "meta.json"
    if not csv_path.is_file():
        raise RaceError(f"{csv_path}: missing (is {root} a campaign written by `race run`?)")
    mine = table is None or table.path.resolve() != csv_path.resolve()
    if table is None or mine:
        table = RunsTable(csv_path)
    _check_read(table.fresh())
    if not meta_path.is_file():
        raise RaceError(f"{meta_path}: missing (is {root} a campaign written by `race run`?)")
    meta = read_meta(meta_path)
    runs = _frame(_campaign_rows(table, meta, root))
    if mine:
        table.release()                   # its rows are in ``runs`` now
    labels = entrant_labels([*map(str, meta.get("entrants") or []),
                             *map(str, pd.unique(runs["entrant"].dropna()))])
    runs["entrant"] = _relabelled(runs["entrant"], lambda spec: labels.get(spec, spec), "nan")
    default = meta_family_labels(meta).split(",")[0].strip() or "unique"
    runs["family_key"] = _relabelled(runs["family"], str.strip, default)
    names = family_names([str(k) for k in pd.unique(runs["family_key"])])
    runs["family"] = _relabelled(runs["family_key"], lambda key: names.get(key, key), default)
    runs = settle(runs, root)
    runs_cache.release()                  # what the checks and conversions held, given back
    return Campaign(root, runs, meta)


def settle(runs: pd.DataFrame, root: Path | None = None) -> pd.DataFrame:
    """Disagreements settled by the verified grid: an ``unsat`` claim on an instance for
    which another row holds a verified solution is ``wrong`` (not answered), whatever the
    order or the majority. The referee does this when a campaign runs; this also settles
    campaigns recorded before it did. Instances are matched by sha256 (else by family,
    n and file). With the campaign's directory ``root``, an ``unsat`` claim the referee
    did not rule on (blank ``referee``: recorded before it, or edited) is also checked
    against what its instance file records (:func:`_recorded_refutations`)."""
    runs = runs.copy(deep=False)          # copy-on-write: the caller's table is never changed
    if not (runs["status"] == Status.UNSAT).any():      # no claim to settle
        return runs
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
        _assign(runs, refuted, "status", Status.WRONG.value)
        _assign(runs, refuted, "verified", "False")
    return runs


def _assign(runs: pd.DataFrame, where: pd.Series, column: str, value: str) -> None:
    """``runs.loc[where, column] = value``, a categorical column given the category first."""
    values = runs[column]
    if isinstance(values.dtype, pd.CategoricalDtype) and value not in values.cat.categories:
        runs[column] = values.cat.add_categories([value])
    runs.loc[where, column] = value


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
        _assign(runs, refuted, "status", Status.WRONG.value)
        _assign(runs, refuted, "verified", "False")
    return runs


def _check_read(table: RunsTable) -> None:
    """RaceError when ``table``'s file is no runs table or holds no valid row; its damaged
    rows named on stderr."""
    csv_path = table.path
    if table.header_problem:
        raise RaceError(f"{table.header_problem} (expected the runs.csv header: "
                        f"{','.join(schema.COLUMNS[:6])},...)", source=str(csv_path), line=1)
    if table.damaged:
        print(f"race: warning: {printable(str(csv_path))}: left out {len(table.damaged)} damaged "
              f"row(s): {records.describe(table.damaged)}", file=sys.stderr)
    if not len(table.frame):
        raise RaceError("no runs recorded" + (" (no valid row)" if table.damaged else ""),
                        source=str(csv_path))


def _campaign_rows(table: RunsTable, meta: dict, root: Path) -> pd.DataFrame:
    """The rows of ``table`` that are this campaign's; the others (another campaign's, outside
    its plan, another instance file: :mod:`experiments.harness.stray_rows`) are left out,
    named in one line on stderr."""
    from experiments.harness import stray_rows
    strays = table.strays(meta, root)
    if strays:
        print(f"race: warning: {printable(str(table.path))}: left out "
              f"{stray_rows.note(strays)}", file=sys.stderr)
    kept = table.campaign_frame(meta, root)
    if not len(kept):
        raise RaceError("no runs of this campaign recorded", source=str(table.path))
    return kept.reset_index(drop=True)


#: text columns kept as categories (one small integer a row) when their values repeat: the
#: long ones no reader converts to text as a whole; the others stay text (pandas' ``str``)
CATEGORICAL = frozenset({"solver", "params", "instance", "instance_sha256", "worker", "message",
                         "referee", "extra"})


def _frame(runs: pd.DataFrame) -> pd.DataFrame:
    """The rows as a table (blank cells NaN, numbers numeric, the text columns categorical:
    one small integer per row, :func:`_text`)."""
    runs = runs.copy(deep=False)          # copy-on-write: only the columns changed are copied
    numeric = {*schema.NUMERIC, "seed", "clues"}
    for column in runs.columns:
        if column in numeric:
            runs[column] = _own(runs[column]) if runs[column].dtype == float \
                else runs_cache.numbers(runs[column])
        else:
            runs[column] = _text(runs[column], column in CATEGORICAL)
    runs["n"] = runs["n"].astype(int)
    runs["repeat"] = runs["repeat"].fillna(0).astype(int)
    return runs


def _own(values: pd.Series) -> pd.Series:
    """``values`` in memory of their own: not a view of the file the rows were read from (a
    mapped file's pages, once read, stay counted as the process's memory while any column
    refers to them); a column blank in every row stays one NaN repeated."""
    if isinstance(values.dtype, pd.StringDtype) and values.dtype.storage == "pyarrow":
        import pyarrow as pa
        import pyarrow.compute as pc
        text = pa.chunked_array(values.array._pa_array)
        copied = pc.take(text, pa.array(np.arange(len(text), dtype=np.int64)))
        return pd.Series(pd.arrays.ArrowStringArray(copied), index=values.index, name=values.name)
    array = values.to_numpy()
    if array.strides == (0,) or array.flags.owndata:
        return values
    return pd.Series(array.copy(), index=values.index, name=values.name)


def _text(values: pd.Series, categorical: bool = True) -> pd.Series:
    """A text column with its blanks as NaN: when its values repeat (at most one distinct value
    per two rows, or already categories), categorical with ``categorical`` (categories sorted),
    else pandas' ``str`` made from the distinct values; a column of mostly distinct values as
    it is (in memory of its own)."""
    if not len(values):
        return values
    codes, uniques = pd.factorize(values)
    if 2 * len(uniques) <= len(values) or isinstance(values.dtype, pd.CategoricalDtype):
        names = [str(u) for u in uniques]
        if categorical:
            return _categorical(codes, names, None, values.index)
        return _strings(codes, [name if name != "" else None for name in names], None, values.index)
    blank = (values == "").to_numpy(dtype=bool, na_value=False)
    return values.where(~blank, np.nan) if blank.any() else _own(values)


def _strings(codes: np.ndarray, names: list[str | None], missing: str | None,
             index: pd.Index) -> pd.Series:
    """The values ``names[codes]`` (code -1: ``missing``; None: NaN) as pandas' ``str``."""
    import pyarrow as pa
    listed = [*names, missing]
    text = pa.array(listed, pa.string()).take(pa.array(np.where(codes < 0, len(listed) - 1, codes)))
    return pd.Series(text, index=index, dtype=pd.StringDtype("pyarrow", na_value=np.nan))


def _categorical(codes: np.ndarray, names: list[str], missing: str | None,
                 index: pd.Index) -> pd.Series:
    """The values ``names[codes]`` (code -1: ``missing``; a blank name or a missing None: NaN)
    as a categorical with its categories sorted."""
    categories = sorted({*names, *([missing] if missing is not None else [])} - {""})
    place = {name: k for k, name in enumerate(categories)}
    lookup = np.array([place.get(name, -1) for name in names]
                      + [place.get(missing, -1) if missing is not None else -1], dtype=np.int32)
    return pd.Series(pd.Categorical.from_codes(lookup[codes], categories=categories), index=index)


def _relabelled(values: pd.Series, label: Callable[[str], str], missing: str) -> pd.Series:
    """Each value of ``values`` under its ``label`` (a NaN: ``missing``), as text (pandas'
    ``str``); the label is computed once per distinct value."""
    codes, uniques = pd.factorize(values)
    return _strings(codes, [label(str(u)) for u in uniques], missing, values.index)


def answered(runs: pd.DataFrame) -> pd.Series:
    """Per run, whether it is a measured answer (:func:`experiments.harness.schema.answered`);
    every other run is censored."""
    status = runs["status"]
    codes, values = pd.factorize(runs["verified"], use_na_sentinel=False)
    true = np.array([schema.is_true(v) for v in values], dtype=bool)[codes] if len(values) else \
        np.zeros(len(runs), dtype=bool)
    return pd.Series((status == Status.UNSAT.value).to_numpy()
                     | ((status == Status.SOLVED.value).to_numpy() & true), index=runs.index, dtype=bool)
