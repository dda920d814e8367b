"""The identity of a family and of a cell, defined once.

A *family* of a campaign is named by its key: the label (runs.csv's ``kind``), plus
``@<fraction>`` when the family fixes its hole fraction (a landscape has one family per
fraction; ``holes@0.7`` and ``hard`` may share their puzzles and are still two families).
A *cell* is one measurement: (family key, entrant spec, n, instance, repeat), where the
instance names the puzzle file with its set's directory when the family has options.
:class:`experiments.harness.scheduling.Cell` and every row of runs.csv
(:func:`row_key`) use these two functions and nothing else, so two distinct cells of a
campaign never share a key, and a row written before the ``family`` column existed maps
to the key its cell has today.
"""

from __future__ import annotations

from typing import Any

#: the family whose hole fraction comes from the peak table, not from its options
HARD = "hard"

CellKey = tuple[str, str, int, str, int]


def family_key(label: str, holes: Any = None) -> str:
    """The key of the family ``label`` whose fixed hole fraction is ``holes`` (None or
    blank when it fixes none; ``hard`` reads its fraction per n, so it is never part of its key)."""
    if holes is None or str(holes).strip() == "" or label == HARD:
        return label
    return f"{label}@{float(holes):g}"


def cell_key(family: str, entrant: str, n: int, instance: str, repeat: int) -> CellKey:
    """The identity of a cell."""
    return str(family), str(entrant), int(n), str(instance), int(repeat or 0)


def row_family(row: dict[str, Any]) -> str:
    """The family key of a runs.csv row: its ``family`` column, or for a row written before
    that column existed, the key derived from its ``kind`` and ``holes`` columns."""
    given = str(row.get("family") or "").strip()
    return given or family_key(str(row.get("kind") or "").strip(), row.get("holes"))


def row_key(row: dict[str, Any]) -> CellKey:
    """The identity of the cell a runs.csv row records."""
    return cell_key(row_family(row), row["entrant"], row["n"], row["instance"], row["repeat"])
