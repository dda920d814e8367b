"""The sentences of a campaign's own report (``race report CAMPAIGN``), each computed from
that campaign: its meta.json and the summary :func:`experiments.analysis.censored_stats.summary`
makes of its runs.

A sentence is written only when every number it quotes exists in the campaign: an entrant
that answered nothing has no median sentence, a campaign of one entrant no comparison. No
sentence prints a placeholder for a missing number. Times are formatted as ``race export``
formats them (:func:`experiments.analysis.censored_stats.format_seconds`), so each can be found
in the export of the same campaign.
"""

from __future__ import annotations

import math
import re

import pandas as pd

from experiments.analysis import censored_stats
from experiments.analysis.entrant_labels import short_label
from experiments.report.tex import escape, tex_int
from solvers import methods


def seconds(value: float) -> str | None:
    """A finite time as ``race export`` prints it, for LaTeX; None when there is none."""
    if value is None or not math.isfinite(value):
        return None
    return escape(censored_stats.format_seconds(value)).replace(" ", "\\,")


#: the longest entrant name the sentences give whole (an outside program's path, say): it may
#: break at a line end after ``/:=,+``
TEXT_LABEL_CHARS = 80


def entrant_name(entrant: str) -> str:
    """The entrant in typewriter type, a line break allowed after ``/:=,+`` (an outside
    program's entrant names its path); a name longer than :data:`TEXT_LABEL_CHARS` characters
    is cut (:func:`short_label`), the whole of it in :func:`entrant_footnote`."""
    parts = re.split(r"([/:=,+])", short_label(entrant, TEXT_LABEL_CHARS))
    text = "".join(f"{escape(part)}\\allowbreak{{}}" if i % 2 else _breakable(part) for i, part in enumerate(parts))
    return "\\texttt{" + text + "}"


#: the longest run of characters a name keeps on one line without a cost
UNBROKEN = 16


def _breakable(part: str) -> str:
    """``part`` escaped; longer than :data:`UNBROKEN` characters, with a line break allowed (at a
    cost, so a break after ``/:=,+`` comes first) after each character: no run overfills a line."""
    if len(part) <= UNBROKEN:
        return escape(part)
    return "\\penalty500{}".join(escape(ch) for ch in part)


def entrant_footnote(entrant: str) -> str:
    """A footnote with the whole name of an entrant :func:`entrant_name` cuts ("" for another):
    typewriter type that may break after any character, so that no name runs off the page."""
    if short_label(entrant, TEXT_LABEL_CHARS) == entrant:
        return ""
    whole = "\\allowbreak{}".join(escape(ch) for ch in entrant)
    return f"\\footnote{{The whole name of {entrant_name(entrant)}: \\texttt{{{whole}}}}}"


def entrant_with_method(entrant: str) -> str:
    """``\\texttt{sat} (SAT)``; an entrant that is no method of its own says what it is; an
    entrant named like its method is named once; a name cut short gets its whole in a footnote."""
    what = methods.what(entrant)
    name = entrant_name(entrant) + entrant_footnote(entrant)
    return name if what == entrant else f"{name} ({escape(short_label(what, TEXT_LABEL_CHARS))})"


def n_list(ns: list[int]) -> str:
    """``n = 2`` / ``n = 2 and 3`` / ``n = 2 to 5`` (consecutive) / ``n = 2, 4 and 6``."""
    ns = sorted(ns)
    if len(ns) > 2 and ns == list(range(ns[0], ns[-1] + 1)):
        return f"$n={ns[0]}$ to ${ns[-1]}$"
    return "$n=" + methods.join([f"{n}$" if i == 0 else f"${n}$" for i, n in enumerate(ns)])


def title(campaign: censored_stats.Campaign) -> tuple[str, str]:
    """The report's title and subtitle: what the campaign raced (solvers/methods.py)."""
    return "Sudoku solvers raced: " + methods.join(methods.raced(campaign.entrants)), f"campaign {campaign.name}"


