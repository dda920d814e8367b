"""``race compare``: two entrants head to head on the identical instances of a campaign
(``RESULTS A B``), or two campaigns against each other (``OLD NEW [ENTRANT...]``);
``race merge A B -o C``: campaigns of several machines in one."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from experiments.analysis import censored_stats
from experiments.cli import params
from formats.errors import RaceError

#: what ``race compare --format`` prints
FORMATS = ("text", "markdown", "json")


def is_campaign(text: str) -> bool:
    """True when ``text`` names a campaign (:func:`experiments.analysis.censored_stats.campaign_root`:
    a directory with runs.csv, or one holding campaigns, which loading then names)."""
    try:
        return (censored_stats.campaign_root(text) / "runs.csv").is_file()
    except RaceError:
        return True


@click.command()
@click.argument("args", nargs=-1, required=True, metavar="RESULTS A B | OLD NEW [ENTRANT...]")
@click.option("--n", "n_text", default=None, help="Only these box sizes: N, A..B or a list such as 2,4.")
@click.option("--family", "--kind", "family_text", default=None,
              help="Only these instance families, comma-separated (e.g. hard; a label takes "
                   "every family of that label). --kind is its older name.")
@click.option("--tie", "tolerance", type=params.Number(0.0, max=10.0), default=0.05, show_default=True,
              help="Relative difference within which two times are a tie.")
@click.option("--as", "renames", multiple=True, metavar="OLD=NEW",
              help="Two campaigns: pair OLD's entrant OLD with NEW's entrant NEW (renamed; repeatable).")
@click.option("--fail-above", "fail_above", type=params.Number(0.0, open=True, max=1e6), default=None,
              help="Two campaigns: a regression gate for CI. Exit 1, checked first, when on "
                   "some instance NEW answered wrong, or ended in an error, a memout, a timeout, "
                   "unknown or skipped where OLD answered, or when NEW lacks an instance OLD ran "
                   "(each named); then when an entrant, family and n is slower than this ratio "
                   "NEW/OLD with its interval's lower end above 1; exit 4 (inconclusive) when "
                   "either campaign was measured on a busy machine or its calibration drifted.")
@click.option("--partial", "--allow-missing", "partial", is_flag=True,
              help="With --fail-above: the instances of OLD that NEW lacks (an entrant, a family, "
                   "an n, or part of one: an interrupted NEW) are named and left out of the gate, "
                   "not a failure. --allow-missing is its older name.")
@click.option("--force", is_flag=True,
              help="With --fail-above: gate on noisy measurements too (busy machine, calibration "
                   "drift) instead of exiting 4.")
@click.option("--format", "-f", "fmt", type=click.Choice(FORMATS), default=None,
              help="How to print the result: text (a table), markdown (a table to paste into a "
                   "pull request) or json (one document, for scripts)  [default: text]")
@click.option("--markdown", is_flag=True, hidden=True, help="The same as --format markdown.")
@click.option("--normalise", is_flag=True,
              help="Two campaigns: divide each campaign's times by its calibration score first.")
@click.option("--pair-different", is_flag=True,
              help="Two campaigns: compare an entrant whose code differs between them (another "
                   "program, other sources, rows of mixed code), naming both sides' code; "
                   "without it such a pair is refused.")
def compare(args: tuple[str, ...], n_text: str | None, family_text: str | None, tolerance: float,
            renames: tuple[str, ...], fail_above: float | None, partial: bool, force: bool,
            fmt: str | None, markdown: bool, normalise: bool,
            pair_different: bool = False) -> None:
    """Compare two entrants of one campaign, or two campaigns.

    \b
    RESULTS A B: entrant B against entrant A on the instances of the campaign
    in RESULTS that both ran (paired by instance_sha256, n and family): wins,
    losses and ties, the median time ratio B/A with its bootstrap interval and
    a Wilcoxon signed-rank test in which a timeout ranks as the worst time.

    \b
    OLD NEW [ENTRANT...]: campaign NEW against campaign OLD (another commit,
    another machine), cells paired by instance_sha256, family and n, entrant
    with the same spec (or --as OLD=NEW); per entrant, family and n the median
    ratio NEW/OLD with its 95% interval, the paired signed-rank p and
    wins/losses/ties, under the metadata the two differ in (commit, machine,
    load, versions, limits, calibration). An entrant whose code differs
    between them (meta.json's entrant_code: a program's sha256, the
    sources' digest) is refused unless --pair-different is given; then the
    lines above the table name both sides, ENTRANT [aa9714..] vs [d4e228..].

    \b
    --fail-above R is a regression gate that checks correctness first, before
    any timing question. Exit status: 1 when on some instance OLD answered,
    NEW answered WRONG, or ended in an error, a memout, a timeout, unknown or
    skipped (one line per entrant naming each family, n and instance; never
    inconclusive), or when an instance OLD ran is missing from NEW (an
    entrant, a family, an n or part of one, each named: it was not compared;
    --partial gates on what both ran, still naming it); then 4 inconclusive:
    either campaign carries a busy-machine or calibration-drift warning, so a
    ratio may be the machine's (--force gates anyway); then 1 a regression:
    some entrant, family and n slower than R, its interval's lower end above
    1; else 0 passed. 2 an error.

    \b
    Both warn, one line each, when a machine was busy, the calibration
    drifted by more than 5% or the repeats of an instance vary by more than 10%.

    \b
    Example:
      race compare results/reference-n2-10 dlx sat
      race compare results/hard dlx sat --n 4..6 --family hard
      race compare results/before results/after --fail-above 1.2 --pair-different
      race compare results/laptop results/server dlx --normalise --format markdown
      race compare results/before results/after --format json > diff.json
      race compare results/old results/new --as dlx=dlx:heuristic=first
    """
    from experiments.harness.config import parse_n
    if markdown and fmt not in (None, "markdown"):
        raise RaceError(f"--markdown is --format markdown; it cannot go with --format {fmt}")
    fmt = "markdown" if markdown else fmt or "text"
    n_values = parse_n(n_text) if n_text else None
    families = [k.strip() for k in family_text.split(",") if k.strip()] if family_text else None
    for flag, given in (("--partial", partial), ("--force", force)):
        if given and fail_above is None:
            raise RaceError(f"{flag} goes with --fail-above (it sets how the regression gate "
                            "decides)")
    if len(args) >= 2 and is_campaign(args[0]) and is_campaign(args[1]):
        _campaigns(args, n_values, families, tolerance, renames, fail_above, fmt, normalise,
                   partial, force, pair_different)
        return
    for flag, value in (("--as", renames), ("--fail-above", fail_above), ("--normalise", normalise),
                        ("--pair-different", pair_different)):
        if value:
            raise RaceError(f"{flag} compares two campaigns: race compare OLD NEW [ENTRANT...] "
                            f"({args[1] if len(args) > 1 else '?'} is not a campaign directory)")
    # only OLD NEW takes two arguments: name the one that is not a campaign
    other = next((a for a in args[:2] if not is_campaign(a)), args[1]) if len(args) == 2 else \
        args[1] if len(args) > 2 and not is_campaign(args[1]) else None
    if other is not None and Path(other).is_dir():
        raise RaceError(f"{other}: a directory, but no campaign in it (expected runs.csv and "
                        "meta.json, or one campaign directory below it)")
    if len(args) == 2:
        assert other is not None                       # one of the two, named above
        what = "not a campaign directory" if Path(other).exists() else "no such directory"
        raise RaceError(f"{other}: {what} (race compare OLD NEW takes two campaign directories; "
                        "RESULTS A B a campaign and two of its entrants)")
    if len(args) != 3:
        raise RaceError("expected RESULTS A B (a campaign and two of its entrants) or OLD NEW "
                        f"[ENTRANT...] (two campaign directories), got {len(args)} argument(s)")
    from experiments.analysis import compare as comparison
    from experiments.analysis import noise
    campaign = censored_stats.load(Path(args[0]))
    _known_families(families, [campaign])
    result = comparison.compare(campaign, args[1], args[2], n_values, families, tolerance)
    result.warnings = noise.machine_warnings(campaign) + result.warnings
    show = {"text": comparison.comparison_text, "markdown": comparison.comparison_markdown,
            "json": comparison.comparison_json}[fmt]
    click.echo(show(result))


def _campaigns(args, n_values, families, tolerance, renames, fail_above, fmt, normalise,
               partial: bool = False, force: bool = False,
               pair_different: bool = False) -> None:
    from experiments.analysis import (
        campaign_diff,
        noise,
        regression_gate,
        wrong_answers,
    )
    from experiments.cli.run_progress import large, slow_step
    shown = large(*args[:2])
    with slow_step("reading the campaigns", shown=shown):
        old = censored_stats.load(Path(args[0]))
        same = censored_stats.campaign_root(Path(args[0])).resolve() == censored_stats.campaign_root(Path(args[1])).resolve()
        new = old if same else censored_stats.load(Path(args[1]))       # read-only: one read is enough
    _known_families(families, [old, new])
    entrants, pairs_as = list(args[2:]), campaign_diff.parse_renames(renames)
    with slow_step("comparing them", shown=shown):
        result = campaign_diff.diff(old, new, entrants, pairs_as, n_values, families, tolerance,
                                    normalise, pair_different)
    show = {"text": campaign_diff.diff_text, "markdown": campaign_diff.diff_markdown,
            "json": campaign_diff.diff_json}[fmt]
    click.echo(show(result, fail_above))
    if fail_above is not None:
        pairs = campaign_diff.entrant_pairs(old, new, entrants, pairs_as)
        lacking = regression_gate.missing(old, new, pairs, n_values, families, bool(entrants))
        warned = (noise.machine_warnings(old, f"OLD {old.name}")
                  + noise.machine_warnings(new, f"NEW {new.name}"))
        wrong = wrong_answers.fault_lines(result.faults)
        gate = regression_gate.verdict(campaign_diff.regressions(result, fail_above), fail_above,
                                       lacking, warned, partial, force, wrong)
        if gate.line:
            click.echo(gate.line, err=True)
        sys.exit(gate.code)


def _known_families(families: list[str] | None, campaigns: list) -> None:
    """RaceError for a --family that no given campaign has (else: "share no instance")."""
    for family in families or []:
        if not any(censored_stats.of_families(c.runs["family"], [family]).any() for c in campaigns):
            have = ", ".join(dict.fromkeys(f for c in campaigns for f in c.families))
            raise RaceError(f"--family {family}: not a family of "
                            f"{' or '.join(c.name for c in campaigns)} (families: {have})")


@click.command()
@click.argument("campaigns", nargs=-1, required=True,
                type=click.Path(file_okay=False, exists=True, path_type=Path))
@click.option("-o", "--out", "out", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="The merged campaign's directory (must not exist yet).")
def merge(campaigns: tuple[Path, ...], out: Path) -> None:
    """Merge campaigns run on different machines over the same instances into one
    campaign directory OUT: every row of runs.csv is kept as measured, with its
    machine (column worker = host:pid; column campaign = the source campaign), and
    meta.json keeps each source's machine, commit, readings and calibration under
    merged_from.

    \b
    The campaigns must be raced under the same conditions (seed, time and
    memory limits, generator and family options, each cmd entrant's program,
    each entrant's code and parameters; the repeats may differ), and an instance
    name must have the same sha256 in all of them; a cell (entrant, family, n,
    instance, repeat) measured by several becomes that many repeats. A campaign
    given twice, or a copy of another (the same measurements), is refused: its
    rows would pose as repeats. Damaged rows of a source are named and kept in
    OUT/runs.damaged.csv; OUT appears whole or not at all.

    \b
    Example:
      race merge results/laptop results/server -o results/both
      race plot results/both
    """
    from experiments.harness.campaign_merge import merge_campaigns
    if len(campaigns) < 2:
        raise RaceError("race merge needs two campaigns or more: race merge A B -o C")
    rows, meta = merge_campaigns(list(campaigns), out)
    click.echo(f"merged {len(campaigns)} campaigns ({rows} rows) into {out}")


COMMANDS: list = [compare, merge]
