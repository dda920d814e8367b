"""Generators: Algorithm 2 and the families, counters, determinism, sets on disk, CLI."""

from __future__ import annotations

import csv
import hashlib

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from experiments.cli.main import main
from formats import grid_text
from formats.errors import RaceError
from formats.grid import Grid
from generators import counting, kinds, puzzle_set
from generators.counting import make_counter
from generators.unique import fill_grid, generate_unique
from solvers import registry, rules
from tests.conftest import full_grid, puzzle_from

SOLVERS = {name: registry.create(name) for name in ("backtracking", "dlx", "sat")}


def second_solver(n: int) -> str:
    """An independent check beside dlx: backtracking where it is fast enough, else SAT."""
    return "backtracking" if n <= 3 else "sat"


def count(name: str, grid: Grid, limit: int = 2) -> int:
    result = SOLVERS[name].count(grid, limit)
    assert result.status in ("solved", "unsat"), result.message
    return result.count


def text(kind: str, n: int, seed: int, index: int, **options) -> str:
    return grid_text.format_native(*puzzle_set.make(kind, n, seed, index, **options))


# -- determinism -------------------------------------------------------------------------
@pytest.mark.parametrize("kind", puzzle_set.KINDS)
def test_same_arguments_same_bytes_and_index_changes_the_puzzle(kind):
    a = text(kind, 3, 7, 0)
    assert a == text(kind, 3, 7, 0)
    assert a != text(kind, 3, 7, 1)
    assert a != text(kind, 3, 8, 0)


@pytest.mark.parametrize("n", [2, 3])
def test_counters_change_speed_never_the_output(n):
    for seed in range(4):
        outs = {name: text("minimal", n, seed, 0, counter=name)
                for name in ("backtracking", "dlx", "sat", "robust")}
        assert len(set(outs.values())) == 1, outs.keys()


def test_minimal_is_a_subset_of_unique_and_multi_one_clue_short():
    for seed in range(5):
        u, um = puzzle_set.make("unique", 3, seed, 0)
        m, _ = puzzle_set.make("minimal", 3, seed, 0)
        mu, _ = puzzle_set.make("multi", 3, seed, 0)
        given_u = u.cells != 0
        assert np.all(u.cells[m.cells != 0] == m.cells[m.cells != 0])
        assert m.clues() <= u.clues()
        assert mu.clues() == u.clues() - 1 and np.all(u.cells[mu.cells != 0] == mu.cells[mu.cells != 0])
        assert np.array_equal(grid_text.parse(um["solution"]).grids[0].cells[given_u], u.cells[given_u])


# -- the families ---------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("kind", ["unique", "minimal"])
def test_unique_and_minimal_have_exactly_one_solution(kind, n):
    for index in range(3):
        grid, meta = puzzle_set.make(kind, n, 11, index)
        assert rules.is_consistent(grid)
        assert count("dlx", grid) == 1
        assert count(second_solver(n), grid) == 1
        solution = SOLVERS["dlx"].solve(grid).solution
        assert puzzle_set.compact(solution.cells, n) == meta["solution"]
        assert meta["clues"] == str(grid.clues())


@pytest.mark.parametrize("n", [2, 3, 4])
def test_minimal_loses_uniqueness_on_removing_any_clue(n):
    # DLX needs ~10^5 nodes per count on these 16x16 grids; the SAT counter is far faster
    from solvers.exact_cover.dlx import count_sudoku
    from solvers.sat.solver import IncrementalCounter
    with IncrementalCounter(n) as sat:
        check = (lambda g: count_sudoku(g, 2)[0]) if n <= 3 else (lambda g: sat.count(g, 2))
        for index in range(2 if n == 4 else 4):
            grid, _ = puzzle_set.make("minimal", n, 3, index)
            for i, j in np.argwhere(grid.cells != 0):
                fewer = grid.copy()
                fewer.cells[i, j] = 0
                assert check(fewer) == 2, (i, j)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_unique_stops_at_the_first_failed_removal(n):
    # Algorithm 2 is not minimal in general, but its last removal broke uniqueness:
    # the multi grid is the unique puzzle minus one clue and has >= 2 solutions.
    for index in range(3):
        u, _ = puzzle_set.make("unique", n, 5, index)
        mu, _ = puzzle_set.make("multi", n, 5, index)
        assert mu.clues() == u.clues() - 1
        assert count("dlx", mu) == 2
        assert count(second_solver(n), mu) == 2


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("base", ["unique", "minimal"])
def test_unsat_has_consistent_clues_and_no_solution(n, base):
    for index in range(3):
        grid, meta = puzzle_set.make("unsat", n, 2, index, base=base)
        assert rules.is_consistent(grid)
        assert count("dlx", grid) == 0
        assert count(second_solver(n), grid) == 0
        planted = grid_text.parse(meta["planted"]).grids[0]
        wrong = (grid.cells != planted.cells) & (grid.cells != 0)
        assert wrong.sum() == 1                # one wrong clue, the others from the solution


@pytest.mark.parametrize("n", [2, 3, 4])
def test_multi_has_at_least_two_solutions(n):
    for index in range(3):
        grid, _ = puzzle_set.make("multi", n, 9, index)
        assert rules.is_consistent(grid)
        assert count("dlx", grid) == 2


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 4), fraction=st.floats(0, 1), balanced=st.booleans(), index=st.integers(0, 3))
def test_holes_exact_count_and_balance(n, fraction, balanced, index):
    pattern = "balanced" if balanced else "random"
    grid, meta = puzzle_set.make("holes", n, 4, index, holes=fraction, pattern=pattern)
    side = n * n
    assert grid.empties() == int(np.floor(fraction * side * side + 0.5))
    planted = grid_text.parse(meta["planted"]).grids[0]
    assert rules.is_solved(planted) and rules.keeps_clues(grid, planted)
    if balanced:
        empty = grid.cells == 0
        boxes = empty.reshape(n, n, n, n).sum(axis=(1, 3))
        for per_unit in (empty.sum(axis=0), empty.sum(axis=1), boxes.ravel()):
            assert per_unit.max() - per_unit.min() <= 1


def test_balanced_pattern_is_spread_where_random_is_not():
    # 16x16, 40 %: the random pattern leaves some rows much emptier than others
    spreads = []
    for pattern in ("balanced", "random"):
        grid, _ = puzzle_set.make("holes", 4, 0, 0, holes=0.4, pattern=pattern)
        per_row = (grid.cells == 0).sum(axis=1)
        spreads.append(per_row.max() - per_row.min())
    assert spreads[0] <= 1 < spreads[1]


def test_holes_fraction_may_be_given_as_text():
    assert text("holes", 2, 0, 0, holes="0.25") == text("holes", 2, 0, 0, holes=0.25)


