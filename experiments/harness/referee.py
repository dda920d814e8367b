"""The referee: no claim a solver makes counts before it is checked, and no header outranks
a verified grid.

A solver can claim three things about a puzzle, and each is checked against the puzzle
itself, never against the solver's word or the other entrants' majority. What an instance
file records is of two sorts (:class:`Truth`): *proof*, the solutions it holds, which count
only once verified here, and *claims*, the words of its header (``kind=unsat``, an import's
``solutions=0|1|many``, ``kind=unique``), which never settle anything on their own.

* **a solution**: the grid the worker sends back is verified again here, in the parent
  (:func:`solvers.rules.is_solution_of`, clues included). A verified grid settles every
  disagreement: it is proof. Where it contradicts the file's header (which says there is
  none, or exactly one and records another), the cell stands and the *record* is flagged
  as wrong: the row's ``referee`` column says so and the run warns, naming the file.
* **no solution** (``unsat``): a verified solution the file holds, or a verified grid
  another entrant returned in this run, make the claim ``wrong`` at once, and the message
  names the evidence. Otherwise, whatever the header says, the claim is confirmed once per
  instance by a second, independent method of another solver family (:func:`confirmer_for`),
  outside the measured time, in a process of its own under a time limit: confirmed, the
  claim stands ("confirmed by sat"; a header that said there are solutions is flagged);
  refuted, it is ``wrong``; neither within the limit, it is ``unknown`` (censored, never an
  answer).
* **a count** (``race count``): :func:`settle`, against the verified solutions the file
  holds (:func:`proof_refutes`), and counted again by another method where the header
  disputes it (:func:`record_disputes`) or the counter is not a built-in one.

The confirmer (:mod:`experiments.harness.confirmer`) runs in a process of its own.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from experiments.harness.confirmer import (  # noqa: F401
    MIN_CONFIRM_SECONDS,
    SOLVED,
    UNKNOWN,
    UNSAT,
    WRONG,
    Confirmation,
    confirm,
    confirmer_for,
)
from experiments.harness.messages import Measurement
from formats.errors import RaceError, printable
from formats.grid import Grid
from formats.grid_text import (
    PuzzleFile,
    one_line_cells,
    parse,
    parse_compact,
    single_character_cells,
)
from solvers.status import Status


@dataclass(frozen=True)
class Truth:
    """What an instance's file says about its solutions, proof apart from claims.

    Proof (checked here, never taken on the file's word): ``solution``, a verified solution
    the file holds, and ``proven``, the number of distinct verified solutions it holds (0, 1
    or 2). Claims (its header's word: a second method settles them): ``at_least``, a lower
    bound on the number of solutions (``proven`` included); ``count``, the exact number;
    ``unsat``, why it says there is none ("" when it does not). ``evidence`` says what the
    solution or count rests on, ``claim`` what the header says (both for messages)."""
    solution: Grid | None = None
    at_least: int = 0
    count: int | None = None
    unsat: str = ""
    evidence: str = ""
    proven: int = 0
    claim: str = ""


def truth_of(puzzle: PuzzleFile, listed: str | None = None, name: str = "<instance>") -> Truth:
    """What the instance ``puzzle`` (its grid and ``# key=value`` metadata) records.

    Proof: ``solution=`` (a unique puzzle's solution) and ``planted=`` (the solved grid it
    was cut from) count only when they solve the puzzle, and ``second=`` (a multi puzzle's
    other solution) makes two when it solves it too. Claims: ``kind=unique|minimal`` with a
    verified solution says exactly one, ``kind=unsat`` and an import's ``solutions=0`` say
    none, ``solutions=1|many`` give a count; ``listed`` is the ``solutions`` word of the
    set's manifest, and where the file records another, neither counts."""
    from solvers.rules import is_solution_of
    grid, meta = puzzle.grids[0], puzzle.metadata
    solution, proven, evidence, count, claim = None, 0, "", None, ""
    for key in ("solution", "planted"):
        if key in meta:
            try:
                candidate = parse_compact(meta[key], grid.n, name)
            except RaceError:
                continue
            if is_solution_of(grid, candidate):
                unique = key == "solution" and meta.get("kind") in ("unique", "minimal")
                solution, proven = candidate, 1
                evidence = (f"the instance records its solution (`{key}=` in {name})"
                            if key == "solution" else
                            f"the solved grid it was cut from solves it (`planted=` in {name})")
                if unique:
                    count, claim = 1, f"exactly one solution (kind={meta.get('kind')})"
                elif _second_solution(grid, candidate, meta.get("second"), name):
                    proven = 2
                    evidence = (f"the instance records two different solutions (`{key}=` and "
                                f"`second=` in {name})")
                break
    at_least, unsat = proven, ""
    recorded = meta.get("solutions", "")
    word = listed if listed not in (None, "", "unchecked") else recorded
    if recorded and word != recorded:   # the manifest and the file disagree: neither is proof
        word = ""                       # (a claim is then confirmed by the second method)
    if word == "0":
        count, unsat, claim = 0, f"counted 0 solutions when imported ({name})", \
            "no solution (solutions=0)"
    elif word == "1":
        at_least, count, claim = max(at_least, 1), 1, "exactly one solution (solutions=1)"
        evidence = evidence or f"counted 1 solution when imported ({name})"
    elif word == "many":
        at_least, claim = max(at_least, 2), "two or more solutions (solutions=many)"
        evidence = evidence or f"counted 2 or more solutions when imported ({name})"
    elif meta.get("kind") == "unsat":
        count, claim = 0, "no solution (kind=unsat)"
        unsat = ("generated unsatisfiable (kind=unsat: a unique puzzle plus one clue its "
                 "only solution contradicts)")
    return Truth(solution, at_least, count, unsat, evidence, proven, claim)


def _cap(k: int, limit: int | None) -> int:
    return k if limit is None else min(k, limit)


def proof_refutes(count: int, complete: bool, limit: int | None, truth: Truth) -> str | None:
    """Why the verified solutions the instance holds (``truth.proven``: proof) refute a claim
    of ``count`` solutions, exact when ``complete`` (else a lower bound), counted up to
    ``limit``; None when they do not."""
    if not truth.proven or not complete:
        return None
    if count == 0:
        return f"claimed no solution, but {truth.evidence}"
    if count < _cap(truth.proven, limit):
        return f"claimed exactly {count} solution(s), but {truth.evidence}"
    return None


def record_disputes(count: int, complete: bool, limit: int | None, truth: Truth) -> str | None:
    """What the instance's header claims (not proof) where it disagrees with a claim of
    ``count`` solutions (exact when ``complete``, counted up to ``limit``); None when it
    agrees or claims nothing. A dispute is settled by a verified grid or a second method,
    never by the header."""
    if not truth.claim:
        return None
    known = truth.count
    if known is not None and (count > _cap(known, limit)
                              or (complete and count != _cap(known, limit))):
        return truth.claim
    if complete and count < _cap(truth.at_least, limit):
        return truth.claim
    return None


def record_is_wrong(name: str, claim: str, why: str) -> str:
    """The warning that the instance file ``name`` records something false: it says
    ``claim``, and ``why`` (a verified grid, a second method) shows otherwise."""
    return (f"race: warning: {printable(name)}: the file's record is wrong: it says "
            f"{claim}, but {why}")


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


#: the ``# key=value`` words of an instance's header that a verified grid can contradict
_PROOF_KEYS = ("solution", "planted", "second")
#: a key line of a puzzle file's header (``# key=value``; the key up to the first ``=``)
_KEY_LINE = re.compile(r"^#([^=\n]*)=([^\n]*)$", re.M)


def _plain(text: str, listed: str | None) -> bool:
    """Whether the puzzle file ``text`` records nothing a verified grid could show wrong: no
    solution of its own, no "none" (``kind=unsat``, ``solutions=0``, or ``listed`` "0": what
    its set's manifest says). Its key lines (``# key=value``, the last of a key counts) read
    in one pass: the referee asks this of every instance of a race."""
    meta = {key.strip(): value for key, value in _KEY_LINE.findall(_key_lines(text))}
    solutions = (meta.get("solutions") or "").strip()
    word = listed if listed not in (None, "", "unchecked") else solutions
    return (not any(k in meta for k in _PROOF_KEYS) and (meta.get("kind") or "").strip() != "unsat"
            and word != "0" and solutions != "0")


def _key_lines(text: str) -> str:
    """The part of a puzzle file ``text`` that holds its key lines: its leading ``#`` lines
    when no ``#`` follows them (a file as the generators and ``race import`` write it), else
    the whole text."""
    end = 0
    while text.startswith("#", end):
        line_end = text.find("\n", end)
        if line_end < 0:
            return text
        end = line_end + 1
    return text if "#" in text[end:] else text[:end]


class _Case:
    """What the referee knows of one instance: its text and file name (the puzzle and what it
    records are read from it at first need), a verified grid seen in this run, and the
    confirmation of a no-solution claim once made."""

    def __init__(self, text: str, name: str = "", listed: str | None = None) -> None:
        self.text, self.name, self.listed = text, name, listed
        self.found: Grid | None = None
        #: a verified grid seen in this run, as the one-line text it came in (before ``found``
        #: is made of it)
        self.found_text: str | None = None
        self.found_by = ""
        self.confirmations: dict[str, Confirmation] = {}
        self._puzzle: PuzzleFile | None = None
        self._truth: Truth | None = None
        #: the puzzle's cells as one line when each is one character (the batch check)
        self.cells = single_character_cells(text)
        #: whether the file records nothing a verified grid could show wrong (:func:`_plain`)
        self.plain = _plain(text, listed)

    @property
    def puzzle(self) -> PuzzleFile:
        if self._puzzle is None:
            self._puzzle = parse(self.text, self.name)
        return self._puzzle

    @property
    def grid(self) -> Grid:
        return self.puzzle.grids[0]

    @property
    def truth(self) -> Truth:
        if self._truth is None:
            self._truth = truth_of(self.puzzle, self.listed, self.name)
        return self._truth

    def seen(self) -> Grid | None:
        """The verified grid seen in this run, if any."""
        if self.found is None and self.found_text is not None:
            self.found = parse_compact(self.found_text, self.grid.n)
        return self.found


class Referee:
    """Checks the claim of every finished cell (see the module docstring); one per run.
    ``timeout`` is the campaign's limit per cell, which a confirmation also gets (at
    least :data:`MIN_CONFIRM_SECONDS`). ``wrong_records`` maps the file name of each
    instance whose record a verified grid or the second method showed wrong to the
    warning that says so (the run prints them; the rows' ``referee`` column says it too)."""

    def __init__(self, timeout: float,
                 confirm_fn: Callable[[Grid, str, float], Confirmation] = confirm) -> None:
        self.timeout = max(float(timeout), MIN_CONFIRM_SECONDS)
        self.confirm = confirm_fn
        self.cases: dict[str, _Case] = {}
        self.wrong_records: dict[str, str] = {}

    def case(self, key: str, text: str, name: str, listed: str | None = None) -> _Case:
        """The instance ``key`` (its sha256 or path) of text ``text`` (read at first need)."""
        if key not in self.cases:
            self.cases[key] = _Case(text, name, listed)
        return self.cases[key]

    @staticmethod
    def check_many(answers: list[tuple[_Case, str]]) -> list[bool | None]:
        """Whether each returned grid (one-line text) solves its case's puzzle, for many at
        once (:func:`solvers.rules.are_solutions_of`, vectorised): True or False where the
        puzzle's cells are one character each (:attr:`_Case.cells`), None where the check is
        :meth:`judge`'s own."""
        from solvers.rules import are_solutions_of
        verdicts: list[bool | None] = [None] * len(answers)
        groups: dict[int, list[int]] = {}
        for at, (case, sent) in enumerate(answers):
            if case.cells is not None and isinstance(sent, str) and len(sent) == len(case.cells):
                groups.setdefault(len(sent), []).append(at)
        for size, places in groups.items():
            n = 3 if size == 81 else 2
            solved = one_line_cells([answers[a][1] for a in places], n)
            puzzles = one_line_cells([answers[a][0].cells or "" for a in places], n)
            if solved is None or puzzles is None:       # a bad character: judged one by one
                continue
            for at, good in zip(places, are_solutions_of(puzzles, solved, n).tolist()):
                verdicts[at] = bool(good)
        return verdicts

    def judge(self, case: _Case, outcome: Measurement, entrant: str, method: str,
              checked: bool | None = None) -> Measurement:
        """The measurement of a cell of ``entrant`` (solver family ``method``) with its claim
        checked: its ``status``, ``verified``, ``message`` and ``referee`` set here, its grid
        let go. ``checked``: :meth:`check_many`'s verdict on its grid, where it gave one."""
        sent, outcome.solution = outcome.solution, None
        status = outcome.status
        if status == SOLVED:
            if checked is not None and (not checked or case.plain):
                return self._checked(case, outcome, sent, entrant, checked)
            return self._solved(case, outcome, sent, entrant)
        if status == UNSAT:
            return self._unsat(case, outcome, method)
        outcome.verified = False
        return outcome

    def _flag(self, case: _Case, claim: str, why: str) -> str:
        """Record that ``case``'s file says ``claim`` and ``why`` shows it wrong; the words
        for the row's referee column."""
        self.wrong_records.setdefault(case.name, record_is_wrong(case.name, claim, why))
        return f"the instance's record is wrong (it says {claim})"

    def _checked(self, case: _Case, outcome: Measurement, sent: str | None, entrant: str,
                 good: bool) -> Measurement:
        """A returned grid checked by :meth:`check_many`, of a puzzle whose file records
        nothing the grid could contradict (:attr:`_Case.plain`)."""
        if not good:
            return _wrong(outcome, "the harness could not verify the returned grid against the "
                                   "puzzle")
        if case.found is None and case.found_text is None:
            case.found_text, case.found_by = sent, entrant
        outcome.verified = True
        outcome.referee = "verified grid"
        return outcome

    def _solved(self, case: _Case, outcome: Measurement, sent: str | None, entrant: str
                ) -> Measurement:
        from solvers.rules import is_solution_of
        try:
            grid = parse_compact(sent, case.grid.n) if sent else None
        except RaceError:
            grid = None
        if grid is None or not is_solution_of(case.grid, grid):
            return _wrong(outcome, "the harness could not verify the returned grid against the "
                                   "puzzle")
        if case.seen() is None:
            case.found, case.found_by = grid, entrant
        outcome.verified = True
        truth = case.truth
        outcome.referee = "verified grid"
        if truth.count == 0:                       # a verified grid outranks the header
            outcome.referee += "; " + self._flag(case, truth.claim, f"{entrant} returned a "
                                                 "verified solution")
        elif truth.count == 1 and truth.solution is not None and grid != truth.solution:
            outcome.referee += "; " + self._flag(case, truth.claim, f"{entrant} returned "
                                                 "another verified solution")
        return outcome

    def _unsat(self, case: _Case, outcome: Measurement, method: str) -> Measurement:
        outcome.verified = False
        truth = case.truth
        if truth.proven:
            return _wrong(outcome, f"claimed no solution, but {truth.evidence}")
        if case.seen() is not None:
            return _wrong(outcome, f"claimed no solution, but {case.found_by} returned a verified "
                                   "solution of this instance in this run")
        # whatever the file says (kind=unsat, solutions=0 are claims), a second method decides
        by = confirmer_for(method)
        if by not in case.confirmations:
            case.confirmations[by] = self.confirm(case.grid, by, self.timeout)
        verdict = case.confirmations[by]
        if verdict.status == UNSAT:
            outcome.referee = f"no solution confirmed by {by}"
            if truth.at_least:
                outcome.referee += "; " + self._flag(case, truth.claim, f"{by} confirmed "
                                                     "that it has none")
            return outcome
        if verdict.status == SOLVED:
            if case.seen() is None:
                case.found, case.found_by = verdict.solution, f"the confirmer ({by})"
            if truth.count == 0:
                self._flag(case, truth.claim, f"{by} found a verified solution")
            return _wrong(outcome, f"claimed no solution, but {by} found a verified solution")
        outcome.status, outcome.verified = Status.UNKNOWN, False
        outcome.referee = f"no-solution claim not confirmed by {by}: {verdict.detail}"
        outcome.message = ("claimed no solution; the claim could not be confirmed "
                           f"({by}: {verdict.detail}), so it does not count")
        return outcome


def _wrong(outcome: Measurement, why: str) -> Measurement:
    outcome.status, outcome.verified = Status.WRONG, False
    outcome.message = outcome.referee = why
    return outcome
