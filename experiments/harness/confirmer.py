"""The second method that confirms (or refutes) a solver's "no solution" claim for the referee
(:mod:`experiments.harness.referee`): another solver family's entrant (:func:`confirmer_for`),
run in a process of its own under a time limit, its solution verified here.

The confirmer runs as ``python -m experiments.harness.confirmer METHOD`` with the puzzle on
stdin and prints one JSON line: ``{"status": ..., "solution": compact grid or null}``.
"""

from __future__ import annotations

import json
import sys
import tempfile
from dataclasses import dataclass

from formats.errors import RaceError
from formats.grid import Grid
from formats.grid_text import format_compact, parse_compact
from solvers.status import Status

#: the statuses of a confirmation (plain words, the values of :class:`solvers.status.Status`)
SOLVED, UNSAT, UNKNOWN, WRONG = (Status.SOLVED.value, Status.UNSAT.value, Status.UNKNOWN.value,
                                 Status.WRONG.value)

#: the solver families (:attr:`solvers.interface.Solver.method`) and the independent
#: method that confirms a no-solution claim of each: SAT checks everything but SAT,
#: which exact cover checks
CONFIRMERS = {"sat": "dlx"}
DEFAULT_CONFIRMER = "sat"
#: the shortest time a confirmation is given (s), whatever the campaign's limit
MIN_CONFIRM_SECONDS = 5.0



def confirmer_for(method: str) -> str:
    """The entrant that confirms a no-solution claim of a solver of family ``method``."""
    return CONFIRMERS.get(method, DEFAULT_CONFIRMER)


@dataclass
class Confirmation:
    """The second method's verdict on a puzzle: ``status`` solved / unsat / unknown, its
    ``solution`` (verified here) and who gave it (``by``)."""
    status: str
    by: str
    solution: Grid | None = None
    detail: str = ""


def confirm(grid: Grid, by: str, timeout: float) -> Confirmation:
    """Solve ``grid`` with the entrant ``by`` in a process of its own (killed with its group
    past ``timeout`` seconds); its solution is verified here."""
    from solvers.processes.limited import run_limited
    from solvers.rules import is_solution_of
    with tempfile.TemporaryFile() as stdin:
        stdin.write(format_compact(grid).encode() + b"\n" + str(grid.n).encode() + b"\n")
        stdin.seek(0)
        done = run_limited([sys.executable, "-m", "experiments.harness.confirmer", by],
                           stdin=stdin, timeout=timeout)
    if done.timed_out:
        return Confirmation(UNKNOWN, by, detail=f"no answer within {timeout:g} s")
    try:
        reply = json.loads(done.stdout.decode().strip().splitlines()[-1])
        status = reply["status"]
        solution = parse_compact(reply["solution"], grid.n) if reply.get("solution") else None
    except (ValueError, KeyError, IndexError, TypeError, RaceError, UnicodeDecodeError):
        tail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
        return Confirmation(UNKNOWN, by, detail=f"the confirmer failed ({tail[0][:120]})")
    if status == SOLVED:
        if solution is not None and is_solution_of(grid, solution):
            return Confirmation(SOLVED, by, solution)
        return Confirmation(UNKNOWN, by, detail="the confirmer's grid failed verification")
    return Confirmation(status if status == UNSAT else UNKNOWN, by)


def main(argv: list[str]) -> int:
    """The confirmer process: solve the puzzle on stdin with entrant ``argv[0]``."""
    from solvers.registry import create
    text, n = sys.stdin.read().split()
    grid = parse_compact(text, int(n))
    result = create(argv[0]).solve(grid)
    solution = format_compact(result.solution) if result.solution is not None else None
    print(json.dumps({"status": result.status, "solution": solution}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