def test_n1_and_impossible_families():
    grid, meta = puzzle_set.make("unique", 1, 0, 0)
    assert grid.clues() == 0 and meta["solution"] == "1"      # the empty 1x1 grid is unique
    for kind in ("multi", "unsat"):
        with pytest.raises(RaceError):
            puzzle_set.make(kind, 1, 0, 0)


@pytest.mark.parametrize("bad", [
    dict(kind="nope"), dict(n=0), dict(n=True), dict(seed=-1), dict(index=-2),
    dict(kind="holes", holes=1.5), dict(kind="holes", pattern="spiral"),
    dict(kind="unique", holes=0.5), dict(counter="magic"), dict(kind="unsat", base="nope"),
    dict(kind="unsat", base="unique", holes=0.3), dict(kind="unsat", n=7, base="minimal"),
    dict(kind="holes", holes="lots"), dict(n=puzzle_set.MAX_N + 1),
    dict(kind="minimal", n=puzzle_set.FAMILY_MAX_N["minimal"] + 1)])
def test_make_rejects_bad_arguments(bad):
    args = dict(kind="unique", n=2, seed=0, index=0) | bad
    with pytest.raises(RaceError):
        puzzle_set.make(**args)


# -- Algorithm 2's distribution ------------------------------------------------------------
def test_fill_follows_algorithm_2_distribution():
    """n = 2: Algorithm 2's fill gives a grid the probability prod over cells of
    1/|values that keep the prefix solvable|; our sampler must match it."""
    solutions = np.array([g.cells.ravel() for g in _all_solutions(2)])
    assert len(solutions) == 288
    prob = np.ones(len(solutions))
    for s, sol in enumerate(solutions):
        for c in range(16):
            alive = np.all(solutions[:, :c] == sol[:c], axis=1)
            prob[s] /= len(np.unique(solutions[alive, c]))
    counter = make_counter(2, "dlx")
    rng = np.random.default_rng(2024)
    draws = 5000
    index = {sol.tobytes(): s for s, sol in enumerate(solutions)}
    seen = np.zeros(len(solutions))
    for _ in range(draws):
        seen[index[fill_grid(2, rng, counter).ravel().astype(solutions.dtype).tobytes()]] += 1
    expected = prob * draws
    chi2 = ((seen - expected) ** 2 / expected).sum()
    assert abs(prob.sum() - 1) < 1e-9
    assert chi2 < 287 + 5 * np.sqrt(2 * 287)       # 287 degrees of freedom: mean 287, sd 24


def _all_solutions(n: int) -> list[Grid]:
    result = SOLVERS["backtracking"].count(Grid.empty(n), None, keep=10 ** 4)
    assert result.status == "solved" and result.count == len(result.solutions)
    return result.solutions


# -- counters ---------------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 3), blanks=st.floats(0.3, 0.9), seed=st.integers(0, 10 ** 6),
       wrong=st.booleans())
def test_propagation_and_counters_agree_with_dlx(n, blanks, seed, wrong):
    rng = np.random.default_rng(seed)
    puzzle = puzzle_from(full_grid(n, rng), blanks, rng)
    if wrong:   # a consistent but possibly wrong clue
        pairs = kinds.wrong_clues(puzzle.cells, full_grid(n, rng).cells, n)
        if len(pairs):
            c, v = pairs[rng.integers(len(pairs))]
            puzzle.cells.reshape(-1)[c] = v
    truth = count("dlx", puzzle, 3)
    left, reduced = rules.propagate(puzzle.cells, n)[:2]
    assert np.all(reduced[puzzle.cells != 0] == puzzle.cells[puzzle.cells != 0])
    if left < 0:
        assert truth == 0
    elif left == 0:
        assert truth == 1
    else:
        assert count("dlx", Grid(n, reduced), 3) == truth
    for name in ("backtracking", "dlx", "sat", "robust"):
        with make_counter(n, name) as counter:
            assert counter.count(puzzle.cells, 2) == min(truth, 2)
            ok, witness = counter.solvable(puzzle.cells)
        assert ok == (truth > 0)
        if witness is not None:
            assert rules.is_solution_of(puzzle, Grid(n, witness))


def test_robust_counter_falls_back_to_sat_when_the_budget_runs_out():
    grid, _ = puzzle_set.make("minimal", 4, 0, 0)
    assert rules.propagate(grid.cells, 4).undecided > 0  # needs search, not just singles
    with counting.RobustCounter(4, node_budget=1) as counter:
        assert counter.count(grid.cells, 2) == 1
        assert counter.count(np.zeros_like(grid.cells), 2) == 2
        assert counter.solvable(np.zeros_like(grid.cells))[0]
        assert counter.by_backend["sat"] == 3 and counter.calls == 3



def test_robust_counter_stops_trying_dlx_after_a_run_of_misses_and_probes_it_again():
    """differs() gives exact answers whether DLX settles a question or SAT does; once
    DLX has run out DLX_GIVE_UP_AFTER times in a row it is only probed every
    DLX_PROBE_EVERY questions, and one answer from it brings it back."""
    grid, _ = puzzle_set.make("minimal", 4, 0, 0)
    with make_counter(4, "dlx") as exact:
        solution = exact.solvable(grid.cells)[1].reshape(-1)
        questions = []          # "another value at c?": yes for a clue removed, no for an empty cell
        for c in range(grid.side ** 2):
            cells = grid.cells.copy()
            cells.reshape(-1)[c] = 0
            values = [v for v in range(1, 17) if v != solution[c]]
            questions.append((cells, c, values, exact.differs(cells, c, values)))
    assert {q[3] for q in questions} == {True, False}
    give_up, every = counting.DLX_GIVE_UP_AFTER, counting.DLX_PROBE_EVERY
    with counting.RobustCounter(4, node_budget=1) as counter:      # DLX always runs out
        tries, skipping = [], []
        for cells, c, values, truth in questions:
            skipping.append(counter.dlx_misses >= give_up)
            before = counter.calls                 # in differs: one per DLX run
            assert counter.differs(cells, c, values) == truth
            tries.append(counter.calls - before)
        first = skipping.index(True)
        assert sum(tries[:first]) == give_up == counter.dlx_misses - sum(tries[first:])
        probes = [i for i in range(first, len(questions)) if tries[i]]
        assert len(probes) >= 3 and all(tries[i] == 1 for i in probes)
        assert all((i - first) % every == 0 for i in probes)
        counter.node_budget = counting.DLX_NODE_BUDGET     # DLX answers again at a probe
        for cells, c, values, truth in questions[:2 * every]:
            assert counter.differs(cells, c, values) == truth
        assert counter.dlx_misses == 0 and counter.dlx_skips == 0

