"""Reproducible puzzles and puzzle sets on disk: the generators' public API.

* :func:`make` -- one puzzle and its metadata from (kind, n, seed, index, options);
* :func:`write_set` -- ``count`` puzzles as ``<kind>-n<N>-s<seed>-<index:04d>.sudoku``
  files (or named after the family they are raced as: ``hard-n5-s0-0000.sudoku``) plus ``manifest.csv`` (file, kind, n, seed, index, clues, sha256); files
  already present for the same identity are kept, not regenerated (a cache).

Determinism: the random streams come from ``np.random.SeedSequence([seed,
index, n, stream])`` (stream 0 = fill, 1 = removal order, 2 + kind code = the
family's own draws), never from global state, and the counters are exact,
so the same arguments give byte-identical files on every machine, whichever
counter is used. ``unique``, ``minimal``, ``multi``, ``unsat`` and ``holes``
with the same (seed, index, n) share the solved grid (see
:mod:`generators.kinds`).
"""

from __future__ import annotations

import csv
import hashlib
import io
import os
from pathlib import Path
from typing import Any

import numpy as np

from formats import grid_text
from formats.errors import RaceError, write_reason
from formats.grid import MAX_N, Grid
from generators import kinds
from generators.counting import COUNTER_BACKENDS, SolutionCounter, make_counter
from generators.unique import FILLS, default_fill

#: the generator kinds, in the order the CLI lists them (:data:`generators.kinds.GENERATORS`)
KINDS: tuple[str, ...] = tuple(kinds.GENERATORS)
#: bumped whenever a change to the algorithms changes any output (invalidates cached files)
GENERATOR_VERSION = "2"
#: each kind's random stream code (stream 2 + code): fixed per kind, never its position in
#: KINDS, so listing a kind elsewhere or adding one changes no puzzle. Changing a code
#: changes that kind's puzzles: a deliberate break, pinned by tests/test_generator_streams.py
_KIND_CODE = {"unique": 0, "minimal": 1, "unsat": 2, "multi": 3, "holes": 4}
MANIFEST = "manifest.csv"
MANIFEST_FIELDS = ("file", "kind", "n", "seed", "index", "fill", "clues", "sha256")
#: largest n each family can be generated for. ``holes`` needs only a solved grid
#: (the fast fills reach :data:`formats.grid.MAX_N`). ``unique`` and ``multi`` run
#: Algorithm 2's removal phase, which stops at the first clue whose removal breaks
#: uniqueness: on a latin fill its questions are settled by propagation and budgeted
#: DLX (measured per puzzle: 0.05 s at n = 7 and 8, 0.1-0.2 s at n = 10, 5-25 s at
#: n = 15, 30-140 s at n = 20). ``minimal`` removes every removable clue: a question
#: per cell near the hardness peak: 6-60 s at n = 5; at n = 6 hours at least (measured
#: 2026-11-25, one puzzle, stopped: 27 min into the removal phase's parallel part its workers
#: had decided 62 positions, one uniqueness question alone taking 19 min), out of reach beyond.
FAMILY_MAX_N: dict[str, int] = {"unique": MAX_N, "minimal": 6, "unsat": MAX_N, "multi": MAX_N,
                                "holes": MAX_N}
#: base=auto of ``unsat``: ``unique`` up to this n, ``holes`` beyond (seconds, not minutes)
UNSAT_AUTO_UNIQUE_MAX_N = 6


class CounterPool:
    """The counters of one batch of puzzles, by (n, backend name): each built
    and warmed up on first use, all freed by :meth:`close` (SAT solvers must
    go before the interpreter tears down). Use as a context manager."""

    def __init__(self) -> None:
        self._built: dict[tuple[int, str], SolutionCounter] = {}

    def get(self, n: int, name: str = "auto") -> SolutionCounter:
        """The counter for box size ``n`` and backend ``name`` (see COUNTER_BACKENDS)."""
        key = (n, name)
        if key not in self._built:
            counter = make_counter(n, name)
            counter.warmup()
            self._built[key] = counter
        return self._built[key]

    def close(self) -> None:
        while self._built:
            self._built.popitem()[1].close()

    def __enter__(self) -> CounterPool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def streams(n: int, seed: int, index: int, kind: str) -> kinds.Streams:
    """The three independent random streams of puzzle (kind, n, seed, index)."""
    def rng(stream: int) -> np.random.Generator:
        return np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, index, n, stream])))
    return kinds.Streams(rng(0), rng(1), rng(2 + _KIND_CODE[kind]))


def _check_int(name: str, value, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise RaceError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)


