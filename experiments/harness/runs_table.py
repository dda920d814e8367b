"""Who reads ``runs.csv``: :class:`RunsTable`, the one owner of a campaign's records as read.

A command makes one RunsTable for the campaign's runs.csv and passes it to whoever needs the
rows (the preparation of a run, the scheduler's escalation through
:attr:`experiments.harness.cells.Prepared.recorded`, the summary, the analysis, ``race
merge``). The table reads the file once, when first asked for its rows: in columns
(:mod:`experiments.harness.records_columnar`; a large file through its columns kept beside it,
:mod:`experiments.harness.runs_cache`) when every row is valid, else row by row
(:func:`experiments.harness.records.scan`, which names each damaged line). It finds the rows
of other campaigns and strays (:mod:`experiments.harness.stray_rows`) once per plan, sets the
damaged rows and the strays aside to ``runs.damaged.csv`` once (:meth:`RunsTable.set_aside_damaged`,
:meth:`RunsTable.set_aside_strays`), and knows when the file changed since it was read (its size,
modification time or inode: :meth:`RunsTable.stale`); :meth:`RunsTable.fresh` reads it again then.
The append side is :class:`RunsWriter`'s.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from experiments.harness import records
from experiments.harness.identity import CellKey
from experiments.harness.rows import Row
from experiments.harness.schema import COLUMNS
from formats.errors import printable

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

#: what says that the file changed: (size, modification time ns, inode, device); None: absent
Stamp = tuple[int, int, int, int] | None


def stamp(path: Path) -> Stamp:
    """The :data:`Stamp` of ``path`` now."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_size, info.st_mtime_ns, info.st_ino, info.st_dev


