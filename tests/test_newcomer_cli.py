"""What a newcomer meets first on the command line: bounds as the help writes them, a hint for a
misspelt entrant, help that fits 80 columns and tells no anecdotes, life shown in a log, no
run.lock left behind."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from experiments.cli.main import main
from experiments.harness import conditions
from experiments.harness.lock import LOCK_NAME
from tests.fake_solvers import fake_registry
from tests.test_harness import write_instances

COMMANDS = main.list_commands(click.Context(main))


def invoke(*args: str, **kwargs):
    return CliRunner().invoke(main, list(args), **kwargs)


@pytest.mark.parametrize("args, said", [
    (["run", "-j", "0"], "must be at least 1, not 0"),
    (["count", "--limit", "0", "x.sudoku"], "must be at least 1, not 0"),
    (["cover", "-j", "5000", "x"], "must be in 1..1024, not 5000"),
])
def test_bounds_read_as_the_help_writes_them(args, said):
    result = invoke(*args)
    assert result.exit_code == 2 and said in result.output, result.output
    assert "9223372036854775807" not in result.output


def test_a_misspelt_entrant_gets_a_suggestion():
    result = invoke("run", "--solvers", "dxl", "--n", "2")
    assert result.exit_code == 2 and "did you mean dlx?" in result.output


@pytest.mark.parametrize("command", ["", *COMMANDS])
def test_help_fits_80_columns(command):
    text = invoke(*[c for c in (command,) if c], "--help", terminal_width=80).output
    assert max(len(line) for line in text.splitlines()) <= 80, \
        [line for line in text.splitlines() if len(line) > 80]


def test_the_help_says_what_a_newcomer_needs():
    top = invoke("--help").output
    quick = top[top.index("Quick start"):]
    assert "race run" in quick
    assert "2 when PUZZLE cannot be read" in " ".join(invoke("check", "--help").output.split())
    generate = invoke("generate", "--help").output
    assert "--family, --kind" in generate and "--kind is its older name" in " ".join(generate.split())
    run = " ".join(invoke("run", "--help").output.split())
    for anecdote in ("measured on", "medians of", "load ~"):
        assert anecdote not in run
    for command in ("encode", "decode"):
        lines = invoke(command, "--help").output.splitlines()
        assert not [line for line in lines if line.strip().startswith("kissat ")]
        assert any("race sat-solve --backend kissat" in line for line in lines)


def test_generate_takes_family_and_its_older_name(tmp_path):
    for flag in ("--family", "--kind"):
        result = invoke("generate", "--n", "2", flag, "unique", "-o", str(tmp_path / flag))
        assert result.exit_code == 0, result.output


def _race(out, *extra):
    return invoke("run", "--no-report", "--out", str(out), "--kind", "unique", "--n", "2",
                  "--timeout", "20", "--solvers", "slow:delay=0.01", "--instances", "2",
                  "--campaign", "c", *extra, obj={"registry": fake_registry()})


def test_a_log_shows_life_and_quiet_shows_none_and_no_lock_is_left(tmp_path, monkeypatch):
    monkeypatch.setattr(conditions, "_calibrate_on", lambda cpu, samples=None: None)
    write_instances(tmp_path, 2, 2)
    result = _race(tmp_path, "-j", "999")
    assert result.exit_code == 0, result.output
    assert result.stderr.count("-j 999 is more than the") == 1
    lines = [line for line in result.stderr.splitlines() if line.startswith("race run: ")]
    assert lines and lines[-1].startswith("race run: 2/2 cells (100%)")
    assert not (tmp_path / "c" / LOCK_NAME).exists()
    (tmp_path / "c" / "runs.csv").unlink()
    quiet = _race(tmp_path, "--quiet", "-j", "1")
    assert quiet.exit_code == 0 and "race run: " not in quiet.stderr
    assert not (tmp_path / "c" / LOCK_NAME).exists()


def test_the_hard_family_is_called_hard_in_the_log(tmp_path, monkeypatch):
    monkeypatch.setattr(conditions, "_calibrate_on", lambda cpu, samples=None: None)
    result = invoke("run", "--no-report", "--out", str(tmp_path), "--family", "hard", "--n", "2",
                    "--solvers", "slow:delay=0.01", "--instances", "1", "-j", "1",
                    obj={"registry": fake_registry()})
    assert result.exit_code == 0, result.output
    assert "generating 1 hard instance(s) (the generator's holes with holes=0.7" in result.stderr
    assert "generating 1 holes" not in result.stderr


def test_plain_progress_says_a_line_every_30_s_or_10_percent():
    import io

    from experiments.cli.run_progress import PlainProgress
    from experiments.harness.rows import Row
    times = iter([0.0, 1.0, 31.5, 32.0] + [33.0] * 20)
    out = io.StringIO()
    shown = PlainProgress(100, out, clock=lambda: next(times))
    shown.update(Row(entrant="dlx", n=2, status="solved"))          # t = 1: quiet
    shown.update(Row(entrant="dlx", n=3, status="timeout"))         # t = 31.5: a line
    for _ in range(10):                                                   # 12 of 100: a line
        shown.update(Row(entrant="sat", n=3, status="solved"))
    shown.close()
    lines = out.getvalue().splitlines()
    assert lines[0] == "race run: 2/100 cells (2%), 0:00:31; last: dlx n=3: timeout"
    assert lines[1].startswith("race run: 12/100 cells (12%)") and len(lines) == 2