def _family_description(campaign: censored_stats.Campaign, family: str) -> str:
    holes = campaign.holes_by_n(family)
    text = f"\\emph{{{escape(family)}}}"
    if holes:
        shares: dict[float, list[int]] = {}
        for n, share in sorted(holes.items()):
            shares.setdefault(round(100 * share), []).append(n)
        parts = [f"{pct}\\,\\%" + (" of the cells empty" if i == 0 else "") + f" at {n_list(ns)}"
                 for i, (pct, ns) in enumerate(shares.items())]
        text += " (" + ", ".join(parts) + ")"
    return text


def campaign_paragraph(campaign: censored_stats.Campaign) -> str:
    """What was raced, on what, under which limits, on which machine."""
    meta, runs = campaign.meta, campaign.runs
    entrants = campaign.entrants
    families = campaign.families
    lines = [f"The campaign \\texttt{{{escape(campaign.name)}}} raced {len(entrants)} "
             f"entrant{'s' if len(entrants) != 1 else ''}, "
             f"{methods.join([entrant_with_method(e) for e in entrants])}, "
             f"on {len(families)} famil{'ies' if len(families) != 1 else 'y'} of puzzles, "
             f"{methods.join([_family_description(campaign, f) for f in families])}, "
             f"at {n_list(campaign.n_values)}."]
    per_cell = runs.groupby(["family", "n"])["instance"].nunique()
    if per_cell.nunique() == 1:
        count = int(per_cell.iloc[0])
        lines.append(f"{'Each family has' if len(families) > 1 else 'The family has'} "
                     f"{count} puzzle{'s' if count != 1 else ''} per $n$.")
    else:
        for family in families:
            counts = per_cell[family]
            lines.append(f"The family \\emph{{{escape(family)}}} has "
                         + methods.join([f"{int(c)} puzzle{'s' if c != 1 else ''} at $n={int(n)}$"
                                         for n, c in counts.items()]) + ".")
    instance_set = meta.get("instance_set")
    source = instance_set.get("source") if isinstance(instance_set, dict) else None
    if source:
        lines.append(f"The puzzles were read from the instance set \\texttt{{{escape(source)}}}.")
    repeats = pd.to_numeric(runs["repeat"], errors="coerce").max()
    if pd.notna(repeats):
        count = int(repeats) + 1
        lines.append(f"Each entrant ran each puzzle {'once' if count == 1 else f'{count} times'}, "
                     f"with a limit of {seconds(campaign.timeout_s)} of wall time per run"
                     + (f" and {tex_int(float(meta['memory_mb']))}\\,MB of memory." if meta.get("memory_mb")
                        else "."))
    if meta.get("command"):
        lines.append(f"It was run with \\texttt{{{escape(meta['command'])}}}.")
    machine = meta.get("machine") or {}
    if machine.get("cpu_model") and machine.get("cores"):
        lines.append(f"The machine: {escape(machine['cpu_model'])}, {int(machine['cores'])} cores"
                     + (f", {escape(machine['ram_gb'])}\\,GB of memory." if machine.get("ram_gb") else "."))
    return " ".join(lines) + "\n"


STATUS_WORDS = {"solved": "answered and verified", "timeout": "hit the time limit",
                "memout": "hit the memory limit", "error": "ended in an error", "wrong": "gave a WRONG answer",
                "unknown": "ended without an answer", "skipped": "were skipped (not run)"}


def outcome_sentence(campaign: censored_stats.Campaign) -> str:
    """How the campaign's runs ended, naming only the outcomes that occurred."""
    counts = campaign.runs["status"].value_counts()
    parts = [f"{tex_int(int(counts[s]))} {STATUS_WORDS[s]}" for s in STATUS_WORDS if counts.get(s, 0)]
    total = tex_int(len(campaign.runs))
    return f"Of its {total} runs, {methods.join(parts)}." + (
        "" if counts.get("wrong", 0) else " No answer was wrong: every answer was checked against the rules "
                                           "and the clues before it counted.")


