# The human entry points. `make kits` and `make test` each set everything up first.
PYTHON ?= python3
VENV ?= .venv
BIN = $(VENV)/bin
STAMP = $(VENV)/.installed-stamp
PACKS = $(wildcard components/*)

.PHONY: kits test lint validate bench watch clean setup

kits: $(STAMP)
	$(BIN)/pnpkit build $(PACKS) --out build --trust   # our own packs: their rules.py may run

test: $(STAMP)
	$(BIN)/pytest

lint: $(STAMP)         # the settings are in pyproject.toml ([tool.ruff], [tool.mypy])
	$(BIN)/ruff check src tests scripts
	$(BIN)/ruff format --check src tests scripts
	$(BIN)/mypy

validate: $(STAMP)
	$(BIN)/pnpkit validate $(PACKS) --trust

bench: $(STAMP)
	$(BIN)/python scripts/bench_cards.py
	$(BIN)/python scripts/bench_incremental.py
	$(BIN)/python scripts/bench_png.py
	$(BIN)/python scripts/bench_sheet.py

watch: $(STAMP)        # one game: make watch GAME=mammoth-herd
	$(BIN)/pnpkit watch components/$(GAME) --serve --trust

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

clean:
	rm -rf build
