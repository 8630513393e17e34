# The README's two commands, `make demo` and `make test`, each do all the set-up they need:
# a virtual environment in .venv with the project installed, Cranfield in ir_datasets' cache
# (seeded from $(CRANFIELD) when that folder exists; otherwise ir_datasets downloads it) and,
# for the tests, the system packages they drive (Debian's chromium and its driver, numpy for /usr/bin/python3).
PYTHON ?= python3
VENV ?= .venv
CRANFIELD ?= ../shared/cranfield
BIN := $(VENV)/bin

.PHONY: demo test test-fast check setup cranfield bytecode system

demo: cranfield bytecode
	$(BIN)/python -m autograder table
	$(BIN)/python -m autograder grade examples/submissions --out out/examples --force

test: cranfield bytecode system
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# under a minute: no sandbox batches, no browser, no notebook
test-fast: cranfield bytecode
	$(BIN)/python -m pytest -m "not slow" $(PYTEST_ARGS)

# the architecture's contracts, lint, format, types, and the minimum Python (3.10: Gradescope's Ubuntu 22.04)
check: setup
	$(BIN)/lint-imports
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/vermin -q --target=3.10- --no-tips --violations autograder/

setup: $(BIN)/.installed

$(BIN)/.installed: pyproject.toml requirements/lab.txt requirements/grader.txt requirements/batch.txt requirements/handout.txt requirements/test.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e ".[test]"
	touch $@

cranfield: $(BIN)/.installed
	@if [ -d "$(CRANFIELD)" ]; then $(BIN)/python -m autograder seed-cranfield "$(CRANFIELD)"; \
	else echo "no $(CRANFIELD): ir_datasets will use its cache or download Cranfield"; fi

# the grader's bytecode, written once (quick when it is up to date): where PYTHONDONTWRITEBYTECODE
# is set, Python would otherwise compile the grader's modules afresh on every run (0.1 to 0.5 s)
bytecode: $(BIN)/.installed
	$(BIN)/python -m compileall -q autograder

# what the tests drive besides Python packages (installed once, with apt, as root or with sudo)
system:
	@tools/install-system-packages
