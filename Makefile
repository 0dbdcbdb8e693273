# Two commands on a fresh clone: `make run` (the main job) and `make test`.
# Both check the Python version first, then create the virtualenv .venv and
# install the pinned package into it; nothing is installed by hand.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test test-papers bench lint docs clean instances venv

ECMWF = instances/traces/ecmwf
SHIPPED = $(filter-out %.optimum.json instances/optima.json,$(wildcard instances/*.json))

# The Python version is checked first, in one line, for every goal but clean.
ifneq ($(filter-out clean,$(or $(MAKECMDGOALS),run)),)
ifneq ($(shell $(PYTHON) -c 'import sys; print(sys.version_info >= (3, 11))' 2>/dev/null),True)
$(error tapesched needs Python >= 3.11, and '$(PYTHON)' is $(or $(shell $(PYTHON) --version 2>/dev/null),not found): run make with PYTHON=python3.11 or newer)
endif
endif

# The virtualenv is made for one interpreter and one set of pins: its stamp
# records both (the interpreter's version and prefix, and a checksum of
# setup.cfg and pyproject.toml), written only once the install has succeeded.
# A virtualenv made by another interpreter, for other pins, or whose install
# failed half-way has no matching stamp and is rebuilt from scratch, never
# reused.
venv:
	@key="$$($(PYTHON) -c 'import platform, sys; print(platform.python_version(), sys.base_prefix)') $$(cat setup.cfg pyproject.toml | cksum)"; \
	if [ -x $(BIN)/python ] && [ -f $(STAMP) ] && [ "$$(cat $(STAMP))" = "$$key" ]; then exit 0; fi; \
	echo "building $(VENV) for $$($(PYTHON) --version 2>&1)"; \
	rm -rf $(VENV) && $(PYTHON) -m venv $(VENV) && \
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]' && \
	echo "$$key" > $(STAMP)

# The main job: the spec's example end to end (check, solve, verify, metrics),
# its hand-made optimum verified for comparison, the same example on serpentine
# LTO-7 drives solved by wspt and to its optimum by cpsat, then a freshly generated
# instance of the Golubchik (1994) library, solved and measured the same way;
# then the simulator: the spec's example run directly, the Ampex and Blue Waters
# scenarios (the Ampex run's realised schedule checked by the validator), and
# the ECMWF trace replayed on its SL8500 layout with 120 drives, each cartridge
# at home where the site's cartridge map beside the trace says. Last, one of the
# Blue Waters paper's experiments, quick (bw-fig6: small files, the three
# policies against the arrival rate), which prints where its figure is.
run: venv
	@mkdir -p out
	$(BIN)/tapesched check instances/spec-example.json
	$(BIN)/tapesched solve instances/spec-example.json --solver greedy --out out/spec-example.greedy.json
	$(BIN)/tapesched verify instances/spec-example.json out/spec-example.greedy.json
	$(BIN)/tapesched metrics instances/spec-example.json out/spec-example.greedy.json
	$(BIN)/tapesched verify instances/spec-example.json instances/spec-example.optimum.json
	$(BIN)/tapesched solve instances/spec-example-lto7.json --solver wspt --out out/spec-example-lto7.wspt.json
	$(BIN)/tapesched verify instances/spec-example-lto7.json out/spec-example-lto7.wspt.json
	$(BIN)/tapesched solve instances/spec-example-lto7.json --solver cpsat --time-limit 20 --out out/spec-example-lto7.cpsat.json
	$(BIN)/tapesched verify instances/spec-example-lto7.json out/spec-example-lto7.cpsat.json
	$(BIN)/tapesched generate golubchik --seed 1 --requests 200 --classes 1:1,2:2,3:4 --out out/golubchik-200.json
	$(BIN)/tapesched solve out/golubchik-200.json --solver greedy --out out/golubchik-200.greedy.json
	$(BIN)/tapesched verify out/golubchik-200.json out/golubchik-200.greedy.json
	$(BIN)/tapesched metrics out/golubchik-200.json out/golubchik-200.greedy.json
	$(BIN)/tapesched simulate instances/spec-example.json --scheduler fifo --out out/sim-spec-example
	$(BIN)/tapesched simulate instances/scenarios/ampex.json --out out/sim-ampex
	$(BIN)/tapesched verify out/sim-ampex/instance.json out/sim-ampex/schedule.json
	$(BIN)/tapesched simulate instances/scenarios/blue-waters.json --duration 1d --out out/sim-blue-waters
	$(BIN)/tapesched replay $(ECMWF)/io_events_sample_10k.csv.bz2 $(ECMWF)/sl8500_from_snap20111001.json.bz2 --drives 120
	$(BIN)/tapesched compare $(SHIPPED) --solvers greedy,fifo,wspt,stretch,tape-batching,sltf,backfill,fifo-dismount-at-once,local-search,cpsat,milp-cbc,milp-highs --time-limit 20
	$(BIN)/tapesched bound instances/random-300.json --windows 10 --time-limit 20
	$(BIN)/tapesched order instances/recall/lto7-files.json --algorithm sltf
	$(BIN)/tapesched experiment bw-fig5 --quick --out out/bw-fig5

# The generated instances that ship in instances/ (the same seeds give the same files).
instances: venv
	$(BIN)/tapesched generate golubchik --seed 1 --requests 300 --out instances/golubchik-ampex-300.json
	$(BIN)/tapesched generate golubchik --seed 2 --requests 200 --technology exabyte --classes 1:1,2:2,3:4 --rate 0.05/min --out instances/golubchik-exabyte-striped-200.json
	$(BIN)/tapesched generate random --seed 3 --requests 300 --drives 4:8 --arms 1:3 --max-gang 3 --tapes 60 --rate 120/h --out instances/random-300.json

# mypy resolves imports through folders, not through the editable install's
# mapping (tapesched.toolkit -> toolkit/): it checks a tree of links with the
# installed shape, made afresh each time (setup.cfg's [mypy] files).
TYPED := $(VENV)/typed
CODE := tapesched toolkit solvers simulator instances/__init__.py

lint: venv
	$(BIN)/ruff check $(CODE) tests benchmarks docs
	$(BIN)/ruff format --check $(CODE) tests benchmarks docs
	@rm -rf $(TYPED) && mkdir -p $(TYPED)/tapesched && \
	for f in toolkit solvers simulator instances $(filter-out %__pycache__,$(wildcard tapesched/*)); do \
	    ln -s "$(CURDIR)/$$f" $(TYPED)/tapesched/; done
	$(BIN)/mypy

# The documentation site, from docs/ (mkdocs.yml): --strict, so a broken link, a missing
# anchor or a page left out of the navigation fails; the command-line reference is generated
# from the commands. The site is written to .venv/site.
docs: venv
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# Two xdist workers. `make test` gives each half of the tests in order and lets the first
# done take the rest of the other's (--dist worksteal): the two end within seconds of each
# other (295 s against 352 s with whole files per worker, 2026-11-29, 2 idle cores), and a
# module's expensive fixture is made twice at most where the halves meet. `make test-papers`
# gives whole test files (--dist loadfile): its module fixtures are minutes of quick runs
# of a study, made once. (xdist's loadgroup would be finer, but under pytest 9 its
# xdist_group marks do not reach the scheduler: the group was split and the run made twice.)
# `make test` leaves out the tests marked `paper` (each reproduces a paper's ranking on an
# experiment's quick points: minutes of simulation); `make test-papers` runs them, and CI
# runs both.
# The tests start about 150 child interpreters (`tapesched` as a user runs it); each reuses
# the bytecode of our modules instead of compiling them again, whatever the environment says
# (an empty PYTHONDONTWRITEBYTECODE is an unset one): 0.3 s a child.
test test-papers: export PYTHONDONTWRITEBYTECODE =
# The strict site build is one of the tests (tests/docs/test_docs.py builds it once, and reads the
# pages it makes), so `make test` does not build it a second time.
# Tests marked `pool` start worker processes of their own (a sweep's pool, a Dask cluster,
# the study pages' quick runs): each target runs its own after the others, in one process,
# never inside an xdist worker (tests/conftest.py fails a pool started there).
test: lint
	$(BIN)/python -m pytest -n 2 --dist worksteal -m "not paper and not pool" tests
	$(BIN)/python -m pytest -m "pool and not paper" tests

test-papers: venv
	$(BIN)/python -m pytest -n 2 --dist loadfile -m "paper and not pool" tests
	$(BIN)/python -m pytest -m "paper and pool" tests

bench: venv
	$(BIN)/python benchmarks/validation.py
	$(BIN)/python benchmarks/exact.py
	$(BIN)/python benchmarks/heuristics.py
	$(BIN)/python benchmarks/yardstick.py
	$(BIN)/python benchmarks/bound_gap.py
	$(BIN)/python benchmarks/engine.py
	$(BIN)/python benchmarks/blue_waters.py
	$(BIN)/python benchmarks/sweep.py
	$(BIN)/python benchmarks/stripe_search.py
	$(BIN)/python benchmarks/recall_order.py
	$(BIN)/python benchmarks/replay.py
	$(BIN)/python benchmarks/scale.py

clean:
	rm -rf $(VENV) out .pytest_cache .mypy_cache .ruff_cache
