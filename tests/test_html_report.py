"""`race report --html`: the self-contained page, its data, the instances' grids, and the
page in a real browser (headless Chromium through selenium)."""

from __future__ import annotations

import base64
import gzip
import hashlib
import html
import json
import re
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from experiments.analysis import censored_stats
from experiments.cli.main import main as cli
from experiments.report import html as html_report
from experiments.report import instance_grids
from formats import grid_text
from generators.puzzle_set import make, puzzle_name
from tests.test_analysis import LIMIT, run, write_campaign
from tests.test_report_frontier import frontier_campaign

REPO = Path(__file__).resolve().parents[1]
LANDSCAPE = REPO / "results" / "reference-landscape"
OPTIONS: dict[str, Any] = {"holes": 0.5, "pattern": "random"}


def _instance(root: Path, n: int, index: int, write: bool) -> tuple[str, str]:
    """A real generated puzzle (holes, n, seed 0): its path under the instance cache and
    sha256; the file is written under ``root/instances`` only when ``write``."""
    grid, meta = make("holes", n, 0, index, **OPTIONS)
    data = grid_text.format_native(grid, meta).encode()
    relative = f"holes-n{n}-s0-holes0.5-random/{puzzle_name('holes', n, 0, index)}"
    if write:
        path = root / "instances" / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return relative, hashlib.sha256(data).hexdigest()


@pytest.fixture(scope="module")
def campaign_dir(tmp_path_factory) -> Path:
    """Two entrants, n = 2, 3, three instances each: a SAT-like one (phases, conflicts) and
    a search one (nodes) that times out once; n = 2's files are cached, n = 3's regenerated."""
    root = tmp_path_factory.mktemp("html")
    rows = []
    for n in (2, 3):
        for index in range(3):
            instance, sha = _instance(root, n, index, write=n == 2)
            common: dict[str, Any] = {"instance_sha256": sha, "family": "holes", "holes": 0.5, "clues": 8 if n == 2 else 40}
            search_status = "timeout" if (n, index) == (3, 2) else "solved"
            rows.append(run("search", n, instance, search_status, 0.001 * (index + 1) * n ** 3,
                            nodes=100 * (index + 1) * n, **common))
            rows.append(run("sat", n, instance, "solved", 0.002 * (index + 1) * n, conflicts=index * n,
                            t_encode=0.001, t_search=0.0005, **common))
    meta = {"entrants": ["search", "sat"], "family_labels": "holes",
            "families": {"holes": {"label": "holes", "kind": "holes",
                                   "options": {"2": OPTIONS, "3": OPTIONS}}},
            "git_commit": "abc123-dirty", "machine": {"cpu_model": "Test CPU", "cores": 2}}
    return write_campaign(root / "camp", rows, meta)


@pytest.fixture(scope="module")
def page(campaign_dir) -> Path:
    """The page of ``campaign_dir`` with the reference landscape and a frontier campaign."""
    out = campaign_dir / "report.html"
    frontier = frontier_campaign(campaign_dir.parent / "hard-n6")
    result = CliRunner().invoke(cli, ["report", str(campaign_dir), "--html", "-o", str(out),
                                      "--landscape", str(LANDSCAPE), "--frontier", str(frontier)])
    assert result.exit_code == 0, result.output
    assert f"wrote {out}" in result.output
    return out


def _block(text: str, element_id: str):
    found = re.search(rf'<script type="application/json\+gzip\+base64" id="{element_id}">([A-Za-z0-9+/=]*)</script>',
                      text)
    assert found is not None, element_id
    return json.loads(gzip.decompress(base64.b64decode(found.group(1))))


def test_figures_packed_in_pieces_are_the_json_object_of_each_figures_own_json():
    """The figures' text is compressed figure by figure (never joined whole); unpacked, it is
    one JSON object of plotly's JSON of each figure, by name, and the figures are let go."""
    import plotly.graph_objects as go
    figures = {f"f{i}": go.Figure(go.Scatter(x=list(range(i * 1000)), y=[i] * (i * 1000)))
               for i in range(1, 4)}
    expected = {name: json.loads(fig.to_json(validate=False)) for name, fig in figures.items()}
    page = html_report.packed_script("race-figures", pieces=html_report.figures_json(figures))
    assert _block(page, "race-figures") == expected
    assert figures == {}
    assert _block(html_report.packed_script("race-data", {"a": [1, 2.5, None]}), "race-data") \
        == {"a": [1, 2.5, None]}


