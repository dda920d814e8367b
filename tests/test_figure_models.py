"""The figure models (experiments.analysis.figure_models, scatter_phase_models): each figure's
series computed once from known rows, and the two renderers (matplotlib, plotly) drawing the
same series, censoring marks and axis scales from them."""

from __future__ import annotations

import math
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import plotly.graph_objects as go  # noqa: E402
import pytest  # noqa: E402
from matplotlib.colors import to_hex  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402
from matplotlib.text import Text  # noqa: E402

from experiments.analysis import (  # noqa: E402
    censored_stats,  # noqa: E402
    figure_models,
    head_to_head,
    phase_plots,
    plots,
    scatter_phase_models,  # noqa: E402
)
from experiments.analysis.figure_style import PRINT_SIZES, campaign_styles  # noqa: E402
from experiments.analysis.virtual_best import NAME as VBS  # noqa: E402
from experiments.report import html_figures  # noqa: E402
from tests.test_analysis import LIMIT, run, write_campaign  # noqa: E402

STYLE: Any = plots.STYLE       # rcParams by name
A_TIMES: dict[int, list[float | None]] = {2: [1.0, 2.0, 3.0], 3: [1.0, None, None]}          # None: a timeout
B_TIMES: dict[int, list[float]] = {2: [0.1, 0.2, 0.4], 3: [0.5, 0.6, 0.8]}


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> censored_stats.Campaign:
    """Entrants a (a search counter; two timeouts at n = 3) and b (a SAT entrant: encode 30 %,
    search 70 % of each solve), the same three instances per n."""
    rows: list[dict[str, Any]] = []
    for n in (2, 3):
        for k in range(3):
            t = A_TIMES[n][k]
            rows.append(run("a", n, f"i{n}{k}", "solved" if t else "timeout", t,
                            **({"nodes": int(10 * t) + n} if t else {})))
            t = B_TIMES[n][k]
            rows.append(run("b", n, f"i{n}{k}", "solved", t, t_encode=0.3 * t, t_search=0.7 * t))
    root = write_campaign(tmp_path_factory.mktemp("models") / "small", rows, {"entrants": ["a", "b"]})
    return censored_stats.load(root)


def _series(model: figure_models.FigureModel, key: str, panel: int = 0) -> figure_models.Series:
    return next(s for s in model.panels[panel].series if s.key == key)


def _runtime(campaign: censored_stats.Campaign) -> figure_models.FigureModel:
    per_instance = censored_stats.instance_times(campaign.runs)
    return figure_models.runtime_model(campaign, censored_stats.summary(campaign, per_instance), per_instance)


def test_the_runtime_model_takes_medians_and_marks_censored_ones(small: censored_stats.Campaign) -> None:
    model = _runtime(small)
    a, b, best = (_series(model, key) for key in ("a", "b", VBS))
    assert list(a.x) == [2.0, 3.0] and a.y[0] == pytest.approx(2.0) and math.isnan(a.y[1])
    assert list(a.censored) == [False, True]                       # 2 of 3 timed out: > limit
    assert b.y == pytest.approx([0.2, 0.6]) and not b.censored.any()
    assert best.y == pytest.approx([0.2, 0.6])                     # per instance the faster one
    assert a.band is not None and np.nanmax(a.band[1]) <= LIMIT                           # the band stops at the limit
    points = next(p for p in model.panels[0].points if p.key == "a")
    assert int(points.censored.sum()) == 2 and np.isnan(points.y[points.censored]).all()
    assert model.panels[0].y.scale == "log" and model.panels[0].y.limits == (pytest.approx(0.1 / 1.6), LIMIT)
    assert len({s.offset for s in model.panels[0].series}) == 3    # set apart along x only


def test_the_solved_model_counts_answers_within_the_limit(small: censored_stats.Campaign) -> None:
    model = figure_models.solved_model(small, censored_stats.summary(small))
    assert _series(model, "a").y == pytest.approx([100.0, 100.0 / 3])
    assert _series(model, "b").y == pytest.approx([100.0, 100.0])
    assert model.panels[0].y.scale == "linear"


