"""A large ``runs.csv`` read with pyarrow and kept beside it in columns (``runs.cache.feather``).

:func:`read_valid` gives the table :func:`experiments.harness.records_columnar.read_valid`
gives (every column of :data:`~experiments.harness.schema.COLUMNS`: the float columns as
floats, blank = NaN; the others text, blank = ``""``), or None when the file needs the
row-by-row reader, and is what a reader of a whole campaign (:mod:`experiments.analysis.campaign_data`)
calls. A file of at least :data:`MIN_BYTES`:

* is parsed by pyarrow's multi-threaded CSV reader when it holds no quote, NUL, carriage
  return, ``nan`` or ``inf`` and ends with a newline (each line then has exactly one field per
  column or pyarrow refuses it); the table is checked by
  :func:`experiments.harness.records_columnar._valid`, the checks of the pandas reader. Anything
  else goes to :func:`~experiments.harness.records_columnar.read_valid`, which decides;
* once found valid, is kept in ``runs.cache.feather`` beside it (written whole or not at all;
  nothing when the directory is read-only), recording the file's size, modification and change
  times and inode. A later read of the same file (all four unchanged: a run that appends a row
  changes them) reads the columns from there instead of parsing the text; any other cache
  file is ignored and replaced.

A smaller file, or one whose table :func:`~experiments.harness.records_columnar.read_valid`
keeps (a run read it as it started), is read by that function alone.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from experiments.harness import records_columnar
from experiments.harness.schema import COLUMNS

#: the cache beside runs.csv
NAME = "runs.cache.feather"
#: files smaller than this are parsed each time (a cache would not pay)
MIN_BYTES = 32 << 20
#: what a cache records of its file, and the version of its layout
_KEY = b"sudoku_race.runs_csv"
_LAYOUT = 1
#: bytes examined at once by the byte checks
_BLOCK = 1 << 24


def _floats() -> tuple[str, ...]:
    return records_columnar._FLOATS


def _identity(info: os.stat_result) -> dict[str, int]:
    return {"layout": _LAYOUT, "size": info.st_size, "mtime_ns": info.st_mtime_ns,
            "ctime_ns": info.st_ctime_ns, "inode": info.st_ino, "device": info.st_dev}


def read_valid(path: Path) -> pd.DataFrame | None:
    """The valid rows of ``path`` as a table (module docstring), None when the file needs the
    row-by-row reader. The caller must not modify the table it gets."""
    path = Path(path)
    try:
        info = os.stat(path)
    except OSError:
        return None
    if info.st_size < MIN_BYTES or _kept(path, info):
        return records_columnar.read_valid(path)
    cache = path.with_name(NAME)
    identity = _identity(info)
    kept = _cached(cache, identity)
    if kept is not None:
        return kept
    table = _parse(path)
    if table is None:
        return records_columnar.read_valid(path)
    written = _write(cache, table, identity, info.st_mode)   # kept while it is checked
    if written is not None:
        del table                                 # read back mapped: no second copy in memory
        release()
        table = _mapped(written)
    frame = _frame(table) if table is not None else None
    try:
        unchanged = _identity(os.stat(path)) == identity
    except OSError:
        unchanged = False
    if frame is None or not records_columnar._valid(frame):
        _remove(written)
        return None if frame is not None else records_columnar.read_valid(path)
    if written is not None:
        if unchanged:
            try:
                os.replace(written, cache)
            except OSError:
                _remove(written)
        else:
            _remove(written)
    return frame


def _kept(path: Path, info: os.stat_result) -> bool:
    """Whether :func:`records_columnar.read_valid` keeps the table of ``path`` as it is now
    (a run read it as it started: its summary takes that table, not a second one)."""
    return (str(path.resolve()), info.st_size, info.st_mtime_ns) in records_columnar._LAST


def release() -> None:
    """Give the memory arrow holds but no longer uses back to the system (its allocator keeps
    what a large table freed)."""
    import pyarrow as pa
    pa.default_memory_pool().release_unused()


def _remove(path: str | None) -> None:
    if path is not None:
        try:
            os.unlink(path)
        except OSError:
            pass


def _mapped(path: str):
    """The table of the feather file ``path``, memory-mapped (None when it cannot be read)."""
    import pyarrow as pa
    import pyarrow.feather as feather
    try:
        return feather.read_table(path, memory_map=True)
    except (OSError, pa.ArrowException, ValueError):
        return None


def _cached(cache: Path, identity: dict[str, int]) -> pd.DataFrame | None:
    """The table kept in ``cache`` when it records ``identity`` and every column; else None."""
    table = _mapped(str(cache))
    if table is None:
        return None
    recorded = (table.schema.metadata or {}).get(_KEY)
    try:
        if recorded is None or json.loads(recorded) != identity:
            return None
    except ValueError:
        return None
    if table.schema != _schema().with_metadata(table.schema.metadata):
        return None
    return _frame(table)


def _schema():
    import pyarrow as pa
    floats = set(_floats())
    return pa.schema([(c, pa.float64() if c in floats else pa.large_string()) for c in COLUMNS])


def _write(cache: Path, table, identity: dict[str, int], mode: int) -> str | None:
    """``table``, recording ``identity``, written whole to a new file beside ``cache`` (its
    path), readable as runs.csv is (``mode``), or None when it cannot be written (a read-only
    directory, a full disk)."""
    import pyarrow as pa
    import pyarrow.feather as feather
    table = table.replace_schema_metadata({_KEY: json.dumps(identity).encode()})
    temporary = None
    try:
        fd, temporary = tempfile.mkstemp(prefix=f".{NAME}.", dir=cache.parent)
        os.close(fd)
        os.chmod(temporary, stat.S_IMODE(mode) & 0o666)
        feather.write_feather(table, temporary, compression="uncompressed")
    except (OSError, pa.ArrowException):
        _remove(temporary)
        return None
    return temporary


def _plain(path: Path) -> tuple[bool, int]:
    """Whether ``path`` has the canonical header, no quote, NUL, carriage return, ``nan`` or
    ``inf`` in any case, and ends with a newline; and its number of lines."""
    header = (",".join(COLUMNS) + "\n").encode()
    lines, last = 0, b""
    with open(path, "rb") as f:
        if f.read(len(header)) != header:
            return False, 0
        f.seek(0)
        while block := f.read(_BLOCK):
            if b'"' in block or b"\0" in block or b"\r" in block or records_columnar._special(block):
                return False, 0
            lines += block.count(b"\n")
            last = block[-1:]
    return last == b"\n", lines


def _parse(path: Path):
    """``path`` parsed by pyarrow into the columns of the schema (text, and the float columns),
    when it is plain (:func:`_plain`) and every line has one field per column; else None."""
    import pyarrow as pa
    import pyarrow.csv as csv
    try:
        ok, lines = _plain(path)
    except OSError:
        return None
    if not ok or lines < 2:
        return None
    floats = set(_floats())
    try:
        table = csv.read_csv(
            path, read_options=csv.ReadOptions(block_size=1 << 22),
            parse_options=csv.ParseOptions(quote_char=False, double_quote=False, escape_char=False,
                                           newlines_in_values=False, ignore_empty_lines=False),
            convert_options=csv.ConvertOptions(
                column_types={c: pa.float64() if c in floats else pa.large_string() for c in COLUMNS},
                null_values=[""], strings_can_be_null=False, quoted_strings_can_be_null=False,
                check_utf8=True))
    except (OSError, pa.ArrowException, ValueError):
        return None
    if table.column_names != list(COLUMNS) or table.num_rows != lines - 1:
        return None
    return table


def _frame(table) -> pd.DataFrame:
    """``table`` as records_columnar's table: text columns of pandas' string type, float columns
    as float64 (null = NaN). A float column blank in every row (a counter or phase no entrant
    reports) is one NaN repeated by a read-only view, not a column of NaN in memory."""
    blank = [c for c in _floats() if table[c].null_count == table.num_rows]
    frame = table.drop_columns(blank).to_pandas(split_blocks=True)
    for column in _floats():
        if column in blank:
            frame.insert(list(table.column_names).index(column), column, pd.Series(
                np.broadcast_to(np.float64(np.nan), len(frame)), index=frame.index, copy=False))
        elif frame[column].dtype != np.float64:
            frame[column] = frame[column].astype(np.float64)
    return frame


def numbers(values: pd.Series) -> pd.Series:
    """``pd.to_numeric(values, errors="coerce")``: cast by arrow when ``values`` is arrow text
    that casts whole (integers when none is blank, else floats: what pandas gives), else by
    pandas."""
    if isinstance(values.dtype, pd.StringDtype) and values.dtype.storage == "pyarrow":
        import pyarrow as pa
        text = pa.chunked_array(values.array._pa_array)
        try:
            numbers = text.cast(pa.int64() if text.null_count == 0 else pa.float64())
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            numbers = None
        if numbers is not None:
            return pd.Series(numbers.to_numpy(), index=values.index, name=values.name)
    return pd.to_numeric(values, errors="coerce")
