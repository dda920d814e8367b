"""``auto``: the entrant that picks, per puzzle, the method that did best (most answered,
then lowest PAR-2) in the reference campaigns (the default of ``race solve`` and ``race count``).

The rule is the committed table ``solvers/portfolio.csv`` (written by ``race portfolio
CAMPAIGN... -o solvers/portfolio.csv`` in a checkout; without ``-o`` that command writes
``portfolio.csv`` in the current directory; :mod:`experiments.analysis.portfolio` says how it
is learned): one row per
box size n and range of the share of empty cells, naming the entrant to run and why.
A puzzle of box size n takes the rows of n (an n the table lacks: the nearest measured
n, the smaller on a tie, as :mod:`generators.hardness_peaks` does) and the row whose
range holds its share of empty cells. The search is then the picked entrant's own
(its counters and phase times, plus ``choose``); the answer is verified like any other.

``auto:table=PATH`` uses another table (e.g. one learned on this machine). The table may
name an entrant of several cores (``parallel:members=...``): then every cell of ``auto`` in
``race run`` holds that many (:attr:`Auto.cores`). A picked
entrant that cannot run on this machine (the kissat binary missing, say) is replaced by
:data:`FALLBACK`, the in-process SAT entrant, and the reason says so.
"""

from __future__ import annotations

import csv
import shlex
import time
from dataclasses import dataclass
from pathlib import Path

from formats.errors import RaceError
from formats.grid import Grid
from solvers.interface import RawAnswer, Solver

#: the committed rule table
TABLE_PATH = Path(__file__).with_name("portfolio.csv")
REQUIRED = ("n", "empty_from", "empty_to", "entrant")
#: what runs when the picked entrant cannot be created here (e.g. no kissat binary)
FALLBACK = "sat"


@dataclass(frozen=True)
class Rule:
    """Run ``entrant`` on puzzles of box size ``n`` whose share of empty cells is in
    [``empty_from``, ``empty_to``] (``reason``: what the campaign measured)."""
    n: int
    empty_from: float
    empty_to: float
    entrant: str
    reason: str
    campaign: str


def read_rules(path: str | Path = TABLE_PATH) -> list[Rule]:
    """The rules of a portfolio table; RaceError naming the file and line when it is
    missing or malformed."""
    source = Path(path)
    try:
        text = source.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RaceError(f"cannot read the portfolio table ({exc}); write one with "
                        f"`race portfolio CAMPAIGN -o {shlex.quote(str(source))}`", source=str(source)) from None
    reader = csv.DictReader(text.splitlines())
    missing = [c for c in REQUIRED if c not in (reader.fieldnames or [])]
    if missing:
        raise RaceError(f"missing column(s) {', '.join(missing)} (expected {', '.join(REQUIRED)}, ...)",
                        source=str(source), line=1)
    rules = []
    for line, row in enumerate(reader, start=2):
        try:
            rule = Rule(int(row["n"]), float(row["empty_from"]), float(row["empty_to"]),
                        row["entrant"].strip(), (row.get("reason") or "").strip(),
                        (row.get("campaign") or "").strip())
        except (TypeError, ValueError):
            raise RaceError("expected n (integer), empty_from and empty_to (numbers), entrant",
                            source=str(source), line=line) from None
        if not rule.entrant or _picks(rule.entrant) or rule.n < 1 \
                or not 0 <= rule.empty_from <= rule.empty_to <= 1:
            raise RaceError("expected n >= 1, 0 <= empty_from <= empty_to <= 1 and an entrant other "
                            "than auto (nor a parallel entrant with an auto member)",
                            source=str(source), line=line)
        rules.append(rule)
    if not rules:
        raise RaceError("no rule in the portfolio table", source=str(source))
    return rules


def _picks(entrant: str) -> bool:
    """Whether ``entrant`` is ``auto``, or a ``parallel`` entrant with an ``auto`` member (which
    would pick from a table again, without end)."""
    name = entrant.split(":")[0].strip()
    if name == "auto":
        return True
    if name != "parallel":
        return False
    from solvers.parallel import split_members
    from solvers.registry import parse_spec
    try:
        members = str(parse_spec(entrant)[1].get("members", ""))
        return any(member.split(":")[0].strip() == "auto" for member in split_members(members))
    except RaceError:
        return False            # a malformed member: creating the entrant says what is wrong