def _blocks(text: str) -> tuple[dict, dict]:
    return _block(text, "race-data"), _block(text, "race-figures")


def test_the_page_is_self_contained(page):
    text = page.read_text(encoding="utf-8")
    assert not re.search(r"<script[^>]+src=", text) and not re.search(r"<link[^>]+href=", text)
    assert "Plotly.newPlot" in text and "plotly.js" in text.lower()
    data, figures = _blocks(text)
    assert set(figures) == {"runtime", "solved", "cactus", "work", "phases", "landscape"}
    assert data["entrants"] == ["search", "sat"] and data["vbs"] == "virtual best"
    assert "the campaign ran with uncommitted changes (git commit ends in -dirty)" in data["warnings"]
    assert ["git commit", "abc123-dirty"] in data["meta"]


def test_the_page_data_has_every_instance_with_its_status_time_and_counters(page):
    data, figures = _blocks(page.read_text(encoding="utf-8"))
    c = {k: i for i, k in enumerate(data["columns"])}
    rows = data["instances"]
    assert len(rows) == 12
    timeout = [r for r in rows if r[c["status"]] == "timeout"]
    assert len(timeout) == 1 and timeout[0][c["time"]] == "inf" and timeout[0][c["entrant"]] == "search"
    sat3 = [r for r in rows if r[c["entrant"]] == "sat" and r[c["n"]] == 3]
    assert sorted(r[c["conflicts"]] for r in sat3) == [0, 3, 6]
    assert sorted(r[c["time"]] for r in sat3) == pytest.approx([0.006, 0.012, 0.018])
    # the virtual best line is in the runtime, solved and cactus figures, with hover texts
    for name in ("runtime", "solved", "cactus"):
        assert any(t.get("name") == "virtual best" for t in figures[name]["data"]), name
    hover = [t for t in figures["runtime"]["data"] if t.get("name") == "search (instances)"][0]["text"]
    assert any("status timeout" in h and f"time > {LIMIT:g} s" in h for h in hover)
    assert any("status solved" in h and "nodes 600" in h for h in hover)       # n = 3, index 0


def test_grids_are_the_raced_puzzles_read_or_regenerated(campaign_dir, page):
    data, _ = _blocks(page.read_text(encoding="utf-8"))
    packed = data["grids"]
    assert len(packed["grids"]) == 6 and data["grids_missing"] == {}
    sources = {name: entry[5] for name, entry in packed["grids"].items()}
    assert {s for k, s in sources.items() if "-n2-" in k} == {"file"}
    assert {s for k, s in sources.items() if "-n3-" in k} == {"regenerated"}
    name = next(k for k in packed["grids"] if "-n3-" in k and k.endswith("0001.sudoku"))
    grid, meta = make("holes", 3, 0, 1, **OPTIONS)
    n, clues, solution, label, _ = instance_grids.unpack(packed, name).__dict__.values()
    assert n == 3 and clues == instance_grids.encode(grid.cells, 3)
    assert solution == instance_grids.encode(grid_text.parse(meta["planted"] + "\n").grids[0].cells, 3)
    assert "planted" in label


def test_a_grid_that_does_not_match_its_sha256_is_left_out_with_the_reason(tmp_path):
    instance, sha = _instance(tmp_path, 2, 0, write=True)
    rows = [run("a", 2, instance, "solved", 0.1, instance_sha256=sha, family="holes")]
    campaign = censored_stats.load(write_campaign(tmp_path / "c", rows))
    # edited once the campaign is read (read after, its row would be left out: not its file)
    (tmp_path / "instances" / instance).write_text((tmp_path / "instances" / instance).read_text()
                                                  .replace("# kind=holes", "# kind=holes\n# edited=1"))
    grids, missing = instance_grids.campaign_grids(campaign)
    assert grids == {} and missing == {instance: "the file puzzle does not match the recorded sha256"}


def test_an_instance_without_file_or_generator_identity_is_reported(tmp_path):
    rows = [run("a", 2, "mine/puzzle.txt", "solved", 0.1, instance_sha256="00", family="unique")]
    campaign = censored_stats.load(write_campaign(tmp_path / "c", rows))
    grids, missing = instance_grids.campaign_grids(campaign)
    assert grids == {} and "no instance file" in missing["mine/puzzle.txt"]


