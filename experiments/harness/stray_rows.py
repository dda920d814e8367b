"""Only this campaign's cells: the rows of runs.csv that are valid records but do not belong to
the campaign its meta.json describes.

A row is a *stray* (:func:`stray_reason`) when

* its ``campaign`` is another one: not the campaign's name, nor one its meta.json's
  ``commands`` gave (``--campaign NAME``: a campaign grown under a name, then renamed), nor,
  for a merged campaign, one of its sources' under ``merged_from``;
* its cell is outside the campaign's plan: an entrant, n or family meta.json does not name,
  a repeat past its repeats, an instance that is no file name of the set (a path: an empty,
  ``.`` or ``..`` part, a backslash, or a directory other than the family's set directory at
  that n, so that its file is never looked for elsewhere and its sha256 always compared), or
  (for generated puzzles) an instance file that is not one of the campaign's (its name is not
  the generator's name of an index below ``instances``);
* its ``instance_sha256`` does not match the instance file it names, where that file is
  found (the ``instances/`` cache beside or inside the campaign, or the imported set's
  directory).

Strays are never counted: :func:`split` finds them in runs.csv read into columns, once per
table (:meth:`experiments.harness.runs_table.RunsTable.strays`); on resume they go to
``runs.damaged.csv`` (:meth:`~experiments.harness.runs_table.RunsTable.set_aside_strays`, so
their cells, when in the plan, are run again) and every reader leaves them out, each saying so
in one line naming how many and why (:func:`note`).
"""

from __future__ import annotations

import hashlib
import io
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from experiments.harness import records
from experiments.harness.identity import row_family
from experiments.harness.instance_families import file_stem, names_of
from formats.errors import printable

if TYPE_CHECKING:
    import pandas as pd

#: the kinds of stray, in the order a note names them
OTHER, OUTSIDE, MISMATCH = "of another campaign", "outside the plan", \
    "sha256 not that of the instance file"
#: how the reason of a stray set aside begins
PREFIX = "not this campaign's: "


