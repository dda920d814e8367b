"""``race merge A B -o C``: campaigns run on different machines over the same instances, in
one campaign directory.

Every row is kept as it was measured, with its machine: the ``worker`` column
(``host:pid``) names where it ran, the ``campaign`` column the source campaign. A cell
(entrant, family, n, instance, repeat) that two sources both measured becomes two
repeats (the later source's repeat numbers shifted past the earlier ones), so nothing is
dropped and the analysis sees the spread between machines. ``meta.json`` is the first
source's with the entrants, n and families of all, ``merged_from`` (each source's
campaign, path, machine, commit, calibration, machine readings and jobs) and the
``machine`` block of each source under ``machines``.

Refused (RaceError, nothing written): fewer than two sources, an existing OUT, sources
raced under other conditions (:func:`conditions`: seed, time or memory limit, generator or
family options, a ``cmd`` entrant's program, an entrant's parameters; the number of repeats
may differ, each row being one measurement), one instance name whose sha256 differs between
sources (they are not the same instances), a source given twice or holding the very
measurements of another (a copy: its rows would pose as repeats), and a source whose
runs.csv or meta.json cannot be read (a header without the needed columns, no valid
row, not a JSON object). Damaged rows of a source (cut short, malformed) are never
dropped in silence: a warning names them and they go to OUT's ``runs.damaged.csv``.
OUT appears whole or not at all (written beside it, then renamed).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from experiments.harness import code_identity, records, stray_rows
from experiments.harness.provenance import read_meta, utc_now
from experiments.harness.runs_table import RunsTable
from formats.errors import RaceError, printable

if TYPE_CHECKING:
    import pandas as pd

#: meta.json fields that change a cell's outcome, so merged campaigns must agree on them (the
#: rest of :func:`conditions`: family options, programs and parameters, where both have them)
SHARED = ("seed", "timeout_s", "memory_mb", "generator_options")


def conditions(meta: dict[str, Any], rows: pd.DataFrame) -> dict[str, Any]:
    """What a campaign was raced under that changes a cell's outcome, by name: the limits,
    seed and generator options of meta.json (:data:`SHARED`), each family's options at each
    n, each ``cmd`` entrant's program (sha256), each entrant's code (meta.json's ``entrant_code``:
    :mod:`experiments.harness.code_identity`) and each entrant's parameters as its ``rows``
    (runs.csv's columns as text) record them first (a node limit, a default that changed: the
    same spec is then another entrant). Only names two campaigns both have are compared,
    except :data:`SHARED`."""
    found: dict[str, Any] = {key: meta.get(key) for key in SHARED}
    found["generator_options"] = meta.get("generator_options") or {}
    for family, value in (meta.get("families") or {}).items():
        for n, options in (value.get("options") or {}).items():
            found[f"{family} family options at n={n}"] = options
    for spec, value in (meta.get("entrant_provenance") or {}).items():
        if isinstance(value, dict) and value.get("sha256"):
            found[f"{spec}'s program (sha256)"] = value["sha256"]
    for spec in meta.get(code_identity.KEY) or {}:
        digests = code_identity.measured_by(meta, spec)
        if digests:
            found[f"{spec}'s code"] = "+".join(digests)
    given = rows[rows["params"] != ""].drop_duplicates("entrant")
    for entrant, params in zip(given["entrant"].tolist(), given["params"].tolist()):
        found.setdefault(f"{entrant}'s parameters", params)
    return found


def _check_conditions(loaded: list[tuple[Path, pd.DataFrame, dict[str, Any]]]) -> None:
    """RaceError naming the first condition (:func:`conditions`) a source was raced under
    that differs from the first source's: their cells would mix two races under one name."""
    first_source, first_rows, first_meta = loaded[0]
    first = conditions(first_meta, first_rows)
    for source, rows, meta in loaded[1:]:
        mine = conditions(meta, rows)
        for key in [*SHARED, *(k for k in mine if k in first and k not in SHARED)]:
            if mine[key] != first[key]:
                what = f"{key}={mine[key]!r}" if key in SHARED else f"{key} is {mine[key]!r}"
                raise RaceError(f"{source}: {what}, but {first_source} has {first[key]!r}; only "
                                f"campaigns raced under the same {key} merge (merged, the "
                                "outcomes of two races would pass for one)")


