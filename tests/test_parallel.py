"""The parallel entrant (several entrants at once, one per core) and the cells of several cores
in the harness: member syntax and its errors, the first verified answer wins, a lying member
never wins, stopped members leave nothing behind and their CPU is counted, and a multi-core
cell holds its cores in the executor and the scheduler."""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
import pytest

from experiments.harness import runs_table
from experiments.harness.entrants import parse_entrants, split_specs
from experiments.harness.executor import LocalExecutor
from experiments.harness.messages import Measurement, Request
from experiments.harness.rows import make_row
from formats import grid_text
from formats.errors import RaceError
from solvers import rules
from solvers.interface import SOLVED, UNKNOWN, UNSAT, Solver
from solvers.parallel import Parallel, split_members
from solvers.registry import BUILTIN
from solvers.status import Status
from tests.conftest import full_grid, process_alive, puzzle_from
from tests.fake_solvers import fake_registry

PUZZLE9 = (Path(__file__).parent / "data" / "hard9.txt").read_text().splitlines()[2]


def fake_parallel(members: str, **params) -> Parallel:
    return Parallel(registry=fake_registry(), members=members, **params)


@pytest.fixture
def puzzle(rng):
    return puzzle_from(full_grid(2, rng), 0.5, rng)


# -- member syntax -------------------------------------------------------------------------------

def test_members_are_split_at_plus_and_an_escaped_plus_stays_in_the_member():
    assert split_members("sat:config=sat+kissat") == ["sat:config=sat", "kissat"]
    assert split_members(r"cmd:path=x,args=a\+b+dlx") == ["cmd:path=x,args=a+b", "dlx"]


@pytest.mark.parametrize("members, words", [
    ("", "members=... is required"), ("sat++dlx", "empty member"), ("+sat", "empty member"),
    ("sat+nosuch", "member 'nosuch': unknown solver 'nosuch'"),
    ("sat+dlx:heuristic=best", "member 'dlx:heuristic=best'"),
    ("sat+parallel:members=dlx", "cannot be a member of another"),
    ("sat+sat", "member 'sat': given twice")])
def test_bad_members_are_one_line_errors_naming_the_member(members, words):
    with pytest.raises(RaceError, match=words) as caught:
        BUILTIN.create(f"parallel:members={members}")
    assert "\n" not in str(caught.value)


def test_a_member_with_parameters_survives_the_race_run_parser():
    text = r"dlx,parallel:members=sat:config=sat\,phase=false+kissat:seed=2,timeout=5,sat"
    specs = split_specs(text)
    assert specs == ["dlx", r"parallel:members=sat:config=sat\,phase=false+kissat:seed=2,timeout=5",
                     "sat"]
    solver = BUILTIN.create(specs[1])
    assert solver.specs == ["sat:config=sat,phase=false", "kissat:seed=2"]
    assert solver.params["timeout"] == 5.0 and solver.cores == 2
    assert [m.params["phase"] for m in solver.members] == ["false", "solver"]
    (entrant,) = parse_entrants([specs[1]])
    assert entrant.cores == 2 and entrant.method == "sat"
    assert BUILTIN.create("parallel:members=sat+dlx").method == "portfolio"


def test_counting_is_refused_with_a_clear_error(puzzle):
    with pytest.raises(RaceError, match="cannot count"):
        BUILTIN.create("parallel:members=sat+dlx").count(puzzle)


# -- the race ------------------------------------------------------------------------------------

def test_the_first_verified_answer_wins_and_says_which_member_gave_it():
    (puzzle,) = grid_text.parse(PUZZLE9).grids
    solver = BUILTIN.create("parallel:members=sat+dlx")
    solver.warmup()
    result = solver.solve(puzzle)
    assert result.status == SOLVED and rules.is_solution_of(puzzle, result.solution)
    c = result.counters
    assert c["members"] == 2 and c["winner"] in (0, 1) and c["wrong_members"] == 0
    assert {"member_cpu_ms_0", "member_cpu_ms_1"} <= set(c)
    assert {"start", "search", "stop"} <= set(result.times)
    assert c["pinned"] == int(len(os.sched_getaffinity(0)) >= 2)


