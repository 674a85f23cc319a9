"""Gymnasium entry point of ``rummy_env/<Name>-v0``: the single-agent env with its opponents named by
agent specs.

Importing :mod:`rummy_env` registers the five ids; ``gymnasium.make`` calls
:func:`single_agent_env`, which lives here because the opponents are agents::

    env = gymnasium.make("rummy_env/Tongits-v0", opponents="heuristic", hands_per_match=1)
    env.unwrapped.action_masks()     # sb3-contrib MaskablePPO's mask
"""
from __future__ import annotations

from rummy_env.agent import Agent
from rummy_env.gym_wrapper import SingleAgentEnv

from .registry import make_agent

SEARCH_SPECS = ("ismcts", "pimc")


def single_agent_env(game: str, opponents: str | list[str | Agent] = "random", **kwargs) -> SingleAgentEnv:
    """:class:`SingleAgentEnv` of ``game`` (``rummy_v0`` or ``rummy``); ``opponents`` is one agent spec
    (``random``, ``heuristic``, ``ppo``, ``ppo:PATH``) for every other seat, or a list of specs or
    agents, one per other seat. Search specs are refused: they need the AEC env bound to them."""
    specs = [opponents] if isinstance(opponents, str) else list(opponents)
    for spec in specs:
        if isinstance(spec, str) and spec.split(":")[0] in SEARCH_SPECS:
            raise ValueError(f"opponent {spec!r}: search agents need the AEC env; use random, heuristic or ppo")
    options = {k: v for k, v in kwargs.items() if k not in ("seat", "render_mode", "illegal_action_penalty")}
    agents = [make_agent(spec, game, options) if isinstance(spec, str) else spec for spec in specs]
    return SingleAgentEnv(game, opponents=agents, **kwargs)
