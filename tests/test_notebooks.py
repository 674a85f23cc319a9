"""The example notebooks: committed with outputs, built from ``notebooks/build_notebooks.py``, and
they still run top to bottom (each in a fresh kernel). No wall-clock assertion: the cell timeout is
only a guard against a hung kernel, far above any cell's run time."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import nbformat
import pytest

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
sys.path.insert(0, str(NOTEBOOKS))
import build_notebooks  # noqa: E402

NAMES = list(build_notebooks.NOTEBOOKS)
CELL_TIMEOUT_S = 600
"""nbclient's per-cell timeout: a guard against a hang, not a speed check."""


def code_sources(nb) -> list[str]:
    return [c.source for c in nb.cells]


@pytest.mark.parametrize("name", NAMES)
def test_committed_notebook_matches_its_build_script_and_has_outputs(name):
    path = NOTEBOOKS / name
    assert path.exists(), f"{name} is missing: run notebooks/build_notebooks.py"
    committed = nbformat.read(path, as_version=4)
    nbformat.validate(committed)
    assert code_sources(committed) == code_sources(build_notebooks.build(name)), \
        f"{name} differs from notebooks/build_notebooks.py: rebuild it"
    code_cells = [c for c in committed.cells if c.cell_type == "code"]
    assert all(c.execution_count for c in code_cells), f"{name} was not executed before committing"
    errors = [o for c in code_cells for o in c.outputs if o.output_type == "error"]
    assert not errors, f"{name} holds an error output: {errors[0].get('ename')}"


@pytest.mark.skipif(importlib.util.find_spec("ipykernel") is None, reason="needs ipykernel")
@pytest.mark.parametrize("name", NAMES)
def test_notebook_runs_top_to_bottom(name):
    nb = build_notebooks.build(name)
    build_notebooks.execute(nb, timeout=CELL_TIMEOUT_S)
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert any("text/html" in o.get("data", {}) or "image/png" in o.get("data", {}) for o in outputs)
