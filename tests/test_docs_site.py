"""The documentation site: it builds with ``mkdocs build --strict`` (no broken link or anchor,
no page outside the nav), its command reference holds every command and option of the lazy
click group, and the runs.csv and meta.json tables of docs/formats.md hold exactly what the
code writes."""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

from experiments.cli.main import COMMANDS, main
from experiments.harness import provenance, schema

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _build(config: Path, site: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file",
                           str(config), "--site-dir", str(site)], cwd=ROOT, capture_output=True,
                          text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"}, timeout=300)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site as `make docs` builds it (strict), into a temporary directory."""
    out = tmp_path_factory.mktemp("site")
    done = _build(ROOT / "mkdocs.yml", out)
    assert done.returncode == 0, done.stdout + done.stderr
    return out


def _nav_pages(nav) -> list[str]:
    pages: list[str] = []
    for item in nav:
        value = next(iter(item.values())) if isinstance(item, dict) else item
        pages.extend(_nav_pages(value) if isinstance(value, list) else [value])
    return pages


def _config() -> dict:
    return yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))


def test_the_site_builds_strictly(site):
    assert (site / "index.html").is_file() and (site / "reference.html").is_file()
    assert (site / "figures" / "runtime.png").is_file()       # served from report/generated
    assert not (site / "hooks").exists()


def test_every_page_is_in_the_nav_once():
    pages = _nav_pages(_config()["nav"])
    files = sorted(str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md"))
    assert sorted(pages) == files and len(set(pages)) == len(pages)


def test_an_orphan_page_or_a_broken_link_fails_the_build(tmp_path):
    """The strict build is what catches them: a copy of the docs with a page outside the nav
    that links to a page that does not exist must not build."""
    docs = tmp_path / "docs"
    shutil.copytree(DOCS, docs, ignore=shutil.ignore_patterns("hooks"))
    (docs / "orphan.md").write_text("# Orphan\n\nSee [nowhere](nowhere.md).\n", encoding="utf-8")
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    text = text.replace("docs_dir: docs", f"docs_dir: {docs}")
    text = text.replace("  - docs/hooks/", f"  - {DOCS}/hooks/")
    config = tmp_path / "mkdocs.yml"
    config.write_text(text, encoding="utf-8")
    done = _build(config, tmp_path / "site")
    assert done.returncode != 0
    assert "orphan.md" in done.stderr and "nowhere.md" in done.stderr


def test_the_reference_has_every_command_and_option(site):
    page = (site / "reference.html").read_text(encoding="utf-8")
    for name in COMMANDS:
        start = page.find(f'id="race-{name}"')
        assert start >= 0, f"race {name} is missing from the command reference"
        end = page.find('id="race-', start + 1)
        section = html.unescape(re.sub(r"<[^>]+>", "", page[start:end if end > 0 else None]))
        command = main.get_command(None, name)
        for param in command.params:
            if getattr(param, "hidden", False):     # an old spelling kept working, not listed
                assert not any(opt in section for opt in param.opts if opt.startswith("--"))
                continue
            hidden = getattr(param, "hidden_aliases", ())      # an old spelling, left out of --help
            for opt in [*param.opts, *param.secondary_opts]:
                if opt.startswith("-") and opt not in hidden:
                    assert opt in section, f"race {name}: option {opt} is missing"
        assert f"race {name}" in section


def _table(heading: str) -> list[str]:
    """The code spans that start the rows of the first table under ``## heading`` in
    docs/formats.md."""
    text = (DOCS / "formats.md").read_text(encoding="utf-8")
    part = text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    return [m.group(1) for m in re.finditer(r"^\| `([^`]+)` \|", part, re.MULTILINE)]


def _row(heading: str, key: str) -> str:
    text = (DOCS / "formats.md").read_text(encoding="utf-8")
    part = text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    return next(line for line in part.splitlines() if line.startswith(f"| `{key}` |"))


def test_every_runs_csv_column_is_documented_in_order():
    assert _table("runs.csv") == list(schema.COLUMNS)


def test_every_meta_json_key_is_documented(tmp_path):
    """The keys a run writes (here a run on an instance set with an outside program, which
    adds the optional blocks), those of the committed campaigns (older and merged ones
    included) and those the one reader checks: each documented, and nothing else."""
    puzzles = tmp_path / "puzzles"
    puzzles.mkdir()
    shutil.copy(ROOT / "tests" / "data" / "empty4.sudoku", puzzles)
    program = ROOT / "tests" / "outside_solvers" / "backtrack_solver.py"
    race = Path(sys.executable).with_name("race")
    done = subprocess.run([str(race), "run", "--instances", str(puzzles), "--solvers",
                           f"dlx,cmd:path={program}", "--timeout", "10", "-j", "1", "--out",
                           str(tmp_path / "out")], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    written = [json.loads(p.read_text()) for p in (tmp_path / "out").glob("*/meta.json")]
    committed = [json.loads(p.read_text()) for p in (ROOT / "results").glob("*/meta.json")]
    assert written and committed
    real = {key for meta in (*written, *committed) for key in meta}
    real |= set(provenance._SHAPE) | set(provenance._NULLABLE)
    assert {"instance_set", "entrant_provenance", "calibration"} <= real
    documented = _table("meta.json")
    assert len(documented) == len(set(documented))
    assert sorted(real - set(documented)) == [], "keys written but not documented"
    assert sorted(set(documented) - real) == [], "keys documented but never written"
    machine = _row("meta.json", "machine")
    assert all(f"`{key}`" in machine for key in written[0]["machine"])


def test_the_docs_extra_is_part_of_the_test_extra():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    names = {re.split(r"[<>=\[ ]", spec)[0] for spec in extras["docs"]}
    assert names == {"mkdocs", "mkdocs-material", "mkdocs-click"}
    assert set(extras["docs"]) <= set(extras["test"])


def test_the_readmes_links_and_images_exist():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    local = [t for t in targets if "://" not in t]
    assert len(local) >= 15
    missing = [t for t in local if not (ROOT / t).exists()]
    assert not missing, f"README.md links to missing files: {missing}"
