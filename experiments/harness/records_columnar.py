"""``runs.csv`` parsed into columns: the fast path of :class:`experiments.harness.runs_table.RunsTable`.

:func:`parse` reads the file with pyarrow's CSV reader and :func:`valid` checks the whole of
:func:`experiments.harness.records.row_problem`'s contract column by column (the canonical
header, one line per row with one field per column, no NUL or carriage return, UTF-8, quotes
only where a field begins or ends, a known status, integers and non-negative finite numbers
where the schema says, no duplicate cell). A file passing every check gives exactly the rows
:func:`experiments.harness.records.scan` would; anything else (a damaged row, an older
header) gives None and the caller reads it row by row with
:func:`~experiments.harness.records.scan`, which names each damaged line. The checks are
conservative: what they cannot vouch for goes to the row-by-row reader, which decides.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from experiments.harness.schema import COLUMNS, NUMERIC, STATUSES
from formats.grid import MAX_N

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

_INTEGERS = ("n", "repeat", "seed", "clues", "cores")
_VERIFIED = frozenset({"", "true", "false", "1", "0", "1.0", "0.0"})
#: columns read as floats (the integer columns are checked as text)
FLOATS = tuple(c for c in NUMERIC if c not in _INTEGERS)
#: bytes examined at once by the byte checks
_BLOCK = 1 << 24
#: the canonical header line
_HEADER = (",".join(COLUMNS) + "\n").encode()
_COMMA, _NEWLINE, _QUOTE = 44, 10, 34


def _quotes_placed(a: np.ndarray) -> bool:
    """Whether every quote of ``a[1:-1]`` (bytes with one byte of context on either side)
    begins or ends a field or is doubled: a comma, line end or quote before or after it.
    Anything else (``"x"y``) is left to the row-by-row reader, which is strict about it."""
    quote = a[1:-1] == _QUOTE
    if not quote.any():
        return True
    before, after = a[:-2], a[2:]
    loose = quote & (before != _COMMA) & (before != _NEWLINE) & (before != _QUOTE) \
        & (after != _COMMA) & (after != _NEWLINE) & (after != _QUOTE)
    return not loose.any()


def _plain_lines(path: Path) -> int | None:
    """The number of lines of ``path`` when it begins with the canonical header, holds no NUL
    or carriage return, places its quotes as fields do (:func:`_quotes_placed`) and ends with
    a newline; else None. Reads the file in blocks (bounded memory)."""
    lines, carry, last = 0, b"\n", b""
    with open(path, "rb") as f:
        if f.read(len(_HEADER)) != _HEADER:
            return None
        f.seek(0)
        while block := f.read(_BLOCK):
            if b"\0" in block or b"\r" in block:
                return None
            lines += block.count(b"\n")
            if b'"' in block or carry[-1:] == b'"':
                if not _quotes_placed(np.frombuffer(carry + block, dtype=np.uint8)):
                    return None
            carry, last = block[-2:], block[-1:]
    return lines if last == b"\n" else None


def parse(path: Path, text: bool = False) -> pa.Table | None:
    """``path`` parsed by pyarrow into every column of :data:`~experiments.harness.schema.COLUMNS`
    (text, and the :data:`FLOATS` as float64, blank = null; with ``text`` every column as
    written) when its bytes pass :func:`_plain_lines` and every line is one row of one field per
    column; else None."""
    try:
        lines = _plain_lines(path)
    except OSError:
        return None
    return _read(path, lines, text)


def parse_rows(data: bytes) -> pa.Table | None:
    """Rows as :class:`experiments.harness.runs_table.RunsWriter` appends them (whole lines
    of :func:`experiments.harness.rows.encode`, no header) parsed as :func:`parse` parses a
    file; None when they are not one row of one field per column a line. Their bytes are not
    checked as a file's are (:func:`_plain_lines`, :func:`valid`): the encoder wrote them."""
    import pyarrow as pa
    if not data.endswith(b"\n"):
        return None
    return _read(pa.BufferReader(_HEADER + data), data.count(b"\n") + 1, False)


