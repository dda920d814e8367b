"""``race run``: the horse race (Task 20), a campaign of entrants x n x instances x repeats."""

from __future__ import annotations

import os
import shlex
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import click

from experiments.cli import params
from experiments.cli.dataset import InstancesParam, instance_set_settings
from experiments.cli.generate import family_options
from experiments.cli.invocation import current_registry
from experiments.cli.run_report import report_lines, write_report
from experiments.harness.campaign import run_campaign
from experiments.harness.config import (
    DEFAULTS,
    Config,
    Invocation,
    default_name,
    parse_n,
)
from experiments.harness.entrants import DEFAULT_ENTRANTS, parse_entrants
from experiments.harness.instance_families import HARD, Family, parse_families
from experiments.harness.rows import Row
from experiments.harness.schema import Status
from formats.errors import RaceError

if TYPE_CHECKING:
    from experiments.cli.time_left import TimeLeft
    from experiments.harness.cells import Prepared


@click.command("run")
@click.option("--n", "n_text", default=DEFAULTS["n"], show_default=True,
              help="Box sizes: N, A..B or a list such as 2,4,6.")
@click.option("--solvers", default=",".join(DEFAULT_ENTRANTS), show_default=True,
              help="Entrant specs, comma-separated: NAME or NAME:key=value,... (see `race solvers`).")
@click.option("--instances", type=InstancesParam(), default=DEFAULTS["instances"],
              show_default=True, help="Generated instances per family and n, or the PATH of your "
              "puzzles: a directory of puzzle files, a one-puzzle-a-line file, numeric grids, or "
              "an instance set from `race import`.")
@click.option("--family", "--kind", "family_labels", default=DEFAULTS["families"],
              show_default=True,
              help="Instance families, comma-separated: the kinds of `race generate` and "
                   "hard (balanced holes at the hardness peak of each n). --kind is its "
                   "older name.")
@family_options
@click.option("--peaks", "peaks_path", default=None, metavar="FILE",
              help="Peak table the hard family reads (one `race landscape --peaks` wrote) "
                   "[default: the committed generators/hardness_peaks.csv]; meta.json records "
                   "it, and a resume must name the same table.")
@click.option("--seed", type=params.Integer(min=0), default=DEFAULTS["seed"], show_default=True,
              help="Seed of the instance set.")
@click.option("--timeout", "-t", type=params.SECONDS,
              default=DEFAULTS["timeout_s"], show_default=True, help="Wall-time limit per cell (s).")
@click.option("--memory", type=params.MEGABYTES, default=DEFAULTS["memory_mb"],
              show_default=True, help="Memory limit per cell (MB of resident memory; 0 = none).")
@click.option("--repeats", type=params.Integer(min=1), default=DEFAULTS["repeats"],
              show_default=True, help="Measurements per entrant and instance.")
@click.option("--jobs", "-j", type=params.Integer(min=1), default=None,
              help="Parallel workers [default: the CPU count; dask: the cluster's threads].")
@click.option("--out", "-o", default="results", show_default=True, type=click.Path(file_okay=False),
              help="Results directory (campaigns and the instance cache).")
@click.option("--executor", type=click.Choice(["local", "dask"]), default="local",
              show_default=True, help="Where cells run.")
@click.option("--scheduler", default=None, help="Dask scheduler address (with --executor dask).")
@click.option("--campaign", "name", default=None,
              help="Campaign name [default: derived from n, families, seed and limits].")
@click.option("--order", type=click.Choice(["random", "fixed"]), default="random", show_default=True,
              help="Order of the cells within each family and n: seeded random across entrants, "
                   "instances and repeats (drift spreads over every entrant), or entrant by entrant.")
@click.option("--pin/--no-pin", default=True, show_default=True,
              help="Pin each worker to a core of its own (hyperthread siblings apart); only when "
                   "the workers fit on distinct cores.")
