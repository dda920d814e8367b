"""Campaign against campaign (``race compare OLD NEW [ENTRANT...]``): did this commit make an
entrant slower? How does this machine compare with that one?

Cells of the two campaigns are paired by ``instance_sha256`` (the file name when a
campaign has no hashes), family and n, entrant with the same entrant spec, or
renamed with ``--as OLD_SPEC=NEW_SPEC``. Each side's time on an instance is the median of
its repeats (``inf`` when censored), as in :mod:`experiments.analysis.compare`; per
entrant, family and n the rows give the pairs, how often NEW was faster / slower / tied,
the median ratio NEW/OLD with its 95% bootstrap interval over pairs, and the paired
signed-rank p. With ``normalise`` each campaign's times are first divided by its
calibration score (:func:`experiments.harness.calibration.score`), so a machine that is
uniformly faster does not count as a speed-up.

A *regression* (``--fail-above R``) is a row whose median ratio is above R and whose
interval's lower end is above 1: slower, and not by chance.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from experiments.analysis import bootstrap, censored_stats
from experiments.analysis.compare import (
    TOLERANCE,
    format_ratio,
    interval_json,
    json_number,
    log_differences,
    outcomes,
    ratios,
    signed_rank_json,
)
from experiments.analysis.signed_rank import SignedRank, signed_rank_test
from experiments.analysis.wrong_answers import Faults, faults
from experiments.harness.calibration import score
from formats.errors import RaceError


@dataclass
class DiffRow:
    """One entrant on one family and n: ``old`` faster / ``new`` faster / ties, NEW/OLD."""
    entrant: str
    family: str
    n: int
    pairs: int
    old_wins: int
    new_wins: int
    ties: int
    ratio: bootstrap.Interval
    test: SignedRank
    wrong: int = 0

    def regression(self, above: float) -> bool:
        """Slower than ``above`` with the interval's lower end above 1."""
        return self.ratio.estimate > above and self.ratio.low > 1.0


@dataclass
class CampaignDiff:
    """``race compare OLD NEW``'s result: the rows, the metadata that differ, warnings."""
    old: str
    new: str
    rows: list[DiffRow]
    differences: list[tuple[str, object, object]]
    normalised: bool = False
    factor: float = 1.0
    tolerance: float = TOLERANCE
    warnings: list[str] = field(default_factory=list)
    faults: list[Faults] = field(default_factory=list)
    #: ``ENTRANT [old..] vs [new..]`` for each pair whose sides ran other code (or one side's
    #: is not recorded): :mod:`experiments.analysis.code_pairing`
    code: list[str] = field(default_factory=list)


def parse_renames(pairs: tuple[str, ...] | list[str]) -> dict[str, str]:
    """``--as OLD=NEW`` options -> {old spec: new spec}. Raises RaceError when malformed."""
    renames = {}
    for text in pairs:
        old, sep, new = text.partition("=")
        if not sep or not old.strip() or not new.strip():
            raise RaceError(f"--as {text!r}: expected OLD_ENTRANT=NEW_ENTRANT, e.g. --as dlx=dlx:heuristic=first")
        renames[old.strip()] = new.strip()
    return renames


def entrant_pairs(old: censored_stats.Campaign, new: censored_stats.Campaign, entrants: list[str],
                  renames: dict[str, str]) -> list[tuple[str, str]]:
    """(old spec, new spec) to compare: ``entrants`` (old specs; renamed by ``renames``),
    else every entrant of OLD that NEW has under the same or the renamed spec. Raises
    RaceError for an entrant missing from either campaign, or when none is shared."""
    wanted = entrants or [e for e in old.entrants if renames.get(e, e) in new.entrants]
    for name, target in renames.items():
        if name not in old.entrants:
            raise RaceError(f"--as {name}={target}: {name!r} is not an entrant of {old.name} "
                            f"(its entrants: {', '.join(old.entrants)})")
        if target not in new.entrants:     # else the pair would vanish from the comparison
            raise RaceError(f"--as {name}={target}: {target!r} is not an entrant of {new.name} "
                            f"(its entrants: {', '.join(new.entrants)})")
    pairs = []
    for name in wanted:
        target = renames.get(name, name)
        for campaign, spec in ((old, name), (new, target)):
            if spec not in campaign.entrants:
                raise RaceError(f"entrant {spec!r} is not in campaign {campaign.name} "
                                f"(its entrants: {', '.join(campaign.entrants)}); "
                                "--as OLD=NEW pairs renamed entrants")
        pairs.append((name, target))
    if not pairs:
        raise RaceError(f"campaigns {old.name} and {new.name} share no entrant "
                        f"({', '.join(old.entrants)} vs {', '.join(new.entrants)}); "
                        "name them, or pair renamed ones with --as OLD=NEW")
    return pairs


