"""Skipped is not timed out: an entrant the skip rule never ran at an n is left out of every
figure (PNG and HTML) with a note naming it, never drawn as a censored time or as 0 % solved;
the tables read "skipped" and say how skipped runs count in solved and PAR-2."""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

from experiments.analysis import (  # noqa: E402
    censored_stats,  # noqa: E402
    plots,
    skipped_cells,
    summary,
)
from experiments.report import html_figures, tables  # noqa: E402
from tests.test_analysis import LIMIT, run, write_campaign  # noqa: E402

NOTE = "skipped, not run: a unique n=3"


@pytest.fixture
def skipping(tmp_path) -> censored_stats.Campaign:
    """a times out on both instances at n=2, so its n=3 cells are skipped; b solves all."""
    rows = [run("a", 2, f"i{k}", "timeout", None) for k in (1, 2)]
    rows += [run("a", 3, f"j{k}", "skipped", None) for k in (1, 2)]
    rows += [run("b", n, f"{'ij'[n - 2]}{k}", "solved", 0.1 * n * k) for n in (2, 3) for k in (1, 2)]
    return censored_stats.load(write_campaign(tmp_path / "c", rows, {"entrants": ["a", "b"]}))


def _hollow_points(fig) -> int:
    """The censored markers drawn: points with a white face and no line."""
    return sum(len(line.get_xdata()) for ax in fig.axes for line in ax.get_lines()
               if line.get_linestyle() == "None" and line.get_markerfacecolor() == "white"
               and len(line.get_xdata()))


def _legend_texts(fig) -> list[str]:
    return [t.get_text() for legend in fig.legends + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
            for t in legend.get_texts()]


def test_the_static_figures_leave_skipped_cells_out_and_name_them(skipping):
    runtime = plots.runtime_figure(skipping)
    assert _hollow_points(runtime) == 1                  # a at n=2 only; n=3 was never raced
    assert NOTE in _legend_texts(runtime)
    solved = plots.solved_figure(skipping)
    (line,) = [ln for ax in solved.axes for ln in ax.get_lines() if ln.get_label() == "a"]
    assert np.round(line.get_xdata()).tolist() == [2.0]  # not a 0 % at n=3
    assert NOTE in _legend_texts(solved)


def test_the_html_figures_leave_skipped_cells_out_and_name_them(skipping):
    table = censored_stats.summary(skipping)
    instances = censored_stats.instance_times(skipping.runs)
    runtime = html_figures.runtime_figure(skipping, table, instances)
    xs = [x for trace in runtime.data if trace.legendgroup == "a" for x in trace.x]
    assert xs and max(xs) < 2.5
    assert NOTE in runtime.layout.title.subtitle.text
    solved = html_figures.solved_figure(skipping, table)
    (trace,) = [t for t in solved.data if t.name == "a"]
    assert [round(x) for x in trace.x] == [2]                # drawn at n = 2 (set apart along x)
    assert NOTE in solved.layout.title.subtitle.text


def test_the_tables_read_skipped_and_say_how_skipped_runs_count(skipping):
    table = censored_stats.summary(skipping)
    assert skipped_cells.mask(table).tolist() == [r.entrant == "a" and r.n == 3 for r in table.itertuples()]
    text = summary.summary_text(skipping, table)
    (row,) = [line for line in text.splitlines() if line.startswith("a ") and line.split()[1] == "3"]
    assert "skipped" in row and ">" not in row
    assert f"skipped: {skipped_cells.COUNTING}" in text
    tex = tables.summary_tabular(table, skipping.entrants)
    (row,) = [line for line in tex.splitlines() if "skipped" in line and "& 3 &" in line]
    assert "& -- & skipped &" in row and f"{2 * LIMIT:g}" not in row


def test_the_head_to_head_leaves_out_pairs_with_a_skipped_side(skipping):
    from experiments.analysis import head_to_head
    fig = head_to_head.scatter_figure(skipping, "a", "b")
    assert _hollow_points(fig) == 2                      # the two timeouts at n=2, not n=3
    assert "left out: 2 pair(s) with a skipped side" in _legend_texts(fig)


def test_the_export_reads_skipped_with_no_time_and_no_par2(skipping):
    from experiments.cli.export import summary_rows
    header, rows = summary_rows(skipping)
    by_cell = {(row[1], row[2]): dict(zip(header, row)) for row in rows}
    skipped = by_cell[("a", "3")]
    assert skipped["median"] == "skipped (not run)" and skipped["solved"] == "-"
    assert skipped["PAR-2"] == "" and skipped["IQR"] == ""
    timed_out = by_cell[("a", "2")]                       # raced and timed out: censored times
    assert timed_out["median"].startswith(">") and timed_out["solved"] == "0/2"


@pytest.fixture
def all_skipped(tmp_path) -> censored_stats.Campaign:
    """a and b both time out on both instances at n=2, so every n=3 cell is skipped."""
    rows = [run(e, 2, f"i{k}", "timeout", None) for e in "ab" for k in (1, 2)]
    rows += [run(e, 3, f"j{k}", "skipped", None) for e in "ab" for k in (1, 2)]
    return censored_stats.load(write_campaign(tmp_path / "c", rows, {"entrants": ["a", "b"]}))


def test_the_virtual_best_where_every_entrant_was_skipped_is_skipped_not_censored(all_skipped):
    from experiments.analysis import virtual_best
    from experiments.report.virtual_best import vbs_tabular
    best = virtual_best.summary(all_skipped)
    assert skipped_cells.mask(best).tolist() == [False, True]            # n=2 censored, n=3 skipped
    table = censored_stats.summary(all_skipped)
    drawn, entrants = plots.with_virtual_best(all_skipped, skipped_cells.drawn(table))
    assert drawn.loc[drawn["entrant"] == virtual_best.NAME, "n"].tolist() == [2]
    runtime = plots.runtime_figure(all_skipped)
    assert _hollow_points(runtime) == 3                  # a, b and the virtual best at n=2 only
    html = html_figures.runtime_figure(all_skipped, table, censored_stats.instance_times(all_skipped.runs))
    xs = [x for trace in html.data if trace.legendgroup == virtual_best.NAME for x in trace.x]
    assert xs and max(xs) < 2.5
    (row,) = [line for line in vbs_tabular(all_skipped, table).splitlines() if line.startswith("3 &")]
    assert "skipped (not run)" in row and "n/a" not in row and ">" not in row
