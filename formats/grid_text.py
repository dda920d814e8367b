"""Sudoku grid files (Task 1): the native ``.sudoku`` format and the one-line format.

Native format (one puzzle per file)::

    # kind=unique
    # n=2
    1 . 3 .
    . . . 2
    ...

Each non-blank line not starting with ``#`` is a row of n² whitespace-separated
tokens; ``.`` or ``0`` is empty; values are decimal 1..n². n is inferred from
the number of rows (at most formats.grid.MAX_N², i.e. 400). ``# key=value``
comment lines carry metadata.

One-line format (public 9x9 datasets): each puzzle is one line of n⁴
characters, ``.`` or ``0`` empty, ``1``-``9`` then ``A``-``Z`` for 10..35
(so n <= 5). A file may hold one puzzle per line.

:func:`read` takes a path or ``-`` (stdin) and detects the format: a file whose
content lines are all single tokens longer than one character is one-line,
anything else is native. Malformed input raises :class:`RaceError` naming the
file, line (and column) and what was expected.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

import numpy as np

from formats.errors import RaceError
from formats.grid import MAX_N, Grid
from formats.source import BLANKS, CR_INSIDE, read_source, split_lines

NATIVE, ONE_LINE = "native", "one-line"
ONE_LINE_DIGITS = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"   # value v -> ONE_LINE_DIGITS[v-1]
MAX_ONE_LINE_N = 5


@dataclass
class PuzzleFile:
    """What a grid file holds: its format, its grids and its ``# key=value`` metadata."""
    format: str
    grids: list[Grid]
    metadata: dict[str, str] = field(default_factory=dict)


def read(source: str | Path) -> PuzzleFile:
    """Read a grid file (either format) from a path or ``-`` for stdin."""
    text, name = read_source(source, what="a puzzle file")
    return parse(text, name)


def parse(text: str, name: str = "<text>") -> PuzzleFile:
    """Parse grid text in either format; ``name`` is used in error messages.

    Lines are counted on ``\\n`` only; a grid line may hold only printable ASCII
    and blanks (space, tab, CR, FF, VT), so full-width or Arabic-Indic digits,
    ``1_0`` and odd separators are errors, never values."""
    lines, content = _content(text, name)
    if _is_one_line(content):
        return PuzzleFile(ONE_LINE, [Grid(n, cells) for n, puzzles in _one_line_groups(content, name)
                                     for cells in puzzles])
    metadata = {}
    n_line = 0
    for no, line in lines:
        if line.startswith("#") and "=" in line:
            key, _, value = line[1:].partition("=")
            if key.strip() and " " not in key.strip():
                metadata[key.strip()] = value.strip()
                n_line = no if key.strip() == "n" else n_line
    grid = _parse_native(content, name)
    if "n" in metadata and metadata["n"] != str(grid.n):
        raise RaceError(f"'# n={metadata['n'][:20]}', but the grid below is {grid.side}x{grid.side} "
                        f"(n={grid.n})", source=name, line=n_line)
    return PuzzleFile(NATIVE, [grid], metadata)


def parse_one_line_many(text: str, name: str = "<text>") -> tuple[int, np.ndarray] | None:
    """What :func:`parse` reads from a one-line file whose puzzles all have the same
    size, as ``(n, puzzles)`` with ``puzzles`` one (P, n², n²) int32 array, without a
    Grid per puzzle (vectorised: thousands of puzzles in milliseconds). None when
    :func:`parse` reads ``text`` as the native format or as puzzles of several sizes.
    Raises the RaceError :func:`parse` raises, where it raises it."""
    _, content = _content(text, name)
    if not _is_one_line(content):
        return None
    groups = _one_line_groups(content, name)
    return groups[0] if len(groups) == 1 else None


def _content(text: str, name: str) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """(every line, the grid lines) as (line number, line stripped of blanks); a
    RaceError on a text without grid lines or with a bad character in one."""
    lines = [(no, line.strip(BLANKS)) for no, line in enumerate(split_lines(text), 1)]
    content = [(no, line) for no, line in lines if line and not line.startswith("#")]
    if not content:
        raise RaceError("no grid found (only blank or # lines)", source=name)
    for no, line in content if "\r" in text else ():
        if "\r" in line:                          # a CR inside a line: old Mac line ends
            raise RaceError(CR_INSIDE, source=name, line=no, column=line.index("\r") + 1)
    if _BAD_CHAR_OR_NEWLINE.search(text):        # else no grid line can hold a bad character
        for no, line in content:
            bad = _BAD_CHAR.search(line)
            if bad:
                raise RaceError(f"bad character {bad.group()!r} in a grid line (expected ASCII "
                                "digits, letters, '.' and blanks)", source=name, line=no,
                                column=bad.start() + 1)
    return lines, content