def _resolve(kind: str, n: int, seed: int, index: int, options: dict) -> tuple[dict, str]:
    """Validate the arguments; return the family's options (defaults filled) and the counter name."""
    if kind not in KINDS:
        raise RaceError(f"unknown kind {kind!r} (kinds: {', '.join(KINDS)})")
    n = _check_int("n", n, 1)
    if n > FAMILY_MAX_N[kind]:
        raise RaceError(f"n={n} is beyond what the generator can do for kind {kind!r} "
                        f"(n <= {FAMILY_MAX_N[kind]})")
    _check_int("seed", seed, 0)
    _check_int("index", index, 0)
    options = dict(options)
    counter = options.pop("counter", "auto")
    if counter not in COUNTER_BACKENDS:
        raise RaceError(f"unknown counter {counter!r} (counters: {', '.join(COUNTER_BACKENDS)})")
    allowed = kinds.GENERATORS[kind][1]
    unknown = set(options) - set(allowed)
    if unknown:
        known = ", ".join(allowed) or "none"
        raise RaceError(f"kind {kind!r} takes no option {', '.join(sorted(unknown))} (options: {known})")
    resolved = {**allowed, **options}
    if resolved["fill"] == "auto":
        resolved["fill"] = default_fill(n)
    if resolved["fill"] not in FILLS:
        raise RaceError(f"fill must be one of auto, {', '.join(FILLS)}, got {resolved['fill']!r}")
    if "holes" in resolved:
        if isinstance(resolved["holes"], str):       # e.g. from a command line or a config file
            try:
                resolved["holes"] = float(resolved["holes"])
            except ValueError:
                raise RaceError(f"holes must be a fraction in [0, 1], got {resolved['holes']!r}") from None
        kinds.hole_count(n, resolved["holes"])
        resolved["holes"] = float(resolved["holes"])
    if kind == "holes" and resolved["pattern"] not in kinds.PATTERNS:
        raise RaceError(f"pattern must be one of {', '.join(kinds.PATTERNS)}, "
                        f"got {resolved['pattern']!r}")
    if kind == "unsat":
        _resolve_unsat(n, resolved, options)
    return resolved, counter


def _resolve_unsat(n: int, resolved: dict, given: dict) -> None:
    """Resolve base=auto (unique up to n = 6, holes beyond) in place; ``holes`` only
    with base=holes."""
    if resolved["base"] == "auto":
        resolved["base"] = "unique" if n <= UNSAT_AUTO_UNIQUE_MAX_N else "holes"
    base = resolved["base"]
    if base not in kinds.UNSAT_BASES:
        raise RaceError(f"base must be one of {', '.join(kinds.UNSAT_BASES)}, got {base!r}")
    if base != "holes":
        if "holes" in given:
            raise RaceError("unsat: holes goes with base=holes")
        del resolved["holes"]
        if n > FAMILY_MAX_N[base]:
            raise RaceError(f"unsat: base={base} needs n <= {FAMILY_MAX_N[base]}; use base=holes")


def identity(kind: str, n: int, seed: int, index: int, **options) -> dict[str, str]:
    """The metadata that names a puzzle: equal identities give equal puzzles."""
    resolved, _ = _resolve(kind, n, seed, index, options)
    out = {"kind": kind, "n": str(n), "seed": str(seed), "index": str(index),
           "generator": f"sudoku-race/{GENERATOR_VERSION}"}
    for key, value in resolved.items():
        out[key] = kinds.format_fraction(value) if isinstance(value, float) else str(value)
    return out


def compact(cells: np.ndarray, n: int) -> str:
    """A solved grid on one line (:func:`formats.grid_text.format_compact`)."""
    return grid_text.format_compact(Grid(n, cells))