def test_encode_uses_one_character_per_cell_to_n5_and_two_beyond():
    import numpy as np
    assert instance_grids.encode(np.array([0, 1, 25]), 5) == "01p"
    assert instance_grids.encode(np.array([0, 36, 100]), 10) == "00102s"       # 100 = 2 * 36 + 28


def test_html_options_without_html_are_a_usage_error(campaign_dir):
    result = CliRunner().invoke(cli, ["report", str(campaign_dir), "-o", "x.html"])
    assert result.exit_code == 2 and "--html" in result.output


# ---------------------------------------------------------------- the browser

def _browser():
    """A headless Chromium driven by selenium, or the reason there is none."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if chromium is None or driver is None:
        return None, ("headless Chromium not installed (Debian: apt-get install chromium chromium-driver; "
                      "`make test` does it as root via .ci/system-deps)")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        return None, "selenium is not installed (pip install -e '.[test]')"
    options = Options()
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1400,1000"):
        options.add_argument(argument)
    options.binary_location = chromium
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(driver), options=options), None


@pytest.fixture(scope="module")
def browser():
    driver, reason = _browser()
    if driver is None:
        print(f"SKIPPED browser test: {reason}", file=sys.stderr)
        pytest.skip(reason)
    yield driver
    driver.quit()


def _wait(driver, script: str, timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = driver.execute_script(script)
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for: {script}")


def _rows(driver) -> list[list[str]]:
    return driver.execute_script(
        "return [...document.querySelectorAll('#instance-table tbody tr')]"
        ".map(tr => [...tr.children].map(td => td.textContent))")


def test_the_page_works_in_headless_chromium(browser, page, tmp_path):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    driver = browser
    driver.get(page.as_uri())
    _wait(driver, "return document.body.dataset.ready === 'true'")

    # every plot rendered with marks (points or bars in its SVG)
    marks = driver.execute_script(
        "return Object.fromEntries([...document.querySelectorAll('.js-plotly-plot')].map(p => "
        "[p.id, p.querySelectorAll('svg .scatterlayer .point, svg .barlayer .point, svg .scatterlayer .js-line')"
        ".length]))")
    assert set(marks) == {"fig-runtime", "fig-solved", "fig-cactus", "fig-work", "fig-phases", "fig-landscape",
                          "fig-scatter"}
    assert all(count > 0 for count in marks.values()), marks

    # the table sorts: by time ascending (censored last), then descending
    header = driver.find_element(By.CSS_SELECTOR, "#instance-table th[data-key='time']")
    header.click()
    times = [r[5] for r in _rows(driver)]
    assert times[-1] == f"> {LIMIT:g} s" and times[0] == "4 ms"       # sat, n = 2, index 0
    header.click()
    assert _rows(driver)[0][5] == f"> {LIMIT:g} s"

    # a filter changes the rows
    assert len(_rows(driver)) == 12
    Select(driver.find_element(By.CSS_SELECTOR, "select[data-filter='entrant']")).select_by_value("sat")
    rows = _rows(driver)
    assert len(rows) == 6 and {r[0] for r in rows} == {"sat"}
    driver.find_element(By.CSS_SELECTOR, "input[data-filter='time']").send_keys(">0.01")
    assert len(_rows(driver)) == 3                      # sat: 12, 12 and 18 ms
    assert "3 of 12 rows" in driver.find_element(By.ID, "row-count").text

    # an instance links to its grid: clues bold, the solution filled in
    driver.find_element(By.CSS_SELECTOR, "#instance-table a.grid-link").click()
    cells = _wait(driver, "return document.querySelectorAll('#grid-board table.sudoku td').length")
    assert cells in (16, 81)
    assert driver.execute_script("return document.querySelectorAll('#grid-board td.clue').length") > 0
    assert driver.execute_script("return document.querySelectorAll('#grid-board td.solved').length") > 0
    assert "sha256 checked" in driver.find_element(By.ID, "grid-info").text

    # the head to head follows the entrants chosen in the page
    Select(driver.find_element(By.ID, "pair-a")).select_by_value("search")
    Select(driver.find_element(By.ID, "pair-b")).select_by_value("sat")
    note = driver.find_element(By.ID, "pair-note").text
    assert note.startswith("6 instance pairs")

    # hovering a point shows a tooltip with the instance
    figure = driver.find_element(By.ID, "fig-cactus")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", figure)
    point = figure.find_element(By.CSS_SELECTOR, ".scatterlayer .point")
    ActionChains(driver).move_to_element(point).perform()
    tooltip = _wait(driver, "const t = document.querySelector('#fig-cactus .hoverlayer .hovertext');"
                            "return t && t.textContent", timeout=10)
    assert "instance" in tooltip and "status" in tooltip

    # the frontier's section is shown and linked, its censored medians marked
    assert driver.find_element(By.ID, "frontier").is_displayed()
    assert driver.find_element(By.CSS_SELECTOR, "nav a[href='#frontier']").is_displayed()
    frontier = driver.execute_script(
        "return [...document.querySelectorAll('#frontier-table tbody tr')].map(tr => [...tr.children]"
        ".map(td => td.textContent + (td.classList.contains('censored') ? ' (censored)' : '')))")
    assert len(frontier) == 5 and frontier[-1][6] == "any entrant"
    assert frontier[1][6:10] == ["kissat:config=sat", "1", "1/5", "> 60 s (censored)"]

    # no JavaScript error logged
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == []
    shot = tmp_path / "report.png"
    driver.save_screenshot(str(shot))
    assert shot.stat().st_size > 10_000


def test_the_pages_head_to_head_draws_the_static_models_points_and_counts(browser, page, campaign_dir):
    """For a pair and a family chosen in the page, the script draws the points of
    scatter_model (the same places in the strip beyond the limit) and its note gives the
    counts the model's titles give."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    from experiments.analysis.scatter_phase_models import scatter_model
    campaign = censored_stats.load(campaign_dir)
    browser.get(page.as_uri())
    _wait(browser, "return document.body.dataset.ready === 'true'")
    for a, b in (("search", "sat"), ("sat", "search")):
        Select(browser.find_element(By.ID, "pair-a")).select_by_value(a)
        Select(browser.find_element(By.ID, "pair-b")).select_by_value(b)
        Select(browser.find_element(By.ID, "pair-family")).select_by_value("holes")
        drawn = browser.execute_script(
            "return document.getElementById('fig-scatter').data.slice(1).map(t => "
            "t.x.map((x, i) => [x, t.y[i], t.customdata[i]]))")
        model = scatter_model(campaign, a, b)
        (panel,) = model.panels
        expected = sorted((float(x), float(y), str(i)) for s in panel.series if s.rows is not None
                          for x, y, i in zip(s.x, s.y, s.rows["instance"]))
        censored = sorted((float(x), float(y), str(i)) for s in panel.series if s.rows is not None
                          for x, y, i, off in zip(s.x, s.y, s.rows["instance"], s.censored) if off)
        assert sorted(tuple(p) for trace in drawn for p in trace) == expected     # JSON keeps each float
        assert sorted(tuple(p) for p in drawn[1]) == censored and len(censored) == 1
        slower = int(panel.title.rsplit(" slower on ", 1)[1].split(" of ")[0])
        note = browser.find_element(By.ID, "pair-note").text
        assert note.startswith(f"{len(expected)} instance pairs: {a} faster on {slower}, "), note
        assert "> limit: search only 1" in note                  # its timeout at n = 3, on x or on y


