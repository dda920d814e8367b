"""``race import``: normalise a puzzle collection into an instance set with a manifest."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import click
import numpy as np

from formats import datasets

#: what the solutions column says for 0, 1 and >= 2 solutions (counted up to 2)
SOLUTION_WORDS = ("0", "1", "many")


def count_solutions(puzzles: list[datasets.DatasetPuzzle]) -> list[str]:
    """"0", "1" or "many" per puzzle: the DLX counter (solvers.dlx) with limit 2,
    all puzzles of one n in one compiled call; conflicting clues count 0."""
    from solvers import batch
    words = [""] * len(puzzles)
    for n in sorted({p.grid.n for p in puzzles}):
        where = [i for i, p in enumerate(puzzles) if p.grid.n == n]
        counts, _, _, _ = batch.dlx_many(np.stack([puzzles[i].grid.cells for i in where]), n, limit=2)
        for i, count in zip(where, counts.tolist()):
            words[i] = SOLUTION_WORDS[min(count, 2)]
    return words


@click.command("import")
@click.argument("source", type=click.Path(path_type=Path))
@click.option("--out", "-o", "out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Directory of the instance set (created; files there are overwritten).")
@click.option("--no-count", is_flag=True,
              help="Do not count solutions (the solutions column says 'unchecked').")
def import_dataset(source: Path, out: Path, no_count: bool) -> None:
    """Normalise the puzzles of SOURCE into an instance set in OUT: one native
    .sudoku file per puzzle and manifest.csv (file, kind, n, seed, index,
    clues, sha256, source, line, solutions). SOURCE is a directory of puzzle
    files, a file of one-line puzzles (9x9 lists: '.' or '0' empty; CSV rows
    'puzzle,solution' and trailing comments allowed) or whitespace-separated
    numeric grids (optionally headed by n or the side). Each puzzle's solutions
    are counted with DLX up to 2: 0 (none), 1 (unique) or many.

    \b
    Example:
      race import tests/data/sample_collection.txt -o /tmp/collection
      race run --instances /tmp/collection ...
    """
    puzzles = datasets.read_dataset(source)
    words = ["unchecked"] * len(puzzles) if no_count else count_solutions(puzzles)
    datasets.write_instance_set(puzzles, words, out)
    sizes = Counter(p.grid.n for p in puzzles)
    tally = Counter(words)
    by_n = ", ".join(f"n={n}: {k}" for n, k in sorted(sizes.items()))
    click.echo(f"imported {len(puzzles)} puzzles ({by_n}) from {source} into {out}")
    if not no_count:
        click.echo(f"  unique: {tally['1']}, several solutions: {tally['many']}, "
                   f"no solution: {tally['0']}")


COMMANDS: list = [import_dataset]
