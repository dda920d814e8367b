"""The referee: no claim a solver makes counts before it is checked.

A solver can claim three things about a puzzle, and each is checked against the puzzle
itself, never against the solver's word or the other entrants' majority:

* **a solution**: the grid the worker sends back is verified again here, in the parent
  (:func:`solvers.rules.is_solution_of`, clues included). A verified grid settles every
  disagreement: it is proof.
* **no solution** (``unsat``): checked against what the instance records (its
  :class:`Truth`): a recorded solution, a planted grid that solves it, a count of one or
  more at import, or a verified grid another entrant returned in this run make the claim
  ``wrong``, and the message names the evidence. Where the instance is recorded as
  unsatisfiable (the ``unsat`` family, an imported puzzle counted at 0) the claim stands
  and the row's ``referee`` column says on what it rests. Where nothing is recorded, the
  claim is confirmed once per instance by a second, independent method of another solver
  family (:func:`confirmer_for`), outside the measured time, in a process of its own under
  a time limit: confirmed, the claim stands ("confirmed by sat"); refuted, it is ``wrong``;
  neither within the limit, it is ``unknown`` (censored, never an answer).
* **a count** (``race count``): :func:`check_count` against the instance's known number
  of solutions.

The confirmer runs as ``python -m experiments.harness.referee METHOD`` with the puzzle on
stdin and prints one JSON line: ``{"status": ..., "solution": compact grid or null}``.
"""

from __future__ import annotations

import json
import sys
import tempfile
from dataclasses import dataclass, field
from typing import Any

from formats.errors import RaceError
from formats.grid import Grid
from formats.grid_text import PuzzleFile, format_compact, parse, parse_compact

SOLVED, UNSAT, UNKNOWN, WRONG = "solved", "unsat", "unknown", "wrong"

#: the solver families (:attr:`solvers.interface.Solver.method`) and the independent
#: method that confirms a no-solution claim of each: SAT checks everything but SAT,
#: which exact cover checks
CONFIRMERS = {"sat": "dlx"}
DEFAULT_CONFIRMER = "sat"
#: the shortest time a confirmation is given (s), whatever the campaign's limit
MIN_CONFIRM_SECONDS = 5.0


@dataclass(frozen=True)
class Truth:
    """What an instance records about its solutions: a verified ``solution`` (or None),
    a lower bound ``at_least`` on their number and the exact ``count`` when known,
    ``unsat`` (why it is known to have none, "" when not known) and ``evidence`` (what
    the solution or count rests on, for messages)."""
    solution: Grid | None = None
    at_least: int = 0
    count: int | None = None
    unsat: str = ""
    evidence: str = ""


def truth_of(puzzle: PuzzleFile, listed: str | None = None, name: str = "<instance>") -> Truth:
    """What the instance ``puzzle`` (its grid and ``# key=value`` metadata) records:
    ``solution=`` (a unique puzzle's solution) and ``planted=`` (the solved grid it was
    cut from) count only when they solve the puzzle, and ``second=`` (a multi puzzle's other
    solution) makes it "two or more" when it solves it too; ``kind=unsat`` and an import's
    ``solutions=0`` mark it unsatisfiable, ``solutions=1|many`` give its count; ``listed``
    is the ``solutions`` word of the set's manifest; where the file records another, neither
    counts (an edited manifest must not make an honest answer wrong)."""
    from solvers.rules import is_solution_of
    grid, meta = puzzle.grids[0], puzzle.metadata
    for key in ("solution", "planted"):
        if key in meta:
            try:
                candidate = parse_compact(meta[key], grid.n, name)
            except RaceError:
                continue
            if is_solution_of(grid, candidate):
                unique = key == "solution" and meta.get("kind") in ("unique", "minimal")
                what = (f"the instance records its solution (`{key}=` in {name})" if key == "solution"
                        else f"the solved grid it was cut from solves it (`planted=` in {name})")
                if not unique and _second_solution(grid, candidate, meta.get("second"), name):
                    return Truth(candidate, 2, None, "",
                                 f"the instance records two different solutions (`{key}=` and "
                                 f"`second=` in {name})")
                return Truth(candidate, 1, 1 if unique else None, "", what)
    recorded = meta.get("solutions", "")
    word = listed if listed not in (None, "", "unchecked") else recorded
    if recorded and word != recorded:   # the manifest and the file disagree: neither is proof
        word = ""                       # (a claim is then confirmed by the second method)
    if word == "0":
        return Truth(unsat=f"counted 0 solutions when imported ({name})")
    if word == "1":
        return Truth(at_least=1, count=1, evidence=f"counted 1 solution when imported ({name})")
    if word == "many":
        return Truth(at_least=2, evidence=f"counted 2 or more solutions when imported ({name})")
    if meta.get("kind") == "unsat":
        return Truth(unsat="generated unsatisfiable (kind=unsat: a unique puzzle plus one clue "
                           "its only solution contradicts)", count=0)
    return Truth()


