# Every target bootstraps its own .venv (python3 -m venv + pip install -e '.[test]').
VENV   := .venv
PY     := $(VENV)/bin/python
RACE   := $(VENV)/bin/race
STAMP  := $(VENV)/.installed

.PHONY: race test bench docs clean

# setup.py builds the C kernels (solvers/*_native.c) into the editable install: a new or edited
# kernel installs again; then the numba kernels are compiled once into numba's cache
# (experiments/cli/warm_up.py), so no race and no test starts by compiling them, and the
# project's modules into bytecode (where PYTHONDONTWRITEBYTECODE is set, every process would
# compile them again)
PACKAGES := formats solvers generators experiments sudoku_race
$(STAMP): pyproject.toml setup.py $(wildcard solvers/*_native.c)
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -e '.[test]'
	$(PY) -m experiments.cli.warm_up
	$(PY) -m compileall -q $(PACKAGES) > /dev/null
	touch $(STAMP)

## race: the main job
race: $(STAMP)
	$(RACE) run --n 2..5

## test: the lint (ruff), the type check (mypy), then the whole test suite on 3 workers
## (pytest-xdist, each test file on one worker; one more worker than this 2-core machine's cores,
## since many tests spend their time waiting on a timeout or a killed process), with Python's
## bytecode cache on (the suite starts many Python processes: each would compile the
## modules it imports again); installs LaTeX, poppler, cadical, minisat first when root and missing
test: $(STAMP)
	bash .ci/system-deps
	$(PY) -m ruff check .
	$(PY) -m mypy
	$(PY) -m compileall -q $(PACKAGES) tests > /dev/null
	PYTHONDONTWRITEBYTECODE= $(PY) -m pytest -n 3 --dist loadfile

## bench: performance benchmarks (ratios against baselines measured in the same run); runs them
## all, lists every target at the end and fails if any target was missed
bench: $(STAMP)
	bash .ci/system-deps --bench
	$(PY) -m pip install -q --disable-pip-version-check -e '.[test,bench]'
	$(PY) tests/bench/run.py

## report: the paper (figures, tables and report/report.pdf) from the committed reference campaign (with the
## frontier campaigns: hard puzzles at n = 6, and at n = 7 once results/reference-hard-n7 exists),
## and the interactive, offline report/report.html (with the reference landscape and the same frontier)
FRONTIER := --frontier results/reference-hard-n6 \
            $(if $(wildcard results/reference-hard-n7/runs.csv),--frontier results/reference-hard-n7)
.PHONY: report
report: $(STAMP)
	$(RACE) report results/reference-n2-10 --report-dir report --paper $(FRONTIER)
	$(RACE) report results/reference-n2-10 --html -o report/report.html --landscape results/reference-landscape $(FRONTIER)

## docs: the documentation site (MkDocs, docs/ + mkdocs.yml) built into site/, strict: a broken
## link or a page missing from the nav fails the build
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs build --strict --site-dir site

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache site
