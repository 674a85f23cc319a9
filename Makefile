# Quick start: `make demo` (set up, then the main job) and `make test` (set up, then the tests).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# This workplace keeps a CPU build of torch on disk (/opt/wheels); pinning it there avoids a
# several-GB CUDA download. Elsewhere pip chooses torch itself.
TORCH_CPU := $(wildcard /opt/wheels/torch-2.13.0*)

.PHONY: setup clients demo test test-slow bench clean

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
ifneq ($(TORCH_CPU),)
	$(BIN)/python -m pip install -q torch==2.13.0
endif
	$(BIN)/python -m pip install -q -e '.[train,dev,ray]'
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

clean:
	rm -rf $(VENV) build *.egg-info
