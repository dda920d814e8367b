"""Compile the package's numba kernels once, ahead of their first use:
``python -m experiments.cli.warm_up``.

numba compiles a kernel at its first call and keeps the machine code in its on-disk cache
(:mod:`experiments.cli.numba_cache` says where); with a cold cache the first race of the
default entrants at n = 2..3 spends about 45 s of CPU compiling, and two processes that
start cold at once each compile the same kernels. ``make``'s set-up (the ``.venv`` stamp)
runs this once, so the first ``make race`` and the test suite start with a warm cache; a race
never needs it (its workers compile what they lack, outside any measurement).

It runs, in a scratch directory, what reaches every kernel: a small race of the compiled
entrants over the three generated families (the generators' counters, the workers'
searches, the SAT encoder), the batch DLX kernel of ``race solve`` on a one-line file (on the
race's 9x9 puzzles), and ``race cover`` through the numba kernels (``--profile``, ``--show``,
and a problem with bounds: Algorithm M). Each command's output is discarded; a
failing command is named on stderr and the exit status is 1, since a broken kernel is a bug
to see at set-up, not at the first race.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

#: the race commands, ``{tmp}`` the scratch directory (run in this order)
COMMANDS: tuple[tuple[str, ...], ...] = (
    ("run", "--n", "2..3", "--family", "unique,hard,holes", "--instances", "1", "--timeout", "60",
     "-j", "1", "--solvers", "backtracking,dlx,bitset,sat", "--no-pin", "--no-report", "--quiet",
     "--out", "{tmp}/run"),
    ("cover", "{tmp}/queens.dlx", "--count", "--profile"),
    ("cover", "{tmp}/small.dlx", "--show"),
    ("cover", "{tmp}/bounds.dlx", "--count"),
)

#: small exact cover problems: 6 queens, one without bounds and one with bounds and colors
#: (Algorithm M)
SMALL = "A B C\nA B\nC\nA\nB C\n"
BOUNDS = "A B 2:3|C | X Y\nA B X:0 Y:0\nA C X:1 Y:1\nC X:0\nB X:1\nC Y:1\n"


def _race(args: list[str]) -> tuple[int, str]:
    """Run ``race ARGS`` in this process: its exit status and output."""
    import contextlib
    import io

    from experiments.cli.main import main
    sink = io.StringIO()
    code = 0
    try:
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            main(args=args, prog_name="race", standalone_mode=False)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except Exception as exc:  # noqa: BLE001 - named by the caller, with the command
        sink.write(f"{type(exc).__name__}: {exc}")
        code = 1
    return code, sink.getvalue()


def _without_c_kernels() -> None:
    """From here on, the numba kernels that stand in for the C ones (an install without a
    compiler) run: ``RACE_NATIVE=0``, and the C kernels' load forgotten."""
    import os

    from solvers import cover_native, dlx_native
    os.environ["RACE_NATIVE"] = "0"
    dlx_native.NATIVE.forget()
    cover_native.NATIVE.forget()


def _batch(run: Path) -> None:
    """The batch DLX kernel (``race solve`` of a one-line file of many 9x9 puzzles) on the
    9x9 puzzles the race generated."""
    import numpy as np

    from formats import grid_text
    from solvers.exact_cover import batch
    grids = [g for path in sorted(run.rglob("*-n3-*.sudoku"))
             for g in grid_text.parse(path.read_text(encoding="utf-8"), str(path)).grids]
    if grids:
        batch.solve_array(np.stack([g.cells for g in grids]), 3)


def warm_up() -> int:
    """Run :data:`COMMANDS` and the batch kernel; 0 when every one ended well, else 1 (each
    failure named on stderr)."""
    failed = 0
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="race-warm-up-") as scratch:
        tmp = Path(scratch)
        code, queens = _race(["example", "queens", "6"])
        (tmp / "queens.dlx").write_text(queens, encoding="utf-8")
        (tmp / "small.dlx").write_text(SMALL, encoding="utf-8")
        (tmp / "bounds.dlx").write_text(BOUNDS, encoding="utf-8")
        for command in COMMANDS:
            if command[0] == "cover" and command[1] == "{tmp}/queens.dlx":
                _without_c_kernels()
            args = [a.replace("{tmp}", scratch) for a in command]
            code, output = _race(args)
            if code != 0:
                print(f"warm-up: race {' '.join(args)} failed: {output.strip()[-500:]}", file=sys.stderr)
                failed += 1
        _batch(tmp / "run")
    print(f"warm-up: the numba kernels compiled (or found in the cache) in "
          f"{time.perf_counter() - t0:.0f} s" + (f"; {failed} command(s) failed" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(warm_up())