def _is_one_line(content: list[tuple[int, str]]) -> bool:
    """A one-line file: every grid line one token longer than one character (the
    lines are stripped, so: no blank inside, checked on all of them joined)."""
    return (min(len(line) for _, line in content) > 1
            and not _BLANK.search("\n".join(line for _, line in content)))


#: anything but printable ASCII and the blanks of :data:`formats.source.BLANKS`.
_BAD_CHAR = re.compile(r"[^\x21-\x7e \t\r\f\v]")
_BAD_CHAR_OR_NEWLINE = re.compile(r"[^\x21-\x7e \t\r\f\v\n]")
_BLANK = re.compile(f"[{BLANKS}]")

#: the longest cell token read as a number (leading zeros allowed); longer is an error.
MAX_TOKEN_DIGITS = 9


def _side_to_n(side: int) -> int | None:
    n = math.isqrt(side)
    return n if n * n == side and n >= 1 else None


def _parse_native(content: list[tuple[int, str]], name: str) -> Grid:
    rows = len(content)
    if rows > MAX_N * MAX_N:
        raise RaceError(f"{rows} grid rows, more than the {MAX_N * MAX_N} of the largest grid "
                        f"accepted (n <= {MAX_N}, formats.grid.MAX_N)", source=name,
                        line=content[MAX_N * MAX_N][0])
    width = len(content[0][1].split())
    if width > 1 and _side_to_n(width) and rows > width and rows % width == 0:
        raise RaceError(f"{rows} grid rows of {width} cells: {rows // width} puzzles of "
                        f"{width}x{width}? A native file holds one puzzle (a one-line file holds "
                        "many, one per line)", source=name, line=content[width][0])
    n = _side_to_n(rows)
    if n is None:
        lo, hi = math.isqrt(rows) ** 2, (math.isqrt(rows) + 1) ** 2
        raise RaceError(f"{rows} grid rows, but a grid has n² rows for some n "
                        f"(nearest: {lo} or {hi})", source=name, line=content[-1][0])
    side = rows
    table = _token_table(side)
    cells = np.zeros((side, side), dtype=np.int64)
    for r, (no, line) in enumerate(content):
        tokens = line.split()
        if len(tokens) != side:
            raise RaceError(f"{len(tokens)} cells in this row, expected {side} "
                            f"({side} rows make a {side}x{side} grid)", source=name, line=no)
        values = [table.get(tok, -1) for tok in tokens]
        if -1 in values:                 # an error, or a value with leading zeros
            values = _row_slowly(line, tokens, side, n, name, no)
        cells[r] = values
    return Grid(n, cells)


def _token_table(side: int) -> dict[str, int]:
    table = {str(v): v for v in range(1, side + 1)}
    table["."] = table["0"] = 0
    return table


def _row_slowly(line: str, tokens: list[str], side: int, n: int, name: str, no: int) -> list[int]:
    """The values of one row, token by token, naming the column of a bad one."""
    values = []
    col = 0
    for tok in tokens:
        col = line.index(tok, col)
        if tok == ".":
            values.append(0)
        elif not (tok.isascii() and tok.isdigit()):
            raise RaceError(f"bad cell {tok[:20]!r}, expected '.', '0' or a value 1..{side}",
                            source=name, line=no, column=col + 1)
        elif len(tok) > MAX_TOKEN_DIGITS:
            raise RaceError(f"a cell value of {len(tok)} digits, expected '.', '0' or a value "
                            f"1..{side}", source=name, line=no, column=col + 1)
        elif int(tok) > side:
            raise RaceError(f"value {int(tok)} out of range, expected 1..{side} for a "
                            f"{side}x{side} grid (n={n})", source=name, line=no, column=col + 1)
        else:
            values.append(int(tok))
        col += len(tok)
    return values


def _one_line_groups(content: list[tuple[int, str]], name: str) -> list[tuple[int, np.ndarray]]:
    """The puzzles of one-line grid lines as (n, (P, n², n²) int32 array) groups in
    file order: one group when every line has the same length, else one per line.
    A RaceError names the first bad line (and column) in file order."""
    if len({len(line) for _, line in content}) == 1:
        return [_one_line_array(content, name)]
    return [_one_line_array([numbered], name) for numbered in content]