def test_a_lying_member_never_wins(puzzle):
    """liar-other answers at once with a solved grid of another puzzle: refused, and the
    honest member's answer, later, wins."""
    result = fake_parallel("liar-other+slow:delay=0.2").solve(puzzle)
    assert result.status == SOLVED and result.verified
    assert rules.is_solution_of(puzzle, result.solution)
    assert result.counters["winner"] == 1 and result.counters["wrong_members"] == 1


def test_a_no_solution_claim_waits_for_the_other_members_and_a_solution_beats_it(puzzle):
    result = fake_parallel("liar-unsat+slow:delay=0.2").solve(puzzle)
    assert result.status == SOLVED and result.counters["winner"] == 1


def test_no_solution_is_answered_when_every_member_finished_without_one():
    (puzzle,) = grid_text.parse("1 2 3 .\n. . . .\n. . . 4\n. . . .\n").grids
    result = BUILTIN.create("parallel:members=sat+dlx").solve(puzzle)
    assert result.status == UNSAT and result.counters["winner"] == -1


def test_every_member_failing_is_an_error_naming_each_failure(puzzle):
    import faulthandler
    was = faulthandler.is_enabled()
    faulthandler.disable()                  # the crashing member's dump is not this test's
    try:
        with pytest.raises(RaceError, match=r"every member of parallel failed: liar-box: returned "
                                            r"a grid that is not a solution; liar-count: solver "
                                            r"liar-count reported solutions but returned none; "
                                            r"crash: died without an answer"):
            fake_parallel("liar-box+liar-count+crash").solve(puzzle)
    finally:
        if was:
            faulthandler.enable()


def test_its_timeout_stops_every_member_and_leaves_no_process(puzzle):
    result = fake_parallel("hang+spin", timeout=0.3).solve(puzzle)
    assert result.status == UNKNOWN and not result.complete
    assert not [p for p in _children(os.getpid()) if process_alive(p)]


def test_stopped_members_die_with_the_processes_they_started_and_their_cpu_is_counted(tmp_path, puzzle):
    pidfile = tmp_path / "child.pid"
    result = fake_parallel(f"hang-child:pidfile={pidfile}+spin+slow:delay=0.3").solve(puzzle)
    assert result.status == SOLVED and result.counters["winner"] == 2
    child = int(pidfile.read_text())
    assert not process_alive(child)             # the member's own child (an outside program)
    assert result.counters["member_cpu_ms_1"] > 0   # spin's CPU, though it was killed
    assert not [p for p in _children(os.getpid()) if process_alive(p)]


def _children(pid: int) -> list[int]:
    """The children of ``pid`` the test started: those alive before it (e.g. the resource
    tracker an earlier test's multiprocessing left for the whole session) are not its own."""
    import psutil
    try:
        return [p.pid for p in psutil.Process(pid).children() if p.pid not in _EARLIER]
    except psutil.Error:
        return []


_EARLIER: set[int] = set()


@pytest.fixture(autouse=True)
def _children_of_earlier_tests():
    import psutil
    _EARLIER.clear()
    _EARLIER.update(p.pid for p in psutil.Process(os.getpid()).children())
    yield


# -- the harness: a cell of several cores ----------------------------------------------------------

def _request(spec: str, cores: int, name: str) -> tuple[dict, list[Request]]:
    (entrant,) = parse_entrants(spec)
    rng = np.random.default_rng(2)
    text = grid_text.format_native(puzzle_from(full_grid(2, rng), 0.5, rng), {})
    return entrant.init_request(), [Request(("f", spec, 2, name, 0), spec, "p.sudoku", text, cores)]


