"""`race run` ends in its plots: the figures and the HTML report in the campaign directory, the
files named with the commands to run next; --no-report skips them; a figure that fails to
render is one line and loses no row; an interrupted run says where its rows are."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from click.testing import CliRunner

from experiments.analysis import censored_stats
from experiments.cli.main import main
from experiments.harness import runs_table
from experiments.report import instance_grids
from formats.errors import RaceError
from tests.test_harness import write_instances

FIGURES = ("runtime", "solved", "cactus")


@pytest.fixture
def out(tmp_path: Path) -> Path:
    write_instances(tmp_path, 2, 2)
    return tmp_path


def race(out: Path, *args: str):
    return CliRunner().invoke(main, ["run", "--out", str(out), "--kind", "unique", "--n", "2",
                                     "--instances", "2", "--solvers", "backtracking,dlx",
                                     "--timeout", "10", "--jobs", "1", "--campaign", "c", *args])


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """One real run of two entrants on n = 2, with its figures and HTML report."""
    root = tmp_path_factory.mktemp("run")
    write_instances(root, 2, 2)
    result = race(root)
    return root, result


def test_the_run_ends_with_its_figures_the_html_report_and_what_to_run_next(finished):
    root, result = finished
    assert result.exit_code == 0, result.output
    campaign = root / "c"
    lines = result.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("results: "))
    tail = lines[start:]
    assert tail[0] == f"results: {campaign / 'runs.csv'} and {campaign / 'meta.json'}"
    named = [Path(line.split()[-1]) for line in tail if line.strip().endswith(".png")]
    for figure in FIGURES:
        path = campaign / "plots" / f"{figure}.png"
        assert path in named and path.stat().st_size > 1000, figure
        assert path.read_bytes().startswith(b"\x89PNG")
    page = campaign / "report.html"
    assert f"report:  {page} (interactive, offline: open it in a browser)" in tail
    assert "Plotly.newPlot" in page.read_text(encoding="utf-8")
    assert tail[-4] == "next:"
    assert tail[-3].split("#")[0].split() == ["race", "report", str(campaign)]
    assert tail[-2].split("#")[0].split() == ["race", "compare", str(campaign), "backtracking", "dlx"]
    assert tail[-1].split("#")[0].split() == ["race", "export", str(campaign), "-f", "markdown"]


def test_the_html_report_reads_the_raced_files_from_the_instance_cache(finished):
    """The runs name an instance by its file name; the file is in its set's directory of the
    cache (instances/unique-n2-s0/): it was regenerated, puzzle by puzzle, instead."""
    root, _ = finished
    grids, missing = instance_grids.campaign_grids(censored_stats.load(root / "c"), regenerate=False)
    assert missing == {} and len(grids) == 2
    assert {g.source for g in grids.values()} == {"file"}


def test_a_resumed_run_with_nothing_to_run_draws_the_figures_again(finished):
    root, _ = finished
    plots = root / "c" / "plots"
    for path in plots.iterdir():
        path.unlink()
    before = runs_table.read_rows(root / "c" / "runs.csv")
    again = race(root)
    assert again.exit_code == 0, again.output
    assert "0 to run" in again.stderr
    assert all((plots / f"{figure}.png").is_file() for figure in FIGURES)
    assert runs_table.read_rows(root / "c" / "runs.csv") == before


def test_no_report_draws_nothing_and_says_how(out):
    result = race(out, "--no-report")
    assert result.exit_code == 0, result.output
    assert not (out / "c" / "plots").exists() and not (out / "c" / "report.html").exists()
    assert f"figures: none drawn (--no-report): race plot {out / 'c'} draws them" in result.stdout
    assert result.stdout.splitlines()[-1].split("#")[0].split()[:2] == ["race", "export"]


def test_figures_that_fail_are_one_line_and_the_rows_are_kept(out, monkeypatch):
    from experiments.analysis import plots

    def broken(*args, **kwargs):
        raise ValueError("a renderer's own bug")

    monkeypatch.setattr(plots, "plot_all", broken)
    result = race(out)
    assert result.exit_code == 2
    errors = [line for line in result.stderr.splitlines() if line.startswith("race: error:")]
    assert errors == [f"race: error: the figures were not drawn: ValueError: a renderer's own bug "
                      f"(the rows are kept in {out / 'c' / 'runs.csv'})"]
    assert "Traceback" not in result.output
    assert len(runs_table.read_rows(out / "c" / "runs.csv")) == 4        # 2 entrants x 2 instances
    assert (out / "c" / "report.html").is_file()                      # the page does not depend on them
    assert f"results: {out / 'c' / 'runs.csv'}" in result.stdout
    assert "figures: none drawn (failed)" in result.stdout


def test_a_full_disk_under_the_figures_and_the_page_is_said_for_each(finished, monkeypatch):
    from experiments.analysis import plots
    from experiments.cli.run import write_report
    from experiments.report import html

    def full(*args, **kwargs):
        raise RaceError("cannot write the figure (No space left on device; is the disk full?)",
                        source="runtime.png")

    def no_space(*args, **kwargs):
        raise OSError(28, "No space left on device", "report.html")

    monkeypatch.setattr(plots, "plot_all", full)
    monkeypatch.setattr(html, "write", no_space)
    written, failed = write_report(finished[0] / "c")
    assert written == []
    assert failed == ["the figures were not drawn: runtime.png: cannot write the figure (No space "
                      "left on device; is the disk full?)",
                      "the HTML report was not written: No space left on device: report.html"]


def test_ctrl_c_while_drawing_names_the_rows(out, monkeypatch):
    from experiments.cli import run as run_command

    def interrupted(directory):
        raise KeyboardInterrupt

    monkeypatch.setattr(run_command, "write_report", interrupted)
    result = race(out)
    assert result.exit_code == 130
    assert f"results: {out / 'c' / 'runs.csv'}" in result.stdout
    assert f"interrupted while drawing the figures: every cell is recorded; race plot {out / 'c'}" \
        in result.stderr
    assert len(runs_table.read_rows(out / "c" / "runs.csv")) == 4


def test_an_interrupted_run_says_where_its_rows_are_and_draws_nothing(out):
    from tests.test_records_faults import slow_args, start, wait_rows
    write_instances(out, 3, 2)
    runs = out / "cut" / "runs.csv"
    proc = start([a for a in slow_args(out, "cut", delay=0.25) if a != "--no-report"])
    wait_rows(runs, 2, proc)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr
    assert f"results: {runs} and {out / 'cut' / 'meta.json'}" in stdout
    assert f"figures: none drawn (interrupted): race plot {out / 'cut'} draws them" in stdout
    assert "re-run the same command to resume" in stderr
    assert not (out / "cut" / "plots").exists()


def test_the_page_is_written_beside_the_figures_by_a_forked_process(finished, monkeypatch, tmp_path):
    # with two CPUs the HTML report is written in a forked process while the figures are drawn;
    # with one, here; the paths and the failure lines are the same either way
    from experiments.cli import run_report
    from experiments.report import html
    real = html.write
    where = tmp_path / "pid"

    def write(directory, path, *args, **kwargs):
        where.write_text(str(os.getpid()))
        return real(directory, path, *args, **kwargs)

    monkeypatch.setattr(html, "write", write)
    monkeypatch.setattr(run_report.os, "sched_getaffinity", lambda pid: {0, 1})
    written, failed = run_report.write_report(finished[0] / "c")
    assert failed == [] and finished[0] / "c" / "report.html" in written
    assert int(where.read_text()) != os.getpid()
    monkeypatch.setattr(run_report.os, "sched_getaffinity", lambda pid: {0})
    again, failed = run_report.write_report(finished[0] / "c")
    assert failed == [] and again == written
    assert int(where.read_text()) == os.getpid()
