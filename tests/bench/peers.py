"""The fast 9x9 solvers bench_batch.py races, built from their public source.

``SUDOKU_PEERS`` names a clone of tdoku (https://github.com/t-dillon/tdoku, BSD-2): its SIMD
solver (``src/solver_dpll_triad_simd.cc``) is always built from it, and JCZSolve when the clone
also holds ``other/jczsolve/JCZSolve.c`` (its copyright is not specified, so it is never shipped
here). tdoku's own script fetches JCZSolve's zip from the New Sudoku Players' Forum and patches
it; where that forum cannot be reached, the same zip (``JCZSolve10/``, 2016-01-25) is kept in the
public repository https://github.com/shines77/gzSudoku as ``others/jczslover/jczsolve.zip``::

    git clone https://github.com/t-dillon/tdoku /path/to/tdoku
    (cd /path/to/tdoku/other && ./setup_jczsolve.sh)     # downloads and patches JCZSolve.c
    # or, without the forum: the zip from gzSudoku, then tdoku's patch
    cd /path/to/tdoku/other/jczsolve
    curl -LO https://raw.githubusercontent.com/shines77/gzSudoku/master/others/jczslover/jczsolve.zip
    unzip -jo jczsolve.zip 'JCZSolve10/JCZSolve.?' && patch JCZSolve.c JCZSolve.c.diff
    SUDOKU_PEERS=/path/to/tdoku .venv/bin/python tests/bench/bench_batch.py

Each peer is linked with ``peer_driver.c`` (beside this file) into a program that does the work
``race solve FILE`` does (read, solve each puzzle once, check, print the grid) or, with ``-k``,
times the solver alone. Built with the system's compilers (``$CC``/``cc``, ``$CXX``/``c++``) at
``-O3 -march=native``, as tdoku's benchmark builds them, into a temporary folder.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
DRIVER = HERE / "peer_driver.c"
ENV = "SUDOKU_PEERS"
HOW = (f"set {ENV}=/path/to/tdoku (git clone https://github.com/t-dillon/tdoku; for JCZSolve also "
       "run other/setup_jczsolve.sh in it); see tests/bench/peers.py")
OPT = ("-O3", "-march=native")


def _run(command: list[str]) -> None:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"{' '.join(command[:3])} ...: {done.stderr.strip()[:400]}")


def build(folder: Path) -> tuple[dict[str, Path], list[str]]:
    """({peer name: program}, notes): the peers ``$SUDOKU_PEERS`` allows, built into ``folder``;
    the notes say which could not be built and why (or how to get them)."""
    root = os.environ.get(ENV)
    if not root:
        return {}, [f"no peers: {HOW}"]
    tdoku = Path(root)
    cc = shlex.split(os.environ.get("CC") or "cc")
    cxx = shlex.split(os.environ.get("CXX") or "c++")
    programs: dict[str, Path] = {}
    notes: list[str] = []
    simd = tdoku / "src" / "solver_dpll_triad_simd.cc"
    if simd.is_file():
        try:
            objects = []
            for source in (simd, tdoku / "src" / "util.cc"):
                obj = folder / f"tdoku_{source.stem}.o"
                _run([*cxx, *OPT, "-std=c++14", "-c", str(source), "-o", str(obj)])
                objects.append(str(obj))
            driver = folder / "driver_tdoku.o"
            _run([*cc, *OPT, "-DPEER_TDOKU", "-c", str(DRIVER), "-o", str(driver)])
            _run([*cxx, "-o", str(folder / "tdoku"), str(driver), *objects])
            programs["tdoku"] = folder / "tdoku"
        except (RuntimeError, OSError) as exc:
            notes.append(f"tdoku not built: {exc}")
    else:
        notes.append(f"tdoku not built: no {simd} ({HOW})")
    jcz = tdoku / "other" / "jczsolve" / "JCZSolve.c"
    if jcz.is_file():
        try:
            _run([*cc, *OPT, "-DPEER_JCZ", "-o", str(folder / "jczsolve"), str(DRIVER), str(jcz)])
            programs["jczsolve"] = folder / "jczsolve"
        except (RuntimeError, OSError) as exc:
            notes.append(f"JCZSolve not built: {exc}")
    else:
        notes.append(f"JCZSolve not built: no {jcz} (run other/setup_jczsolve.sh in the tdoku clone)")
    return programs, notes