def test_the_executor_holds_as_many_slots_as_the_cell_has_cores():
    ex = LocalExecutor(2, timeout_s=60.0, min_time=0.0, cpus=None)
    try:
        ex.submit_batch(*_request("parallel:members=backtracking+dlx", 2, "cell"))
        assert ex.free() == 0                     # nothing else runs beside it
        with pytest.raises(RuntimeError):
            ex.submit_batch(*_request("dlx", 1, "other"))
        end = time.monotonic() + 120
        done = []
        while not done and time.monotonic() < end:
            done = ex.poll(0.1)
        ((key, outcome),) = done
        assert isinstance(outcome, Measurement)
        assert outcome.status == SOLVED and outcome.cores == 2
        assert ex.free() == 2
        assert outcome.counters["members"] == 2 and outcome.counters["winner"] in (0, 1)
    finally:
        ex.close()


class _CountingExecutor:
    """An executor that answers each cell at once (no process), recording how many cores were
    in flight whenever a batch was submitted, and never more than its two slots. A batch holds
    its cells' cores until its last cell is answered, as a worker would."""

    jobs = 2

    def __init__(self) -> None:
        self.batches: list[tuple[int, list]] = []   # (cores, its cells' keys not answered yet)
        self.seen: list[tuple[int, int]] = []    # (cores of the new batch, cores in flight)
        self.worker_cpus: dict = {}

    def busy(self) -> int:
        return sum(cores for cores, _ in self.batches)

    def free(self) -> int:
        return self.jobs - self.busy()

    def warm_entrants(self) -> set:
        return set()

    def submit_batch(self, init, cells) -> None:
        cores = cells[0].cores
        assert all(c.cores == cores for c in cells) and cores <= self.free()
        self.seen.append((cores, self.busy()))
        self.batches.append((cores, [c.key for c in cells]))

    def poll(self, max_wait: float = 0.5):
        if not self.batches:
            return []
        cores, keys = self.batches[0]         # the oldest finishes first, a cell at a time
        key = keys.pop(0)
        if not keys:
            self.batches.pop(0)
        return [(key, Measurement(Status.UNKNOWN, wall_s=0.01, cpu_s=0.01, cores=cores))]

    def close(self) -> None:
        pass


def test_the_scheduler_runs_nothing_beside_a_cell_of_all_the_cores(tmp_path):
    from experiments.harness.campaign import prepare
    from experiments.harness.config import Config
    from experiments.harness.scheduling import run
    from tests.test_harness import write_instances
    write_instances(tmp_path, 2, 6)
    entrants = parse_entrants("dlx,parallel:members=backtracking+dlx,parallel:members=sat+dlx+backtracking")
    assert [e.cores for e in entrants] == [1, 2, 3]
    config = Config(n_values=[2], entrants=entrants, family_labels="unique", instances=6,
                    timeout_s=10.0, jobs=2, out=tmp_path, campaign="cores", pin=False)
    executor = _CountingExecutor()
    run(prepare(config), executor)
    assert 3 <= len(executor.seen) <= 18                  # one batch or more per entrant
    assert all(cores == 1 or busy == 0 for cores, busy in executor.seen)   # alone on its cores
    rows = runs_table.read_rows(config.runs_path)
    cores = {r["entrant"].split(":")[0] + str(len(r["entrant"].split("+"))): r["cores"] for r in rows}
    # three members on two slots: the members share them
    assert cores == {"dlx1": "1", "parallel2": "2", "parallel3": "2"}


def test_a_cell_of_two_cores_at_the_limit_records_twice_the_limit_as_cpu():
    from experiments.harness.cells import Cell
    (entrant,) = parse_entrants("parallel:members=sat+dlx")
    row = make_row("c", 0, 5.0, entrant, Cell(entrant.spec, 2, "i", 0, None, "unique"),
                   Measurement(Status.TIMEOUT, cores=2))
    assert row.wall_s == 5.0 and row.cpu_s == 10.0 and row.cores == 2


