# The README's two commands, `make demo` and `make test`, each do all the set-up they need:
# a virtual environment in .venv with the project installed, and Cranfield in ir_datasets'
# cache (seeded from $(CRANFIELD) when that folder exists; otherwise ir_datasets downloads it).
PYTHON ?= python3
VENV ?= .venv
CRANFIELD ?= ../shared/cranfield
BIN := $(VENV)/bin

.PHONY: demo test setup cranfield

demo: cranfield
	$(BIN)/python -m autograder table
	$(BIN)/python -m autograder grade examples/submissions --out out/examples --force

test: cranfield
	$(BIN)/python -m pytest $(PYTEST_ARGS)

setup: $(BIN)/.installed

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e .
	touch $@

cranfield: $(BIN)/.installed
	@if [ -d "$(CRANFIELD)" ]; then $(BIN)/python -m autograder seed-cranfield "$(CRANFIELD)"; \
	else echo "no $(CRANFIELD): ir_datasets will use its cache or download Cranfield"; fi
