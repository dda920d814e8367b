"""``race portfolio``: learn the ``auto`` entrant's rule from one or more campaigns."""

from __future__ import annotations

import shlex
from pathlib import Path

import click

#: where the table goes unless --out says: the current directory, never the installed package
DEFAULT_OUT = Path("portfolio.csv")


@click.command()
@click.argument("results_dirs", nargs=-1, required=True,
                type=click.Path(file_okay=False, path_type=Path))
@click.option("--out", "-o", "out", type=click.Path(dir_okay=False, path_type=Path),
              default=DEFAULT_OUT, show_default=True,
              help="Where to write the table (`race solve -s auto:table=PATH` uses it; `auto` "
                   "alone reads the installed solvers/portfolio.csv).")
def portfolio(results_dirs: tuple[Path, ...], out: Path) -> None:
    """Learn the rule of the `auto` entrant from the campaigns in RESULTS_DIRS: per n and
    share of empty cells, among the built-in entrants that answered the largest share of
    the instances they raced, the one with the lowest PAR-2 (mean time, a timeout counted
    as twice the limit), then the most wins (fastest verified answers). Several campaigns
    are pooled per family and n (wins, answers, instances and PAR-2 add up): a campaign
    with a longer limit on the hardest cells, or with another entrant, teaches what the
    main one could not. Where nobody answered a family
    at some n, the pick of that family at the nearest n is taken. Prints the rule and
    writes it as CSV to --out (portfolio.csv in the current directory unless told);
    `race solve -s auto:table=PATH` uses it instead of the committed table, which no
    command rewrites unless named with -o.

    \b
    Example:
      race portfolio results/reference-n2-10 results/reference-hard-n5 \\
          results/reference-hard-n6 results/reference-hard-n5-fallback \\
          results/reference-hard-n5-fallback-s10 \\
          results/reference-hard-n5-fallback-s0 \\
          results/reference-hard-n5-config-s10 \\
          results/reference-hard-n5-config-s11 results/reference-hard-n6-config \\
          -o solvers/portfolio.csv         # the committed table, in a checkout
      race portfolio results/my-campaign -o my-portfolio.csv
      race solve -s auto:table=my-portfolio.csv --stats puzzle.sudoku
    """
    from experiments.analysis import censored_stats
    from experiments.analysis import portfolio as learned
    table = learned.learn([censored_stats.load(d) for d in results_dirs])
    path = learned.write(table, out)
    click.echo(learned.describe(table))
    click.echo(f"wrote {path} (race solve -s {shlex.quote(f'auto:table={path}')} uses it)")


COMMANDS: list = [portfolio]
