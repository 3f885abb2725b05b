# Three commands for a new machine (see README):
#   make example   set up, then rule on the bundled WTC walk-through (summary; JSON ruling + SVG + PNG in out/)
#   make test      set up, then run the whole test suite
#   make serve     set up, then start the web board on http://127.0.0.1:8000/
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup browser example test serve bench lint clean

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
		--dice 4,6 --out out/ruling.json --svg out/ruling.svg --png out/ruling.png
	@echo ""
	@echo "the ruling (JSON): out/ruling.json; the picture: out/ruling.svg and out/ruling.png"

# The web board (PORT=8001 make serve for another port); Ctrl+C stops it.
PORT ?= 8000
serve: $(STAMP)
	$(BIN)/chargeref serve --port $(PORT)

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
