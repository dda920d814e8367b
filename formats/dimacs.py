"""DIMACS CNF files: a fast streaming writer and a reader that follows the rules.

The format (assignment, section 7): comment lines start with ``c`` and may
appear anywhere; before any clause comes the preamble ``p cnf VARS CLAUSES``;
clauses are whitespace-separated non-zero literals in -VARS..VARS, each ended
by ``0``, and a clause may span lines (or share a line with others).

Writing: clauses come as 2-D int32 blocks (one clause width per block, the
shape :mod:`solvers.sat.sudoku_cnf` builds). A compiled kernel turns a chunk of a
block into ASCII in a reusable byte buffer that is streamed to the file, so
tens of millions of clauses go out at disk speed without a Python object per
literal (several times faster than PySAT's ``CNF.to_file``).

Reading: :func:`parse` / :func:`read` check the preamble, every literal's
range, every clause's terminating 0 and the declared clause count; errors are
:class:`RaceError` naming the file and line. A vectorised fast path handles
well-formed bodies; anything odd is re-read line by line to locate the error.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Protocol

import numpy as np

from formats.compiled import is_interpreted, kernel
from formats.errors import RaceError
from formats.source import (
    BLANKS,
    decode_utf8,
    read_source,
    reject_carriage_return,
    split_lines,
)

#: bytes of output per chunk of the writer (the buffer is reused).
CHUNK_BYTES = 1 << 23


@kernel(cache=True, nogil=True)
def format_clauses(block: np.ndarray, out: np.ndarray) -> int:
    """Write the clauses (rows) of ``block`` as DIMACS lines ``l1 l2 ... 0\\n``
    into the uint8 buffer ``out`` (at least rows·(12·width + 2) bytes);
    return the number of bytes written."""
    digits = np.empty(12, dtype=np.uint8)
    pos = 0
    rows, width = block.shape
    for r in range(rows):
        for c in range(width):
            v = np.int64(block[r, c])
            if v < 0:
                out[pos] = 45          # '-'
                pos += 1
                v = -v
            d = 0
            while True:
                digits[d] = 48 + v % 10
                v //= 10
                d += 1
                if v == 0:
                    break
            for q in range(d - 1, -1, -1):
                out[pos] = digits[q]
                pos += 1
            out[pos] = 32              # ' '
            pos += 1
        out[pos] = 48                  # '0'
        out[pos + 1] = 10              # '\n'
        pos += 2
    return pos


def format_clauses_text(block: np.ndarray) -> bytes:
    """:func:`format_clauses` without the compiled kernel (the same bytes, by one C-level
    ``%`` format of the whole chunk: ~0.1 µs per literal), for
    :func:`formats.compiled.interpreted` callers."""
    rows, width = block.shape
    line = "%d " * width + "0\n"
    return ((line * rows) % tuple(block.ravel().tolist())).encode("ascii")


def _as_blocks(clauses: Iterable) -> Iterator[np.ndarray]:
    for item in clauses:
        if isinstance(item, np.ndarray) and item.ndim == 2:
            yield np.ascontiguousarray(item, dtype=np.int32)
        else:                           # one clause as a sequence of ints
            yield np.asarray(item, dtype=np.int32).reshape(1, -1)


def write(target: str | Path | IO[bytes], nvars: int, blocks: Iterable,
          comments: Iterable[str] = ()) -> int:
    """Write a DIMACS CNF to ``target`` (a path, ``-`` for stdout, or a binary file).

    ``blocks`` holds 2-D int arrays (one clause per row) and/or single clauses
    as int sequences. Returns the number of bytes written."""
    blocks = list(_as_blocks(blocks))
    nclauses = sum(b.shape[0] for b in blocks)
    head = "".join(f"c {line}\n" for text in comments for line in str(text).splitlines() or [""])
    head += f"p cnf {nvars} {nclauses}\n"
    if str(target) == "-":
        return _write_to(sys.stdout.buffer, head, blocks)
    if isinstance(target, (str, Path)):
        from formats.whole_file import replacing
        try:                                          # whole or not at all (a full disk)
            with replacing(target) as temporary, open(temporary, "wb", buffering=0) as out:
                return _write_to(out, head, blocks)
        except OSError as exc:
            raise RaceError(f"cannot write: {exc.strerror}", source=str(target)) from None
    return _write_to(target, head, blocks)


def _write_to(out: IO[bytes], head: str, blocks: list[np.ndarray]) -> int:
    data = head.encode()
    out.write(data)
    total = len(data)
    buffer = np.empty(0, dtype=np.uint8)
    interpreted = is_interpreted()
    for block in blocks:
        rows, width = block.shape
        per_row = 12 * width + 2
        step = max(1, CHUNK_BYTES // per_row)
        if not interpreted and buffer.size < min(rows, step) * per_row:
            buffer = np.empty(min(rows, step) * per_row, dtype=np.uint8)
        for start in range(0, rows, step):
            if interpreted:
                text = format_clauses_text(block[start:start + step])
                out.write(text)
                total += len(text)
                continue
            used = format_clauses(block[start:start + step], buffer)
            out.write(buffer.data[:used])
            total += used
    out.flush()
    return total


def dumps(nvars: int, blocks: Iterable, comments: Iterable[str] = ()) -> bytes:
    """The DIMACS text of a formula, as bytes."""
    import io
    sink = io.BytesIO()
    write(sink, nvars, blocks, comments)
    return sink.getvalue()


# -- reading ----------------------------------------------------------------------

@dataclass
class Dimacs:
    """A parsed DIMACS CNF: ``lits`` holds every clause's literals back to back,
    clause c being ``lits[offsets[c]:offsets[c+1]]``."""
    nvars: int
    lits: np.ndarray
    offsets: np.ndarray
    comments: list[str] = field(default_factory=list)

    @property
    def nclauses(self) -> int:
        return self.offsets.size - 1

    def clauses(self) -> Iterator[list[int]]:
        for c in range(self.nclauses):
            yield self.lits[self.offsets[c]:self.offsets[c + 1]].tolist()

    def first_false_clause(self, true_vars: Iterable[int] | np.ndarray) -> int | None:
        """The 1-based number of the first clause that the model (the variables in
        ``true_vars`` true, every other false) leaves false, or None when it satisfies all:
        a solver's "satisfiable" is checked, never believed."""
        true_vars = np.asarray(true_vars, dtype=np.int64).reshape(-1)
        if true_vars.size and (true_vars.min() < 1 or true_vars.max() > self.nvars):
            return 1 if self.nclauses else None      # a model naming no variable of ours
        value = np.zeros(self.nvars + 1, dtype=bool)
        value[true_vars] = True
        lits = self.lits.astype(np.int64)
        holds = np.where(lits > 0, value[np.abs(lits)], ~value[np.abs(lits)])
        ends = np.concatenate([[0], np.cumsum(holds, dtype=np.int64)])
        false = np.flatnonzero(ends[self.offsets[1:]] - ends[self.offsets[:-1]] == 0)
        return int(false[0]) + 1 if false.size else None

    def blocks(self) -> list[np.ndarray]:
        """The clauses grouped by width into 2-D blocks (order within a width kept)."""
        widths = np.diff(self.offsets)
        out = []
        for w in np.unique(widths):
            starts = self.offsets[:-1][widths == w]
            out.append(self.lits[starts[:, None] + np.arange(w)].reshape(starts.size, w))
        return out


