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


# -- agents/ as a tree ----------------------------------------------------------------------------
def module_name(path: Path, root: Path = ROOT) -> str:
    """The installed name of the module in ``path`` (``agents/ismcts.py`` -> ``rummy_env.agents.ismcts``)."""
    parts = path.relative_to(root).with_suffix("").parts
    return installed_name(".".join(parts[:-1] if parts[-1] == "__init__" else parts))


def import_cycles(folder: Path, root: Path = ROOT) -> list[list[str]]:
    """The import cycles among the modules below ``folder``, imports inside functions included
    (each cycle once, as the list of its modules from its smallest name)."""
    modules = {module_name(p, root): p for p in sorted(folder.rglob("*.py"))}
    edges = {name: sorted(m for m in imported_modules(path, root) if m in modules and m != name)
             for name, path in modules.items()}
    cycles, seen = [], set()

    def walk(name: str, trail: list[str]) -> None:
        for nxt in edges[name]:
            if nxt in trail:
                cycle = trail[trail.index(nxt):]
                start = cycle.index(min(cycle))
                key = tuple(cycle[start:] + cycle[:start])
                if key not in seen:
                    seen.add(key)
                    cycles.append(list(key))
            elif len(trail) < len(modules):
                walk(nxt, trail + [nxt])

    for name in modules:
        walk(name, [name])
    return cycles


def test_agents_import_no_cycle():
    assert import_cycles(ROOT / "agents") == []


def test_only_the_registry_imports_the_agent_families():
    """The families (the rule-based agents, the search agents, the language-model agent, the PPO
    agent) are imported by ``agents/registry.py`` alone, which gives each the parts it is built from."""
    families = {f"rummy_env.agents.{p.stem}" for p in (ROOT / "agents").glob("heuristic_*.py")} | {
        "rummy_env.agents.ismcts", "rummy_env.agents.pimc", "rummy_env.agents.llm", "rummy_env.agents.ppo_agent"}
    found = offending(ROOT / "agents", families)
    assert found.pop("agents/registry.py")
    assert found == {}


def test_the_cycle_check_catches_a_cycle_through_an_import_inside_a_function(tmp_path):
    agents = tmp_path / "agents"
    agents.mkdir()
    (agents / "a.py").write_text("from .b import x\n")
    (agents / "b.py").write_text("def f():\n    from .c import y\n")
    (agents / "c.py").write_text("def g():\n    import rummy_env.agents.a\n")
    assert import_cycles(agents, root=tmp_path) == [["rummy_env.agents.a", "rummy_env.agents.b", "rummy_env.agents.c"]]


# -- private names --------------------------------------------------------------------------------
def private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_imports(path: Path) -> list[str]:
    """The private names (``_name``) the file imports from another module (``from m import _x``,
    ``import m._x``), as ``line: module.name``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            found += [f"{node.lineno}: {node.module}.{a.name}" for a in node.names if private(a.name)]
        elif isinstance(node, ast.Import):
            found += [f"{node.lineno}: {a.name}" for a in node.names if any(map(private, a.name.split(".")))]
    return found


def private_reaches(path: Path) -> list[str]:
    """Every ``x._name`` in the file where ``x`` is not ``self``, ``cls`` or ``super()``: a reach
    into another object's private state (e.g. an information state's ``_game``), as ``line: code``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and private(node.attr):
            owner = node.value
            if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
                continue
            if isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) and owner.func.id == "super":
                continue
            found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


TORCH_VERSION_COUNTER = "weight._version"
"""The one reach ``agents/`` makes: the version counter torch keeps on every tensor (public in
practice, the way torch's own optimizers read it) to tell when a weight changed."""


@pytest.mark.parametrize("folder", ["rummy_env", "agents", "experiments"])
def test_no_module_imports_a_private_name_of_another(folder):
    assert {p.relative_to(ROOT).as_posix(): private_imports(p) for p in sorted((ROOT / folder).rglob("*.py"))
            if private_imports(p)} == {}


def test_no_agent_reaches_into_another_objects_private_names():
    """So an agent given an information state cannot read its game (``state._game``)."""
    found = {p.relative_to(ROOT).as_posix(): [r for r in private_reaches(p) if not r.endswith(TORCH_VERSION_COUNTER)]
             for p in sorted((ROOT / "agents").rglob("*.py"))}
    assert {path: reaches for path, reaches in found.items() if reaches} == {}


def test_a_peeking_agent_is_caught(tmp_path):
    """A planted agent that reads the information state's game, or imports a private helper, is found."""
    path = tmp_path / "peek.py"
    path.write_text("from rummy_env.agents.ismcts import _helper\n\nclass Peek:\n    def act_on(self, state):\n"
                    "        world = state._game.clone()\n        return super()._choose(world)\n")
    assert private_reaches(path) == ["5: state._game"]
    assert private_imports(path) == ["1: rummy_env.agents.ismcts._helper"]
