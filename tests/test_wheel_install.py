"""The package as a user outside this repository gets it: ``python -m build`` makes the sdist
and, from it, the wheel; ``twine check`` passes them; the wheel, installed into a fresh virtual
environment outside the repository, runs ``race --version``, ``race cover`` with the compiled
kernel, ``race solve``, a 2-cell ``race run`` and ``race report --html``, with the outputs of
the development install.

The fresh environment has no packages of its own but the wheel; its dependencies come from this
environment's site-packages through a ``.pth`` file (a line naming a folder adds that folder, and
no ``.pth`` file in it is read: the development install's link to the repository is not), so the
test does not download, and the repository's sources are never on its path (it runs elsewhere,
and checks where ``solvers`` is imported from)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from importlib.metadata import version
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PUZZLE = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......\n"

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None,
                                 reason="no C compiler to build the kernels")]


def _run(command: list[str], cwd: Path, env: dict[str, str] | None = None,
         timeout: float = 900) -> subprocess.CompletedProcess:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, (command, done.stdout[-2000:], done.stderr[-2000:])
    return done


@pytest.fixture(scope="module")
def fresh(tmp_path_factory) -> tuple[Path, dict[str, str], Path]:
    """(the fresh environment's bin folder, its environment variables, a work folder)."""
    where = tmp_path_factory.mktemp("wheel")
    dist = where / "dist"
    # the sdist from a copy of the committed tree (no build output of the checkout in it)
    source = where / "source"
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                           check=True).stdout.decode().split("\0")
    for name in filter(None, files):
        if (ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    # --no-isolation: the build backend of this environment (the test extra's setuptools), not
    # one downloaded into two throw-away environments
    _run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(source)],
         cwd=where)
    wheels, sdists = list(dist.glob("*.whl")), list(dist.glob("*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1
    _run([sys.executable, "-m", "twine", "check", "--strict", *map(str, wheels + sdists)],
         cwd=where)
    venv = where / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=where)
    _run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install",
          "--no-deps", "--no-index", "-q", str(wheels[0])], cwd=where)
    site = next(venv.glob("lib/python*/site-packages"))
    (site / "project_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    work = where / "work"
    work.mkdir()
    return venv / "bin", env, work


def test_the_wheel_holds_every_kernel_built_and_no_c_source(fresh):
    bin_, env, work = fresh
    wheel = next(work.parent.glob("dist/*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    kernels = sorted(p.stem for p in (ROOT / "solvers").glob("*_native.c"))
    built = sorted(n.split("/")[-1].split(".")[0] for n in names
                   if n.startswith("solvers/_native/") and n.endswith(".so"))
    assert built == kernels
    assert not [n for n in names if n.endswith(".c")]
    sdist = next(work.parent.glob("dist/*.tar.gz"))
    import tarfile
    members = tarfile.open(sdist).getnames()
    assert all(any(m.endswith(f"solvers/{k}.c") for m in members) for k in kernels)


def test_the_installed_wheel_imports_from_the_fresh_environment(fresh):
    bin_, env, work = fresh
    where = _run([str(bin_ / "python"), "-c", "import solvers, experiments; "
                  "print(solvers.__file__); print(experiments.__file__)"], cwd=work, env=env)
    for line in where.stdout.split():
        assert line.startswith(str(bin_.parent)) and not line.startswith(str(ROOT))


def test_race_version_comes_from_the_package_metadata(fresh):
    bin_, env, work = fresh
    done = _run([str(bin_ / "race"), "--version"], cwd=work, env=env)
    assert done.stdout.strip() == f"race, version {version('sudoku-race')}"


def test_race_cover_searches_with_the_compiled_kernel(fresh):
    bin_, env, work = fresh
    queens = _run([str(bin_ / "race"), "example", "queens", "8"], cwd=work, env=env).stdout
    (work / "q8.dlx").write_text(queens)
    done = _run([str(bin_ / "race"), "cover", "q8.dlx", "--count", "--stats"], cwd=work, env=env)
    here = _run([sys.executable, "-c", "from experiments.cli.entry import race; import sys; "
                 "sys.argv = ['race', 'cover', 'q8.dlx', '--count', '--stats']; race()"],
                cwd=work)
    assert done.stdout == here.stdout == "92\n"
    assert done.stderr.strip().endswith(", C kernel)"), done.stderr
    assert done.stderr.split("(")[0] == here.stderr.split("(")[0]


def test_race_solve_answers_a_9x9_as_the_development_install(fresh):
    bin_, env, work = fresh
    (work / "p.txt").write_text(PUZZLE)
    done = _run([str(bin_ / "race"), "solve", "-s", "dlx", "p.txt"], cwd=work, env=env)
    here = _run([sys.executable, "-c", "from experiments.cli.main import main; "
                 "main(['solve', '-s', 'dlx', 'p.txt'])"], cwd=work)
    assert done.stdout == here.stdout and len(done.stdout.strip()) == 81


def test_a_two_cell_race_run_and_its_html_report(fresh):
    bin_, env, work = fresh
    """Two entrants on one imported 9x9 (a fresh install compiles its numba kernels at their
    first use: these entrants need the fewest)."""
    (work / "one.txt").write_text(PUZZLE)
    _run([str(bin_ / "race"), "run", "--instances", "one.txt", "--solvers", "sat,cpsat",
          "--jobs", "1", "--no-pin", "--no-report", "--out", "campaigns"], cwd=work, env=env)
    (campaign,) = [p.parent for p in (work / "campaigns").glob("*/runs.csv")]
    rows = (campaign / "runs.csv").read_text().strip().splitlines()
    assert len(rows) == 3 and all(",solved," in row for row in rows[1:])
    meta = json.loads((campaign / "meta.json").read_text())
    assert meta["packages"]["sudoku-race"] == version("sudoku-race")
    _run([str(bin_ / "race"), "report", str(campaign), "--html", "-o", "report.html"],
         cwd=work, env=env)
    assert (work / "report.html").stat().st_size > 10_000