def _read(source: Any, lines: int | None, text: bool) -> pa.Table | None:
    """:func:`parse`'s reading of ``source`` (a path or a pyarrow stream) of ``lines`` lines."""
    import pyarrow as pa
    import pyarrow.csv as csv
    if lines is None or lines < 2:
        return None
    floats = set() if text else set(FLOATS)
    try:
        table = csv.read_csv(
            source, read_options=csv.ReadOptions(block_size=1 << 22),
            parse_options=csv.ParseOptions(newlines_in_values=False, ignore_empty_lines=False),
            convert_options=csv.ConvertOptions(
                column_types={c: pa.float64() if c in floats else pa.string() for c in COLUMNS},
                null_values=[""], strings_can_be_null=False, quoted_strings_can_be_null=False,
                check_utf8=True))
    except (OSError, pa.ArrowException, ValueError):
        return None
    if table.column_names != list(COLUMNS) or table.num_rows != lines - 1:
        return None
    return table if _finite(table, floats) else None


def _finite(table: pa.Table, floats: set[str]) -> bool:
    """Whether the ``floats`` columns of ``table`` hold only blanks and finite numbers >= 0
    (no ``nan`` or ``inf`` written: the row-by-row reader rejects those)."""
    import pyarrow.compute as pc
    for column in floats:
        values = table[column]
        if values.null_count == len(values):
            continue
        if pc.any(pc.or_(pc.invert(pc.is_finite(values)), pc.less(values, 0))).as_py():
            return False
    return True


#: text columns whose values repeat from row to row: kept as categories (one small integer a
#: row) when they do (at most one distinct value per two rows)
REPEATED = ("campaign", "entrant", "solver", "params", "family", "instance", "instance_sha256",
            "status", "verified", "worker", "message", "referee", "extra")


def encoded(table: pa.Table) -> pa.Table:
    """``table`` with each :data:`REPEATED` text column whose values do repeat
    dictionary-encoded (what :func:`frame` makes categorical)."""
    import pyarrow as pa
    for column in REPEATED:
        values = table[column]
        if not pa.types.is_string(values.type):
            continue
        dictionary = values.dictionary_encode().combine_chunks()
        if 2 * len(dictionary.dictionary) <= max(len(values), 1):
            table = table.set_column(table.column_names.index(column), column, dictionary)
    return table


def frame(table: pa.Table) -> pd.DataFrame:
    """``table`` (:func:`parse`'s) as a pandas table: text columns of pandas' arrow string
    type (no Python object per value) or, dictionary-encoded (:func:`encoded`), categorical,
    float columns as float64 (null = NaN). A float column
    blank in every row (a counter or phase no entrant reports) is one NaN repeated by a
    read-only view, not a column of NaN in memory."""
    import pandas as pd
    import pyarrow as pa
    floats = [c for c in table.column_names if pa.types.is_floating(table.schema.field(c).type)]
    blank = [c for c in floats if table[c].null_count == table.num_rows]
    string = pd.StringDtype("pyarrow", na_value=np.nan)     # pandas' "str"
    result = table.drop_columns(blank).to_pandas(
        split_blocks=True, self_destruct=False,
        types_mapper=lambda kind: string if pa.types.is_string(kind) or pa.types.is_large_string(kind)
        else None)
    for column in blank:
        result.insert(list(table.column_names).index(column), column, pd.Series(
            np.broadcast_to(np.float64(np.nan), len(result)), index=result.index, copy=False))
    return result


def read_valid(path: Path, text: bool = False) -> pd.DataFrame | None:
    """The rows of ``path`` as a table (:func:`frame`; with ``text`` every column as written,
    blank = ``""``) when every row is valid (module docstring); None when the file needs the
    row-by-row reader."""
    table = parse(Path(path), text)
    if table is None:
        return None
    result = frame(table if text else encoded(table))
    del table
    return result if valid(result) else None


def _distinct(values: pd.Series) -> tuple[np.ndarray, pd.Series]:
    """Codes per row into the distinct values of a column (text; code -1 for a missing one)."""
    import pandas as pd
    codes, uniques = pd.factorize(values)
    return codes, pd.Series(np.asarray(uniques, dtype=object), dtype=object).astype(str)


def _numbers(texts: pd.Series) -> np.ndarray:
    """Text numbers as floats (blank = NaN); ``inf`` where a text is no number."""
    import pandas as pd
    numbers = pd.to_numeric(texts.where(texts != "", None), errors="coerce")
    out = numbers.to_numpy(dtype=float, na_value=np.nan, copy=True)  # never a read-only view
    out[numbers.isna().to_numpy() & (texts != "").to_numpy(dtype=bool)] = np.inf
    return out