def test_auto_holds_the_cores_of_the_widest_entrant_its_table_names(tmp_path):
    from solvers.auto import TABLE_PATH
    table = tmp_path / "portfolio.csv"
    lines = TABLE_PATH.read_text().splitlines()
    header, first = lines[0], lines[1].split(",")
    first[3] = '"parallel:members=sat+dlx+backtracking"'
    table.write_text("\n".join([header, ",".join(first), *lines[2:]]) + "\n")
    import csv
    widest = max(parse_entrants([row["entrant"]])[0].cores
                 for row in csv.DictReader(TABLE_PATH.read_text().splitlines()))
    assert BUILTIN.create("auto").cores == widest            # the committed table's widest pick
    assert BUILTIN.create(f"auto:table={table}").cores == 3
    (entrant,) = parse_entrants([f"auto:table={table}"])
    assert entrant.cores == 3


class WarmCount(Solver):
    """Backtracking that counts its warm-ups (in the process that runs them)."""
    name = "warm-count"
    warmups = 0

    def warmup(self) -> None:
        WarmCount.warmups += 1

    def search(self, grid, limit, keep):
        from solvers.backtracking import Backtracking
        return Backtracking().search(grid, limit, keep)


def test_members_are_warmed_once_in_this_process_before_the_first_race(puzzle):
    """race solve calls no warmup(): the members are warmed here, once, so their forked
    processes do not each pay the imports and compilation again."""
    registry = BUILTIN.register("warm-count", f"{__name__}:WarmCount")
    solver = Parallel(registry=registry, members="warm-count+dlx")
    WarmCount.warmups = 0
    for _ in range(2):
        assert solver.solve(puzzle).status == SOLVED
    assert WarmCount.warmups == 1


def test_race_run_says_when_a_parallel_entrant_has_more_members_than_jobs(tmp_path):
    from click.testing import CliRunner

    from experiments.cli.main import main
    from tests.test_harness import write_instances
    write_instances(tmp_path, 2, 1)
    r = CliRunner().invoke(main, ["run", "--n", "2", "--family", "unique", "--instances", "1",
                                  "--solvers", "parallel:members=dlx+backtracking", "--jobs", "1",
                                  "--out", str(tmp_path), "--no-pin"])
    assert r.exit_code == 0, r.output
    assert ("race: note: parallel:members=dlx+backtracking runs 2 searches at once but --jobs is 1: "
            "its cells hold 1 core(s), which its members share") in r.stderr
    (row,) = runs_table.read_rows(next(tmp_path.glob("*/runs.csv")))
    assert row["status"] == "solved" and row["cores"] == "1"


def test_race_solve_timeout_stops_every_member_and_what_they_started(tmp_path):
    """race solve --timeout: the Stop reaches the parallel entrant waiting for its members,
    which kills them with the programs they started (here: sleepers and their children)."""
    from tests.test_solve_timeout import PUZZLE, SLEEPER, race
    puzzle = tmp_path / "p.txt"
    puzzle.write_text(PUZZLE)
    pids = [tmp_path / f"child{i}.pid" for i in range(2)]
    members = "+".join(f"cmd:path={SLEEPER}\\,args={{input}} {pid}" for pid in pids)
    done, _ = race("solve", "--timeout", "2", "-s", f"parallel:members={members}", str(puzzle))
    assert done.returncode == 3 and done.stdout == ""
    assert done.stderr == f"race solve: no answer within 2 s ({puzzle})\n"
    children = [int(p.read_text()) for p in pids]
    for _ in range(100):
        if not any(process_alive(c) for c in children):
            break
        time.sleep(0.05)
    assert not any(process_alive(c) for c in children)


def test_race_portfolio_may_pick_a_parallel_entrant_and_cpsat():
    from experiments.analysis.portfolio import _pickable
    assert _pickable("parallel:members=sat:config=sat+kissat") and _pickable("cpsat:model=int")