@pytest.mark.parametrize("given", ["missing", "campaign"])
def test_a_landscape_that_is_none_is_an_error_not_left_out_in_silence(campaign_dir, tmp_path, given):
    landscape = tmp_path / "nowhere" if given == "missing" else campaign_dir
    out = tmp_path / "r.html"
    result = CliRunner().invoke(cli, ["report", str(campaign_dir), "--html", "--no-grids", "-o",
                                      str(out), "--landscape", str(landscape)])
    assert result.exit_code == 2 and "--landscape" in result.output and str(landscape) in result.output
    assert not out.exists()


# ---------------------------------------------------------------- size, offline, plotly bundle

STATIC = REPO / "experiments" / "report" / "static"


def test_the_page_inlines_the_vendored_cartesian_plotly_of_the_python_plotly_version(page):
    """The cartesian bundle (scatter, bar: all the page draws), the version python plotly
    writes its figures for, its license beside it; inlined once."""
    from plotly.offline import get_plotlyjs_version
    bundle = (STATIC / "plotly-cartesian.min.js").read_text(encoding="utf-8")
    header = re.search(r"plotly\.js \(cartesian - minified\) v(\S+)", bundle[:400])
    assert header and header.group(1) == get_plotlyjs_version()
    assert "MIT License" in (STATIC / "plotly-cartesian.LICENSE").read_text(encoding="utf-8")
    text = page.read_text(encoding="utf-8")
    assert text.count(bundle[:200]) == 1 and "plotly.js (cartesian" in text