@click.option("--no-report", is_flag=True,
              help="Do not write the figures and the HTML report at the end (race plot and "
                   "race report write them later).")
@click.option("--progress/--no-progress", default=None,
              help="Show the cells going by on stderr: a bar on a terminal, else a line every "
                   "30 s or 10% of the cells [default: on].")
@click.option("--quiet", "-q", is_flag=True, help="The same as --no-progress.")
@params.code_change_options
def run(n_text: str, solvers: str, instances: int, family_labels: str, seed: int, timeout: float,
        memory: float, repeats: int, jobs: int | None, out: str, executor: str,
        scheduler: str | None, name: str | None, order: str = "random", pin: bool = True,
        no_report: bool = False, progress: bool | None = None, quiet: bool = False,
        mixed: bool = False, rerun: tuple[str, ...] = (), peaks_path: str | None = None,
        **options_given: str | None) -> None:
    """Race the entrants on generated instances for each box size n and record
    every measurement in OUT/CAMPAIGN/runs.csv (+ meta.json); then draw the
    campaign's figures (OUT/CAMPAIGN/plots/*.png: time, solved and work vs n,
    cactus, SAT phases, head to head) and its offline HTML report
    (OUT/CAMPAIGN/report.html), and name them with the commands to run next
    (--no-report: neither).

    \b
    Each cell (entrant x family x n x instance x repeat) runs in a warm worker
    process that is killed past --timeout or --memory (status timeout /
    memout); a crash is status error; every answer is verified (a wrong one is
    status wrong), and a "no solution" is confirmed by a second method whatever
    the instance file says (a file whose record a verified grid or that method
    contradicts is named in a warning). Re-running the same command resumes:
    recorded cells are not run again (Ctrl-C keeps everything finished and says
    where; a resumed run with nothing left to run redraws the figures); damaged
    rows of runs.csv, and rows not of this campaign, are moved to
    runs.damaged.csv and their cells re-run. One `race run` at a time writes
    a campaign. Exit status 1 when an entrant could not start (its
    cells are left for the resume), 2 on errors (a full disk; figures that
    fail to render: one line each, every row kept), 130 if interrupted.

    \b
    Families (--family, default unique,hard): unique is the assignment's
    Algorithm 2; hard is balanced holes at the hardness peak of each n, read
    from the committed table generators/hardness_peaks.csv (written by `race
    landscape`; an n not in it takes the nearest measured n's peak, the smaller
    n on a tie), or from the table --peaks FILE names (one `race landscape
    --peaks FILE` wrote; meta.json and the resume command record it, and a
    resume with another table is refused). --holes/--pattern/--base go to the
    families that take them. --instances PATH races your own puzzles instead
    (one family, named after the set).

    \b
    Entrants that run several searches at once (parallel:members=A+B, one
    core per member) hold that many workers' cores per cell (at most --jobs):
    nothing else runs on them meanwhile; their wall time is what the summary's
    medians compare, and runs.csv's cpu_s sums all members (column cores says
    how many). An entrant that needs an optional package not installed here
    (cpsat: OR-Tools) is left out with a note saying what to install.

    \b
    Skip rule: once an entrant's median at some n of a family is censored
    (half or more of its cells there unanswered), its larger n of that family
    are recorded as skipped: never raced, shown as skipped (no time), and
    counted as unsolved in solved and PAR-2.

    \b
    Stopwatch: each worker is pinned to a core of its own (--no-pin: not);
    cells of a family and n run in a seeded random order (--order fixed:
    entrant by entrant); meta.json records the machine's load, frequency and
    other processes' CPU and a calibration (DLX 10 queens, CaDiCaL on a
    pigeonhole formula) at the start and the end; the summary warns when the
    machine was busy, the calibration drifted > 5% or repeats vary > 10%.

    \b
    Defaults (make race = race run --n 2..5): 5 entrants x 2 families x n=2..5
    x 20 instances, 10 s per cell (how long that takes: docs/performance.md).

    \b
    Example:
      race run --n 2..5                          # the default race (make race)
      race run --n 3..4 --family unique,minimal,hard --instances 10
      race run --n 3 --solvers dlx,sat:backend=glucose4 --instances 20
      race run --n 2,4 --timeout 5 --repeats 3 --jobs 1
      race run --n 2..4 --executor dask --scheduler tcp://10.0.0.1:8786
      race run --n 3 --family holes --holes 0.55 --pattern balanced
      race run --n 3..5 --family hard --peaks my-peaks.csv
      race run --n 3..4 --repeats 3 --order fixed --no-pin
      race run --n 5 --family hard --solvers \\
        'cpsat,parallel:members=sat:config=sat+kissat:config=sat\\,seed=1'
    """
    if executor == "dask" and not scheduler:
        raise RaceError("--executor dask needs --scheduler ADDRESS (e.g. tcp://host:8786)")
    if executor == "local" and scheduler:
        raise RaceError("--scheduler is only used with --executor dask")
    n_values = parse_n(n_text)
    peaks = _peaks(peaks_path)
    instance_set, source = None, instances
    if isinstance(instances, Path):
        n_given = click.get_current_context().get_parameter_source("n_text").name != "DEFAULT"
        instance_set, n_values, instances, label, default = instance_set_settings(
            source, Path(out), n_values, n_given)
        name = name or default
        families, options = [Family(label, label)], {}
    else:
        families, options = resolve_families(family_labels, options_given, peaks)
    if peaks is not None and not any(f.label == HARD for f in families):
        raise RaceError(f"--peaks: only the {HARD} family reads a peak table (--family "
                        f"{','.join(f.label for f in families)})")
    family_labels = ",".join(f.label for f in families)
    entrants = parse_entrants(solvers, current_registry(), on_unavailable=_left_out)
    memory_mb = memory or None
    name = name or default_name(n_values, family_labels, seed, instances, timeout, memory_mb, DEFAULTS,
                                options)
    if not name or "/" in name or name.startswith(".") or name != name.strip():
        raise RaceError(f"--campaign {name!r}: expected a plain directory name")
    if not name.isprintable():        # its rows would carry it escaped: never the campaign's
        raise RaceError(f"--campaign {name!r}: a character that is not printable (such as a "
                        "no-break space); type the name with plain characters")
    argv = sys.argv
    local_jobs = jobs or os.cpu_count() or 1
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    if executor == "local" and jobs and jobs > usable:
        click.echo(f"race: warning: -j {jobs} is more than the {usable} core(s) this process may "
                   "use: workers will share cores, and their times will be inflated", err=True)
    for entrant in entrants:
        if executor == "local" and entrant.cores > local_jobs:
            click.echo(f"race: note: {entrant.spec} runs {entrant.cores} searches at once but "
                       f"--jobs is {local_jobs}: its cells hold {local_jobs} core(s), which its "
                       f"members share", err=True)
    config = Config(n_values=n_values, entrants=entrants, family_labels=family_labels, seed=seed,
                    instances=instances, repeats=repeats, timeout_s=timeout,
                    memory_mb=memory_mb, jobs=local_jobs if executor == "local" else (jobs or 0),
                    executor=executor, scheduler=scheduler, out=Path(out), campaign=name,
                    generator_options=options, families=families, instance_set=instance_set,
                    order=order, pin=pin, peaks=peaks,
                    asked=Invocation(" ".join(shlex.quote(a) for a in ["race", *argv[1:]])
                                     if argv and Path(argv[0]).name == "race" else "",
                                     n_text, solvers, jobs))
    from experiments.harness.code_change import settle
    for line in settle(config, mixed, rerun):
        click.echo(line, err=True)
    race(config, report=not no_report, progress=False if quiet else progress)