class Plan:
    """What a campaign's meta.json says its cells are (each part None when it does not say),
    and where its instance files are."""

    def __init__(self, meta: dict[str, Any], root: Path | None) -> None:
        self.names = {str(meta.get("campaign") or "")} | {
            str(part.get("campaign")) for part in meta.get("merged_from") or []
            if isinstance(part, dict)}
        self.names |= _named_by(meta)
        self.names = {name.strip() for name in self.names}    # as a row's is read: stripped
        self.names.discard("")
        self.entrants = set(map(str, meta.get("entrants") or [])) or None
        self.n_values = {int(n) for n in meta.get("n_values") or []} or None
        given = meta.get("families")
        families: dict[Any, Any] = given if isinstance(given, dict) else {}
        self.generators = {str(k): str((v or {}).get("kind") or "") for k, v in families.items()
                      if isinstance(v, dict)}
        # the first part of each family's instance file names (hard-... or, made before, holes-...)
        names = names_of(meta)
        self.stems = {str(k): file_stem(str(v.get("label") or ""), self.generators[str(k)], names)
                      for k, v in families.items() if isinstance(v, dict)}
        # per family and n, the suffix its generator options give the set's directory name
        self.options = {str(k): _labels(v["options"]) for k, v in families.items()
                        if isinstance(v, dict) and isinstance(v.get("options"), dict)}
        self.repeats = meta.get("repeats") if isinstance(meta.get("repeats"), int) else None
        imported = meta.get("instance_set")
        self.imported = Path(str(imported.get("directory"))) if isinstance(imported, dict) else None
        self.manifest_sha256 = str(imported.get("manifest_sha256") or "") if isinstance(imported, dict) else ""
        self.generated = self.imported is None and not meta.get("merged_from")
        self.instances = meta.get("instances") if isinstance(meta.get("instances"), int) else None
        self.seed = meta.get("seed")
        self.caches = [] if root is None else [d for d in (root.parent / "instances",
                                                           root / "instances") if d.is_dir()]
        self._digests: dict[str, str | None] = {}
        self._generated: dict[tuple[str, int], set[str]] = {}
        self._manifest: "tuple[pd.Series, int] | None | bool" = False     # False: not read yet

    def outside(self, row: dict[str, str]) -> str | None:
        """What of ``row``'s cell is outside the plan, in a few words, or None."""
        family, n = row_family(row), int(row["n"])
        if self.entrants is not None and row["entrant"] not in self.entrants:
            return f"entrant {row['entrant']}"
        if self.n_values is not None and n not in self.n_values:
            return f"n={n}"
        if self.generators and family and family not in self.generators:
            return f"family {family}"
        if self.repeats is not None and int(row["repeat"] or 0) >= self.repeats:
            return f"repeat {row['repeat']}"
        misnamed = self.misnamed(row)
        if misnamed:
            return f"instance {row['instance']}: {misnamed}"
        stem = self.stems.get(family)
        if self.generated and stem and self.instances is not None and isinstance(self.seed, int):
            if row["instance"].rsplit("/", 1)[-1] not in self._names(stem, n):
                return f"instance {row['instance']}"
        return None

    def misnamed(self, row: dict[str, str]) -> str | None:
        """Why ``row``'s instance is no name the campaign gives an instance file, or None: a
        file name, or (a family with generator options) its set's directory and a file name;
        of an imported set, a relative name inside it."""
        instance = row["instance"]
        if not safe_name(instance):
            return "not a file name of the set (a path)"
        if self.imported is not None:
            return None
        directory, _, _ = instance.rpartition("/")
        if directory and not self.directory_ok(row_family(row), int(row["n"]), directory):
            return "not in the set's directory"
        return None

    def set_directory(self, family: str, n: int) -> str | None:
        """The directory name of ``family``'s generated set at ``n``, "" when its instance names
        carry none (no generator options), None when meta.json does not say."""
        stem, labels = self.stems.get(family), self.options.get(family)
        if not self.generated or not stem or not isinstance(self.seed, int) or labels is None \
                or n not in labels:
            return None
        return f"{stem}-n{n}-s{self.seed}{labels[n]}" if labels[n] else ""

    def directory_ok(self, family: str, n: int, directory: str) -> bool:
        """Whether an instance named ``directory/FILE`` of ``family`` at ``n`` may be the
        campaign's: the family's set directory at n (its beginning, when meta.json does not
        record the generator options)."""
        if "/" in directory:
            return False
        expected = self.set_directory(family, n)
        if expected is not None:
            return bool(expected) and directory == expected
        stem = self.stems.get(family)
        if not self.generated or not stem or not isinstance(self.seed, int):
            return True
        return directory.startswith(f"{stem}-n{n}-s{self.seed}")

    def _names(self, kind: str, n: int) -> set[str]:
        """The file names of the generated instances at ``n`` whose names begin with ``kind``
        (the family's file stem; computed once)."""
        if (kind, n) not in self._generated:
            from generators.puzzle_set import puzzle_name
            self._generated[(kind, n)] = {puzzle_name(kind, n, int(self.seed or 0), i)
                                          for i in range(self.instances or 0)}
        return self._generated[(kind, n)]

    def files(self, row: dict[str, str]) -> list[str]:
        """Where the instance file ``row`` names may be (paths as text: many are looked up)."""
        instance = row["instance"]
        if self.imported is not None:
            return [os.path.join(self.imported, instance)]
        if not safe_name(instance):                   # never looked for outside the set
            return []
        kind = self.stems.get(row_family(row))
        directory = self.set_directory(row_family(row), int(row["n"])) if "/" not in instance \
            else None
        found = []
        for cache in self.caches:
            found.append(os.path.join(cache, instance))
            if "/" not in instance and kind:
                found.append(os.path.join(cache, f"{kind}-n{row['n']}-s{self.seed}", instance))
            if directory:
                found.append(os.path.join(cache, directory, instance))
        return found

    def digest(self, path: str) -> str | None:
        """The sha256 of the file ``path``, None when it is no readable file (computed once)."""
        if path not in self._digests:
            self._digests[path] = None
            try:                              # no stat first; never blocks on a pipe
                fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
            except OSError:                   # missing, unreadable
                return None
            try:
                with open(fd, "rb") as f:
                    if stat.S_ISREG(os.fstat(fd).st_mode):
                        self._digests[path] = hashlib.sha256(f.read()).hexdigest()
            except OSError:
                pass
        return self._digests[path]

    def manifest(self) -> "tuple[pd.Series, int] | None":
        """The imported set's manifest.csv as file -> sha256 and when it was written (mtime
        ns), when it hashes to the ``manifest_sha256`` meta.json recorded; else None (read
        once per plan)."""
        if self._manifest is False:
            self._manifest = self._read_manifest()
        return self._manifest if not isinstance(self._manifest, bool) else None

    def _read_manifest(self) -> "tuple[pd.Series, int] | None":
        if self.imported is None or not self.manifest_sha256:
            return None
        import pandas as pd
        path = os.path.join(self.imported, "manifest.csv")
        try:
            info = os.stat(path)
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            return None
        if hashlib.sha256(data).hexdigest() != self.manifest_sha256:
            return None
        try:
            table = pd.read_csv(io.BytesIO(data), dtype=str, keep_default_na=False, usecols=["file", "sha256"])
        except (ValueError, UnicodeDecodeError, pd.errors.ParserError):
            return None
        listed = pd.Series(table["sha256"].to_numpy(), index=table["file"].to_numpy())
        return listed[~listed.index.duplicated(keep=False)], info.st_mtime_ns

    def mismatch(self, row: dict[str, str]) -> bool:
        """True when the first instance file found for ``row`` has another sha256."""
        recorded = row.get("instance_sha256") or ""
        if not recorded:
            return False
        for path in self.files(row):
            actual = self.digest(path)
            if actual is not None:
                return actual != recorded
        return False


