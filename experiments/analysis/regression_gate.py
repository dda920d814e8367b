"""The regression gate of ``race compare OLD NEW --fail-above R``: it passes only on what it
compared, and it does not fail on noise it has detected itself.

In order, the verdict (:func:`verdict`) is:

0. **correctness** (exit 1), before any timing question: on some instance NEW answered
   wrong, or left unanswered where OLD answered (an error, a memout, a timeout, unknown,
   skipped: :mod:`experiments.analysis.wrong_answers`), one line per entrant naming the
   instances; or an instance OLD ran (within ``--n`` and ``--family``) is missing from NEW:
   an entrant, a family, an n, or some instances of a family and n (a NEW interrupted
   part-way, a family raced on other instances), so the gate would pass on what it never
   compared (:func:`missing`), one line naming each entrant, family, n and its instances.
   A wrong or unanswered instance is never inconclusive, whatever the noise, and never
   passes because the median ratio hid it (one censored instance in four leaves the
   median where it was). With ``--partial`` (``--allow-missing`` is its older name) the
   missing instances are named and left out of the gate instead.
1. **inconclusive** (exit :data:`INCONCLUSIVE_EXIT`): either campaign carries a busy-machine
   or calibration-drift warning (:func:`experiments.analysis.noise.machine_warnings`), so a
   ratio may be the machine's, not the code's (two runs of one commit under load differed
   1.2-3.2x with p around 1e-6); unless ``--force``.
2. **regression** (exit 1): some entrant, family and n is slower than R with its interval's
   lower end above 1 (:func:`experiments.analysis.campaign_diff.regressions`).
3. otherwise it passes (exit 0).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

import pandas as pd

from experiments.analysis import censored_stats

#: the exit status of an inconclusive gate (0 pass, 1 fail, 2 error are taken)
INCONCLUSIVE_EXIT = 4
PASS, FAIL = 0, 1


@dataclass
class Verdict:
    """The gate's exit status and the lines that say why, one per finding (empty when it
    passes with nothing left out)."""
    code: int
    line: str = ""


#: the last tables of :func:`_instances` (the comparison's line and the gate ask for the same),
#: each with the runs it was made from (held weakly: kept no longer than the campaign is)
_MADE: dict[tuple, tuple[weakref.ref, dict[tuple[str, int], dict[str, str]]]] = {}


def _instances(campaign: censored_stats.Campaign, entrant: str, n_values: list[int] | None,
               families: list[str] | None) -> dict[tuple[str, int], dict[str, str]]:
    """(family, n) -> {instance key: instance name} of what an entrant of ``campaign`` ran,
    within the filters; the key is what pairs cells across campaigns (its sha256, else its
    name: :func:`experiments.analysis.campaign_diff.paired_times`)."""
    asked = (id(campaign.runs), entrant, tuple(n_values or ()), tuple(families or ()))
    if asked in _MADE and _MADE[asked][0]() is campaign.runs:
        return _MADE[asked][1]
    if len(_MADE) > 16:
        _MADE.clear()
    _MADE[asked] = (weakref.ref(campaign.runs), _made(campaign.runs, entrant, n_values, families))
    return _MADE[asked][1]


def _made(runs: pd.DataFrame, entrant: str, n_values: list[int] | None,
          families: list[str] | None) -> dict[tuple[str, int], dict[str, str]]:
    runs = censored_stats.instance_inputs(runs)                # what is read here, no other column
    runs = runs[runs["entrant"] == entrant]
    if n_values:
        runs = runs[runs["n"].isin(n_values)]
    if families:
        runs = runs[censored_stats.of_families(runs["family"], families)]
    sha = runs["instance_sha256"].astype(object)
    name = runs["instance"].astype(str)
    keyed = pd.DataFrame({"family": runs["family"].astype(str), "n": runs["n"].astype(int),
                          "key": name.where(sha.isna() | sha.astype(str).isin(["", "nan"]),
                                            sha.astype(str)),
                          "name": name}).drop_duplicates(["family", "n", "key"])
    found: dict[tuple[str, int], dict[str, str]] = {}
    for family, n, key, instance in keyed.itertuples(index=False, name=None):
        found.setdefault((family, int(n)), {})[key] = instance
    return found


def _listed(names: list[str]) -> str:
    """Instance names, the first :data:`~experiments.analysis.wrong_answers.SHOWN` spelled out."""
    from experiments.analysis.wrong_answers import SHOWN
    names = sorted(names)
    more = f" and {len(names) - SHOWN} more" if len(names) > SHOWN else ""
    return ", ".join(names[:SHOWN]) + more


def missing(old: censored_stats.Campaign, new: censored_stats.Campaign, pairs: list[tuple[str, str]],
            n_values: list[int] | None = None, families: list[str] | None = None,
            named: bool = False) -> list[str]:
    """What OLD ran that NEW lacks, in words: each entrant of OLD that no pair (old spec,
    new spec) compares (unless the entrants were ``named``: the others are left out on
    purpose), and for each pair the instances OLD's entrant ran (within the filters
    ``n_values`` and ``families``) that NEW's did not: a whole family, a whole n, or some
    instances of a family and n (each named: entrant, family, n, instances)."""
    compared = {a for a, _ in pairs}
    found = [] if named else [f"entrant {e}" for e in old.entrants
                              if e not in compared and _instances(old, e, n_values, families)]
    for a, b in pairs:
        theirs = _instances(old, a, n_values, families)
        mine = _instances(new, b, n_values, families)
        gone = sorted({f for f, _ in theirs} - {f for f, _ in mine})
        for family in gone:
            lost = [name for (f, _), cells in theirs.items() if f == family
                    for name in cells.values()]
            found.append(f"{a} on family {family} ({len(lost)} instance(s): {_listed(lost)})")
        for (family, n), cells in sorted(theirs.items()):
            have = mine.get((family, n))
            lost = [name for key, name in cells.items() if key not in (have or {})]
            if family in gone or not lost:
                continue
            if have is None:
                found.append(f"{a} {family} n={n} ({len(lost)} instance(s): {_listed(lost)})")
            elif len(lost) == len(cells):
                found.append(f"{a} {family} n={n}: no instance in both, none of OLD's "
                             f"{len(lost)} paired ({_listed(lost)})")
            else:
                found.append(f"{a} {family} n={n}: {len(lost)} of OLD's {len(cells)} "
                             f"instance(s) ({_listed(lost)})")
    return found


def unpaired(old: censored_stats.Campaign, new: censored_stats.Campaign, pairs: list[tuple[str, str]],
             n_values: list[int] | None = None, families: list[str] | None = None) -> list[str]:
    """One line per compared entrant, family and n that OLD or NEW ran but no instance of
    which both ran (raced on other instances, or by one side only): it has no row in the
    table, so the line says it was not compared; and one per entrant, family and n of which
    some instances OLD ran are not in NEW (an interrupted NEW): its row is on the others."""
    lines = []
    for a, b in pairs:
        theirs = _instances(old, a, n_values, families)
        mine = _instances(new, b, n_values, families)
        label = a if a == b else f"{a}={b}"
        for family, n in sorted(set(theirs) | set(mine)):
            one, other = theirs.get((family, n), {}), mine.get((family, n), {})
            if not set(one) & set(other):
                lines.append(f"not compared: {label} {family} n={n}: no instance in both (OLD "
                             f"ran {len(one)}, NEW {len(other)})")
            elif set(one) - set(other):
                lines.append(f"not compared: {label} {family} n={n}: "
                             f"{len(set(one) - set(other))} of OLD's {len(one)} instance(s), "
                             "not in NEW")
    return lines


def _named(warning: str) -> str:
    """A noise warning's first words: whose, and what (busy, drifted)."""
    text = warning.removeprefix("WARNING: ")
    for words in ("the machine was busy", "the calibration drifted"):
        if words in text:
            return text[:text.index(words) + len(words)]
    return text


