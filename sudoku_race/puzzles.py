"""A puzzle from whatever a notebook holds: a :class:`formats.grid.Grid`, puzzle text, a file,
a square array or a list of rows.

:func:`puzzle` reads one, :func:`puzzles` every one of a text or file (one-line files hold
many). Text is either format of ``race solve``: rows of values (``.`` or ``0`` empty) or one line
of n⁴ characters. A ``str`` that names an existing file is read from that file.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Union

from formats.errors import RaceError
from formats.grid import Grid

#: what :func:`puzzle` accepts
PuzzleLike = Union[Grid, str, "os.PathLike[str]", Sequence[Sequence[int]], Any]


def puzzles(source: PuzzleLike) -> list[Grid]:
    """Every puzzle of ``source`` (see :func:`puzzle`), in order. RaceError when it holds none
    or is not a puzzle."""
    from formats import grid_text
    if isinstance(source, Grid):
        return [source]
    if isinstance(source, grid_text.PuzzleFile):
        return list(source.grids)
    if isinstance(source, os.PathLike) or (isinstance(source, str) and _is_file(source)):
        found = grid_text.read(Path(source)).grids
    elif isinstance(source, str):
        found = grid_text.parse(source, "<puzzle text>").grids
    else:
        found = [_from_rows(source)]
    if not found:
        raise RaceError(f"{_short(source)}: no puzzle in it")
    return found


def puzzle(source: PuzzleLike) -> Grid:
    """The one puzzle of ``source``: a Grid (as it is); puzzle text in either format; a path
    (``pathlib.Path``, or a ``str`` naming an existing file); the result of
    ``formats.grid_text.read``; or an n² x n² array or list of rows (0 = empty).
    RaceError when it is not a puzzle, or holds several (:func:`puzzles` takes them all)."""
    found = puzzles(source)
    if len(found) > 1:
        raise RaceError(f"{_short(source)}: holds {len(found)} puzzles, one expected "
                        "(sudoku_race.puzzles reads them all)")
    return found[0]


def _is_file(text: str) -> bool:
    """Whether ``text`` names an existing file (puzzle text never does: it is checked first
    for a newline or the length of a path)."""
    if "\n" in text or len(text) > 4096:
        return False
    try:
        return Path(text).is_file()
    except (OSError, ValueError):
        return False


def _from_rows(rows: Any) -> Grid:
    """A Grid from a square array or list of rows of n² values."""
    import numpy as np
    try:
        cells = np.asarray(rows)
    except (TypeError, ValueError) as exc:
        raise RaceError(f"not a puzzle: {type(rows).__name__} ({exc})") from None
    if cells.ndim != 2 or cells.shape[0] != cells.shape[1] or not cells.size:
        raise RaceError(f"not a puzzle: expected n² rows of n² values, got shape {cells.shape}")
    if not np.issubdtype(cells.dtype, np.integer):
        raise RaceError(f"not a puzzle: expected integers (0 = empty), got {cells.dtype}")
    n = math.isqrt(cells.shape[0])
    if n * n != cells.shape[0]:
        raise RaceError(f"not a puzzle: {cells.shape[0]} rows is not a square n² (4, 9, 16, ...)")
    return Grid(n, cells)


def _short(source: Any) -> str:
    text = str(source)
    return text if len(text) <= 60 and "\n" not in text else f"{text[:40].splitlines()[0]}..."
