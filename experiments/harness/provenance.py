"""Provenance of a campaign: ``meta.json`` (command, limits, git commit, package and
kissat versions, machine), written when a campaign starts and kept on resume."""

from __future__ import annotations

import json
import math
import platform
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from experiments.harness import code_identity
from experiments.harness.config import Config
from experiments.harness.identity import meta_family_labels
from experiments.harness.instance_families import (
    BY_KIND,
    NAMES_KEY,
    families_meta,
    names_of,
)
from experiments.harness.system_info import (
    git_commit,
    kissat_version,
    machine,
    packages,
)
from formats.errors import RaceError, printable
from formats.whole_file import write_whole


def utc_now() -> str:
    """The current time as ISO 8601 UTC with milliseconds (the second's text made once: the
    harness stamps every cell)."""
    now = time.time()
    second = int(now)
    if second != _STAMP[0]:
        _STAMP[0] = second
        _STAMP[1] = datetime.fromtimestamp(second, UTC).strftime("%Y-%m-%dT%H:%M:%S")
    return f"{_STAMP[1]}.{int((now - second) * 1000):03d}Z"


_STAMP: list = [None, ""]


def entrant_provenance(entrants: list) -> dict[str, Any]:
    """Entrant spec -> what its solver says about its origin (``solver.provenance()``,
    e.g. a ``cmd`` program's path, sha256 and ``--version``), for the entrants whose
    solver has one; a failure is recorded as ``{"error": ...}``, never raised."""
    from solvers.registry import Registry, parse_spec
    found: dict[str, Any] = {}
    for entrant in entrants:
        name = parse_spec(entrant.spec)[0]
        try:
            solver = Registry({name: (entrant.target, entrant.fixed)}).create(entrant.spec)
            provenance = getattr(solver, "provenance", None)
            if callable(provenance):
                found[entrant.spec] = provenance()
        except Exception as exc:  # noqa: BLE001 - provenance must never stop a campaign
            found[entrant.spec] = {"error": f"{type(exc).__name__}: {exc}"}
    return found


def instance_set_meta(instance_set: Any) -> dict[str, Any]:
    """The ``instance_set`` block of meta.json for user-supplied instances: where
    they come from, the manifest's sha256, counts, and the puzzles that have
    several or no solutions (reported as such, not as solver failures)."""
    return {"source": instance_set.source, "directory": str(instance_set.directory),
            "manifest_sha256": instance_set.sha256,
            "instances": {str(n): len(v) for n, v in sorted(instance_set.by_n.items())},
            "solutions": instance_set.tally(), "not_unique": instance_set.not_unique()}


def previous_meta(config: Config, code: bool = True) -> dict[str, Any]:
    """The campaign's existing ``meta.json`` ({} for a new campaign). Raises RaceError
    when it was run with another seed, limits, generator options or peak table, or with a family
    the new command drops (its rows would not compare), or when an entrant's code differs
    from the code that measured its rows (:func:`experiments.harness.code_identity.merge`;
    ``race run --mixed`` / ``--rerun`` settle that first; ``code`` False: not checked);
    adding families is a resume."""
    path = config.directory / "meta.json"
    if not path.exists():
        return {}
    old = read_meta(path, advice=RESUME_ADVICE)
    earlier = meta_family_labels(old)
    before, now = _labels(earlier), _labels(config.family_labels)
    if not before <= now:
        raise RaceError(f"campaign {config.campaign!r} was run with --family {earlier!r}, "
                        f"not {config.family_labels!r} (a resume may add families, not drop them); "
                        "choose another --campaign name", source=str(path))
    for key, value in (("seed", config.seed),
                       ("timeout_s", config.timeout_s), ("memory_mb", config.memory_mb),
                       ("generator_options", config.generator_options)):
        if key == "generator_options" and old.get(key, {}) != value:
            raise RaceError(f"campaign {config.campaign!r} was run with generator options "
                            f"{old.get(key, {})!r}, not {value!r}; choose another --campaign name",
                            source=str(path))
        if key in old and old[key] != value:
            raise RaceError(f"campaign {config.campaign!r} was run with {key}={old[key]!r}, "
                            f"not {value!r}; choose another --campaign name", source=str(path))
    _check_peaks(config, old.get("peaks"), path)
    _check_families(config, old.get("families", {}), path)
    if code:                                             # refuses an entrant whose code changed
        code_identity.merge(_recorded_code(old), code_identity.current(config.entrants), "",
                            config.campaign, str(path))
    return old