def choose(rules: list[Rule], n: int, empty: float) -> tuple[Rule, int]:
    """The rule for a puzzle of box size ``n`` with a share ``empty`` of empty cells, and
    the n whose rules were used (the nearest measured n, the smaller on a tie)."""
    measured = sorted({r.n for r in rules})
    used = min(measured, key=lambda m: (abs(m - n), m))
    mine = sorted((r for r in rules if r.n == used), key=lambda r: r.empty_from)
    for rule in mine:
        if empty < rule.empty_to:
            return rule, used
    return mine[-1], used


def explain(rule: Rule, n: int, used: int, empty: float) -> str:
    """Why ``rule`` was picked, in one line."""
    side = n * n
    where = f"n = {n} ({side}x{side}), {100 * empty:.0f}% empty"
    nearest = "" if used == n else f"; n = {n} is not in the table, so the rules of the nearest n = {used}"
    span = f"{100 * rule.empty_from:.0f}-{100 * rule.empty_to:.0f}% empty"
    source = f" in campaign {rule.campaign}" if rule.campaign else ""
    return (f"{where}: the rule for n = {used}, {span} picks {rule.entrant}{nearest} "
            f"({rule.reason}{source})")


class Auto(Solver):
    """Per puzzle, the entrant that did best at its n and share of empty cells (solvers/portfolio.csv)."""
    name = "auto"
    #: it picks another entrant per puzzle (:meth:`pick_for`): ``race solve`` resolves it first
    picks = True
    #: the picked entrant's counters and phases, plus the time to choose it
    phases = ("choose",)
    parameters = {"table": ("", None)}

    def __init__(self, **params: object) -> None:
        super().__init__(**params)
        self.rules = read_rules(self.params["table"] or TABLE_PATH)
        self._solvers: dict[str, Solver] = {}
        self.last_choice: tuple[str, str] | None = None

    def pick(self, n: int, empty: float) -> tuple[str, str]:
        """(entrant spec, why) for a puzzle of box size ``n`` with share ``empty`` empty;
        :data:`FALLBACK` when the rule's entrant cannot be created on this machine."""
        rule, used = choose(self.rules, n, empty)
        why = explain(rule, n, used, empty)
        try:
            self._solver(rule.entrant)
        except RaceError as exc:
            return FALLBACK, f"{why}; {rule.entrant} cannot run here ({exc}), so {FALLBACK}"
        return rule.entrant, why

    @property
    def cores(self) -> int:
        """The most cores an entrant of its table holds (a ``parallel`` entrant: one per
        member): a cell of ``auto`` holds them all, whichever entrant it picks."""
        most = 1
        for spec in dict.fromkeys(r.entrant for r in self.rules):
            try:
                most = max(most, self._solver(spec).cores)
            except RaceError:
                continue                    # pick() falls back to FALLBACK, one core
        return most

    def pick_for(self, grid: Grid) -> tuple[str, str]:
        return self.pick(grid.n, grid.empties() / grid.n ** 4)

    def _solver(self, spec: str) -> Solver:
        if spec not in self._solvers:
            from solvers.registry import BUILTIN
            self._solvers[spec] = BUILTIN.create(spec)
        return self._solvers[spec]

    def warmup(self) -> None:
        """Load every entrant the table names (a race measures each puzzle's search only)."""
        for spec in dict.fromkeys(r.entrant for r in self.rules):
            try:
                solver = self._solver(spec)
            except RaceError:
                solver = self._solver(FALLBACK)     # pick() says why, puzzle by puzzle
            solver.load()

    def search(self, grid: Grid, limit: int | None, keep: int) -> RawAnswer:
        t0 = time.perf_counter()
        spec, why = self.pick_for(grid)
        solver = self._solver(spec)
        chose = time.perf_counter() - t0
        self.last_choice = (spec, why)
        loaded = solver.load()                      # 0.0: loaded with the others, by warmup()
        answer = solver.search(grid, limit, keep)
        answer.times = {"choose": chose, **({"load": loaded} if loaded else {}), **answer.times}
        return answer
