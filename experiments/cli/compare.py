"""``race compare``: two entrants head to head on the identical instances of a campaign."""

from __future__ import annotations

from pathlib import Path

import click

from experiments.analysis import statistics as analysis
from experiments.cli import params


@click.command()
@click.argument("results_dir", type=click.Path(file_okay=False, path_type=Path))
@click.argument("entrant_a")
@click.argument("entrant_b")
@click.option("--n", "n_text", default=None, help="Only these box sizes: N, A..B or a list such as 2,4.")
@click.option("--kind", "kind_text", default=None,
              help="Only these instance families, comma-separated (e.g. hard).")
@click.option("--tie", "tolerance", type=params.Number(0.0, max=10.0), default=0.05, show_default=True,
              help="Relative difference within which two times are a tie.")
def compare(results_dir: Path, entrant_a: str, entrant_b: str, n_text: str | None,
            kind_text: str | None, tolerance: float) -> None:
    """Compare ENTRANT_B against ENTRANT_A on the instances of the campaign in
    RESULTS_DIR that both ran (paired by instance_sha256, n and family): wins,
    losses and ties, the median time ratio B/A with its bootstrap interval and a
    Wilcoxon signed-rank test in which a timeout ranks as the worst time. Warns when
    the repeats of an instance vary too much to trust.

    \b
    Example:
      race compare results/reference-n2-10 dlx sat
      race compare results/hard dlx sat --n 4..6 --kind hard
    """
    from experiments.analysis import compare as comparison
    from experiments.harness.config import parse_n
    campaign = analysis.load(results_dir)
    n_values = parse_n(n_text) if n_text else None
    kinds = [k.strip() for k in kind_text.split(",") if k.strip()] if kind_text else None
    result = comparison.compare(campaign, entrant_a, entrant_b, n_values, kinds, tolerance)
    click.echo(comparison.comparison_text(result))


COMMANDS: list = [compare]
