"""The ``race`` executable's entry point: the plain forms of ``race cover`` start without click.

Importing click costs about 20 ms of a ``race cover --count`` that otherwise takes about 30 ms
on a small problem (whole process), and on a 2-core split of a search of a few tenths of a
second that fixed cost is what keeps ``-j 2`` from halving the wall time. So ``race cover``
with nothing but a file (or ``-`` for stdin), ``--count``, ``--stats`` and ``-j N`` /
``--jobs N`` (N in 1..1024) runs the same search and prints the same lines as the click
command (:mod:`experiments.cli.cover_search` serves both), with the same one-line errors
(:mod:`experiments.cli.streams`). Anything else, a repeated or an unknown option, ``--help``,
a bad value, goes to the click group (:mod:`experiments.cli.main`), which says what is wrong.
"""

from __future__ import annotations

import sys

#: the flags the plain form takes, and the options that take a number of threads
_FLAGS = ("--count", "--stats")
_JOBS = ("-j", "--jobs")


def race() -> None:
    """Run the race command line (``sys.argv``)."""
    plain = plain_cover(sys.argv[1:])
    if plain is None:
        from experiments.cli.main import main
        main()
    else:
        _cover(*plain)


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
    from experiments.cli import cover_search, numba_cache, streams
    from formats.compiled import ctrl_c_stops_kernels
    from formats.errors import RaceError, is_interrupt

    streams.closed_streams()
    numba_cache.configure()             # as the click group: before numba is imported
    code = 0
    try:
        ctrl_c_stops_kernels()          # Ctrl-C stops a long compiled search too
        try:
            problem = cover_search.read_problem(source)
            cover_search.check_search_options(problem, "mrv", count_only, jobs)
            cover_search.count_and_report(problem, count_only, None, "mrv", stats, jobs)
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
