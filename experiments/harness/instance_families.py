"""The instance families of a campaign: what ``--family unique,minimal,hard`` means at each n.

A :class:`Family` is a generator kind with its options, named by a ``label`` and
identified by its key (runs.csv's ``family`` column; :mod:`experiments.harness.identity`).
``hard`` is not a generator kind of its own: it is
``holes`` with ``pattern=balanced`` and the hole fraction of the hardness peak at that n,
read from the committed table :mod:`generators.hardness_peaks` (nearest measured n
beyond it), so a campaign on hard instances is reproducible; the fractions used are
also written to meta.json.

A campaign's generated instance files are named after the family (``hard-n5-s0-0000.sudoku``
in ``instances/hard-n5-s0-holes0.55-balanced/``); a campaign whose meta.json does not say so
(:data:`NAMES_KEY`, made before) keeps the generator's kind (``holes-n5-s0-0000.sudoku``), so
its rows still name its files.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from experiments.harness.identity import HARD, family_key
from formats.errors import RaceError

#: options of ``hard`` that the family fixes itself
HARD_FIXED = ("holes", "pattern")
#: meta.json's key for how the campaign names its generated instance files: ``family`` (after
#: the family's label); a campaign without it names them after the generator's ``kind``
NAMES_KEY = "instance_names"
BY_FAMILY, BY_KIND = "family", "kind"


def names_of(meta: dict[str, Any]) -> str:
    """How the campaign of ``meta`` (its meta.json; {} for a campaign not made yet) names its
    generated instance files: :data:`BY_FAMILY` or :data:`BY_KIND`."""
    if not meta:
        return BY_FAMILY
    return BY_FAMILY if meta.get(NAMES_KEY) == BY_FAMILY else BY_KIND


def file_stem(label: str, kind: str, names: str) -> str:
    """The first part of the instance file names of the family ``label`` of generator ``kind``
    under the naming ``names`` (``hard`` or ``holes`` for the hard family)."""
    return label if names == BY_FAMILY and label else kind


@dataclass(frozen=True)
class Family:
    """One instance family: ``label``, the generator ``kind``, the
    generator ``options`` given for every n, and for ``hard`` the peak table it reads."""
    label: str
    kind: str
    options: tuple[tuple[str, Any], ...] = ()
    peaks: Path | None = field(default=None, compare=False)

    @property
    def key(self) -> str:
        """A name unique within a campaign: the label, plus the hole fraction when it is
        fixed (``holes@0.55``: a landscape has one family per fraction)."""
        return family_key(self.label, dict(self.options).get("holes"))

    def stem(self, names: str) -> str:
        """The first part of the family's instance file names (:func:`file_stem`)."""
        return file_stem(self.label, self.kind, names)

    def options_for(self, n: int) -> dict[str, Any]:
        """The generator options at box size ``n`` (for ``hard``: the peak's hole fraction)."""
        options = dict(self.options)
        if self.label == HARD:
            from generators.hardness_peaks import PEAKS_PATH, peak_holes
            options.update(holes=peak_holes(n, self.peaks or PEAKS_PATH), pattern="balanced")
        return options


def _allowed(kind: str) -> dict[str, Any]:
    from generators import kinds
    return dict(kinds.GENERATORS[kind][1])


def parse_families(labels_text: str, given: dict[str, Any], peaks: Path | None = None) -> list[Family]:
    """The families of ``--family`` (comma-separated generator kinds and ``hard``), each with
    the options of ``given`` (e.g. ``holes``, ``pattern``, ``base``, ``fill``) that its
    generator accepts, validated and in canonical form. Raises RaceError for an unknown
    kind, an option no family takes, or a bad value."""
    from generators.puzzle_set import KINDS, identity
    labels = list(dict.fromkeys(k.strip() for k in str(labels_text).split(",")))
    used: set[str] = set()
    out = []
    for label in labels:
        if label != HARD and label not in KINDS:
            raise RaceError(f"unknown family {label!r} (families: {', '.join((*KINDS, HARD))})")
        kind = "holes" if label == HARD else label
        takes = {k: v for k, v in given.items() if k in _allowed(kind)
                 and not (label == HARD and k in HARD_FIXED)}
        used |= set(takes)
        canonical = identity(kind, 2, 0, 0, **takes)       # the one validator of values
        options = {k: float(canonical[k]) if k == "holes" else canonical[k] for k in takes}
        out.append(Family(label, kind, tuple(sorted(options.items())), peaks))
    for name in given:
        if name not in used:
            takers = [k for k in KINDS if name in _allowed(k)]
            raise RaceError(f"--{name} goes with --family {' or '.join(takers) or 'none'}"
                            + (" (hard fixes its holes and pattern)" if HARD in labels else ""))
    for family in out:
        if family.label == HARD:
            family.options_for(2)                           # RaceError without a peak table
    return out


def landscape_families(fractions: list[float], pattern: str,
                       extra: dict[str, Any] | None = None) -> list[Family]:
    """One ``holes`` family per hole fraction, with ``pattern`` (and ``extra`` options)."""
    return [Family("holes", "holes", tuple(sorted({"holes": float(f), "pattern": pattern,
                                                   **(extra or {})}.items())))
            for f in fractions]


def families_meta(families: list[Family], n_values: list[int]) -> dict[str, dict[str, Any]]:
    """What meta.json records of the families: per family key, its label, generator kind
    and the generator options at each n."""
    return {f.key: {"label": f.label, "kind": f.kind,
                    "options": {str(n): f.options_for(n) for n in n_values}} for f in families}
