"""The instance cache of a results directory: puzzle sets generated once by
:mod:`generators.puzzle_set` under ``<out>/instances/<kind>-n<N>-s<seed>[-<options>]/``
and read back through the generator's own manifest reader and file names."""

from __future__ import annotations

import hashlib
import os
import sys
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from experiments.harness.config import options_label
from formats.errors import RaceError, printable


@dataclass(frozen=True)
class Instance:
    """One puzzle file of a cached instance set: ``file`` in ``directory``."""
    file: str
    directory: Path
    n: int
    kind: str
    seed: int
    index: int
    clues: int | None
    sha256: str

    @cached_property
    def path(self) -> Path:
        """The puzzle file (made when first asked for: a set of 50,000 makes none up front)."""
        return self.directory / self.file


def instance_name(kind: str, n: int, seed: int, index: int) -> str:
    """The generator's file name for an instance (:func:`generators.puzzle_set.puzzle_name`)."""
    from generators.puzzle_set import puzzle_name
    return puzzle_name(kind, n, seed, index)


def instance_dir(out: Path, kind: str, n: int, seed: int,
                 options: dict[str, Any] | None = None) -> Path:
    """Where the instance set (kind, n, seed, generator options) is cached under ``out``
    (``kind``: the generator's kind or the family's file stem, ``hard``)."""
    return out / "instances" / f"{kind}-n{n}-s{seed}{options_label(options or {})}"


def _instance(directory: Path, row: dict[str, str], manifest: Path, line: int,
              plain: frozenset[str] = frozenset()) -> Instance:
    """The instance of a manifest row (KeyError, ValueError, TypeError when malformed; a
    RaceError when its file is not in the set, :func:`member`). A name in ``plain`` (the
    regular files directly in ``directory``, not links: :func:`plain_files`) is in the set
    without resolving its path."""
    name = row["file"]
    if name not in plain:
        member(directory, name, manifest, line)
    return Instance(name, directory, int(row["n"]),
                    row["kind"], int(row["seed"]), int(row["index"]),
                    int(row["clues"]) if row.get("clues") else None, row["sha256"])


def plain_files(directory: Path) -> frozenset[str]:
    """The names of the regular files directly in ``directory`` (symbolic links left out:
    :func:`member` resolves those), read in one listing."""
    try:
        with os.scandir(directory) as entries:
            return frozenset(e.name for e in entries if e.is_file(follow_symlinks=False))
    except OSError:
        return frozenset()


def member(directory: Path, name: str, manifest: Path, line: int) -> Path:
    """The path of the file ``name`` that line ``line`` of the set's ``manifest`` lists:
    a relative name that resolves (symbolic links followed) inside ``directory``. Anything
    else (``/etc/passwd``, ``../../x``, a link out of the set) is refused with a RaceError
    naming the row, before the file is opened: a set only ever reads its own files."""
    path = directory / name
    root = directory.resolve()
    try:
        inside = bool(name) and not Path(name).is_absolute() and path.resolve().is_relative_to(root)
    except (OSError, RuntimeError):            # a loop of links
        inside = False
    if not inside or path.resolve() == root:
        raise RaceError(f"instance file {printable(name)!r} is not a file of the set: it resolves "
                        f"outside its directory {root}; refused", source=str(manifest), line=line)
    return path


def cached_instances(directory: Path, kind: str, n: int, seed: int) -> dict[int, Instance]:
    """The instances of (kind, n, seed) listed in the directory's manifest whose files
    exist, by index. Raises RaceError for a malformed manifest."""
    from generators.puzzle_set import MANIFEST, read_manifest
    manifest = directory / MANIFEST
    found: dict[int, Instance] = {}
    for line, row in enumerate(read_manifest(manifest), 2):
        try:
            if (row["kind"], int(row["n"]), int(row["seed"])) != (kind, n, seed):
                continue
            instance = _instance(directory, row, manifest, line)
        except (KeyError, ValueError, TypeError):
            raise RaceError("malformed manifest row (expected file, kind, n, seed, index, "
                            "clues, sha256)", source=str(manifest)) from None
        found[instance.index] = instance
    return {i: inst for i, inst in found.items() if inst.path.exists()}


