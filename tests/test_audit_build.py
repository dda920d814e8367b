"""Building the package under a hostile environment: the build says what is wrong in one line
and goes on where it can."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _committed_copy(where: Path) -> Path:
    """A copy of the committed tree (no build output of the checkout in it)."""
    source = where / "source"
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                           check=True).stdout.decode().split("\0")
    for name in filter(None, files):
        if (ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    shutil.copy2(ROOT / "setup.py", source / "setup.py")     # the setup.py under test
    return source


@pytest.mark.slow
def test_I1_a_compiler_variable_that_is_not_a_command_line_builds_the_wheel_without_kernels(tmp_path):
    """``CC='"'`` (an unclosed quote) ended in setuptools' traceback: now one line names CC
    and the wheel builds without the C kernels, as with ``CC=false`` (the numba kernels run)."""
    source = _committed_copy(tmp_path)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",)}
    env["CC"] = '"'
    # -v: pip shows the build's own output; --no-build-isolation: this environment's setuptools
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "-v", "--no-deps",
                           "--no-build-isolation", "--no-index", "-w", str(tmp_path / "dist"), "."],
                          cwd=source, env=env, capture_output=True, text=True, timeout=600)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-3000:]
    assert "Traceback" not in output
    named = [line.strip() for line in output.splitlines() if "CC='\"'" in line]
    assert len(named) == 1 and named[0].startswith("sudoku-race: CC='\"' is not a command line")
    assert named[0].endswith("building without the C kernels (the numba kernels run instead)")
    (wheel,) = (tmp_path / "dist").glob("sudoku_race-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "solvers/dlx_native.py" in names and "solvers/native_library.py" in names
    assert not [n for n in names if n.startswith("solvers/_native/") and n.endswith(".so")]


def test_I1_the_compiler_variables_are_checked_as_distutils_splits_them():
    # setup.py calls setup() when run: only the part above that call is read here
    text = (ROOT / "setup.py").read_text(encoding="utf-8")
    module: dict = {"__name__": "race_setup"}
    exec(compile(text[:text.index("\nsetup(")], str(ROOT / "setup.py"), "exec"), module)
    check = module["unusable_compiler_variable"]
    assert check({}) is None
    assert check({"CC": "gcc -O2", "CFLAGS": "-g '-DX=a b'"}) is None
    assert check({"CC": "false"}) is None                       # a failing compiler: optional=True
    assert "CC='\"'" in check({"CC": '"'})
    assert "CFLAGS=" in check({"CC": "gcc", "CFLAGS": "-DX='a"})
    assert "CC='' is not a command line (empty)" in check({"CC": ""})
