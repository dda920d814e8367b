"""SAT benchmark: encoding sizes and costs for n = 3..8 (and 10), solve time per backend.

Run: ``.venv/bin/python tests/bench/bench_sat.py`` (``make bench``). Prints

1. a table per (n, encoding): variables, clauses, DIMACS bytes, encode time,
   write time, and the search time of cadical195 and glucose4 (PySAT
   in-process: loading the clauses plus solving) and of the kissat binary
   (its whole run: parsing plus solving); "t/o" = no answer within the
   per-cell budget, "skip" = not run (why is printed below the table);
2. target 1: DIMACS writing vs PySAT's ``CNF.to_file`` on the same clauses;
3. target 2: the incremental uniqueness check vs a fresh solver per check;
4. the fastest encoding per n (encode + best search), which fixes the
   default encoding of the ``sat`` entrant.

Instances: n = 3 is the first puzzle of tests/data/hard9.txt; larger n blank
a fraction of the cells of a shuffled pattern grid (seeded): 60% for n = 4, 5
and 30% above (random blanks near 40-50% make large grids hard for every
solver, the quasigroup-with-holes phase transition, and this table is about
the encodings, not that peak); at 30% the clue propagation of ``reduced``
already decides almost everything, so n = 6 also gets a 75%-blank row where
the SAT solver has real work left.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from conftest import full_grid, puzzle_from          # noqa: E402
from formats import dimacs, grid_text                # noqa: E402
from formats.grid import Grid                        # noqa: E402
from solvers import sat_backends, sudoku_cnf         # noqa: E402
from solvers.sat_counting import IncrementalCounter, enumerate_models, pysat_solver  # noqa: E402

TIMEOUT = 10.0                 # seconds per solve cell
IN_PROCESS_MAX_CLAUSES = 3_000_000   # beyond this PySAT needs GBs: kissat only (via DIMACS)
MINIMAL_MAX_N = 4              # minimal beyond n=4: every solver times out (pigeonhole)
BACKENDS = ("cadical195", "glucose4", "kissat")


def instance(n: int, blanks: float | None = None) -> tuple[Grid, str]:
    if n == 3:
        return grid_text.read(ROOT / "tests/data/hard9.txt").grids[0], "hard9#1"
    blanks = blanks or (0.6 if n <= 5 else 0.3)
    rng = np.random.default_rng(1000 + n)
    return puzzle_from(full_grid(n, rng), blanks, rng), f"{int(blanks * 100)}% blank"


def solve_cell(backend: str, formula, cnf_path: str | None) -> tuple[str, float | None]:
    """Search time of one backend on one formula, or a reason it was not run."""
    if backend == "kissat":
        runner = sat_backends.backend("kissat")
        answer, _, seconds = runner.solve_file(cnf_path, formula.nvars, TIMEOUT)
        if answer is None or answer.status == "UNKNOWN":
            return "t/o", None
        grid = sudoku_cnf.decode(formula, answer.model[answer.model > 0])
        return ("ok" if grid.empties() == 0 else "bad"), seconds
    if formula.nclauses > IN_PROCESS_MAX_CLAUSES:
        return "skip", None
    found = sat_backends.backend(backend).enumerate(formula, 1, TIMEOUT)
    if not found.complete or not found.models:
        return "t/o", None
    return "ok", found.times["search"]


def main() -> None:
    sat_backends.backend("kissat")                     # fail early if kissat is missing
    dimacs.dumps(1, [np.array([[1, -1]], np.int32)])   # compile the writer outside the timings
    print(f"SAT encodings (solve budget {TIMEOUT:g} s per cell; times in seconds)")
    head = (f"{'n':>2} {'instance':>10} {'encoding':>9} {'vars':>9} {'clauses':>10} {'DIMACS MB':>9} "
            f"{'encode':>7} {'write':>7} " + " ".join(f"{b:>10}" for b in BACKENDS))
    print(head)
    print("-" * len(head))
    notes = set()
    best: dict[tuple[int, str], list[tuple[float, str]]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-sat-") as tmp:
        for n, blanks in ((3, None), (4, None), (5, None), (6, None), (6, 0.75), (7, None),
                          (8, None), (10, None)):
            grid, label = instance(n, blanks)
            wanted = (("reduced",) if n == 10 else ("extended", "reduced") if blanks
                      else sudoku_cnf.ENCODINGS)
            for encoding in wanted:
                if encoding == "extended" and n == 8:
                    notes.add("n=8 extended: 33M clauses, 0.6 GB of DIMACS; PySAT in-process "
                              "would need 6+ GB, so kissat only")
                t0 = time.perf_counter()
                formula = sudoku_cnf.encode(grid, encoding)
                encode_s = time.perf_counter() - t0
                cnf = os.path.join(tmp, "f.cnf")
                t0 = time.perf_counter()
                size = dimacs.write_formula(cnf, formula)
                write_s = time.perf_counter() - t0
                cells = []
                for backend in BACKENDS:
                    if encoding == "minimal" and n > MINIMAL_MAX_N:
                        cells.append("skip")
                        notes.add(f"minimal beyond n={MINIMAL_MAX_N}: not solved (every solver "
                                  "times out: no at-most-one per unit, pigeonhole reasoning)")
                        continue
                    status, seconds = solve_cell(backend, formula, cnf)
                    if status == "skip":
                        notes.add(f"in-process PySAT skipped above {IN_PROCESS_MAX_CLAUSES:,} "
                                  "clauses (memory); the kissat column goes through DIMACS")
                    cells.append(f"{seconds:.3f}" if seconds is not None else status)
                    if seconds is not None:
                        best.setdefault((n, label), []).append((encode_s + seconds, f"{encoding}+{backend}"))
                os.remove(cnf)
                print(f"{n:>2} {label:>10} {encoding:>9} {formula.nvars:>9} {formula.nclauses:>10} "
                      f"{size / 1e6:>9.2f} {encode_s:>7.3f} {write_s:>7.3f} "
                      + " ".join(f"{c:>10}" for c in cells), flush=True)
                del formula
    for note in sorted(notes):
        print(f"  note: {note}")
    print("\nFastest encoding+backend per instance (encode + search):")
    for (n, label), entries in best.items():
        total, what = min(entries)
        print(f"  n={n:>2} {label:>10}: {what} ({total:.3f} s)")

    print("\nTarget 1: DIMACS writer vs PySAT CNF.to_file (same clauses, >= 5x)")
    from pysat.formula import CNF
    for n in (5, 6):
        formula = sudoku_cnf.encode(Grid.empty(n), "extended")
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            dimacs.write_formula(os.path.join(tmp, "ours.cnf"), formula)
            ours = time.perf_counter() - t0
            cnf = CNF(from_clauses=list(formula.clauses()))
            t0 = time.perf_counter()
            cnf.to_file(os.path.join(tmp, "pysat.cnf"))
            theirs = time.perf_counter() - t0
        print(f"  n={n} extended, {formula.nclauses:,} clauses: ours {ours:.3f} s, "
              f"PySAT {theirs:.3f} s -> {theirs / ours:.1f}x")
        del cnf, formula

    print("\nTarget 2: IncrementalCounter vs a fresh solver per uniqueness check (>= 10x)")
    for n, blanks, count in ((3, 0.6, 60), (4, 0.5, 30)):
        rng = np.random.default_rng(n)
        puzzles = [puzzle_from(full_grid(n, rng), blanks, rng) for _ in range(count)]
        t0 = time.perf_counter()
        with IncrementalCounter(n) as counter:
            incremental = [counter.count(p, 2) for p in puzzles]
        inc_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        fresh = []
        for p in puzzles:
            formula = sudoku_cnf.encode(p, "extended")
            solver = pysat_solver("cadical195", formula.blocks)
            fresh.append(enumerate_models(solver, formula.nvars, 2)[0])
            solver.delete()
        fresh_s = time.perf_counter() - t0
        assert incremental == fresh, "incremental and fresh counts disagree"
        print(f"  n={n}: {count} checks ({sum(c == 1 for c in fresh)} unique): incremental "
              f"{inc_s:.3f} s (incl. build), fresh {fresh_s:.3f} s -> {fresh_s / inc_s:.1f}x")


if __name__ == "__main__":
    main()
