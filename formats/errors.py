"""The one exception type for errors a user can cause.

Malformed files, impossible sizes, unknown solvers, missing binaries: every such
problem raises :class:`RaceError` with a message that says *what* is wrong and
*where* (file, line, column when known). The CLI prints ``str(error)`` on one
line and exits with status 2; it never shows a traceback for user error.
"""

from __future__ import annotations


class RaceError(Exception):
    """A user-facing error: one line, naming the place and what was expected."""

    def __init__(self, message: str, *, source: str | None = None,
                 line: int | None = None, column: int | None = None) -> None:
        self.message = message
        self.source = source
        self.line = line
        self.column = column
        super().__init__(self.__str__())

    def __str__(self) -> str:
        where = []
        if self.source is not None:
            where.append(printable(str(self.source)))
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.column is not None:
            where.append(f"column {self.column}")
        text = printable(" ".join(self.message.split()))  # always one line
        return f"{', '.join(where)}: {text}" if where else text


def printable(text: str) -> str:
    """``text`` with every non-printable character (newline, NUL, a lone
    surrogate from an undecodable file name, ...) written as an escape, so a
    message naming it stays on one line and can always be printed."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() or ch == " " else ascii(ch)[1:-1] for ch in text)


def is_interrupt(exc: BaseException) -> bool:
    """Is ``exc`` a Ctrl-C? KeyboardInterrupt, or PySAT's report of a SIGINT its C solvers
    caught themselves (``pysolvers.error("Caught keyboard interrupt")``, an Exception): never
    a solver's failure nor a user error, it stops the command (``race: interrupted``, 130)."""
    return isinstance(exc, KeyboardInterrupt) or (
        type(exc).__module__ == "pysolvers" and "keyboard interrupt" in str(exc).lower())


def write_reason(exc: OSError) -> str:
    """Why a write failed, in words: a file where a directory is needed is named as such
    (mkdir says only "File exists")."""
    if isinstance(exc, FileExistsError) and exc.filename:
        return f"{printable(str(exc.filename))} exists and is not a directory"
    return exc.strerror or str(exc)