#: the largest variable number (and clause count) accepted: literals are stored
#: as int32, so anything larger would wrap around.
MAX_VARS = 2**31 - 1

#: bound on the bytes of a DIMACS file read (a formula for the largest grid fits).
MAX_DIMACS_BYTES = 1 << 30

_PREAMBLE = re.compile(r"p[ \t]+cnf[ \t]+([0-9]{1,30})[ \t]+([0-9]{1,30})[ \t\r\f\v]*")
_ODD_BODY = re.compile(rb"[^-0-9 \t\r\n]")
_LITERAL = re.compile(r"-?[0-9]{1,19}")
_SIGNED_ZERO = re.compile(r"[-+]0+")
_LONE_CR = re.compile(rb"\r(?!\n)")             # a CR that is not part of a CRLF line end
_TOKEN = re.compile(r"[^ \t\r\f\v]+")


def read(source: str | Path) -> Dimacs:
    """Read a DIMACS CNF file (``-`` = stdin)."""
    data, name = read_source(source, binary=True, what="a DIMACS file", limit=MAX_DIMACS_BYTES)
    return parse(data, name)


def parse(data: bytes | str, name: str = "<dimacs>") -> Dimacs:
    """Parse DIMACS CNF text; :class:`RaceError` (file, line) on any violation:
    numbers are ASCII decimal, VARS and CLAUSES at most :data:`MAX_VARS`, text
    strict UTF-8, lines counted on ``\\n`` (CRLF is fine, a CR inside a line is an error:
    CR-only line ends would hide clauses in a comment), a literal never signed zero."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    comments: list[str] = []
    pos = 0
    line_no = 0
    nvars: int | None = None
    nclauses = 0
    while pos < len(data):             # comments and the preamble
        end = data.find(b"\n", pos)
        end = len(data) if end < 0 else end
        line_no += 1
        raw = decode_utf8(data[pos:end], name, line_no)
        if "\r" in raw:                   # CR-only line ends: a comment would swallow the rest
            reject_carriage_return(raw, name, line_no)
        line = raw.strip(BLANKS)
        pos = end + 1
        if not line:
            continue
        if line.startswith("c"):
            comments.append(line[1:].strip())
            continue
        nvars, nclauses = _preamble(line, name, line_no)
        break
    if nvars is None:
        raise RaceError("no preamble 'p cnf VARS CLAUSES' found", source=name)
    body = data[pos:]
    fast = _parse_body_fast(body, nvars, nclauses)
    if fast is not None:
        return Dimacs(nvars, fast[0], fast[1], comments)
    lits, offsets = _parse_body_lines(body, nvars, nclauses, name, line_no, comments)
    return Dimacs(nvars, lits, offsets, comments)


def _preamble(line: str, name: str, line_no: int) -> tuple[int, int]:
    match = _PREAMBLE.fullmatch(line)
    if not match:
        raise RaceError(f"expected the preamble 'p cnf VARS CLAUSES' (ASCII decimal numbers), "
                        f"got {line[:40]!r}", source=name, line=line_no)
    numbers = []
    for what, digits in (("VARS", match.group(1)), ("CLAUSES", match.group(2))):
        if len(digits) > 10 or int(digits) > MAX_VARS:
            raise RaceError(f"the preamble's {what} {digits[:20]}{'...' if len(digits) > 20 else ''} "
                            f"is over the limit of {MAX_VARS}", source=name, line=line_no)
        numbers.append(int(digits))
    return numbers[0], numbers[1]


def _parse_body_fast(body: bytes, nvars: int,
                     nclauses: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Vectorised parse of a clean body (ASCII numbers only); None if anything is odd."""
    if _ODD_BODY.search(body):
        return None
    if _has_minus_zero(body):           # '-0' is no clause end (the int() below says 0)
        return None
    if b"\r" in body and _LONE_CR.search(body):       # CR-only or mixed line ends
        return None
    try:
        tokens = np.array(body.split(), dtype=np.int64)
    except (ValueError, OverflowError):
        return None
    if tokens.size and tokens[-1] != 0:
        return None
    if tokens.size and np.abs(tokens).max() > nvars:
        return None
    ends = np.flatnonzero(tokens == 0)
    if ends.size != nclauses:
        return None
    lits = np.delete(tokens, ends).astype(np.int32)
    offsets = np.concatenate([[0], ends - np.arange(ends.size) ]).astype(np.int64)
    return lits, offsets


