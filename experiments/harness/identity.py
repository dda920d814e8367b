"""The identity of a family and of a cell, defined once.

The words, each with one meaning in the code, the CLI, runs.csv and the docs:

* a *kind* is what ``race generate --kind`` makes: a generator (``unique``, ``holes``,
  ``minimal``, ``unsat``, ...; :mod:`generators.kinds`);
* a *family* is a set of instances a campaign races as one (``race run --family
  unique,hard``): a kind with its options, named by a *label* (``hard`` is the kind
  ``holes`` at each n's hardness peak) and identified by its *key*: the label, plus
  ``@<fraction>`` when the family fixes its hole fraction (a landscape has one family per
  fraction; ``holes@0.7`` and ``hard`` may share their puzzles and are still two
  families). runs.csv's ``family`` column holds the key; a report names a family by
  its label, or by its key where two families of the campaign share the label
  (:func:`family_names`).
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


def family_label(key: str) -> str:
    """The label of the family whose key is ``key``."""
    return str(key).split("@", 1)[0]


def family_names(keys: Any) -> dict[str, str]:
    """How a campaign names each of its families (``keys``): by its label, or by its key
    when another family of the campaign has the same label."""
    keys = list(dict.fromkeys(str(k) for k in keys))
    labels = [family_label(k) for k in keys]
    return {k: (label if labels.count(label) == 1 else k) for k, label in zip(keys, labels)}


def meta_family_labels(meta: dict[str, Any]) -> str:
    """The ``--family`` text a campaign's meta.json records (``family_labels``; a campaign
    written before ``family`` replaced ``kind`` for it recorded it as ``kind``)."""
    return str(meta.get("family_labels", meta.get("kind", "")) or "")


def upgrade_row(given: dict[str, Any]) -> dict[str, Any]:
    """A runs.csv row as read (column name -> text) in today's columns: a row of a file
    written before ``family`` replaced ``kind`` has its key derived from its ``kind`` (the
    family's label then) and ``holes`` columns (a file of the version between kept both:
    its ``family`` was already the key)."""
    if "kind" not in given:
        return given
    upgraded = dict(given)
    kind = upgraded.pop("kind")
    if not str(upgraded.get("family") or "").strip():
        upgraded["family"] = family_key(str(kind or "").strip(), upgraded.get("holes"))
    return upgraded


def row_family(row: dict[str, Any]) -> str:
    """The family key of a runs.csv row (read in today's columns: :func:`upgrade_row`)."""
    return str(upgrade_row(row).get("family") or "").strip()


def row_key(row: dict[str, Any]) -> CellKey:
    """The identity of the cell a runs.csv row records."""
    return cell_key(row_family(row), row["entrant"], row["n"], row["instance"], row["repeat"])