def _load(source: Path) -> tuple[pd.DataFrame, dict[str, Any], list[records.Damaged]]:
    """A source's valid rows (runs.csv's columns as written, blank ``""``), meta.json and damaged
    rows (RaceError when it cannot be read), read once (:class:`RunsTable`)."""
    runs, meta_path = source / "runs.csv", source / "meta.json"
    if not runs.is_file() or not meta_path.is_file():
        raise RaceError(f"{source}: not a campaign directory (expected runs.csv and meta.json in it)")
    meta = read_meta(meta_path)
    table = RunsTable(runs, text=True)
    if table.header_problem:
        raise RaceError(f"{table.header_problem}: not a runs table race merge can read",
                        source=str(runs), line=1)
    damaged = table.damaged
    if not len(table.frame):
        raise RaceError("no runs recorded" + (" (no valid row)" if damaged else ""),
                        source=str(runs))
    if damaged:
        print(f"race: warning: {printable(str(runs))}: {len(damaged)} damaged row(s) "
              f"go to the merged campaign's {records.DAMAGED_NAME}, not into its runs: "
              f"{records.describe(damaged)}", file=sys.stderr)
    strays = table.strays(meta, source)
    if strays:
        print(f"race: warning: {printable(str(runs))}: {stray_rows.note(strays)} go to the "
              f"merged campaign's {records.DAMAGED_NAME}, not into its runs", file=sys.stderr)
    frame = table.campaign_frame(meta, source)
    if not len(frame):
        raise RaceError("no runs of this campaign recorded", source=str(runs))
    return frame.reset_index(drop=True), meta, [records.Damaged(d.line, d.raw, f"{runs}: {d.reason}")
                                                for d in damaged + strays]


def _family(rows: pd.DataFrame) -> pd.Series:
    """Each row's family key (:func:`experiments.harness.identity.row_family`), stripped."""
    return rows["family"].astype(str).str.strip()


def _check_measurements(loaded: list[tuple[Path, pd.DataFrame, dict[str, Any]]]) -> None:
    """RaceError when two sources hold the same measurement (where and when it ran, and what:
    a campaign and its copy); rows that do not say where and when are not compared."""
    import pandas as pd
    parts = []
    for index, (_, rows, _) in enumerate(loaded):
        said = rows[(rows["worker"] != "") & (rows["started_at"] != "")]
        parts.append(pd.DataFrame({"worker": said["worker"], "started_at": said["started_at"],
                                   "entrant": said["entrant"], "family": _family(said), "n": said["n"],
                                   "instance": said["instance"], "source": index}).drop_duplicates())
    every = pd.concat(parts, ignore_index=True)
    shared = every[every.duplicated(MEASUREMENT, keep=False)]
    if len(shared):
        row = shared.iloc[0]
        first = int(row["source"])
        other = int(shared[(shared[MEASUREMENT] == row[MEASUREMENT]).all(axis=1)
                           & (shared["source"] != first)]["source"].iloc[0])
        source, earlier = loaded[max(first, other)][0], loaded[min(first, other)][0]
        raise RaceError(f"{source} and {earlier} hold the same measurement ("
                        f"{row['entrant']} on {row['instance']}, run by {row['worker']} "
                        f"at {row['started_at']}): a campaign and its copy; merged, its "
                        "rows would pose as repeats")


#: what makes a row one measurement: where and when it ran, and what
MEASUREMENT = ["worker", "started_at", "entrant", "family", "n", "instance"]


def _check_instances(loaded: list[tuple[Path, pd.DataFrame, dict[str, Any]]]) -> None:
    """RaceError for the first row whose instance (family, n, name) has another sha256 than
    the one the first row naming it recorded: not the same instances."""
    import pandas as pd
    every = pd.concat([pd.DataFrame({"family": _family(rows), "n": rows["n"].astype(int),
                                     "instance": rows["instance"], "sha": rows["instance_sha256"],
                                     "source": index})
                       for index, (_, rows, _) in enumerate(loaded)], ignore_index=True)
    every = every[every["sha"] != ""]
    first = every.groupby(["family", "n", "instance"], sort=False)[["sha", "source"]].transform("first")
    differ = (every["sha"] != first["sha"]).to_numpy()
    if differ.any():
        k = int(differ.argmax())
        row, seen = every.iloc[k], first.iloc[k]
        raise RaceError(f"{loaded[int(row['source'])][0]}: instance {row['instance']} (n={row['n']}) has "
                        f"sha256 {row['sha'][:12]}..., {loaded[int(seen['source'])][0]} has "
                        f"{seen['sha'][:12]}...: not the same instances")