def test_the_cactus_model_sorts_the_answered_times(small: censored_stats.Campaign) -> None:
    model = figure_models.cactus_model(small, censored_stats.instance_times(small.runs))
    a = _series(model, "a")
    assert list(a.x) == [1.0, 2.0, 3.0, 4.0] and list(a.y) == [1.0, 1.0, 2.0, 3.0]   # no timeout on it
    assert list(_series(model, VBS).y) == pytest.approx(sorted(B_TIMES[2] + B_TIMES[3]))
    assert model.panels[0].x.label == "instances solved (of 6, all n)"


def test_the_work_model_takes_medians_and_says_what_is_missing(small: censored_stats.Campaign) -> None:
    model = figure_models.work_model(small, censored_stats.summary(small))
    nodes = next(p for p in model.panels if p.key.endswith("/nodes"))
    a = _series(model, "a", model.panels.index(nodes))
    assert list(a.y) == [22.0, 13.0]            # median of 12, 22, 32; the one solved at n = 3
    assert list(a.hollow) == [False, True]      # 1 of 3 solved: fewer than half
    assert [s.key for s in nodes.series] == ["a"] and figure_models.FEW in model.notes
    updates = next(p for p in model.panels if p.key.endswith("/updates"))
    assert not updates.series and updates.note == "no entrant reports\nupdates"


def test_the_phase_model_splits_the_median_solve(small: censored_stats.Campaign) -> None:
    model = scatter_phase_models.phases_model(small, censored_stats.summary(small))
    (panel,) = model.panels
    assert panel.key == "b"
    shares = {s.key: list(s.y) for s in panel.series}
    assert shares["t_encode"] == pytest.approx([30.0, 30.0]) and shares["t_search"] == pytest.approx([70.0, 70.0])
    assert [text for _, text in panel.labels] == [censored_stats.format_seconds(0.2), censored_stats.format_seconds(0.6)]


def test_the_head_to_head_model_puts_censored_pairs_in_the_strip(small: censored_stats.Campaign) -> None:
    model = scatter_phase_models.scatter_model(small, "a", "b")
    (panel,) = model.panels
    n3 = next(s for s in panel.series if s.key == "n = 3")
    assert list(n3.censored) == [False, True, True]
    assert all(LIMIT < x < LIMIT * scatter_phase_models.STRIP for x in n3.x[n3.censored])
    assert list(n3.y) == B_TIMES[3]
    assert panel.corner == "> limit (shaded strips)\na only: 2"
    assert "b slower on 0 of 6" in panel.title


# -- the two renderers draw the same series ------------------------------------------------------

def _finite_equal(left: object, right: object) -> bool:
    left, right = np.asarray(left, dtype=float), np.asarray(right, dtype=float)
    return left.shape == right.shape and bool(np.allclose(left, right, equal_nan=True))


def _static(fig: Figure, colours: dict[str, str]) -> dict[tuple[int, str], dict[str, np.ndarray]]:
    """(panel, entrant) -> the line drawn ("x", "y") and its hollow marks ("hollow_x") in a
    matplotlib figure, entrants told by colour."""
    found: dict[tuple[int, str], dict[str, np.ndarray]] = {}
    panels = [ax for ax in fig.axes if ax.get_lines()]
    for p, ax in enumerate(panels):
        for line in ax.get_lines():
            hollow = line.get_markerfacecolor() == "white"
            entrant = colours.get(to_hex(line.get_markeredgecolor() if hollow else line.get_color()).lower())
            if entrant is None or line.get_linestyle() == ":":
                continue
            entry = found.setdefault((p, entrant), {})
            if hollow:
                entry["hollow_x"] = np.asarray(line.get_xdata(), dtype=float)
            else:
                entry.setdefault("x", np.asarray(line.get_xdata(), dtype=float))
                entry.setdefault("y", np.asarray(line.get_ydata(), dtype=float))
    return found


