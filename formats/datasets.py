"""Puzzle collections: read many puzzles from a directory or a file, write an instance set.

:func:`read_dataset` takes a path:

* a **directory**: every regular file under it (recursively, sorted by path;
  hidden files and ``manifest.csv`` skipped) is read as below;
* a **one-line collection** (the common 9x9 lists): each content line starts
  with a puzzle of n⁴ characters (``.`` or ``0`` empty, 1-9 then A-Z, n <= 5).
  Anything after the puzzle, from the first ``,``, ``;``, ``|``, tab or space,
  is ignored: ``puzzle,solution`` CSV rows, ratings, trailing comments. A
  first line that is not a puzzle but a CSV header (``quizzes,solutions``,
  ``puzzle,solution``...: its first field has no digit and no ``.``) is
  skipped; a malformed first puzzle (a cell short, a BOM) is an error like any.
* a **numeric grid file** (native ``.sudoku`` and the large-grid collections):
  rows of whitespace-separated tokens (decimal values of up to 3 digits,
  ``0`` or ``.`` empty). A grid may be preceded by a header line of one or two
  numbers giving n or the side n² (``9``, ``3``, ``9 9``, ``25 25``): a line of at
  most two tokens whose next line has a different number of tokens is a header,
  and its value must match that next row (side = value or value²). Grids follow
  one another (each with or without a header) until the end of the file; each
  grid has as many rows as its first row has tokens.

Which of the two a file is: its first content line's first field (split at
whitespace or ``,``) longer than 3 characters means one-line collection, else
numeric. Blank lines and ``#`` lines are skipped everywhere.

Every puzzle comes back as a :class:`DatasetPuzzle` with its source file and
1-based line. Malformed input raises :class:`RaceError` naming the file, line
(and column) and what was expected. :func:`write_instance_set` writes the
normalised set (one native file per puzzle plus ``manifest.csv``).
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from formats import grid_text
from formats.errors import RaceError
from formats.grid import MAX_N, Grid
from formats.source import read_source
from formats.whole_file import write_whole

MANIFEST = "manifest.csv"
#: the generators' manifest columns first (the harness reads those), then the import's own
MANIFEST_FIELDS = ("file", "kind", "n", "seed", "index", "clues", "sha256",
                   "source", "line", "solutions")
KIND = "imported"
_FIELD_END = re.compile(r"[,;|\s]")


@dataclass
class DatasetPuzzle:
    """One puzzle of a collection and where it came from (1-based line)."""
    grid: Grid
    source: str
    line: int


def read_dataset(path: str | Path) -> list[DatasetPuzzle]:
    """Every puzzle of a directory or file, in order (see the module docstring)."""
    root = Path(path)
    if root.is_dir():
        files = sorted(p for p in root.rglob("*") if p.is_file() and p.name != MANIFEST
                       and not any(part.startswith(".") for part in p.relative_to(root).parts))
        if not files:
            raise RaceError("no puzzle files in this directory", source=str(root))
        for f in files:
            _inside(root, f)
        return [puzzle for f in files for puzzle in read_collection(f)]
    return read_collection(root)


def _inside(root: Path, path: Path) -> None:
    """RaceError naming ``path`` when it resolves (a symbolic link) outside the directory
    ``root`` being read: an import reads the directory's own files, nothing it links to."""
    try:
        inside = path.resolve().is_relative_to(root.resolve())
    except (OSError, RuntimeError):            # a loop of links
        inside = False
    if not inside:
        raise RaceError(f"a symbolic link that leads out of {root}; refused (copy the file into "
                        "the directory to import it)", source=str(path))


def read_collection(path: str | Path) -> list[DatasetPuzzle]:
    """The puzzles of one file (one-line collection or numeric grids)."""
    text, name = read_source(path, what="puzzle collection")
    content = [(no, line.strip()) for no, line in enumerate(text.splitlines(), 1)]
    content = [(no, line) for no, line in content if line and not line.startswith("#")]
    if not content:
        raise RaceError("no puzzle found (only blank or # lines)", source=name)
    first_field = re.split(r"[,\s]", content[0][1], maxsplit=1)[0]
    if len(first_field) > 3:
        return _one_line_collection(content, name)
    return _numeric_grids(content, name)


def _one_line_collection(content: list[tuple[int, str]], name: str) -> list[DatasetPuzzle]:
    fields = [(no, _FIELD_END.split(line, maxsplit=1)[0]) for no, line in content]
    no, head = fields[0]
    if not _is_one_line_puzzle(head) and len(fields) > 1 and _is_header(head):
        fields = fields[1:]                                # a CSV header
    return [DatasetPuzzle(_one_line_grid(field, name, no), name, no) for no, field in fields]


def _is_header(field: str) -> bool:
    """A CSV header's first field (``quizzes``, ``puzzle``): words, no digit and no ``.``.
    A first line with those is a puzzle, and a malformed one is an error, never skipped."""
    return not any(ch.isdigit() or ch == "." for ch in field)


def _is_one_line_puzzle(field: str) -> bool:
    length = len(field)
    side = math.isqrt(length)
    return side * side == length and math.isqrt(side) ** 2 == side and side > 1 and \
        all(ch in ".0" or ch.upper() in grid_text.ONE_LINE_DIGITS for ch in field)


