# Three Thirteen service: `make help` lists the targets.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000
export HOST PORT

.PHONY: help install run test lint format typecheck bench openapi all clean

help: ## list the targets
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F ':.*## ' '{printf "  make %-10s %s\n", $$1, $$2}'

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "pip>=25.1"
	$(BIN)/python -m pip install --quiet -e . --group dev
	touch $(STAMP)

install: $(STAMP) ## create .venv with the project and its dev tools

run: $(STAMP) ## serve on $HOST:$PORT (default 127.0.0.1:8000); REDIS_URL selects Redis
	$(BIN)/python -m service

test: $(STAMP) ## run the test suite
	$(BIN)/pytest -q

format: $(STAMP) ## format the code in place
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix --quiet .

lint: $(STAMP) ## ruff: style and lint checks
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .

typecheck: $(STAMP) ## mypy --strict
	$(BIN)/mypy

bench: $(STAMP) ## benchmarks (tables of figures; not part of `make test`)
	$(BIN)/python -m tests.benchmarks

openapi: $(STAMP) ## regenerate openapi/openapi.json from the app
	$(BIN)/python -m service.openapi > openapi/openapi.json.new  # a failure keeps the old file
	mv openapi/openapi.json.new openapi/openapi.json

all: format lint typecheck test ## format, lint, typecheck, test

clean: ## remove the virtualenv and caches
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