def safe_name(instance: str) -> bool:
    """Whether ``instance`` is a relative name that stays inside its directory: no empty,
    ``.`` or ``..`` part, no backslash, no NUL."""
    return not ("\\" in instance or "\0" in instance
                or any(part in ("", ".", "..") for part in instance.split("/")))


def _labels(options: dict[str, Any]) -> dict[int, str]:
    """Generator options per n (meta.json's ``families.KEY.options``) -> the suffix of the
    set's directory name per n (:func:`experiments.harness.config.options_label`)."""
    from experiments.harness.config import options_label
    return {int(n): options_label(given) for n, given in options.items()
            if str(n).isdigit() and isinstance(given, dict)}


def _named_by(meta: dict[str, Any]) -> set[str]:
    """The campaign names the commands that grew the campaign gave (``--campaign NAME``): a
    campaign grown under another name, then renamed, holds their rows as its own."""
    import shlex
    texts = [str(c.get("command") or "") for c in meta.get("commands") or [] if isinstance(c, dict)]
    names = set()
    for text in texts + [str(meta.get("command") or "")]:
        try:
            words = shlex.split(text)
        except ValueError:
            continue
        for k, word in enumerate(words):
            if word == "--campaign" and k + 1 < len(words):
                names.add(words[k + 1])
            elif word.startswith("--campaign="):
                names.add(word.split("=", 1)[1])
    return names


def stray_reason(row: dict[str, str], plan: Plan) -> tuple[str, str] | None:
    """(kind, words) when ``row`` is not this campaign's (module docstring), else None."""
    campaign = (row.get("campaign") or "").strip()
    if campaign and plan.names and campaign not in plan.names:
        return OTHER, f"of campaign {campaign!r}"
    outside = plan.outside(row)
    if outside:
        return OUTSIDE, f"outside the plan ({outside})"
    if plan.mismatch(row):
        return MISMATCH, f"sha256 not that of the instance file {row['instance']}"
    return None


