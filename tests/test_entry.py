"""The race executable's entry (experiments/cli/entry.py): the plain forms of ``race cover``
start without click and print, write and exit exactly as the click command does; every
other command line goes to the click group."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from experiments.cli.entry import plain_cover

ENTRY = "from experiments.cli.entry import race as run"
GROUP = "from experiments.cli.main import main as run"
#: prints, at exit, whether click was imported (the exit handlers run on the quick end too)
CLICK_PROBE = ("import atexit\natexit.register(lambda: print('click imported:', 'click' in "
               "sys.modules, file=sys.stderr))")


@pytest.mark.parametrize("args, expected", [
    (["cover", "f.dlx", "--count"], ("f.dlx", True, False, 1)),
    (["cover", "--count", "f.dlx"], ("f.dlx", True, False, 1)),
    (["cover", "-", "--count", "--stats"], ("-", True, True, 1)),
    (["cover", "f.dlx"], ("f.dlx", False, False, 1)),
    (["cover", "f.dlx", "--count", "-j", "2"], ("f.dlx", True, False, 2)),
    (["cover", "f.dlx", "--count", "-j2"], ("f.dlx", True, False, 2)),
    (["cover", "f.dlx", "--count", "--jobs", "1024"], ("f.dlx", True, False, 1024)),
    (["cover", "f.dlx", "--count", "--jobs=3"], ("f.dlx", True, False, 3)),
    (["cover", "f.dlx", "-j", "2"], ("f.dlx", False, False, 2)),     # the search says no
])
def test_the_plain_forms_are_taken(args, expected):
    assert plain_cover(args) == expected


@pytest.mark.parametrize("args", [
    [], ["--help"], ["--version"], ["solve", "f.sudoku"], ["example", "queens", "8", "--count"],
    ["cover"], ["cover", "--count"], ["cover", "--help"], ["cover", "f.dlx", "--help"],
    ["cover", "f.dlx", "g.dlx"], ["cover", "f.dlx", "--count", "--count"],
    ["cover", "f.dlx", "--count", "-j", "0"], ["cover", "f.dlx", "--count", "-j", "1025"],
    ["cover", "f.dlx", "--count", "-j"], ["cover", "f.dlx", "--count", "-j", "two"],
    ["cover", "f.dlx", "--count", "-j", "²"], ["cover", "f.dlx", "--count", "-j", "-1"],
    ["cover", "f.dlx", "--count", "-j", "2", "-j", "2"], ["cover", "f.dlx", "--limit", "3"],
    ["cover", "f.dlx", "--trace"], ["cover", "f.dlx", "--heuristic", "first"],
    ["cover", "f.dlx", "--count", "--"], ["cover", "-x"], ["cover", "--jobs=", "f.dlx"],
])
def test_every_other_command_line_goes_to_click(args):
    assert plain_cover(args) is None


def _race(start: str, args: list[str], *, stdin: str | None = None, prelude: str = "",
          stdout=subprocess.PIPE, shell_suffix: str = "") -> subprocess.CompletedProcess:
    """``race ARGS`` as its own process, started at ``start`` (the entry or the click group)."""
    code = f"import sys\n{prelude}\n{start}\nsys.argv = ['race'] + {args!r}\nrun()\n"
    command: list[str] | str = [sys.executable, "-c", code]
    if shell_suffix:
        command = " ".join(map(_quote, command)) + " " + shell_suffix
    return subprocess.run(command, input=stdin, stdout=stdout, stderr=subprocess.PIPE, text=True,
                          timeout=120, shell=bool(shell_suffix))


def _quote(word: str) -> str:
    return "'" + word.replace("'", "'\\''") + "'"


def _same(args, **kwargs) -> tuple[subprocess.CompletedProcess, subprocess.CompletedProcess]:
    """Both starts on ``args``: the same exit status, stdout and stderr (times apart)."""
    prelude = CLICK_PROBE + "\n" + kwargs.pop("prelude", "")
    quick = _race(ENTRY, args, prelude=prelude, **kwargs)
    group = _race(GROUP, args, prelude=prelude, **kwargs)
    assert "click imported: True" in group.stderr
    assert quick.returncode == group.returncode, (quick.stderr, group.stderr)
    assert quick.stdout == group.stdout
    assert _timeless(quick.stderr) == _timeless(group.stderr)
    return quick, group


def _timeless(text: str) -> str:
    return re.sub(r"\(build [^)]*\)", "(times)", text).replace("click imported: True", "") \
        .replace("click imported: False", "")


@pytest.fixture(scope="module")
def problems(tmp_path_factory) -> dict[str, Path]:
    where = tmp_path_factory.mktemp("plain")
    queens = _race(GROUP, ["example", "queens", "6"])
    assert queens.returncode == 0
    files = {"queens6": queens.stdout, "none": "a b\na\n", "unknown": "a b\na\nc\n",
             "empty": "", "binary": "\x00\x01\x02 a\n\xff"}
    paths = {}
    for name, text in files.items():
        paths[name] = where / f"{name}.dlx"
        paths[name].write_text(text, encoding="utf-8", errors="surrogateescape")
    paths["missing"] = where / "missing.dlx"
    return paths


@pytest.mark.parametrize("name, options, status", [
    ("queens6", ["--count"], 0),
    ("queens6", ["--count", "--stats"], 0),
    ("queens6", ["--count", "--stats", "-j", "2"], 0),
    ("queens6", [], 0),
    ("queens6", ["-j", "2"], 2),
    ("none", [], 1),
    ("none", ["--count", "--stats"], 0),
    ("unknown", ["--count"], 2),
    ("empty", ["--count"], 2),
    ("binary", ["--count"], 2),
    ("missing", ["--count"], 2),
])
def test_a_plain_cover_prints_and_exits_as_the_click_command_without_click(
        problems, name, options, status):
    quick, _ = _same(["cover", str(problems[name]), *options])
    assert quick.returncode == status
    assert "click imported: False" in quick.stderr
    if status == 2:
        assert _timeless(quick.stderr).strip().count("\n") == 0
        assert quick.stderr.startswith("race: error: ")
    if name == "queens6" and "--count" in options:
        assert quick.stdout == "4\n"
    if "--stats" in options:
        assert re.search(r"\d+ solutions, \d+ nodes, \d+ updates", quick.stderr)


def test_stdin_is_read_as_by_the_click_command(problems):
    text = problems["queens6"].read_text()
    quick, _ = _same(["cover", "-", "--count"], stdin=text)
    assert quick.stdout == "4\n" and "click imported: False" in quick.stderr


def test_a_full_disk_and_a_closed_stdout_are_one_line_errors(problems):
    with open(os.devnull if not os.path.exists("/dev/full") else "/dev/full", "w") as full:
        quick, _ = _same(["cover", str(problems["queens6"]), "--count"], stdout=full)
    if os.path.exists("/dev/full"):
        assert quick.returncode == 2 and "cannot write" in quick.stderr
    quick, _ = _same(["cover", str(problems["queens6"]), "--count"], shell_suffix=">&-")
    assert quick.returncode == 2 and "standard output is closed" in quick.stderr


def test_other_command_lines_reach_the_click_group(problems):
    quick, _ = _same(["cover", str(problems["queens6"]), "--count", "-j", "0"])
    assert quick.returncode == 2 and "-j" in quick.stderr and "click imported: True" in quick.stderr
    helped, _ = _same(["cover", "--help"])
    assert helped.returncode == 0 and "Usage: race cover" in helped.stdout
    limited, _ = _same(["cover", str(problems["queens6"]), "--count", "--limit", "2"])
    assert limited.stdout == "2\n"


def test_the_race_executable_starts_at_the_entry(problems):
    race = Path(sys.executable).with_name("race")
    assert race.exists(), "the suite runs in the environment pip installed race into"
    proc = subprocess.run([str(race), "cover", str(problems["queens6"]), "--count"],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPROFILEIMPORTTIME": "1"})
    assert proc.returncode == 0 and proc.stdout == "4\n"
    imported = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines()}
    assert "experiments.cli.entry" in imported and "click" not in imported
