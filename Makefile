# The README's two commands each install what they run, and no more: `make demo` a virtual
# environment in .venv with the grader's packages (requirements/lab.txt, grader.txt, batch.txt) and
# Cranfield in ir_datasets' cache (seeded from $(CRANFIELD) when that folder exists; otherwise
# ir_datasets downloads it); `make test` adds the test tools (pyproject's `test` extra: the handout's
# packages and requirements/test.txt), the system packages the tests drive (Debian's chromium and
# its driver, numpy for /usr/bin/python3, npm) and axe-core (npm, pinned in tests/axe/package.json).
# pip installs one package, uv (requirements/installer.txt), and uv installs all the others.
PYTHON ?= python3
VENV ?= .venv
CHILD_VENV ?= .venv-child
CRANFIELD ?= ../shared/cranfield
BIN := $(VENV)/bin
UV := $(BIN)/uv
UV_INSTALL := $(UV) pip install --quiet --python
# Python's bytecode written at install, as pip does, for the children (they run `python -B`) and the
# test tools (the suite starts many interpreters); not for the grader's packages alone: `make demo`
# imports few of them (numpy, ir_measures, yaml, pygments: 0.4 s of CPU to compile on each run),
# and compiling all of them (scipy, scikit-learn...) cost it 12 s of CPU
COMPILED := --compile-bytecode

.PHONY: demo test test-fast check setup grader cranfield bytecode system axe docs docs-serve

demo: grader cranfield bytecode
	$(BIN)/python -m autograder table
	$(BIN)/python -m autograder grade examples/submissions --out out/examples --force

# the suite in PYTEST_JOBS processes (pytest-xdist): a test file's tests all in one of them, so that
# a module's fixtures (a graded batch, a built autograder.zip) are made once, but a sandbox batch's
# modes and platforms each in a group of their own, the slow groups first (--dist loadgroup, groups
# and order from tests/support/scheduling.py; docs/TESTING.md); PYTEST_JOBS=0 runs it in this process alone
PYTEST_JOBS ?= 2
XDIST = -n $(PYTEST_JOBS) --dist loadgroup --no-loadscope-reorder

test: setup cranfield bytecode system axe
	$(BIN)/python -m pytest $(XDIST) $(PYTEST_ARGS)

# no sandbox batches, no browser, no notebook (2 to 3 minutes on 2 cores)
test-fast: setup cranfield bytecode
	$(BIN)/python -m pytest $(XDIST) -m "not slow" $(PYTEST_ARGS)

# the architecture's contracts, lint, format, types, and the minimum Python (3.10: Gradescope's Ubuntu 22.04), commit subjects of at most 72 characters, and the documentation site built strictly
# (every module of the engine, autograder/, also under plain `mypy --strict`, with no configuration that could
# loosen one: pyproject's mypy section is strict everywhere but the lab's content, lab/)
STRICT_MYPY = $(BIN)/mypy --strict --config-file= --ignore-missing-imports --follow-imports=silent \
	--python-version 3.10 --cache-dir .mypy_cache/strict
STRICT_FILES = $(shell find autograder -name '*.py' | sort)
check: setup
	$(BIN)/lint-imports
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(STRICT_MYPY) $(STRICT_FILES)
	$(BIN)/vermin -q --target=3.10- --no-tips --violations autograder/ lab/
	$(BIN)/python tools/commit_subjects.py
	$(MKDOCS) build --strict --quiet --site-dir $(SITE)

# the documentation site (mkdocs.yml, the pages of docs/): built in strict mode (a broken link, a
# broken anchor or a page missing from the nav fails), or served at http://127.0.0.1:8000
MKDOCS := NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs
SITE ?= site
docs: setup
	$(MKDOCS) build --strict --site-dir $(SITE)

docs-serve: setup
	$(MKDOCS) serve --strict --dev-addr 127.0.0.1:8000

# the grader's packages only, and the children's environment (what `make demo` runs)
grader: $(BIN)/.grader $(CHILD_VENV)/.installed

$(BIN)/.grader: pyproject.toml requirements/lab.txt requirements/grader.txt requirements/batch.txt $(UV)
	$(UV_INSTALL) $(BIN)/python -e .
	touch $@

# the installer, in the grader's environment (which keeps pip: `autograder requirements` asks it)
$(UV): requirements/installer.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements/installer.txt
	touch $@

# the grader's and the test tools' (tests, checks, the notebook's packages)
setup: $(BIN)/.installed $(CHILD_VENV)/.installed

$(BIN)/.installed: $(BIN)/.grader requirements/handout.txt requirements/test.txt
	$(UV_INSTALL) $(BIN)/python $(COMPILED) -e ".[test]"
	touch $@

# the environment student code runs in: the packages grading.yml allows, pinned as on the platforms
$(CHILD_VENV)/.installed: requirements/child.txt $(UV)
	$(PYTHON) -m venv --without-pip $(CHILD_VENV)
	$(UV_INSTALL) $(CHILD_VENV)/bin/python $(COMPILED) -r requirements/child.txt
	touch $@

cranfield: grader
	@if [ -d "$(CRANFIELD)" ]; then $(BIN)/python -m autograder seed-cranfield "$(CRANFIELD)"; \
	else echo "no $(CRANFIELD): ir_datasets will use its cache or download Cranfield"; fi

# the grader's bytecode, written once (quick when it is up to date): where PYTHONDONTWRITEBYTECODE
# is set, Python would otherwise compile the grader's modules afresh on every run (0.1 to 0.5 s)
bytecode: $(BIN)/.grader
	$(BIN)/python -m compileall -q autograder

# what the tests drive besides Python packages (installed once, with apt, as root or with sudo)
system:
	@tools/install-system-packages

# axe-core, the accessibility rules the browser tests run in Chromium (tests/reports/test_accessibility.py)
AXE := tests/axe/node_modules/axe-core/axe.min.js
axe: $(AXE)

$(AXE): tests/axe/package.json | system
	npm install --prefix tests/axe --no-package-lock --no-audit --no-fund --loglevel=error
	touch $@