#: what to do about a damaged meta.json when a resume meets it
RESUME_ADVICE = "move it aside to resume from runs.csv, or choose another --campaign name"

#: the types meta.json's fields must have for the commands that read them (when present)
_SHAPE = {"campaign": str, "command": str, "created_at": str, "family_labels": str, "kind": str,
          "families": dict, "commands": list, "entrants": list, "n_values": list,
          "generator_options": dict, "entrant_provenance": dict, "entrant_code": dict,
          "instances": int, "repeats": int, "peaks": str}
#: fields that may also be null (what `race run` writes when it has nothing to record)
_NULLABLE = {"machine": dict, "packages": dict, "machine_state": dict, "calibration": dict,
             "merged_from": list, "machines": list, "warnings": list}
#: limits: a finite number > 0 when present and not null
_LIMITS = ("timeout_s", "memory_mb")


def read_meta(path: Path, advice: str = "") -> dict[str, Any]:
    """The campaign's ``meta.json`` at ``path``, read and checked: the one reader every
    command goes through (``race run`` resuming, the analyses, ``race merge``). Raises
    RaceError naming ``path`` (and the field) when it cannot be read, is not JSON (or is
    nested too deeply to read), is not an object or a field has the wrong type or value
    (:func:`check_meta`); ``advice`` ends the message (what to do about it)."""
    tail = f"; {advice}" if advice else ""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise RaceError(f"not UTF-8 text: it is damaged{tail}", source=str(path)) from None
    except OSError as exc:
        raise RaceError(f"cannot read: {exc.strerror}", source=str(path)) from None
    try:
        meta = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RaceError(f"malformed JSON ({exc.msg}, line {exc.lineno} column {exc.colno}): it "
                        f"is damaged{tail}", source=str(path)) from None
    except RecursionError:
        raise RaceError(f"malformed JSON (nested too deeply to read): it is damaged{tail}",
                        source=str(path)) from None
    except ValueError as exc:       # e.g. an integer too long to convert
        raise RaceError(f"malformed JSON ({exc}): it is damaged{tail}", source=str(path)) from None
    check_meta(meta, path, advice)
    return meta


def check_meta(meta: Any, path: Path, advice: str = "") -> None:
    """RaceError unless ``meta`` is a JSON object whose fields have the types (and the
    limits the values) the commands reading it rely on: ``timeout_s`` and ``memory_mb`` a
    finite number > 0, ``repeats`` a positive integer, ``instances`` a count, ``n_values`` a
    list of integers, ``entrants`` a list of strings, ``families`` objects with options."""
    tail = f"; {advice}" if advice else ""

    def bad(what: str) -> RaceError:
        return RaceError(f"field {what}: it is damaged{tail}", source=str(path))

    if not isinstance(meta, dict):
        raise RaceError(f"holds {type(meta).__name__}, not a JSON object: it is "
                        f"damaged{tail}", source=str(path))
    for key, expected in (*_SHAPE.items(), *_NULLABLE.items()):
        value = meta.get(key)
        if key not in meta or (value is None and key in _NULLABLE):
            continue
        if not isinstance(value, expected) or isinstance(value, bool):
            raise bad(f"{key!r} is {type(value).__name__}, not {expected.__name__}")
    if meta.get("repeats", 1) < 1:
        raise bad(f"'repeats' is {meta['repeats']}, not a positive integer")
    if meta.get("instances", 0) < 0:
        raise bad(f"'instances' is {meta['instances']}, not a count")
    for key in _LIMITS:
        value = meta.get(key)
        if value is None:
            continue
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise bad(f"{key!r} is {type(value).__name__}, not a number")
        if not (math.isfinite(value) and value > 0):
            raise bad(f"{key!r} is {value!r}, not a finite number > 0")
    for key, expected in (("n_values", int), ("entrants", str)):
        for item in meta.get(key) or []:
            if not isinstance(item, expected) or isinstance(item, bool):
                raise bad(f"{key!r} holds {type(item).__name__} {printable(repr(item))[:40]}, "
                          f"not {expected.__name__}")
    for key, value in (meta.get("families") or {}).items():
        if not isinstance(value, dict) or not isinstance(value.get("options", {}), dict):
            raise bad(f"'families' entry {key!r} is not an object with options")


