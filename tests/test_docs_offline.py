"""The documentation site opened from disk: `make docs` writes site/, and site/index.html opened
with file:// (no web server) must navigate and search, in a real browser (headless Chromium
through selenium)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import yaml

from solvers import methods
from tests.test_docs_site import ROOT, _build
from tests.test_html_report import browser  # noqa: F401  (the headless Chromium fixture)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("offline-site")
    done = _build(ROOT / "mkdocs.yml", out)
    assert done.returncode == 0, done.stdout + done.stderr
    return out


def _until(driver, script: str, *args, timeout: float = 30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = driver.execute_script(script, *args)
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for: {script}")


def _follow(driver, text: str) -> str:
    """Click the primary navigation's link named ``text``; return the heading of the page it opens."""
    before = driver.current_url
    link = _until(driver, "return [...document.querySelectorAll('nav.md-nav--primary a.md-nav__link')]"
                          ".find(a => a.textContent.trim() === arguments[0])", text)
    driver.execute_script("arguments[0].click()", link)
    _until(driver, "return location.href !== arguments[0] && document.readyState === 'complete'", before)
    return _until(driver, "const h = document.querySelector('article h1'); return h && h.textContent.trim()")


def test_pages_are_files_not_directories():
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8").replace("!!python", "#"))
    assert config["use_directory_urls"] is False


def test_the_site_opened_from_disk_navigates_and_searches(site, browser):  # noqa: F811
    browser.get((site / "index.html").as_uri())
    described = browser.execute_script("return document.querySelector('meta[name=description]').content")
    assert described == methods.description()            # the one list of methods (solvers/methods.py)
    assert _follow(browser, "Getting started").startswith("Getting started")
    assert browser.current_url == (site / "getting-started.html").as_uri()
    assert _follow(browser, "DLX").startswith("DLX")                    # a page one folder down
    assert browser.current_url == (site / "solvers" / "dlx.html").as_uri()
    # the search box: its index is inlined, its worker runs without a server
    browser.execute_script("document.querySelector('label.md-search__icon').click()")
    box = browser.find_element("css selector", "input.md-search__input")
    box.send_keys("dancing links")
    hits = _until(browser, "return [...document.querySelectorAll('.md-search-result__item a')]"
                           ".map(a => a.href)")
    assert any(h.startswith((site / "solvers" / "dlx.html").as_uri()) for h in hits), hits
    browser.get(hits[0])
    assert _until(browser, "const h = document.querySelector('article h1'); return h && h.textContent")
    assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