def _second_solution(grid: Grid, first: Grid, text: str | None, name: str) -> bool:
    """Is ``text`` (a ``second=`` line: a multi puzzle's proof) a solution of ``grid``
    other than ``first``? Checked here, never taken on the file's word."""
    from solvers.rules import is_solution_of
    if not text:
        return False
    try:
        other = parse_compact(text, grid.n, name)
    except RaceError:
        return False
    return is_solution_of(grid, other) and other != first


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
    from solvers.limited_process import run_limited
    from solvers.rules import is_solution_of
    with tempfile.TemporaryFile() as stdin:
        stdin.write(format_compact(grid).encode() + b"\n" + str(grid.n).encode() + b"\n")
        stdin.seek(0)
        done = run_limited([sys.executable, "-m", "experiments.harness.referee", by],
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


@dataclass
class _Case:
    """What the referee knows of one instance: its puzzle, what it records, a verified
    grid seen in this run, and the confirmation of a no-solution claim once made."""
    grid: Grid
    truth: Truth
    found: Grid | None = None
    found_by: str = ""
    confirmations: dict[str, Confirmation] = field(default_factory=dict)


class Referee:
    """Checks the claim of every finished cell (see the module docstring); one per run.
    ``timeout`` is the campaign's limit per cell, which a confirmation also gets (at
    least :data:`MIN_CONFIRM_SECONDS`)."""

    def __init__(self, timeout: float, confirm_fn=confirm) -> None:
        self.timeout = max(float(timeout), MIN_CONFIRM_SECONDS)
        self.confirm = confirm_fn
        self.cases: dict[str, _Case] = {}

    def case(self, key: str, text: str, name: str, listed: str | None = None) -> _Case:
        """The instance ``key`` (its sha256 or path), parsed from ``text`` once."""
        if key not in self.cases:
            puzzle = parse(text, name)
            self.cases[key] = _Case(puzzle.grids[0], truth_of(puzzle, listed, name))
        return self.cases[key]

    def judge(self, case: _Case, outcome: dict[str, Any], entrant: str, method: str
              ) -> dict[str, Any]:
        """The outcome of a cell of ``entrant`` (solver family ``method``) with its claim
        checked: a new dict with ``status``, ``verified``, ``message`` and ``referee``."""
        outcome = dict(outcome)
        sent = outcome.pop("solution", None)
        status = outcome.get("status")
        if status == SOLVED:
            return self._solved(case, outcome, sent, entrant)
        if status == UNSAT:
            return self._unsat(case, outcome, method)
        return outcome

    def _solved(self, case: _Case, outcome: dict[str, Any], sent: Any, entrant: str
                ) -> dict[str, Any]:
        from solvers.rules import is_solution_of
        try:
            grid = parse_compact(sent, case.grid.n) if sent else None
        except RaceError:
            grid = None
        if grid is None or not is_solution_of(case.grid, grid):
            return _wrong(outcome, "the harness could not verify the returned grid against the "
                                   "puzzle")
        if case.found is None:
            case.found, case.found_by = grid, entrant
        outcome["verified"] = True
        if case.truth.unsat:
            outcome["referee"] = (f"verified grid; it contradicts the instance's record "
                                  f"({case.truth.unsat})")
        else:
            outcome["referee"] = "verified grid"
        return outcome

    def _unsat(self, case: _Case, outcome: dict[str, Any], method: str) -> dict[str, Any]:
        truth = case.truth
        if truth.solution is not None or truth.at_least:
            return _wrong(outcome, f"claimed no solution, but {truth.evidence}")
        if case.found is not None:
            return _wrong(outcome, f"claimed no solution, but {case.found_by} returned a verified "
                                   "solution of this instance in this run")
        if truth.unsat:
            outcome["referee"] = truth.unsat
            return outcome
        by = confirmer_for(method)
        if by not in case.confirmations:
            case.confirmations[by] = self.confirm(case.grid, by, self.timeout)
        verdict = case.confirmations[by]
        if verdict.status == UNSAT:
            outcome["referee"] = f"no solution confirmed by {by}"
            return outcome
        if verdict.status == SOLVED:
            if case.found is None:
                case.found, case.found_by = verdict.solution, f"the confirmer ({by})"
            return _wrong(outcome, f"claimed no solution, but {by} found a verified solution")
        outcome.update(status=UNKNOWN, verified=False,
                       referee=f"no-solution claim not confirmed by {by}: {verdict.detail}",
                       message="claimed no solution; the claim could not be confirmed "
                               f"({by}: {verdict.detail}), so it does not count")
        return outcome


def _wrong(outcome: dict[str, Any], why: str) -> dict[str, Any]:
    outcome.update(status=WRONG, verified=False, message=why, referee=why)
    return outcome


def check_count(count: int, complete: bool, limit: int | None, truth: Truth) -> str | None:
    """Why a claimed number of solutions contradicts what the instance records (None when
    it does not). ``complete``: the solver claims it searched everything (so the count is
    exact, or reached ``limit``); otherwise the count is a lower bound."""
    def cap(k: int) -> int:
        return k if limit is None else min(k, limit)
    if truth.unsat and count > 0:
        return f"claimed {count} solution(s), but the instance has none ({truth.unsat})"
    known = 0 if truth.unsat else truth.count
    if known is not None and (count > cap(known) or (complete and count != cap(known))):
        return f"claimed {count} solution(s), but {truth.evidence or truth.unsat} ({known})"
    if complete and count < cap(truth.at_least):
        return f"claimed exactly {count} solution(s), but {truth.evidence}"
    return None


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