def make(kind: str, n: int, seed: int, index: int, *, pool: CounterPool | None = None,
         **options) -> tuple[Grid, dict[str, str]]:
    """Puzzle number ``index`` of the set (kind, n, seed) and its metadata.

    ``options``: ``holes`` (fraction in [0, 1]) and ``pattern`` (random |
    balanced) for kind ``holes``; ``base`` (unique | minimal) for ``unsat``;
    ``fill`` (any kind: auto | one of :data:`generators.unique.FILLS`; recorded
    resolved, e.g. ``fill=latin``);
    ``counter`` (any kind; speed only, never the output). Metadata keys: kind,
    n, seed, index, generator, the options, clues, and ``solution`` (the unique
    solution, unique/minimal) or ``planted`` (the solved grid the puzzle was cut
    from: a solution for holes and multi, contradicted by one clue for unsat), and for
    multi ``second`` (another solution, the proof of "two or more").
    ``pool`` shares warmed-up counters across calls (a fresh one per call, closed
    on return, when None). Raises RaceError for a bad argument or a kind that
    cannot exist at this n."""
    meta = identity(kind, n, seed, index, **options)
    resolved, counter_name = _resolve(kind, n, seed, index, options)
    if pool is None:
        with CounterPool() as own:
            return make(kind, n, seed, index, pool=own, **options)
    function = kinds.GENERATORS[kind][0]
    # holes from a fast fill asks no solver question: no counter (building one for a
    # large n would cost more than the puzzle)
    needs_counter = not (kind == "holes" or resolved.get("base") == "holes") \
        or resolved["fill"] == "algorithm2"
    counter = pool.get(n, counter_name) if needs_counter else None
    try:
        puzzle = function(n, streams(n, seed, index, kind), counter, **resolved)
    except RaceError as exc:           # which puzzle of a set could not be made
        raise RaceError(f"{puzzle_name(kind, n, seed, index)}: {exc.message}",
                        source=exc.source, line=exc.line, column=exc.column) from None
    grid = Grid(n, puzzle.cells)
    meta["clues"] = str(grid.clues())
    meta["solution" if puzzle.unique_solution else "planted"] = compact(puzzle.planted, n)
    if puzzle.second is not None:
        meta["second"] = compact(puzzle.second, n)
    return grid, meta


def puzzle_name(kind: str, n: int, seed: int, index: int) -> str:
    """The file name of a puzzle: ``<kind>-n<N>-s<seed>-<index:04d>.sudoku``; ``kind`` is the
    generator's kind, or the name of the family the puzzle is made for (``hard``: a ``holes``
    puzzle at the hardness peak)."""
    return f"{kind}-n{n}-s{seed}-{index:04d}.sudoku"


def _read_puzzle(path: Path):
    """(bytes, parsed file) of the puzzle file at ``path``, or None when it is missing or
    does not parse (damaged: regenerated)."""
    try:
        data = path.read_bytes()
        return data, grid_text.parse(data.decode("utf-8"), str(path))
    except (OSError, UnicodeDecodeError, RaceError):
        return None


def _other_identity(path: Path, ident: dict[str, str]) -> str | None:
    """How the intact puzzle file at ``path`` differs from ``ident`` (``holes=0.3, not
    0.6``), or None: no file, a damaged one (regenerated), or one of this identity."""
    read = _read_puzzle(path)
    if read is None or len(read[1].grids) != 1 or read[1].metadata.get("kind") is None:
        return None
    meta = read[1].metadata
    for key, value in ident.items():
        if meta.get(key) != value:
            return f"{key}={meta.get(key, '(none)')}, not {value}"
    return None


def _cached(path: Path, ident: dict[str, str]) -> bytes | None:
    """The bytes of ``path`` when it holds a readable puzzle of this identity."""
    read = _read_puzzle(path)
    if read is None:
        return None
    data, found = read
    meta = found.metadata
    if len(found.grids) != 1 or any(meta.get(k) != v for k, v in ident.items()):
        return None
    if meta.get("clues") != str(found.grids[0].clues()) or found.grids[0].n != int(ident["n"]):
        return None
    return data


#: sets from this box size on are made by ``jobs`` processes at once (smaller sets take less
#: than a process's start)
PARALLEL_FROM_N = 5