def _peaks(text: str | None) -> Path | None:
    """The ``--peaks`` table as an absolute path (None when not given); RaceError naming it
    when it is not a file (what is in it is read by the hard family)."""
    if text is None:
        return None
    path = Path(text).expanduser().resolve()
    if not path.is_file():
        raise RaceError(f"--peaks: no such file{' (a directory)' if path.is_dir() else ''}",
                        source=text)
    return path


def _left_out(spec: str, why: str) -> None:
    """Say that an entrant that cannot run here (an optional dependency missing) is left out."""
    click.echo(f"race: note: {spec} is left out of this race: {why}", err=True)


def _time_left(prepared: Prepared) -> TimeLeft:
    """The estimate of the time left of ``prepared``'s run (:mod:`experiments.cli.time_left`),
    its clock started now, with the campaign's earlier rows of the entrants and families that
    have cells left."""
    from experiments.cli.time_left import TimeLeft, recorded_rows
    config = prepared.config
    groups = [(cell.entrant, cell.family, cell.n) for cell in prepared.pending]
    earlier = recorded_rows(config.runs_path, {(e, f) for e, f, _ in groups}) \
        if prepared.recorded else []
    return TimeLeft(groups, config.jobs or 1, config.timeout_s, time.perf_counter(), earlier)


