# The human entry points. `make kits` and `make test` each set everything up first.
PYTHON ?= python3
VENV ?= .venv
BIN = $(VENV)/bin
STAMP = $(VENV)/.installed-stamp
PACKS = $(wildcard components/*)

.PHONY: kits test lint docs validate bench watch clean setup floors shell

kits: $(STAMP)
	$(BIN)/pnpkit build $(PACKS) --out build --trust   # our own packs: their rules.py may run

# -n auto --dist loadfile: a process per core (pytest-xdist), each taking whole test files, so a
# module's fixtures (a kit built once) are made once; tests/conftest.py gives each its own trust list.
# -rs: say why each skipped test skipped (a missing browser, Ghostscript, ...).
# The fuzz campaign runs PNPKIT_FUZZ_COUNT mutants (60 unless set; .ci/run sets 1,000).
# compileall first: where the environment sets PYTHONDONTWRITEBYTECODE (this machine's does) no
# process writes bytecode, so each Python process the tests start (pnpkit commands, the scripts,
# an import of each module alone) compiled pnpkit's source again, ~0.25 s of CPU; it still reads it.
test: $(STAMP)
	$(BIN)/python -m compileall -q -j 0 src scripts tests
	$(BIN)/pytest -n auto --dist loadfile -rs

lint: $(STAMP)         # the settings are in pyproject.toml ([tool.ruff], [tool.mypy])
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache --no-logo  # the stages' layer order ([tool.importlinter])

docs: $(STAMP)         # the documentation site into site/; --strict: a broken link or anchor fails
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

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

shell: $(STAMP)        # a shell with .venv activated: `pnpkit` is on the PATH until you `exit`
	@echo "pnpkit is on the PATH in this shell; 'exit' leaves it"
	@. $(BIN)/activate && exec $${SHELL:-/bin/sh} -i

# The tests on the lowest versions pyproject.toml allows (scripts/floors.py; Python 3.11+), in .venv-floors.
floors:
	$(PYTHON) -m venv .venv-floors
	.venv-floors/bin/python -m pip install --quiet $$($(PYTHON) scripts/floors.py)
	.venv-floors/bin/python -m pip install --quiet --no-deps -e .
	.venv-floors/bin/pytest -rs

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

clean:
	rm -rf build site .venv-floors
