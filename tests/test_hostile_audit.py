"""The second hostile audit's findings, one test each: false claims (W), lost or
mixed data (L), tracebacks (T), leaks and hangs (K). Each failed before its fix."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from experiments.cli.main import main
from experiments.harness import runs_table
from formats import grid_text
from generators import puzzle_set
from solvers.registry import BUILTIN
from tests.conftest import process_alive
from tests.fake_solvers import fake_registry

ROOT = Path(__file__).resolve().parent.parent
EMPTY4 = str(ROOT / "tests" / "data" / "empty4.sudoku")


def invoke(*args: str, registry=None):
    return CliRunner().invoke(main, list(args), obj={"registry": registry or fake_registry()})


def script(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text("#!/usr/bin/env python3\n" + textwrap.dedent(body))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def race_cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """``race ARGS`` in a process of its own (exit codes and forks as a user sees them)."""
    return subprocess.run([sys.executable, "-c", "import sys; from experiments.cli.main import main; "
                           "sys.argv[0] = 'race'; main()", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)


def unique_puzzle(tmp_path: Path, n: int = 2) -> str:
    grid, meta = puzzle_set.make("unique", n, 0, 0)
    path = tmp_path / f"u{n}.sudoku"
    path.write_text(grid_text.format_native(grid, meta))
    return str(path)


# -- W: wrong answers ----------------------------------------------------------------------

def test_w1_a_cmd_program_that_always_says_no_solution_is_wrong_in_a_race(tmp_path):
    liar = script(tmp_path, "liar.py", 'print("no solution")\n')
    result = invoke("run", "--no-report", "--n", "2", "--instances", "2", "--kind", "unique", "--out",
                    str(tmp_path / "r"), "--solvers", f"cmd:path={liar}", "--timeout", "10")
    rows = runs_table.read_rows(next((tmp_path / "r").glob("race-*")) / "runs.csv")
    assert [r["status"] for r in rows] == ["wrong", "wrong"]
    assert "WRONG ANSWERS: 2" in result.output


def test_w1_solve_of_a_puzzle_that_records_its_solution_refuses_a_false_no_solution(tmp_path):
    liar = script(tmp_path, "liar.py", 'print("no solution")\n')
    result = invoke("solve", "-s", f"cmd:path={liar}", unique_puzzle(tmp_path))
    assert result.exit_code == 2 and "claimed no solution" in result.output


def test_w2_a_verified_grid_followed_by_none_is_the_answer(tmp_path):
    grid, meta = puzzle_set.make("unique", 2, 0, 0)
    solution = meta["solution"]
    program = script(tmp_path, "both.py", f'print("{solution}")\nprint("none")\n')
    result = invoke("solve", "-s", f"cmd:path={program}", unique_puzzle(tmp_path))
    assert result.exit_code == 0, result.output
    assert grid_text.parse(result.output).grids[0] == grid_text.parse_compact(solution, 2)


def test_w3_a_count_that_cannot_be_known_is_at_least_k(tmp_path):
    solver = script(tmp_path, "one.py", f'print("{"1234341221434321"}")\n')
    result = invoke("count", "-s", f"cmd:path={solver}", EMPTY4)
    assert result.exit_code == 0 and result.output == "at least 1\n"


def test_w3_nothing_above_the_limit_is_printed(tmp_path):
    solver = script(tmp_path, "seven.py", 'print("count 7")\nprint("1234341221434321")\n')
    result = invoke("count", "-s", f"cmd:path={solver},count_args=--count", "--limit", "2", EMPTY4)
    assert result.exit_code == 0 and result.output == "2 (limit reached)\n"


def test_w3_a_count_the_puzzle_contradicts_is_an_error(tmp_path):
    result = invoke("count", "-s", "liar-too-few", unique_puzzle(tmp_path, 2))
    assert result.exit_code == 0 and result.output == "1\n"           # true: it is unique
    many = tmp_path / "many.sudoku"
    many.write_text("# solutions=many\n" + Path(EMPTY4).read_text())
    result = invoke("count", "-s", "liar-too-few", str(many))
    assert result.exit_code == 2 and "claimed 1 solution(s), but dlx counted 288" in result.output


def test_w4_once_the_answer_is_written_the_exit_says_so(tmp_path):
    code = textwrap.dedent("""
        import sys, time
        from experiments.cli import time_limit
        time_limit.limit_wall_time(0.3, "solve", "p")
        time_limit.wait_for_leave()
        time.sleep(1.0)                 # writing a long answer, past the limit
        print("the answer", flush=True)
        sys.exit(0)
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, cwd=ROOT)
    assert (done.returncode, done.stdout, done.stderr) == (0, "the answer\n", "")


