# Autograd, Run and Rebuilt: build the book, test everything, refresh notebooks.
#   make book      set up, then build the site into _build/html (warnings are errors), with
#                  the reader's edition of every chapter in _build/html/notebooks
#   make notebooks the same: the reader's editions are written by the site build
#   make lab       JupyterLab on the reader's editions, copied once into notebooks/
#                  (`make lab EDITION=zh_CN`: the Chinese ones, into notebooks/zh_CN/)
#   make test      set up, then lint, build, and run every test: scripts/run-tests.sh
#                  (Hypothesis derandomized: the same examples on every run)
#   make test-random  the engine's property tests with fresh random examples
#                  (strict nbval, never --nbval-lax; what CI runs: .ci/run)
#   make execute   re-run every chapter notebook in place, top to bottom (for authors)
#   make bench     run the benchmarks (benchmarks/run.py)
# Pythons that build the book: 3.11 and 3.12 (Debian 12's and Ubuntu 24.04's).
# `make PYTHON=python3.12 book` picks one; any other version is refused. `make test` also runs
# the chapters on the other one when it is installed (scripts/python-leg.sh), in
# .venv-<version>, and on Colab's Python, 3.13 (tests/book/test_colab_bootstrap.py), which it
# needs installed (scripts/find-python.sh looks on PATH and in pyenv).
# Set-up is incremental: .venv is created once and re-installed only when requirements.txt,
# constraints.txt or companion/pyproject.toml change; OS packages and MathJax only when absent.

SHELL := bash
# One BLAS/OpenMP thread: reproducible summation order (stored outputs compare exactly) and no
# oversubscription on small machines.
export OMP_NUM_THREADS := 1
export OPENBLAS_NUM_THREADS := 1
export MKL_NUM_THREADS := 1
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := book

SUPPORTED_PYTHONS := 3.11 3.12
PYTHON ?= $(shell scripts/find-python.sh 3.11 || scripts/find-python.sh 3.12 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
PIP_STAMP := $(VENV)/.requirements.stamp
NPM_STAMP := node_modules/.package-lock.json
CHAPTERS = $(sort $(wildcard book/chapters/*.ipynb))

.PHONY: book notebooks lab test test-random execute bench setup setup-other-python lint constraints clean

book: setup
	@scripts/install-os-deps.sh graphviz
	$(PY) scripts/build_book.py

# The reader's editions (book/_ext/reader_edition.py) are part of every site build.
notebooks: book

# A learner's copy: each chapter's reader's edition is copied into notebooks/ only if it is not
# there yet, so that edits survive; delete a file to get that chapter afresh.
# `make lab EDITION=zh_CN` (or zh_TW): the Chinese editions, in notebooks/zh_CN/ (zh_TW/).
EDITION ?=
LAB_DIR := notebooks$(if $(EDITION),/$(EDITION))
lab: notebooks
	@mkdir -p $(LAB_DIR); for edition in _build/html/$(if $(EDITION),$(EDITION)/)notebooks/*.ipynb; do \
	  [ -e "$(LAB_DIR)/$${edition##*/}" ] || cp "$$edition" $(LAB_DIR)/; done
	@echo "Your copies of the chapters are in $(LAB_DIR)/ (delete one to get it afresh)."
	$(VENV)/bin/jupyter lab $(LAB_DIR)

test: setup
	@scripts/install-os-deps.sh graphviz chromium
	OTHER_PYTHON_VERSION=$(OTHER_PYTHON_VERSION) scripts/run-tests.sh

# The property tests with fresh random examples (make test always draws the same ones).
test-random: setup
	HYPOTHESIS_PROFILE=dev $(PY) -m pytest tests/engine tests/test_random.py -q

execute: setup
	@scripts/install-os-deps.sh graphviz
	@if [ -z "$(CHAPTERS)" ]; then echo "No notebooks in book/chapters/."; exit 0; fi; \
	$(PY) scripts/bootstrap_cell.py $(CHAPTERS) && $(PY) scripts/execute_notebooks.py $(CHAPTERS)

# Full sizes, all engines; rewrites the results in benchmarks/README.md (see that file).
bench: setup
	$(PY) benchmarks/run.py

setup: $(PIP_STAMP) $(NPM_STAMP)

# A venv of `python` ($1) in directory $2, refusing unsupported versions.
define make_venv
	@version=$$($1 -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null) || \
	  { echo "'$1' does not run. Install Python 3.11 or 3.12, then run"; \
	    echo "make PYTHON=/path/to/python3.11 (or python3.12)."; exit 1; }; \
	case " $(SUPPORTED_PYTHONS) " in *" $$version "*) ;; \
	  *) echo "Python $$version ($1) is not supported: the book supports Python 3.11 or 3.12."; \
	     echo "Run make PYTHON=/path/to/python3.11 (or python3.12)."; exit 1 ;; esac
	$1 -m venv $2
endef

$(PY):
	$(call make_venv,$(PYTHON),$(VENV))

$(PIP_STAMP): requirements.txt constraints.txt companion/pyproject.toml | $(PY)
	$(PY) -m pip install --quiet --no-compile -r requirements.txt
	touch $@

# The other supported Python's venv, for `make test`'s second run of the chapters. On it, pip
# takes PyPI's torch 2.13.0 wheel (a CUDA build, about 4 GB with its libraries; it runs on the
# CPU): the local CPU wheel is for the main Python only.
PYTHON_VERSION := $(shell $(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
OTHER_PYTHON_VERSION ?= $(if $(filter 3.12,$(PYTHON_VERSION)),3.11,3.12)
OTHER_VENV := .venv-$(OTHER_PYTHON_VERSION)
OTHER_STAMP := $(OTHER_VENV)/.requirements.stamp
setup-other-python: $(OTHER_STAMP)

$(OTHER_VENV)/bin/python:
	$(call make_venv,$(shell scripts/find-python.sh $(OTHER_PYTHON_VERSION) || echo python$(OTHER_PYTHON_VERSION)),$(OTHER_VENV))

$(OTHER_STAMP): requirements.txt constraints.txt companion/pyproject.toml | $(OTHER_VENV)/bin/python
	$(OTHER_VENV)/bin/python -m pip install --quiet --no-compile -r requirements.txt
	touch $@

$(NPM_STAMP): package.json package-lock.json
	@scripts/install-os-deps.sh npm
	npm ci --no-audit --no-fund
	touch $@

lint: $(PIP_STAMP)
	$(PY) -m ruff check .

# Re-pin the whole resolved set after changing requirements.txt and installing it.
constraints: $(PIP_STAMP)
	{ echo "# The resolved set of .venv, generated by \`make constraints\` (pip freeze); do not edit by hand."; \
	  $(PY) -m pip freeze --exclude-editable | grep -v '^#' \
	  | sed -E 's/^(torch==[^+]*)\+.*/\1/'; } > constraints.txt

clean:
	rm -rf _build