def verdict(slower: list, above: float, lacking: list[str], noise: list[str],
            partial: bool = False, force: bool = False,
            wrong: list[str] | None = None) -> Verdict:
    """The gate's verdict (module docstring) from the rows ``slower`` than ``above``, what
    NEW lacks (:func:`missing`), the campaigns' machine warnings ``noise`` and the lines
    naming NEW's ``wrong`` and unanswered instances
    (:func:`experiments.analysis.wrong_answers.fault_lines`). With ``partial`` what NEW
    lacks is named in the verdict's line but does not fail it."""
    failures, notes = list(wrong or []), []
    if lacking:
        text = (f"race compare: missing: NEW lacks what OLD ran, so the gate did not compare "
                f"it: {'; '.join(lacking)}")
        if partial:
            notes.append(text + " (--partial: the gate is on what both ran)")
        else:
            failures.append(text + " (--partial gates on what both ran)")
    if failures:
        return Verdict(FAIL, "\n".join(failures + notes))
    if noise and not force:
        return Verdict(INCONCLUSIVE_EXIT, "\n".join(notes + [
            f"race compare: inconclusive: the measurements are noisy "
            f"({'; '.join(_named(w) for w in noise)}), so a ratio may be the "
            "machine's, not the code's; rerun on a quiet machine, or --force to "
            "gate anyway"]))
    if slower:
        where = ", ".join(f"{r.entrant} {r.family} n={r.n} ({r.ratio.estimate:.3g})"
                          for r in slower)
        return Verdict(FAIL, "\n".join(notes + [
            f"race compare: regression: NEW slower than {above:g}x OLD with the interval "
            f"above 1 at {where}"]))
    return Verdict(PASS, "\n".join(notes))
