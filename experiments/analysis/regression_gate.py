"""The regression gate of ``race compare OLD NEW --fail-above R``: it passes only on what it
compared, and it does not fail on noise it has detected itself.

In order, the verdict (:func:`verdict`) is:

0. **wrong** (exit 1): NEW answered wrong, or ended in an error where OLD answered, on some
   instance (:mod:`experiments.analysis.wrong_answers`): one line per entrant naming the
   instances. Correctness comes first: a wrong answer is never inconclusive, whatever the
   noise, and never passes because its time was fast.
1. **missing** (exit 1): an entrant, a family or an n that OLD ran (within ``--n`` and
   ``--family``) is absent from NEW, so the gate would pass on what it never compared
   (:func:`missing`); unless ``--allow-missing`` says that is intended.
2. **inconclusive** (exit :data:`INCONCLUSIVE_EXIT`): either campaign carries a busy-machine
   or calibration-drift warning (:func:`experiments.analysis.noise.machine_warnings`), so a
   ratio may be the machine's, not the code's (two runs of one commit under load differed
   1.2-3.2x with p around 1e-6); unless ``--force``.
3. **regression** (exit 1): some entrant, family and n is slower than R with its interval's
   lower end above 1 (:func:`experiments.analysis.campaign_diff.regressions`).
4. otherwise it passes (exit 0).
"""

from __future__ import annotations

from dataclasses import dataclass

from experiments.analysis import statistics as analysis

#: the exit status of an inconclusive gate (0 pass, 1 fail, 2 error are taken)
INCONCLUSIVE_EXIT = 4
PASS, FAIL = 0, 1


@dataclass
class Verdict:
    """The gate's exit status and the one line that says why (empty when it passes)."""
    code: int
    line: str = ""


def _cells(campaign: analysis.Campaign, entrant: str, n_values: list[int] | None,
           families: list[str] | None) -> set[tuple[str, int]]:
    """The (family, n) an entrant of ``campaign`` ran, within the filters."""
    runs = campaign.runs[campaign.runs["entrant"] == entrant]
    if n_values:
        runs = runs[runs["n"].isin(n_values)]
    if families:
        runs = runs[analysis.of_families(runs["family"], families)]
    return {(str(f), int(n)) for f, n in zip(runs["family"], runs["n"])}


def missing(old: analysis.Campaign, new: analysis.Campaign, pairs: list[tuple[str, str]],
            n_values: list[int] | None = None, families: list[str] | None = None,
            named: bool = False) -> list[str]:
    """What OLD ran that NEW lacks, in words: each entrant of OLD that no pair (old spec,
    new spec) compares (unless the entrants were ``named``: the others are left out on
    purpose), and for each pair the family and n OLD's entrant ran (within the filters
    ``n_values`` and ``families``) that NEW's did not."""
    compared = {a for a, _ in pairs}
    found = [] if named else [f"entrant {e}" for e in old.entrants
                              if e not in compared and _cells(old, e, n_values, families)]
    for a, b in pairs:
        have = _cells(new, b, n_values, families)
        lacking = sorted(_cells(old, a, n_values, families) - have, key=lambda c: (c[0], c[1]))
        families_gone = sorted({f for f, _ in lacking} - {f for f, _ in have})
        found += [f"{a} on family {f}" for f in families_gone]
        found += [f"{a} {f} n={n}" for f, n in lacking if f not in families_gone]
    return found


def _named(warning: str) -> str:
    """A noise warning's first words: whose, and what (busy, drifted)."""
    text = warning.removeprefix("WARNING: ")
    for words in ("the machine was busy", "the calibration drifted"):
        if words in text:
            return text[:text.index(words) + len(words)]
    return text


def verdict(slower: list, above: float, lacking: list[str], noise: list[str],
            allow_missing: bool = False, force: bool = False,
            wrong: list[str] | None = None) -> Verdict:
    """The gate's verdict (module docstring) from the rows ``slower`` than ``above``, what
    NEW lacks (:func:`missing`), the campaigns' machine warnings ``noise`` and the lines
    naming NEW's ``wrong`` answers (:func:`experiments.analysis.wrong_answers.fault_lines`)."""
    if wrong:
        return Verdict(FAIL, "\n".join(wrong))
    if lacking and not allow_missing:
        return Verdict(FAIL, f"race compare: NEW lacks what OLD ran, so the gate did not compare "
                             f"it: {', '.join(lacking)} (--allow-missing gates on what both ran)")
    if noise and not force:
        return Verdict(INCONCLUSIVE_EXIT,
                       f"race compare: inconclusive: the measurements are noisy "
                       f"({'; '.join(_named(w) for w in noise)}), so a ratio may be the "
                       "machine's, not the code's; rerun on a quiet machine, or --force to "
                       "gate anyway")
    if slower:
        where = ", ".join(f"{r.entrant} {r.family} n={r.n} ({r.ratio.estimate:.3g})"
                          for r in slower)
        return Verdict(FAIL, f"race compare: regression: NEW slower than {above:g}x OLD with "
                             f"the interval above 1 at {where}")
    return Verdict(PASS)
