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
from typing import Any

from experiments.harness import campaign_plan, records
from experiments.harness.identity import row_family
from experiments.harness.provenance import read_meta, utc_now
from formats.errors import RaceError, printable

#: meta.json fields that change a cell's outcome, so merged campaigns must agree on them (the
#: rest of :func:`conditions`: family options, programs and parameters, where both have them)
SHARED = ("seed", "timeout_s", "memory_mb", "generator_options")


def conditions(meta: dict[str, Any], rows: list[dict[str, str]]) -> dict[str, Any]:
    """What a campaign was raced under that changes a cell's outcome, by name: the limits,
    seed and generator options of meta.json (:data:`SHARED`), each family's options at each
    n, each ``cmd`` entrant's program (sha256) and each entrant's parameters as its rows
    record them (a node limit, a default that changed: the same spec is then another
    entrant). Only names two campaigns both have are compared, except :data:`SHARED`."""
    found: dict[str, Any] = {key: meta.get(key) for key in SHARED}
    found["generator_options"] = meta.get("generator_options") or {}
    for family, value in (meta.get("families") or {}).items():
        for n, options in (value.get("options") or {}).items():
            found[f"{family} family options at n={n}"] = options
    for spec, value in (meta.get("entrant_provenance") or {}).items():
        if isinstance(value, dict) and value.get("sha256"):
            found[f"{spec}'s program (sha256)"] = value["sha256"]
    for row in rows:
        if row.get("params"):
            found.setdefault(f"{row['entrant']}'s parameters", row["params"])
    return found


def _check_conditions(loaded: list[tuple[Path, list[dict[str, str]], dict[str, Any]]]) -> None:
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


def _load(source: Path) -> tuple[list[dict[str, str]], dict[str, Any], list[records.Damaged]]:
    """A source's valid rows, meta.json and damaged rows (RaceError when it cannot be read)."""
    runs, meta_path = source / "runs.csv", source / "meta.json"
    if not runs.is_file() or not meta_path.is_file():
        raise RaceError(f"{source}: not a campaign directory (expected runs.csv and meta.json in it)")
    meta = read_meta(meta_path)
    found = records.scan(runs)
    if found.header_problem:
        raise RaceError(f"{found.header_problem}: not a runs table race merge can read",
                        source=str(runs), line=1)
    if not found.rows:
        raise RaceError("no runs recorded" + (" (no valid row)" if found.damaged else ""),
                        source=str(runs))
    if found.damaged:
        print(f"race: warning: {printable(str(runs))}: {len(found.damaged)} damaged row(s) "
              f"go to the merged campaign's {records.DAMAGED_NAME}, not into its runs: "
              f"{records.describe(found.damaged)}", file=sys.stderr)
    rows, strays = campaign_plan.split(found, meta, source)
    if strays:
        print(f"race: warning: {printable(str(runs))}: {campaign_plan.note(strays)} go to the "
              f"merged campaign's {records.DAMAGED_NAME}, not into its runs", file=sys.stderr)
    if not rows:
        raise RaceError("no runs of this campaign recorded", source=str(runs))
    return rows, meta, [records.Damaged(d.line, d.raw, f"{runs}: {d.reason}")
                        for d in found.damaged + strays]


def _measurement(row: dict[str, str]) -> tuple[str, ...] | None:
    """What makes a row one measurement: where and when it ran, and what (None when the
    row does not say where and when)."""
    if not row.get("worker") or not row.get("started_at"):
        return None
    return (row["worker"], row["started_at"], row["entrant"], row_family(row), row["n"],
            row["instance"])


def _key(row: dict[str, str]) -> tuple[str, str, int, str]:
    return row["entrant"], row_family(row), int(row["n"]), row["instance"]


def merge_campaigns(sources: list[Path], out: Path) -> tuple[int, dict[str, Any]]:
    """Merge ``sources`` into the new campaign directory ``out`` (module docstring); the
    number of rows written and the merged meta.json."""
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
    measured: dict[tuple[str, ...], Path] = {}
    for source, rows, _ in loaded:
        mine: set[tuple[str, ...]] = set()
        for row in rows:
            key = _measurement(row)
            if key is None:
                continue
            if key in measured and measured[key] != source:
                raise RaceError(f"{source} and {measured[key]} hold the same measurement ("
                                f"{row['entrant']} on {row['instance']}, run by {row['worker']} "
                                f"at {row['started_at']}): a campaign and its copy; merged, its "
                                "rows would pose as repeats")
            mine.add(key)
        measured.update((key, source) for key in mine)
    _check_conditions(loaded)
    sha: dict[tuple[str, int, str], tuple[str, Path]] = {}
    repeats: dict[tuple[str, str, int, str], int] = {}
    merged: list[dict[str, str]] = []
    for source, rows, _ in loaded:
        shift = dict(repeats)               # the repeats the earlier sources already hold
        for row in rows:
            name = (row_family(row), int(row["n"]), row["instance"])
            digest = row.get("instance_sha256", "")
            if digest:
                seen = sha.setdefault(name, (digest, source))
                if seen[0] != digest:
                    raise RaceError(f"{source}: instance {row['instance']} (n={row['n']}) has "
                                    f"sha256 {digest[:12]}..., {seen[1]} has {seen[0][:12]}...: "
                                    "not the same instances")
            key = _key(row)
            row = dict(row, repeat=str(int(row["repeat"] or 0) + shift.get(key, 0)))
            repeats[key] = max(repeats.get(key, 0), int(row["repeat"]) + 1)
            merged.append(row)
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
            with records.RunsWriter(work / "runs.csv") as writer:
                for row in merged:
                    writer.write(row)
            if damaged:
                records.append_damaged(work / records.DAMAGED_NAME, damaged)
            (work / "meta.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
            os.rename(work, out)
        except records.RecordWriteError as exc:     # names the file in the hidden work dir
            raise RaceError(f"cannot write the merged campaign ({exc.message}); nothing was "
                            "written", source=str(out)) from None
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
