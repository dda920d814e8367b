"""Reading an input file, or stdin for ``-``, with one-line errors.

Every reader in :mod:`formats` (grid text, DIMACS, exact cover, solver output)
takes its text through :func:`read_source`, so a missing file, a directory or
a binary file is reported the same way everywhere: a :class:`RaceError` naming
the path and what went wrong.
"""

from __future__ import annotations

import sys
from pathlib import Path

from formats.errors import RaceError


def read_source(source: str | Path, *, binary: bool = False, what: str = "input file") -> tuple[str | bytes, str]:
    """The content of ``source`` (a path, or ``-`` for stdin) and a name for
    error messages. Text is decoded as UTF-8 unless ``binary``."""
    if str(source) == "-":
        return (sys.stdin.buffer.read() if binary else sys.stdin.read()), "<stdin>"
    path = Path(source)
    try:
        return (path.read_bytes() if binary else path.read_text(encoding="utf-8")), str(path)
    except FileNotFoundError:
        raise RaceError("no such file", source=str(path)) from None
    except IsADirectoryError:
        raise RaceError(f"is a directory, expected an {what}", source=str(path)) from None
    except UnicodeDecodeError as exc:
        raise RaceError(f"not a text file ({exc.reason})", source=str(path)) from None
    except OSError as exc:
        raise RaceError(f"cannot read: {exc.strerror}", source=str(path)) from None