def _interactive(fig: go.Figure, names: dict[str, str]) -> dict[tuple[int, str], dict[str, np.ndarray]]:
    """The same from a plotly figure: each entrant's named trace per panel (x axis), its
    "(median > limit)" trace or its open markers as the hollow marks."""
    found: dict[tuple[int, str], dict[str, np.ndarray]] = {}
    axes = sorted({t.xaxis or "x" for t in fig.data}, key=lambda a: int(a[1:] or 1))
    for trace in fig.data:
        name = str(trace.name)
        p = axes.index(trace.xaxis or "x")
        if name in names:
            entry = found.setdefault((p, names[name]), {})
            entry["x"], entry["y"] = np.asarray(trace.x, dtype=float), np.asarray(trace.y, dtype=float)
            symbols = trace.marker.symbol
            if not isinstance(symbols, str) and symbols is not None:
                open_ = np.array([str(s).endswith("-open") for s in symbols])
                if open_.any():
                    entry["hollow_x"] = entry["x"][open_]
        elif name.endswith(" (median > limit)") and name.removesuffix(" (median > limit)") in names:
            entry = found.setdefault((p, names[name.removesuffix(" (median > limit)")]), {})
            entry["hollow_x"] = np.asarray(trace.x, dtype=float)
    return found


def _scales_static(fig: Figure) -> list[str]:
    return ["log" if ax.get_yscale() in ("log", "symlog") else ax.get_yscale()
            for ax in fig.axes if ax.get_lines()]


def _scales_interactive(fig: go.Figure) -> list[str]:
    used = {("yaxis" + t.yaxis[1:]) if t.yaxis else "yaxis" for t in fig.data}
    return ["log" if fig.layout[name].type == "log" else "linear"
            for name in sorted(used, key=lambda a: int(a[5:] or 1))]


@pytest.mark.parametrize("name", ["runtime", "solved", "cactus", "work"])
def test_matplotlib_and_plotly_draw_the_same_series(small: censored_stats.Campaign, name: str) -> None:
    """Both renderings of each model carry the model's series: the same x (offsets included)
    and y per entrant and panel, the same censored and hollow marks, the same y scales."""
    per_instance = censored_stats.instance_times(small.runs)
    table = censored_stats.summary(small, per_instance)
    styles = campaign_styles(small)
    with plt.rc_context(STYLE):
        static = {"runtime": lambda: plots.runtime_figure(small, table, per_instance),
                  "solved": lambda: plots.solved_figure(small, table, per_instance),
                  "cactus": lambda: plots.cactus_figure(small, per_instance),
                  "work": lambda: plots.work_figure(small, table)}[name]()
    page = {"runtime": lambda: html_figures.runtime_figure(small, table, per_instance, styles),
            "solved": lambda: html_figures.solved_figure(small, table, styles, per_instance),
            "cactus": lambda: html_figures.cactus_figure(small, per_instance, styles),
            "work": lambda: html_figures.work_figure(small, table, styles)}[name]()
    colours = {style.colour.lower(): entrant for entrant, style in styles.items()}
    drawn, shown = _static(static, colours), _interactive(page, {e: e for e in styles})
    model = {"runtime": lambda: figure_models.runtime_model(small, table, per_instance),
             "solved": lambda: figure_models.solved_model(small, table, per_instance),
             "cactus": lambda: figure_models.cactus_model(small, per_instance),
             "work": lambda: figure_models.work_model(small, table)}[name]()
    drawn_panels = [p for p in model.panels if p.series]
    expected = {(p, s.key): s for p, panel in enumerate(drawn_panels) for s in panel.series}
    assert set(drawn) == set(shown) == set(expected), name
    for key, series in expected.items():
        mine, theirs = drawn[key], shown[key]
        assert _finite_equal(mine["x"], theirs["x"]) and _finite_equal(mine["x"], series.drawn_x), key
        assert _finite_equal(mine["y"], theirs["y"]) and _finite_equal(mine["y"], series.y), key
        marks = series.drawn_x[series.marked(series.censored) | series.marked(series.hollow)]
        assert _finite_equal(mine.get("hollow_x", []), marks), key
        assert _finite_equal(theirs.get("hollow_x", []), marks), key
    assert _scales_static(static) == _scales_interactive(page), name
    plt.close(static)


