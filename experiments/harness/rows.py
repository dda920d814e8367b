"""A row of runs.csv, made in one place (:func:`make_row`) from one cell's measurement.

:class:`Row` has one field per column of :data:`experiments.harness.schema.COLUMNS`, in that
order; :meth:`Row.line` is the line runs.csv holds. The record contract (docs/formats.md, "runs.csv"):
a cell that hit its limit gets the limit in its time columns (a timeout is never averaged as a
number); a skipped or failed cell has no times; a solver's counters and phases beyond the
schema's go to ``extra`` as JSON, never dropped.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from experiments.harness.messages import Measurement
from experiments.harness.schema import (
    COLUMNS,
    LIMIT_STATUSES,
    PHASES,
    WORK_COUNTERS,
    Status,
)
from formats.errors import printable

if TYPE_CHECKING:
    from experiments.harness.cells import Cell
    from experiments.harness.entrants import Entrant


@dataclass(slots=True)
class Row:
    """One record of runs.csv (the columns are documented in :mod:`experiments.harness.schema`)."""
    campaign: str = ""
    entrant: str = ""
    solver: str = ""
    params: str = ""
    n: int = 0
    family: str = ""
    holes: float | None = None
    seed: int = 0
    instance: str = ""
    instance_sha256: str | None = None
    clues: int | None = None
    repeat: int = 0
    status: str = ""
    verified: bool = False
    wall_s: float | None = None
    cpu_s: float | None = None
    cores: int = 1
    peak_rss_mb: float | None = None
    timeout_s: float | None = None
    iterations: int | None = None
    t_check: float | None = None
    t_build: float | None = None
    t_encode: float | None = None
    t_write: float | None = None
    t_search: float | None = None
    t_decode: float | None = None
    t_verify: float | None = None
    nodes: int | None = None
    updates: int | None = None
    checks: int | None = None
    conflicts: int | None = None
    decisions: int | None = None
    propagations: int | None = None
    vars: int | None = None
    clauses: int | None = None
    worker: str | None = None
    started_at: str | None = None
    message: str | None = None
    referee: str | None = None
    extra: str | None = None

    def line(self) -> bytes:
        """The row as the one line runs.csv holds."""
        return _line(_TEXTS(self))

    def as_dict(self) -> dict[str, Any]:
        """The row as a dict, column -> value (what a progress callback of the API gets)."""
        return dict(zip(COLUMNS, _VALUES(self)))


_VALUES = attrgetter(*COLUMNS)
assert tuple(f.name for f in fields(Row)) == COLUMNS, "Row's fields are the columns, in order"


def _text(value: Any) -> str:
    """A value as its field's text: None empty, a float in 9 significant digits."""
    return ("" if value is None else value if value.__class__ is str else
            f"{value:.9g}" if value.__class__ is float else str(value))


def _texts_of_rows() -> Callable[[Row], tuple[str, ...]]:
    """The function giving a :class:`Row`'s fields as texts, in column order (what
    :func:`_text` makes of each), written out field by field: one call per row where a loop
    over the 40 values would cost twice as much."""
    lines = [f"    v{i} = row.{name}\n" for i, name in enumerate(COLUMNS)]
    texts = [f"'' if v{i} is None else v{i} if v{i}.__class__ is str else "
             f"f'{{v{i}:.9g}}' if v{i}.__class__ is float else str(v{i})"
             for i in range(len(COLUMNS))]
    source = "def texts(row):\n" + "".join(lines) + "    return (" + ", ".join(texts) + ",)\n"
    namespace: dict[str, Any] = {}
    exec(compile(source, "<rows: a row's texts>", "exec"), namespace)
    return namespace["texts"]  # type: ignore[no-any-return]


_TEXTS = _texts_of_rows()


def encode(values: Iterable[Any]) -> bytes:
    """One record's values (in column order) as one line: no field may hold a line break or
    NUL (a reader splits on newlines, so a damaged row can never swallow the next)."""
    return _line([_text(value) for value in values])


def _line(texts: list[str] | tuple[str, ...]) -> bytes:
    """One record's field texts as one line (see :func:`encode`)."""
    line = ",".join(texts)
    if line.isprintable():
        if '"' in line or line.count(",") != len(COLUMNS) - 1:    # quote what needs it
            line = ",".join([_quoted(text) if '"' in text or "," in text else text
                             for text in texts])
        return (line + "\n").encode("utf-8", "backslashreplace")
    texts = [text if text.isprintable() else printable(text) for text in texts]
    _LINE.seek(0)
    _LINE.truncate()
    _WRITER.writerow(texts)
    return _LINE.getvalue().encode("utf-8", "backslashreplace")


