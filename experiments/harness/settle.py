"""One answer's claim checked in this process (``race solve``, ``count``, ``decode`` and the
Python API): what the campaign's referee (:mod:`experiments.harness.referee`) does for a
cell, for a :class:`solvers.interface.Result` in hand."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from experiments.harness.confirmer import SOLVED, UNKNOWN, UNSAT, WRONG, confirmer_for
from experiments.harness.referee import (
    Truth,
    proof_refutes,
    record_disputes,
    record_is_wrong,
)
from formats.grid import Grid


def settle(grid: Grid, result: Any, method: str, checks_counts: bool, limit: int | None,
           create: Callable[[str], Any], truth: Truth | None = None, name: str = "",
           who: str = "the solver") -> tuple[Any, list[str]]:
    """``race solve``, ``count`` and ``decode``: the :class:`solvers.interface.Result`
    ``result`` of a solver of family ``method`` on ``grid`` (counted up to ``limit``), its
    claim checked in this process; and the warnings (:func:`record_is_wrong`) about the file
    ``name`` whose record (``truth``) the check showed wrong. ``create(spec)`` makes the
    second method's solver; ``who`` names the solver in the warnings.

    * A verified grid is proof: it stands whatever the record says, and so do the verified
      solutions the file holds (:func:`proof_refutes`: a smaller count, or "none", is wrong).
    * "No solution" is confirmed by the second method (:func:`confirmer_for`) whatever the
      file says: refuted, it is ``wrong``; undecided, ``unknown`` (no answer).
    * A count is counted again by another method (exact cover, or SAT for exact cover) when
      the record disputes it (:func:`record_disputes`) or when ``checks_counts`` (a program's
      or a plugin's count); where the two differ, the claim is ``wrong``.
    """
    from dataclasses import replace

    from solvers.interface import CLUES_CONFLICT
    truth = truth or Truth()
    notes: list[str] = []

    def flag(claim: str, why: str) -> None:
        if not notes:
            notes.append(record_is_wrong(name, claim, why))

    if result.status not in (SOLVED, UNSAT):
        return result, notes
    why = proof_refutes(result.count, result.complete, limit, truth)
    if why is not None:
        return replace(result, status=WRONG, verified=False, message=why), notes
    disputed = record_disputes(result.count, result.complete, limit, truth)
    if result.status == UNSAT:
        if result.message == CLUES_CONFLICT:           # the rules core's own proof
            if disputed:
                flag(disputed, "its clues conflict")
            return result, notes
        by = confirmer_for(method)
        check = create(by).solve(grid)
        if check.status == SOLVED:
            if truth.count == 0:
                flag(truth.claim, f"{by} found a verified solution")
            return replace(result, status=WRONG, verified=False,
                           message=f"claimed no solution, but {by} found a verified solution "
                                   "(the second method that checks every no-solution claim)"), notes
        if check.status != UNSAT:
            return replace(result, status=UNKNOWN, verified=False,
                           message=f"claimed no solution, but {by}, the second method that "
                                   "checks every no-solution claim, could not confirm it "
                                   f"({check.message or check.status})"), notes
        if disputed:
            flag(disputed, f"{by} confirmed that it has none")
        return replace(result, message=result.message or f"confirmed by {by}"), notes
    # a verified grid (the interface checked it): proof of one solution at least
    if truth.count == 0:
        flag(truth.claim, f"{who} returned a verified solution")
    elif truth.count == 1 and truth.solution is not None and result.solution is not None \
            and result.solution != truth.solution:
        flag(truth.claim, f"{who} returned another verified solution")
    if limit == 1 or not ((disputed and truth.count != 0) or (checks_counts and result.complete)):
        return result, notes
    # counting: exact cover counts fastest, so it checks every count but its own
    by = "dlx" if method != "exact-cover" else "sat"
    check = create(by).count(grid, limit)
    if check.status not in (SOLVED, UNSAT) or not check.complete:
        return result, notes                           # not settled: the solver's count stands
    if check.count != result.count if result.complete else check.count < result.count:
        return replace(result, status=WRONG, verified=False,
                       message=f"claimed {'' if result.complete else 'at least '}{result.count} "
                               f"solution(s), but {by} counted {check.count}"
                               f"{' (limit reached)' if check.limit_hit else ''}"), notes
    if record_disputes(check.count, True, limit, truth):
        flag(truth.claim, f"{who} and {by} both counted {check.count}"
                          f"{' (limit reached)' if check.limit_hit else ''}")
    return result, notes