def test_generation_counts_solver_calls():
    counter = make_counter(4, "robust")
    lefts = []                     # every question's undecided cells after propagation
    reduced = counter.reduced

    def spy(cells):
        left, work = reduced(cells)
        lefts.append(left)
        return left, work

    counter.reduced = spy
    r = generate_unique(4, np.random.default_rng(1), np.random.default_rng(2), counter)
    assert r.stats["calls"] == counter.calls == r.stats["fill_calls"] + r.stats["remove_calls"] > 0
    # a question propagation settles (solved or contradicted) is decided; any other is a call
    assert r.stats["decided"] == sum(left <= 0 for left in lefts) > 0
    assert r.stats["calls"] == sum(left > 0 for left in lefts)


# -- sets on disk ------------------------------------------------------------------------
def test_write_set_files_manifest_and_cache(tmp_path, monkeypatch):
    manifest = puzzle_set.write_set("unique", 3, 3, 5, tmp_path / "a")
    again = puzzle_set.write_set("unique", 3, 3, 5, tmp_path / "b")
    rows = list(csv.DictReader(open(manifest)))
    assert [r["file"] for r in rows] == [f"unique-n3-s5-{i:04d}.sudoku" for i in range(3)]
    assert manifest.read_bytes() == again.read_bytes()
    for row in rows:
        data = (tmp_path / "a" / row["file"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == row["sha256"]
        assert data.decode() == text("unique", 3, 5, int(row["index"]))
        pf = grid_text.parse(data.decode())
        assert pf.metadata["clues"] == row["clues"] == str(pf.grids[0].clues())
    # a damaged file is regenerated, intact ones are reused without generating
    victim = tmp_path / "a" / rows[1]["file"]
    victim.write_text("# kind=unique\n1 2\n")
    calls = []
    real = puzzle_set.make
    monkeypatch.setattr(puzzle_set, "make", lambda *a, **k: calls.append(a) or real(*a, **k))
    puzzle_set.write_set("unique", 3, 3, 5, tmp_path / "a")
    assert calls == [("unique", 3, 5, 1)]
    assert hashlib.sha256(victim.read_bytes()).hexdigest() == rows[1]["sha256"]
    # another set in the same directory keeps the first one's rows
    puzzle_set.write_set("holes", 3, 2, 5, tmp_path / "a", holes=0.5)
    files = [r["file"] for r in csv.DictReader(open(manifest))]
    assert len(files) == 5 and "holes-n3-s5-0001.sudoku" in files


def test_a_large_set_made_by_several_processes_is_the_same_set(tmp_path, monkeypatch):
    # from n = 5 on, `jobs` processes make the missing puzzles at once: same files, same
    # manifest, and a puzzle already there is kept, not made again
    one = puzzle_set.write_set("holes", 5, 4, 3, tmp_path / "one", holes=0.55,
                               pattern="balanced")
    (tmp_path / "two").mkdir()
    first = "holes-n5-s3-0002.sudoku"
    (tmp_path / "two" / first).write_bytes((tmp_path / "one" / first).read_bytes())
    import generators.parallel_sets as parallel_sets
    seen = {}
    real_rows = parallel_sets.make_rows
    monkeypatch.setattr(parallel_sets, "make_rows",
                        lambda *a, **k: seen.update(indices=a[1], jobs=a[2]) or real_rows(*a, **k))
    two = puzzle_set.write_set("holes", 5, 4, 3, tmp_path / "two", jobs=2, holes=0.55,
                               pattern="balanced")
    assert seen == {"indices": [0, 1, 3], "jobs": 2}
    assert one.read_bytes() == two.read_bytes()
    for i in range(4):
        name = f"holes-n5-s3-{i:04d}.sudoku"
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()


def test_a_puzzle_of_other_options_under_the_same_name_is_never_replaced(tmp_path):
    """`race generate -o DIR` with other options (--holes 0.3, then 0.6) replaced the files of
    the first set that share a name, in silence (a campaign may have raced them). Now it is a
    one-line error that names the file and the option, and nothing is written; a damaged file
    is still regenerated, and the same options still reuse what is there."""
    from formats.errors import RaceError
    target = tmp_path / "set"
    manifest = puzzle_set.write_set("holes", 3, 2, 0, target, holes=0.3)
    before = {p.name: p.read_bytes() for p in target.iterdir()}
    with pytest.raises(RaceError, match=r"holes-n3-s0-0000.sudoku already holds a puzzle made with "
                                        r"other options \(holes=0.3, not 0.6\) \(and 1 more\)"):
        puzzle_set.write_set("holes", 3, 3, 0, target, holes=0.6)
    assert {p.name: p.read_bytes() for p in target.iterdir()} == before
    (target / "holes-n3-s0-0001.sudoku").write_text("# kind=holes\n1 2\n")     # damaged
    assert puzzle_set.write_set("holes", 3, 2, 0, target, holes=0.3) == manifest
    assert {p.name: p.read_bytes() for p in target.iterdir()} == before
    out = CliRunner().invoke(main, ["generate", "--n", "3", "--kind", "holes", "--holes", "0.6",
                                    "-k", "1", "-o", str(target)])
    assert out.exit_code == 2 and out.stderr.count("\n") == 1 and "holes=0.3, not 0.6" in out.stderr


# -- CLI ------------------------------------------------------------------------------------
def test_cli_stdout_and_files(tmp_path):
    runner = CliRunner()
    out = runner.invoke(main, ["generate", "--n", "2", "--instances", "2", "--seed", "3"])
    assert out.exit_code == 0, out.output
    first, second = out.stdout.split("\n\n")
    assert first + "\n" == text("unique", 2, 3, 0) and second == text("unique", 2, 3, 1)
    target = tmp_path / "set"
    out = runner.invoke(main, ["generate", "--n", "3", "--kind", "holes", "--holes", "0.6",
                               "--pattern", "balanced", "-k", "2", "-o", str(target)])
    assert out.exit_code == 0, out.output
    assert sorted(p.name for p in target.iterdir()) == [
        "holes-n3-s0-0000.sudoku", "holes-n3-s0-0001.sudoku", "manifest.csv"]
    assert grid_text.read(target / "holes-n3-s0-0001.sudoku").grids[0].empties() == 49


def test_cli_hard_family_writes_hard_files_of_the_peak_holes_puzzles(tmp_path):
    """``--family hard`` is the family race run races (holes, balanced, at the peak of n), its
    files named ``hard-...``; the puzzles are the generator's holes puzzles byte for byte."""
    from generators.hardness_peaks import peak_holes
    runner = CliRunner()
    target = tmp_path / "hard"
    out = runner.invoke(main, ["generate", "--n", "3", "--family", "hard", "-k", "2", "-o", str(target)])
    assert out.exit_code == 0, out.output
    assert "2 hard puzzle(s) with n=3" in out.stderr
    assert sorted(p.name for p in target.iterdir()) == [
        "hard-n3-s0-0000.sudoku", "hard-n3-s0-0001.sudoku", "manifest.csv"]
    manifest = puzzle_set.read_manifest(target / "manifest.csv")
    assert [(r["file"], r["kind"]) for r in manifest] == [("hard-n3-s0-0000.sudoku", "holes"),
                                                          ("hard-n3-s0-0001.sudoku", "holes")]
    same = tmp_path / "holes"
    assert runner.invoke(main, ["generate", "--n", "3", "--family", "holes", "--holes",
                                f"{peak_holes(3):g}", "--pattern", "balanced", "-k", "2",
                                "-o", str(same)]).exit_code == 0
    for index in range(2):
        assert (target / f"hard-n3-s0-{index:04d}.sudoku").read_bytes() == \
            (same / f"holes-n3-s0-{index:04d}.sudoku").read_bytes()
    printed = runner.invoke(main, ["generate", "--n", "3", "--family", "hard"])
    assert printed.exit_code == 0 and printed.stdout == (same / "holes-n3-s0-0000.sudoku").read_text()
    refused = runner.invoke(main, ["generate", "--n", "3", "--family", "hard", "--holes", "0.4"])
    assert refused.exit_code == 2 and "hard fixes its holes and pattern" in refused.stderr


def test_cli_hard_family_reads_the_peak_table_peaks_names(tmp_path):
    """``race generate --family hard --peaks FILE`` takes the peak of n from FILE (a table
    ``race landscape`` wrote), not from the committed one; --peaks with another family is a
    one-line error."""
    from generators.hardness_peaks import FIELDS, peak_holes
    runner = CliRunner()
    committed = peak_holes(3)
    mine = 0.3 if abs(committed - 0.3) > 0.05 else 0.6
    table = tmp_path / "my peaks.csv"
    table.write_text(",".join(FIELDS) + f"\n3,balanced,{mine},,,dlx,work,5,10,mine\n")
    out = runner.invoke(main, ["generate", "--n", "3", "--family", "hard", "--peaks", str(table)])
    assert out.exit_code == 0, out.output
    assert f"# holes={mine:g}" in out.stdout.splitlines()
    assert grid_text.parse(out.stdout).grids[0].empties() == round(81 * mine)
    default = runner.invoke(main, ["generate", "--n", "3", "--family", "hard"])
    assert f"# holes={committed:g}" in default.stdout.splitlines()
    refused = runner.invoke(main, ["generate", "--n", "3", "--peaks", str(table)])
    assert refused.exit_code == 2 and refused.output.count("\n") == 1 and "--peaks" in refused.output


@pytest.mark.parametrize("args", [
    ["--n", "0"], ["--n", "-3"], ["--n", "x"], ["--n", "3", "--instances", "0"], ["--n", "3", "--seed", "-1"],
    ["--n", "3", "--kind", "holes", "--holes", "1.5"], ["--n", "3", "--kind", "holes", "--holes", "lots"],
    ["--n", "3", "--holes", "0.5"], ["--n", "3", "--base", "minimal"], ["--n", "1", "--kind", "multi"],
    ["--n", "99"]])
def test_cli_bad_input_exit_2_one_line(args):
    out = CliRunner().invoke(main, ["generate", *args])
    assert out.exit_code == 2
    assert out.output.count("\n") == 1 and "error" in out.output


@settings(max_examples=30, deadline=None)
@given(n=st.integers(2, 3), blanks=st.floats(0.3, 0.75), seed=st.integers(0, 10 ** 6))
def test_differs_answers_the_removal_question(n, blanks, seed):
    """differs(P, c, values): is there a solution with cell c in values? Checked
    against DLX on P with c fixed to each value; budget 1 forces the SAT path."""
    rng = np.random.default_rng(seed)
    puzzle = puzzle_from(full_grid(n, rng), blanks, rng)
    empty = np.flatnonzero(puzzle.cells.ravel() == 0)
    c = int(empty[rng.integers(empty.size)])
    values = sorted(rng.choice(np.arange(1, n * n + 1), size=int(rng.integers(1, n * n + 1)),
                               replace=False).tolist())
    truth = False
    for v in values:
        trial = puzzle.copy()
        trial.cells.reshape(-1)[c] = v
        truth = truth or (rules.is_consistent(trial) and count("dlx", trial, 1) == 1)
    for counter in (counting.RobustCounter(n, node_budget=1), make_counter(n, "dlx"),
                    make_counter(n, "backtracking")):
        with counter:
            before = puzzle.cells.copy()
            assert counter.differs(puzzle.cells, c, values) == truth
            assert np.array_equal(puzzle.cells, before)


@pytest.mark.parametrize("n,seeds", [(3, range(6)), (4, range(3))])
def test_window_sat_path_makes_the_same_puzzles_as_the_plain_paths(n, seeds):
    """The removal phase with WindowSAT (node budget 1: every question DLX does not
    settle at once goes to SAT) keeps and removes exactly the clues that the fresh
    ReducedSAT path and plain DLX do: the same minimal puzzle, byte for byte (the
    puzzle records every decision)."""
    windows = 0
    for seed in seeds:
        puzzles = []
        for path in ("window", "reduced", "dlx"):
            counter = make_counter(n, "dlx") if path == "dlx" else counting.RobustCounter(n, node_budget=1)
            if path == "reduced":          # the path before WindowSAT: differs without ahead
                plain = counter.differs
                counter.differs = lambda cells, c, values, hint=None, ahead=None, settled=None: \
                    plain(cells, c, values, hint)
            with counter:
                r = generate_unique(n, np.random.default_rng([seed, 1]), np.random.default_rng([seed, 2]),
                                    counter, minimal=True)
                puzzles.append(r.puzzle.tobytes())
                if path == "window":
                    windows += counter.windows
                    assert counter.by_backend["sat_reduced"] == 0
        assert puzzles[0] == puzzles[1] == puzzles[2]
    assert windows > 0


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 3), blanks=st.floats(0.3, 0.7), seed=st.integers(0, 10 ** 6))
def test_window_sat_answers_each_question_of_its_window(n, blanks, seed):
    """WindowSAT over a window of clue cells, emptied one by one as the removal phase
    does: each "c in values?" answer is DLX's, each witness is a solution of the grid
    asked about with c in values, also once the kept clues are unit clauses (settle); a
    grid missing a base clue is refused."""
    rng = np.random.default_rng(seed)
    solution = full_grid(n, rng)
    puzzle = puzzle_from(solution, blanks, rng)
    cells = puzzle.cells.copy()
    flat = cells.reshape(-1)
    side = n * n
    window = rng.permutation(np.flatnonzero(flat))[:6]
    sat = counting.WindowSAT(n, cells, window)
    kept: list[int] = []
    try:
        for c in window.tolist():
            k = int(flat[c])
            flat[c] = 0
            values = [v for v in range(1, side + 1) if v != k and rng.random() < 0.7] or [k]
            truth = False
            for v in values:
                trial = Grid(n, cells.copy())
                trial.cells.reshape(-1)[c] = v
                truth = truth or (rules.is_consistent(trial) and count("dlx", trial, 1) == 1)
            assert sat.covers(cells, c)
            ok, witness = sat.solvable(cells, c, values, solution.cells)
            assert ok == truth
            if ok:
                assert rules.is_solution_of(Grid(n, cells.copy()), Grid(n, witness))
                assert int(witness.reshape(-1)[c]) in values
            if rng.random() < 0.5:
                flat[c] = k                    # kept: the clue comes back, for good
                kept.append(c)
                sat.settle(cells, np.asarray(kept))
                assert c in sat.units or sat.fixed[c]
        holes = np.flatnonzero(flat == 0)
        holes = holes[~np.isin(holes, window)]
        if holes.size:                         # a clue put back where the base has none
            flat[holes[0]] = solution.cells.reshape(-1)[holes[0]]
            assert not sat.covers(cells, int(window[0]))
            flat[holes[0]] = 0
            assert sat.covers(cells, int(window[0]))
        outside = np.flatnonzero(flat)
        outside = outside[~np.isin(outside, window)]
        if outside.size:
            flat[outside[0]] = 0               # a base clue gone: the window no longer applies
            assert not sat.covers(cells, int(window[0]))
            with pytest.raises(RaceError):
                sat.solvable(cells, int(window[0]), [1])
    finally:
        sat.close()