def test_the_renderers_of_the_head_to_head_and_phases_draw_their_models(small: censored_stats.Campaign) -> None:
    """The static head to head draws each model point where the model puts it (censored ones
    hollow), and both phase figures stack the model's shares."""
    model = scatter_phase_models.scatter_model(small, "a", "b")
    with plt.rc_context(STYLE):
        fig = head_to_head.scatter_figure(small, "a", "b", width=3.3)
        static = phase_plots.phases_figure(small)
    points = {(float(x), float(y)) for line in fig.axes[0].get_lines() if line.get_linestyle() == "None"
              for x, y in zip(np.asarray(line.get_xdata(), dtype=float), np.asarray(line.get_ydata(), dtype=float))}
    assert points == {(float(x), float(y)) for s in model.panels[0].series for x, y in zip(s.x, s.y)}
    shares = scatter_phase_models.phases_model(small, censored_stats.summary(small)).panels[0].series
    bars = [float(p.get_height()) for p in static.axes[0].patches if isinstance(p, Rectangle)]
    assert bars == pytest.approx([v for s in shares for v in s.y])
    page = html_figures.phases_figure(small, censored_stats.summary(small))
    assert [list(t.y) for t in page.data if t.type == "bar"] == [pytest.approx(list(s.y)) for s in shares]
    plt.close(fig)
    plt.close(static)


def test_the_head_to_head_reads_at_a_columns_width(small: censored_stats.Campaign) -> None:
    """At 3.3 in the head to head names every second decade only (at its own width, every
    decade) and its legend's lines are short."""
    def named_ticks(width: float | None) -> tuple[list[float], list[str]]:
        with plt.rc_context(STYLE):
            fig = plots.draw(lambda w: head_to_head.scatter_figure(small, "a", "b", width=w), "campaign small",
                             width)
            fig.canvas.draw()
            ticks = [float(t) for t in fig.axes[0].xaxis.get_major_locator().tick_values(1e-4, 1e2)
                     if 1e-4 <= t <= 1e2]
            labels = [t.get_text() for t in fig.legends[0].get_texts()]
            sizes = {float(t.get_fontsize()) for t in fig.findobj(Text) if t.get_text().strip()}
        plt.close(fig)
        if width is not None:           # type that reads at the width it is printed at
            assert min(sizes) >= PRINT_SIZES[0], sizes
        return ticks, labels

    column, labels = named_ticks(3.3)
    assert len(column) == 4 and all(b / a == pytest.approx(100) for a, b in zip(column, column[1:])), column
    assert max(len(line) for t in labels for line in t.splitlines()) <= 22, labels
    own, _ = named_ticks(None)
    assert len(own) == 7 and all(b / a == pytest.approx(10) for a, b in zip(own, own[1:])), own


# -- the hardness landscape ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def hills(tmp_path_factory: pytest.TempPathFactory) -> censored_stats.Campaign:
    """A landscape campaign: entrants a (nodes; every puzzle at n = 3 and 60% empty timed out)
    and b, three shares of empty cells at n = 2 and 3, three puzzles each."""
    rows: list[dict[str, Any]] = []
    for n in (2, 3):
        for holes in (0.4, 0.5, 0.6):
            for k in range(3):
                name = f"holes-n{n}-s0-holes{holes}/holes-n{n}-s0-{k:04d}.sudoku"
                hard = n == 3 and holes == 0.6
                t = 0.01 * n * (k + 1) * (1 + 10 * (holes == 0.5))
                rows.append(run("a", n, name, "timeout" if hard else "solved", None if hard else t, holes=holes,
                                family=f"holes@{holes}", **({} if hard else {"nodes": int(1000 * t)})))
                rows.append(run("b", n, name, "solved", 2 * t, holes=holes, family=f"holes@{holes}", conflicts=k))
    root = write_campaign(tmp_path_factory.mktemp("hills") / "hills", rows, {"entrants": ["a", "b"]})
    return censored_stats.load(root)


def test_the_landscape_model_takes_medians_marks_censored_ones_and_the_peak(hills: censored_stats.Campaign) -> None:
    from experiments.analysis import landscape
    model = landscape.landscape_model(hills)
    assert [p.key for p in model.panels] == ["2", "3"] and model.keys == ("a", "b")
    a3 = _series(model, "a", 1)
    assert list(a3.x) == [0.4, 0.5, 0.6] and list(a3.censored) == [False, False, True]
    assert a3.y[:2] == pytest.approx([0.06, 0.66]) and math.isnan(a3.y[2])
    assert a3.rows is not None and list(a3.rows["solved_frac"]) == [1.0, 1.0, 0.0]
    assert model.censored_keys() == ["a"]
    found = {p["n"]: p for p in landscape.peaks(hills)}
    for panel in model.panels:
        peak = found[int(panel.key)]
        assert panel.spans == (pytest.approx((peak["low"] - landscape.SPAN_PAD,
                                              peak["high"] + landscape.SPAN_PAD)),)
    assert model.notes == (landscape.PEAK,)
    assert model.panels[0].y.limits == (pytest.approx(0.04 / 1.6), LIMIT)     # the smallest median


