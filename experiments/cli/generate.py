"""``race generate``: seeded instances (Algorithm 2 and the other families) to stdout or files."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import click

from experiments.cli import params
from experiments.harness.identity import HARD
from formats import grid_text
from formats.errors import RaceError
from generators import kinds
from generators.counting import COUNTER_BACKENDS
from generators.puzzle_set import KINDS, MAX_N, identity, make, write_set
from generators.unique import FILLS


def _int(name: str, text: str, low: int) -> int:
    """``text`` as the other commands read a number (:class:`params.Integer`: ASCII digits,
    at most :data:`params.MAX_INTEGER`; ``int()`` took '1_000' and full-width digits)."""
    stripped = str(text).strip()
    if not (stripped.isascii() and stripped.lstrip("+-").isdecimal()
            and len(stripped) - len(stripped.lstrip("+-")) <= 1):
        raise RaceError(f"--{name} must be an integer (ASCII digits 0-9), got {str(text)[:40]!r}")
    value = int(stripped)
    if not low <= value <= params.MAX_INTEGER:
        raise RaceError(f"--{name} must be in {low}..{params.MAX_INTEGER}, got {value}")
    return value


def generator_options(kind: str, holes: str | None, pattern: str | None,
                      base: str | None, fill: str | None = None) -> dict[str, object]:
    """The generator options of ``--holes``, ``--pattern``, ``--base`` and ``--fill``
    for ``kind`` (only those given), in canonical form. Raises RaceError when an option does not go
    with the kind or has a bad value (the values are checked by
    :func:`generators.puzzle_set.identity`, the one validator)."""
    given = {key: value for key, value in (("holes", holes), ("pattern", pattern), ("base", base),
                                           ("fill", fill)) if value is not None}
    accepted = kinds.GENERATORS[kind][1] if kind in kinds.GENERATORS else given
    for key in given:                       # the options of each kind: kinds.GENERATORS, once
        if key not in accepted:
            takers = [k for k, (_, options) in kinds.GENERATORS.items() if key in options]
            raise RaceError(f"--{key} goes with --family {' or '.join(takers)}")
    check = dict(given)
    if kind == "unsat" and holes is not None and base is None:
        check["base"] = "holes"            # the default beyond n = 6; checked here at n = 2
    canonical = identity(kind, 2, 0, 0, **check)
    # fill "auto" is resolved per n by make(), not at this n=2 check
    return {key: float(canonical[key]) if key == "holes" else
            given[key] if key == "fill" else canonical[key] for key in given}


def family_options(command: Callable) -> Callable:
    """Add the instance family's options ``--holes``, ``--pattern`` and ``--base`` to a
    click command (parameters ``holes_text``, ``pattern``, ``base``)."""
    options = [
        click.option("--holes", "holes_text", default=None, metavar="F",
                     help="Fraction of empty cells in [0, 1] (holes [default: 0.5]; "
                     "unsat with --base holes [default: 0.2])."),
        click.option("--pattern", type=click.Choice(kinds.PATTERNS), default=None,
                     help="Where the holes go (holes) [default: random]."),
        click.option("--base", type=click.Choice(kinds.UNSAT_BASES), default=None,
                     help="Puzzle the wrong clue is added to (unsat) [default: unique for "
                     "N <= 6, holes beyond]."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


@click.command("generate")
@click.option("--n", "n_text", required=True, metavar="N",
              help=f"Box size n (grid n² x n²), 1..{MAX_N}.")
@click.option("--instances", "-k", "instances_text", default="1", show_default=True, metavar="K",
              help="Number of puzzles (indices 0..K-1).")
@click.option("--seed", "seed_text", default="0", show_default=True, metavar="S",
              help="Seed of the set (an integer >= 0).")
@click.option("--family", "--kind", "kind", type=click.Choice((*KINDS, HARD)), default="unique",
              show_default=True,
              help="Instance family (see below), as in race run. --kind is its older name.")
@family_options
@click.option("--fill", type=click.Choice(("auto", *FILLS)), default="auto", show_default=True,
              help="How the solved grid is made (see below).")
@click.option("--counter", type=click.Choice(COUNTER_BACKENDS), default="auto", show_default=True,
              help="Solution counter (changes the speed, never the puzzles).")
@click.option("--out", "-o", "out", default=None, type=click.Path(file_okay=False),
              help="Write one .sudoku file per puzzle and manifest.csv into this directory "
                   "[default: print to stdout].")
@click.option("--peaks", "peaks_path", default=None, type=click.Path(dir_okay=False),
              help="Peak table the hard family reads (one `race landscape --peaks` wrote) "
                   "[default: the committed generators/hardness_peaks.csv].")
@click.option("--progress/--no-progress", default=None,
              help="Progress bar on stderr [default: when stderr is a terminal].")
def generate(n_text: str, instances_text: str, seed_text: str, kind: str, holes_text: str | None,
             pattern: str | None, base: str | None, fill: str, counter: str, out: str | None,
             progress: bool | None, peaks_path: str | None = None) -> None:
    """Generate seeded Sudoku instances with box size N.

    \b
    Kinds:
      unique    Algorithm 2: fill cells at random while solvable, then remove
                random clues while the solution stays unique
      minimal   unique, and every clue necessary
      unsat     a unique puzzle plus one wrong (but consistent) clue: no solution
                (--base holes, the default beyond N = 6: a holes puzzle plus a
                wrong clue proved unsat by propagation or budgeted SAT)
      multi     Algorithm 2 one step before the end: at least two solutions
      holes     a random solved grid with a fraction F of its cells emptied
                (--pattern balanced: evenly over rows, columns and boxes)
      hard      holes, balanced, at the hardness peak of N (as in race run;
                the files are named hard-...)
    holes, unsat, unique and multi go up to N = 20 (unique: ~0.05 s a puzzle
    at N = 7-8, seconds at N = 15, up to minutes at N = 20); minimal to N = 6
    (a uniqueness question per cell, counted exactly: up to a minute a puzzle
    at N = 5, hours at N = 6).

    \b
    Fills (the solved grid every kind starts from; recorded as fill=... in
    each file and in manifest.csv):
      algorithm2  Algorithm 2's fill phase: cell by cell, a value uniform among
                  those that keep the grid solvable (a solver call per cell)
      latin       two families of random Latin squares of order N composed into
                  a grid, then a random symmetry: instant at any N; many
                  isomorphism classes, but not uniform
      symmetric   a random symmetry of one pattern grid: instant, but every
                  grid is in the same isomorphism class
      las-vegas   random consistent clues completed by a randomised SAT search
                  with restarts: any class, biased; practical to N = 6
      auto        algorithm2 for N <= 5, latin beyond

    \b
    The same (kind, N, seed, index, options) gives the same bytes on any
    machine. Without -o the puzzles go to stdout (native format with # key=value
    metadata, separated by a blank line); with -o each goes to
    <kind>-n<N>-s<seed>-<index>.sudoku, listed with its sha256 in manifest.csv;
    files already there for the same puzzle are kept, and one of that name made
    with other options is an error (never replaced).

    \b
    Example:
      race generate --n 3                              # one 9x9 unique puzzle
      race generate --n 5 --instances 3 --seed 1 -o /tmp/p5
      race generate --n 4 --family holes --holes 0.6 --pattern balanced
      race generate --n 15 --family holes --holes 0.33 --fill latin
      race generate --n 4 --family hard --peaks hardness_peaks.csv  # your peaks
    """
    n = _int("n", n_text, 1)
    if n > MAX_N:
        raise RaceError(f"--n {n} is beyond what the generator can do (n <= {MAX_N})")
    count = _int("instances", instances_text, 1)
    seed = _int("seed", seed_text, 0)
    label = kind
    if peaks_path is not None and kind != HARD:
        raise RaceError(f"--peaks: only the {HARD} family reads a peak table (not {kind})")
    if kind == HARD:                        # holes at the peak of n: the family race run races
        from experiments.harness.instance_families import parse_families
        given = {k: v for k, v in (("holes", holes_text), ("pattern", pattern), ("base", base))
                 if v is not None}
        family = parse_families(HARD, given,             # RaceError for --holes, --pattern, --base
                                Path(peaks_path) if peaks_path else None)[0]
        # the fill as given: auto is resolved per n by make(), as for the other kinds
        kind, options = family.kind, {**family.options_for(n), "fill": fill}
    else:
        options = generator_options(kind, holes_text, pattern, base, fill)
    options["counter"] = counter
    if progress is None:
        progress = sys.stderr.isatty()
    if out is not None:
        manifest = write_set(kind, n, count, seed, Path(out), progress=progress, label=label,
                             stem=label, **options)
        click.echo(f"{count} {label} puzzle(s) with n={n} in {manifest.parent} (manifest: {manifest})",
                   err=True)
        return
    indices = range(count)
    if progress:
        from tqdm import tqdm
        indices = tqdm(indices, desc=f"{label} n={n}", unit="puzzle", leave=False)
    for index in indices:
        grid, meta = make(kind, n, seed, index, **options)
        if index:
            click.echo("")
        click.echo(grid_text.format_native(grid, meta), nl=False)


COMMANDS: list = [generate]