# -- fills and large n -------------------------------------------------------------------------

@pytest.mark.parametrize("fill", ["algorithm2", "latin", "symmetric", "las-vegas"])
def test_every_fill_gives_a_solved_grid_recorded_in_the_metadata(fill):
    grid, meta = puzzle_set.make("holes", 3, 4, 0, holes=0.0, fill=fill)
    assert rules.is_solved(grid) and meta["fill"] == fill
    again, _ = puzzle_set.make("holes", 3, 4, 0, holes=0.0, fill=fill)
    assert again == grid                                   # seeded


def test_default_fill_is_algorithm2_where_feasible_then_latin():
    from generators.unique import ALGORITHM2_MAX_N
    _, small = puzzle_set.make("holes", 2, 0, 0)
    assert small["fill"] == "algorithm2"
    assert puzzle_set.identity("holes", ALGORITHM2_MAX_N, 0, 0)["fill"] == "algorithm2"
    assert puzzle_set.identity("holes", ALGORITHM2_MAX_N + 1, 0, 0)["fill"] == "latin"
    assert puzzle_set.make("unique", 2, 0, 0)[0] == puzzle_set.make("unique", 2, 0, 0, fill="auto")[0]


def test_holes_at_large_n_ask_no_solver(monkeypatch):
    monkeypatch.setattr(puzzle_set.CounterPool, "get", lambda *a: pytest.fail("counter built"))
    grid, meta = puzzle_set.make("holes", 8, 1, 0, holes=0.33)
    assert meta["fill"] == "latin" and grid.n == 8
    assert 64 ** 2 - grid.clues() == kinds.hole_count(8, 0.33)
    planted = Grid(8, np.array(meta["planted"].split(","), dtype=np.int64).reshape(64, 64))
    assert rules.is_solved(planted) and rules.is_solution_of(grid, planted)


