"""Which code each side of ``race compare OLD NEW`` measured: an entrant is paired with its
namesake only when both campaigns ran the same code for it.

Each campaign's meta.json records per entrant the identity of its code
(:mod:`experiments.harness.code_identity`: a program's sha256, the digest of the project's
sources and kernels, a plugin's version). Two entrants whose recorded codes differ (or whose
rows mix several codes) are refused unless ``--pair-different`` is given; then the comparison
names both sides, ``cmd:path=./mysolver.py [aa9714..] vs [d4e228..]``. A campaign that
records nothing for an entrant (made before identities were recorded) is paired, and its side
shown as ``[unknown]``.
"""

from __future__ import annotations

from dataclasses import dataclass

from experiments.harness.code_identity import KEY, label, measured_by
from formats.errors import RaceError, printable


@dataclass(frozen=True)
class CodePair:
    """One compared pair of entrants and the code each side measured (digests, oldest
    first; None: not recorded)."""
    old_spec: str
    new_spec: str
    old: tuple[str, ...] | None
    new: tuple[str, ...] | None

    @property
    def entrant(self) -> str:
        return self.old_spec if self.old_spec == self.new_spec else f"{self.old_spec}={self.new_spec}"

    @property
    def same(self) -> bool:
        """Both sides recorded one and the same code."""
        return self.old is not None and self.old == self.new and len(self.old) == 1

    @property
    def known(self) -> bool:
        """Both sides recorded their code."""
        return self.old is not None and self.new is not None

    def line(self) -> str:
        """``ENTRANT [old..] vs [new..]``."""
        old = label(list(self.old) if self.old else None)
        new = label(list(self.new) if self.new else None)
        return f"{printable(self.entrant)} {old} vs {new}"


def spec_of(meta: dict, entrant: str) -> str:
    """The spec meta.json records an entrant under, for the name the analysis calls it by
    (a ``cmd`` entrant's ``name=`` label: :func:`experiments.analysis.campaign_data.entrant_labels`)."""
    from experiments.analysis.campaign_data import entrant_labels
    specs = [*map(str, meta.get("entrants") or []), *(meta.get(KEY) or {})]
    back = {label: spec for spec, label in entrant_labels(specs).items()}
    return back.get(entrant, entrant)


def code_pairs(old_meta: dict, new_meta: dict, pairs: list[tuple[str, str]]) -> list[CodePair]:
    """The code of each (old entrant, new entrant) pair as the two meta.json record it."""
    found = []
    for old_spec, new_spec in pairs:
        a = measured_by(old_meta, spec_of(old_meta, old_spec))
        b = measured_by(new_meta, spec_of(new_meta, new_spec))
        found.append(CodePair(old_spec, new_spec, tuple(a) if a else None,
                              tuple(b) if b else None))
    return found


def check(code: list[CodePair], old_name: str, new_name: str, pair_different: bool) -> list[str]:
    """The lines to print above the table: each pair whose sides are not one and the same
    recorded code (``ENTRANT [old..] vs [new..]``). Raises RaceError, naming the first such
    entrant and both digests, when both sides recorded their code, it differs and
    ``pair_different`` is False."""
    different = [pair for pair in code if pair.known and not pair.same]
    if different and not pair_different:
        first = different[0]
        more = f" (and {len(different) - 1} more entrant(s))" if len(different) > 1 else ""
        mixed = " (rows of mixed code)" if max(len(first.old or ()), len(first.new or ())) > 1 \
            else ""
        raise RaceError(f"entrant {printable(first.entrant)} ran other code in {old_name} and "
                        f"{new_name}: {label(list(first.old or ()))} vs "
                        f"{label(list(first.new or ()))}{mixed}{more}; --pair-different "
                        "compares them anyway")
    return [pair.line() for pair in code if not pair.same and (pair.old or pair.new)]