def _quoted(text: str) -> str:
    """A field holding a comma or a quote as CSV writes it (the same few texts, e.g. an
    entrant's parameters, come back in every row of a campaign: each is quoted once)."""
    quoted = _QUOTED.get(text)
    if quoted is None:
        quoted = '"' + text.replace('"', '""') + '"'
        if len(_QUOTED) < 4096:
            _QUOTED[text] = quoted
    return quoted


_QUOTED: dict[str, str] = {}
_LINE = io.StringIO()
_WRITER = csv.writer(_LINE, lineterminator="\n")


def _number(value: Any) -> float | None:
    kind = value.__class__
    if kind is float:
        return value  # type: ignore[no-any-return]
    return float(value) if kind is int or (isinstance(value, (int, float))
                                             and not isinstance(value, bool)) else None


#: an entrant's parameters as the ``params`` column holds them, by spec
_PARAMS: dict[str, str] = {}
#: the phase and counter columns a measurement may fill
_PHASE_FIELDS = {p: f"t_{p}" for p in PHASES}
_COUNTER_FIELDS = frozenset(WORK_COUNTERS)


def make_row(campaign: str, seed: int, timeout_s: float, entrant: Entrant, cell: Cell,
             measurement: Measurement, holes: float | None = None) -> Row:
    """The row of ``cell`` (finished or skipped) of campaign ``campaign`` run on instances of
    seed ``seed`` under the limit ``timeout_s``, from its ``measurement``; ``holes`` the hole
    fraction of the cell's family at its n (None where it has none)."""
    m = measurement
    params = _PARAMS.get(entrant.spec)
    if params is None:
        params = _PARAMS[entrant.spec] = json.dumps(entrant.params, sort_keys=True)
    inst = cell.instance
    status = m.status
    row = Row(campaign, entrant.spec, entrant.name, params, cell.n, cell.family, holes, seed,
              cell.instance_file, inst.sha256 if inst else None, inst.clues if inst else None,
              cell.repeat, status.value, m.verified, cores=m.cores,
              peak_rss_mb=_number(m.peak_rss_mb), timeout_s=timeout_s,
              worker=m.worker or None, started_at=m.started_at or None,
              message=m.message or None, referee=m.referee or None)
    if status.value in LIMIT_STATUSES:    # the cell held its cores up to the limit
        row.wall_s, row.cpu_s = timeout_s, timeout_s * m.cores
    elif status is not Status.SKIPPED and status is not Status.ERROR:
        row.wall_s, row.cpu_s = _number(m.wall_s), _number(m.cpu_s)
        row.iterations = m.iterations
        extra: dict[str, Any] = {}
        for phase, seconds in m.times.items():
            column = _PHASE_FIELDS.get(phase)
            if column is not None:
                setattr(row, column, _number(seconds))
            else:
                extra[f"t_{phase}"] = _number(seconds)
        for name, value in m.counters.items():
            if name in _COUNTER_FIELDS:
                setattr(row, name, value)
            else:
                extra[name] = value
        if extra:                           # a solver's own counters are kept, not dropped
            row.extra = _extra_text(extra)
    return row


#: the ``extra`` of rows whose extra counters have these names, as a template for their values
_EXTRA_TEMPLATES: dict[tuple[str, ...], str] = {}
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_]+")


def _extra_text(extra: dict[str, Any]) -> str:
    """``extra`` as JSON (``json.dumps(extra, sort_keys=True, default=str)``): where its names
    are plain and its values integers (a solver's counters, the same names in every row of an
    entrant), filled into the template of its names, made once."""
    names = tuple(sorted(extra))
    template = _EXTRA_TEMPLATES.get(names)
    if template is None and len(_EXTRA_TEMPLATES) < 256 and all(
            _PLAIN_NAME.fullmatch(name) for name in names):
        template = _EXTRA_TEMPLATES[names] = \
            "{{" + ", ".join(f'"{name}": {{}}' for name in names) + "}}"
    values = [extra[name] for name in names]
    if template is not None and all(value.__class__ is int for value in values):
        return template.format(*values)
    return json.dumps(extra, sort_keys=True, default=str)