def test_unique_from_a_latin_fill_is_unique():
    grid, meta = puzzle_set.make("unique", 3, 2, 0, fill="latin")
    assert meta["fill"] == "latin"
    assert SOLVERS["dlx"].count(grid, limit=2).count == 1


def test_manifest_records_the_fill(tmp_path):
    manifest = puzzle_set.write_set("holes", 2, 2, 0, tmp_path, holes=0.5, fill="symmetric")
    rows = list(csv.DictReader(open(manifest)))
    assert [r["fill"] for r in rows] == ["symmetric", "symmetric"]


def test_bad_fill_is_a_race_error():
    with pytest.raises(RaceError, match="fill"):
        puzzle_set.make("holes", 2, 0, 0, fill="magic")


def test_cli_fill_option_and_help():
    runner = CliRunner()
    out = runner.invoke(main, ["generate", "--n", "7", "--kind", "holes", "--holes", "0.1",
                               "--fill", "symmetric"])
    assert out.exit_code == 0, out.output
    pf = grid_text.parse(out.output)
    assert pf.metadata["fill"] == "symmetric" and pf.grids[0].n == 7
    help_text = runner.invoke(main, ["generate", "--help"]).output
    for fill in ("algorithm2", "latin", "symmetric", "las-vegas"):
        assert fill in help_text
    bad = runner.invoke(main, ["generate", "--n", "7", "--kind", "minimal"])
    assert bad.exit_code == 2 and "n <= 6" in bad.output


@pytest.mark.parametrize("n", [3, 7])
def test_unsat_from_holes_has_consistent_clues_and_no_solution(n):
    grid, meta = puzzle_set.make("unsat", n, 1, 0, **({"base": "holes"} if n <= 6 else {}))
    assert meta["base"] == "holes" and meta["holes"] == "0.2"
    assert not rules.conflicts(grid)
    assert SOLVERS["sat"].solve(grid).status == "unsat"
    assert grid.clues() == n ** 4 - kinds.hole_count(n, 0.2) + 1


@pytest.mark.parametrize("n", [7, 8])
def test_unique_beyond_n6_has_exactly_one_solution(n):
    """Algorithm 2 at n = 7, 8 (latin fill, robust counter: propagation, budgeted DLX,
    the reduced-encoding SAT fallback): the recorded solution is the only one, as an
    independent SAT count (the reduced encoding, fresh solver) confirms."""
    from solvers.sat import sudoku_cnf
    from solvers.sat.counting import enumerate_models, pysat_solver
    grid, meta = puzzle_set.make("unique", n, 3, 0)
    assert meta["fill"] == "latin" and int(meta["clues"]) == grid.clues() < n ** 4
    formula = sudoku_cnf.encode_reduced(grid, "pairwise")
    solver = pysat_solver("cadical195", formula.blocks)
    try:
        count, models, complete = enumerate_models(solver, formula.primary, 2)
    finally:
        solver.delete()
    assert (count, complete) == (1, True)
    solution = sudoku_cnf.decode(formula, models[0])
    assert puzzle_set.compact(solution.cells, n) == meta["solution"]


def test_robust_counter_beyond_n6_falls_back_to_the_reduced_encoding():
    """At n = 7 the SAT fallback is a fresh solver on the reduced encoding (the full
    encoding would be ~11M clauses): it counts a grid DLX's budget cannot settle."""
    from generators.counting import ReducedSATCounter, RobustCounter
    counter = RobustCounter(7, node_budget=1)
    cells = rules.pattern_solution(7)
    cells[:2] = 0                            # two-candidate cells: propagation stalls
    assert counter.count(cells, 2) == 2
    assert isinstance(counter._sat, ReducedSATCounter)
    assert counter.by_backend["sat_reduced"] == 1
    solvable, witness = counter.solvable(cells)
    assert solvable and rules.is_solution_of(Grid(7, cells), Grid(7, witness))


