"""Several puzzles of a set made at once, one per process (``race run -j``: its instances).

Each puzzle of a set comes from its own seeded streams (:mod:`generators.puzzle_set`), so which
process makes it, and in which order, changes no file. The processes are forked from the caller
(as :mod:`generators.speculative_removal`'s workers are: warm at once, and no main module is
imported again); each writes its puzzle files and returns their manifest rows.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import as_completed
from pathlib import Path
from typing import Any

from solvers.processes.control import pool as process_pool


def make_rows(make_row: Callable[..., dict[str, str]], indices: list[int], jobs: int,
              set_key: tuple[str, int, int], where: tuple[Path, dict, str],
              bar: Any = None) -> dict[str, dict[str, str]]:
    """The manifest rows of puzzles ``indices`` of the set ``set_key`` (kind, n, seed), made by
    ``make_row(kind, n, seed, index, out_dir, options, stem)`` in ``jobs`` processes; ``bar``
    (a tqdm bar or None) advances as each puzzle is written. A puzzle whose process fails
    raises its error here, as one made in this process would."""
    kind, n, seed = set_key
    out_dir, options, stem = where
    rows: dict[str, dict[str, str]] = {}
    # the processes die with the race: a killed race leaves none making files behind it
    with process_pool(jobs) as pool:
        futures = [pool.submit(make_row, kind, n, seed, index, out_dir, options, stem)
                   for index in indices]
        try:
            for future in as_completed(futures):
                row = future.result()
                rows[row["file"]] = row
                if bar is not None:
                    bar.update(1)
        except BaseException:
            for future in futures:
                future.cancel()
            raise
    return rows
