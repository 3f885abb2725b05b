# Two commands for a new machine (see README):
#   make example   set up, then rule on the bundled WTC walk-through (JSON ruling + SVG + PNG)
#   make test      set up, then run the whole test suite
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup browser example test bench lint clean

$(STAMP): pyproject.toml
	@command -v $(PY) >/dev/null 2>&1 || { echo "need $(PY) on PATH"; exit 1; }
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev,png,web,distributed]'
	@touch $(STAMP)

setup: $(STAMP)

example: $(STAMP)
	mkdir -p out
	$(BIN)/chargeref charge examples/wtc_walkthrough.yaml --charger A --target B --target C \
		--dice 4,6 --json --out out/ruling.json --svg out/ruling.svg --png out/ruling.png
	@echo "wrote out/ruling.json, out/ruling.svg and out/ruling.png"

# The browser tests drive Debian's chromium (no browser download): install it when missing.
browser:
	@command -v chromium >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq chromium; }

test: $(STAMP) browser
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks

clean:
	rm -rf $(VENV) out .pytest_cache