class _JitteryCounter(counting.RobustCounter):
    """The robust counter, with a random pause before each answer: forked workers answer
    out of order, so held and repeated "remove" answers are exercised."""

    def differs(self, cells, c, values, hint=None, ahead=None, settled=None):
        import os
        import time
        time.sleep(np.random.default_rng([os.getpid(), int(c), int(np.count_nonzero(cells))])
                   .uniform(0, 0.004))
        return super().differs(cells, c, values, hint, ahead, settled)


@pytest.mark.parametrize("n,seeds,workers", [(2, range(4), 3), (3, range(4), 2), (3, range(4, 6), 3),
                                             (4, range(2), 2)])
def test_speculative_removal_makes_the_same_puzzles_as_one_core(n, seeds, workers):
    """The removal phase handed to worker processes from its first question on (they ask
    ahead on the premise that undecided cells keep their clues, and answer in shuffled
    order) keeps and removes exactly the clues of the sequential loop: the same minimal
    puzzle, the same grid before the first restore, every cell tested once, and the
    workers' solver calls counted in the caller's counter."""
    from generators import speculative_removal
    from generators.unique import remove_clues, solved
    repeated = 0
    for seed in seeds:
        with make_counter(n) as counter:
            solution = solved(n, np.random.default_rng([seed, 1]), counter, "algorithm2")
        with counting.RobustCounter(n, node_budget=1) as counter:
            plain = remove_clues(solution, n, np.random.default_rng([seed, 2]), counter, minimal=True,
                                 workers=1)
        runs, during, reported = [], [], []
        original = speculative_removal.SpeculativeRemoval.run
        original_add = speculative_removal.SpeculativeRemoval._add_work

        def spy(self):
            runs.append(self)
            before = self.counter.calls + self.counter.decided
            try:
                return original(self)
            finally:
                during.append(self.counter.calls + self.counter.decided - before)

        def add_spy(self, work):
            reported.append(work["calls"] + work["decided"])
            return original_add(self, work)
        speculative_removal.SpeculativeRemoval.run = spy
        speculative_removal.SpeculativeRemoval._add_work = add_spy
        try:
            with _JitteryCounter(n, node_budget=1) as counter:
                fast = remove_clues(solution, n, np.random.default_rng([seed, 2]), counter,
                                    minimal=True, workers=workers, speculate_after=0.0)
        finally:
            speculative_removal.SpeculativeRemoval.run = original
            speculative_removal.SpeculativeRemoval._add_work = original_add
        # the workers' questions count, every one in the caller's counter (their premises differ
        # from the loop's, so their total may fall a little either side of the loop's)
        assert len(reported) == workers and sum(reported) > 0
        assert during == [sum(reported)]
        assert len(runs) == 1 and runs[0].start == 1 and runs[0].asked >= n ** 4 - 1
        assert np.array_equal(fast.puzzle, plain.puzzle)
        assert np.array_equal(fast.multi, plain.multi)
        assert fast.tested == plain.tested == n ** 4
        repeated += runs[0].repeated
    assert repeated > 0          # some "remove" answers lost their premise and were asked again


class _Unavoidable:
    """A stand-in for the removal question with a known answer: the grid is unique while every
    one of ``sets`` (unavoidable sets of cells) holds a clue; a second solution differs from
    the known one exactly on a set that lost all its clues (the witness)."""

    def __init__(self, sets):
        self.sets = sets
        self.calls = self.decided = 0
        self.seconds = 0.0
        self.by_backend = {}
        self.witness = None

    def close(self):
        pass


def _abstract_witness(solution):
    """The witness check of the abstract problem: keeps the question's clues, differs at c."""
    known = np.asarray(solution).reshape(-1)

    def check(question, c, witness):
        q, w = np.asarray(question).reshape(-1), np.asarray(witness).reshape(-1)
        return bool(np.array_equal(w[q != 0], q[q != 0]) and w[c] != known[c])
    return check


def _unavoidable_question(cells, c, k, n, counter, solution, ahead, settled):
    import os
    import time
    flat = np.asarray(cells).reshape(-1)
    time.sleep(np.random.default_rng([os.getpid(), int(c), int(np.count_nonzero(flat))]).uniform(0, 0.003))
    counter.calls += 1
    for cells_of_set in counter.sets:
        if c in cells_of_set and not flat[list(cells_of_set)].any():
            witness = np.asarray(solution).reshape(-1).copy()
            witness[list(cells_of_set)] += 1            # differs exactly on the set
            counter.witness = witness
            return False
    return True


@pytest.mark.parametrize("seed", range(6))
def test_speculative_removal_checks_each_premise_against_the_decisions(seed):
    """On an abstract removal problem with a known answer (unavoidable sets, see
    _Unavoidable), workers answering in shuffled order on guessed premises (cells assumed
    filled or empty) decide exactly what the sequential loop decides: a "keep" whose witness
    differs on a cell assumed empty but kept, or a "remove" whose cell assumed filled was
    removed, is asked again."""
    from generators import speculative_removal
    rng = np.random.default_rng(seed)
    size = 60
    sets = [set(rng.choice(size, int(rng.integers(2, 7)), replace=False).tolist()) for _ in range(45)]
    solution = rng.integers(1, 9, size).astype(np.int32)
    order = rng.permutation(size)
    cells = solution.copy()
    for c in order:                                     # the sequential loop
        cells[c] = 0
        if any(c in s and not cells[list(s)].any() for s in sets):
            cells[c] = solution[c]
    fast = solution.copy()
    runner = speculative_removal.SpeculativeRemoval(fast, solution, order, 0, 0, _Unavoidable(sets), 3,
                                                    _unavoidable_question, _abstract_witness(solution))
    kept = runner.run()
    assert np.array_equal(fast, cells)
    assert kept == [bool(cells[c]) for c in order]
    assert runner.asked >= size


def _scripted_question(cells, c, k, n, counter, solution, ahead, settled):
    import time
    time.sleep(0.3 if c == 1 else 0.0)                # cell 1's question is the slow one
    return _unavoidable_question(cells, c, k, n, counter, solution, ahead, settled)


