# The human entry points. `make kits` and `make test` each set everything up first.
PYTHON ?= python3
VENV ?= .venv
BIN = $(VENV)/bin
STAMP = $(VENV)/.installed-stamp
PACKS = $(wildcard components/*)

.PHONY: kits test validate bench clean setup

kits: $(STAMP)
	$(BIN)/pnpkit build $(PACKS) --out build

test: $(STAMP)
	$(BIN)/pytest

validate: $(STAMP)
	$(BIN)/pnpkit validate $(PACKS)

bench: $(STAMP)
	$(BIN)/python scripts/bench_cards.py

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

clean:
	rm -rf build
