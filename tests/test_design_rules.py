"""Rules of the design that a test can hold: solvers declare what they can do
and no code outside solvers/ tests a solver's name; every default defined once; a solver's
own counters are kept."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from experiments.harness import config as harness_config
from experiments.harness import schema
from solvers import registry
from solvers.interface import RawAnswer, Solver
from solvers.status import Status

ROOT = Path(__file__).resolve().parent.parent
OUTSIDE_SOLVERS = ("formats", "generators", "experiments", "sudoku_race")


def sources(*packages: str):
    for package in packages:
        for path in sorted((ROOT / package).rglob("*.py")):
            yield path, ast.parse(path.read_text(encoding="utf-8"))


def test_no_solver_name_appears_in_a_condition_outside_solvers():
    # "auto" is also the word for "let the program choose" of --fill, --counter, --encoding
    names = set(registry.SOLVERS) - {"auto"}
    found = []
    for path, tree in sources(*OUTSIDE_SOLVERS):
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Compare, ast.If, ast.IfExp, ast.While)):
                continue
            for leaf in ast.walk(node):
                if isinstance(leaf, ast.Constant) and leaf.value in names \
                        and isinstance(node, ast.Compare):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)}")
    assert not found, "solver names tested outside solvers/ (declare a capability instead):\n" \
        + "\n".join(found)


def test_no_sat_backend_name_appears_in_a_condition_outside_solvers():
    """A SAT backend is asked what it can do (e.g. :func:`solvers.sat.backends.configurable`,
    which knows every name of CaDiCaL), never told apart by its name outside solvers/:
    ``backend == "cadical195"`` missed its other names (cd19, cd195, ...)."""
    from solvers.sat.backends import _pysat_names
    names = set(_pysat_names()) | {"kissat"}
    found = []
    for path, tree in sources(*OUTSIDE_SOLVERS):
        for node in ast.walk(tree):
            if isinstance(node, ast.Compare):
                found += [f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)}"
                          for leaf in ast.walk(node)
                          if isinstance(leaf, ast.Constant) and leaf.value in names]
    assert not found, "SAT backend names tested outside solvers/ (ask the backend instead):\n" \
        + "\n".join(found)


@pytest.mark.parametrize("name, configured", [("cadical195", True), ("cd19", True),
                                              ("cd195", True), ("glucose4", False),
                                              ("minisat22", False)])
def test_a_window_solver_configures_cadical_by_any_of_its_names(monkeypatch, name, configured):
    """The removal phase's window solver sets CaDiCaL's options when the backend can take
    them, whatever name it was given."""
    import numpy as np

    from generators import counting
    from solvers.sat import counting as sat_counting
    from solvers.sat.backends import configurable
    calls = []
    real = sat_counting.pysat_solver

    class Recording:
        def __init__(self, solver):
            self.solver = solver

        def configure(self, options):
            calls.append(options)
            return self.solver.configure(options)

        def __getattr__(self, attribute):
            return getattr(self.solver, attribute)
    monkeypatch.setattr(sat_counting, "pysat_solver", lambda *a, **k: Recording(real(*a, **k)))
    cells = np.zeros((4, 4), dtype=np.int32)
    cells[0] = [1, 2, 3, 4]
    window = counting.WindowSAT(2, cells, np.array([0, 1]), backend=name)
    window.solver.delete()
    assert configurable(name) is configured
    assert calls == ([counting.WINDOW_OPTIONS] if configured else [])


def test_each_builtin_solver_declares_its_counters_phases_and_partner():
    for name in registry.SOLVERS:
        cls = registry.BUILTIN.solver_class(name)
        assert (cls.counters or cls.picks) and cls.phases, name
        if cls.partner:
            assert cls.partner in registry.SOLVERS
    dlx, sat = (registry.BUILTIN.solver_class(n) for n in ("dlx", "sat"))
    assert (dlx.partner, sat.partner) == ("sat", "dlx")
    assert dlx.batch_capable({}) and not dlx.batch_capable({"heuristic": "first"})
    assert not sat.batch_capable({})
    assert sat.interpreted(12, 1, None) and not sat.interpreted(13, 1, None)
    assert sat.interpreted(5, 1, None, {"encoding": "extended"})
    assert not sat.interpreted(6, 1, None, {"encoding": "extended"})
    assert dlx.interpreted(3, 1, 1) and not dlx.interpreted(3, 1, 2)


@pytest.mark.parametrize("attribute, value", [("counters", "nodes"), ("phases", ("x", 1)),
                                              ("partner", None)])
def test_a_bad_declaration_is_an_error_when_the_class_is_defined(attribute, value):
    with pytest.raises(TypeError, match=attribute):
        type("Bad", (Solver,), {"name": "bad", attribute: value})


def test_counters_and_phases_beyond_the_schema_are_kept_in_extra():
    class Rich(Solver):
        name = "rich"
        counters = ("nodes", "restarts")

    from experiments.harness.entrants import Entrant
    from experiments.harness.scheduling import Cell
    entrant = Entrant("rich", "rich", "x:Rich", {}, {})
    from experiments.harness.messages import Measurement
    from experiments.harness.rows import make_row
    row = make_row("c", 0, 1.0, entrant, Cell("rich", 2, "i", 0, None, "unique"),
                   Measurement(Status.SOLVED, verified=True, wall_s=0.1,
                               counters={"nodes": 3, "restarts": 2},
                               times={"search": 0.1, "tune": 0.01}))
    assert row.nodes == 3 and row.t_search == 0.1
    assert json.loads(row.extra or "") == {"restarts": 2, "t_tune": 0.01}
    assert RawAnswer(0).counters == {}


def test_the_defaults_of_a_campaign_are_defined_once():
    from experiments.cli import landscape, run
    from experiments.harness.config import DEFAULTS, LANDSCAPE_DEFAULTS, Config
    options = {o.name: o.default for o in run.run.params}
    assert options["instances"] == DEFAULTS["instances"] and options["family_labels"] == DEFAULTS["families"]
    assert options["timeout"] == DEFAULTS["timeout_s"] and options["n_text"] == DEFAULTS["n"]
    config = Config(n_values=[2], entrants=[])
    assert (config.instances, config.family_labels, config.timeout_s, config.memory_mb) == (
        DEFAULTS["instances"], DEFAULTS["families"], DEFAULTS["timeout_s"], DEFAULTS["memory_mb"])
    assert [f.label for f in config.families] == DEFAULTS["families"].split(",")
    landscape_options = {o.name: o.default for o in landscape.landscape.params}
    assert landscape_options["holes_text"] == LANDSCAPE_DEFAULTS["holes"]
    assert landscape_options["instances"] == LANDSCAPE_DEFAULTS["instances"]


def test_the_resume_command_is_built_in_one_place():
    spots = [f"{path.relative_to(ROOT)}" for path, tree in sources("experiments")
             for node in ast.walk(tree)
             if isinstance(node, ast.List) and len(node.elts) >= 2
             and all(isinstance(e, ast.Constant) for e in node.elts[:2])
             and [e.value for e in node.elts[:2]] in (["race", "run"], ["race", "landscape"])]
    assert spots == ["experiments/harness/config.py", "experiments/harness/config.py"]
    assert harness_config.resume_command.__module__ == "experiments.harness.config"


#: the layers, lowest first: a module may import from its own layer and the ones before it
LAYERS = ("formats", "solvers", "generators", "experiments", "sudoku_race")


def import_graph() -> dict[str, set[str]]:
    """Module -> the project modules it imports (anywhere in it: top level, inside functions,
    under TYPE_CHECKING)."""
    modules = {}
    for path, tree in sources(*LAYERS):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        modules[name] = tree
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, tree in modules.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            else:
                continue
            graph[name] |= {t for t in targets if t in modules and t != name}
    return graph


def test_no_import_goes_up_a_layer():
    rank = {layer: k for k, layer in enumerate(LAYERS)}
    up = [f"{m} -> {t}" for m, targets in import_graph().items() for t in targets
          if rank[t.split(".")[0]] > rank[m.split(".")[0]]]
    assert not up, ("imports against the layering (formats <- solvers <- generators <- "
                    "experiments <- sudoku_race):\n" + "\n".join(sorted(up)))


#: solvers/ by method: a method's package imports no other method's
METHODS_OF_SOLVERS = ("solvers.exact_cover", "solvers.sat", "solvers.bitsets")


def test_the_method_packages_of_solvers_stand_apart():
    """solvers/ holds one subpackage per method (exact cover, SAT, bit sets) and one for the
    processes: a method's modules import no other method's package, and solvers.processes
    imports none of them (what several methods share is in solvers/, solvers.rules or
    solvers.processes)."""
    def package(module: str) -> str | None:
        return next((p for p in (*METHODS_OF_SOLVERS, "solvers.processes")
                     if module == p or module.startswith(p + ".")), None)
    for name in (*METHODS_OF_SOLVERS, "solvers.processes"):
        assert (ROOT / name.replace(".", "/") / "__init__.py").is_file(), name
    crossing = [f"{m} -> {t}" for m, targets in import_graph().items() for t in targets
                if package(m) and package(t) and package(m) != package(t)
                and package(t) != "solvers.processes"]
    assert not crossing, "\n".join(sorted(crossing))
    flat = sorted(p.name for p in (ROOT / "solvers").glob("*.py"))
    assert len(flat) <= 16, flat                      # the rest lives in the subpackages


#: the calls that start, kill or reap a process, or fork a pool
_PROCESS_CALLS = {("os", "fork"), ("os", "kill"), ("os", "killpg"), ("os", "wait4"),
                  ("os", "waitpid"), ("os", "setsid"), ("multiprocessing", "get_context")}


def test_processes_are_started_killed_and_reaped_in_solvers_processes():
    """os.fork, kill, killpg, wait4, waitpid, setsid, a multiprocessing context and a process
    pool are used in solvers/processes/ only (control.py; tree.py reads the tree and adopts
    orphans): the harness, parallel's members, cmd:, the generators' pools, the report's
    writer and the CLI's time limit all go through solvers.processes.control."""
    found = []
    for path, tree in sources(*LAYERS):
        if path.parent == ROOT / "solvers" / "processes":
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                    and (node.value.id, node.attr) in _PROCESS_CALLS:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.value.id}.{node.attr}")
            if isinstance(node, ast.Name) and node.id == "ProcessPoolExecutor":
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} ProcessPoolExecutor")
    assert not found, found


