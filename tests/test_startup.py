"""The lazy `race` group: `race --help` imports no command module and none of the
heavy packages; the command table agrees with the command modules; the numba
cache goes to a writable place."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

from experiments.cli import numba_cache
from experiments.cli.main import COMMANDS, main
from experiments.cli.numba_cache import numba_cache_dir

main_module = sys.modules["experiments.cli.main"]

HEAVY = ("pandas", "numba", "matplotlib", "numpy", "pysat", "scipy", "dask")


def _modules_after(args: list[str]) -> set[str]:
    """The top-level modules a fresh interpreter has imported after `race ARGS`."""
    code = ("import sys, json\nfrom experiments.cli.main import main\n"
            f"try:\n    main({args!r})\nexcept SystemExit:\n    pass\n"
            "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})), file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    return set(json.loads(proc.stderr.strip().splitlines()[-1]))


@pytest.mark.parametrize("args", [["--help"], ["solvers", "--help"], ["run", "--help"]])
def test_help_imports_no_heavy_package(args):
    loaded = _modules_after(args)
    assert "click" in loaded
    for heavy in HEAVY if args != ["run", "--help"] else ("pandas", "matplotlib", "pysat"):
        assert heavy not in loaded, f"race {' '.join(args)} imported {heavy}"


def test_help_lists_every_command_with_its_short_help():
    out = CliRunner().invoke(main, ["--help"]).output
    for name, (_, _, short) in COMMANDS.items():
        line = next(line for line in out.splitlines() if line.strip().startswith(name + " "))
        assert short.split()[0] in line


def test_the_table_matches_the_command_modules():
    by_module: dict[str, set[str]] = {}
    for name, (module, attribute, short) in COMMANDS.items():
        command = getattr(importlib.import_module(module), attribute)
        assert isinstance(command, click.Command) and command.name == name
        assert short and len(short) < 100
        by_module.setdefault(module, set()).add(name)
    for module, names in by_module.items():
        assert {c.name for c in importlib.import_module(module).COMMANDS} == names


def test_an_unknown_command_is_a_one_line_error():
    result = CliRunner().invoke(main, ["no-such-command"])
    assert result.exit_code == 2
    assert result.output.startswith("race: error: No such command 'no-such-command'")


def test_numba_cache_goes_to_a_user_directory_when_the_install_is_read_only(tmp_path, monkeypatch):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    writable = tmp_path / "solvers"
    writable.mkdir()
    assert numba_cache_dir(str(writable)) is None
    if os.geteuid() != 0:       # root writes anywhere: the read-only case cannot be built
        readonly = tmp_path / "ro"
        readonly.mkdir(mode=0o555)
        assert numba_cache_dir(str(readonly)) == str(tmp_path / "cache" / "sudoku-race" / "numba")
    assert numba_cache_dir(str(tmp_path / "missing")) == \
        str(tmp_path / "cache" / "sudoku-race" / "numba")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "mine"))
    assert numba_cache_dir(str(tmp_path / "missing")) is None


def test_the_cli_sets_numba_cache_dir_before_any_solver_runs(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", "")         # restored after the test
    monkeypatch.setattr(numba_cache, "numba_cache_dir",
                        lambda: str(tmp_path / "sudoku-race" / "numba"))
    result = CliRunner().invoke(main, ["check", "-"], input="1 . . .\n. . . .\n. . . .\n. . . .\n")
    assert os.environ.get("NUMBA_CACHE_DIR") == str(tmp_path / "sudoku-race" / "numba")
    assert result.exit_code == 0 and "consistent" in result.output


def test_race_solvers_help_shows_a_cmd_spec_and_the_plugin_group():
    out = CliRunner().invoke(main, ["solvers", "--help"]).output
    assert "race solve -s 'cmd:path=./my_solver,args=--quiet {input},timeout=10'" in out
    assert "sudoku_race.solvers" in out


def _race_process(args: list[str], prelude: str = "") -> subprocess.CompletedProcess:
    """``race ARGS`` as its own process (``main()`` reads sys.argv, as the console script)."""
    code = (f"import sys\n{prelude}\nfrom experiments.cli.main import main\n"
            f"sys.argv = ['race'] + {args!r}\nmain()\n")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def test_the_exact_cover_commands_end_at_once_with_everything_written(tmp_path):
    """``race cover`` and ``race example`` end without the interpreter's teardown: their
    output is whole, the exit handlers ran and the exit status is the command's."""
    queens = tmp_path / "queens6.dlx"
    made = _race_process(["example", "queens", "6"])
    assert made.returncode == 0
    queens.write_text(made.stdout)
    handler = "import atexit\natexit.register(lambda: print('exit handler ran', file=sys.stderr))"
    solved = _race_process(["cover", str(queens)], handler)
    assert solved.returncode == 0 and len(solved.stdout.strip().split("\n\n")) == 4   # 4 solutions
    assert "exit handler ran" in solved.stderr
    big = _race_process(["example", "queens", "10"])             # 724 solutions, a large output
    (tmp_path / "queens10.dlx").write_text(big.stdout)
    printed = _race_process(["cover", str(tmp_path / "queens10.dlx")])
    assert printed.returncode == 0 and len(printed.stdout.strip().split("\n\n")) == 724
    counted = _race_process(["example", "queens", "8", "--count"], handler)
    assert (counted.returncode, counted.stdout.strip()) == (0, "92")
    assert "exit handler ran" in counted.stderr
    none = tmp_path / "none.dlx"
    none.write_text("a b\na\n")                                   # b is never covered
    empty = _race_process(["cover", str(none)])
    assert empty.returncode == 1 and "no solution" in empty.stderr
    missing = _race_process(["cover", str(tmp_path / "missing.dlx")])
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1 and "missing.dlx" in missing.stderr


def test_commands_that_draw_no_matplotlib_figure_never_load_it(tmp_path):
    """The HTML page (plotly), the markdown export and compare draw no matplotlib figure:
    matplotlib is imported at the first figure drawn, never by these."""
    from experiments.harness import synthetic_campaign
    root = str(synthetic_campaign.write(tmp_path / "out", 40, ("dlx", "backtracking")))
    for args in (["report", root, "--html", "-o", str(tmp_path / "page.html")],
                 ["export", root, "-f", "markdown"], ["compare", root, root]):
        loaded = _modules_after(args)
        assert "pandas" in loaded and "matplotlib" not in loaded, args
    assert (tmp_path / "page.html").stat().st_size > 10_000
    assert "matplotlib" in _modules_after(["plot", root, "-o", str(tmp_path / "plots")])
