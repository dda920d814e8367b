"""Both starts of ``race cover`` (the plain one of experiments/cli/entry.py and the click group)
agree on every form of the command line: same exit status, stdout and stderr, whatever the
``-j`` value, file names that look like options, ``--``, stdin, a FIFO, a directory."""

from __future__ import annotations

import os
import threading

import pytest

from tests.test_entry import (
    CLICK_PROBE,
    ENTRY,
    GROUP,
    _race,
    _same,
    _timeless,
    problems,  # noqa: F401 (a fixture)
)

QUEENS = "QUEENS"           # replaced by the path of queens 6


@pytest.fixture(scope="module")
def folder(problems, tmp_path_factory):  # noqa: F811
    """A folder holding queens 6 under the names ``-j``, ``--count`` and ``q.dlx``, and a
    sub-folder."""
    where = tmp_path_factory.mktemp("names")
    text = problems["queens6"].read_text()
    for name in ("-j", "--count", "q.dlx"):
        (where / name).write_text(text)
    (where / "sub").mkdir()
    return where


@pytest.mark.parametrize("args", [
    [QUEENS, "--count", "-j2"],
    [QUEENS, "--count", "--jobs=3"],
    [QUEENS, "--count", "-j", "0"],
    [QUEENS, "--count", "-j", "9" * 5000],
    [QUEENS, "--count", "-j", "0" * 40 + "2"],
    [QUEENS, "--count", "-j", "0" * 29 + "2"],
    [QUEENS, "--count", "-j", " 2"],
    [QUEENS, "--count", "-j", "+2"],
    [QUEENS, "--count", "-j", "\u0663"],
    [QUEENS, "--count", "--jobs=", "2"],
    [QUEENS, "--count", "-j", "1025"],
    ["--count", "-j"],
    ["--count", "--", "-j"],
    ["--", "--count"],
    ["./--count", "--count"],
    ["--count", "sub"],
])
def test_e1_both_starts_agree_on_every_argument_form(problems, folder, args):  # noqa: F811
    argv = ["cover", *(str(problems["queens6"]) if a == QUEENS else a for a in args)]
    quick, _ = _same(argv, prelude=f"import os\nos.chdir({str(folder)!r})")
    assert "Traceback" not in quick.stderr
    assert quick.returncode in (0, 2) and (quick.returncode == 2) == (quick.stdout == "")
    if quick.returncode == 2:
        assert quick.stderr.startswith("race: error: ")


def test_e1_both_starts_agree_on_stdin(problems):  # noqa: F811
    quick, _ = _same(["cover", "-", "--count", "-j", "2"], stdin=problems["queens6"].read_text())
    assert quick.stdout == "4\n"


def test_e1_both_starts_agree_on_a_fifo(problems, tmp_path):  # noqa: F811
    """A FIFO is read once, to its end, by either start (each start gets its own writer)."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    text = problems["queens6"].read_text()

    def write() -> None:
        with open(fifo, "w") as handle:
            handle.write(text)

    done = []
    for start in (ENTRY, GROUP):
        writer = threading.Thread(target=write, daemon=True)
        writer.start()
        done.append(_race(start, ["cover", str(fifo), "--count"], prelude=CLICK_PROBE))
        writer.join(timeout=60)
        assert not writer.is_alive()
    quick, group = done
    assert (quick.returncode, quick.stdout) == (group.returncode, group.stdout) == (0, "4\n")
    assert _timeless(quick.stderr) == _timeless(group.stderr)