def _times(campaign: censored_stats.Campaign, entrant: str, n_values, families) -> pd.DataFrame:
    runs = censored_stats.instance_inputs(campaign.runs)
    runs = runs[runs["entrant"] == entrant]
    if n_values:
        runs = runs[runs["n"].isin(n_values)]
    if families:
        runs = runs[censored_stats.of_families(runs["family"], families)]
    times = censored_stats.instance_times(runs)
    times["key"] = np.where(times["instance_sha256"].isin(["", "nan"]), times["instance"],
                            times["instance_sha256"])
    return times[["family", "n", "key", "instance", "time"]]


def paired_times(old: censored_stats.Campaign, new: censored_stats.Campaign, old_entrant: str,
                 new_entrant: str, n_values: list[int] | None = None,
                 families: list[str] | None = None) -> pd.DataFrame:
    """One row per instance both sides ran: family, n, key, instance, time_old, time_new."""
    left = _times(old, old_entrant, n_values, families)
    right = _times(new, new_entrant, n_values, families).drop(columns="instance")
    pairs = left.merge(right, on=["family", "n", "key"], suffixes=("_old", "_new"))
    return pairs.sort_values(["family", "n", "instance"]).reset_index(drop=True)


def diff_row(entrant: str, family: str, n: int, pairs: pd.DataFrame, tolerance: float,
             factor: float = 1.0) -> DiffRow:
    """The statistics of ``pairs``; NEW's times are multiplied by ``factor`` first."""
    to = pairs["time_old"].to_numpy(dtype=float)
    tn = pairs["time_new"].to_numpy(dtype=float) * factor
    outcome = outcomes(to, tn, tolerance)
    return DiffRow(entrant, family, n, len(pairs), int((outcome == -1).sum()),
                   int((outcome == 1).sum()), int((outcome == 0).sum()),
                   bootstrap.ratio_interval(ratios(to, tn)),
                   signed_rank_test(log_differences(to, tn)))


#: the metadata compared at the top: (label, path in meta.json)
META_KEYS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("commit", ("git_commit",)), ("machine", ("machine", "hostname")),
    ("cpu", ("machine", "cpu_model")), ("cores", ("machine", "cores")),
    ("ram_gb", ("machine", "ram_gb")), ("os", ("machine", "os")), ("python", ("python",)),
    ("kissat", ("kissat_version",)), ("jobs", ("jobs",)), ("timeout_s", ("timeout_s",)),
    ("memory_mb", ("memory_mb",)),
    ("order", ("order", "mode")), ("pinned", ("pinning", "cpus")),
)


def _lookup(meta: dict, path: tuple[str, ...]) -> object:
    value: object = meta
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def load(meta: dict) -> str | None:
    """The machine's load while the campaign ran: the 1-minute load average at the start and
    the end of its latest run, and the CPU other processes used (cores): ``1.09..1.92 (others
    0.00..0.03 cores)``; None when not recorded."""
    state = meta.get("machine_state")
    if not isinstance(state, dict):
        return None
    ends: list[dict] = []
    for key in ("start", "end"):
        part = state.get(key)
        ends.append(part if isinstance(part, dict) else {})
    average = [(e.get("load_avg") or [None])[0] for e in ends]
    others = [e.get("others_busy_cores") for e in ends]

    def span(values: list) -> str:
        return "..".join("?" if v is None else f"{float(v):.2f}" for v in values)

    if all(v is None for v in average + others):
        return None
    return f"{span(average)} (others {span(others)} cores)"


def meta_differences(old: dict, new: dict) -> list[tuple[str, object, object]]:
    """(label, old value, new value) for the metadata that differ: commit, machine,
    versions (python, packages, kissat), limits, order, pinning, the load (:func:`load`) and
    the calibration."""
    found = [(label, _lookup(old, path), _lookup(new, path)) for label, path in META_KEYS]
    found.append(("load", load(old), load(new)))
    for name in sorted(set(old.get("packages") or {}) | set(new.get("packages") or {})):
        found.append((name, (old.get("packages") or {}).get(name),
                      (new.get("packages") or {}).get(name)))
    found = [(label, a, b) for label, a, b in found if a != b]
    a, b = score(old.get("calibration")), score(new.get("calibration"))
    if a != b:
        found.append(("calibration_s", None if a is None else round(a, 6),
                      None if b is None else round(b, 6)))
    return found