def _spans_static(fig: Figure) -> list[list[tuple[float, float]]]:
    """Each panel's shaded x ranges (axvspan: a rectangle whose y runs over the whole axes)."""
    out = []
    for ax in [a for a in fig.axes if a.get_visible() and a.get_lines()]:
        spans = [(float(p.get_x()), float(p.get_x() + p.get_width())) for p in ax.patches
                 if isinstance(p, Rectangle) and p.get_height() == pytest.approx(1.0) and p.get_width() < 1.0]
        out.append(spans)
    return out


def _spans_interactive(fig: go.Figure) -> list[list[tuple[float, float]]]:
    panels = sorted({t.xaxis or "x" for t in fig.data}, key=lambda a: int(a[1:] or 1))
    return [[(float(s.x0), float(s.x1)) for s in fig.layout.shapes if s.type == "rect" and s.xref == axis]
            for axis in panels]


def test_matplotlib_and_plotly_draw_the_same_landscape(hills: censored_stats.Campaign) -> None:
    """Both renderings of the landscape model carry its series (x, the measured y, the
    censored marks, drawn above the limit), and the same peak spans per panel."""
    from experiments.analysis import landscape
    from experiments.report import html_landscape
    model = landscape.landscape_model(hills)
    styles = campaign_styles(hills)
    with plt.rc_context(STYLE):
        static = landscape.landscape_plot(hills)
    page = html_landscape.landscape_figure(hills, styles)
    colours = {style.colour.lower(): entrant for entrant, style in styles.items()}
    drawn, shown = _static(static, colours), _interactive(page, {e: e for e in styles})
    expected = {(p, s.key): s for p, panel in enumerate(model.panels) for s in panel.series}
    assert set(drawn) == set(shown) == set(expected)
    for key, series in expected.items():
        mine, theirs = drawn[key], shown[key]
        measured = ~series.censored
        assert _finite_equal(mine["x"], series.x) and _finite_equal(theirs["x"], series.x), key
        assert _finite_equal(mine["y"], series.y), key                   # NaN where censored
        assert _finite_equal(theirs["y"][measured], series.y[measured]), key
        assert (theirs["y"][series.censored] > LIMIT).all(), key         # in the strip above the limit
        assert _finite_equal(mine.get("hollow_x", []), series.x[series.censored]), key
        assert _finite_equal(theirs.get("hollow_x", []), series.x[series.censored]), key
    spans = [list(p.spans) for p in model.panels]
    assert all(spans) and _spans_static(static) == spans == _spans_interactive(page)
    hollow = [line for ax in static.axes for line in ax.get_lines() if line.get_markerfacecolor() == "white"]
    assert hollow and all((np.asarray(line.get_ydata(), dtype=float) > LIMIT).all() for line in hollow)
    assert _scales_static(static) == _scales_interactive(page) == ["log", "log"]
    plt.close(static)


# -- the head to head: one table for the static figure and the page -------------------------------

@pytest.fixture(scope="module")
def rivals(tmp_path_factory: pytest.TempPathFactory) -> censored_stats.Campaign:
    """Entrants a, b, c on two families, n = 2 and 3, four instances each: a times out on
    every second instance at n = 3, b on the last one of each family at n = 3, c was skipped
    on hard puzzles at n = 3 and ties a on the unique ones at n = 2."""
    rows: list[dict[str, Any]] = []
    for family in ("unique", "hard"):
        for n in (2, 3):
            for k in range(4):
                name = f"{family}-n{n}-s0/{family}-n{n}-s0-{k:04d}.sudoku"
                t = 0.01 * (k + 1) * n
                a_out, b_out = n == 3 and k % 2 == 1, n == 3 and k == 3
                rows.append(run("a", n, name, "timeout" if a_out else "solved", None if a_out else t, family=family))
                rows.append(run("b", n, name, "timeout" if b_out else "solved", None if b_out else 1.5 * t,
                                family=family))
                skipped = family == "hard" and n == 3
                tie = family == "unique" and n == 2
                rows.append(run("c", n, name, "skipped" if skipped else "solved", None if skipped else
                                t if tie else 0.5 * t, family=family))
    root = write_campaign(tmp_path_factory.mktemp("rivals") / "rivals", rows, {"entrants": ["a", "b", "c"]})
    return censored_stats.load(root)