def test_the_summary_and_the_report_give_wall_and_total_cpu_and_who_answered(tmp_path):
    from click.testing import CliRunner

    from experiments.analysis import censored_stats, multicore
    from experiments.cli.main import main
    from experiments.report import tables
    from tests.test_harness import write_instances
    write_instances(tmp_path, 2, 2)
    spec = r"parallel:members=dlx+sat:config=sat\,seed=3"
    r = CliRunner().invoke(main, ["run", "--n", "2", "--family", "unique", "--instances", "2",
                                  "--solvers", f"backtracking,{spec}", "--jobs", "2",
                                  "--out", str(tmp_path), "--no-pin"])
    assert r.exit_code == 0, r.output
    assert "entrants on several cores: the medians above are wall time" in r.stdout
    (line,) = [x for x in r.stdout.splitlines() if x.startswith(f"  {spec} n=2 on 2 cores")]
    assert "2/2 answered" in line and "CPU (all members) median" in line
    answered_by = line.rsplit("answered by ", 1)[1]
    assert sum(int(part.rsplit(" ", 1)[1]) for part in answered_by.split(", ")) == 2
    assert set(part.rsplit(" ", 1)[0] for part in answered_by.split(", ")) <= {"dlx", "sat:config=sat,seed=3"}
    campaign = censored_stats.load(next(tmp_path.glob("*/runs.csv")).parent)
    assert multicore.multicore_entrants(campaign) == [spec]
    section = tables.cores_section(campaign)
    assert "\\label{tab:cores}" in section and "total CPU" in section
    assert tables.cores_section(campaign.family(campaign.families[0])) != ""
    only_single = censored_stats.Campaign(campaign.path, campaign.runs[campaign.runs["entrant"] == "backtracking"],
                                    campaign.meta)
    assert tables.cores_section(only_single) == "" and multicore.summary_lines(only_single) == []


def test_the_spec_of_a_parallel_entrant_recreates_it():
    text = r"parallel:members=sat:config=sat\,phase=false+kissat:seed=2,timeout=5.0"
    solver = BUILTIN.create(text)
    assert solver.spec == text
    again = BUILTIN.create(solver.spec)
    assert again.specs == solver.specs == ["sat:config=sat,phase=false", "kissat:seed=2"]


def test_from_the_second_race_on_the_next_races_processes_are_forked_while_it_searches(puzzle):
    solver = fake_parallel("slow:delay=0.3+hang")
    try:
        first = solver.solve(puzzle)
        assert first.status == SOLVED and solver.standby is None     # one race: nothing ahead
        second = solver.solve(puzzle)
        assert second.status == SOLVED and second.counters["winner"] == 0
        waiting = [m.pid for m in solver.standby]
        assert len(waiting) == 2 and all(process_alive(p) for p in waiting)
        third = solver.solve(puzzle)            # runs on the processes forked ahead
        assert third.status == SOLVED and rules.is_solution_of(puzzle, third.solution)
        assert not any(process_alive(p) for p in waiting)
        assert third.counters["member_cpu_ms_1"] >= 0 and solver.standby is not None
    finally:
        solver.close()
    assert solver.standby is None
    assert not [p for p in _children(os.getpid()) if process_alive(p)]


@pytest.mark.parametrize("members, first", [
    ("dlx+dlx:heuristic=mrv", "dlx"), ("dlx:heuristic=mrv+dlx", "dlx:heuristic=mrv"),
    ("sat:backend=cadical195+sat", "sat:backend=cadical195")])
def test_p1_a_member_given_twice_is_compared_as_created(members, first):
    """Two spellings of one entrant (a default given or not) are the same search: refused,
    naming the member given first."""
    with pytest.raises(RaceError, match="given twice") as caught:
        BUILTIN.create(f"parallel:members={members}")
    assert f"the same entrant as {first!r}" in str(caught.value)


def test_p1_members_that_differ_in_a_parameter_are_two_members():
    assert len(BUILTIN.create("parallel:members=dlx+dlx:heuristic=first").members) == 2
