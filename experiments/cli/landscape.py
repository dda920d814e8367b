"""``race landscape``: the hardness axis, a campaign over n x hole fraction."""

from __future__ import annotations

import os
import re
from pathlib import Path

import click

from experiments.cli import params
from experiments.cli.invocation import current_registry
from experiments.cli.run import race
from experiments.harness.config import LANDSCAPE_DEFAULTS as DEFAULTS
from experiments.harness.config import Config, Invocation, n_label, parse_n
from experiments.harness.entrants import DEFAULT_ENTRANTS, parse_entrants
from experiments.harness.instance_families import landscape_families
from formats.errors import RaceError
from generators import kinds as generator_kinds

#: where the peaks go unless --peaks says: the current directory, never the installed package
DEFAULT_PEAKS = Path("hardness_peaks.csv")


def parse_fractions(text: str) -> list[float]:
    """Hole fractions from ``LO..HI:STEP`` (both ends included) or a comma-separated
    list: sorted, distinct, each in [0, 1]. Raises RaceError otherwise."""
    text = str(text).strip()
    m = re.fullmatch(r"([0-9.]+)\s*\.\.\s*([0-9.]+)\s*:\s*([0-9.]+)", text)
    try:
        if m:
            lo, hi, step = (float(g) for g in m.groups())
            if step <= 0 or hi < lo:
                raise ValueError
            values = [round(lo + k * step, 6) for k in range(int(round((hi - lo) / step)) + 1)]
        else:
            values = [float(part) for part in text.split(",")]
    except ValueError:
        raise RaceError(f"--holes {text!r}: expected LO..HI:STEP such as 0.30..0.80:0.05 or a "
                        "list such as 0.5,0.6") from None
    for value in values:
        if not 0 <= value <= 1:
            raise RaceError(f"--holes {text!r}: fraction {value:g} is outside [0, 1]")
    return sorted(set(values))


@click.command("landscape")
@click.option("--n", "n_text", default=DEFAULTS["n"], show_default=True,
              help="Box sizes: N, A..B or a list such as 3,5.")
@click.option("--holes", "holes_text", default=DEFAULTS["holes"], show_default=True,
              help="Hole fractions: LO..HI:STEP or a list such as 0.5,0.55,0.6.")
@click.option("--pattern", type=click.Choice(generator_kinds.PATTERNS), default=DEFAULTS["pattern"],
              show_default=True, help="Where the holes go.")
@click.option("--solvers", default=",".join(DEFAULT_ENTRANTS), show_default=True,
              help="Entrant specs, comma-separated (see `race solvers`).")
@click.option("--instances", type=params.Integer(min=1), default=DEFAULTS["instances"],
              show_default=True, help="Instances per n and hole fraction.")
@click.option("--seed", type=params.Integer(min=0), default=DEFAULTS["seed"], show_default=True,
              help="Seed of the instance sets.")
@click.option("--timeout", "-t", type=params.SECONDS,
              default=DEFAULTS["timeout_s"], show_default=True, help="Wall-time limit per cell (s).")
@click.option("--memory", type=params.MEGABYTES, default=DEFAULTS["memory_mb"],
              show_default=True, help="Memory limit per cell (MB; 0 = none).")
@click.option("--jobs", "-j", type=params.Integer(min=1), default=None,
              help="Parallel workers [default: the CPU count].")
@click.option("--out", "-o", default="results", show_default=True, type=click.Path(file_okay=False),
              help="Results directory (campaigns and the instance cache).")
@click.option("--campaign", "name", default=None,
              help="Campaign name [default: derived from n, pattern, seed, instances, limit].")
@click.option("--peaks", "peaks_path", default=None, type=click.Path(dir_okay=False),
              help=f"Peak table to write or update [default: {DEFAULT_PEAKS} in the current "
                   "directory; the hard family reads the installed "
                   "generators/hardness_peaks.csv]. A row measured there on more instances "
                   "or with a longer limit is kept.")