def _model_points(model: figure_models.FigureModel) -> dict[tuple[str, str], tuple[float, float, bool]]:
    """(family, instance) -> (x, y, censored) of every point of a head-to-head model."""
    found = {}
    for panel in model.panels:
        for s in panel.series:
            assert s.rows is not None
            for instance, x, y, off in zip(s.rows["instance"], s.x, s.y, s.censored):
                found[(panel.key, str(instance))] = (float(x), float(y), bool(off))
    return found


@pytest.mark.parametrize("pair", [("a", "b"), ("b", "a"), ("a", "c"), ("c", "b")])
def test_the_pages_head_to_head_agrees_with_the_static_model(rivals: censored_stats.Campaign,
                                                             pair: tuple[str, str]) -> None:
    """The page's head-to-head data, picked for a pair as its script picks them, give the
    static model's points (the same strip places), its counts and its note."""
    from experiments.report import html as html_report
    a, b = pair
    data, _ = html_report.page_data(rivals, grids=False)
    h = data["head_to_head"]
    page = {(f, i): (x, y, bool(cx or cy))
            for f, i, x, y, cx, cy in zip(h["family"], h["instance"], h["at"][a], h["at"][b], h["censored"][a],
                                          h["censored"][b]) if x is not None and y is not None}
    model = scatter_phase_models.scatter_model(rivals, a, b)
    assert page == _model_points(model) and page
    limit = rivals.timeout_s
    assert all(limit < v < limit * scatter_phase_models.STRIP for x, y, off in page.values() if off
               for v in (x, y) if v > limit)
    counts = {choice: dict(zip(h["pair_columns"], h["pairs"][choice][a][b])) for choice in h["pairs"]}
    for panel in model.panels:
        mine = counts[panel.key]
        assert panel.title.endswith(f"slower on {mine['a_faster']} of {mine['pairs']}")
        assert panel.corner == scatter_phase_models.censored_note(mine, (a, b))
        points = [p for (f, _), p in page.items() if f == panel.key]
        assert mine["pairs"] == len(points) == mine["a_faster"] + mine["b_faster"] + mine["ties"]
        assert mine["x_only"] + mine["y_only"] + mine["both"] == sum(off for _, _, off in points)
    every = counts[h["all"]]
    assert every["pairs"] == len(page) and model.panels[0].x.limits == (every["low"], limit * scatter_phase_models.STRIP)
    left_out = every["left_out"]
    assert model.notes == ((f"left out: {left_out} pair(s) with a skipped side",) if left_out else ())
    assert left_out == (4 if "c" in pair else 0)            # c skipped hard n = 3: never a point
    if pair == ("a", "c"):
        assert counts["unique"]["ties"] == 4                 # equal times at n = 2


def test_a_censored_place_is_the_same_in_every_view(rivals: censored_stats.Campaign) -> None:
    """A censored time's place in the strip comes from the instance and the entrant only: the
    same whichever pair or family shows it, different for two entrants of one instance."""
    from experiments.analysis import head_to_head_table
    table = head_to_head_table.head_to_head_table(rivals)
    off = np.isinf(table.time["a"])
    assert off.sum() == 4
    for name, place in zip(table.rows["instance"][off], table.at["a"][off]):
        assert place == head_to_head_table.strip_place(name, "a", LIMIT)
    ab, ac = scatter_phase_models.scatter_model(rivals, "a", "b"), scatter_phase_models.scatter_model(rivals, "a", "c")
    xs = {k: v[0] for k, v in _model_points(ab).items()}
    assert all(xs[k] == v[0] for k, v in _model_points(ac).items())
    both = np.isinf(table.time["a"]) & np.isinf(table.time["b"])
    assert both.any() and (table.at["a"][both] != table.at["b"][both]).all()   # not on the diagonal
