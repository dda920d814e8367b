"""Only this campaign's cells: the rows of runs.csv that are valid records but do not belong to
the campaign its meta.json describes (its plan: :class:`experiments.harness.campaign_plan.Plan`).

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

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from experiments.harness import records
from experiments.harness.campaign_plan import Plan, safe_name
from formats.errors import printable

if TYPE_CHECKING:
    import pandas as pd

#: the kinds of stray, in the order a note names them
OTHER, OUTSIDE, MISMATCH = "of another campaign", "outside the plan", \
    "sha256 not that of the instance file"
#: how the reason of a stray set aside begins
PREFIX = "not this campaign's: "


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


def _factorized(frame: pd.DataFrame, column: str, strip: bool = False) -> tuple[np.ndarray, list[str]]:
    """A column as codes into its distinct values as text (the last one ``""``: a blank,
    NaN or absent value; code -1 points to it), each stripped with ``strip``."""
    import pandas as pd
    if column not in frame:
        return np.full(len(frame), -1, dtype=np.int64), [""]
    values = frame[column]
    codes, uniques = pd.factorize(values)
    if isinstance(values.dtype, (pd.StringDtype, pd.CategoricalDtype)) or values.dtype == object:
        names = [u if isinstance(u, str) else "" for u in np.asarray(uniques, dtype=object).tolist()]
    else:
        names = [f"{u:.9g}" if isinstance(u, float) else str(u) for u in uniques.tolist()]
    names.append("")
    return codes, [name.strip() for name in names] if strip else names


def _integer(text: str) -> int | None:
    """``text`` (a number as runs.csv holds it) as an integer, None when it is none."""
    try:
        value = float(text)
    except ValueError:
        return None
    return int(value) if value == value and value == int(value) else None


def _flag(codes: np.ndarray, names: list[str], bad: Callable[[str], bool]) -> np.ndarray:
    """Per row, whether its value (``names[codes]``) is ``bad``: decided once per value."""
    return np.array([bad(name) for name in names], dtype=bool)[codes]


def _suspects(frame: pd.DataFrame, plan: Plan) -> np.ndarray:
    """Positions of the rows of ``frame`` (runs.csv's columns as read) that may be strays: a
    superset of them, found on each column's distinct values (codes per row, no text copied)
    and on the distinct (family, n, instance) and (..., sha256) of the rows; the instance files
    are hashed once per distinct instance."""
    import pandas as pd
    suspect = np.zeros(len(frame), dtype=bool)
    if not len(frame):
        return np.flatnonzero(suspect)
    if plan.names:
        suspect |= _flag(*_factorized(frame, "campaign", strip=True),
                         lambda name: name != "" and name not in plan.names)
    if plan.entrants is not None:
        entrants = plan.entrants
        suspect |= _flag(*_factorized(frame, "entrant"), lambda spec: spec not in entrants)
    n_codes, n_names = _factorized(frame, "n")
    sizes = [_integer(text) for text in n_names]
    if plan.n_values is not None:
        n_values = plan.n_values
        suspect |= np.array([size not in n_values for size in sizes], dtype=bool)[n_codes]
    f_codes, f_names = _factorized(frame, "family", strip=True)
    if plan.generators:
        suspect |= _flag(f_codes, f_names, lambda name: name != "" and name not in plan.generators)
    if plan.repeats is not None:
        repeats = plan.repeats
        suspect |= _flag(*_factorized(frame, "repeat"),
                         lambda text: not ((_integer(text or "0") or 0) < repeats))
    i_codes, i_names = _factorized(frame, "instance")
    unsafe = np.array([not safe_name(name) for name in i_names], dtype=bool)
    suspect |= unsafe[i_codes]
    # the distinct (family, n, instance) of the rows: codes combined into one number each
    f_codes, n_codes, i_codes = (c % len(names) for c, names in
                                 ((f_codes, f_names), (n_codes, n_names), (i_codes, i_names)))
    triple = (f_codes * len(n_names) + n_codes) * len(i_names) + i_codes
    t_codes, t_keys = pd.factorize(triple)
    t_keys = np.asarray(t_keys, dtype=np.int64)
    t_family, t_rest = np.divmod(t_keys, len(n_names) * len(i_names))
    t_size, t_instance = np.divmod(t_rest, len(i_names))
    named = plan.imported is None or (plan.generated and plan.instances is not None
                                      and isinstance(plan.seed, int))
    if named:
        bad = [_misnamed(plan, f_names[f], sizes[n], i_names[i]) if not unsafe[i] else False
               for f, n, i in zip(t_family.tolist(), t_size.tolist(), t_instance.tolist())]
        suspect |= np.array(bad, dtype=bool)[t_codes]
    s_codes, s_names = _factorized(frame, "instance_sha256")
    s_codes = s_codes % len(s_names)
    quad = triple * len(s_names) + s_codes
    q_codes, q_keys = pd.factorize(quad)
    q_keys = np.asarray(q_keys, dtype=np.int64)
    q_triple, q_sha = np.divmod(q_keys, len(s_names))
    q_rest = q_triple % (len(n_names) * len(i_names))
    q_family = q_triple // (len(n_names) * len(i_names))
    q_size, q_instance = np.divmod(q_rest, len(i_names))
    recorded = np.flatnonzero(np.array([s_names[k] != "" for k in q_sha.tolist()], dtype=bool)
                              & ~unsafe[q_instance])
    if len(recorded):
        instances = pd.Series([i_names[k] for k in q_instance[recorded].tolist()], dtype=object)
        shas = pd.Series([s_names[k] for k in q_sha[recorded].tolist()], dtype=object)
        unvouched = recorded[~_vouched(instances, shas, plan)]
        bad_quads = np.zeros(len(q_keys), dtype=bool)
        for k in unvouched.tolist():
            bad_quads[k] = plan.mismatch({"instance": i_names[int(q_instance[k])],
                                          "n": n_names[int(q_size[k])],
                                          "family": f_names[int(q_family[k])],
                                          "instance_sha256": s_names[int(q_sha[k])]})
        suspect |= bad_quads[q_codes]
    return np.flatnonzero(suspect)


def _misnamed(plan: Plan, family: str, size: int | None, instance: str) -> bool:
    """Whether the instance name ``instance`` of ``family`` at ``size`` may be no name of the
    campaign's: not in its set's directory, or (generated puzzles) not the generator's."""
    if plan.imported is None and "/" in instance:
        if size is None or not plan.directory_ok(family, size, instance.rpartition("/")[0]):
            return True
    stem = plan.stems.get(family)
    if plan.generated and stem and plan.instances is not None and isinstance(plan.seed, int) \
            and size is not None:
        return instance.rsplit("/", 1)[-1] not in plan._names(stem, size)
    return False


def _vouched(instance: pd.Series, sha: pd.Series, plan: Plan) -> np.ndarray:
    """Which (``instance``, recorded ``sha``) pairs an imported set's manifest.csv vouches for,
    so that the file need not be hashed: the manifest hashes to the sha256 meta.json recorded
    for it, lists the file with that sha256, and the file was not modified after the manifest
    was written (the manifest holds the sha256 of its bytes then). One ``stat`` per file
    instead of reading and hashing it."""
    manifest = plan.manifest()
    if manifest is None:
        return np.zeros(len(instance), dtype=bool)
    listed, written = manifest
    names = instance.tolist()
    vouched = np.array([listed.get(name) == recorded for name, recorded in zip(names, sha.tolist())],
                       dtype=bool)
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


def split(frame: pd.DataFrame, meta: dict[str, Any], root: Path | None,
          lines: np.ndarray | None = None) -> tuple[np.ndarray, list[records.Damaged]]:
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
