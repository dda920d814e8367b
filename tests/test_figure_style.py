"""The figures as a reader sees them: one style per entrant in every figure (static and
interactive), no panel of zeros, no caption over a label, every figure naming its family,
censored values readable."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402

from experiments.analysis import (  # noqa: E402
    censored_stats,  # noqa: E402
    head_to_head,
    landscape,
    plots,
)
from experiments.analysis.figure_style import (  # noqa: E402
    FIXED_SLOTS,
    SLOTS,
    entrant_styles,
    slot_style,
)
from experiments.report import html_figures, html_landscape  # noqa: E402
from tests.test_report import synthetic_campaign  # noqa: E402

RESULTS = Path(__file__).resolve().parents[1] / "results"


@pytest.fixture(scope="module")
def reference() -> censored_stats.Campaign:
    return censored_stats.load(RESULTS / "reference-n2-10")


@pytest.fixture(scope="module")
def reference_table(reference):
    return censored_stats.summary(reference)


@pytest.fixture(scope="module")
def reference_landscape() -> censored_stats.Campaign:
    return censored_stats.load(RESULTS / "reference-landscape")


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory) -> censored_stats.Campaign:
    return censored_stats.load(synthetic_campaign(tmp_path_factory.mktemp("style") / "syn"))


def _static_styles(fig) -> dict[str, tuple]:
    """entrant -> (colour, marker, dash pattern) of the legend of a matplotlib figure."""
    from matplotlib.colors import to_hex
    legend = fig.legends[0] if fig.legends else fig.axes[-1].get_legend()
    out = {}
    for handle, text in zip(legend.legend_handles, legend.get_texts()):
        if hasattr(handle, "get_marker") and handle.get_marker() not in ("None", None, ""):
            dashes = handle._unscaled_dash_pattern[1]          # the (on, off, ...) as drawn
            out[text.get_text()] = (to_hex(handle.get_color()).lower(), handle.get_marker(),
                                    tuple(dashes) if dashes else ())
    return out


def _plotly_styles(fig) -> dict[str, tuple]:
    """entrant -> (colour, symbol, dash) of the legend traces of a plotly figure."""
    out: dict[str, tuple] = {}
    for trace in fig.data:
        if trace.showlegend is not False and trace.name and trace.line.color:
            symbol = trace.marker.symbol if isinstance(trace.marker.symbol, str) else trace.marker.symbol[0]
            out.setdefault(trace.name, (trace.line.color.lower(), symbol.removesuffix("-open"), trace.line.dash))
    return out


def test_an_entrant_keeps_one_style_in_every_figure_static_and_interactive(reference, reference_table,
                                                                          reference_landscape):
    """The reference campaign lists backtracking, dlx, sat, kissat; its landscape lists sat,
    kissat, backtracking, dlx: each entrant still looks the same in both, and in the page."""
    with plt.rc_context(plots.STYLE):
        runtime = _static_styles(plots.runtime_figure(reference, reference_table))
        land = _static_styles(landscape.landscape_plot(reference_landscape))
        work = _static_styles(plots.cactus_figure(reference))
    plt.close("all")
    entrants = ["backtracking", "dlx", "sat", "kissat"]
    assert set(entrants) <= set(runtime) and set(entrants) <= set(land)
    for entrant in entrants:
        assert runtime[entrant] == land[entrant] == work[entrant], entrant
    assert len({runtime[e] for e in entrants}) == 4
    assert runtime["sat"][0] != "#000000"          # black is backtracking's, in every figure
    page_runtime = _plotly_styles(html_figures.runtime_figure(reference, reference_table,
                                                              censored_stats.instance_times(reference.runs)))
    page_land = _plotly_styles(html_landscape.landscape_figure(reference_landscape))
    for entrant in entrants:
        colour, marker, _ = runtime[entrant]
        symbol = html_figures.trace_style(entrant_styles([entrant])[entrant])["marker"]["symbol"]
        assert page_runtime[entrant] == page_land[entrant], entrant
        assert page_runtime[entrant][:2] == (colour, symbol), entrant
    assert page_runtime["sat"][2] != page_runtime["kissat"][2]


def test_entrant_styles_follow_the_name_and_never_repeat_within_a_figure():
    names = ["sat", "dlx", *(f"sat:backend=b{k}" for k in range(40)), "mine"]
    styles = entrant_styles(names)
    assert len(set(styles.values())) == len(names)
    assert len({slot_style(k) for k in range(SLOTS)}) == SLOTS
    # a built-in keeps its slot whatever else races; another name its slot unless taken
    assert entrant_styles(["kissat", "sat"])["sat"] == styles["sat"] == slot_style(FIXED_SLOTS["sat"])
    alone = entrant_styles(["dlx:heuristic=first"])["dlx:heuristic=first"]
    assert entrant_styles(["sat", "dlx:heuristic=first"])["dlx:heuristic=first"] == alone
    assert entrant_styles(["dlx:heuristic=first", "sat"])["dlx:heuristic=first"] == alone


def _texts(fig) -> list:
    """Every visible text artist of ``fig`` (titles, labels, tick labels, legends, notes)."""
    found = [t for t in fig.findobj(matplotlib.text.Text) if t.get_visible() and t.get_text().strip()]
    return found


def test_the_campaign_caption_sits_under_every_label(synthetic, tmp_path, monkeypatch):
    """race plot's figures: the "campaign ..." caption overlaps no other text (it sat on the
    scatter's right x label)."""
    captured = []
    monkeypatch.setattr(plots, "save_figure", lambda fig, path, **kw: captured.append((path.stem, fig)))
    families = censored_stats.load(synthetic_campaign(tmp_path / "fam", families=("hard", "unique")))
    plots.plot_all(families, tmp_path / "plots", formats=("png",))
    assert {name for name, _ in captured} == set(plots.FIGURES)
    for name, fig in captured:
        canvas = FigureCanvasAgg(fig)                  # plot_all closed the figure
        canvas.draw()                                  # where each text is drawn, as saved
        renderer = canvas.get_renderer()
        texts = _texts(fig)
        (caption,) = [t for t in texts if t.get_text() == "campaign syn"]
        box = caption.get_window_extent(renderer)
        for other in texts:
            if other is caption:
                continue
            assert not box.overlaps(other.get_window_extent(renderer)), (name, other.get_text())
        assert all(box.y1 <= other.get_window_extent(renderer).y0 + 0.5 for other in texts if other is not caption), name


