"""Pass/fail targets of one benchmark, printed as the lines ``make bench`` collects.

A benchmark builds one :class:`Targets` (which prints its ``baseline: ...``
line), checks each measured ratio with :meth:`Targets.at_least` or
:meth:`Targets.at_most`, and ends with :meth:`Targets.exit`, which exits 1
when any target was missed. Every check prints one line::

    TARGET met    bench_dlx: hard 9x9 (solve): ours/fastest peer 0.41 (target <= 1.00; baseline: ...)

``tests/bench/run.py`` (``make bench``) collects the lines starting with
:data:`PREFIX` from every benchmark and lists the missed ones at the end.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NoReturn

PREFIX = "TARGET"
MET, MISSED = "met", "MISSED"


class Targets:
    """The targets of the benchmark ``bench`` (its file name): ``baseline`` describes what
    every ratio is measured against, ``short`` names it on each target line."""

    def __init__(self, bench: str, baseline: str, short: str) -> None:
        self.bench = Path(bench).stem
        self.baseline = short
        self.missed: list[str] = []
        print(f"baseline: {baseline}", flush=True)

    def at_least(self, what: str, ratio: float, bound: float, baseline: str | None = None) -> bool:
        """Check ``ratio >= bound``; print and record the outcome; True when met."""
        return self._check(what, ratio, ">=", bound, ratio >= bound, baseline)

    def at_most(self, what: str, ratio: float, bound: float, baseline: str | None = None) -> bool:
        """Check ``ratio <= bound``; print and record the outcome; True when met."""
        return self._check(what, ratio, "<=", bound, ratio <= bound, baseline)

    def _check(self, what: str, ratio: float, op: str, bound: float, ok: bool,
               baseline: str | None) -> bool:
        line = (f"{PREFIX} {MET if ok else MISSED:6s} {self.bench}: {what} {ratio:.2f} "
                f"(target {op} {bound:.2f}; baseline: {baseline or self.baseline})")
        print(line, flush=True)
        if not ok:
            self.missed.append(line)
        return ok

    def exit(self) -> NoReturn:
        """Exit 0 when every target was met, else 1 (naming how many were missed)."""
        if self.missed:
            print(f"{self.bench}: {len(self.missed)} target(s) MISSED", flush=True)
            sys.exit(1)
        sys.exit(0)
