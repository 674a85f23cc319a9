"""Agent specs (strings on a command line) -> agent instances.

Specs:

- ``random``: :class:`rummy_env.agents.base.RandomAgent`, uniform over the legal actions.
- ``heuristic``: the game's rule-based baseline, ``agents/heuristic_<game>.py`` (imported only
  when asked for).
- ``ismcts``, ``ismcts:N``, ``ismcts:N:rollout=heuristic``, ``ismcts:seconds=S``: the search agent
  :class:`rummy_env.agents.ismcts.ISMCTSAgent` (keys ``seconds``, ``rollout``, ``c``, ..., see
  :func:`rummy_env.agents.ismcts.parse_ismcts_spec`); harnesses hand it the raw env with ``agent.bind(env)``.
- ``pimc``, ``pimc:W``, ``pimc:W:screen=S:candidates=K:z=Z``: the search-improved rule-based agent
  :class:`rummy_env.agents.pimc.PIMCAgent` (determinized flat Monte Carlo over a few candidates, see
  :func:`rummy_env.agents.pimc.parse_pimc_spec`); bound like ``ismcts``. ``value=ppo:depth=D``
  cuts rollouts off after D steps and scores them with the committed PPO value head; ``base=ppo``
  makes the PPO policy's move the default one.
- An ``ismcts`` or ``pimc`` spec is laid over the game's best known recipe
  (:mod:`rummy_env.agents.presets`): ``ismcts`` alone is the recipe, ``ismcts:N`` the recipe at N
  iterations (``pimc:W``: W test worlds), a knob written out replaces the recipe's;
  ``preset=none`` starts from the agent's own defaults.
- ``ppo:PATH``: a trained policy, ``rummy_env.agents.ppo_agent.load_ppo_agent(PATH, game)`` (torch is imported
  only then).
- ``llm:model=NAME[:base_url=URL][:temperature=T][:retries=N][:timeout=S][:fallback=heuristic|random]``:
  any OpenAI-compatible chat model through the text protocol, :class:`rummy_env.agents.llm.LLMAgent`
  (:func:`rummy_env.agents.llm.parse_llm_spec`; the ``llm`` extra); bound like ``ismcts``.
- ``ppo``: the game's committed best policy, ``checkpoints/<game>/policy_fp16.pt`` of the repository,
  or with the env's options the committed one trained on them (Contract Rummy under its default
  rules: ``checkpoints/contract_rummy/default_rules/policy_fp16.pt``;
  :func:`rummy_env.agents.ppo_agent.committed_checkpoint`; a ``ValueError`` saying where it looked
  when the folder is missing, e.g. in a wheel install).

Every error is a ``ValueError`` with a one-line message, so command-line tools can print it.
"""
from __future__ import annotations

import importlib
import os

from rummy_env.registry import game_key

from .base import Agent, RandomAgent
from .presets import resolve_spec

HEURISTICS = {
    "rummy": ("rummy_env.agents.heuristic_rummy", "RummyHeuristic"),
    "tongits": ("rummy_env.agents.heuristic_tongits", "TongitsHeuristic"),
    "i_doubt_it": ("rummy_env.agents.heuristic_i_doubt_it", "IDoubtItHeuristic"),
    "contract_rummy": ("rummy_env.agents.heuristic_contract_rummy", "ContractRummyHeuristic"),
    "ginny_o": ("rummy_env.agents.heuristic_ginny_o", "GinnyOHeuristic"),
}

AGENT_SPECS = ("random", "heuristic", "ismcts[:N]", "pimc[:W]", "ppo[:PATH]", "llm:model=NAME[:...]")


def heuristic_class(game: str) -> type[Agent]:
    """The rule-based agent class of ``game`` (``ValueError`` for an unknown game)."""
    module_name, class_name = HEURISTICS[game_key(game)]
    return getattr(importlib.import_module(module_name), class_name)


def rule_based_agents(cls: type[Agent], num_seats: int, rng) -> list[Agent]:
    """One rule-based agent (class ``cls``, see :func:`heuristic_class`) per seat, each reset for
    its seat with a seed drawn from the generator ``rng``: the search agents' rule-based seats."""
    agents = []
    for seat in range(num_seats):
        agent = cls()
        agent.reset(seat, int(rng.integers(2**31)))
        agents.append(agent)
    return agents