@click.option("--no-peaks", is_flag=True, help="Do not write the peak table.")
@params.code_change_options
def landscape(n_text: str, holes_text: str, pattern: str, solvers: str, instances: int, seed: int,
              timeout: float, memory: float, jobs: int | None, out: str, name: str | None,
              peaks_path: str | None, no_peaks: bool, mixed: bool = False,
              rerun: tuple[str, ...] = ()) -> None:
    """Measure how hard puzzles with a fraction of empty cells are, for each box size n
    and hole fraction, and locate the hardness peak per n.

    \b
    A campaign like `race run` (same runs.csv with the hole fraction in its
    `holes` column, resumable, the skip rule per hole fraction), with one
    family of `holes` instances per fraction. At the end: per n and fraction
    each entrant's solved fraction, median time and median work (censored:
    "> limit"), the peak (largest censored median time of the best entrant)
    with a 90% bootstrap interval over instances, the figure landscape.pdf/png
    in the campaign directory, and the peak per n written to the peak table
    (--peaks; hardness_peaks.csv in the current directory unless told: the
    committed table the hard family reads changes only when named there).

    \b
    Example:
      race landscape --n 3..4 --instances 5
      race landscape --n 5 --holes 0.45..0.65:0.05 --solvers dlx,sat --timeout 20
    """
    n_values = parse_n(n_text)
    fractions = parse_fractions(holes_text)
    entrants = parse_entrants(solvers, current_registry())
    memory_mb = memory or None
    name = name or (f"landscape-n{n_label(n_values)}-{pattern}-s{seed}-i{instances}"
                    f"-t{timeout:g}")
    # as race run refuses them
    if not name or "/" in name or name.startswith(".") or name != name.strip():
        raise RaceError(f"--campaign {name!r}: expected a plain directory name")
    if not name.isprintable():
        raise RaceError(f"--campaign {name!r}: a character that is not printable (such as a "
                        "no-break space); type the name with plain characters")
    config = Config(n_values=n_values, entrants=entrants, family_labels="holes", seed=seed,
                    instances=instances, repeats=1, timeout_s=timeout, memory_mb=memory_mb,
                    jobs=jobs or os.cpu_count() or 1, out=Path(out), campaign=name,
                    generator_options={"pattern": pattern},
                    families=landscape_families(fractions, pattern),
                    asked=Invocation(n_text=n_text, solvers_text=solvers, jobs_given=jobs,
                                     landscape={"holes": holes_text, "pattern": pattern,
                                                **({"peaks": "none"} if no_peaks else
                                                   {"peaks": peaks_path} if peaks_path else {})}))
    target = None if no_peaks else Path(peaks_path) if peaks_path else DEFAULT_PEAKS
    if target is not None and target.exists() and not target.is_file():
        raise RaceError("--peaks: not a regular file (the peak table is read, then rewritten)",
                        source=str(target))

    expected = len(entrants) * len(fractions) * len(n_values) * instances

    def summarize(campaign) -> str:           # peaks only from a complete landscape
        return finish(campaign, pattern, target if len(campaign.runs) >= expected else None)

    from experiments.harness.code_change import settle
    for line in settle(config, mixed, rerun):
        click.echo(line, err=True)
    race(config, summarize)


def finish(campaign, pattern: str, peaks_path: Path | None) -> str:
    """The landscape's summary text; writes the figure and (unless ``peaks_path`` is None)
    the peaks of every n measured at all fractions into the table."""
    from experiments.analysis import landscape as analysis
    from generators.hardness_peaks import write_peaks

    text = analysis.landscape_text(campaign)
    figures = analysis.landscape_figure(campaign, campaign.path)
    text += f"\nfigure: {figures[0]} (+ .png)"
    if peaks_path is not None:
        found = analysis.peaks(campaign)
        rows = [{**p, "pattern": pattern, "timeout_s": f"{campaign.timeout_s:g}",
                 "campaign": campaign.name} for p in found]
        if rows:
            kept = {n for _, n in write_peaks(rows, peaks_path)}
            written = [str(p["n"]) for p in found if p["n"] not in kept]
            if written:
                text += f"\npeaks of n={','.join(written)} written to {peaks_path}"
            if kept:
                text += (f"\npeaks of n={','.join(str(n) for n in sorted(kept))} not written: "
                         f"{peaks_path} has them from more instances or a longer time limit "
                         "(--peaks FILE writes them elsewhere)")
    return text


COMMANDS: list = [landscape]