def _suspects(frame: "pd.DataFrame", plan: Plan) -> "np.ndarray":
    """Positions of the rows of ``frame`` (runs.csv's columns as text, blank ``""`` or NaN) that
    may be strays: a superset of them, found column by column without a loop per row; the
    instance files are hashed once per distinct instance."""
    import numpy as np
    import pandas as pd

    from experiments.harness.runs_cache import numbers

    def text(column: str) -> pd.Series:
        values = frame[column]
        if isinstance(values.dtype, pd.StringDtype):       # read in columns: no object copy
            return values.fillna("")
        return values.astype(object).where(values.notna(), "").astype(str)

    campaign = text("campaign").str.strip()
    suspect = np.zeros(len(frame), dtype=bool)
    if plan.names:
        suspect |= ((campaign != "") & ~campaign.isin(plan.names)).to_numpy()
    if plan.entrants is not None:
        suspect |= ~text("entrant").isin(plan.entrants).to_numpy()
    n = numbers(text("n"))
    if plan.n_values is not None:
        suspect |= ~n.isin(plan.n_values).to_numpy()
    family = text("family").str.strip() if "family" in frame else pd.Series("", index=frame.index)
    if plan.generators:
        suspect |= ((family != "") & ~family.isin(set(plan.generators))).to_numpy()
    if plan.repeats is not None:
        repeat = numbers(text("repeat").replace("", "0"))
        suspect |= ~(repeat < plan.repeats).to_numpy()
    instance = text("instance")
    codes, distinct = pd.factorize(instance)           # each name looked at once
    names = pd.Series(distinct, dtype=object)
    unsafe_names = (names.str.contains("\\", regex=False)
                    | names.str.contains(r"(?:^|/)\.{0,2}(?:/|$)", regex=True)).to_numpy(dtype=bool)
    unsafe = unsafe_names[codes]
    suspect |= unsafe
    nested_names = names.str.contains("/", regex=False).to_numpy(dtype=bool) & ~unsafe_names
    if plan.imported is None and nested_names.any():   # the family's set directory at that n?
        directories = names.str.rpartition("/")[0].to_numpy(dtype=object)
        nested = nested_names[codes]
        for (fam, size), where in family.groupby([family, n], sort=False).groups.items():
            rows = frame.index.get_indexer(where)
            rows = rows[nested[rows]]
            for directory in set(directories[np.unique(codes[rows])]):
                if size != size or not plan.directory_ok(fam, int(size), directory):
                    suspect[rows[directories[codes[rows]] == directory]] = True
    if plan.generated and plan.instances is not None and isinstance(plan.seed, int):
        base = instance.str.rsplit("/", n=1).str[-1]
        for (fam, size), where in family.groupby([family, n], sort=False).groups.items():
            kind = plan.stems.get(fam)
            if kind and size == size:
                rows = np.asarray(where)
                suspect[frame.index.get_indexer(rows)] |= \
                    ~base.loc[rows].isin(plan._names(kind, int(size))).to_numpy()
    sha = text("instance_sha256")
    keyed = pd.DataFrame({"instance": instance, "n": text("n"), "family": family, "sha": sha})
    recorded = np.flatnonzero((sha != "").to_numpy() & ~unsafe)
    if len(recorded):          # the first row of each distinct key, found by codes (no copy)
        key_codes = pd.DataFrame({c: pd.factorize(keyed[c])[0][recorded] for c in keyed.columns})
        firsts = keyed.iloc[recorded[~key_codes.duplicated().to_numpy()]]
        firsts = firsts[~_vouched(firsts["instance"], firsts["sha"], plan)]
        bad = {tuple(row) for row in firsts.itertuples(index=False)
               if plan.mismatch({"instance": row.instance, "n": row.n, "family": row.family,
                                 "instance_sha256": row.sha})}
        if bad:
            keys = pd.MultiIndex.from_frame(keyed)
            suspect |= keys.isin(list(bad))
    return np.flatnonzero(suspect)


