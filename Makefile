# Quick start: `make demo` (set up, then the main job) and `make test` (set up, then the tests).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# A folder of local wheels to install torch from first, e.g. a CPU build that saves a several-GB
# CUDA download: `make setup TORCH_WHEELS=/path/to/wheels`. Left empty, pip chooses torch itself.
TORCH_WHEELS ?=
TORCH_VERSION ?= 2.13.0

.PHONY: setup clients demo test test-slow bench docs clean

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
ifneq ($(TORCH_WHEELS),)
	$(BIN)/python -m pip install -q --find-links $(TORCH_WHEELS) torch==$(TORCH_VERSION)
endif
	$(BIN)/python -m pip install -q -e '.[train,dev,ray,web,llm,textarena]'
	touch $@

demo: setup
	$(BIN)/python -m rummy_env.experiments.demo

test: setup
	$(BIN)/python -m pytest -n 2 -q

# The RL libraries the recipes in examples/ use (docs/guides/rl_libraries.md); the slow suite runs them.
clients: $(VENV)/.clients

$(VENV)/.clients: $(VENV)/.installed
	$(BIN)/python -m pip install -q -e '.[clients]'
	touch $@

test-slow: setup clients
	$(BIN)/python -m pytest -n 2 -q -m slow

# Peers: RLCard and OpenSpiel in the project venv; PettingZoo 1.26.1 (the last with gin_rummy_v4)
# in a venv of its own.
bench: setup
	$(BIN)/python -m pip install -q -e '.[bench]'
	test -x .venv-pz126/bin/python || ($(PYTHON) -m venv .venv-pz126 && .venv-pz126/bin/python -m pip install -q 'pettingzoo[classic]==1.26.1')
	$(BIN)/python -m rummy_env.experiments.benchmark --seconds 6 --out docs/benchmark.json

# The documentation site (mkdocs.yml, docs/) into site/; any warning fails the build.
# NO_MKDOCS_2_WARNING quiets Material for MkDocs' banner about MkDocs 2.0 (not a build warning).
docs: $(VENV)/.docs-installed
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

$(VENV)/.docs-installed: $(VENV)/.installed
	$(BIN)/python -m pip install -q -e '.[docs]'
	touch $@

clean:
	rm -rf $(VENV) build *.egg-info site
