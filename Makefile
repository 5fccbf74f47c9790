# Two commands do the whole set-up on a fresh machine (each creates .venv and installs on first use):
#   make demo   -> icml-topics demo on the bundled sample, offline (the user's install: no test or docs tools)
#   make test   -> ruff (lint + format check), the API reference site (mkdocs build --strict), then the test suite
#                  (installs Debian's chromium for the browser tests and LibreOffice Calc for the CSV-formula
#                  test when missing)
#   make docs   -> the API reference and how-to pages (mkdocs.yml, docs/) built into site/ (git-ignored); installs
#                  only the docs extra (mkdocs and its plugins) over the user's install
VENV   ?= .venv
PYTHON ?= python3
PY     := $(VENV)/bin/python
# torch first, pinned, so pip takes the CPU wheel instead of a multi-GB CUDA build.
# Elsewhere: make TORCH_INDEX=--extra-index-url=https://download.pytorch.org/whl/cpu demo
TORCH_SPEC  ?= torch==2.13.0
TORCH_INDEX ?=
HASH   := $(shell cat pyproject.toml Makefile | sha1sum | cut -c1-10)
# Three installs, each recorded by a stamp: the user's (make demo: the library, its CLI, Jupyter's tm.explore()),
# the docs' on top of it (make docs: + the docs extra: mkdocs and its plugins, pinned) and the developer's (make
# test, lint, install: + the test extra: pytest, ruff, the same docs pins, playwright, kaleido, jupyterlab; it
# stamps the docs install too). make test after make demo adds the test extra; make demo after make test installs
# nothing; make docs after make test installs nothing.
USER_STAMP := $(VENV)/.installed-user-$(HASH)
DOCS_STAMP := $(VENV)/.installed-docs-$(HASH)
STAMP      := $(VENV)/.installed-dev-$(HASH)
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: demo test lint docs install chromium libreoffice benchmark clean

install: $(STAMP)

$(USER_STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet $(TORCH_INDEX) "$(TORCH_SPEC)"
	$(PY) -m pip install --quiet -e .
	@rm -f $(VENV)/.installed-*
	@touch $@

$(STAMP): $(USER_STAMP)
	$(PY) -m pip install --quiet -e '.[test,notebook]'
	@rm -f $(VENV)/.installed-dev-* $(VENV)/.installed-docs-*
	@touch $@ $(DOCS_STAMP)

$(DOCS_STAMP): $(USER_STAMP)
	$(PY) -m pip install --quiet -e '.[docs]'
	@rm -f $(VENV)/.installed-docs-*
	@touch $@

demo: $(USER_STAMP)
	$(VENV)/bin/icml-topics demo --out icml-topics-demo

chromium:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || \
	  { echo "installing Debian's chromium for the browser tests"; \
	    (apt-get update -qq && apt-get install -y -qq chromium >/dev/null) || \
	    echo "warning: could not install chromium (run as root: apt-get install -y chromium); browser tests will be skipped"; }

# soffice --headless --convert-to csv opens every output CSV as a spreadsheet would (tests/reliability/
# test_rel_csv_formulas.py); Debian 12, --no-install-recommends: about 65 s, 86 MiB download, 264 MiB installed
libreoffice:
	@command -v soffice >/dev/null 2>&1 || \
	  { echo "installing Debian's LibreOffice Calc (headless) for the CSV-formula test"; \
	    (apt-get update -qq && apt-get install -y -qq --no-install-recommends libreoffice-calc-nogui >/dev/null) || \
	    echo "warning: could not install LibreOffice (run as root: apt-get install -y libreoffice-calc-nogui); the CSV-formula test will be skipped"; }

# ICML_TOPICS_DOCS_SITE: the site `docs` (strict) has just built, so the suite reads it instead of building it again
# --dist loadfile --no-loadscope-reorder: one test file a unit of work, in tests/conftest.py's order (XDIST_GROUPS)
test: $(STAMP) chromium libreoffice lint docs
	ICML_TOPICS_DOCS_SITE=$(CURDIR)/site $(PY) -m pytest -q --numprocesses=auto --maxprocesses=4 --dist loadfile --no-loadscope-reorder

# --strict: any warning (a broken link or cross-reference, a missing page, a docstring entry naming no parameter)
# fails the build. No --quiet: it drops the warnings before --strict can count them (the build then always passes).
docs: $(DOCS_STAMP)
	NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs build --strict

lint: $(STAMP)
	$(PY) -m ruff check icml_topics tests benchmarks
	$(PY) -m ruff format --check icml_topics tests benchmarks

benchmark: $(STAMP)
	$(PY) benchmarks/run.py --sizes 1000 2000

clean:
	rm -rf $(VENV) icml-topics-demo .pytest_cache site
