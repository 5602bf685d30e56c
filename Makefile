# The two commands: `make run` and `make test`. Everything they need is installed here.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

CLIENT_DEPS := client/node_modules/.package-lock.json
CHROMIUM := /usr/bin/chromium

.PHONY: run engine test lint typecheck pytest schema bench arenas clean system-tools lock

# The Python packages exactly as locked (requirements-dev.lock: the dependencies with the
# extras embedded and test, every version pinned and every file's hash checked), then the
# project itself, in place, with no other dependency. The Dockerfile installs
# requirements.lock (no extra) the same way.
LOCKS := requirements.lock requirements-dev.lock
$(STAMP): pyproject.toml setup.py $(LOCKS)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet --require-hashes -r requirements-dev.lock
	touch $(STAMP)

# The project in place (-e), its rules and search compiled with mypyc (setup.py; the mypy and
# setuptools of the lock, hence no build isolation), again whenever a compiled module changes:
# the compiled .so files lie beside the sources and would otherwise run stale code. Without a
# C compiler it is the pure build; either way one line says which. The log: .venv/build.log.
BUILD := $(VENV)/.built
COMPILED := $(wildcard hive/*.py) ai/book.py ai/bots.py ai/evaluation.py ai/proof.py \
	ai/search.py ai/symmetry.py ai/table.py ai/trace.py
$(BUILD): $(STAMP) $(COMPILED)
	$(BIN)/pip install --verbose --no-build-isolation --no-deps -e . > $(VENV)/build.log 2>&1 \
		|| { cat $(VENV)/build.log; exit 1; }
	@sed -n 's/^ *\(hive-arena: .*\)/\1/p' $(VENV)/build.log
	touch $(BUILD)

# lock: write the lock files again from pyproject.toml, with uv: the versions already locked
# stay unless pyproject.toml excludes them (`make lock UPGRADE=--upgrade`: the newest allowed).
# Resolved for Python 3.11 on every platform (the image's python:3.11, arm64 too), with the
# hashes of every file of each version.
UV := uv==0.13.9
# requirements-build.lock: the build's tools (the dependency group build: mypy, setuptools),
# at the versions of requirements-dev.lock, for the Dockerfile's build stage.
COMPILE = $(BIN)/uv pip compile --quiet --universal --python-version 3.11 \
	--generate-hashes --custom-compile-command 'make lock' $(UPGRADE)
lock: $(STAMP)
	$(BIN)/pip install --quiet '$(UV)'
	$(COMPILE) pyproject.toml -o requirements.lock
	$(COMPILE) pyproject.toml --extra embedded --extra test --constraint requirements.lock \
		-o requirements-dev.lock
	$(COMPILE) --group build --constraint requirements-dev.lock -o requirements-build.lock

# The web client's npm packages (@msgpack/msgpack, uplot), again whenever the lockfile changes.
$(CLIENT_DEPS): client/package-lock.json
	@command -v npm >/dev/null || { echo "the web client needs npm (Debian: apt-get install npm)" >&2; exit 1; }
	cd client && npm ci --no-audit --no-fund
	touch $(CLIENT_DEPS)

# The system tools the tests drive, from Debian: chromium (the browser tests; Playwright's own
# browser download cannot be used), haproxy and docker-compose (tests/server/test_topology.py;
# only its `config` command runs, so without the Docker engine it recommends), prometheus (with
# its promtool: tests/server/test_monitoring.py scrapes running servers with it), postgresql
# (the storage tests start a PostgreSQL server of their own from its initdb and postgres, in
# a temporary folder on a free port: tests/server/postgres.py). Only the missing ones are
# installed, as root or through passwordless sudo; downloads are retried.
APT := env DEBIAN_FRONTEND=noninteractive apt-get -o Acquire::Retries=5 -qq
system-tools:
	@missing=; \
	[ -x $(CHROMIUM) ] || missing="$$missing chromium"; \
	command -v haproxy >/dev/null || [ -x /usr/sbin/haproxy ] || missing="$$missing haproxy"; \
	{ command -v prometheus && command -v promtool; } >/dev/null || missing="$$missing prometheus"; \
	ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing="$$missing postgresql"; \
	compose=; command -v docker-compose >/dev/null || compose=docker-compose; \
	if [ -n "$$missing$$compose" ]; then \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; \
	  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then SUDO=sudo; \
	  else echo "make test needs Debian's$$missing $$compose and cannot install it (not root," \
	    "no sudo): run 'sudo apt-get install$$missing $$compose'" >&2; exit 1; fi; \
	  echo "installing Debian's$$missing $$compose for the tests"; \
	  { $$SUDO $(APT) update \
	    && { [ -z "$$missing" ] || $$SUDO $(APT) install -y $$missing; } \
	    && { [ -z "$$compose" ] || $$SUDO $(APT) install -y --no-install-recommends $$compose; }; } \
	    || { echo "apt-get could not install$$missing $$compose, which the tests need" >&2; exit 1; }; \
	fi

## run: start the server on its embedded defaults (Redis under ./data); it prints the URL to open
run: $(BUILD) $(CLIENT_DEPS)
	$(BIN)/hive-server

## engine: the UHP engine on stdin/stdout, to play the bots in a terminal or a UHP viewer
engine: $(BUILD)
	@echo "Hive Arena UHP engine: type UHP commands (info, newgame, play, validmoves, ...); Ctrl-D quits."
	$(BIN)/hive-engine

## test: install everything the tests need, then lint, type-check and run the whole suite
test: lint typecheck pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

# Every test on the build installed (compiled when a C compiler was there), then the tests of
# the compiled modules again on the pure build (the .py sources, the compiled .so files
# ignored): the rules' and those of ai/'s compiled modules (PURE_TESTS), but for the deepest
# searches (marked deep: they would take minutes uncompiled). The commands, the analysis and
# the pool around them are Python in either build: their tests run once.
# pytest-xdist runs them in one worker process more than the cores (at most 4; WORKERS=0: in
# this one): many tests wait on servers, timeouts and the browser, and the extra worker fills
# those waits (2 cores: 395 s of pytest instead of 433 s, docs/load.md). Every test starts
# its own servers on free ports, so they run side by side.
WORKERS ?= $(shell n=$$(nproc); echo $$(( n + 1 < 4 ? n + 1 : 4 )))
PYTEST := $(BIN)/pytest -n $(WORKERS) --dist worksteal
PURE_TESTS := tests/hive tests/test_build.py $(addprefix tests/ai/test_,$(addsuffix .py,\
	book bots evaluation forced_wins puzzles search search_mutations table trace arena))
pytest: $(BUILD) $(CLIENT_DEPS) system-tools
	$(PYTEST)
	$(PYTEST) --pure -m 'not deep' $(PURE_TESTS)

## schema: write the JSON Schema of every message (from protocol/) to docs/protocol.schema.json
schema: $(BUILD)
	$(BIN)/python -m protocol.schema > docs/protocol.schema.json

## bench: print the engine's and the bots' speed figures
bench: $(BUILD)
	$(BIN)/python -m bench.perft
	$(BIN)/python -m bench.ai

## arenas: the bots' strength and variety figures (slow: about 2.5 hours on two cores)
arenas: $(BUILD)
	bench/arenas.sh

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build
	find hive ai -name '*.so' -delete
	rm -f ./*__mypyc.*.so
