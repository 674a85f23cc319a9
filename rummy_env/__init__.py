"""rummy_env: PettingZoo environments for the rummy family of card games.

``from rummy_env import rummy_v0, tongits_v0, i_doubt_it_v0, contract_rummy_v0, ginny_o_v0``;
each module has ``env(**options)`` and ``raw_env(**options)`` (PettingZoo classic style) and
documents its observation, actions, rewards and options. ``rummy_env.registry`` finds a game by
name; ``rummy_env.vector`` and ``rummy_env.gym_wrapper`` are the batched and single-agent layers.
The submodules load on first use (``rummy_env.tongits_v0`` works after ``import rummy_env``).

With a PettingZoo that has a registry (``pettingzoo.register``, 1.27 on), importing the package
registers the five games, e.g. ``pettingzoo.make("aec", "rummy_env/Tongits-v0", render_mode="ansi")``;
see :data:`PETTINGZOO_IDS`. It also registers the same ids with Gymnasium for the single-agent env
(:mod:`rummy_env.gym_wrapper`), e.g. ``gymnasium.make("rummy_env/Tongits-v0", opponents="heuristic")``.
"""
from __future__ import annotations

import importlib
import re
from pathlib import Path

SUBMODULES = ("rummy_v0", "tongits_v0", "i_doubt_it_v0", "contract_rummy_v0", "ginny_o_v0", "registry",
              "vector", "gym_wrapper", "wrappers", "base", "cards", "melds", "render")
# PettingZoo registry id -> entry point (the module's ``env``).
PETTINGZOO_IDS = {
    "rummy_env/Rummy-v0": "rummy_env.rummy_v0:env",
    "rummy_env/Tongits-v0": "rummy_env.tongits_v0:env",
    "rummy_env/IDoubtIt-v0": "rummy_env.i_doubt_it_v0:env",
    "rummy_env/ContractRummy-v0": "rummy_env.contract_rummy_v0:env",
    "rummy_env/GinnyO-v0": "rummy_env.ginny_o_v0:env",
}

__all__ = ["__version__", "PETTINGZOO_IDS", *SUBMODULES]


def _version() -> str:
    """The installed distribution's version, else (a source tree that is not installed) the one in
    ``pyproject.toml`` next to the package."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("rummy_env")
    except PackageNotFoundError:
        pyproject = Path(__file__).resolve().parent.parent / "pyproject.toml"
        text = pyproject.read_text(encoding="utf-8") if pyproject.exists() else ""
        found = re.search(r'^version\s*=\s*"([^"]+)"', text, re.MULTILINE)
        return found.group(1) if found else "0+unknown"


def __getattr__(name: str):
    """Load a submodule (or ``__version__``) on first access."""
    if name in SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    if name == "__version__":
        globals()["__version__"] = value = _version()
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


def _register_with_pettingzoo() -> None:
    """Add the five games to PettingZoo's registry (entry points as text: no game module loads)."""
    import pettingzoo

    if hasattr(pettingzoo, "register"):
        for env_id, entry_point in PETTINGZOO_IDS.items():
            pettingzoo.register("aec", env_id, entry_point=entry_point)


def _register_with_gymnasium() -> None:
    """Add the five games' single-agent envs to Gymnasium's registry (entry points as text)."""
    import gymnasium

    for env_id, entry_point in PETTINGZOO_IDS.items():
        if env_id not in gymnasium.registry:
            game = entry_point.split(":")[0].rsplit(".", 1)[1]
            gymnasium.register(env_id, entry_point="rummy_env.agents.gym_env:single_agent_env",
                               kwargs={"game": game})


_register_with_pettingzoo()
_register_with_gymnasium()