def ensure_instances(out: Path, kind: str, n: int, count: int, seed: int,
                     progress: bool = False, label: str | None = None, stem: str | None = None,
                     jobs: int = 1, **options: Any) -> list[Instance]:
    """Instances 0..count-1 of ``kind`` at box size n with the generator ``options``:
    read from the cache, generated (by :func:`generators.puzzle_set.write_set`) when
    missing; the progress lines name the family by ``label`` (``hard``), the generator's
    kind and options after it. ``stem`` names the set's directory and files (default
    ``kind``: ``hard`` for ``hard-n5-s0-holes0.55-balanced/hard-n5-s0-0000.sudoku``); ``jobs``
    processes make a large set's puzzles at once. Raises RaceError for a bad kind or option
    (the generator validates them)."""
    directory = instance_dir(out, stem or kind, n, seed, options)
    have = cached_instances(directory, kind, n, seed)
    if all(i in have for i in range(count)):
        return [have[i] for i in range(count)]
    try:
        from generators import puzzle_set
    except ImportError as exc:
        raise RaceError(f"cannot generate instances: {exc}") from None
    puzzle_set.identity(kind, n, seed, 0, **options)    # RaceError for a bad kind / option
    name = label or kind
    if progress:
        given = ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}"
                          for k, v in sorted(options.items()))
        made = f" (the generator's {kind}" + (f" with {given})" if given else ")") \
            if name != kind else ""
        print(f"generating {count} {name} instance(s){made} with n={n} (seed {seed}) "
              f"in {directory}", file=sys.stderr, flush=True)
    puzzle_set.write_set(kind, n, count, seed, directory, progress=progress, label=name,
                         stem=stem, jobs=jobs, **options)
    have = cached_instances(directory, kind, n, seed)
    missing = [i for i in range(count) if i not in have]
    if missing:
        raise RaceError(f"the generator did not produce instance {missing[0]} "
                        f"of {kind} n={n} seed={seed}", source=str(directory))
    return [have[i] for i in range(count)]


#: the bytes read from an instance file at once (a 9x9 puzzle file is about 200)
_CHUNK = 1 << 16


def read_instance(instance: Instance, directory_fd: int | None = None) -> str:
    """The instance's text, checked against the manifest's sha256; ``directory_fd``: its set's
    directory held open (:func:`open_directory`), where its file is looked up alone."""
    if directory_fd is None:
        fd = os.open(os.path.join(instance.directory, instance.file), os.O_RDONLY | os.O_CLOEXEC)
    else:                               # the name is the set's own (member): never absolute
        try:
            fd = os.open(instance.file, os.O_RDONLY | os.O_CLOEXEC, dir_fd=directory_fd)
        except OSError as exc:          # named by its whole path, as opened without the directory
            raise OSError(exc.errno, exc.strerror, str(instance.path)) from None
    try:                                # one open, one read: a race reads every instance
        data = os.read(fd, _CHUNK)
        if len(data) == _CHUNK:         # a short read of a regular file is its end
            data += b"".join(iter(lambda: os.read(fd, _CHUNK), b""))
    finally:
        os.close(fd)
    if hashlib.sha256(data).hexdigest() != instance.sha256:
        raise RaceError("the cached instance does not match its sha256 in manifest.csv; "
                        "it changed after it was written: restore it (an imported set: run "
                        "race import again), or, for a generated set, delete its directory to "
                        "regenerate it", source=str(instance.path))
    return data.decode("utf-8")


def open_directory(directory: Path) -> int | None:
    """``directory`` held open for :func:`read_instance` (None where it cannot be: each file
    is then opened by its whole path, and a failure names it)."""
    try:
        return os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return None


# -- user-supplied instances (race run --instances PATH) ------------------------------

#: what the ``solutions`` column of an instance set says (see formats.datasets)
SOLUTION_LABELS = {"0": "no solution", "1": "unique", "many": "several solutions",
                   "unchecked": "not counted"}


@dataclass(frozen=True)
class InstanceSet:
    """User-supplied instances: an imported set (``race import``) in ``directory``,
    by n; ``solutions`` says per instance file "0", "1", "many" or "unchecked"."""
    directory: Path
    source: str
    sha256: str
    by_n: dict[int, list[Instance]]
    solutions: dict[str, str]

    def tally(self) -> dict[str, int]:
        """How many instances are unique, have several or no solutions (labels as keys)."""
        counts = {label: 0 for label in SOLUTION_LABELS.values()}
        for word in self.solutions.values():
            counts[SOLUTION_LABELS.get(word, "not counted")] += 1
        return {label: k for label, k in counts.items() if k}

    def not_unique(self) -> dict[str, str]:
        """Instance file -> "no solution" / "several solutions", for those that are."""
        return {f: SOLUTION_LABELS[w] for f, w in self.solutions.items() if w in ("0", "many")}

    def describe(self) -> str:
        """One line: where the puzzles come from, how many per n, their solution counts."""
        sizes = ", ".join(f"n={n}: {len(v)}" for n, v in sorted(self.by_n.items()))
        tally = ", ".join(f"{label} {k}" for label, k in self.tally().items())
        return (f"instances from {self.source} ({sizes}; {tally}); puzzles with several "
                "or no solutions are reported as such, not as solver failures")


