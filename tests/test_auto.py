"""The `auto` entrant (solvers.auto), its committed rule table, and `race portfolio`
(experiments.analysis.portfolio) that learns the table from a campaign."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from experiments.analysis import censored_stats, portfolio
from experiments.cli.main import main as cli
from formats import grid_text
from formats.errors import RaceError
from solvers import auto, registry, rules
from tests.conftest import full_grid, puzzle_from
from tests.test_analysis import run, write_campaign

REPO = Path(__file__).resolve().parents[1]
REFERENCE = REPO / "results" / "reference-n2-10"
HARD5 = REPO / "results" / "reference-hard-n5"
HARD6 = REPO / "results" / "reference-hard-n6"
FALLBACK5 = [REPO / "results" / f"reference-hard-n5-fallback{s}" for s in ("", "-s10", "-s0")]
CONFIG = [REPO / "results" / name for name in
          ("reference-hard-n5-config-s10", "reference-hard-n5-config-s11", "reference-hard-n6-config")]
HARD9 = REPO / "tests" / "data" / "hard9.txt"


def _table(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "portfolio.csv"
    path.write_text(text)
    return path


RULES = ("n,empty_from,empty_to,entrant,reason,campaign\n"
         "3,0,0.5,backtracking,few holes,c\n3,0.5,1,dlx,many holes,c\n5,0,1,sat,all,c\n")


def test_choose_takes_the_range_of_the_share_and_the_nearest_n(tmp_path):
    rules_ = auto.read_rules(_table(tmp_path, RULES))
    assert auto.choose(rules_, 3, 0.2)[0].entrant == "backtracking"
    assert auto.choose(rules_, 3, 0.5)[0].entrant == "dlx"          # a boundary belongs to the upper range
    assert auto.choose(rules_, 3, 1.0)[0].entrant == "dlx"
    assert auto.choose(rules_, 4, 0.9) == (rules_[1], 3)              # tie between n = 3 and 5: the smaller
    assert auto.choose(rules_, 9, 0.1) == (rules_[2], 5)
    why = auto.explain(rules_[2], 9, 5, 0.1)
    assert why.startswith("n = 9 (81x81), 10% empty: the rule for n = 5, 0-100% empty picks sat")
    assert "nearest n = 5" in why and "campaign c" in why


@pytest.mark.parametrize("text, where", [
    ("n,entrant\n3,dlx\n", "line 1"),
    ("n,empty_from,empty_to,entrant\n3,0,x,dlx\n", "line 2"),
    ("n,empty_from,empty_to,entrant\n3,0,1,dlx\n3,0.6,0.5,sat\n", "line 3"),
    ("n,empty_from,empty_to,entrant\n3,0,1,auto\n", "line 2"),
])
def test_a_malformed_table_is_a_one_line_error_naming_the_line(tmp_path, text, where):
    with pytest.raises(RaceError) as error:
        auto.read_rules(_table(tmp_path, text))
    assert where in str(error.value) and "\n" not in str(error.value)


def test_auto_runs_the_picked_entrant_and_the_answer_is_verified(tmp_path, rng):
    solver = registry.create(f"auto:table={_table(tmp_path, RULES)}")
    few = puzzle_from(full_grid(3, rng), 0.3, rng)
    result = solver.solve(few)
    assert result.status == "solved" and rules.is_solution_of(few, result.solution)
    assert solver.last_choice[0] == "backtracking" and "nodes" in result.counters
    assert "choose" in result.times
    many = puzzle_from(full_grid(3, rng), 0.7, rng)
    result = solver.count(many, limit=2)
    assert solver.last_choice[0] == "dlx" and result.count >= 1 and "updates" in result.counters


def test_the_committed_table_is_learned_from_the_reference_campaign():
    """The rule is reproducible: `race portfolio results/reference-n2-10 results/reference-hard-n5
    results/reference-hard-n6 results/reference-hard-n5-fallback results/reference-hard-n5-fallback-s10
    results/reference-hard-n5-fallback-s0 results/reference-hard-n5-config-s10
    results/reference-hard-n5-config-s11 results/reference-hard-n6-config` writes the same table."""
    learned = portfolio.learn([censored_stats.load(c) for c in (REFERENCE, HARD5, HARD6, *FALLBACK5, *CONFIG)])
    committed = pd.read_csv(auto.TABLE_PATH)
    assert committed["entrant"].tolist() == learned["entrant"].tolist()
    assert committed[["n", "wins", "instances"]].values.tolist() == learned[["n", "wins", "instances"]].values.tolist()
    assert committed["empty_to"].tolist() == pytest.approx(learned["empty_to"].tolist(), abs=1e-4)
    # a public-style 25x25 with 60% holes goes to SAT (dlx needs minutes on such puzzles), in
    # CaDiCaL's sat configuration: on the 40 hard n = 5 puzzles raced by all four, its PAR-2 is
    # the lowest (sat:fallback=kissat next, then sat, then kissat)
    rule, used = auto.choose(auto.read_rules(), 5, 0.6)
    assert (rule.entrant, used) == ("sat:config=sat", 5)
    assert "for sat:fallback=kissat, the next best, on the 40 puzzles they all raced" in rule.reason


def test_learn_picks_among_the_entrants_that_answered_most(tmp_path):
    rows = []
    for k in range(4):      # family "few" at n = 2 (25% empty): fast wins 3 but misses one; safe answers all
        rows.append(run("fast", 2, f"f{k}", "timeout" if k == 3 else "solved", 0.1, family="few", clues=12))
        rows.append(run("safe", 2, f"f{k}", "solved", 0.2 if k < 3 else 0.5, family="few", clues=12))
    for k in range(4):      # family "many" at n = 2 (75% empty): nobody answers
        rows += [run(e, 2, f"m{k}", "timeout", None, family="many", clues=4) for e in ("fast", "safe")]
    for k in range(2):      # n = 3, 50% empty: fast wins everything
        rows += [run("fast", 3, f"t{k}", "solved", 0.1, family="few", clues=40),
                 run("safe", 3, f"t{k}", "solved", 0.3, family="few", clues=40)]
    rows.append(run("cmd:path=x", 3, "t0", "solved", 0.01, family="few", clues=40))   # never picked
    campaign = censored_stats.load(write_campaign(tmp_path / "c", rows,
                                            {"entrants": ["fast", "safe", "cmd:path=x"]}))
    with pytest.raises(RaceError, match="no built-in entrant"):
        portfolio.learn(campaign)
    campaign.runs["entrant"] = campaign.runs["entrant"].replace({"fast": "dlx", "safe": "sat"})
    campaign.meta["entrants"] = ["dlx", "sat", "cmd:path=x"]
    table = portfolio.learn(campaign)
    assert table[["n", "empty_from", "empty_to", "entrant", "wins", "instances"]].values.tolist() == [
        [2, 0.0, 1.0, "sat", 1, 8],             # few: sat answered 4/4 (dlx 3/4); many: nearest share
        [3, 0.0, 1.0, "dlx", 2, 2]]
    assert "many: nobody answered, nearest share few" in table.loc[0, "reason"]


def test_a_family_nobody_answered_at_some_n_takes_its_own_pick_at_the_nearest_n(tmp_path):
    """hard is answered at n = 2 (sat wins) and nobody answers it at n = 3 or 4, where
    the easy family at the same n goes to dlx: hard keeps sat, its own nearest n's pick."""
    rows = []
    for k in range(3):
        rows += [run("dlx", 2, f"h{k}", "solved", 0.5, family="hard", clues=6),
                 run("sat", 2, f"h{k}", "solved", 0.1, family="hard", clues=6)]
        for n in (3, 4):
            rows += [run(e, n, f"h{n}{k}", "timeout", None, family="hard", clues=n ** 4 // 3)
                     for e in ("dlx", "sat")]
            rows += [run("dlx", n, f"e{n}{k}", "solved", 0.1, family="easy", clues=n ** 4 * 2 // 3),
                     run("sat", n, f"e{n}{k}", "solved", 0.3, family="easy", clues=n ** 4 * 2 // 3)]
    campaign = censored_stats.load(write_campaign(tmp_path / "c", rows, {"entrants": ["dlx", "sat"]}))
    table = portfolio.learn(campaign)
    for n in (3, 4):
        mine = table[table["n"] == n]
        assert mine["entrant"].tolist() == ["dlx", "sat"]       # easy (few empty), then hard
        assert f"hard: nobody answered at n={n}, as at n=2" in mine["reason"].iloc[1]


def test_campaigns_are_pooled_per_family_and_n(tmp_path):
    """The main campaign's limit let nobody answer hard at n = 3; a second campaign with a
    longer limit on those cells teaches the pick (kissat answers more than sat there)."""
    main_rows, long_rows = [], []
    for k in range(4):
        main_rows += [run("sat", 2, f"h{k}", "solved", 0.1, family="hard", clues=6),
                      run("kissat", 2, f"h{k}", "solved", 0.2, family="hard", clues=6),
                      run("sat", 3, f"g{k}", "timeout", None, family="hard", clues=30),
                      run("kissat", 3, f"g{k}", "timeout", None, family="hard", clues=30)]
        long_rows += [run("sat", 3, f"g{k}", "solved" if k == 0 else "timeout", 5.0 if k == 0 else None,
                          family="hard", clues=30),
                      run("kissat", 3, f"g{k}", "solved" if k < 3 else "timeout", 8.0 if k < 3 else None,
                          family="hard", clues=30)]
    main = censored_stats.load(write_campaign(tmp_path / "main", main_rows, {"entrants": ["sat", "kissat"]}))
    alone = portfolio.learn(main)
    assert alone.set_index("n").loc[3, "entrant"] == "sat"          # as at n = 2
    longer = censored_stats.load(write_campaign(tmp_path / "long", long_rows, {"entrants": ["sat", "kissat"]}))
    table = portfolio.learn([main, longer]).set_index("n")
    assert table.loc[3, "entrant"] == "kissat" and table.loc[3, "instances"] == 8
    assert table.loc[3, "reason"].startswith("hard: 2/8 wins, 3/8 answered, PAR-2 ")   # sat won g0
    assert table.loc[3, "reason"].endswith(" s (2 campaigns)")
    assert table.loc[2, "entrant"] == "sat" and table.loc[2, "instances"] == 4
    assert table.loc[3, "campaign"] == f"{main.name}+{longer.name}"
    assert CliRunner().invoke(cli, ["portfolio", str(tmp_path / "main"), str(tmp_path / "long"),
                                    "-o", str(tmp_path / "p.csv")]).exit_code == 0
    assert pd.read_csv(tmp_path / "p.csv").set_index("n").loc[3, "entrant"] == "kissat"


def test_among_equal_answers_the_lowest_par2_is_picked_and_shares_not_counts_compare(tmp_path):
    """quick wins 3 of 4 instances by a hair but is slow on the fourth; steady loses those
    three by a hair and is fast on the fourth: steady has the lower PAR-2 and is picked, with
    fewer wins. A second campaign races a third entrant on some of those puzzles and another
    one: it is compared on the puzzles they all raced, not each on its own."""
    rows = []
    for k in range(4):
        rows += [run("sat", 5, f"h{k}", "solved", 0.10 if k < 3 else 9.0, family="hard", clues=280,
                     instance_sha256=f"h{k}"),
                 run("kissat", 5, f"h{k}", "solved", 0.11 if k < 3 else 1.0, family="hard", clues=280,
                     instance_sha256=f"h{k}")]
    first = censored_stats.load(write_campaign(tmp_path / "a", rows, {"entrants": ["sat", "kissat"]}))
    table = portfolio.learn(first)
    assert table["entrant"].tolist() == ["kissat"] and table.loc[0, "wins"] == 1
    assert table.loc[0, "reason"].startswith("hard: 1/4 wins, 4/4 answered, PAR-2 ")
    # a third entrant raced in another campaign, on two of those puzzles (h0, h3) and on one
    # more: it answered all it raced (a share of 1, like the others), so it is compared with
    # them on the puzzles they all raced, h0 and h3: there its PAR-2, 0.5 s, beats kissat's
    # (0.555 s), though over its own puzzles, with the easy g0, it would look better still
    other = [run("sat:fallback=kissat", 5, k, "solved", t, family="hard", clues=280, instance_sha256=k)
             for k, t in (("h0", 0.2), ("h3", 0.8), ("g0", 0.01))]
    second = censored_stats.load(write_campaign(tmp_path / "b", other, {"entrants": ["sat:fallback=kissat"]}))
    pooled = portfolio.learn([first, second])
    assert pooled["entrant"].tolist() == ["sat:fallback=kissat"] and pooled.loc[0, "instances"] == 3
    assert "PAR-2 500 ms against 555 ms for kissat, the next best, on the 2 puzzles they all raced, " \
        "fastest on 1 of them" in pooled.loc[0, "reason"]      # h3 (0.8 s); sat was fastest on h0
    slower = [run("sat:fallback=kissat", 5, k, "solved", t, family="hard", clues=280, instance_sha256=k)
              for k, t in (("h0", 0.5), ("h3", 0.8), ("g0", 0.01))]
    third = censored_stats.load(write_campaign(tmp_path / "c", slower, {"entrants": ["sat:fallback=kissat"]}))
    assert portfolio.learn([first, third])["entrant"].tolist() == ["kissat"]   # 0.65 s > 0.555 s


def test_race_portfolio_writes_a_table_auto_reads(tmp_path):
    out = tmp_path / "mine.csv"
    result = CliRunner().invoke(cli, ["portfolio", str(REFERENCE), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert f"wrote {out}" in result.output and "sat" in result.output
    puzzle = tmp_path / "p.txt"
    puzzle.write_text(HARD9.read_text().splitlines()[2] + "\n")
    solved = CliRunner().invoke(cli, ["solve", "-s", f"auto:table={out}", "--stats", str(puzzle)])
    assert solved.exit_code == 0, solved.output
    (clues,) = grid_text.parse(puzzle.read_text()).grids
    rule, _ = auto.choose(auto.read_rules(out), 3, float((clues.cells == 0).mean()))
    assert f"auto picked {rule.entrant}: n = 3 (9x9)" in solved.stderr
    (grid,) = grid_text.parse(solved.stdout).grids
    assert rules.is_solution_of(clues, grid)


def test_auto_is_the_default_of_solve_and_count_and_backtracking_one_option_away(tmp_path, rng):
    p = puzzle_from(full_grid(2, rng), 0.5, rng)
    f = tmp_path / "p.sudoku"
    f.write_text(grid_text.format_native(p))
    default = CliRunner().invoke(cli, ["solve", "--stats", str(f)])
    committed = auto.read_rules()
    picked = auto.choose(committed, 2, 0.5)[0].entrant
    assert default.exit_code == 0 and f"auto picked {picked}: n = 2 (4x4), 50% empty" in default.stderr
    plain = CliRunner().invoke(cli, ["solve", "-s", picked, "--stats", str(f)])
    assert plain.exit_code == 0 and plain.stdout == default.stdout and "auto" not in plain.stderr
    counted = CliRunner().invoke(cli, ["count", "--stats", "-"], input=". . . .\n" * 4)
    empty_pick = auto.choose(committed, 2, 1.0)[0].entrant
    assert counted.stdout == "288\n" and f"auto picked {empty_pick}: n = 2 (4x4), 100% empty" in counted.stderr
    assert "[default: auto]" in " ".join(CliRunner().invoke(cli, ["solve", "--help"]).output.split())


def test_auto_picks_per_puzzle_when_the_puzzles_differ(tmp_path, rng):
    """Two puzzles of one n whose shares of empty cells fall under rules of two different
    entrants of the committed table: each gets its own rule's entrant."""
    committed = auto.read_rules()
    n, (first, second) = next((r.n, (r, s)) for r in committed for s in committed
                              if r.n == s.n and r.entrant != s.entrant and r.n <= 3)
    shares = [round((rule.empty_from + rule.empty_to) / 2, 2) for rule in (first, second)]
    lines = [grid_text.format_one_line(puzzle_from(full_grid(n, rng), share, rng)) for share in shares]
    f = tmp_path / "two.txt"
    f.write_text("\n".join(lines) + "\n")
    result = CliRunner().invoke(cli, ["solve", "--stats", str(f)])
    assert result.exit_code == 0, result.output
    picks = [auto.choose(committed, n, float((grid_text.parse(line).grids[0].cells == 0).mean()))[0].entrant
             for line in lines]
    assert picks == [first.entrant, second.entrant]
    assert f"puzzle 1: auto picked {picks[0]}" in result.stderr
    assert f"puzzle 2: auto picked {picks[1]}" in result.stderr
    solved = grid_text.parse(result.stdout).grids
    assert all(rules.is_solution_of(grid_text.parse(line).grids[0], s) for line, s in zip(lines, solved))


def test_a_picked_entrant_that_cannot_run_here_is_replaced_by_in_process_sat(tmp_path, rng, monkeypatch):
    monkeypatch.setenv("KISSAT", str(tmp_path / "no-such-kissat"))
    table = _table(tmp_path, "n,empty_from,empty_to,entrant,reason,campaign\n3,0,1,kissat,won,c\n")
    solver = registry.create(f"auto:table={table}")
    solver.warmup()
    puzzle = puzzle_from(full_grid(3, rng), 0.6, rng)
    result = solver.solve(puzzle)
    assert result.status == "solved" and rules.is_solution_of(puzzle, result.solution)
    spec, why = solver.last_choice
    assert spec == auto.FALLBACK and "kissat cannot run here" in why and "no-such-kissat" in why
    f = tmp_path / "p.sudoku"
    f.write_text(grid_text.format_native(puzzle))
    cli_run = CliRunner().invoke(cli, ["solve", "-s", f"auto:table={table}", "--stats", str(f)])
    assert cli_run.exit_code == 0, cli_run.output
    assert f"auto picked {auto.FALLBACK}" in cli_run.stderr and "kissat cannot run here" in cli_run.stderr


@pytest.mark.parametrize("cfg_time, expected", [(1.9, "sat:config=sat"), (2.1, "kissat")])
def test_a_puzzle_raced_again_with_a_longer_limit_counts_as_answered(tmp_path, cfg_time, expected):
    """Campaign a races sat and kissat on four hard puzzles: all time out. Campaign b races kissat
    again on them with three times the limit: it answers h0 (in 2 limits). Campaign c races a new
    entrant, sat:config=sat, on the same four with that limit: it answers h0 too. kissat's own share is 1/8
    (its four timeouts of a count), sat:config=sat's 1/4; on the puzzles both raced they answered as many,
    so they are compared there (kissat's answer in b counts, not its timeout in a), by PAR-2."""
    from tests.test_analysis import LIMIT
    a = [run(e, 6, f"h{k}", "timeout", None, family="hard", clues=700, instance_sha256=f"h{k}")
         for e in ("sat", "kissat") for k in range(4)]
    long = {"timeout_s": 3 * LIMIT}

    def longer(entrant: str, seconds: float) -> list[dict]:
        rows = [run(entrant, 6, f"h{k}", "timeout", None, family="hard", clues=700, instance_sha256=f"h{k}",
                    timeout_s=3 * LIMIT, wall_s=3 * LIMIT, cpu_s=3 * LIMIT) for k in range(1, 4)]
        return rows + [run(entrant, 6, "h0", "solved", seconds * LIMIT, family="hard", clues=700,
                           instance_sha256="h0", timeout_s=3 * LIMIT)]
    campaigns = [censored_stats.load(write_campaign(tmp_path / "a", a, {"entrants": ["sat", "kissat"]})),
                 censored_stats.load(write_campaign(tmp_path / "b", longer("kissat", 2.0), {"entrants": ["kissat"]} | long)),
                 censored_stats.load(write_campaign(tmp_path / "c", longer("sat:config=sat", cfg_time), {"entrants": ["sat:config=sat"]} | long))]
    table = portfolio.learn(campaigns)
    assert table["entrant"].tolist() == [expected]
    other = "kissat" if expected == "sat:config=sat" else "sat:config=sat"
    assert f"for {other}, the next best, on the 4 puzzles both raced, fastest on 1 of them" \
        in table.loc[0, "reason"]


def test_two_par2_means_that_round_alike_are_printed_apart(tmp_path):
    """PAR-2 means equal to three significant digits get as many more as they need to differ."""
    rows = []
    for k in range(4):
        rows += [run("dlx", 5, f"h{k}", "solved", 1.0001 if k else 1.231, family="hard", clues=280,
                     instance_sha256=f"h{k}"),
                 run("sat", 5, f"h{k}", "solved", 1.0002 if k else 1.232, family="hard", clues=280,
                     instance_sha256=f"h{k}")]
    table = portfolio.learn(censored_stats.load(write_campaign(tmp_path / "a", rows, {"entrants": ["dlx", "sat"]})))
    assert table["entrant"].tolist() == ["dlx"]
    assert "PAR-2 1.0578 s against 1.0581 s for sat" in table.loc[0, "reason"]


def test_families_that_share_their_puzzles_each_count(tmp_path):
    """hard at a small n can be the very puzzles of holes@0.7 (the same files): each family's
    results count, and each has its share of empty cells (one was dropped as a duplicate)."""
    rows = []
    for family in ("hard", "holes@0.7"):
        for k in range(3):
            rows += [run("dlx", 2, f"shared{k}", "solved", 0.1, family=family, clues=5),
                     run("sat", 2, f"shared{k}", "solved", 0.3, family=family, clues=5)]
    campaign = censored_stats.load(write_campaign(tmp_path / "c", rows, {"entrants": ["dlx", "sat"]}))
    table = portfolio.learn(campaign)
    assert table[["n", "entrant", "wins", "instances"]].values.tolist() == [[2, "dlx", 6, 6]]
    reason = table.loc[0, "reason"]
    assert "hard: 3/3 wins" in reason and "holes@0.7: 3/3 wins" in reason


def test_a_portfolio_table_is_written_whole_or_not_at_all(tmp_path, monkeypatch):
    """auto reads the table: a full disk must leave the old one as it was, never a cut one;
    a file where a directory is needed is named as such ("File exists" before)."""
    out = tmp_path / "mine.csv"
    assert CliRunner().invoke(cli, ["portfolio", str(REFERENCE), "-o", str(out)]).exit_code == 0
    before = out.read_bytes()
    real = pd.DataFrame.to_csv

    def full(self, target, *args, **kwargs):
        Path(target).write_text("n,empty_from\n2,")
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(pd.DataFrame, "to_csv", full)
    failed = CliRunner().invoke(cli, ["portfolio", str(REFERENCE), "-o", str(out)])
    assert failed.exit_code == 2 and "No space left" in failed.output
    assert out.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["mine.csv"]
    monkeypatch.setattr(pd.DataFrame, "to_csv", real)
    (tmp_path / "afile").write_text("")
    blocked = CliRunner().invoke(cli, ["portfolio", str(REFERENCE), "-o", str(tmp_path / "afile" / "x.csv")])
    assert blocked.exit_code == 2 and "afile exists and is not a directory" in blocked.output


def test_p2_a_table_whose_parallel_entrant_holds_auto_is_refused(tmp_path):
    """A parallel entry with an auto member on that same table would pick without end: the
    table is refused on one line, as an auto entry is."""
    table = tmp_path / "portfolio.csv"
    table.write_text("n,empty_from,empty_to,entrant,reason,campaign\n"
                     f"3,0,1,parallel:members=dlx+auto:table={table},loop,c\n")
    with pytest.raises(RaceError, match="nor a parallel entrant with an auto member") as caught:
        registry.create(f"auto:table={table}")
    assert "line 2" in str(caught.value) or ":2" in str(caught.value)
    result = CliRunner().invoke(cli, ["solve", "-s", f"auto:table={table}", str(HARD9)])
    assert result.exit_code == 2 and "RecursionError" not in result.output
    assert result.output.strip().count("\n") == 0


def test_race_portfolio_by_default_writes_the_current_directory_not_the_package(tmp_path, monkeypatch):
    """Without -o the table goes to ./portfolio.csv, named in the output; the installed
    solvers/portfolio.csv (read-only in a system install, shared by every user otherwise) is
    left as it was."""
    before = (auto.TABLE_PATH.read_bytes(), auto.TABLE_PATH.stat().st_mtime_ns)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["portfolio", str(REFERENCE)])
    assert result.exit_code == 0, result.output
    assert (auto.TABLE_PATH.read_bytes(), auto.TABLE_PATH.stat().st_mtime_ns) == before
    assert [p.name for p in tmp_path.iterdir()] == ["portfolio.csv"]
    assert "wrote portfolio.csv" in result.output
    assert "auto:table=portfolio.csv" in result.output
    expected = portfolio.learn([censored_stats.load(REFERENCE)])["entrant"].tolist()
    assert [r.entrant for r in auto.read_rules(tmp_path / "portfolio.csv")] == expected