def test_every_figure_names_its_family(synthetic, tmp_path, monkeypatch):
    captured = []
    monkeypatch.setattr(plots, "save_figure", lambda fig, path, **kw: captured.append((path.stem, fig)))
    plots.plot_all(synthetic, tmp_path / "plots", formats=("png",))
    for name, fig in captured:
        words = " ".join(t.get_text() for t in _texts(fig))
        assert "unique" in words, name
    table = censored_stats.summary(synthetic)
    rows = censored_stats.instance_times(synthetic.runs)
    for name, fig in {"runtime": html_figures.runtime_figure(synthetic, table, rows),
                      "solved": html_figures.solved_figure(synthetic, table),
                      "cactus": html_figures.cactus_figure(synthetic, rows),
                      "work": html_figures.work_figure(synthetic, table),
                      "phases": html_figures.phases_figure(synthetic, table)}.items():
        words = fig.layout.title.text + " ".join(a.text for a in fig.layout.annotations)
        assert "unique" in words, name


def test_a_counter_that_is_zero_everywhere_is_said_not_plotted(reference, reference_table):
    """No CDCL conflict on the unique family: the panel says so (no zeros on an axis)."""
    with plt.rc_context(plots.STYLE):
        fig = plots.work_figure(reference, reference_table)
    panel = next(ax for ax in fig.axes if ax.get_title() == "unique: CDCL conflicts")
    assert panel.get_lines() == [] and panel.get_yticks().size == 0
    assert any("no conflicts" in t.get_text() and "sat, kissat" in t.get_text() for t in panel.texts)
    hard = next(ax for ax in fig.axes if ax.get_title() == "hard: CDCL conflicts")
    assert hard.get_lines() and hard.get_yscale() == "symlog"      # zeros at small n, conflicts later
    plt.close(fig)
    page = html_figures.work_figure(reference, reference_table)
    assert any(a.text.startswith("no conflicts") for a in page.layout.annotations)
    assert not [t for t in page.data if t.xaxis == "x3"]           # unique: conflicts is the 3rd panel


def test_censored_medians_are_drawn_at_the_limit(reference, reference_table):
    """The hard family: every entrant's median is censored from n = 6: a hollow marker per
    entrant and one for the virtual best, each on the limit line (as the caption says), set
    apart along x only."""
    with plt.rc_context(plots.STYLE):
        fig = plots.runtime_figure(reference, reference_table)
    hard = next(ax for ax in fig.axes if ax.get_title() == "hard puzzles")
    limit = reference.timeout_s
    hollow = [line for line in hard.get_lines() if line.get_markerfacecolor() == "white"]
    rivals = len(reference.entrants) + 1                            # and the virtual best
    assert len(hollow) == rivals
    assert {float(y) for line in hollow for y in line.get_ydata()} == {limit}
    assert len({float(line.get_xdata()[0]) for line in hollow}) == rivals
    assert limit < hard.get_ylim()[1]                                # the markers whole in view
    assert all(t <= limit * 1.0001 for t in hard.get_yticks())        # no tick claims a time > limit
    plt.close(fig)