def normalise_factor(old: censored_stats.Campaign, new: censored_stats.Campaign) -> float:
    """score(OLD) / score(NEW), the factor NEW's times are multiplied by. Raises
    RaceError when either campaign has no calibration."""
    a, b = score(old.meta.get("calibration")), score(new.meta.get("calibration"))
    for value, campaign in ((a, old), (b, new)):
        if not value and campaign.meta.get("merged_from"):
            raise RaceError(f"--normalise: campaign {campaign.name} ({campaign.path}) is merged: "
                            "each source's calibration is under merged_from, none is the whole's; "
                            "compare the sources with --normalise instead")
        if not value:
            raise RaceError(f"--normalise: campaign {campaign.name} ({campaign.path}) has no "
                            "calibration in its meta.json (run by an older race run)")
    assert a is not None and b is not None         # each checked just above
    return a / b


def diff(old: censored_stats.Campaign, new: censored_stats.Campaign, entrants: list[str] | None = None,
         renames: dict[str, str] | None = None, n_values: list[int] | None = None,
         families: list[str] | None = None, tolerance: float = TOLERANCE,
         normalise: bool = False, pair_different: bool = False) -> CampaignDiff:
    """Compare NEW against OLD (module docstring). Raises RaceError for an unknown
    entrant, a missing calibration with ``normalise``, when no cell pairs up, or when an
    entrant's code differs between the two and ``pair_different`` is False
    (:func:`experiments.analysis.code_pairing.check`)."""
    from experiments.analysis import code_pairing, noise, regression_gate
    renames = renames or {}
    chosen = entrant_pairs(old, new, entrants or [], renames)
    code = code_pairing.check(code_pairing.code_pairs(old.meta, new.meta, chosen),
                              f"OLD {old.name}", f"NEW {new.name}", pair_different)
    factor = normalise_factor(old, new) if normalise else 1.0
    rows, found = [], []
    for old_entrant, new_entrant in chosen:
        label = old_entrant if old_entrant == new_entrant else f"{old_entrant}={new_entrant}"
        pairs = paired_times(old, new, old_entrant, new_entrant, n_values, families)
        found.append(faults(old, new, old_entrant, new_entrant, n_values, families, label))
        for family in dict.fromkeys(pairs["family"]):
            part = pairs[pairs["family"] == family]
            for n in sorted(part["n"].unique()):
                row = diff_row(label, family, int(n), part[part["n"] == n], tolerance, factor)
                row.wrong = found[-1].wrong_at(family, int(n))
                rows.append(row)
    if not rows:
        raise RaceError(f"campaigns {old.name} and {new.name} share no instance for these "
                        "entrants (cells are paired by instance_sha256, family and n)")
    warnings = (noise.warnings(old, f"OLD {old.name}") + noise.warnings(new, f"NEW {new.name}"))
    warnings += regression_gate.unpaired(old, new, chosen, n_values, families)
    if not entrants:                       # who is left out, and why
        paired = entrant_pairs(old, new, [], renames)
        for side, campaign, mine in (("OLD", old, {a for a, _ in paired}),
                                     ("NEW", new, {b for _, b in paired})):
            alone = [e for e in campaign.entrants if e not in mine]
            if alone:
                warnings.append(f"not compared: {', '.join(alone)} (only {side} {campaign.name} "
                                "ran it; --as OLD=NEW pairs renamed entrants)")
    return CampaignDiff(old.name, new.name, rows, meta_differences(old.meta, new.meta),
                        normalise, factor, tolerance, warnings, found, code)


def regressions(result: CampaignDiff, above: float) -> list[DiffRow]:
    """The rows slower than ``above`` with the interval's lower end above 1."""
    return [row for row in result.rows if row.regression(above)]


def _cells(row: DiffRow) -> list[str]:
    ci = f"[{format_ratio(row.ratio.low)}, {format_ratio(row.ratio.high)}]"
    p = "n/a" if row.test.method == "none" else f"{row.test.p:.2g}"
    return [row.entrant, row.family, str(row.n), str(row.pairs), str(row.wrong),
            str(row.new_wins), str(row.old_wins), str(row.ties), format_ratio(row.ratio.estimate),
            ci, p]


