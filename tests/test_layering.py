"""The drawing of the code's imports reads engine -> env -> agents -> experiments, with no arrow
back up: the engines (``rummy_env/games``) import no PettingZoo wrapper and no render back end
(``rummy_env.render`` finds each game's wording in the game's ``view.py``), the environment package
(``rummy_env/``) imports neither ``agents`` nor ``experiments`` nor torch nor Ray, and ``agents/``
imports nothing from ``experiments/``. Read from the source with ``ast``, imports inside functions
included."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
WRAPPERS = {"rummy_env.base", "rummy_env.gym_wrapper", "rummy_env.vector", "rummy_env.registry"} | {
    f"rummy_env.{p.stem}" for p in (ROOT / "rummy_env").glob("*_v0.py")}


def imported_modules(path: Path, root: Path = ROOT) -> set[str]:
    """Every module an ``import`` or ``from ... import`` in the file names (resolved against the
    file's package for a relative import), as installed (``agents.x`` -> ``rummy_env.agents.x``)."""
    package = path.relative_to(root).with_suffix("").parts[:-1]
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = list(package[:len(package) - node.level + 1]) if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            names.add(module)
            names.update(f"{module}.{alias.name}" for alias in node.names)
    return {installed_name(name) for name in names}


def installed_name(name: str) -> str:
    for folder in ("agents", "experiments"):
        if name == folder or name.startswith(folder + "."):
            return "rummy_env." + name
    return name


def offending(folder: Path, forbidden: set[str], root: Path = ROOT) -> dict[str, list[str]]:
    """Files below ``folder`` importing a forbidden module (or one inside it), with those imports."""
    found = {}
    for path in sorted(folder.rglob("*.py")):
        bad = sorted(name for name in imported_modules(path, root)
                     if any(name == f or name.startswith(f + ".") for f in forbidden))
        if bad:
            found[path.relative_to(root).as_posix()] = bad
    return found


ENV_FORBIDDEN = {"rummy_env.agents", "rummy_env.experiments", "torch", "ray"}


@pytest.mark.parametrize("folder,forbidden", [
    ("rummy_env/games", ENV_FORBIDDEN | WRAPPERS | {"pettingzoo", "gymnasium", "rummy_env.render"}),
    ("rummy_env", ENV_FORBIDDEN),
    ("agents", {"rummy_env.experiments", "experiments", "ray"}),
])
def test_no_import_points_back_up(folder, forbidden):
    assert offending(ROOT / folder, forbidden) == {}


def test_the_check_catches_imports_back_up_inside_functions_and_relative(tmp_path):
    games = tmp_path / "rummy_env" / "games"
    games.mkdir(parents=True)
    (games / "bad.py").write_text("def f():\n    from agents.registry import make_agent\n    import torch\n"
                                  "from ..base import RummyEnvBase\n")
    assert offending(tmp_path / "rummy_env", ENV_FORBIDDEN | WRAPPERS, root=tmp_path) == {
        "rummy_env/games/bad.py": ["rummy_env.agents.registry", "rummy_env.agents.registry.make_agent",
                                   "rummy_env.base", "rummy_env.base.RummyEnvBase", "torch"]}