def test_censored_pairs_in_the_head_to_head_are_spread_and_counted(reference):
    with plt.rc_context(plots.STYLE):
        fig = head_to_head.scatter_figure(reference, "dlx", "sat")
    hard = fig.axes[1]
    limit = reference.timeout_s
    censored = [(x, y) for line in hard.get_lines() if line.get_markerfacecolor() == "white"
                for x, y in zip(line.get_xdata(), line.get_ydata())]
    # n = 5: dlx timed out on 9 puzzles sat answered; n >= 6: one side or both never raced
    # (skipped), left out and counted in the legend, never drawn as censored pairs
    only_dlx = [(x, y) for x, y in censored if x > limit and y <= limit]
    assert len(only_dlx) == 9 and len(set(only_dlx)) == 9
    assert not [(x, y) for x, y in censored if y > limit]
    assert any("dlx only: 9" in t.get_text() for t in hard.texts)
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "left out: 50 pair(s) with a skipped side" in legend
    plt.close(fig)


def test_a_variant_wears_its_solvers_colour_and_never_a_built_ins_look():
    styles = entrant_styles(["dlx:heuristic=first", "sat:config=sat", "cpsat:model=int", "mine"])
    built_in = {slot_style(slot) for slot in FIXED_SLOTS.values()}
    for variant, solver in (("dlx:heuristic=first", "dlx"), ("sat:config=sat", "sat"),
                            ("cpsat:model=int", "cpsat")):
        assert styles[variant].colour == slot_style(FIXED_SLOTS[solver]).colour
        assert styles[variant] not in built_in       # told apart from the solver itself
    assert styles["mine"] not in built_in
    # the same look whether or not the built-in races beside it
    assert entrant_styles(["dlx", "dlx:heuristic=first"])["dlx:heuristic=first"] == \
        styles["dlx:heuristic=first"]


def test_the_pages_work_panels_tick_decades_alike(reference, reference_table):
    """Every work panel of the page ticks decades only, written the same way (10, 1k, 1M;
    "0" below 1 where a median is 0): no "10,000" in one panel beside "10k" in the next,
    no unlabelled 2s and 5s between the decades."""
    page = html_figures.work_figure(reference, reference_table)
    axes = [page.layout[name] for name in page.layout if name.startswith("yaxis")]
    plotted = [a for a in axes if a.tickvals]
    assert len(plotted) >= 7                          # 3 families x 3 counters, less "no conflicts"
    short = {1: "1", 10: "10", 100: "100", 10 ** 3: "1k", 10 ** 4: "10k", 10 ** 5: "100k",
             10 ** 6: "1M", 10 ** 7: "10M", 10 ** 8: "100M", 10 ** 9: "1G"}
    for axis in plotted:
        assert axis.type == "log" and axis.tickmode == "array"
        for value, text in zip(axis.tickvals, axis.ticktext):
            if text == "0":
                assert value == html_figures.ZERO_AT
            else:
                assert short[round(value)] == text and value == round(value)
    assert any("0" in a.ticktext for a in plotted)    # the hard family's conflicts start at 0


def test_the_pages_censored_medians_at_the_limit_and_instances_a_marker_apart(reference, reference_table):
    """The page agrees with the static figure: a censored median hollow on the limit line; a
    censored instance in its entrant's row of the strip above the limit, each row at least one
    marker (10 px and its outline) above the one below, on the figure's own log axis."""
    import math
    page = html_figures.runtime_figure(reference, reference_table, censored_stats.instance_times(reference.runs))
    limit = reference.timeout_s
    medians = [t for t in page.data if t.xaxis == "x2" and str(t.name).endswith("(median > limit)")]
    assert len(medians) == len(reference.entrants) + 1   # each entrant and the virtual best
    assert {float(y) for t in medians for y in t.y} == {limit}
    points = [t for t in page.data if t.xaxis == "x2" and str(t.name).endswith("(instances)")]
    rows = sorted({float(y) for t in points for y in t.y if y > limit})
    assert len(rows) >= 2
    axis = page.layout.yaxis2 if page.layout.yaxis2.range else page.layout.yaxis
    low, high = axis.range
    pixels = html_figures._margins(page.layout.height)[2]
    steps = [pixels * (math.log10(b) - math.log10(a)) / (high - low) for a, b in zip(rows, rows[1:])]
    assert min(steps) >= 13, steps          # 10 px markers, their outline, a pixel between


def test_a_box_measured_once_crops_as_savefig_tight_crops(reference, reference_table):
    """plot_all measures each figure's tight box once for its PDF and PNG: the PNG is the same
    pixels as ``savefig(bbox_inches="tight")`` makes, and so is a second file from one box."""
    import io

    from PIL import Image

    from experiments.analysis.figure_style import caption_below, tight_box

    def png(fig, **options) -> np.ndarray:
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=150, **options)
        return np.asarray(Image.open(io.BytesIO(buffer.getvalue())).convert("RGB"))

    with plt.rc_context(plots.STYLE):
        fig = plots.runtime_figure(reference, reference_table)
        caption_below(fig, "campaign box")
        tight = png(fig)                                  # savefig's own tight box (STYLE)
        box = tight_box(fig)
        once, again = png(fig, bbox_inches=box), png(fig, bbox_inches=box)
        plt.close(fig)
    assert tight.shape == once.shape and np.array_equal(tight, once) and np.array_equal(once, again)