def test_w4_without_an_answer_the_limit_still_stops_the_work(tmp_path):
    code = textwrap.dedent("""
        import time
        from experiments.cli import time_limit
        time_limit.limit_wall_time(0.3, "solve", "p")
        time.sleep(5)
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, cwd=ROOT)
    assert done.returncode == 3 and "no answer within 0.3 s" in done.stderr


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "1e999"])
def test_w5_compare_refuses_a_tie_that_is_no_number(tmp_path, value):
    result = invoke("compare", str(ROOT / "results" / "reference-n2-10"), "dlx", "dlx", "--tie", value)
    assert result.exit_code == 2 and "--tie" in result.output


# -- L: lost or mixed data -----------------------------------------------------------------

@pytest.mark.parametrize("args", [["run", "--no-report", "--timeout", "nan"], ["run", "--no-report", "--timeout", "inf"],
                                  ["run", "--no-report", "--memory", "nan"], ["landscape", "--timeout", "nan"],
                                  ["solve", "--timeout", "inf", EMPTY4],
                                  ["count", "--timeout", "nan", EMPTY4],
                                  ["run", "--no-report", "--n", "٣"], ["run", "--no-report", "--instances", "３"],
                                  ["run", "--no-report", "--seed", "٣"]])
def test_l2_limits_and_counts_are_finite_ascii_numbers(tmp_path, args):
    result = invoke(*args, "--out", str(tmp_path)) if args[0] in ("run", "landscape") \
        else invoke(*args)
    assert result.exit_code == 2, result.output
    assert not (tmp_path / "instances").exists()


def test_l3_a_resume_without_meta_json_keeps_the_seed_and_the_limit(tmp_path):
    args = ["run", "--no-report", "--n", "2", "--instances", "1", "--kind", "unique", "--solvers", "dlx",
            "--out", str(tmp_path), "--campaign", "c"]
    assert invoke(*args, "--seed", "0", "--timeout", "3").exit_code == 0
    (tmp_path / "c" / "meta.json").unlink()
    result = invoke(*args, "--seed", "1", "--timeout", "7")
    assert result.exit_code == 2 and "seed" in result.output
    result = invoke(*args, "--seed", "0", "--timeout", "7")
    assert result.exit_code == 2 and "timeout_s" in result.output
    assert len(runs_table.read_rows(tmp_path / "c" / "runs.csv")) == 1


def test_l4_an_edited_program_is_recorded_both_ways_with_a_warning(tmp_path):
    program = str(tmp_path / "solver.py")
    Path(program).write_bytes((ROOT / "tests" / "outside_solvers" / "backtrack_solver.py").read_bytes())
    os.chmod(program, 0o755)
    args = ["run", "--no-report", "--n", "2", "--instances", "1", "--kind", "unique", "--out", str(tmp_path),
            "--campaign", "c", "--timeout", "10"]
    assert invoke(*args, "--solvers", f"cmd:path={program}").exit_code == 0
    meta = json.loads((tmp_path / "c" / "meta.json").read_text())
    first = meta["entrant_provenance"][f"cmd:path={program}"]["sha256"]
    with open(program, "a") as f:
        f.write("# edited\n")
    result = invoke(*args, "--solvers", f"cmd:path={program},timeout=9")
    assert result.exit_code == 0
    meta = json.loads((tmp_path / "c" / "meta.json").read_text())
    assert meta["entrant_provenance"][f"cmd:path={program}"]["sha256"] == first   # kept
    result = invoke(*args, "--solvers", f"cmd:path={program}", "--mixed")
    meta = json.loads((tmp_path / "c" / "meta.json").read_text())
    entry = meta["entrant_provenance"][f"cmd:path={program}"]
    assert entry["sha256"] != first and entry["earlier"][0]["sha256"] == first
    assert "changed since this campaign's earlier runs" in result.output


def test_an_edited_program_is_said_once_on_resume_naming_it_and_both_hashes(tmp_path):
    """Two entrants of one cmd program, the program edited, the campaign resumed: one line on
    stderr names the program and both sha256 (not one line per entrant, not cut short)."""
    import hashlib
    program = tmp_path / "solver.py"
    program.write_bytes((ROOT / "tests" / "outside_solvers" / "backtrack_solver.py").read_bytes())
    program.chmod(0o755)
    args = ["run", "--n", "2", "--instances", "1", "--kind", "unique", "--out", str(tmp_path),
            "--campaign", "c", "--timeout", "10", "--jobs", "1",
            "--solvers", f"cmd:path={program},cmd:path={program},timeout=9"]
    first = invoke(*args)
    assert first.exit_code == 0 and "changed since" not in first.stderr, first.output
    before = hashlib.sha256(program.read_bytes()).hexdigest()
    with open(program, "a") as f:
        f.write("# edited\n")
    now = hashlib.sha256(program.read_bytes()).hexdigest()
    resumed = invoke(*args, "--mixed")
    assert resumed.exit_code == 0, resumed.output
    said = [line for line in resumed.stderr.splitlines() if "changed since" in line]
    assert said == [f"race: warning: the program {program} changed since this campaign's earlier "
                    f"runs (sha256 {before} -> {now}): the rows of cmd:path={program}, "
                    f"cmd:path={program},timeout=9 now mix the two; both are recorded in "
                    "meta.json (entrant_provenance)"]
    again = invoke(*args)
    assert "changed since" not in again.stderr            # said once: nothing changed since


def test_l5_a_program_that_leaves_a_child_holding_stdout_answers_at_once(tmp_path):
    solution = "1234341221434321"
    program = script(tmp_path, "forker.py", f"""
        import os, subprocess, sys
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
        print("{solution}", flush=True)
    """)
    t0 = time.monotonic()
    done = race_cli("solve", "-s", f"cmd:path={program}", EMPTY4)
    assert done.returncode == 0 and time.monotonic() - t0 < 20
    result = invoke("run", "--no-report", "--instances", EMPTY4, "--out", str(tmp_path / "r"), "--solvers",
                    f"cmd:path={program}", "--timeout", "10")
    rows = runs_table.read_rows(next((tmp_path / "r").glob("race-*")) / "runs.csv")
    assert [r["status"] for r in rows] == ["solved"], result.output


# -- T: tracebacks and crashes -------------------------------------------------------------

@pytest.mark.parametrize("meta", ["[1, 2]", "null", '"s"', "42", '{"families": 7}',
                                  '{"commands": 5}', '{"entrants": 5}', "", '{"seed": 0, "time',
                                  "\x00\xff garbage", "cut"])
def test_t2_a_damaged_meta_json_is_a_one_line_error_on_resume(tmp_path, meta):
    """... and the file is left as it is: its provenance (created_at, the readings) is not
    overwritten by a fresh one."""
    args = ["run", "--no-report", "--n", "2", "--instances", "1", "--kind", "unique", "--solvers", "dlx",
            "--out", str(tmp_path), "--campaign", "c"]
    assert invoke(*args).exit_code == 0
    path = tmp_path / "c" / "meta.json"
    damaged = path.read_bytes()[:200] if meta == "cut" else meta.encode("latin-1")
    path.write_bytes(damaged)
    result = invoke(*args)
    assert result.exit_code == 2 and "meta.json" in result.output, result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1
    assert path.read_bytes() == damaged


def test_t1_a_dollar_in_an_entrant_spec_is_drawn_as_written(tmp_path):
    program = script(tmp_path, "liar.py", 'print("no solution")\n')
    out = tmp_path / "r"
    run = invoke("run", "--no-report", "--n", "2", "--instances", "1", "--kind", "unique", "--solvers",
                 f"dlx,cmd:path={program},args=a$_$ $HOME", "--out", str(out), "--campaign", "c")
    assert run.exit_code == 0, run.output
    plotted = invoke("plot", str(out / "c"), "-o", str(tmp_path / "p"))
    assert plotted.exit_code == 0, plotted.output
    assert (tmp_path / "p" / "runtime.png").exists()


def test_t3_a_memory_limit_past_any_address_space_is_refused(tmp_path):
    result = invoke("solve", "-s", f"cmd:path={sys.executable},memory_mb=17592186044416", EMPTY4)
    assert result.exit_code == 2 and "memory_mb" in result.output


def test_t4_pysat_maplesat_is_refused_not_a_segfault():
    done = race_cli("solve", "-s", "sat:backend=maplesat", EMPTY4)
    assert done.returncode == 2 and "maplesat" in done.stderr


def _plugin(tmp_path: Path, body: str):
    module = tmp_path / "myplugin.py"
    module.write_text(textwrap.dedent(f"""
        import sys
        from solvers.interface import RawAnswer, Solver
        class P(Solver):
            name = "p"
            def search(self, grid, limit, keep):
        {textwrap.indent(textwrap.dedent(body), ' ' * 8)}
    """))
    sys.path.insert(0, str(tmp_path))
    return BUILTIN.register("p", "myplugin:P", {})


@pytest.mark.parametrize("body, words", [("raise ValueError('boom')", "ValueError: boom"),
                                         ("return 42", "returned int"),
                                         ("sys.exit(0)", "SystemExit")])
def test_t5_a_plugin_that_misbehaves_is_a_one_line_error(tmp_path, body, words):
    sys.modules.pop("myplugin", None)
    registry = _plugin(tmp_path, body)
    try:
        result = CliRunner().invoke(main, ["solve", "-s", "p", EMPTY4], obj={"registry": registry})
    finally:
        sys.path.remove(str(tmp_path))
    assert result.exit_code == 2 and words in result.output
    assert "Traceback" not in result.output


# -- K: leaks and hangs ----------------------------------------------------------------------

def test_k1_a_cmd_programs_child_dies_with_its_cell(tmp_path):
    pidfile = tmp_path / "child.pid"
    sleeper = ROOT / "tests" / "outside_solvers" / "sleeper.py"
    invoke("run", "--no-report", "--instances", EMPTY4, "--out", str(tmp_path / "r"), "--timeout", "3",
           "--solvers", f"cmd:path={sleeper},args={{input}} {pidfile}")
    rows = runs_table.read_rows(next((tmp_path / "r").glob("race-*")) / "runs.csv")
    assert [r["status"] for r in rows] == ["timeout"]
    child = int(pidfile.read_text())
    deadline = time.monotonic() + 10
    while process_alive(child) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not process_alive(child)


def test_k2_counting_an_import_has_a_budget(tmp_path):
    from experiments.harness.instances import count_solutions
    from formats.grid import Grid
    empty = Grid.empty(3)
    assert count_solutions([empty], node_limit=5) == ["unchecked"]    # not even one yet
    assert count_solutions([empty], node_limit=10_000) == ["many"]    # two found fast
    hard = grid_text.read(str(ROOT / "tests" / "data" / "hard9.txt")).grids[1]
    assert count_solutions([hard], node_limit=1) == ["unchecked"]
    assert count_solutions([hard]) == ["1"]


# -- smaller findings ------------------------------------------------------------------------

def test_dataset_readers_take_ascii_digits_only(tmp_path):
    from formats import datasets
    from formats.errors import RaceError
    path = tmp_path / "grids.txt"
    path.write_text("4\n1 2 3 4\n3 4 1 2\n2 1 4 3\n4 3 2 ١\n")       # an Arabic-Indic one
    with pytest.raises(RaceError):
        datasets.read_dataset(path)


def test_cadical_stopped_by_its_own_limit_is_unknown_not_an_error(tmp_path):
    grid, meta = puzzle_set.make("holes", 6, 3, 0, holes=0.5, pattern="balanced")
    path = tmp_path / "h6.sudoku"
    path.write_text(grid_text.format_native(grid, meta))
    result = invoke("solve", "-s", "sat:backend=cadical,timeout=0.5", str(path))
    assert result.exit_code in (0, 3), result.output              # solved, or no answer in time
    assert "status line" not in result.output


def test_run_and_solve_read_the_same_specs():
    from experiments.harness.entrants import split_specs
    from solvers.registry import parse_spec
    specs = split_specs("dlx,cmd:path=./x,args=--opt=k:v,sat:backend=glucose4,"
                        "cmd:path=a\\,b,args=x\\,y {{input}}")
    assert specs == ["dlx", "cmd:path=./x,args=--opt=k:v", "sat:backend=glucose4",
                     "cmd:path=a\\,b,args=x\\,y {{input}}"]
    assert parse_spec(specs[1]) == ("cmd", {"path": "./x", "args": "--opt=k:v"})
    assert parse_spec(specs[3]) == ("cmd", {"path": "a,b", "args": "x,y {{input}}"})


def test_input_can_be_escaped_in_args():
    from solvers.command import Command
    solver = Command(path=sys.executable, args="-c pass {{input}} {input}")
    assert solver.command("/p", 1)[1:] == ["-c", "pass", "{input}", "/p"]
    solver = Command(path=sys.executable, args="{{input}}")
    assert solver.command("/p", 1)[1:] == ["{input}", "/p"]


def test_a_stderr_flood_keeps_the_answer_and_chatter_before_the_grid_is_skipped(tmp_path):
    solution = "1234341221434321"
    chatty = script(tmp_path, "chatty.py", f"""
        import sys
        print("solving a 4x4 now, please wait")
        print("{solution}", flush=True)
        sys.stderr.write("x" * 300000)
    """)
    result = invoke("count", "-s", f"cmd:path={chatty},max_output=100000", EMPTY4)
    assert result.exit_code == 0 and result.output == "at least 1\n", result.output
    silent = script(tmp_path, "silent.py", 'import sys\nsys.stderr.write("x" * 300000)\n')
    result = invoke("solve", "-s", f"cmd:path={silent},max_output=100000", EMPTY4)
    assert result.exit_code == 2 and "on stderr" in result.output


def test_long_entrant_names_are_never_cut_or_misaligned(tmp_path):
    from experiments.analysis import censored_stats
    from experiments.analysis.landscape import landscape_text
    from experiments.analysis.summary import summary_text
    from tests.test_analysis import run, write_campaign
    long_a = "cmd:path=/a/very/long/path/to/solver-one,args=--x"
    long_b = "cmd:path=/a/very/long/path/to/solver-one,args=--y"
    rows = [run(e, 2, f"i{k}", "solved", 0.5, family="holes", holes=0.5) for e in (long_a, long_b)
            for k in range(2)]
    campaign = censored_stats.load(write_campaign(tmp_path / "c", rows, {"entrants": [long_a, long_b]}))
    lines = summary_text(campaign).splitlines()
    assert lines[2].startswith(long_a) and lines[3].startswith(long_b)
    assert lines[2].index(" 2 ") == lines[3].index(" 2 ") == lines[0].index(" n ")
    text = landscape_text(campaign)
    assert long_a in text and long_b in text


# -- the third audit: claims race solve / race count believed ----------------------------

def test_w4_solve_and_count_confirm_a_no_solution_claim_nothing_records(tmp_path):
    """A program that answers "no solution" to everything, on a puzzle file that records
    nothing: the second method finds a verified grid, so the claim is an error (exit 2),
    not "no solution" (exit 1) or a count of 0."""
    liar = script(tmp_path, "liar.py", 'print("no solution")\n')
    for command in ("solve", "count"):
        result = invoke(command, "-s", f"cmd:path={liar}", EMPTY4)
        assert result.exit_code == 2, result.output
        assert "claimed no solution, but sat found a verified solution" in result.output


def test_w4_a_true_no_solution_stays_one_and_says_it_was_confirmed(tmp_path):
    from tests.test_referee import unsat_without_record
    path = tmp_path / "none.sudoku"
    path.write_text(grid_text.format_native(unsat_without_record()))
    for spec, by in (("dlx", "sat"), ("sat", "dlx"), ("backtracking", "sat")):
        solved = invoke("solve", "-s", spec, "--stats", str(path))
        assert solved.exit_code == 1 and "no solution" in solved.output
        assert f"(confirmed by {by})" in solved.output
        counted = invoke("count", "-s", spec, str(path))
        assert counted.exit_code == 0 and counted.output == "0\n"
    honest = script(tmp_path, "honest.py", 'print("no solution")\n')
    result = invoke("solve", "-s", f"cmd:path={honest}", str(path))
    assert result.exit_code == 1 and "no solution" in result.output


def test_w4_a_programs_count_is_checked_by_a_second_method(tmp_path):
    grid = "1234341221434321"
    liar = script(tmp_path, "three.py", f'print("count 3")\nprint("{grid}")\n')
    result = invoke("count", "-s", f"cmd:path={liar},count_args=--count", EMPTY4)
    assert result.exit_code == 2 and "claimed 3 solution(s), but dlx counted 288" in result.output
    right = script(tmp_path, "right.py", f'print("count 288")\nprint("{grid}")\n')
    result = invoke("count", "-s", f"cmd:path={right},count_args=--count", EMPTY4)
    assert result.exit_code == 0 and result.output == "288\n"


@pytest.mark.parametrize("closed, args, said", [
    ("stdin", ["solve", "-"], "standard input is closed"),
    ("stdin", ["sat-solve", "-"], "standard input is closed"),
    ("stdout", ["solve", EMPTY4], "standard output is closed"),
    ("stderr", ["solve", "no-such-file.sudoku"], None),
    ("full-stderr", ["solve", "no-such-file.sudoku"], None),
])
def test_t3_a_closed_or_full_standard_stream_is_exit_2_not_a_traceback(closed, args, said):
    """Python sets a closed stream to None (AttributeError tracebacks, exit 1: "no solution"
    to a script); a full stderr made an error exit 1 too."""
    fd = {"stdin": 0, "stdout": 1, "stderr": 2}.get(closed)
    streams = {"stdin": subprocess.DEVNULL, "stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
    if closed == "full-stderr":
        streams["stderr"] = open("/dev/full", "w")
    code = ("import os, sys; from experiments.cli.main import main; sys.argv[0] = 'race'; "
            + (f"os.close({fd}); " if fd is not None else "")
            + ("sys.stdin = None; " if fd == 0 else "sys.stdout = None; " if fd == 1 else
               "sys.stderr = None; " if fd == 2 else "")
            + "main()")
    done = subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, timeout=120, **streams)
    assert done.returncode == 2
    if said is not None:
        err = done.stderr.decode()
        assert said in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