def load_instance_set(path: str | Path, out: Path) -> InstanceSet:
    """The instances of ``path``: an instance set written by ``race import`` (a
    directory with manifest.csv) is used in place; anything else formats.datasets
    reads (a directory of puzzle files, a one-line collection, numeric grids) is
    imported once into ``out/instances/dataset-<sha256 of its puzzles>/`` with each
    puzzle's solutions counted (0, 1 or many). RaceError for unreadable input."""
    from formats import datasets
    root = Path(path)
    if root.is_dir() and (root / datasets.MANIFEST).is_file():
        return _read_set(root, str(path))
    puzzles = datasets.read_dataset(root)
    digest = hashlib.sha256()
    for puzzle in puzzles:
        digest.update(f"{puzzle.grid.n}:".encode() + puzzle.grid.cells.astype("<i4").tobytes())
    directory = out / "instances" / f"dataset-{digest.hexdigest()[:16]}"
    if not (directory / datasets.MANIFEST).is_file():
        words = count_solutions([p.grid for p in puzzles], progress=True)
        datasets.write_instance_set(puzzles, words, directory)
    return _read_set(directory, str(path))


#: DLX search nodes the count of one imported puzzle may take (about a second); past it
#: its count is "unchecked" (unknown), never guessed
COUNT_NODE_LIMIT = 2_000_000


def count_solutions(grids: list, node_limit: int = COUNT_NODE_LIMIT,
                    progress: bool = False) -> list[str]:
    """"0", "1" or "many" per grid (its solutions counted by DLX up to 2), or "unchecked"
    where ``node_limit`` search nodes did not settle it; puzzles of one n go in compiled
    calls of a few at a time, with a progress bar on stderr when asked and long."""
    import numpy as np
    from tqdm import tqdm

    from solvers.exact_cover.batch import dlx_many
    words = ["unchecked"] * len(grids)
    with tqdm(total=len(grids), unit="puzzle", desc="counting solutions", file=sys.stderr,
              disable=not progress or None, delay=2.0, mininterval=0.5) as bar:
        for n in sorted({g.n for g in grids}):
            where = [i for i, g in enumerate(grids) if g.n == n]
            chunk = max(1, 20_000 // n ** 4)
            for start in range(0, len(where), chunk):
                part = where[start:start + chunk]
                counts, _, complete, _ = dlx_many(np.stack([grids[i].cells for i in part]), n,
                                                  limit=2, node_limit=node_limit)
                for i, count, done in zip(part, counts.tolist(), complete.tolist()):
                    if done or count >= 2:
                        words[i] = ("0", "1", "many")[min(count, 2)]
                bar.update(len(part))
    return words


def _read_set(directory: Path, source: str) -> InstanceSet:
    """An :class:`InstanceSet` from an import's manifest.csv (files must exist)."""
    from formats import datasets
    from generators.puzzle_set import read_manifest
    manifest = directory / datasets.MANIFEST
    data = manifest.read_bytes()
    by_n: dict[int, list[Instance]] = {}
    solutions: dict[str, str] = {}
    plain = plain_files(directory)
    for line, row in enumerate(read_manifest(manifest, data), 2):
        try:
            instance = _instance(directory, row, manifest, line, plain)
        except (KeyError, ValueError, TypeError):
            raise RaceError("malformed manifest row (expected file, kind, n, seed, index, clues, "
                            "sha256[, solutions])", source=str(manifest), line=line) from None
        if instance.file not in plain and not instance.path.is_file():
            raise RaceError(f"instance file {instance.file!r} is missing", source=str(manifest),
                            line=line)
        if instance.file in solutions:      # one file is one instance, however often listed
            print(f"race: warning: {printable(str(manifest))}: line {line} lists "
                  f"{printable(instance.file)} again; it is raced once", file=sys.stderr)
            continue
        by_n.setdefault(instance.n, []).append(instance)
        solutions[instance.file] = row.get("solutions") or "unchecked"
    if not by_n:
        raise RaceError("the instance set lists no instance", source=str(manifest))
    return InstanceSet(directory, source, hashlib.sha256(data).hexdigest(), by_n, solutions)