def write_set(kind: str, n: int, count: int, seed: int, out_dir: Path, progress: bool = False,
              label: str | None = None, stem: str | None = None, jobs: int = 1,
              **options) -> Path:
    """Write puzzles 0..count-1 of (kind, n, seed, options) into ``out_dir``
    (native format with ``# key=value`` metadata) and update ``manifest.csv``
    there (rows of other sets already listed are kept). A puzzle file already
    present with the same identity metadata is reused, not regenerated.
    Returns the manifest path (``label``: the family's name on the progress bar, by
    default ``kind``; ``stem``: the first part of the file names, by default ``kind``, e.g.
    ``hard`` for ``hard-n5-s0-0000.sudoku``; the manifest's ``kind`` column and the files'
    metadata name the generator's kind either way). ``jobs`` > 1: from n = :data:`PARALLEL_FROM_N`
    on, the missing puzzles are made by that many processes at once (each puzzle comes from
    its own seeded streams, so the files are the same). Raises RaceError for bad arguments or
    an unwritable directory."""
    count = _check_int("count", count, 0)
    identity(kind, n, seed, 0, **options)           # validate before touching the disk
    out_dir = Path(out_dir)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RaceError(f"cannot create output directory: {write_reason(exc)}", source=str(out_dir)) from None
    # a puzzle of other options (another --holes, --fill, ...) under the same name is never
    # replaced in silence: a campaign may have raced it
    stem = stem or kind
    others = [(name, why) for name, why in
              ((puzzle_name(stem, n, seed, i), _other_identity(out_dir / puzzle_name(stem, n, seed, i),
                                                               identity(kind, n, seed, i, **options)))
               for i in range(count)) if why]
    if others:
        name, why = others[0]
        more = f" (and {len(others) - 1} more)" if len(others) > 1 else ""
        raise RaceError(f"{name} already holds a puzzle made with other options ({why}){more}: "
                        "write the set elsewhere (another -o directory or --seed) or remove those files first",
                        source=str(out_dir))
    rows: dict[str, dict[str, str]] = {}
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=count, desc=f"{label or kind} n={n}", unit="puzzle", leave=False)
    missing = [i for i in range(count) if _cached(out_dir / puzzle_name(stem, n, seed, i),
                                                  identity(kind, n, seed, i, **options)) is None] \
        if jobs > 1 and n >= PARALLEL_FROM_N else []
    if len(missing) > 1:
        from generators import parallel_sets
        rows.update(parallel_sets.make_rows(_set_row_alone, missing, min(jobs, len(missing)),
                                            (kind, n, seed), (out_dir, options, stem), bar))
    with CounterPool() as pool:
        for index in range(count):
            name = puzzle_name(stem, n, seed, index)
            if name not in rows:
                rows[name] = _set_row(kind, n, seed, index, out_dir, pool, options, stem)
                if bar is not None:
                    bar.update(1)
    if bar is not None:
        bar.close()
    manifest = out_dir / MANIFEST
    for row in read_manifest(manifest):
        if row.get("file") not in rows and (out_dir / row.get("file", "")).is_file():
            rows[row["file"]] = row
    text = _manifest_text(sorted(rows.values(), key=lambda r: r["file"]))
    _write_atomic(manifest, text.encode("utf-8"))
    return manifest


def _set_row(kind: str, n: int, seed: int, index: int, out_dir: Path, pool: CounterPool,
             options: dict, stem: str) -> dict[str, str]:
    """Write puzzle ``index`` of the set (file named after ``stem``) unless a file of the same
    identity is there already; its manifest row."""
    name = puzzle_name(stem, n, seed, index)
    path = out_dir / name
    ident = identity(kind, n, seed, index, **options)
    data = _cached(path, ident)
    if data is None:
        grid, meta = make(kind, n, seed, index, pool=pool, **options)
        data = grid_text.format_native(grid, meta).encode("utf-8")
        _write_atomic(path, data)
        clues = meta["clues"]
    else:
        clues = grid_text.parse(data.decode("utf-8")).metadata["clues"]
    return {"file": name, "kind": kind, "n": str(n), "seed": str(seed), "index": str(index),
            "fill": ident["fill"], "clues": clues, "sha256": hashlib.sha256(data).hexdigest()}


def _set_row_alone(kind: str, n: int, seed: int, index: int, out_dir: Path, options: dict,
                   stem: str) -> dict[str, str]:
    """:func:`_set_row` with counters of its own (in a process of :mod:`generators.parallel_sets`)."""
    with CounterPool() as pool:
        return _set_row(kind, n, seed, index, out_dir, pool, options, stem)


def read_manifest(path: Path, data: bytes | None = None) -> list[dict[str, str]]:
    """The rows of a manifest (empty when the file does not exist); ``data``: its bytes, when
    already read. A row is read as :class:`csv.DictReader` reads it (a short row's missing
    fields None, a long row's extra fields a list under None, blank lines skipped)."""
    try:
        if data is None:
            data = path.read_bytes()
        rows = csv.reader(io.StringIO(data.decode("utf-8"), newline=""))
        header = next(rows, None)
        if header is None:
            return []
        width = len(header)
        out: list[dict[str, Any]] = []
        for values in rows:
            if len(values) == width:
                out.append(dict(zip(header, values)))
            elif values:
                row: dict[str, Any] = dict(zip(header, values))
                if len(values) < width:
                    row.update(dict.fromkeys(header[len(values):]))
                else:
                    row[None] = values[width:]  # type: ignore[index]
                out.append(row)
        return out
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise RaceError(f"cannot read manifest: {exc}", source=str(path)) from None


def _manifest_text(rows: list[dict[str, str]]) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=MANIFEST_FIELDS, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue()


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise RaceError(f"cannot write: {exc.strerror}", source=str(path)) from None
