# Two commands on a fresh clone: `make run` (the main job) and `make test`.
# Both create the virtualenv .venv when it is missing and install the pinned
# package into it; nothing is installed by hand.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test bench lint clean

$(STAMP): setup.cfg pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	@mkdir -p out
	$(BIN)/tapesched check instances/spec-example.json
	$(BIN)/tapesched solve instances/spec-example.json --solver greedy --out out/spec-example.greedy.json
	$(BIN)/tapesched verify instances/spec-example.json out/spec-example.greedy.json
	$(BIN)/tapesched metrics instances/spec-example.json out/spec-example.greedy.json
	$(BIN)/tapesched generate golubchik --seed 1 --requests 200 --out out/golubchik-200.json
	$(BIN)/tapesched solve out/golubchik-200.json --solver greedy --out out/golubchik-200.greedy.json
	$(BIN)/tapesched verify out/golubchik-200.json out/golubchik-200.greedy.json
	$(BIN)/tapesched metrics out/golubchik-200.json out/golubchik-200.greedy.json

lint: $(STAMP)
	$(BIN)/ruff check toolkit solvers simulator tests benchmarks
	$(BIN)/mypy

test: lint
	$(BIN)/python -m pytest -n 2 tests

bench: $(STAMP)
	$(BIN)/python benchmarks/validation.py

clean:
	rm -rf $(VENV) out .pytest_cache .mypy_cache .ruff_cache
