"""Run every ``tests/bench/bench_*.py`` (``make bench``), carry on past a failure, then list
every target with its outcome and exit 1 if any target was missed or any benchmark failed.

Each benchmark runs in its own process with its output streamed as it comes; the
``TARGET ...`` lines it prints (see ``targets.py``) are collected for the summary.
A benchmark that exits non-zero without a missed target (a crash, a missing peer
tool) counts as a failure too.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from targets import MISSED, PREFIX  # noqa: E402


def run_one(path: Path) -> tuple[int, list[str], float]:
    """(exit code, TARGET lines, seconds) of one benchmark, its output passed through."""
    print(f"== {path.relative_to(HERE.parents[1])}", flush=True)
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, str(path)], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, bufsize=1)
    lines = []
    assert proc.stdout is not None                 # stdout=PIPE
    for line in proc.stdout:
        print(line, end="", flush=True)
        if line.startswith(PREFIX):
            lines.append(line.rstrip("\n"))
    return proc.wait(), lines, time.perf_counter() - t0


def main() -> int:
    results = [(path, *run_one(path)) for path in sorted(HERE.glob("bench_*.py"))]
    print("\n== summary: every target, measured ratio and baseline")
    failed = []
    for path, code, lines, seconds in results:
        for line in lines:
            print(line)
        missed = sum(MISSED in line.split()[1] for line in lines)
        if code != 0:
            failed.append(f"{path.name}: exit {code}, {missed} target(s) missed"
                          + ("" if missed else " (it failed before checking its targets)"))
        print(f"   ({path.name}: exit {code}, {seconds:.0f} s)")
    if failed:
        print("\nmake bench FAILED:")
        for line in failed:
            print(f"  {line}")
        for _path, _code, lines, _seconds in results:
            for line in lines:
                if line.split()[1] == MISSED:
                    print(f"  missed: {line}")
        return 1
    print("\nevery benchmark met every target")
    return 0


if __name__ == "__main__":
    sys.exit(main())
