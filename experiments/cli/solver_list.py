"""``race solvers``: the entrants (built-in and plugins) and their parameters."""

from __future__ import annotations

import click


def parameter_text(cls, fixed: dict[str, str]) -> str:
    """``key=default [choice|choice], ...`` of a solver class; fixed keys show their value."""
    return ", ".join(
        f"{k}={fixed.get(k, d)}" + (f" [{'|'.join(map(str, c))}]" if c and k not in fixed else "")
        for k, (d, c) in cls.parameters.items())


@click.command("solvers")
def list_solvers() -> None:
    """List the registered solvers (built-in and installed plugins) and their
    parameters, then where each SAT program (kissat, cadical, minisat) is, where it
    came from and its version. An entrant spec is NAME or NAME:key=value,...

    \b
    Examples:
      race solvers
      race solve -s dlx:heuristic=first puzzle.sudoku
      race solve -s sat:backend=glucose4,encoding=extended puzzle.sudoku
    \b
    Any program as an entrant (`cmd`, run without a shell, under limits):
      race solve -s 'cmd:path=./my_solver,args=--quiet {input},timeout=10' \\
          puzzle.sudoku
      race run --n 2,3 --solvers 'dlx,cmd:path=./my_solver,input=stdin'
    The program reads the puzzle (a file path, or stdin with input=stdin; native
    or one-line format with format=oneline) and prints the solved grid or
    "no solution"; its path, sha256 and --version go into the campaign's
    meta.json.

    \b
    Constraint programming (cpsat, OR-Tools CP-SAT) is an optional extra:
      pip install 'sudoku-race[cp]'
      race solve -s cpsat:model=int,workers=2,seed=7 puzzle.sudoku
    \b
    Several entrants at once, one per core (the first verified answer wins;
    members separated by '+', a member's own parameters by '\\,'):
      race solve -s 'parallel:members=sat:config=sat+kissat' puzzle.sudoku
      race run --n 5 --family hard --solvers 'sat,parallel:members=sat+sat:seed=1'

    \b
    Plugins: a package adds entrants through the entry-point group
    sudoku_race.solvers, e.g. in its pyproject.toml:
      [project.entry-points."sudoku_race.solvers"]
      mysolver = "my_package.solver:MySolver"
    """
    from experiments.cli.invocation import current_registry
    from formats.errors import RaceError
    registry = current_registry()
    for name in registry.names():
        _, fixed = registry.entry(name)
        origin = f" [plugin from {registry.plugins[name]}]" if name in registry.plugins else ""
        try:
            cls = registry.solver_class(name)
        except RaceError as exc:
            click.echo(f"{name:14s} (unavailable: {exc}){origin}")
            continue
        why = cls.unavailable()
        if why:
            doc = ((cls.__doc__ or "").strip().splitlines() or [""])[0]
            click.echo(f"{name:14s} (unavailable: {why}) {doc}{origin}")
            continue
        params = parameter_text(cls, fixed)
        doc = ((cls.__doc__ or "").strip().splitlines() or [""])[0]
        alias = f" (= {cls.name}:" + ",".join(f"{k}={v}" for k, v in fixed.items()) + ")" if fixed else ""
        click.echo(f"{name:14s} {doc}{alias}{origin}")
        if params:
            click.echo(f"{'':14s}   parameters: {params}")
    from solvers.sat.binaries import PROGRAMS, locate
    click.echo("\nSAT programs (sat:backend=NAME, race sat-solve --backend NAME):")
    for program in PROGRAMS:
        click.echo(f"  {locate(program).line()}")


COMMANDS: list = [list_solvers]