class RunsTable:
    """The valid rows of one runs.csv, read once (module docstring).

    ``text``: every column as written (what a reader that writes the rows again keeps, ``race
    merge``); else the float columns of the schema are floats (blank = NaN) and the others text
    (blank = ``""``). Nothing is read until the rows are first asked for."""

    def __init__(self, path: Path, text: bool = False) -> None:
        self.path = Path(path)
        self.text = text
        self._frame: pd.DataFrame | None = None
        self._lines: np.ndarray | None = None
        self._found: records.Scan | None = None
        self._stamp: Stamp = None
        #: the splits into the campaign's rows and the strays: (what they depend on, result)
        self._splits: list[tuple[tuple[dict[str, Any], str], tuple[np.ndarray, list[records.Damaged]]]] = []

    # -- reading -------------------------------------------------------------------------

    def read(self) -> None:
        """Read the file (again): in columns when every row is valid, else row by row."""
        import numpy as np

        from experiments.harness import records_columnar
        before = stamp(self.path)
        frame = self._columns()
        found = None
        if frame is None:
            found = records.scan(self.path)
            frame = records_columnar.rows_frame(found.rows, self.text)
        self._frame, self._found, self._stamp, self._splits = frame, found, before, []
        self._lines = np.asarray(found.lines, dtype=np.int64) if found is not None else None

    def _columns(self) -> pd.DataFrame | None:
        """The file read in columns, None when it needs the row-by-row reader (or is absent)."""
        from experiments.harness import records_columnar, runs_cache
        if self.text:
            return records_columnar.read_valid(self.path, text=True)
        return runs_cache.read_valid(self.path)

    def _ensure(self) -> None:
        if self._frame is None:
            self.read()

    @property
    def frame(self) -> pd.DataFrame:
        """The valid rows, every column of :data:`~experiments.harness.schema.COLUMNS`, in file
        order (read on first use). The caller must not modify it."""
        if self._frame is None:
            self.read()
        assert self._frame is not None
        return self._frame

    @property
    def damaged(self) -> list[records.Damaged]:
        """The damaged lines found by the last read (none when read in columns)."""
        self._ensure()
        return self._found.damaged if self._found is not None else []

    @property
    def header_problem(self) -> str | None:
        """Why the header is no valid runs.csv header, or None."""
        self._ensure()
        return self._found.header_problem if self._found is not None else None

    @property
    def canonical(self) -> bool:
        """Whether the file is exactly what RunsWriter appends to (canonical header, nothing
        damaged)."""
        self._ensure()
        return self._found is None or self._found.canonical

    def release(self) -> None:
        """Let the rows go (a reader that took what it needs); read again when next asked."""
        self._frame, self._found, self._lines, self._splits = None, None, None, []

    def stale(self) -> bool:
        """Whether the file changed (or appeared, or went) since it was read."""
        return self._frame is None or stamp(self.path) != self._stamp

    def fresh(self) -> RunsTable:
        """This table, read again when the file changed since it was read."""
        if self.stale():
            self.read()
        return self

    def appended(self, found: Stamp, start: int) -> None:
        """Take the rows a :class:`RunsWriter` of this process appended (the campaign lock held:
        no one else wrote), having found the file as ``found``, from byte ``start`` on: when
        this table holds the file as it stood then, the rows are added to those it holds
        without reading those again (and kept beside the file, :func:`runs_cache.keep`); else
        nothing changes (the table is stale and reads the file again at next need). The
        appended rows are the writer's own (:func:`experiments.harness.rows.make_row`'s) and
        the campaign's: valid (not checked again as a read checks a file's rows), never strays."""
        import numpy as np

        from experiments.harness import records_columnar, runs_cache
        read_by_rows = self._lines is not None and len(self._lines) > 0     # lines not in order
        damaged = self._found is not None and not self._found.canonical
        if self._frame is None or self.text or self._stamp != found or read_by_rows or damaged:
            return
        now = stamp(self.path)
        try:
            with open(self.path, "rb") as f:
                f.seek(start)
                data = f.read()
        except OSError:
            return
        added = records_columnar.parse_rows(data) if data else None
        if added is None or stamp(self.path) != now:
            return
        before = len(self._frame)
        combined = records_columnar.joined(self._frame, added)
        frame = records_columnar.frame(runs_cache.keep(self.path, records_columnar.encoded(combined)))
        mine = np.arange(before, len(frame))
        self._splits = [(against, (np.concatenate([keep, mine]), strays))
                        for against, (keep, strays) in self._splits]
        self._frame, self._found, self._lines, self._stamp = frame, None, None, now

    # -- what the rows say ---------------------------------------------------------------

    def keys(self) -> list[CellKey]:
        """Each row's cell (:func:`experiments.harness.identity.cell_key`), in file order."""
        frame = self.frame
        if not len(frame):
            return []
        from experiments.harness.records_columnar import values_of
        columns = [values_of(frame["family"], str.strip, ""), values_of(frame["entrant"], str, ""),
                   values_of(frame["n"], _integer, 0), values_of(frame["instance"], str, ""),
                   values_of(frame["repeat"], lambda text: _integer(text or "0"), 0)]
        return list(zip(*columns))

    def statuses(self) -> dict[CellKey, str]:
        """Cell -> the status of its record, in file order."""
        return dict(zip(self.keys(), self.frame["status"].astype(str).tolist()))

    def rows(self, columns: tuple[str, ...] = COLUMNS) -> list[dict[str, str]]:
        """The valid rows as column -> text (blank ``""``; a float as runs.csv writes it)."""
        frame = self.frame
        from experiments.harness.records_columnar import texts_of
        listed = {c: texts_of(frame[c]) for c in columns}
        return [dict(zip(columns, values)) for values in zip(*(listed[c] for c in columns))]

    def conditions(self) -> list[dict[str, str]]:
        """The distinct (campaign, seed, timeout_s) of the rows, as text: what a resume must
        keep (:func:`experiments.harness.provenance.check_rows`)."""
        frame = self.frame
        if not len(frame):
            return []
        from experiments.harness.records_columnar import texts_of
        part = frame[["campaign", "seed", "timeout_s"]].drop_duplicates()
        return [dict(zip(part.columns, values))
                for values in zip(*(texts_of(part[c]) for c in part.columns))]

    # -- the campaign's rows and the strays ----------------------------------------------

    def _split(self, meta: dict[str, Any], root: Path | None) -> tuple[np.ndarray, list[records.Damaged]]:
        from experiments.harness import stray_rows
        against = stray_rows.checked_against(meta, root)
        for done, result in self._splits:
            if done == against:
                return result
        result = stray_rows.split(self.frame, meta, root, self._lines)
        self._splits.append((against, result))
        return result

    def strays(self, meta: dict[str, Any], root: Path | None) -> list[records.Damaged]:
        """The rows that are not the campaign's that ``meta`` describes (in ``root``), as
        damaged lines (:func:`experiments.harness.stray_rows.split`; found once per plan)."""
        return self._split(meta, root)[1]

    def campaign_frame(self, meta: dict[str, Any], root: Path | None) -> pd.DataFrame:
        """:attr:`frame` without the :meth:`strays`."""
        keep, strays = self._split(meta, root)
        return self.frame if not strays else self.frame.iloc[keep]

    # -- setting rows aside (the campaign lock held) -------------------------------------

    def set_aside_damaged(self) -> list[records.Damaged]:
        """Move the damaged rows to ``runs.damaged.csv`` (with the time and reason) and rewrite
        the file with the valid rows under the canonical header (an older header upgraded);
        one line on stderr says what moved. Returns the damaged rows."""
        self._ensure()
        found = self._found
        if found is None or found.canonical:
            return []
        if found.damaged:
            side = self.path.with_name(records.DAMAGED_NAME)
            records.append_damaged(side, found.damaged)
            print(f"race: warning: {printable(str(self.path))}: set aside {len(found.damaged)} "
                  f"damaged row(s) to {printable(str(side))}, their cells will be re-run: "
                  f"{records.describe(found.damaged)}", file=sys.stderr)
        records.rewrite(self.path, found.rows)
        self._settled(None)
        return found.damaged

    def set_aside_strays(self, meta: dict[str, Any], root: Path) -> list[records.Damaged]:
        """Move the :meth:`strays` to ``runs.damaged.csv``, rewrite the file without them and
        say so in one line on stderr. Returns the strays."""
        keep, strays = self._split(meta, root)
        if not strays:
            return []
        self.set_aside_damaged()
        side = self.path.with_name(records.DAMAGED_NAME)
        records.append_damaged(side, strays)
        kept = self.frame.iloc[keep].reset_index(drop=True)
        self._frame = kept
        records.rewrite(self.path, self.rows())
        print(f"race: warning: {printable(str(self.path))}: set aside "
              f"{_note(strays)} to {printable(str(side))}", file=sys.stderr)
        self._settled(stray_free=(meta, root))
        return strays

    def _settled(self, stray_free: tuple[dict[str, Any], Path] | None) -> None:
        """After this table rewrote the file: its rows are on lines 2, 3, ... in order, nothing
        damaged, and (``stray_free``) no stray of that plan left."""
        import numpy as np

        from experiments.harness import stray_rows
        self._found, self._lines, self._stamp = None, None, stamp(self.path)
        self._splits = []
        if stray_free is not None:
            self._splits.append((stray_rows.checked_against(*stray_free),
                                 (np.arange(len(self.frame)), [])))


