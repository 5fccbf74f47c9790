# Two commands do the whole set-up on a fresh machine (each creates .venv and installs on first use):
#   make demo   -> icml-topics demo on the bundled sample, offline
#   make test   -> ruff (lint + format check), the API reference site (mkdocs build --strict), then the test suite
#                  (installs Debian's chromium for the browser tests when missing)
#   make docs   -> the API reference and how-to pages (mkdocs.yml, docs/) built into site/ (git-ignored)
VENV   ?= .venv
PYTHON ?= python3
PY     := $(VENV)/bin/python
# torch first, pinned, so pip takes the CPU wheel instead of a multi-GB CUDA build.
# Elsewhere: make TORCH_INDEX=--extra-index-url=https://download.pytorch.org/whl/cpu demo
TORCH_SPEC  ?= torch==2.13.0
TORCH_INDEX ?=
STAMP  := $(VENV)/.installed-$(shell cat pyproject.toml Makefile | sha1sum | cut -c1-10)
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: demo test lint docs install chromium benchmark clean

install: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet $(TORCH_INDEX) "$(TORCH_SPEC)"
	$(PY) -m pip install --quiet -e '.[test,notebook]'
	@rm -f $(VENV)/.installed-*
	@touch $@

demo: $(STAMP)
	$(VENV)/bin/icml-topics demo --out icml-topics-demo

chromium:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || \
	  { echo "installing Debian's chromium for the browser tests"; \
	    (apt-get update -qq && apt-get install -y -qq chromium >/dev/null) || \
	    echo "warning: could not install chromium (run as root: apt-get install -y chromium); browser tests will be skipped"; }

test: $(STAMP) chromium lint docs
	$(PY) -m pytest -q --numprocesses=auto --maxprocesses=4 --dist worksteal

# --strict: a broken link, a missing page or a docstring griffe cannot read fails the build
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs build --strict --quiet

lint: $(STAMP)
	$(PY) -m ruff check icml_topics tests benchmarks
	$(PY) -m ruff format --check icml_topics tests benchmarks

benchmark: $(STAMP)
	$(PY) benchmarks/run.py --sizes 1000 2000

clean:
	rm -rf $(VENV) icml-topics-demo .pytest_cache site
