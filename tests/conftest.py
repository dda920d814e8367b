"""Shared test fixtures: valid full grids and puzzles made from them; whether a process runs."""

from __future__ import annotations

import numpy as np
import pytest

from formats.grid import Grid


def pytest_configure(config) -> None:
    """Ctrl-C as on a terminal: a suite started in the background (``make test &``, nohup)
    inherits SIGINT ignored, which every process it starts would inherit too, and the tests of
    what Ctrl-C does would test nothing. Python's own handler, as an interactive shell gives it."""
    import signal
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    _workers_without_the_test_name()


def _workers_without_the_test_name() -> None:
    """A worker's environment is the test process's but for ``PYTEST_CURRENT_TEST``, which
    pytest changes with every test: the races of successive tests then share their worker
    zygote, as successive races of one program do (experiments.harness.worker_zygote.take)."""
    from experiments.harness import executor, worker_process
    plain = worker_process.worker_env

    def worker_env() -> dict[str, str]:
        env = plain()
        env.pop("PYTEST_CURRENT_TEST", None)
        return env
    worker_process.worker_env = executor.worker_env = worker_env  # type: ignore[assignment]


#: the test files that take longest on 2 cores, longest first: they start first, so the workers
#: (pytest-xdist, a file per worker at a time) end together instead of one finishing a long file
#: alone at the end
LONGEST_FIRST = ("test_docs_examples.py", "test_records_faults.py", "test_hostile_audit.py",
                 "test_report.py", "test_campaign_report.py", "test_scale.py", "test_harness.py",
                 "test_referee.py", "test_race_families.py", "test_generators.py",
                 "test_html_report.py", "test_run_report.py", "test_noise.py", "test_parallel.py",
                 "test_fuzz_readers.py", "test_wheel_install.py", "test_rules.py")


@pytest.fixture(autouse=True)
def _close_figures():
    """Every pyplot figure a test left open is closed after it (a worker runs hundreds of tests:
    figures built and never saved would pile up for its whole life)."""
    yield
    import sys
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:
        pyplot.close("all")


def pytest_collection_modifyitems(session, config, items) -> None:
    """Run the files of :data:`LONGEST_FIRST` first, in that order (each file's tests keep
    their order; the rest keep theirs): every worker collects the same order."""
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(LONGEST_FIRST)))


def full_grid(n: int, rng: np.random.Generator) -> Grid:
    """A random valid solved grid: the pattern grid with rows and columns
    shuffled within bands/stacks, bands and stacks shuffled, and digits relabelled."""
    side = n * n
    i, j = np.indices((side, side))
    base = (i * n + i // n + j) % side + 1
    rows = np.concatenate([b * n + rng.permutation(n) for b in rng.permutation(n)])
    cols = np.concatenate([b * n + rng.permutation(n) for b in rng.permutation(n)])
    digits = np.concatenate([[0], rng.permutation(side) + 1])
    return Grid(n, digits[base[rows][:, cols]])


def puzzle_from(solution: Grid, blanks: float, rng: np.random.Generator) -> Grid:
    """``solution`` with a fraction ``blanks`` of its cells emptied at random."""
    cells = solution.cells.copy().ravel()
    drop = rng.choice(cells.size, size=int(round(blanks * cells.size)), replace=False)
    cells[drop] = 0
    return Grid(solution.n, cells.reshape(solution.cells.shape))


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(12345)


def process_alive(pid: int) -> bool:
    """True while ``pid`` runs: gone, or a zombie that nobody reaps (state Z or X in
    ``/proc/<pid>/stat``), counts as dead."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except FileNotFoundError:
        return False
