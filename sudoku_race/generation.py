"""Seeded puzzles from code, as ``race generate`` makes them (the same seed, the same puzzles,
byte for byte, on every machine)."""

from __future__ import annotations

from typing import Any

from formats.errors import RaceError
from formats.grid import Grid


def generate(n: int, family: str = "unique", count: int = 1, seed: int = 0,
             **options: Any) -> list[Grid]:
    """``count`` puzzles of box size ``n`` of the instance ``family`` (``unique``: Algorithm 2;
    ``minimal``, ``unsat``, ``multi``, ``holes``, or ``hard``: balanced holes at the hardness
    peak of n), numbers 0..count-1 of the set ``seed``. ``options`` are the family's, as
    ``race generate`` takes them: ``holes=0.6``, ``pattern="balanced"``, ``base=...``,
    ``fill=...``. RaceError for an unknown family, an option it does not take, a bad value, or
    an n it cannot reach."""
    from experiments.harness.instance_families import parse_families
    from generators.puzzle_set import CounterPool, make
    for name, value in (("n", n), ("count", count), ("seed", seed)):
        if not isinstance(value, int) or isinstance(value, bool) or value < (1 if name != "seed" else 0):
            raise RaceError(f"{name} must be an integer >= {1 if name != 'seed' else 0}, got {value!r}")
    if "," in family:
        raise RaceError(f"family {family!r}: one family at a time")
    (chosen,) = parse_families(family, dict(options))
    with CounterPool() as pool:
        return [make(chosen.kind, n, seed, index, pool=pool, **chosen.options_for(n))[0]
                for index in range(count)]