#: ``wrong``: the instances NEW answered wrong (a wrong answer is a censored time in the ratio)
HEADER = ["entrant", "family", "n", "pairs", "wrong", "NEW faster", "OLD faster", "ties",
          "NEW/OLD", "95% CI", "signed-rank p"]


def _header_lines(result: CampaignDiff) -> list[str]:
    lines = [f"OLD = {result.old}, NEW = {result.new} (cells paired by instance_sha256, "
             "family and n)"]
    for label, a, b in result.differences:
        lines.append(f"differs: {label}: {a} -> {b}")
    if not result.differences:
        lines.append("differs: nothing recorded (same commit, machine, versions)")
    lines += [f"code: {line}" for line in result.code]
    if result.normalised:
        lines.append(f"normalised by calibration: NEW times x {result.factor:.4g} "
                     "(calibration score OLD / NEW)")
    return lines


def diff_text(result: CampaignDiff, above: float | None = None) -> str:
    """The table ``race compare OLD NEW`` prints: the differing metadata at the top, the
    rows, the legend and the warnings; regressions are marked when ``above`` is given."""
    table = [HEADER] + [_cells(row) for row in result.rows]
    widths = [max(len(line[i]) for line in table) for i in range(len(HEADER))]
    lines = _header_lines(result)
    for i, line in enumerate(table):
        text = "  ".join(c.ljust(w) if j < 2 else c.rjust(w) for j, (c, w) in enumerate(zip(line, widths)))
        if i and result.rows[i - 1].wrong:
            text += "  WRONG"
        if i and above is not None and result.rows[i - 1].regression(above):
            text += f"  REGRESSION (> {above:g})"
        lines.append(text.rstrip())
        if i == 0:
            lines.append("-" * len(text))
    lines += ["", _legend(result)]
    return "\n".join(lines + result.warnings)


def _legend(result: CampaignDiff) -> str:
    return (f"wrong: instances NEW answered wrong. "
            f"NEW/OLD > 1: NEW slower; inf: only OLD answered; 0: only NEW answered. Ties: within "
            f"{100 * result.tolerance:.0f}% or both censored. CI: bootstrap over pairs "
            f"({bootstrap.RESAMPLES} resamples); p: Wilcoxon signed-rank on log(NEW/OLD).")


def diff_markdown(result: CampaignDiff, above: float | None = None) -> str:
    """The same as a Markdown table (to paste into a pull request)."""
    lines = [f"**{result.new}** against **{result.old}**", ""]
    lines += [f"- {line}" for line in _header_lines(result)[1:]]
    lines += ["", "| " + " | ".join(HEADER) + " |", "|" + "|".join(
        "---" if i < 2 else "--:" for i in range(len(HEADER))) + "|"]
    for row in result.rows:
        cells = _cells(row)
        if above is not None and row.regression(above):
            cells[8] = f"**{cells[8]}**"
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", _legend(result)]
    lines += [f"> {w}" for w in result.warnings]
    return "\n".join(lines)


def diff_json(result: CampaignDiff, above: float | None = None) -> str:
    """The same as one JSON document: OLD, NEW, the metadata that differ, one object per
    row (with ``regression`` when ``above`` is given) and the warnings."""
    import json
    rows = []
    for row in result.rows:
        rows.append({"entrant": row.entrant, "family": row.family, "n": row.n, "pairs": row.pairs,
                     "wrong": row.wrong, "new_faster": row.new_wins, "old_faster": row.old_wins,
                     "ties": row.ties,
                     "ratio_new_over_old": interval_json(row.ratio),
                     "signed_rank": signed_rank_json(row.test),
                     **({"regression": row.regression(above)} if above is not None else {})})
    return json.dumps({"old": result.old, "new": result.new,
                       "differences": [{"what": label, "old": str(a), "new": str(b)}
                                       for label, a, b in result.differences],
                       "code": result.code,
                       "normalised": result.normalised, "factor": json_number(result.factor),
                       "tolerance": result.tolerance, "fail_above": above, "rows": rows,
                       "faults": [{"entrant": f.entrant, "wrong": [list(c) for c in f.wrong],
                                   "errors": [list(c) for c in f.errors],
                                   "unanswered": {status: [list(c) for c in cells]
                                                  for status, cells in f.unanswered.items()}}
                                  for f in result.faults if f],
                       "warnings": result.warnings}, indent=2)