def valid(table: pd.DataFrame) -> bool:
    """Every row of ``table`` (:func:`frame`'s) passes
    :func:`experiments.harness.records.row_problem` and no two rows record the same cell.
    Each text column is checked on its distinct values."""
    checked = {"entrant", "instance", "status", "n", "verified", "family", *_INTEGERS, *FLOATS}
    distinct = {c: _distinct(table[c]) for c in table.columns
                if c in checked and table[c].dtype != float}
    if any((codes < 0).any() for codes, _ in distinct.values()):
        return False                              # a missing text: not what the reader gives
    for column in ("entrant", "instance", "status", "n"):
        if (distinct[column][1].str.strip() == "").any():
            return False
    if not distinct["status"][1].isin(STATUSES).all():
        return False
    for column in _INTEGERS:
        if not distinct[column][1].str.fullmatch(r"[0-9]*").all():
            return False
    n = distinct["n"][1].astype(int)
    if ((n < 1) | (n > MAX_N)).any():
        return False
    for column in FLOATS:
        if column not in distinct:                # checked as parsed (:func:`_finite`)
            continue
        texts = distinct[column][1]
        if texts.str.contains("[nN_]", regex=True).any():       # "nan", "inf": no numbers here
            return False
        numbers = _numbers(texts)
        if (np.isinf(numbers) | (numbers < 0)).any():
            return False
    if not distinct["verified"][1].str.strip().str.lower().isin(_VERIFIED).all():
        return False
    return not _duplicated(distinct)


def _duplicated(distinct: dict[str, tuple[np.ndarray, pd.Series]]) -> bool:
    """Whether two rows record the same cell (:func:`experiments.harness.identity.cell_key`):
    each key column's distinct values as the key takes them, combined into one number a row."""
    import pandas as pd
    key = np.zeros(len(distinct["n"][0]), dtype=np.int64)
    for column, convert in (("family", str.strip), ("entrant", str), ("n", int),
                            ("instance", str), ("repeat", lambda text: int(text or 0))):
        codes, texts = distinct[column]
        values = [convert(text) for text in texts.tolist()]
        same, _ = pd.factorize(pd.Series(values, dtype=object))    # "03" and "3" are one n
        key, _ = pd.factorize(key * (int(same.max(initial=0)) + 1) + same[codes])
    return bool(pd.Series(key).duplicated().any())


def joined(frame: pd.DataFrame, added: pa.Table) -> pa.Table:
    """The rows of ``frame`` (a table's, as read) followed by ``added`` (parsed rows), in the
    types :func:`parse` gives (text, the float columns as
    float64, blank = null)."""
    import pyarrow as pa
    if not len(frame):
        return added
    columns = []
    for column in COLUMNS:
        kind = added.schema.field(column).type
        values = frame[column]
        if kind == pa.float64():
            columns.append(pa.array(values.to_numpy(dtype=float, na_value=np.nan), kind,
                                    from_pandas=True))
        else:
            array = pa.array(values, from_pandas=True)      # text or its categories
            columns.append(array if array.type == kind else array.cast(kind))
    return pa.concat_tables([pa.table(columns, names=list(COLUMNS)), added])


def rows_frame(rows: list[dict[str, str]], text: bool) -> pd.DataFrame:
    """Rows read row by row as a table like the one read in columns."""
    import pandas as pd

    frame = pd.DataFrame({c: pd.array([row[c] for row in rows],
                                      dtype=pd.StringDtype("pyarrow", na_value=np.nan))
                          for c in COLUMNS}, columns=list(COLUMNS))
    if not text:
        for column in FLOATS:
            values = frame[column]
            frame[column] = pd.to_numeric(values.where(values != "", None)).astype(np.float64) \
                if len(values) else values.astype(np.float64)
    return frame


def values_of(column: pd.Series, convert: Callable[[str], Any], blank: Any) -> list[Any]:
    """A column's values (as text) each converted, in row order (a missing one: ``blank``);
    converted once per distinct value."""
    import pandas as pd
    codes, uniques = pd.factorize(column)
    texts = np.asarray(uniques, dtype=object).tolist()
    distinct = np.array([convert(text_of(value)) for value in texts] + [blank], dtype=object)
    return distinct[codes].tolist()


def text_of(value: Any) -> str:
    """A value of a column as runs.csv holds it (blank ``""``)."""
    if value is None or value != value:
        return ""
    return value if isinstance(value, str) else f"{value:.9g}" if isinstance(value, float) else str(value)


def texts_of(values: pd.Series) -> list[str]:
    """A column as runs.csv holds it: text as it is, floats as written (blank ``""``)."""
    if values.dtype == float:
        return ["" if v != v else f"{v:.9g}" for v in values.tolist()]
    return ["" if v is None or v != v else str(v) for v in values.tolist()]