def _has_rows(path: Path) -> bool:
    """Whether ``path`` holds a row below its header (a resumed run set damaged rows aside)."""
    try:
        with open(path, "rb") as f:
            return bool(f.readline()) and bool(f.readline().strip())
    except OSError:
        return False


def race(config: Config, summarize=None, report: bool | None = None,
         progress: bool | None = None) -> None:
    """Run the campaign ``config`` (:func:`experiments.harness.campaign.run_campaign`) with a
    progress bar, then print the summary (``summarize(campaign) -> str``, by default
    :func:`experiments.analysis.summary.family_summaries`), the warnings and where the results
    are. ``report`` (``race run``): True writes the figures and the HTML report first
    (:func:`write_report`), False does not; either way the last lines name them and the
    commands to run next (None, ``race landscape``: no such lines). Exits 130 when
    interrupted (the rows are named, no figure is drawn), 1 when an entrant could not
    start, 2 when a figure or the page could not be written. ``progress`` False: no progress
    on stderr (:func:`experiments.cli.run_progress.progress`)."""
    from experiments.analysis import censored_stats, noise, summary
    from experiments.cli import run_progress, time_left
    bar = None
    left: time_left.TimeLeft | None = None

    def on_start(prepared: Prepared) -> None:
        nonlocal bar, left
        done = len(prepared.cells) - len(prepared.pending)
        if config.instance_set is not None:      # an imported set: its own count per n
            sizes = "; ".join(f"n={n}: {len(v)}" for n, v in sorted(config.instance_set.by_n.items())
                              if n in config.n_values)
            puzzles = f"the set's instances ({sizes})"
        else:
            puzzles = f"n={','.join(map(str, config.n_values))} x {config.instances} instances"
        click.echo(f"campaign {config.campaign}: {len(prepared.cells)} cells "
                   f"({len(config.entrants)} entrants x {_families_text(config)} x "
                   f"{puzzles} x {config.repeats} repeats), {done} already recorded, "
                   f"{len(prepared.pending)} to run, limit {config.timeout_s:g} s"
                   + (f" / {config.memory_mb:g} MB" if config.memory_mb else ""), err=True)
        bar = run_progress.progress(len(prepared.pending), progress)
        if bar.total:
            left = _time_left(prepared)

    def on_row(row: Row) -> None:
        if bar is None:                 # rows come after on_start
            return
        bar.update(row)
        if left is not None:
            now = time.perf_counter()
            left.add(row, now)
            line = left.line(now)
            if line:
                bar.write(line)

    try:
        done = run_campaign(config, on_row=on_row, on_start=on_start, progress=True)
    finally:
        if bar is not None:
            bar.close()
    directory = config.directory
    if done.prepared is None:
        if (directory / "runs.csv").is_file():
            click.echo(f"results: {directory / 'runs.csv'} (as before this run)")
        click.echo("interrupted while preparing instances (finished ones are cached); "
                   f"re-run the same command to resume:\n  {done.resume}", err=True)
        sys.exit(130)
    campaign = None
    if _has_rows(directory / "runs.csv"):
        click.echo("summarising the campaign ...", err=True)
        campaign = censored_stats.load(directory, table=done.table)     # read once: again only if changed
        per_instance = censored_stats.instance_times(campaign.runs)      # for both, made once
        click.echo(summarize(campaign) if summarize else
                   summary.family_summaries(campaign, per_instance))
        for warning in noise.warnings(campaign, per_instance=per_instance):
            click.echo(warning, err=True)
    stats = done.stats
    if stats is not None and stats.ran + stats.skipped and stats.seconds > 0:
        ran = stats.ran + stats.skipped
        click.echo(f"raced {ran} cell(s) in {stats.seconds:.1f} s ({ran / stats.seconds:.0f} "
                   "cells/s, from the first cell sent to the last row written)", err=True)
    for entrant, (count, why) in (stats.not_started if stats else {}).items():
        click.echo(f"race: warning: {entrant} did not start ({why}); its {count} cell(s) are not "
                   f"recorded: re-run the same command to retry them: {done.resume}", err=True)
    for warning in (stats.wrong_records.values() if stats else ()):
        click.echo(f"{warning} (the referee column of its rows says so)", err=True)
    if stats is not None and stats.statuses.get(Status.WRONG):
        click.echo(f"!!! {stats.statuses[Status.WRONG]} WRONG ANSWER(S) in this run !!!", err=True)
    written: list[Path] = []
    failed: list[str] = []
    if report and campaign is not None and not done.interrupted:
        try:
            written, failed = write_report(directory)
        except KeyboardInterrupt:
            click.echo(f"results: {directory / 'runs.csv'} and {directory / 'meta.json'}")
            click.echo("interrupted while drawing the figures: every cell is recorded; "
                       f"race plot {shlex.quote(str(directory))} draws them", err=True)
            sys.exit(130)
    click.echo(f"results: {directory / 'runs.csv'} and {directory / 'meta.json'}")
    if campaign is not None and report is not None:
        why_none = "interrupted" if done.interrupted else "failed" if failed else "--no-report"
        for line in report_lines(campaign, written, why_none):
            click.echo(line)
    if done.interrupted:
        click.echo("interrupted: finished cells are recorded; re-run the same command to resume:\n"
                   f"  {done.resume}", err=True)
    for why in failed:
        click.echo(f"race: error: {why} (the rows are kept in {directory / 'runs.csv'})", err=True)
    if done.exit_code:
        sys.exit(done.exit_code)
    if failed:
        sys.exit(2)


def resolve_families(family_labels: str, options_given: dict[str, str | None],
                     peaks: Path | None = None) -> tuple[list[Family], dict[str, object]]:
    """The families of ``--family`` with the family options given on the command line
    (``options_given``: the parameters of :func:`experiments.cli.generate.family_options`, None
    when not given; ``holes_text`` is ``--holes``), and those options in canonical form
    (for the campaign name and meta.json). Any option the decorator adds (e.g. a fill)
    reaches the families whose generator takes it."""
    given = {("holes" if key == "holes_text" else key): value
             for key, value in options_given.items() if value is not None}
    families = parse_families(family_labels, given, peaks)
    canonical: dict[str, object] = {}
    for each in families:
        canonical.update(each.options)
    return families, {k: v for k, v in canonical.items() if k in given}


def _families_text(config: Config) -> str:
    families = config.families
    if len(families) == 1:
        return f"family {families[0].label}"
    return f"{len(families)} families ({', '.join(f.key for f in families[:4])}" \
        + (", ..." if len(families) > 4 else "") + ")"


COMMANDS: list = [run]