def _rows(table: pd.DataFrame, family: str, entrant: str) -> pd.DataFrame:
    return table[(table["family"] == family) & (table["entrant"] == entrant)].sort_values("n")


def entrant_sentences(table: pd.DataFrame, family: str, entrant: str) -> list[str]:
    """What one entrant did on one family: where it answered every puzzle, where it first
    missed, where it was skipped, how its median grew, any wrong answer."""
    rows = _rows(table, family, entrant)
    ran = rows[rows["skipped"] < rows["runs"]]
    skipped = [int(n) for n in rows.loc[rows["skipped"] >= rows["runs"], "n"]]
    name = entrant_name(entrant)
    out: list[str] = []
    if len(ran):
        full = ran[ran["solved"] == ran["total"]]
        if len(full) == len(ran):
            out.append(f"{name} answered every puzzle at {n_list([int(n) for n in ran['n']])}.")
        else:
            missed = ran[ran["solved"] < ran["total"]].iloc[0]
            before = [int(n) for n in ran["n"] if n < missed["n"]]
            head = (f"{name} answered every puzzle at {n_list(before)}, then " if before else f"{name} answered ")
            some = int(missed["skipped"])
            out.append(f"{head}{int(missed['solved'])} of {int(missed['total'])} at $n={int(missed['n'])}$"
                       + (f" ({some} of those runs skipped, not run)" if some else "")
                       + ("" if missed["n"] == ran["n"].max() else
                          f"; {int(ran['solved'].sum())} of {int(ran['total'].sum())} over the $n$ it ran") + ".")
    if skipped:
        out.append(f"At {n_list(skipped)} its runs were skipped, not run, so no time is reported there.")
    timed = ran[ran["median_s"].map(lambda v: math.isfinite(v))]
    if len(timed) >= 2:
        first, last = timed.iloc[0], timed.iloc[-1]
        largest = "" if last["n"] == ran["n"].max() else ", the largest $n$ where it was below the limit"
        out.append(f"Its median time was {seconds(first['median_s'])} at $n={int(first['n'])}$ and "
                   f"{seconds(last['median_s'])} at $n={int(last['n'])}${largest}.")
    elif len(timed) == 1:
        only = timed.iloc[0]
        out.append(f"Its median time at $n={int(only['n'])}$ was {seconds(only['median_s'])}"
                   + ("." if len(ran) == 1 else ", the only $n$ where it was below the limit."))
    wrong = int(ran["wrong"].sum()) if len(ran) else 0
    if wrong:
        out.append(f"It gave {wrong} WRONG answer{'s' if wrong != 1 else ''}.")
    return out


def fastest_sentences(table: pd.DataFrame, family: str) -> list[str]:
    """Per n where two or more entrants have a measured median: who had the smallest, and the
    next one."""
    out = []
    rows = table[table["family"] == family]
    for n, group in rows.groupby("n"):
        timed = group[group["median_s"].map(lambda v: math.isfinite(v))].sort_values("median_s")
        if len(timed) < 2:
            continue
        best, second = timed.iloc[0], timed.iloc[1]
        if seconds(best["median_s"]) == seconds(second["median_s"]):
            out.append(f"At $n={int(n)}$ the two smallest medians, {entrant_name(best['entrant'])}'s and "
                       f"{entrant_name(second['entrant'])}'s, were both {seconds(best['median_s'])} as printed.")
            continue
        out.append(f"At $n={int(n)}$ the smallest median was {entrant_name(best['entrant'])}'s "
                   f"({seconds(best['median_s'])}), then {entrant_name(second['entrant'])}'s "
                   f"({seconds(second['median_s'])}).")
    return out


FIGURE_WORDS = {"runtime": "the medians", "solved": "the share of puzzles answered within the limit",
                "cactus": "the answers against time"}


def join_figures(figures: list[str]) -> str:
    """``Figure 1 draws the medians, Figure 2 ...`` for the report's figures, by label."""
    return methods.join([f"Figure~\\ref{{fig:{name}}} draws {FIGURE_WORDS[name]}" for name in figures])
