"""The ``race`` executable's entry point: the plain forms of ``race cover``, and of ``race solve`` /
``race count`` with the bit-set entrant on a file, start without click.

Importing click costs about 20 ms of a ``race cover --count`` that otherwise takes about 30 ms
on a small problem (whole process), and on a 2-core split of a search of a few tenths of a
second that fixed cost is what keeps ``-j 2`` from halving the wall time. So ``race cover``
with nothing but a file (or ``-`` for stdin), ``--count``, ``--stats`` and ``-j N`` /
``--jobs N`` (N in 1..1024) runs the same search and prints the same lines as the click
command (:mod:`experiments.cli.cover_search` serves both), with the same one-line errors
(:mod:`experiments.cli.streams`). Anything else, a repeated or an unknown option, ``--help``,
a bad value, goes to the click group (:mod:`experiments.cli.main`), which says what is wrong.

``race solve --solver bitset FILE`` and ``race count --solver bitset [--limit K] FILE`` start the
same way: :func:`experiments.cli.array_answers.answer_file` answers a one-line file of 9x9
puzzles with whole arrays, as the click commands do for it; any other file goes to the click group.
"""

from __future__ import annotations

import sys

#: the flags the plain form takes, and the options that take a number of threads
_FLAGS = ("--count", "--stats")
_JOBS = ("-j", "--jobs")


def race() -> None:
    """Run the race command line (``sys.argv``)."""
    plain = plain_cover(sys.argv[1:])
    if plain is not None:
        _cover(*plain)
        return
    answer = plain_answer(sys.argv[1:])
    if answer is None or not _answered(*answer):
        from experiments.cli.main import main
        main()


def plain_answer(args: list[str]) -> tuple[str, str, str, int | None] | None:
    """(command, source, spec, limit) when ``args`` are ``solve`` or ``count`` with a file
    (not ``-``), ``--solver``/``-s`` one of the specs of the 9x9 batch path
    (:data:`solvers.bitsets.batch.SPECS`) and, for ``count``, at most
    ``--limit``/``-l`` K (K >= 1), each once; else None (the click group serves them)."""
    if not args or args[0] not in ("solve", "count"):
        return None
    command, source, spec, limit = args[0], None, None, None
    rest = iter(args[1:])
    for arg in rest:
        if arg in ("-s", "--solver") and spec is None:
            spec = next(rest, None)
        elif arg.startswith("--solver=") and spec is None:
            spec = arg[len("--solver="):]
        elif arg in ("-l", "--limit") and command == "count" and limit is None:
            value = next(rest, "")
            if not (value.isascii() and value.isdigit() and int(value) >= 1):
                return None
            limit = int(value)
        elif not arg.startswith("-") and source is None:
            source = arg
        else:
            return None
    if source is None or spec is None:
        return None
    from solvers.bitsets.batch import SPECS
    if spec not in SPECS:
        return None
    return command, source, spec, limit if command == "count" else 1


def _answered(command: str, source: str, spec: str, limit: int | None) -> bool:
    """Answer the plain ``race solve`` / ``race count`` through
    :func:`experiments.cli.array_answers.answer_file` and end the process; False (nothing
    written) when that path does not serve the file."""
    def answer() -> None:
        from experiments.cli.array_answers import answer_file
        code = answer_file(command, source, spec, limit)
        if code is None:
            raise _NotServed
        sys.exit(code)
    try:
        _plainly(answer)
    except _NotServed:
        return False
    return True


class _NotServed(Exception):
    """The plain path does not serve this command line: the click group does."""


def plain_cover(args: list[str]) -> tuple[str, bool, bool, int] | None:
    """(source, count only, stats, jobs) when ``args`` are a plain ``cover`` command line
    (module docstring), else None."""
    from experiments.cli import cover_search
    from experiments.cli.integer_text import parse_integer
    if not args or args[0] != "cover":
        return None
    source, flags, jobs = None, set(), None
    rest = iter(args[1:])
    for arg in rest:
        value = None
        if arg in _FLAGS and arg not in flags:
            flags.add(arg)
            continue
        if arg in _JOBS:
            value = next(rest, None)
        elif arg.startswith("--jobs="):
            value = arg[len("--jobs="):]
        elif arg.startswith("-j") and not arg.startswith("--"):
            value = arg[2:]
        elif (arg == "-" or not arg.startswith("-")) and source is None:
            source = arg
            continue
        else:
            return None
        number = None if value is None else parse_integer(value)     # as click's option
        if jobs is not None or number is None or not 1 <= number <= cover_search.MAX_JOBS:
            return None
        jobs = number
    if source is None:
        return None
    return source, "--count" in flags, "--stats" in flags, jobs or 1


def _cover(source: str, count_only: bool, stats: bool, jobs: int) -> None:
    """``race cover SOURCE`` with those options, errors and exit as the click group's."""
    def cover() -> None:
        from experiments.cli import cover_search
        problem = cover_search.read_problem(source)
        cover_search.check_search_options(problem, "mrv", count_only, jobs)
        cover_search.count_and_report(problem, count_only, None, "mrv", stats, jobs)
    _plainly(cover)


def _plainly(command) -> None:
    """Run ``command()`` with the errors, interrupts and exit of the click group, then end
    the process (a :class:`_NotServed` raised before anything is written passes through)."""
    from experiments.cli import numba_cache, streams
    from formats.compiled import ctrl_c_stops_kernels
    from formats.errors import RaceError, is_interrupt

    streams.closed_streams()
    numba_cache.configure()             # as the click group: before numba is imported
    code: str | int | None = 0
    try:
        ctrl_c_stops_kernels()          # Ctrl-C stops a long compiled search too
        try:
            command()
        except _NotServed:
            raise
        except RaceError as exc:
            streams.fail(str(exc))
        except BrokenPipeError:
            streams.silence_stdout()
        except OSError as exc:          # a write failed: /dev/full, ENOSPC, EIO, ...
            streams.write_failed(exc)
        except Exception as exc:
            if not is_interrupt(exc):
                raise
            _interrupted()
        except KeyboardInterrupt:
            _interrupted()
    except SystemExit as exc:
        code = exc.code
    finally:
        ctrl_c_stops_kernels(False)
    streams.flush_stdout()
    streams.end_now(code)


def _interrupted() -> None:
    """Ctrl-C: ``race: interrupted``, 130 as a shell would say, with what was written flushed."""
    import contextlib
    import os

    from experiments.cli import streams
    with contextlib.suppress(Exception):
        streams.echo("race: interrupted", err=True)
    streams.flush_stdout()
    with contextlib.suppress(Exception):
        sys.stderr.flush()
    os._exit(130)