def _one_line_array(content: list[tuple[int, str]], name: str) -> tuple[int, np.ndarray]:
    """(n, puzzles) of one-line grid lines of one length (printable ASCII, checked
    by :func:`_content`), read with a byte lookup table: no Python loop per cell."""
    no, first = content[0]
    length = len(first)
    n = _side_to_n(math.isqrt(length)) if math.isqrt(length) ** 2 == length else None
    if n is None or n > MAX_ONE_LINE_N:
        raise RaceError(f"{length} characters, expected n⁴ characters for n = 1..{MAX_ONE_LINE_N} "
                        "(1, 16, 81, 256 or 625)", source=name, line=no)
    side = n * n
    raw = np.frombuffer("".join(line for _, line in content).encode("ascii"), dtype=np.uint8)
    values = _ONE_LINE_VALUES[raw]
    wrong = (values < 0) | (values > side)
    if wrong.any():
        at = int(np.flatnonzero(wrong)[0])
        no, line = content[at // length]
        ch, value = line[at % length], int(values[at])
        if value < 0:
            raise RaceError(f"bad character {ch!r}, expected '.', '0', 1-9 or A-Z",
                            source=name, line=no, column=at % length + 1)
        raise RaceError(f"value {ch!r} (= {value}) out of range, expected 1..{side} for n={n}",
                        source=name, line=no, column=at % length + 1)
    return n, values.reshape(len(content), side, side)


def _one_line_table() -> np.ndarray:
    """Byte -> cell value of the one-line alphabet: 0 for '.' and '0', 1-35 for
    1-9 and A-Z (either case), -1 for any other byte."""
    table = np.full(256, -1, dtype=np.int32)
    table[ord(".")] = table[ord("0")] = 0
    for value, ch in enumerate(ONE_LINE_DIGITS, 1):
        table[ord(ch)] = table[ord(ch.lower())] = value
    return table


_ONE_LINE_VALUES = _one_line_table()


def format_native(grid: Grid, metadata: Mapping[str, object] | None = None) -> str:
    """The grid in the native format, with ``# key=value`` lines first (the rows are
    ``str(grid)``)."""
    return "".join(f"# {k}={v}\n" for k, v in (metadata or {}).items()) + str(grid)


def format_one_line(grid: Grid) -> str:
    """The grid as one line of n⁴ characters (n <= 5), without a newline."""
    if grid.n > MAX_ONE_LINE_N:
        raise RaceError(f"the one-line format holds n <= {MAX_ONE_LINE_N}, got n={grid.n}")
    table = np.array(["."] + list(ONE_LINE_DIGITS[:grid.side]))
    return "".join(table[grid.cells.ravel()].tolist())


def format_grid(grid: Grid, fmt: str, metadata: Mapping[str, object] | None = None) -> str:
    """The grid in ``fmt`` (``native`` or ``one-line``), ending with a newline."""
    if fmt == ONE_LINE:
        return format_one_line(grid) + "\n"
    return format_native(grid, metadata)


def write(grid: Grid, fmt: str = NATIVE, out: TextIO | None = None,
          metadata: Mapping[str, object] | None = None) -> None:
    """Write the grid to ``out`` (default stdout)."""
    (out or sys.stdout).write(format_grid(grid, fmt, metadata))


def format_compact(grid: Grid) -> str:
    """A grid on one line without a newline, as instance metadata records a solution
    (``# solution=...``): the one-line format for n <= 5, else comma-separated values
    in row-major order."""
    if grid.n <= MAX_ONE_LINE_N:
        return format_one_line(grid)
    return ",".join(map(str, grid.cells.reshape(-1).tolist()))


def parse_compact(text: str, n: int, name: str = "<compact grid>") -> Grid:
    """The grid of :func:`format_compact`'s text at box size ``n``. Raises RaceError
    naming ``name`` when the text is not n⁴ valid cells."""
    text = str(text).strip()
    side = n * n
    if "," in text or n > MAX_ONE_LINE_N:
        tokens = text.split(",")
        if len(tokens) != side * side or not all(t.isascii() and t.isdigit() for t in tokens):
            raise RaceError(f"expected {side * side} comma-separated values for n={n}", source=name)
        cells = np.array([int(t) for t in tokens], dtype=np.int32)
    else:
        if len(text) != side * side:
            raise RaceError(f"expected {side * side} characters for n={n}, got {len(text)}",
                            source=name)
        lookup = {c: v for v, c in enumerate(ONE_LINE_DIGITS[:side], 1)} | {".": 0, "0": 0}
        try:
            cells = np.array([lookup[c] for c in text], dtype=np.int32)
        except KeyError as exc:
            raise RaceError(f"bad cell {exc.args[0]!r} for n={n}", source=name) from None
    if cells.max(initial=0) > side:
        raise RaceError(f"a value is above {side}", source=name)
    return Grid(n, cells.reshape(side, side))


def single_character_cells(text: str) -> str | None:
    """The cells of a file whose every cell is one character (n <= 3: native rows such as
    ``. 2 . 4`` or a one-line grid), row by row as one line of n⁴ characters; None for any
    other text (more or fewer cells than a grid, a wider token, several puzzles). A quick
    reading for the harness's batch check of answers; :func:`parse` is the reader of record."""
    cells = _written_cells(text)
    return cells if cells is not None else _expression_cells(text)


def _expression_cells(text: str) -> str | None:
    """:func:`single_character_cells` read by its regular expressions (:data:`_SINGLE_CELLS`)."""
    for shape in _SINGLE_CELLS:
        found = shape.fullmatch(text)
        if found:
            cells = "".join(found.group(1).split())
            return cells if len(cells) in (16, 81) else None
    return None


def _written_cells(text: str) -> str | None:
    """:func:`single_character_cells` of a file as the generators and ``race import`` write
    it (``#`` lines, then rows such as ``. 2 . 4``, one space between cells, each row ending
    in a newline), without a regular expression; None for any other text (the expressions
    decide)."""
    start = 0
    while text.startswith(("#", "\n"), start):
        end = text.find("\n", start)
        if end < 0:
            return None
        start = end + 1
    body = text[start:]
    side = _SIDE_OF_BODY.get(len(body))     # each row 2·side characters, its newline included
    if side is None or body[1::2] != _BETWEEN_CELLS[side]:
        return None
    cells = body[0::2]
    return cells if cells.split() == [cells] else None


#: the length of the rows of a written 4x4 or 9x9 grid, all of them -> the side
_SIDE_OF_BODY = {2 * side * side: side for side in (4, 9)}
#: what stands between the cells of such a grid, row by row: a space, a newline at a row's end
_BETWEEN_CELLS = {side: (" " * (side - 1) + "\n") * side for side in (4, 9)}


#: comment and blank lines, then n² rows of n² one-character cells (n = 3, 2), or one line
_HEAD = r"(?:[ \t]*(?:#[^\n]*)?\n)*"
_SINGLE_CELLS = [re.compile(_HEAD + rows + r"[ \t\n]*") for rows in (
    r"((?:[ \t]*\S(?:[ \t]+\S){8}[ \t]*(?:\n|\Z)){9})",
    r"((?:[ \t]*\S(?:[ \t]+\S){3}[ \t]*(?:\n|\Z)){4})",
    r"[ \t]*(\S+)")]



#: byte -> value of a one-line cell ('.' and '0' empty, 255: no cell character)
_ONE_LINE_VALUE = np.full(256, 255, dtype=np.uint8)
_ONE_LINE_VALUE[ord(".")] = _ONE_LINE_VALUE[ord("0")] = 0
for _value, _char in enumerate(ONE_LINE_DIGITS, 1):
    _ONE_LINE_VALUE[ord(_char)] = _value


def one_line_cells(lines: list[str], n: int) -> np.ndarray | None:
    """Grids of box size ``n`` (n <= 5) written as one line each (:func:`format_one_line`),
    as one (P, n², n²) uint8 array, vectorised (a table lookup per byte); None when a line is
    not n⁴ cells of size n. For many answers at once; :func:`parse` is the reader of record."""
    side = n * n
    if n > MAX_ONE_LINE_N or any(len(line) != side * side for line in lines):
        return None
    try:
        raw = "".join(lines).encode("ascii")
    except UnicodeEncodeError:
        return None
    cells = _ONE_LINE_VALUE[np.frombuffer(raw, dtype=np.uint8)]
    if cells.size and int(cells.max()) > side:
        return None
    return cells.reshape(len(lines), side, side)