#: the bytes "-0" as one native uint16, for :func:`_has_minus_zero`.
_MINUS_ZERO = np.frombuffer(b"-0", dtype=np.uint16)[0]


def _has_minus_zero(body: bytes) -> bool:
    """Does ``body`` hold the bytes ``-0`` (a signed zero, or a negative literal with a
    leading zero: both left to the careful reader)? Two vectorised uint16 compares (at
    even and odd offsets), several times faster than ``b"-0" in body`` (``-`` is common)."""
    data = np.frombuffer(body, dtype=np.uint8)
    for start in (0, 1):
        pairs = (data.size - start) // 2
        if pairs and np.any(data[start:start + 2 * pairs].view(np.uint16) == _MINUS_ZERO):
            return True
    return False


def _parse_body_lines(body: bytes, nvars: int, nclauses: int, name: str, first_line: int,
                      comments: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """The careful reader: line by line, naming the line of the first error."""
    lits: list[int] = []
    offsets = [0]
    open_line = None                    # line where the unfinished clause started
    line_no = first_line
    for line_no, raw in enumerate(split_lines(decode_utf8(body, name, first_line + 1)),
                                  first_line + 1):
        if "\r" in raw:
            reject_carriage_return(raw, name, line_no)
        line = raw.strip(BLANKS)
        if not line:
            continue
        if line.startswith("c"):
            comments.append(line[1:].strip())
            continue
        if line.startswith("%"):        # SATLIB end marker: the rest is not part of the formula
            break
        if line.startswith("p"):
            raise RaceError("a second preamble", source=name, line=line_no)
        for match in _TOKEN.finditer(raw):
            lit = _literal(match.group(), nvars, name, line_no, match.start() + 1)
            if lit == 0:
                offsets.append(len(lits))
                open_line = None
                if len(offsets) - 1 > nclauses:
                    raise RaceError(f"more clauses than the {nclauses} declared in the preamble",
                                    source=name, line=line_no)
                continue
            if open_line is None:
                open_line = line_no
            lits.append(lit)
    if open_line is not None:
        raise RaceError("the last clause is not terminated by 0", source=name, line=open_line)
    if len(offsets) - 1 != nclauses:
        raise RaceError(f"the preamble declares {nclauses} clauses, the file has "
                        f"{len(offsets) - 1}", source=name, line=line_no)
    return np.asarray(lits, dtype=np.int32), np.asarray(offsets, dtype=np.int64)


def _literal(token: str, nvars: int, name: str, line_no: int, column: int) -> int:
    if _SIGNED_ZERO.fullmatch(token):   # not a clause end: a malformed literal, named exactly
        raise RaceError(f"malformed literal {token[:20]!r}: a clause ends with a plain 0, "
                        f"which takes no sign", source=name, line=line_no, column=column)
    if not _LITERAL.fullmatch(token):
        raise RaceError(f"expected an integer literal (ASCII digits), got {token[:20]!r}",
                        source=name, line=line_no)
    lit = int(token)
    if abs(lit) > nvars:
        raise RaceError(f"literal {token} out of range: the preamble declares {nvars} "
                        f"variables", source=name, line=line_no)
    return lit


class _Formula(Protocol):
    """What :func:`write_formula` reads of a :class:`solvers.sat.sudoku_cnf.Formula`."""
    nvars: int
    blocks: list[np.ndarray]

    def header(self) -> list[str]: ...


def write_formula(target: str | Path | IO[bytes], formula: _Formula) -> int:
    """Write a :class:`solvers.sat.sudoku_cnf.Formula` with its comment header."""
    return write(target, formula.nvars, formula.blocks, formula.header())
