"""Reading an input file, or stdin for ``-``, with one-line errors.

Every reader in :mod:`formats` (grid text, DIMACS, exact cover, solver output)
takes its input through :func:`read_source`, so a missing file, a directory, a
file over the size limit or text that is not UTF-8 is reported the same way
everywhere: a :class:`RaceError` naming the path and what went wrong. Reads are
bounded (``/dev/zero`` ends in an error, not in a MemoryError) and UTF-8 is
decoded strictly; lines are counted on ``\\n`` only, as every reader does.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import BinaryIO, Literal, overload

from formats.errors import RaceError

#: default bound on the bytes of one input (grids, dlx files, solver output).
MAX_INPUT_BYTES = 256 << 20

#: the characters every reader treats as blanks inside a line (ASCII only, so
#: NEL, U+2028 and friends are never mistaken for separators).
BLANKS = " \t\r\f\v"


@overload
def read_source(source: str | Path, *, binary: Literal[False] = False,
                what: str = "an input file", limit: int = MAX_INPUT_BYTES) -> tuple[str, str]: ...
@overload
def read_source(source: str | Path, *, binary: Literal[True],
                what: str = "an input file", limit: int = MAX_INPUT_BYTES) -> tuple[bytes, str]: ...
def read_source(source: str | Path, *, binary: bool = False, what: str = "an input file",
                limit: int = MAX_INPUT_BYTES) -> tuple[str | bytes, str]:
    """The content of ``source`` (a path, or ``-`` for stdin) and a name for
    error messages. Text is decoded as strict UTF-8 unless ``binary``; more than
    ``limit`` bytes is an error naming the limit. ``what`` reads "a puzzle file"."""
    if str(source) == "-":
        if sys.stdin is None:                 # closed by the caller (<&-)
            raise RaceError(f"standard input is closed, expected {what}", source="<stdin>")
        data, name = _read_bounded(sys.stdin.buffer, "<stdin>", limit, what), "<stdin>"
    else:
        name = str(source)
        try:
            with open(source, "rb") as handle:
                data = _read_bounded(handle, name, limit, what)
        except FileNotFoundError:
            raise RaceError("no such file", source=name) from None
        except IsADirectoryError:
            raise RaceError(f"is a directory, expected {what}", source=name) from None
        except OSError as exc:
            raise RaceError(f"cannot read: {exc.strerror}", source=name) from None
    return (data if binary else decode_utf8(data, name)), name


def _read_bounded(handle: BinaryIO, name: str, limit: int, what: str) -> bytes:
    """At most ``limit`` bytes, read in chunks; a NUL byte (never in a text
    file, always early in /dev/zero or /dev/urandom) ends the read at once."""
    chunks: list[bytes] = []
    total = 0
    while True:
        chunk = handle.read(min(_CHUNK_BYTES, limit + 1 - total))
        if not chunk:
            break
        nul = chunk.find(b"\0")
        if nul >= 0:
            before = b"".join(chunks) + chunk[:nul]
            raise RaceError("not a text file: a NUL byte", source=name,
                            line=before.count(b"\n") + 1,
                            column=len(before) - before.rfind(b"\n"))
        chunks.append(chunk)
        total += len(chunk)
        if total > limit:
            raise RaceError(f"more than {limit} bytes (the limit for {what}); "
                            f"is it really {what}?", source=name)
    return b"".join(chunks)


_CHUNK_BYTES = 1 << 20


def decode_utf8(data: bytes, name: str, first_line: int = 1) -> str:
    """``data`` decoded as strict UTF-8; a RaceError naming the line and column
    (lines counted on ``\\n``, starting at ``first_line``) of the first bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        raise RaceError(f"not a text file: not UTF-8 (byte 0x{data[exc.start]:02x}: {exc.reason})",
                        source=name, line=first_line + data.count(b"\n", 0, exc.start),
                        column=exc.start - line_start + 1) from None


def split_lines(text: str) -> list[str]:
    """``text`` split on ``\\n`` only (``str.splitlines`` also splits on ``\\f``,
    ``\\v``, NEL, U+2028 and a bare ``\\r``, which would shift line numbers)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


#: what a carriage return left inside a line (after its blanks are stripped) means.
CR_INSIDE = ("a carriage return inside a line (lines that end in CR alone, as on old Macs?): "
             "end lines with LF or CRLF")


def reject_carriage_return(raw: str, name: str, line: int) -> None:
    """A :class:`RaceError` (file, line, column) when the line ``raw`` (split on ``\\n``)
    holds a CR that is not part of its trailing blanks: CRLF line ends pass, CR-only or
    mixed line ends would make one line of several (a comment or a status line swallowing
    the lines after it), so they are named, as the puzzle reader does."""
    stripped = raw.strip(BLANKS)
    if "\r" in stripped:
        lead = len(raw) - len(raw.lstrip(BLANKS))
        raise RaceError(CR_INSIDE, source=name, line=line,
                        column=lead + stripped.index("\r") + 1)
