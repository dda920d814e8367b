"""Solver plugins: a package installed with an entry point in the group
``sudoku_race.solvers`` becomes an entrant of the CLI and the harness; a broken
plugin gives a one-line warning, not a crash. The package here is a dist-info
directory in a temporary folder put on PYTHONPATH (no network, no pip)."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from formats import grid_text
from solvers import registry, rules

PLUGIN = '''
from solvers.backtracking import Backtracking


class Reverse(Backtracking):
    """Demo plugin: backtracking with one more parameter."""
    name = "reverse"
    parameters = {**Backtracking.parameters, "flavour": ("plain", ("plain", "spicy"))}

    def __init__(self, **params):
        flavour = params.pop("flavour", "plain")
        super().__init__(**params)
        self.params["flavour"] = flavour


NOT_A_SOLVER = 42
'''
ENTRY_POINTS = """[sudoku_race.solvers]
reverse = race_demo_plugin:Reverse
dlx = race_demo_plugin:Reverse
nosuchmodule = race_demo_plugin_missing:Solver
notasolver = race_demo_plugin:NOT_A_SOLVER
malformed = race_demo_plugin Reverse
"""
PUZZLE = "1...2.3....4.1..\n"


@pytest.fixture(scope="module")
def plugin_path(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("plugin")
    (root / "race_demo_plugin.py").write_text(PLUGIN)
    info = root / "race_demo_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: race-demo-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    return root


def race(plugin_path: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(plugin_path), str(Path(__file__).resolve().parents[1]), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-c", "from experiments.cli.main import main; main()", *args],
                          capture_output=True, text=True, env=env, timeout=300, cwd=cwd,
                          stdin=subprocess.DEVNULL)


def test_race_solvers_lists_the_plugin_and_warns_once_per_broken_entry(plugin_path):
    done = race(plugin_path, "solvers")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("reverse "))
    assert "Demo plugin: backtracking with one more parameter." in lines[at]
    assert "[plugin from race-demo-plugin]" in lines[at]
    assert lines[at + 1].split() == ["parameters:", "node_limit=0,", "flavour=plain", "[plain|spicy]"]
    broken = {line.split()[0]: line for line in lines if "(unavailable:" in line}
    assert set(broken) == {"nosuchmodule", "notasolver"}
    assert "No module named 'race_demo_plugin_missing'" in broken["nosuchmodule"]
    assert "is not a Solver class" in broken["notasolver"]
    warnings = done.stderr.splitlines()
    assert len(warnings) == 2 and all(w.startswith("race: warning: plugin ") for w in warnings)
    assert any("'dlx'" in w and "already taken" in w for w in warnings)
    assert any("'malformed'" in w and "expected module:Class" in w for w in warnings)
    dlx = next(line for line in lines if line.startswith("dlx "))
    assert "Dancing links" in dlx                   # the built-in keeps its name


def test_the_cli_solves_with_a_plugin_and_names_a_broken_one(plugin_path):
    path = plugin_path / "p.txt"
    path.write_text(PUZZLE)
    done = race(plugin_path, "solve", "-s", "reverse:flavour=spicy", str(path))
    assert done.returncode == 0, done.stderr
    solved = grid_text.parse(done.stdout).grids[0]
    assert rules.is_solution_of(grid_text.parse(PUZZLE).grids[0], solved)
    bad = race(plugin_path, "solve", "-s", "nosuchmodule", str(path))
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 3   # 2 warnings + error
    assert bad.stderr.strip().splitlines()[-1].startswith(
        "race: error: solver 'nosuchmodule' is not available: ModuleNotFoundError")


def test_race_run_races_a_plugin_in_its_workers(plugin_path, tmp_path):
    done = race(plugin_path, "run", "--no-report", "--kind", "unique", "--n", "2", "--instances", "2", "--solvers",
                "reverse,backtracking", "--timeout", "60", "--jobs", "1", "--out",
                str(tmp_path), "--campaign", "plug")
    assert done.returncode == 0, done.stderr
    with open(tmp_path / "plug" / "runs.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert sorted((r["entrant"], r["status"], r["verified"]) for r in rows) == \
        [("backtracking", "solved", "True")] * 2 + [("reverse", "solved", "True")] * 2
    assert json.loads((tmp_path / "plug" / "meta.json").read_text())["entrants"] == \
        ["reverse", "backtracking"]


def test_with_plugins_without_any_installed_is_the_builtin_registry():
    found = registry.with_plugins(registry.BUILTIN, warn=pytest.fail)
    builtin = registry.BUILTIN.names()
    assert found.names()[:len(builtin)] == builtin
    assert registry.INSTALLED.names()[:len(builtin)] == builtin