def test_no_import_circle():
    graph = import_graph()
    circles, index, low, stack, on_stack = [], {}, {}, [], set()

    def visit(v: str) -> None:                      # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for module in graph:
        if module not in index:
            visit(module)
    assert not circles, f"import circles: {circles}"


def test_kind_names_only_a_generator_in_the_campaign_code():
    """One word per idea: in experiments/ and solvers/, ``kind`` is a
    generator kind; a campaign's instance set is a *family*, a trace's step has an
    *action*, an animation's board a *problem*. No runs.csv column, table column, meta key,
    attribute or field says ``kind`` for anything else (the old runs.csv and meta.json
    names are read in one place: experiments/harness/identity.py)."""
    generator_kind = {   # these subscripts read a generator kind, rightly
        ROOT / "experiments/harness/instances.py",        # manifest.csv rows
        ROOT / "experiments/report/instance_grids.py",    # a puzzle file's name
        ROOT / "experiments/harness/identity.py",         # the old runs.csv column, upgraded
    }
    generator_fields = {ROOT / "experiments/harness/instance_families.py",   # Family.kind
                        ROOT / "experiments/harness/instances.py"}          # Instance.kind
    found = []
    for path, tree in sources("experiments", "solvers"):
        for node in ast.walk(tree):
            if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) \
                    and node.slice.value == "kind" and path not in generator_kind:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
            if isinstance(node, ast.Attribute) and node.attr in ("kinds", "kind_text"):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
        for node in ast.walk(tree):           # a field named kind holds a generator kind only
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) \
                    and node.target.id == "kind" and path not in generator_fields:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} (field kind)")
    assert not found, found
    assert "kind" not in schema.COLUMNS and "family" in schema.COLUMNS
    assert "kind" not in harness_config.DEFAULTS


def test_the_status_words_are_spelled_once():
    """One vocabulary of statuses: solvers.status.Status. The names solvers.interface and the
    confirmer export (SOLVED, UNSAT, ...) are its words, and no other module binds a name to a
    status word spelled out (``SOLVED = "solved"``)."""
    from experiments.harness import confirmer
    from solvers import interface
    from solvers.status import Status
    assert schema.Status is Status
    for module in (interface, confirmer):
        for name in ("SOLVED", "UNSAT", "UNKNOWN", "WRONG"):
            assert getattr(module, name) == Status[name].value, f"{module.__name__}.{name}"
    words = {s.value for s in Status}
    spelled = []
    for path, tree in sources(*LAYERS):
        if path == ROOT / "solvers" / "status.py":
            continue
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
                continue
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            values = [v for v in ast.walk(node.value) if isinstance(v, ast.Constant)]
            if names & set(Status.__members__) and any(v.value in words for v in values):
                spelled.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)}")
    assert not spelled, "status words spelled outside solvers/status.py:\n" + "\n".join(spelled)