def _shift_repeats(loaded: list[tuple[Path, pd.DataFrame, dict[str, Any]]]) -> pd.DataFrame:
    """The rows of every source in order, each later source's repeats shifted past those the
    earlier sources hold of the same (entrant, family, n, instance)."""
    import pandas as pd
    held = pd.Series(dtype="int64")                 # key -> repeats the sources so far hold
    out = []
    for _, rows, _ in loaded:
        keys = pd.MultiIndex.from_arrays([rows["entrant"], _family(rows), rows["n"].astype(int),
                                          rows["instance"]])
        repeat = pd.to_numeric(rows["repeat"].replace("", "0")).astype("int64").to_numpy()
        shift = held.reindex(keys).fillna(0).astype("int64").to_numpy() if len(held) else 0
        shifted = repeat + shift
        out.append(rows.assign(repeat=shifted.astype(str)))
        mine = pd.Series(shifted + 1, index=keys).groupby(level=[0, 1, 2, 3]).max()
        held = pd.concat([held, mine]).groupby(level=[0, 1, 2, 3]).max() if len(held) else mine
    return pd.concat(out, ignore_index=True)


def merge_campaigns(sources: list[Path], out: Path) -> tuple[int, dict[str, Any]]:
    """Merge ``sources`` into the new campaign directory ``out`` (module docstring); the
    number of rows written and the merged meta.json. Columnar: no Python loop per row."""
    if len(sources) < 2:
        raise RaceError("race merge needs two campaigns or more: race merge A B -o C")
    if out.exists():
        raise RaceError(f"{out}: already exists; race merge writes a new campaign directory")
    seen_paths: dict[Path, Path] = {}
    for source in sources:
        same = seen_paths.setdefault(source.resolve(), source)
        if same is not source:
            raise RaceError(f"{source}: given twice (as {same} too); each campaign merges once")
    full = [(source, *_load(source)) for source in sources]
    loaded = [(source, rows, meta) for source, rows, meta, _ in full]
    _check_measurements(loaded)
    _check_conditions(loaded)
    _check_instances(loaded)
    merged = _shift_repeats(loaded)
    meta = _merged_meta(loaded, out)
    damaged = [d for _, _, _, found in full for d in found]
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        work = out.with_name(f".{out.name}.merging-{os.getpid()}")
        work.mkdir()
    except OSError as exc:
        raise RaceError(f"cannot create the merged campaign: {exc.strerror}", source=str(out)) from None
    try:
        try:
            merged.to_csv(work / "runs.csv", index=False, lineterminator="\n", encoding="utf-8")
            if damaged:
                records.append_damaged(work / records.DAMAGED_NAME, damaged)
            (work / "meta.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
            os.rename(work, out)
        except OSError as exc:
            raise RaceError(f"cannot write the merged campaign ({exc.strerror}); nothing was "
                            "written", source=str(out)) from None
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return len(merged), meta


def _merged_meta(loaded: list[tuple[Path, list, dict[str, Any]]], out: Path) -> dict[str, Any]:
    metas = [meta for _, _, meta in loaded]
    meta = dict(metas[0])
    meta["campaign"] = out.name
    meta["created_at"] = utc_now()
    meta["command"] = "race merge " + " ".join(str(s) for s, _, _ in loaded) + f" -o {out}"
    meta["entrants"] = list(dict.fromkeys(e for m in metas for e in m.get("entrants", [])))
    meta["n_values"] = sorted({n for m in metas for n in m.get("n_values", [])})
    families: dict[str, Any] = {}
    for m in metas:
        families.update(m.get("families") or {})
    meta["families"] = families
    meta["repeats"] = sum(int(m.get("repeats") or 1) for m in metas)
    meta["machines"] = [m.get("machine") for m in metas]
    code: dict[str, Any] = {}      # an entrant's code (the same: checked) if every source records it
    for spec in dict.fromkeys(e for m in metas for e in (m.get(code_identity.KEY) or {})):
        found = [(m.get(code_identity.KEY) or {}).get(spec) for m in metas
                 if spec in (m.get("entrants") or []) or spec in (m.get(code_identity.KEY) or {})]
        if all(found):
            code[spec] = found[0]
    meta.pop(code_identity.KEY, None)
    if code:
        meta[code_identity.KEY] = code
    meta["merged_from"] = [
        {"campaign": m.get("campaign"), "path": str(source), "rows": len(rows),
         "machine": m.get("machine"), "git_commit": m.get("git_commit"), "jobs": m.get("jobs"),
         "calibration": m.get("calibration"), "machine_state": m.get("machine_state"),
         **({"runs_conditions": m["runs_conditions"]} if m.get("runs_conditions") else {})}
        for (source, rows, m) in loaded]
    # the readings belong to the sources; the merged campaign has none of its own
    for key in ("machine_state", "calibration", "runs_conditions"):
        meta.pop(key, None)
    return meta
