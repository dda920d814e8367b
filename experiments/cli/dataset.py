"""``race import``: normalise a puzzle collection into an instance set with a manifest."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import click

from formats import datasets
from formats.errors import RaceError


def count_solutions(puzzles: list[datasets.DatasetPuzzle]) -> list[str]:
    """"0", "1", "many" or "unchecked" per puzzle
    (:func:`experiments.harness.instances.count_solutions`: a search budget per puzzle)."""
    from experiments.harness import instances
    return instances.count_solutions([p.grid for p in puzzles], instances.COUNT_NODE_LIMIT,
                                     progress=True)


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
    are counted with DLX up to 2: 0 (none), 1 (unique) or many; a puzzle whose
    count runs out of its budget (2,000,000 DLX nodes, about a second) is said
    not counted, 'unchecked' in the manifest.

    \b
    Example:
      race import tests/data/sample_collection.txt -o /tmp/collection
      race run --instances /tmp/collection ...
    """
    puzzles = datasets.read_dataset(source)
    words = ["unchecked"] * len(puzzles) if no_count else count_solutions(puzzles)
    from tqdm import tqdm
    with tqdm(total=len(puzzles), unit="file", desc="writing the instance set", file=sys.stderr,
              disable=None, delay=2.0, mininterval=0.5) as bar:     # shown on a terminal only
        datasets.write_instance_set(puzzles, words, out, written=lambda: bar.update(1))
    sizes = Counter(p.grid.n for p in puzzles)
    tally = Counter(words)
    by_n = ", ".join(f"n={n}: {k}" for n, k in sorted(sizes.items()))
    click.echo(f"imported {len(puzzles)} puzzles ({by_n}) from {source} into {out}")
    if no_count:
        click.echo("  solutions not counted (--no-count): the manifest says 'unchecked'")
        return
    click.echo(f"  unique: {tally['1']}, several solutions: {tally['many']}, "
               f"no solution: {tally['0']}")
    if tally["unchecked"]:
        from experiments.harness.instances import COUNT_NODE_LIMIT
        not_counted = Counter(p.grid.n for p, word in zip(puzzles, words) if word == "unchecked")
        where = ", ".join(f"n={n}: {k}" for n, k in sorted(not_counted.items()))
        click.echo(f"  not counted: {tally['unchecked']} ({where}): the count ran out of its "
                   f"budget of {COUNT_NODE_LIMIT:,} DLX nodes per puzzle; the manifest says "
                   "'unchecked', and they race as puzzles of unknown count")


COMMANDS: list = [import_dataset]


class InstancesParam(click.ParamType):
    """``race run --instances``: a count of generated instances per n (a positive
    integer), or the PATH of user-supplied puzzles (a Path)."""
    name = "COUNT|PATH"

    def convert(self, value, param, ctx):
        if isinstance(value, (int, Path)):
            return value
        text = str(value).strip()
        if text.isascii() and text.isdecimal():
            from experiments.cli.params import MAX_INTEGER
            if int(text) < 1:
                self.fail(f"{text} is not a positive count", param, ctx)
            if int(text) > MAX_INTEGER:
                self.fail(f"{text[:40]} is not a count in 1..{MAX_INTEGER}", param, ctx)
            return int(text)
        if not Path(text).exists():
            self.fail(f"{text!r} is neither a count nor an existing file or directory", param, ctx)
        return Path(text)


def instance_set_settings(path: Path, out: Path, n_values: list[int], n_given: bool):
    """(instance set, n values, instances per n, kind, default campaign name) of
    ``race run --instances PATH``: the set's box sizes (those of --n only, when
    --n was given) and its largest count per n. RaceError when --n leaves none."""
    from experiments.harness.instances import load_instance_set
    instance_set = load_instance_set(path, out)
    present = sorted(instance_set.by_n)
    chosen = [n for n in present if n in n_values] if n_given else present
    if not chosen:
        raise RaceError(f"--instances {path}: no puzzle with n in --n (the set has n = "
                        f"{', '.join(map(str, present))})")
    click.echo(instance_set.describe(), err=True)
    name = f"race-{Path(instance_set.source).stem or 'instances'}-{instance_set.sha256[:10]}" \
        f"-n{'_'.join(map(str, chosen))}"
    return (instance_set, chosen, max(len(instance_set.by_n[n]) for n in chosen),
            datasets.KIND, name)