def test_a_witness_that_differs_on_a_cell_assumed_empty_but_kept_is_asked_again(monkeypatch):
    """Order r=0, q=1, p=2; unavoidable sets {q, r} and {q, p}. Sequentially r goes, q stays
    ({q, r} lost r), p goes ({q, p} holds q). With two workers, p is asked while q's slow
    question runs, on the premise that q is empty (the last decision was a removal): its
    witness differs on {q, p}, so it holds only if q goes; q stays, and p is asked again."""
    from generators import speculative_removal
    monkeypatch.setattr(speculative_removal, "RECENT", 1)
    solution = np.array([1, 2, 3], dtype=np.int32)
    fast = solution.copy()
    runner = speculative_removal.SpeculativeRemoval(fast, solution, np.arange(3), 0, 0,
                                                    _Unavoidable([{1, 0}, {1, 2}]), 2, _scripted_question,
                                                    _abstract_witness(solution))
    assert runner.run() == [False, True, False]
    assert fast.tolist() == [0, 2, 0] and runner.repeated >= 2


def _slow_first_question(cells, c, k, n, counter, solution, ahead, settled):
    import time
    time.sleep(0.3 if c == 16 else 0.0)               # the workers' first question is the slow one
    return _unavoidable_question(cells, c, k, n, counter, solution, ahead, settled)


def test_the_premise_guess_counts_the_decisions_made_before_the_workers_began():
    """The workers begin at position 16, after the sequential loop removed 16 clues in a row.
    Positions 17 and 18 are asked while 16's slow question runs: 16 is assumed empty (the last
    16 decisions were removals), so their "remove" answers hold when 16 goes, and nothing is
    asked again. (Counting only the workers' own decisions, none yet, assumed 16 filled: both
    answers lost their premise.)"""
    from generators import speculative_removal
    solution = np.arange(1, 20, dtype=np.int32)
    fast = solution.copy()
    fast[:16] = 0                                     # the sequential loop's removals
    runner = speculative_removal.SpeculativeRemoval(fast, solution, np.arange(19), 16, 0,
                                                    _Unavoidable([]), 2, _slow_first_question,
                                                    _abstract_witness(solution))
    assert runner.run() == [False, False, False]
    assert not fast.any() and runner.repeated == 0 and runner.asked == 3


def _dying_question(cells, c, k, n, counter, solution, ahead, settled):
    import os
    if c == 2:
        os._exit(7)                                   # the worker dies mid-question
    return _unavoidable_question(cells, c, k, n, counter, solution, ahead, settled)


def _failing_question(cells, c, k, n, counter, solution, ahead, settled):
    if c == 2:
        raise ValueError("the solver broke here\nsecond line")
    return _unavoidable_question(cells, c, k, n, counter, solution, ahead, settled)


@pytest.mark.parametrize("question, message", [
    (_dying_question, r"a removal-phase worker died \(exit status 7\) at position 2 of the removal order"),
    (_failing_question, r"a removal-phase worker failed at position 2 of the removal order: "
                        r"ValueError: the solver broke here$"),
])
def test_a_removal_worker_that_dies_or_fails_is_a_one_line_error(question, message):
    """A worker that dies (killed, out of memory) or whose solver raises makes the removal a
    RaceError of one line naming the position (the CLI prints it, exit 2), not a traceback."""
    import re

    from formats.errors import RaceError
    from generators import speculative_removal
    solution = np.array([1, 2, 3, 4], dtype=np.int32)
    runner = speculative_removal.SpeculativeRemoval(solution.copy(), solution, np.arange(4), 0, 0,
                                                    _Unavoidable([{0, 1}]), 2, question,
                                                    _abstract_witness(solution))
    with pytest.raises(RaceError) as caught:
        runner.run()
    assert re.search(message, str(caught.value)) and "\n" not in str(caught.value)


def _lying_question(cells, c, k, n, counter, solution, ahead, settled):
    keep = _unavoidable_question(cells, c, k, n, counter, solution, ahead, settled)
    if not keep:
        counter.witness = np.asarray(solution).reshape(-1).copy()   # "another solution": the known one
    return keep


def test_a_witness_that_does_not_solve_its_question_is_a_one_line_error():
    """A worker whose "keep" comes with a witness that is no second solution (here: the known
    solution itself) stops the removal with a RaceError naming the cell: the witness would
    decide other answers, so it is checked, never trusted."""
    from formats.errors import RaceError
    from generators import speculative_removal
    solution = np.array([1, 2, 3, 4], dtype=np.int32)
    runner = speculative_removal.SpeculativeRemoval(solution.copy(), solution, np.arange(4), 0, 0,
                                                    _Unavoidable([{0, 1}]), 2, _lying_question,
                                                    _abstract_witness(solution))
    with pytest.raises(RaceError, match=r"second solution for cell 1 \(position 1 of the removal "
                                        r"order\) does not solve its question"):
        runner.run()


def test_the_sudoku_witness_check_wants_a_solved_grid_that_keeps_the_clues_and_differs_there(rng):
    """sudoku_witness: another solution of the 4x4 question passes; the known solution (same
    value at the cell), a grid breaking a clue, or one that is not solved fail."""
    from generators import speculative_removal
    from solvers import registry
    solution = full_grid(2, rng).cells
    for c in range(16):
        question = solution.reshape(-1).copy()
        question[[c, (c + 5) % 16, (c + 10) % 16]] = 0
        question[c] = 0
        for k in range(16):                       # empty more cells until a second solution exists
            found = registry.create("backtracking").count(Grid(2, question.reshape(4, 4)), limit=50, keep=50)
            others = [g.cells.reshape(-1) for g in found.solutions if g.cells.reshape(-1)[c] != solution.reshape(-1)[c]] \
                if found.solutions else []
            if others:
                break
            question[k] = 0
        else:
            continue
        check = speculative_removal.sudoku_witness(2, solution)
        assert check(question, c, others[0])
        assert not check(question, c, solution.reshape(-1))          # the same value at c
        broken = others[0].copy()
        filled = np.flatnonzero(question)
        if filled.size:
            j = filled[0]
            broken[j] = broken[j] % 4 + 1                         # breaks the clue at j
            assert not check(question, c, broken)
        unsolved = others[0].copy()
        unsolved[c] = 0
        assert not check(question, c, unsolved)
        return
    pytest.fail("no 4x4 question with a second solution found")


# -- the second opinion on "exactly one solution" ----------------------------------------------

@pytest.mark.parametrize("n,seed", [(2, 0), (2, 5), (3, 1), (3, 4), (4, 2)])
def test_second_opinion_agrees_with_dlx_on_unique_and_multi_puzzles(n, seed):
    """MiniSat's "another solution?" matches DLX's count on the same puzzles: none for a
    unique one, a verified different solution for a multi one (its planted grid given)."""
    from generators import second_opinion
    unique_grid, meta = puzzle_set.make("unique", n, seed, 0)
    solution = grid_text.parse_compact(meta["solution"], n, "<meta>").cells
    assert count("dlx", unique_grid) == 1
    assert second_opinion.another_solution(unique_grid.cells, solution, n) is None
    second_opinion.confirm_unique(unique_grid.cells, solution, n)
    multi_grid, meta = puzzle_set.make("multi", n, seed, 0)
    planted = grid_text.parse_compact(meta["planted"], n, "<meta>").cells
    assert count("dlx", multi_grid) == 2
    other = second_opinion.another_solution(multi_grid.cells, planted, n)
    assert other is not None and not np.array_equal(other, planted)
    assert rules.is_solution_of(multi_grid, Grid(n, other))
    with pytest.raises(RaceError, match="second solution"):
        second_opinion.confirm_unique(multi_grid.cells, planted, n)
    with pytest.raises(RaceError, match="does not solve"):
        wrong = planted.copy()
        wrong.reshape(-1)[[0, 1]] = wrong.reshape(-1)[[1, 0]]
        second_opinion.confirm_unique(multi_grid.cells, wrong, n)


