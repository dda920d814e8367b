"""`race report --html`: the self-contained page, its data, the instances' grids, and the
page in a real browser (headless Chromium through selenium)."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import re
import shutil
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from experiments.analysis import statistics as analysis
from experiments.cli.main import main as cli
from experiments.report import html as html_report
from experiments.report import instance_grids
from formats import grid_text
from generators.puzzle_set import make, puzzle_name
from tests.test_analysis import LIMIT, run, write_campaign

REPO = Path(__file__).resolve().parents[1]
LANDSCAPE = REPO / "results" / "reference-landscape"
OPTIONS = {"holes": 0.5, "pattern": "random"}


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
            common = {"instance_sha256": sha, "family": "holes", "holes": 0.5, "clues": 8 if n == 2 else 40}
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
    out = campaign_dir / "report.html"
    result = CliRunner().invoke(cli, ["report", str(campaign_dir), "--html", "-o", str(out),
                                      "--landscape", str(LANDSCAPE)])
    assert result.exit_code == 0, result.output
    assert f"wrote {out}" in result.output
    return out


def _blocks(text: str) -> tuple[dict, dict]:
    data = re.search(r'<script type="application/json" id="race-data">(.*?)</script>', text, re.S)
    figures = re.search(r'<script type="application/json" id="race-figures">(.*?)</script>', text, re.S)
    return json.loads(data.group(1)), json.loads(figures.group(1))


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
    packed = json.loads(gzip.decompress(base64.b64decode(data["grids_gz"])))
    assert len(packed) == 6 and data["grids_missing"] == {}
    sources = {name: entry[4] for name, entry in packed.items()}
    assert {s for k, s in sources.items() if "-n2-" in k} == {"file"}
    assert {s for k, s in sources.items() if "-n3-" in k} == {"regenerated"}
    name = next(k for k in packed if "-n3-" in k and k.endswith("0001.sudoku"))
    grid, meta = make("holes", 3, 0, 1, **OPTIONS)
    n, clues, solution, label, _ = packed[name]
    assert n == 3 and clues == instance_grids.encode(grid.cells, 3)
    assert solution == instance_grids.encode(grid_text.parse(meta["planted"] + "\n").grids[0].cells, 3)
    assert "planted" in label


def test_a_grid_that_does_not_match_its_sha256_is_left_out_with_the_reason(tmp_path):
    instance, sha = _instance(tmp_path, 2, 0, write=True)
    (tmp_path / "instances" / instance).write_text((tmp_path / "instances" / instance).read_text()
                                                  .replace("# kind=holes", "# kind=holes\n# edited=1"))
    rows = [run("a", 2, instance, "solved", 0.1, instance_sha256=sha, family="holes")]
    campaign = analysis.load(write_campaign(tmp_path / "c", rows))
    grids, missing = instance_grids.campaign_grids(campaign)
    assert grids == {} and missing == {instance: "the file puzzle does not match the recorded sha256"}


def test_an_instance_without_file_or_generator_identity_is_reported(tmp_path):
    rows = [run("a", 2, "mine/puzzle.txt", "solved", 0.1, instance_sha256="00", family="unique")]
    campaign = analysis.load(write_campaign(tmp_path / "c", rows))
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

    # no JavaScript error logged
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == []
    shot = tmp_path / "report.png"
    driver.save_screenshot(str(shot))
    assert shot.stat().st_size > 10_000


@pytest.mark.parametrize("given", ["missing", "campaign"])
def test_a_landscape_that_is_none_is_an_error_not_left_out_in_silence(campaign_dir, tmp_path, given):
    landscape = tmp_path / "nowhere" if given == "missing" else campaign_dir
    out = tmp_path / "r.html"
    result = CliRunner().invoke(cli, ["report", str(campaign_dir), "--html", "--no-grids", "-o",
                                      str(out), "--landscape", str(landscape)])
    assert result.exit_code == 2 and "--landscape" in result.output and str(landscape) in result.output
    assert not out.exists()
