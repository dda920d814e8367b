"""Where numba's cache goes: a folder only this user could have written, never a shared path.

numba unpickles the index files it finds in its cache folder, so a folder another user could
create or write first would run their code in ``race``."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from experiments.cli.numba_cache import numba_cache_dir


@pytest.fixture
def read_only_install(tmp_path, monkeypatch):
    """No NUMBA_CACHE_DIR; the kernels' folder cannot be written (a missing folder is as good
    as a read-only one, and root writes anywhere)."""
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    return str(tmp_path / "site-packages" / "solvers")


def _private(folder: str) -> bool:
    info = os.stat(folder)
    return info.st_uid == os.geteuid() and stat.S_IMODE(info.st_mode) == 0o700


def test_x1_numba_cache_private_under_a_cache_home_others_may_write(tmp_path, monkeypatch,
                                                                     read_only_install):
    """XDG_CACHE_HOME in a folder anyone may write (``/tmp/x`` of another user), with the
    folder numba would use already made: neither is used, a fresh private folder is."""
    shared = tmp_path / "x"
    shared.mkdir()
    shared.chmod(0o777)
    planted = shared / "sudoku-race" / "numba"
    planted.mkdir(parents=True)
    (planted / "kernel.nbi").write_bytes(b"planted")
    monkeypatch.setenv("XDG_CACHE_HOME", str(shared))
    chosen = numba_cache_dir(read_only_install)
    assert chosen and not chosen.startswith(str(shared)) and _private(chosen)
    assert not os.listdir(chosen)


def test_x1_numba_cache_private_never_a_predictable_temporary_path(tmp_path, monkeypatch,
                                                                   read_only_install):
    """No writable home: not ``$TMPDIR/sudoku-race/numba`` (another user may make it first) but
    a folder of this process, made private and unpredictable, removed at exit."""
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr("tempfile.tempdir", None)
    monkeypatch.setenv("XDG_CACHE_HOME", "/proc/no-such-home/.cache")
    first = numba_cache_dir(read_only_install)
    second = numba_cache_dir(read_only_install)
    assert first and second and first != second
    assert first != str(tmp_path / "tmp" / "sudoku-race" / "numba")
    assert Path(first).parent == tmp_path / "tmp" and _private(first)


def test_x1_numba_cache_private_the_users_own_folder_is_used(tmp_path, monkeypatch,
                                                             read_only_install):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    chosen = numba_cache_dir(read_only_install)
    assert chosen == str(tmp_path / "cache" / "sudoku-race" / "numba") and _private(chosen)


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a folder to another user")
def test_x1_numba_cache_private_a_folder_of_another_user_is_not_used(tmp_path, monkeypatch,
                                                                     read_only_install):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    theirs = tmp_path / "cache" / "sudoku-race" / "numba"
    theirs.mkdir(parents=True, mode=0o700)
    os.chown(theirs, 4242, -1)
    chosen = numba_cache_dir(read_only_install)
    assert chosen and chosen != str(theirs) and _private(chosen)


def test_e2_the_plain_race_cover_start_sets_up_numbas_cache(tmp_path):
    """``race cover`` through the plain start (no click), with the numba kernel (no C kernel),
    a read-only install and no writable home: it answers, with numba's cache in a private
    folder of its own (removed at exit), as the click start does."""
    queens = subprocess.run([sys.executable, "-c", "from experiments.cli.main import main; "
                             "main(['example', 'queens', '6'])"],
                            capture_output=True, text=True, timeout=120)
    problem = tmp_path / "queens6.dlx"
    problem.write_text(queens.stdout)
    probe = ("import os, sys, atexit\n"
             "from experiments.cli import numba_cache, entry\n"
             f"numba_cache.SOLVERS_DIR = {str(tmp_path / 'read-only')!r}\n"
             "atexit.register(lambda: print('cache', os.environ.get('NUMBA_CACHE_DIR'), "
             "os.path.exists(os.environ.get('NUMBA_CACHE_DIR', '')), file=sys.stderr))\n"
             "assert entry.plain_cover(sys.argv[1:]) is not None\n"
             "entry.race()\n")
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME")}
    env.update(RACE_NATIVE="0", HOME="/proc/no-such-home", TMPDIR=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", probe, "cover", "--count", str(problem)],
                          capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "4"
    line = [x for x in done.stderr.splitlines() if x.startswith("cache ")][-1]
    folder = line.split()[1]
    assert Path(folder).parent == tmp_path and "sudoku-race-numba-" in folder
    assert "RuntimeError" not in done.stderr
