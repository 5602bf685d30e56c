# The two commands: `make run` and `make test`. Everything they need is installed here.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint typecheck pytest bench arenas clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

## run: start the UHP engine on stdin/stdout (until the server exists)
run: $(STAMP)
	@echo "Hive Arena UHP engine: type UHP commands (info, newgame, play, validmoves, ...); Ctrl-D quits."
	$(BIN)/hive-engine

## test: install everything the tests need, then lint, type-check and run the whole suite
test: lint typecheck pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP)
	$(BIN)/pytest

## bench: print the engine's and the bots' speed figures
bench: $(STAMP)
	$(BIN)/python -m bench.perft
	$(BIN)/python -m bench.ai

## arenas: the bots' strength and variety figures (slow: about 2.5 hours on two cores)
arenas: $(STAMP)
	bench/arenas.sh

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
