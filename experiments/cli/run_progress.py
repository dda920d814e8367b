"""How ``race run`` shows life on stderr while its cells run.

On a terminal: a progress bar (tqdm). Elsewhere (``make race > log 2>&1``, CI): one plain line
every :data:`EVERY_S` seconds or every tenth of the cells, whichever comes first, and one at
the end, so a log shows the race moving. ``--quiet`` / ``--no-progress``: nothing.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from experiments.harness.rows import Row

#: a plain progress line at least this often (seconds) ...
EVERY_S = 30.0
#: ... or each time this share of the cells is done
STEP = 0.1


class PlainProgress:
    """One line per :data:`EVERY_S` seconds or :data:`STEP` of ``total`` cells, then one at the
    end: ``race run: 12/40 cells (30%), 0:01:02; last: dlx n=3: solved``."""

    def __init__(self, total: int, stream: TextIO, clock: Callable[[], float] = time.monotonic) -> None:
        self.total, self.stream, self.clock = total, stream, clock
        self.done = 0
        self.row: Row | None = None             # the last row (said as ``last: ...``)
        self.started = self.said_at = clock()
        self.said_count = 0
        self.step = max(1, int(total * STEP))   # cells between two lines at most

    @property
    def last(self) -> str:
        """What the line says of the last row ("" before the first)."""
        row = self.row
        return f"{row.entrant} n={row.n}: {row.status}" if row is not None else ""

    def update(self, row: Row) -> None:
        self.done += 1
        self.row = row
        now = self.clock()
        if now - self.said_at >= EVERY_S or self.done - self.said_count >= self.step:
            self._say(now)

    def write(self, line: str) -> None:
        print(line, file=self.stream, flush=True)

    def _say(self, now: float) -> None:
        share = 100 * self.done / self.total if self.total else 100.0
        elapsed = int(now - self.started)
        last = self.last
        print(f"race run: {self.done}/{self.total} cells ({share:.0f}%), "
              f"{elapsed // 3600}:{elapsed // 60 % 60:02d}:{elapsed % 60:02d}"
              + (f"; last: {last}" if last else ""), file=self.stream, flush=True)
        self.said_at, self.said_count = now, self.done

    def close(self) -> None:
        if self.done and self.done != self.said_count:
            self._say(self.clock())


class _Bar:
    """tqdm's bar, fed a row at a time."""

    def __init__(self, total: int, stream: TextIO) -> None:
        from tqdm import tqdm
        self.total, self.stream = total, stream
        # no time left of tqdm's: the cells of the last n take longest (experiments.cli.time_left)
        self.bar = tqdm(total=total, unit="cell", file=stream, dynamic_ncols=True, mininterval=0.25,
                        bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}, {rate_fmt}{postfix}]")

    def write(self, line: str) -> None:
        self.bar.write(line, file=self.stream)

    def update(self, row: Row) -> None:
        self.bar.set_postfix_str(f"{row.entrant} n={row.n}: {row.status}", refresh=False)
        self.bar.update(1)

    def close(self) -> None:
        self.bar.close()


class _Silent:
    total = 0

    def write(self, line: str) -> None:
        pass

    def update(self, row: Row) -> None:
        pass

    def close(self) -> None:
        pass


def progress(total: int, shown: bool | None, stream: TextIO | None = None):
    """What shows ``total`` cells going by on ``stream`` (stderr): nothing when ``shown`` is
    False or there is nothing to run; else a bar on a terminal, plain lines elsewhere. The
    result has ``total``, ``update(row)``, ``write(line)`` and ``close()``."""
    stream = stream or sys.stderr
    if shown is False or total == 0:
        return _Silent()
    if stream.isatty():
        return _Bar(total, stream)
    return PlainProgress(total, stream)


#: a step of an analysis command says it runs once it has taken this long (seconds) ...
SLOW_S = 3.0
#: ... when the campaign's runs.csv is at least this large (bytes; about 40,000 rows): a small
#: campaign's output is the same on a busy machine as on a quiet one
LARGE_BYTES = 10_000_000


def large(*campaigns: Any) -> bool:
    """Whether any of the campaign directories ``campaigns`` holds a runs.csv of at least
    :data:`LARGE_BYTES` (its steps may take seconds: :class:`slow_step` may speak)."""
    import os

    from experiments.analysis.campaign_data import campaign_root
    for campaign in campaigns:
        try:
            if os.stat(campaign_root(campaign) / "runs.csv").st_size >= LARGE_BYTES:
                return True
        except Exception:                  # noqa: BLE001 - no campaign there: the command says so
            continue
    return False


class slow_step:
    """``with slow_step("drawing the figures"):``: when the step still runs after ``after``
    seconds, one line ``race: drawing the figures ...`` on ``stream`` (stderr), and one when
    it ends (``race: drawing the figures: 12.3 s``); a quick step says nothing. ``shown``
    False (a small campaign: :func:`large`): never a word, so its output is the same on any
    machine."""

    def __init__(self, what: str, after: float = SLOW_S, stream: TextIO | None = None,
                 shown: bool = True) -> None:
        self.what, self.after, self.stream = what, after if shown else float("inf"), stream or sys.stderr
        self.said = False

    def _start(self) -> None:
        self.said = True
        print(f"race: {self.what} ...", file=self.stream, flush=True)

    def __enter__(self) -> slow_step:
        import threading
        self.started = time.monotonic()
        self.timer = threading.Timer(self.after, self._start) if self.after != float("inf") else None
        if self.timer is not None:
            self.timer.daemon = True
            self.timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer.join()
        if self.said:
            print(f"race: {self.what}: {time.monotonic() - self.started:.1f} s", file=self.stream, flush=True)