def test_the_page_names_no_outside_resource(page):
    """No script, style sheet, image or font from elsewhere: every src and href of the page
    is an anchor inside it, no CSS url() or @import."""
    from html.parser import HTMLParser
    links = []

    class Links(HTMLParser):
        def handle_starttag(self, tag, attrs):
            links.extend((tag, name, value) for name, value in attrs if name in ("src", "href", "srcset", "data"))

    text = page.read_text(encoding="utf-8")
    Links().feed(text)
    assert links and all(name == "href" and value.startswith("#") for _, name, value in links), links
    style = re.search(r"<style>(.*?)</style>", text, re.S).group(1)
    assert "url(" not in style and "@import" not in style


def test_the_reference_page_with_its_landscape_fits_its_budget():
    """`race report results/reference-n2-10 --html --landscape results/reference-landscape`
    writes at most 2.5 MB: all but the grids here (quick), at most 2.0 MB, which leaves 0.5 MB
    for the packed grids of the 270 instances (0.36 MB measured)."""
    campaign = censored_stats.load(REPO / "results" / "reference-n2-10")
    text = html_report.render(campaign, censored_stats.load(LANDSCAPE), grids=False)
    assert len(text.encode("utf-8")) <= 2_000_000


def test_packed_grids_hold_each_solution_once_and_clues_as_a_mask():
    """Three families cut from one solved grid cost little more than one."""
    import numpy as np
    rng = np.random.default_rng(0)
    n = 4
    base = np.array([[(n * (r % n) + r // n + c) % (n * n) + 1 for c in range(n * n)] for r in range(n * n)])
    solution = instance_grids.encode(base, n)
    grids = {}
    for k, share in enumerate((0.3, 0.5, 0.7)):
        clues = np.where(rng.random(base.shape) < share, 0, base)
        grids[f"f{k}"] = instance_grids.InstanceGrid(n, instance_grids.encode(clues, n), solution, "the unique solution",
                                                     "file")
    odd = np.where(rng.random(base.shape) < 0.5, 0, (base % (n * n)) + 1)     # clues no solution shares
    grids["odd"] = instance_grids.InstanceGrid(n, instance_grids.encode(odd, n), solution, "planted", "file")
    grids["none"] = instance_grids.InstanceGrid(n, instance_grids.encode(odd, n), None, "", "regenerated")
    packed = instance_grids.pack(grids)
    assert packed["solutions"] == [solution]
    assert [g[1] is None for g in packed["grids"].values()] == [True, True, True, False, False]
    assert all(len(packed["grids"][f"f{k}"][2]) == n ** 4 // 4 for k in range(3))
    for name, grid in grids.items():
        assert instance_grids.unpack(packed, name) == grid


# ---------------------------------------------------------------- names that are not markup

HOSTILE = {
    "script-in-an-entrant": {"entrant": "sat{{SCRIPT}}"},
    "data-in-the-campaign-name": {"campaign": "c{{DATA}}{{TITLE}}"},
    "plotly-in-the-data": {"entrant": "p{{PLOTLY}}"},
    "a-comment-and-script-in-a-name": {"entrant": "x<!--<script>", "campaign": "c<!--<script>"},
    "markup-in-an-entrant": {"entrant": '<span style="font-size:99px">big</span>&amp;'},
}


def _hostile_page(root: Path, case: dict) -> tuple[Path, str, str]:
    """A two-entrant campaign whose one entrant (or campaign) has the hostile name; its page."""
    entrant = case.get("entrant", "plain")
    name = case.get("campaign", "hostile")
    rows = [run(e, 2, f"i{k}.sudoku", "solved", 0.001 * (k + 1) * (j + 1), nodes=10 * k, family="unique")
            for j, e in enumerate((entrant, "dlx")) for k in range(3)]
    campaign = write_campaign(root / "camp", rows, {"campaign": name, "entrants": [entrant, "dlx"]})
    out = root / "r.html"
    result = CliRunner().invoke(cli, ["report", str(campaign), "--html", "--no-grids", "-o", str(out)])
    assert result.exit_code == 0, result.output
    return out, entrant, name


@pytest.mark.parametrize("case", list(HOSTILE.values()), ids=list(HOSTILE))
def test_a_name_that_looks_like_a_placeholder_or_markup_stays_text(tmp_path, case):
    out, entrant, name = _hostile_page(tmp_path, case)
    text = out.read_text(encoding="utf-8")
    script = (STATIC / "report.js").read_text(encoding="utf-8")
    assert text.count(script) == 1                                   # the page script, once, in its place
    assert text.count("<script") == text.count("</script>") == 4     # plotly, data, figures, page script
    assert re.search(r"<title>([^<]*)</title>", text).group(1) == html.escape(f"sudoku-race: {name}")
    data, figures = _blocks(text)
    assert data["name"] == name and data["entrants"] == [entrant, "dlx"]
    names = {t.get("name") for t in figures["runtime"]["data"]}
    assert html.escape(entrant, quote=False) in names and (entrant in names) == (html.escape(entrant) == entrant)


@pytest.mark.parametrize("case", list(HOSTILE.values()), ids=list(HOSTILE))
def test_a_page_with_such_a_name_works_and_shows_it_as_text_in_chromium(browser, tmp_path, case):
    out, entrant, name = _hostile_page(tmp_path, case)
    browser.get(out.as_uri())
    _wait(browser, "return document.body.dataset.ready === 'true'")
    assert browser.find_element("id", "title").text == f"sudoku-race: campaign {name}"
    assert browser.execute_script("return document.title") == f"sudoku-race: {name}"
    assert browser.execute_script("return document.querySelectorAll('#summary-table tbody tr').length") >= 2
    assert len(_rows(browser)) == 6
    legend = browser.execute_script(
        "return [...document.querySelectorAll('#fig-runtime .legend .legendtext')].map(t => "
        "[t.textContent, parseFloat(getComputedStyle(t).fontSize), t.getBoundingClientRect().height])")
    assert [t for t, _, _ in legend][:2] == [entrant, "dlx"]
    assert all(size < 20 and height < 30 for _, size, height in legend), legend
    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []


def test_the_head_to_head_legend_is_clear_of_the_colour_bar(browser, page):
    browser.get(page.as_uri())
    _wait(browser, "return document.body.dataset.ready === 'true'")
    boxes = browser.execute_script(
        "const box = (s) => { const r = document.querySelector('#fig-scatter ' + s).getBoundingClientRect();"
        " return [r.left, r.top, r.right, r.bottom]; }; return [box('.legend'), box('.colorbar')]")
    (l0, t0, r0, b0), (l1, t1, r1, b1) = boxes
    assert r0 <= l1 or r1 <= l0 or b0 <= t1 or b1 <= t0, boxes


def test_the_page_fetches_nothing_in_chromium(browser, page):
    browser.get(page.as_uri())
    _wait(browser, "return document.body.dataset.ready === 'true'")
    assert browser.execute_script("return performance.getEntriesByType('resource').map(e => e.name)") == []


def test_a_large_campaign_s_page_holds_the_grids_of_its_slowest_instances_and_says_so(tmp_path, monkeypatch):
    from experiments.harness import synthetic_campaign
    root = synthetic_campaign.write(tmp_path, 12, ("dlx",))
    campaign = censored_stats.load(root)
    monkeypatch.setattr(instance_grids, "GRID_LIMIT", 3)
    rows = html_report.instance_rows(campaign)
    slowest = rows.sort_values("time", ascending=False, kind="mergesort")["instance"].tolist()[:3]
    assert instance_grids.slowest(rows, 3) == slowest
    monkeypatch.setattr(instance_grids.slowest, "__defaults__", (3,))
    data, _ = html_report.page_data(campaign)
    assert sorted(data["grids"]["grids"]) == sorted(slowest)
    note = data["grids_missing"]["*"]
    assert "3 slowest of 12 instances" in note
    assert ["instance grids", note] in data["meta"]
