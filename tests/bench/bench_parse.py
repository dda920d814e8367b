"""Parse speed of the hardened readers: a 400x400 native grid with 3-digit
tokens and a DIMACS formula, each read through the project's reader (validation,
ASCII-only digits, bounds, line numbers for errors) against a bare numpy tokenizer
on the same bytes (split on whitespace, convert to integers: no checks at all).

The ratio says what the checks cost; a reader that regresses to per-token Python
work shows up as a large ratio. Measured on the shared 2-core machine: native 2.1x,
DIMACS 1.3x the bare tokenizer; the readers before the hardening took 457 ms and
3.2 s on the same files (about 5x and 3x). The targets (4x, 2.5x) leave room for
noise and fail on a return to that speed.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from targets import Targets  # noqa: E402
from timing import per_call  # noqa: E402

from formats import dimacs, grid_text  # noqa: E402
from formats.grid import Grid  # noqa: E402
from solvers import rules  # noqa: E402
from solvers.sat import sudoku_cnf


def native_text(n: int, seed: int) -> str:
    """A solved pattern grid of box size n with a third of its cells blanked, native format."""
    rng = np.random.default_rng(seed)
    cells = rules.pattern_solution(n).copy()
    cells[rng.random(cells.shape) < 1 / 3] = 0
    return grid_text.format_native(Grid(n, cells))


def dimacs_bytes(n: int, seed: int) -> bytes:
    rng = np.random.default_rng(seed)
    cells = rules.pattern_solution(n).copy()
    cells[rng.random(cells.shape) < 0.6] = 0
    formula = sudoku_cnf.encode(Grid(n, cells), "extended")
    return dimacs.dumps(formula.nvars, formula.blocks)


def main() -> None:
    targets = Targets(__file__, "numpy whitespace tokenizer on the same bytes (no validation), "
                      "whole call each side, same min time and repeats",
                      "bare numpy tokenizer")
    text = native_text(20, 1)
    ours, grid = per_call(lambda: grid_text.parse(text, "bench.sudoku"), min_time=0.5, repeats=5)
    rows = "\n".join(line for line in text.splitlines() if not line.startswith("#"))
    bare, tokens = per_call(lambda: np.array(rows.replace(".", "0").split(), dtype=np.int64),
                            min_time=0.5, repeats=5)
    assert grid.grids[0].cells.size == tokens.size == 400 * 400
    print(f"400x400 native ({len(text):,} bytes): ours {ours * 1e3:.1f} ms, bare {bare * 1e3:.1f} ms")
    targets.at_most("400x400 native grid: ours/bare", ours / bare, 4.0)

    data = dimacs_bytes(5, 1)
    ours, parsed = per_call(lambda: dimacs.parse(data, "bench.cnf"), min_time=0.5, repeats=5)
    body = data[data.index(b"p cnf"):]
    bare, _ = per_call(lambda: np.array(body.split()[4:], dtype=np.int64), min_time=0.5, repeats=5)
    print(f"DIMACS n=5 extended ({len(data):,} bytes, {parsed.offsets.size - 1:,} clauses): "
          f"ours {ours * 1e3:.1f} ms, bare {bare * 1e3:.1f} ms")
    targets.at_most("DIMACS n=5 extended: ours/bare", ours / bare, 2.5)
    targets.exit()


if __name__ == "__main__":
    main()
