# Two commands do all the set-up on a new machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test lint bench

$(BIN)/assay: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

demo: $(BIN)/assay
	$(BIN)/assay run worlds/shop --agent reference

lint: $(BIN)/assay
	$(BIN)/ruff check src tests worlds bench examples
	$(BIN)/ruff format --check src tests worlds bench examples

test: lint
	$(BIN)/pytest

bench: $(BIN)/assay
	$(BIN)/python bench/taskruns.py
	$(BIN)/python bench/agents.py
	$(BIN)/python bench/validate.py
	$(BIN)/python bench/records.py
	$(BIN)/python bench/postgres.py
	$(BIN)/python bench/api.py
