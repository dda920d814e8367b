"""The race process's standard streams: one-line errors (``race: error: ...``, exit 2), a
closed stream, a failed write, a quick end. Without click, so the start path of
:mod:`experiments.cli.entry` needs none of it; :mod:`experiments.cli.main` uses the same."""

from __future__ import annotations

import os
import sys

from formats.errors import printable


def echo(text: str, err: bool = False) -> None:
    """Write ``text`` and a newline on stdout (stderr with ``err``) and flush: what click.echo
    does with the plain text race prints."""
    stream = sys.stderr if err else sys.stdout
    stream.write(text + "\n")
    stream.flush()


def end_now(code: str | int | None) -> None:
    """End the race process with ``code`` (an int, None or a message, as sys.exit takes it)
    once the exit handlers ran and both streams are flushed, without the interpreter's
    teardown of every module."""
    import atexit
    if code is not None and not isinstance(code, int):
        echo(str(code), err=True)
        code = 1
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        sys.exit(code or 0)             # a write failed: the usual exit says so
    os._exit(code or 0)


def fail(message: str, code: int = 2) -> None:
    """Print ``message`` as one line, ``race: error: ...``, on stderr and exit ``code``."""
    try:
        echo(f"race: error: {printable(' '.join(message.split()))}", err=True)
    except (OSError, ValueError, AttributeError):    # stderr full or closed: the code tells
        silence(sys.stderr)
    sys.exit(code)


def closed_streams() -> None:
    """A standard stream closed by the caller (``2>&-``, ``>&-``): Python sees None. With no
    stderr, errors are dropped (the exit code still tells); with no stdout, the answer has
    nowhere to go: a one-line error on stderr, exit 2. (A closed stdin is the readers'
    concern, when ``-`` is read: formats.source.)"""
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")   # noqa: SIM115 - for the process's life
    if sys.stdout is None:
        sys.stdout = open(os.devnull, "w", encoding="utf-8")   # noqa: SIM115 - for the process's life
        fail("standard output is closed: nowhere to write the answer")


def silence(stream) -> None:
    """Point ``stream``'s descriptor at /dev/null so the interpreter's final flush cannot
    fail again (not a real file, as in the tests, or closed: nothing to do)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


def write_failed(exc: OSError) -> None:
    silence_stdout()
    where = printable(str(exc.filename)) if exc.filename else "the output"
    fail(f"cannot write {where}: {exc.strerror or exc}")


def flush_stdout() -> None:
    """Flush stdout now, so a failed write becomes a one-line error and not a
    message from the interpreter at exit."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        silence_stdout()
    except OSError as exc:
        write_failed(exc)


def silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail again."""
    silence(sys.stdout)
