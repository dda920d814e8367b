"""What a newcomer reads in the figures: what the number above a phase bar is, entrants at 100 %
solved told apart, the censored marker in a legend only when one is drawn, a work median of a
few instances marked, n coloured by its values, totals on the page's phase split, the instance
table sorted by instance and within 1400 px, "4096 MB", a skipped row that reads skipped."""

from __future__ import annotations

import matplotlib
import pytest

matplotlib.use("Agg")

from experiments.analysis import (  # noqa: E402
    censored_stats,  # noqa: E402
    phase_plots,
    plots,
)
from experiments.report import html as html_report  # noqa: E402
from experiments.report import html_figures  # noqa: E402
from tests.test_analysis import run, write_campaign  # noqa: E402


@pytest.fixture
def quick(tmp_path) -> censored_stats.Campaign:
    """Two entrants solving everything at n = 2, 3 (a SAT-like one with phases); a third
    solving one instance of four at n = 3."""
    rows = []
    for n in (2, 3):
        for k in range(4):
            rows.append(run("s", n, f"i{n}{k}", "solved", 0.01 * (k + 1), t_encode=0.004,
                            t_search=0.006, conflicts=10 * (k + 1)))
            rows.append(run("d", n, f"i{n}{k}", "solved", 0.02 * (k + 1), nodes=5 * (k + 1)))
            status = "solved" if n == 2 or k == 0 else "timeout"
            rows.append(run("b", n, f"i{n}{k}", status, 0.03 if status == "solved" else None,
                            nodes=7 * (k + 1)))
    return censored_stats.load(write_campaign(tmp_path / "q", rows,
                                        {"entrants": ["s", "d", "b"], "memory_mb": 4096.0}))


def _legend_texts(fig) -> list[str]:
    return [t.get_text() for legend in fig.legends + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
            for t in legend.get_texts()]


def test_the_phase_split_says_what_the_number_above_a_bar_is(quick):
    static = phase_plots.phases_figure(quick)
    assert "above each bar: the sum of the phase medians" in static._suptitle.get_text()
    page = html_figures.phases_figure(quick, censored_stats.summary(quick))
    assert "the sum of the phase medians" in page.layout.title.subtitle.text
    (totals,) = [t for t in page.data if t.type == "scatter" and t.mode == "text"]
    assert list(totals.text) == ["10 ms", "10 ms"]              # 4 ms + 6 ms at n = 2 and 3


def test_entrants_at_100_percent_are_told_apart(quick):
    """Apart along x only: each share drawn where it is (100 % at 100, not lifted or lowered)."""
    fig = plots.solved_figure(quick)
    lines = {line.get_label(): line for ax in fig.axes for line in ax.get_lines()
             if line.get_label() in ("s", "d", "b")}
    assert {line.get_ydata()[0] for line in lines.values()} == {100.0}
    assert len({line.get_xdata()[0] for line in lines.values()}) == 3


def test_the_censored_marker_is_in_a_legend_only_when_drawn(quick, tmp_path):
    assert any("censored" in t for t in _legend_texts(plots.runtime_figure(quick)))
    rows = [run(e, n, f"i{n}{k}", "solved", 0.01 * (k + 1)) for e in "sd" for n in (2, 3)
            for k in range(4)]
    calm = censored_stats.load(write_campaign(tmp_path / "calm", rows, {"entrants": ["s", "d"]}))
    assert not any("censored" in t for t in _legend_texts(plots.runtime_figure(calm)))
    from experiments.analysis import head_to_head
    assert not any("censored" in t for t in _legend_texts(head_to_head.scatter_figure(calm, "s", "d")))


def test_a_work_median_of_fewer_than_half_the_instances_is_marked(quick):
    fig = plots.work_figure(quick)
    assert plots.FEW in _legend_texts(fig)
    hollow = [line for ax in fig.axes for line in ax.get_lines()
              if line.get_linestyle() == "None" and line.get_markerfacecolor() == "white"]
    assert [list(line.get_xdata().round()) for line in hollow] == [[3.0]]   # b's nodes at n = 3


def test_the_memory_limit_reads_as_written(quick):
    assert ["memory limit", "4096 MB"] in html_report.metadata(quick)


def test_the_page_in_chromium_sorts_by_instance_fits_1400_px_and_reads_skipped(tmp_path):
    """The page at 1400 px: the instance table starts sorted by instance and fits; a row of
    runs all skipped reads "skipped" (not "> 10 s" and a PAR-2); the head to head's colour bar
    has a tick at each n and nowhere else."""
    from tests.test_html_report import _browser, _rows, _wait
    driver, reason = _browser()
    if driver is None:
        pytest.skip(reason)
    long = "holes-n5-s10-holes0.55-balanced/holes-n5-s10-00{}{}.sudoku"
    rows = [run("a", 2, long.format(2, k), "timeout", None) for k in (1, 0)]
    rows += [run("a", 3, long.format(3, k), "skipped", None) for k in (1, 0)]
    rows += [run(e, n, long.format(n, k), "solved", 0.01 * n * (k + 1) * (1 + (e == "c")))
             for e in "bc" for n in (2, 3) for k in (1, 0)]
    campaign = write_campaign(tmp_path / "c", rows, {"entrants": ["b", "c", "a"]})
    page = tmp_path / "page.html"
    html_report.write(campaign, page)
    try:
        driver.get(page.as_uri())
        _wait(driver, "return document.body.dataset.ready === 'true'")
        names = [r[3] for r in _rows(driver)]
        assert names == sorted(names)
        width = driver.execute_script(
            "return document.getElementById('instance-table').getBoundingClientRect().right")
        assert width <= 1400
        summary = driver.execute_script(
            "return [...document.querySelectorAll('#summary-table tbody tr')]"
            ".map(tr => [...tr.children].map(td => td.textContent))")
        (skipped,) = [r for r in summary if r[1] == "a" and r[2] == "3"]
        assert skipped[3:8] == ["-", "skipped", "", "", ""]
        assert [r[5] for r in _rows(driver) if r[0] == "a" and "-003" in r[3]] == ["skipped"] * 2
        ticks = driver.execute_script(
            "const d = document.getElementById('fig-scatter').data;"
            "return d.filter(t => t.marker && t.marker.colorbar).map(t => t.marker.colorbar.ticktext)")
        assert ticks == [["2", "3"]]
    finally:
        driver.quit()


def test_the_pages_work_figure_marks_a_median_of_a_few_instances(quick):
    fig = html_figures.work_figure(quick, censored_stats.summary(quick))
    assert "fewer than half the instances" in fig.layout.title.subtitle.text
    b = [t for t in fig.data if t.name == "b" and len(t.x)]
    assert b and all(list(t.marker.symbol)[-1].endswith("-open") for t in b)      # n = 3: 1 of 4
    assert all(not list(t.marker.symbol)[0].endswith("-open") for t in b)
