"""The instance cache of a results directory: puzzle sets generated once by
:mod:`generators.puzzle_set` under ``<out>/instances/<kind>-n<N>-s<seed>[-<options>]/``
and read back through the generator's own manifest reader and file names."""

from __future__ import annotations

import hashlib
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from experiments.harness.config import options_label
from formats.errors import RaceError


@dataclass(frozen=True)
class Instance:
    """One puzzle file of a cached instance set."""
    file: str
    path: Path
    n: int
    kind: str
    seed: int
    index: int
    clues: int | None
    sha256: str


def instance_name(kind: str, n: int, seed: int, index: int) -> str:
    """The generator's file name for an instance (:func:`generators.puzzle_set.puzzle_name`)."""
    from generators.puzzle_set import puzzle_name
    return puzzle_name(kind, n, seed, index)


def instance_dir(out: Path, kind: str, n: int, seed: int,
                 options: dict[str, Any] | None = None) -> Path:
    """Where the instance set (kind, n, seed, generator options) is cached under ``out``."""
    return out / "instances" / f"{kind}-n{n}-s{seed}{options_label(options or {})}"


def _instance(directory: Path, row: dict[str, str]) -> Instance:
    return Instance(row["file"], directory / row["file"], int(row["n"]), row["kind"],
                    int(row["seed"]), int(row["index"]),
                    int(row["clues"]) if row.get("clues") else None, row["sha256"])


def cached_instances(directory: Path, kind: str, n: int, seed: int) -> dict[int, Instance]:
    """The instances of (kind, n, seed) listed in the directory's manifest whose files
    exist, by index. Raises RaceError for a malformed manifest."""
    from generators.puzzle_set import MANIFEST, read_manifest
    manifest = directory / MANIFEST
    found: dict[int, Instance] = {}
    for row in read_manifest(manifest):
        try:
            if (row["kind"], int(row["n"]), int(row["seed"])) != (kind, n, seed):
                continue
            instance = _instance(directory, row)
        except (KeyError, ValueError, TypeError):
            raise RaceError("malformed manifest row (expected file, kind, n, seed, index, "
                            "clues, sha256)", source=str(manifest)) from None
        found[instance.index] = instance
    return {i: inst for i, inst in found.items() if inst.path.exists()}


def ensure_instances(out: Path, kind: str, n: int, count: int, seed: int,
                     progress: bool = False, **options: Any) -> list[Instance]:
    """Instances 0..count-1 of ``kind`` at box size n with the generator ``options``:
    read from the cache, generated (by :func:`generators.puzzle_set.write_set`) when
    missing. Raises RaceError for a bad kind or option (the generator validates them)."""
    directory = instance_dir(out, kind, n, seed, options)
    have = cached_instances(directory, kind, n, seed)
    if all(i in have for i in range(count)):
        return [have[i] for i in range(count)]
    try:
        from generators import puzzle_set
    except ImportError as exc:
        raise RaceError(f"cannot generate instances: {exc}") from None
    puzzle_set.identity(kind, n, seed, 0, **options)    # RaceError for a bad kind / option
    if progress:
        print(f"generating {count} {kind} instance(s) with n={n} (seed {seed}) "
              f"in {directory}", file=sys.stderr, flush=True)
    puzzle_set.write_set(kind, n, count, seed, directory, progress=progress, **options)
    have = cached_instances(directory, kind, n, seed)
    missing = [i for i in range(count) if i not in have]
    if missing:
        raise RaceError(f"the generator did not produce instance {missing[0]} "
                        f"of {kind} n={n} seed={seed}", source=str(directory))
    return [have[i] for i in range(count)]


def read_instance(instance: Instance) -> str:
    """The instance's text, checked against the manifest's sha256."""
    data = instance.path.read_bytes()
    if hashlib.sha256(data).hexdigest() != instance.sha256:
        raise RaceError("the cached instance does not match its sha256 in manifest.csv; "
                        "delete the directory to regenerate it", source=str(instance.path))
    return data.decode("utf-8")