def _integer(text: str) -> int:
    return int(float(text)) if not text.isdigit() else int(text)


def _note(strays: list[records.Damaged]) -> str:
    from experiments.harness.stray_rows import note
    return note(strays)


def read_rows(path: Path) -> list[dict[str, str]]:
    """Every valid row of ``runs.csv`` in file order, as written (an empty list when there is
    none yet): :class:`experiments.harness.runs_table.RunsTable`'s."""
    return RunsTable(path, text=True).rows()


def done_keys(path: Path) -> set[CellKey]:
    """The cells that already have a valid record in ``runs.csv``."""
    return set(RunsTable(path).keys())


def set_aside(path: Path) -> list[records.Damaged]:
    """Move the damaged rows of ``path`` to ``runs.damaged.csv`` beside it (appended,
    with the time and reason) and rewrite ``path`` with the valid rows under the
    canonical header; one line on stderr says what moved
    (:meth:`experiments.harness.runs_table.RunsTable.set_aside_damaged`: the file read in
    columns when every row is valid). Call with the campaign lock held. Returns the rows set
    aside."""
    return RunsTable(path).set_aside_damaged()


#: the system call that appends rows (a seam for the disk-full tests)
_write = os.write
#: a :class:`RunsWriter` writes what it holds at the latest once it holds this many rows ...
FLUSH_ROWS = 512
#: ... or once its first row held is this old (s)
FLUSH_S = 0.5


class RunsWriter:
    """Appends rows to ``runs.csv``: on opening, sets damaged rows aside
    (:func:`set_aside`; ``checked``: the caller's :class:`~experiments.harness.runs_table.RunsTable`
    did, as a campaign's ``prepare`` does) and writes the header of a new file; then the rows, held until
    :meth:`flush` (the harness flushes after each round of finished cells), at most
    :data:`FLUSH_ROWS` rows or :data:`FLUSH_S` seconds, in one ``write`` each time: a killed
    campaign loses at most the rows of that round, whose cells the resume runs again. A
    failed write (ENOSPC, EIO) is cut off and raised as :class:`records.RecordWriteError`; every row
    before it stays."""

    def __init__(self, path: Path, checked: bool = False) -> None:
        self.path = path
        self._fd: int | None = None
        self._held: list[bytes] = []
        self._since = 0.0
        if not checked:
            set_aside(path)
        #: the file as this writer found it, and the byte where its first row went: what
        #: :meth:`RunsTable.appended` takes
        self.found: Stamp = stamp(path)
        self.start = 0
        try:
            self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)
            if os.fstat(self._fd).st_size == 0:
                self._append(records._header_line())
            self.start = os.fstat(self._fd).st_size
        except OSError as exc:
            raise self._error(exc) from None

    def write(self, row: Row) -> None:
        """Append one record, held until :meth:`flush` or until :data:`FLUSH_ROWS` rows or
        :data:`FLUSH_S` seconds are held."""
        if not self._held:
            self._since = time.monotonic()
        self._held.append(row.line())
        if len(self._held) >= FLUSH_ROWS or time.monotonic() - self._since >= FLUSH_S:
            self.flush()

    def flush(self) -> None:
        """Write the rows held, in one ``write``."""
        if self._held:
            data, self._held = b"".join(self._held), []
            self._append(data)

    def _append(self, data: bytes) -> None:
        # one write(2) to the OS per row: survives a kill of this process (not a power cut,
        # by design: an fsync per row would cost more than the harness overhead budget)
        fd = self._fd
        if fd is None:
            raise records.RecordWriteError("the record is closed", source=str(self.path))
        size = os.fstat(fd).st_size
        try:
            view = memoryview(data)
            while view:
                view = view[_write(fd, view):]
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, size)             # no half row left behind
            raise self._error(exc) from None

    def _error(self, exc: OSError) -> records.RecordWriteError:
        what = "disk full" if exc.errno == errno.ENOSPC else (exc.strerror or str(exc))
        return records.RecordWriteError(f"cannot write a record ({what})", source=str(self.path))

    def close(self) -> None:
        if self._fd is not None:
            try:
                self.flush()
            finally:
                os.close(self._fd)
                self._fd = None

    def __enter__(self) -> RunsWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