def check_rows(config: Config, rows: list[dict[str, str]]) -> None:
    """Refuse a resume whose runs.csv holds cells of another seed or time limit (what
    meta.json would have refused, when meta.json is missing or was replaced). A row of
    another campaign is not checked: the resume sets it aside
    (:meth:`experiments.harness.runs_table.RunsTable.set_aside_strays`)."""
    for row in rows:
        if row.get("campaign") and row["campaign"] != config.campaign:
            continue
        for column, value in (("seed", config.seed), ("timeout_s", config.timeout_s)):
            text = row.get(column, "")
            if text and config.instance_set is None and float(text) != float(value):
                raise RaceError(f"runs.csv holds cells run with {column}={text}, not {value:g}; "
                                "a resume must keep the seed and the limit: choose another "
                                "--campaign name", source=str(config.runs_path))


def _provenance_history(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """The entrants' provenance: the new readings, and for an entrant whose program changed
    since earlier runs (another sha256) the earlier readings under ``earlier``, said once per
    program on stderr (:func:`_changed_programs`: its rows now mix two programs)."""
    merged = {spec: value for spec, value in old.items() if spec not in new}
    changed: dict[tuple[str, str, str], list[str]] = {}
    for spec, now in new.items():
        before = old.get(spec)
        earlier = list(before.get("earlier", [])) if isinstance(before, dict) else []
        if isinstance(before, dict) and isinstance(now, dict) \
                and before.get("sha256") != now.get("sha256"):
            earlier.append({k: v for k, v in before.items() if k != "earlier"})
            program = str(now.get("path") or before.get("path") or spec)
            key = (program, str(before.get("sha256")), str(now.get("sha256")))
            changed.setdefault(key, []).append(spec)
        merged[spec] = {**now, **({"earlier": earlier} if earlier else {})} \
            if isinstance(now, dict) else now
    for line in _changed_programs(changed):
        print(line, file=sys.stderr)
    return merged


def _changed_programs(changed: dict[tuple[str, str, str], list[str]]) -> list[str]:
    """One warning per changed program: (path, sha256 before, sha256 now) -> the entrant
    specs that run it."""
    return [f"race: warning: the program {printable(program)} changed since this campaign's "
            f"earlier runs (sha256 {before} -> {now}): the rows of "
            f"{', '.join(printable(s) for s in specs)} now mix the two; both are recorded in "
            "meta.json (entrant_provenance)"
            for (program, before, now), specs in changed.items()]


def _labels(text: str) -> set[str]:
    """The family labels of a ``--family`` text such as ``unique,hard``."""
    return {k.strip() for k in str(text).split(",") if k.strip()}



def _check_peaks(config: Config, old: str | None, path: Path) -> None:
    """Refuse a resume whose hard family reads another peak table (``race run --peaks``)
    than the one meta.json records (none recorded: the committed table)."""
    from generators.hardness_peaks import PEAKS_PATH
    committed = str(PEAKS_PATH.resolve())
    before, now = old or committed, str(config.peaks) if config.peaks is not None else committed
    if before != now:
        def named(table: str) -> str:
            return f"--peaks {table}" if table != committed else "the committed peak table"
        raise RaceError(f"campaign {config.campaign!r} was run with {named(before)}, not "
                        f"{named(now)}: resume with the same table or choose another "
                        "--campaign name", source=str(path))


def _check_families(config: Config, old: dict[str, Any], path: Path) -> None:
    """Refuse a resume whose families generate other instances at an n already recorded
    (e.g. the hardness peak table changed under a ``hard`` campaign); new families and
    new n are fine."""
    new = families_meta(config.families, config.n_values)
    for key, family in new.items():
        before = old.get(key, {}).get("options", {})
        for n, options in family["options"].items():
            if n in before and before[n] != options:
                raise RaceError(f"campaign {config.campaign!r} was run with {key} options "
                                f"{before[n]!r} at n={n}, not {options!r} (did the hardness "
                                "peak table change?); choose another --campaign name",
                                source=str(path))


def _merged_families(old: dict[str, Any], config: Config) -> dict[str, Any]:
    merged = {key: dict(value) for key, value in old.items()}
    for key, family in families_meta(config.families, config.n_values).items():
        before = merged.get(key, {}).get("options", {})
        merged[key] = {**family, "options": dict(sorted({**before, **family["options"]}.items(),
                                                        key=lambda kv: int(kv[0])))}
    return merged


def _commands(old: dict[str, Any], command: str, n_values: list[int]) -> list[dict[str, Any]]:
    """Every command that has run this campaign, oldest first, each with its n and the
    git commit it ran at: a campaign grown by resumes (more n, entrants or families)
    records how each part was made."""
    history = list(old.get("commands", []))
    if not history and "command" in old:
        history.append({"command": old["command"], "n_values": old.get("n_values", []),
                        "git_commit": old.get("git_commit", "")})
    entry = {"command": command, "n_values": list(n_values), "git_commit": git_commit()}
    if not history or history[-1] != entry:
        history.append(entry)
    return history


#: what :mod:`experiments.harness.conditions` records of each run (the latest run's readings,
#: and every run's under ``runs_conditions``): kept as they are on resume, for it to update
RUN_READINGS = ("machine_state", "calibration", "pinning", "order", "runs_conditions")


def write_meta(config: Config) -> dict[str, Any]:
    """Write (or, on resume, update) ``meta.json``. A resumed campaign must keep its
    seed and limits; families, n values, entrants, instances and repeats may grow; the
    earlier runs' readings (:data:`RUN_READINGS`) are kept."""
    path = config.directory / "meta.json"
    old = previous_meta(config)
    code = code_identity.merge(_recorded_code(old), code_identity.current(config.entrants),
                               utc_now(), config.campaign, str(path))
    entrants = list(dict.fromkeys([*old.get("entrants", []), *(e.spec for e in config.entrants)]))
    meta = {
        "campaign": config.campaign,
        "command": config.command,
        "commands": _commands(old, config.command, config.n_values),
        "created_at": old.get("created_at", utc_now()),
        "n_values": sorted(set(old.get("n_values", [])) | set(config.n_values)),
        "entrants": entrants,
        "family_labels": config.family_labels,
        "seed": config.seed,
        **({"generator_options": config.generator_options} if config.generator_options else {}),
        **({"peaks": str(config.peaks)} if config.peaks is not None else {}),
        "families": _merged_families(old.get("families", {}), config),
        "instances": max(int(old.get("instances", 0)), config.instances),
        "repeats": max(int(old.get("repeats", 0)), config.repeats),
        "timeout_s": config.timeout_s,
        "memory_mb": config.memory_mb,
        "jobs": config.jobs,
        "executor": config.executor,
        "git_commit": git_commit(),
        "python": platform.python_version(),
        "packages": packages(),
        "kissat_version": kissat_version(),
        **({"entrant_provenance": extra} if (extra := _provenance_history(
            old.get("entrant_provenance", {}), entrant_provenance(config.entrants))) else {}),
        code_identity.KEY: code,
        **({"instance_set": instance_set_meta(config.instance_set)} if config.instance_set else {}),
        # how the instance files are named; a campaign made before says nothing (the kind)
        **({NAMES_KEY: names} if (names := names_of(old)) != BY_KIND else {}),
        "machine": machine(),
        **{key: old[key] for key in RUN_READINGS if key in old},
    }
    save_meta(path, meta)
    return meta


def _recorded_code(old: dict[str, Any]) -> dict[str, Any]:
    """The code identities meta.json recorded per entrant: ``entrant_code``, or for a campaign
    written before it, each outside program's sha256 (``entrant_provenance``)."""
    specs = dict.fromkeys([*(old.get(code_identity.KEY) or {}),
                           *(old.get("entrant_provenance") or {})])
    return {spec: found for spec in specs
            if (found := code_identity.recorded(old, spec)) is not None}


def save_meta(path: Path, meta: dict[str, Any]) -> None:
    """Write ``meta`` as the campaign's meta.json, atomically (a kill or a full disk leaves
    the old file whole, never a cut one: a cut meta.json stops every resume)."""
    try:
        write_whole(path, json.dumps(meta, indent=2) + "\n")
    except OSError as exc:
        raise RaceError(f"cannot write: {exc.strerror}", source=str(path)) from None
