# Three Thirteen service: `make help` lists the targets.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
RUNTIME := $(VENV)/.runtime-installed
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000
export HOST PORT

.PHONY: help install native run test lint format typecheck bench arena ladder soak tournament-soak openapi all clean
# One target at a time: `all` formats before it lints, and the mypyc runs share build/.
.NOTPARALLEL:

help: ## list the targets
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F ':.*## ' '{printf "  make %-10s %s\n", $$1, $$2}'

# What serving needs (the project's dependencies), then the dev tools on top of it: `make run` on
# a fresh clone installs only the first.
$(RUNTIME): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "pip>=25.1"
	$(BIN)/python -m pip install --quiet -e .
	touch $(RUNTIME)

$(STAMP): $(RUNTIME)
	$(BIN)/python -m pip install --quiet -e . --group dev
	touch $(STAMP)

# The hot modules compiled by mypyc (part of mypy): the same typed source as C extensions, which
# Python imports in place of the .py files. The analyser's package and the game's go-out checks
# and meld layout (engine/game/melding.py) are one group (deploy/build_native.py): one runtime
# library, engine/native__mypyc, and calls between the modules bind natively. The group is
# rebuilt whenever any engine source changes; the tests refuse a stale one.
# Without them (`make clean`, a plain `pip install`) the pure modules run.
EXT_SUFFIX := $(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
ENGINE_GROUP := engine.native
ENGINE_MODULES := $(sort $(wildcard engine/analysis/*.py)) engine/game/melding.py
ENGINE_NATIVE := $(patsubst %.py,%$(EXT_SUFFIX),$(ENGINE_MODULES))
NATIVE := $(ENGINE_NATIVE)
ENGINE_SOURCES := $(shell find engine -name '*.py')

# The engine's group in one mypyc run (a grouped target: one recipe makes every extension).
$(ENGINE_NATIVE) &: $(ENGINE_SOURCES) deploy/build_native.py $(STAMP)
	mkdir -p build
	$(BIN)/python deploy/build_native.py $(ENGINE_GROUP) $(ENGINE_MODULES) > build/mypyc.log 2>&1 \
		|| { cat build/mypyc.log; exit 1; }
	touch $(ENGINE_NATIVE)

install: $(NATIVE) ## create .venv with the project and its dev tools; compile the hot modules

native: $(NATIVE) ## compile the hot modules with mypyc (every target that runs code does)

# Serving needs no dev tool: on a fresh clone `make run` installs the runtime dependencies only and
# serves the engine's pure-Python modules. Where the dev tools are installed (`make install`,
# `make test`), it compiles the hot modules first, as every other target does, so a compiled
# module is never older than its source.
run: $(RUNTIME) ## serve on $HOST:$PORT (default 127.0.0.1:8000); REDIS_URL selects Redis
	@if [ -e $(STAMP) ]; then $(MAKE) --no-print-directory native; fi
	$(BIN)/python -m service

# Four workers on two cores: many tests wait on the servers, Redis, browsers and subprocesses they
# start, and a worker waiting leaves its core to another (6 min 41 s against 7 min 18 s with two).
test: $(NATIVE) ## run the test suite
	$(BIN)/pytest -q -n 4 --dist loadgroup

format: $(STAMP) ## format the code in place
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix --quiet .

lint: $(STAMP) ## ruff: style and lint checks; import-linter: the floors of the house
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/lint-imports

typecheck: $(STAMP) ## mypy --strict
	$(BIN)/mypy

bench: $(NATIVE) ## benchmarks (tables of figures; not part of `make test`)
	$(BIN)/python -m tests.benchmarks

# Each level against the one below, head to head over rotated duplicate deals, two and four
# players; expert against hard under the other presets too. Decisions are pure functions of the
# seat's information and the seed, so these print the figures docs/performance.md quotes. About
# 45 minutes on a quiet 2-core machine (ARENA_JOBS processes, niced).
# Every line of docs/bots.md's arena table: each level against the one below, two and four
# players, each preset, on the deals of seeds 100001 on, in eight blocks each. Hours on a shared
# 2-core machine: ARENA_JOBS=2 takes both cores, ARENA_PRESETS=classic one preset.
ARENA := nice -n 19 $(BIN)/python -m engine arena --seed 100001 --blocks 8 --jobs $(or $(ARENA_JOBS),1)
ARENA_PRESETS ?= classic online five-crowns
arena: $(NATIVE) ## computer players: each level head to head with the one below, 2 and 4 players, every preset
	for rules in $(ARENA_PRESETS); do \
		$(ARENA) --rules $$rules --players 2 --games 400 --seats normal,easy && \
		$(ARENA) --rules $$rules --players 2 --games 1200 --seats hard,normal && \
		$(ARENA) --rules $$rules --players 2 --games 1200 --seats expert,hard && \
		$(ARENA) --rules $$rules --players 4 --games 200 --seats normal,easy,normal,easy && \
		$(ARENA) --rules $$rules --players 4 --games 400 --seats hard,normal,hard,normal && \
		$(ARENA) --rules $$rules --players 4 --games 400 --seats expert,hard,expert,hard \
		|| exit 1; \
	done

# The soak's own dependency group (Locust), installed on first use: `make test` never needs it.
SOAK_STAMP := $(VENV)/.soak-installed
SOAK_ARGS ?=

$(SOAK_STAMP): pyproject.toml $(STAMP)
	$(BIN)/python -m pip install --quiet -e . --group soak
	touch $(SOAK_STAMP)

# The bot ladder of a real instance (LADDER_GAMES) until its levels have played 400 rated games,
# then each level's rating with its 95% interval (docs/ratings.md, "The bot ladder").
ladder: $(NATIVE) ## the built-in levels' ratings after 400 rated ladder games (LADDER_ARGS="--games 100")
	nice -n 10 $(BIN)/python -m tests.benchmarks.ladder $(LADDER_ARGS)

soak: $(NATIVE) $(SOAK_STAMP) ## 1,000 games, 10 min, instances kill -9ed (short: SOAK_ARGS="--games 50 --duration 2m")
	$(BIN)/python -m tests.soak $(SOAK_ARGS)

TOURNAMENT_ARGS ?=

tournament-soak: $(NATIVE) $(STAMP) ## a 16-entrant Swiss on 2 instances, one kill -9ed mid-round, replayed (about 2 min)
	$(BIN)/python -m tests.soak.tournament $(TOURNAMENT_ARGS)

openapi: $(NATIVE) ## regenerate openapi/openapi.json from the app
	$(BIN)/python -m service.openapi > openapi/openapi.json.new  # a failure keeps the old file
	mv openapi/openapi.json.new openapi/openapi.json

all: format lint typecheck test ## format, lint, typecheck, test

clean: ## remove the virtualenv and caches
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis build
	find engine -name '*.so' -delete
