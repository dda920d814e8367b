"""A large ``runs.csv`` kept beside it in columns (``runs.cache.feather``).

:func:`read_valid` gives the table :func:`experiments.harness.records_columnar.read_valid`
gives (every column of :data:`~experiments.harness.schema.COLUMNS`: the float columns as
floats, blank = NaN; the others text, blank = ``""``), or None when the file needs the
row-by-row reader; :class:`experiments.harness.runs_table.RunsTable` calls it. A file of at
least :data:`MIN_BYTES`, once parsed (:func:`experiments.harness.records_columnar.parse`) and
found valid, is kept in ``runs.cache.feather`` beside it (written whole or not at all; nothing
when the directory is read-only), recording the file's size, modification and change times
and inode. A later read of the same file (all four unchanged: a run that appends a row changes
them) maps the columns from there instead of parsing the text; any other cache file is
ignored and replaced. A smaller file is parsed each time.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from experiments.harness import records_columnar
from experiments.harness.schema import COLUMNS

if TYPE_CHECKING:
    import pyarrow as pa

#: the cache beside runs.csv
NAME = "runs.cache.feather"
#: files smaller than this are parsed each time (a cache would not pay)
MIN_BYTES = 1 << 20
#: what a cache records of its file, and the version of its layout
_KEY = b"sudoku_race.runs_csv"
_LAYOUT = 2


def _floats() -> tuple[str, ...]:
    return records_columnar.FLOATS


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
    if info.st_size < MIN_BYTES:
        return records_columnar.read_valid(path)
    cache = path.with_name(NAME)
    identity = _identity(info)
    kept = _cached(cache, identity)
    if kept is not None:
        return kept
    table = records_columnar.parse(path)
    if table is None:
        return None
    table = records_columnar.encoded(table)
    written = _write(cache, table, identity, info.st_mode)   # kept while it is checked
    if written is not None:
        del table                                 # read back mapped: no second copy in memory
        release()
        table = _mapped(written)
    frame = records_columnar.frame(table) if table is not None else None
    del table
    try:
        unchanged = _identity(os.stat(path)) == identity
    except OSError:
        unchanged = False
    if frame is None or not records_columnar.valid(frame):
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


def keep(path: Path, table: pa.Table) -> pa.Table:
    """``table``, the valid rows of ``path`` as :func:`experiments.harness.records_columnar.encoded`
    gives them (made without parsing the whole file: a run's rows added to those read before
    it), kept as the file's cache when the file is large enough (:data:`MIN_BYTES`), and then
    read back mapped (no second copy in memory); the table itself where nothing is kept."""
    try:
        info = os.stat(path)
    except OSError:
        return table
    if info.st_size < MIN_BYTES:
        return table
    identity = _identity(info)
    written = _write(path.with_name(NAME), table, identity, info.st_mode)
    if written is None:
        return table
    try:
        unchanged = _identity(os.stat(path)) == identity
    except OSError:
        unchanged = False
    mapped = _mapped(written) if unchanged else None
    if mapped is None:
        _remove(written)
        return table
    try:
        os.replace(written, path.with_name(NAME))
    except OSError:
        _remove(written)
    return mapped


def release() -> None:
    """Give the memory arrow holds but no longer uses back to the system (its allocator keeps
    what a large table freed)."""
    import pyarrow as pa
    pa.default_memory_pool().release_unused()


def _remove(path: str | None) -> None:
    if path is not None:
        with contextlib.suppress(OSError):
            os.unlink(path)


def _mapped(path: str) -> pa.Table | None:
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
    if not _laid_out(table.schema):
        return None
    return records_columnar.frame(table)


def _laid_out(schema: pa.Schema) -> bool:
    """Whether ``schema`` is a kept table's: every column in order, the float columns as
    float64, the others text (dictionary-encoded or not)."""
    import pyarrow as pa
    floats = set(_floats())
    if schema.names != list(COLUMNS):
        return False
    for field in schema:
        kind = field.type
        if field.name in floats:
            if kind != pa.float64():
                return False
        elif not (kind == pa.string() or pa.types.is_dictionary(kind)
                  and kind.value_type == pa.string()):
            return False
    return True


def _write(cache: Path, table: pa.Table, identity: dict[str, int], mode: int) -> str | None:
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