def _vouched(instance: "pd.Series", sha: "pd.Series", plan: Plan) -> "np.ndarray":
    """Which (``instance``, recorded ``sha``) pairs an imported set's manifest.csv vouches for,
    so that the file need not be hashed: the manifest hashes to the sha256 meta.json recorded
    for it, lists the file with that sha256, and the file was not modified after the manifest
    was written (the manifest holds the sha256 of its bytes then). One ``stat`` per file
    instead of reading and hashing it."""
    manifest = plan.manifest()
    if manifest is None:
        return np.zeros(len(instance), dtype=bool)
    listed, written = manifest
    vouched = (instance.map(listed) == sha).to_numpy(dtype=bool, na_value=False).copy()
    names = instance.to_numpy(dtype=object)
    try:                                  # names looked up in the set's directory (no path joins)
        directory = os.open(str(plan.imported), os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return np.zeros(len(instance), dtype=bool)
    look = os.stat
    try:
        for k in np.flatnonzero(vouched).tolist():
            try:
                vouched[k] = look(names[k], dir_fd=directory).st_mtime_ns <= written
            except OSError:
                vouched[k] = False
    finally:
        os.close(directory)
    return vouched


#: meta.json's keys a run rewrites as it goes (its readings), which no plan reads
_READINGS = frozenset({"machine_state", "calibration", "pinning", "order", "runs_conditions"})


def checked_against(meta: dict[str, Any], root: Path | None) -> tuple[dict[str, Any], str]:
    """What a split of runs.csv depends on: meta.json without the readings a run rewrites as
    it goes, and the campaign's directory (two splits against equal ones are the same)."""
    return {k: v for k, v in meta.items() if k not in _READINGS}, str(root)


def split(frame: "pd.DataFrame", meta: dict[str, Any], root: Path | None,
          lines: "np.ndarray | None" = None) -> tuple["np.ndarray", list[records.Damaged]]:
    """The strays of runs.csv read into columns (``frame``; ``lines``: the 1-based line of each
    of its rows, None when they are lines 2, 3, ... in order): the positions of the rows that
    are the campaign's, and the strays as damaged lines (their line, bytes and reason). The
    rows are checked column by column (:func:`_suspects`), only the suspects one by one."""
    plan = Plan(meta, root)
    strays, drop = [], []
    columns = list(frame.columns)
    for position in _suspects(frame, plan):
        values = frame.iloc[int(position)]
        row = {c: ("" if not isinstance(v, str) and v != v else
                   v if isinstance(v, str) else f"{v:.9g}" if isinstance(v, float) else str(v))
               for c, v in zip(columns, values)}
        why = stray_reason(row, plan)
        if why is not None:
            drop.append(int(position))
            line = int(lines[position]) if lines is not None else int(position) + 2
            strays.append(records.Damaged(line, records.encode_row(row), PREFIX + why[1]))
    keep = np.ones(len(frame), dtype=bool)
    keep[drop] = False
    return np.flatnonzero(keep), strays


def note(strays: list[records.Damaged]) -> str:
    """How many strays and why, in a few words: ``3 row(s) not this campaign's: 1 of another
    campaign, 2 outside the plan (e.g. line 7: ...)``."""
    counts = dict.fromkeys((OTHER, OUTSIDE, MISMATCH), 0)
    for d in strays:
        words = d.reason.removeprefix(PREFIX)
        kind = OTHER if words.startswith("of campaign") else \
            OUTSIDE if words.startswith("outside") else MISMATCH
        counts[kind] += 1
    parts = ", ".join(f"{count} {kind}" for kind, count in counts.items() if count)
    return printable(f"{len(strays)} row(s) not this campaign's: {parts} "
                     f"(e.g. {records.describe(strays, 1)})")