def check_agent_spec(spec: str, game: str) -> None:
    """Raise ``ValueError`` if ``spec`` cannot give an agent for ``game``, without building it
    (a ``ppo:`` spec is checked for an existing file but not loaded)."""
    key = game_key(game)
    if spec == "random":
        return
    if spec == "heuristic":
        heuristic_class(key)
        return
    if spec == "ismcts" or spec.startswith("ismcts:"):
        from .ismcts import ISMCTSAgent, parse_ismcts_spec
        ISMCTSAgent(key, **parse_ismcts_spec(resolve_spec(spec, key)))
        return
    if spec == "pimc" or spec.startswith("pimc:"):
        from .pimc import PIMCAgent, parse_pimc_spec
        PIMCAgent(key, **parse_pimc_spec(resolve_spec(spec, key)))
        return
    if spec.startswith("llm:"):
        from .llm import LLMAgent, parse_llm_spec
        LLMAgent(key, **parse_llm_spec(spec))
        return
    if spec == "ppo":
        from .ppo_agent import committed_checkpoint
        committed_checkpoint(key)
        return
    if spec.startswith("ppo:"):
        path = spec[4:]
        if not path:
            raise ValueError("agent spec 'ppo:' needs a checkpoint path, e.g. ppo:runs/rummy/model.pt")
        if not os.path.exists(path):
            raise ValueError(f"agent spec {spec!r}: no such checkpoint file {path!r}")
        return
    raise ValueError(f"unknown agent {spec!r}: choose one of {', '.join(AGENT_SPECS)}")


def make_agent(spec: str, game: str, options: dict | None = None) -> Agent:
    """A fresh agent for ``spec`` playing ``game`` (see the module docstring for the specs); with the
    env's ``options``, a ``ppo:`` checkpoint checks them against its training options."""
    check_agent_spec(spec, game)
    key = game_key(game)
    if spec == "random":
        return RandomAgent()
    if spec == "heuristic":
        return heuristic_class(key)()
    if spec == "ismcts" or spec.startswith("ismcts:"):
        from .ismcts import ISMCTSAgent, parse_ismcts_spec
        return ISMCTSAgent(key, **parse_ismcts_spec(resolve_spec(spec, key)))
    if spec == "pimc" or spec.startswith("pimc:"):
        from .pimc import PIMCAgent, parse_pimc_spec
        return PIMCAgent(key, **parse_pimc_spec(resolve_spec(spec, key)))
    if spec.startswith("llm:"):
        from .llm import LLMAgent, parse_llm_spec
        return LLMAgent(key, **parse_llm_spec(spec))
    from .ppo_agent import committed_checkpoint, load_ppo_agent
    return load_ppo_agent(committed_checkpoint(key, options) if spec == "ppo" else spec[4:], key, options=options)


def agent_labels(specs: list[str]) -> list[str]:
    """Display names for a list of specs, unique: repeated specs get ``#1``, ``#2``, ...;
    ``ppo:dir/model.pt`` shows as ``ppo:model.pt``, or with as many parent folders as it takes to
    tell it from another checkpoint of the same file name (``ppo:run_a/model.pt``)."""
    paths = {s[4:] for s in specs if s.startswith("ppo:")}
    short = [f"ppo:{_short_path(s[4:], paths - {s[4:]})}" if s.startswith("ppo:") else s for s in specs]
    labels = []
    for i, name in enumerate(short):
        if short.count(name) > 1:
            name = f"{name}#{short[:i].count(name) + 1}"
        labels.append(name)
    return labels


def _short_path(path: str, others: set[str]) -> str:
    """The fewest trailing parts of ``path`` that no path in ``others`` ends with."""
    parts = os.path.normpath(path).split(os.sep)
    other_parts = [os.path.normpath(o).split(os.sep) for o in others]
    for n in range(1, len(parts) + 1):
        tail = parts[-n:]
        if all(o[-n:] != tail for o in other_parts):
            return "/".join(tail)
    return "/".join(parts)