def _one_line_grid(field: str, name: str, no: int) -> Grid:
    """The one-line reader's grid, its errors placed at this line of the collection."""
    try:
        return grid_text.parse(field, name).grids[0]
    except RaceError as exc:
        raise RaceError(exc.message, source=name, line=no, column=exc.column) from None


def _numeric_grids(content: list[tuple[int, str]], name: str) -> list[DatasetPuzzle]:
    puzzles = []
    at = 0
    while at < len(content):
        no, line = content[at]
        tokens = line.split()
        side = len(tokens)
        if side <= 2 and at + 1 < len(content) and len(content[at + 1][1].split()) != side:
            side = _header_side(tokens, len(content[at + 1][1].split()), name, no)
            at += 1
        rows = content[at:at + side]
        if len(rows) < side:
            raise RaceError(f"the grid starting here has {len(rows)} rows, expected {side} "
                            f"(as many as its first row has cells)", source=name, line=content[at][0])
        puzzles.append(DatasetPuzzle(_numeric_grid(rows, side, name), name, rows[0][0]))
        at += side
    return puzzles


def _header_side(tokens: list[str], next_row: int, name: str, no: int) -> int:
    if not all((t.isascii() and t.isdecimal()) for t in tokens) or len(set(tokens)) != 1:
        raise RaceError(f"expected a header (n or the side n², once or twice) or a grid row, "
                        f"got {' '.join(tokens)!r}", source=name, line=no)
    value = int(tokens[0])
    if next_row not in (value, value * value) or math.isqrt(next_row) ** 2 != next_row:
        raise RaceError(f"header {value} says side {value} or {value * value}, but the next row "
                        f"has {next_row} cells", source=name, line=no)
    if math.isqrt(next_row) > MAX_N:
        raise RaceError(f"side {next_row} means n = {math.isqrt(next_row)}, above the limit "
                        f"n <= {MAX_N}", source=name, line=no)
    return next_row


def _numeric_grid(rows: list[tuple[int, str]], side: int, name: str) -> Grid:
    n = math.isqrt(side)
    if n * n != side or n > MAX_N:
        raise RaceError(f"a row of {side} cells, expected n² cells for some n = 1..{MAX_N}",
                        source=name, line=rows[0][0])
    cells = np.zeros((side, side), dtype=np.int32)
    for r, (no, line) in enumerate(rows):
        tokens = line.split()
        if len(tokens) != side:
            raise RaceError(f"{len(tokens)} cells in this row, expected {side}", source=name, line=no)
        for c, tok in enumerate(tokens):
            if tok == ".":
                continue
            if not (tok.isascii() and tok.isdecimal()) or len(tok) > 3 or int(tok) > side:
                raise RaceError(f"bad cell {tok!r} (cell {c + 1}), expected '.', '0' or a value "
                                f"1..{side}", source=name, line=no)
            cells[r, c] = int(tok)
    return Grid(n, cells)


# -- the normalised instance set ------------------------------------------------------

def instance_name(puzzle: DatasetPuzzle, index: int) -> str:
    """``<source stem>-<index:06d>.sudoku``: unique per set, sortable in source order."""
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", Path(puzzle.source).stem) or "puzzle"
    return f"{stem}-{index:06d}.sudoku"


def write_instance_set(puzzles: list[DatasetPuzzle], solutions: list[str], out_dir: str | Path,
                       written: Callable[[], object] | None = None) -> list[dict[str, str]]:
    """Write one native file per puzzle into ``out_dir`` plus ``manifest.csv``
    (:data:`MANIFEST_FIELDS`; ``solutions`` is "0", "1" or "many" per puzzle,
    as counted by the caller). Returns the manifest rows. RaceError when the
    directory cannot be written. ``written()`` is called after each file (progress)."""
    out = Path(out_dir)
    rows = []
    try:
        out.mkdir(parents=True, exist_ok=True)
        for index, (puzzle, count) in enumerate(zip(puzzles, solutions)):
            meta = {"kind": KIND, "source": puzzle.source, "line": puzzle.line,
                    "clues": puzzle.grid.clues(), "solutions": count}
            data = grid_text.format_native(puzzle.grid, meta).encode("utf-8")
            name = instance_name(puzzle, index)
            try:
                (out / name).write_bytes(data)
            except OSError:                           # never a cut puzzle file (a full disk)
                with contextlib.suppress(OSError):
                    (out / name).unlink()
                raise
            if written is not None:
                written()
            rows.append({"file": name, "kind": KIND, "n": str(puzzle.grid.n), "seed": "0",
                         "index": str(index), "clues": str(puzzle.grid.clues()),
                         "sha256": hashlib.sha256(data).hexdigest(), "source": puzzle.source,
                         "line": str(puzzle.line), "solutions": count})
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=MANIFEST_FIELDS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        write_whole(out / MANIFEST, buffer.getvalue(), sync=False)
    except OSError as exc:
        raise RaceError(f"cannot write the instance set: {exc.strerror}", source=str(out)) from None
    return rows