class _OverconfidentCounter(counting.DLXCounter):
    """Answers every removal-phase question "still unique" (a counter bug)."""
    def differs(self, cells, c, values, hint=None, ahead=None, settled=None) -> bool:
        self.witness = None
        return False


@pytest.mark.parametrize("kind,options", [("unique", {}), ("minimal", {}),
                                          ("unsat", {"base": "unique"})])
def test_a_counter_that_wrongly_says_unique_never_becomes_a_record(kind, options):
    """Without the second opinion, this counter's puzzle (every clue removed) would be
    recorded with ``solution=`` as if it had one solution; with it: a one-line RaceError."""
    n = 2
    streams = puzzle_set.streams(n, 0, 0, kind)
    function = kinds.GENERATORS[kind][0]
    with pytest.raises(RaceError, match="second solution.*nothing was recorded") as err:
        function(n, streams, _OverconfidentCounter(n), **options)
    assert "\n" not in str(err.value)


def test_an_unsat_proof_stands_only_when_the_second_opinion_agrees(monkeypatch):
    """A holes-based unsat puzzle: MiniSat agrees. A solvable grid that the first method
    wrongly calls contradictory (propagation patched to say so): MiniSat's verified solution
    is a one-line RaceError, not an unsat record."""
    from generators import second_opinion
    grid, meta = puzzle_set.make("unsat", 3, 0, 0, base="holes")
    assert second_opinion.confirms_no_solution(grid.cells, 3, 1000)
    assert kinds.unsat_proof(grid.cells.copy(), 3) in ("propagation", "search")
    solvable, _ = puzzle_set.make("holes", 3, 0, 0, holes=0.5)
    with pytest.raises(RaceError, match="has a solution"):
        second_opinion.confirms_no_solution(solvable.cells, 3, 1000)

    # a first method that calls every wrong clue proved: the holes family's pick is solvable
    monkeypatch.setattr(kinds, "unsat_proof", lambda cells, n: "search")
    monkeypatch.setattr(kinds, "wrong_clues",
                        lambda puzzle, solution, n: np.array([[int(np.flatnonzero(puzzle.reshape(-1) == 0)[0]),
                                                               int(solution.reshape(-1)[np.flatnonzero(puzzle.reshape(-1) == 0)[0]])]]))
    with pytest.raises(RaceError, match="has a solution.*nothing was recorded"):
        puzzle_set.make("unsat", 3, 0, 0, base="holes")


class _AlarmistCounter(counting.DLXCounter):
    """Answers every removal-phase question "another solution" (a counter bug)."""
    def differs(self, cells, c, values, hint=None, ahead=None, settled=None) -> bool:
        self.witness = None
        return True


def test_a_counter_that_wrongly_says_two_solutions_never_makes_a_multi_record():
    """Its multi puzzle is the solved grid less one clue (one solution): without the second
    opinion it would be recorded as "two or more"."""
    streams = puzzle_set.streams(2, 0, 0, "multi")
    with pytest.raises(RaceError, match="multi puzzle.*one solution.*nothing was recorded"):
        kinds.multi(2, streams, _AlarmistCounter(2))


@pytest.mark.parametrize("n,seed", [(2, 1), (3, 0), (4, 0)])
def test_a_multi_record_holds_a_verified_second_solution(n, seed):
    grid, meta = puzzle_set.make("multi", n, seed, 0)
    planted = grid_text.parse_compact(meta["planted"], n, "<meta>")
    second = grid_text.parse_compact(meta["second"], n, "<meta>")
    assert second != planted and rules.is_solution_of(grid, second) and rules.is_solution_of(grid, planted)


def _interrupted_question(cells, c, k, n, counter, solution, ahead, settled):
    import os
    import signal
    if c == 1:
        os.kill(os.getpid(), signal.SIGINT)          # Ctrl-C reaches the whole process group
    return _unavoidable_question(cells, c, k, n, counter, solution, ahead, settled)


def test_a_removal_worker_leaves_ctrl_c_to_its_parent():
    """Ctrl-C goes to every process of the group; a worker must not be stopped by it inside
    its solver (PySAT's handler would leave CaDiCaL unusable, and it aborts with its own
    message): it blocks SIGINT, the parent decides, and the run answers as one core would."""
    from generators import speculative_removal
    solution = np.array([1, 2, 3, 4], dtype=np.int32)
    fast = solution.copy()
    runner = speculative_removal.SpeculativeRemoval(fast, solution, np.arange(4), 0, 0,
                                                    _Unavoidable([{0, 1}]), 2, _interrupted_question,
                                                    _abstract_witness(solution))
    assert runner.run() == [False, True, False, False]
    assert fast.tolist() == [0, 2, 0, 0]


@pytest.mark.parametrize("holes, said", [(0.0, "no empty cell"), (0.95, "try fewer holes")])
def test_an_unsat_puzzle_that_cannot_be_made_names_the_puzzle_and_the_way_out(holes, said):
    from generators import puzzle_set
    with pytest.raises(RaceError, match=rf"unsat-n3-s0-0000.sudoku: unsat: .*{said}"):
        puzzle_set.make("unsat", 3, 0, 0, base="holes", holes=holes)


@pytest.mark.parametrize("option, text, message", [
    ("--instances", "1" + "0" * 30, "--instances must be in 1..9223372036854775807"),
    ("--instances", "1_000", "--instances must be an integer (ASCII digits 0-9), got '1_000'"),
    ("--n", "\uff13", "--n must be an integer (ASCII digits 0-9)"),
    ("--seed", "\uff13", "--seed must be an integer (ASCII digits 0-9)"),
    ("--seed", str(2 ** 63), "--seed must be in 0..9223372036854775807"),
])
def test_generate_reads_numbers_as_every_other_command(option, text, message):
    """`race generate` read its numbers with int(): '1_000', full-width digits and seeds past
    int64 were taken (the other commands refuse them), and a count of 10**30 ran on."""
    args = ["generate", "--n", "2", option, text] if option != "--n" else ["generate", "--n", text]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1
    assert result.stderr.startswith(f"race: error: {message}")
