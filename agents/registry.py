"""Agent specs (strings on a command line) -> agent instances.

Specs:

- ``random``: :class:`rummy_env.agents.base.RandomAgent`, uniform over the legal actions.
- ``heuristic``: the game's rule-based baseline, ``agents/heuristic_<game>.py`` (imported only
  when asked for).
- ``ismcts``, ``ismcts:N``, ``ismcts:N:rollout=heuristic``, ``ismcts:seconds=S``: the search agent
  :class:`rummy_env.agents.ismcts.ISMCTSAgent` (keys ``seconds``, ``rollout``, ``c``, ..., see
  :func:`rummy_env.agents.specs.parse_ismcts_spec`); it decides from the seat's information state
  (``agent.act_on(env.information_state(seat))``, :mod:`rummy_env.information_state`).
- ``pimc``, ``pimc:W``, ``pimc:W:screen=S:candidates=K:z=Z``: the search-improved rule-based agent
  :class:`rummy_env.agents.pimc.PIMCAgent` (determinized flat Monte Carlo over a few candidates, see
  :func:`rummy_env.agents.specs.parse_pimc_spec`); played like ``ismcts``. ``value=ppo:depth=D``
  cuts rollouts off after D steps and scores them with the committed PPO value head; ``base=ppo``
  makes the PPO policy's move the default one.
- An ``ismcts`` or ``pimc`` spec is laid over the game's best known recipe
  (:mod:`rummy_env.agents.presets`): ``ismcts`` alone is the recipe, ``ismcts:N`` the recipe at N
  iterations (``pimc:W``: W test worlds), a knob written out replaces the recipe's;
  ``preset=none`` starts from the agent's own defaults.
- ``ppo:PATH``: a trained policy, :func:`load_ppo_agent` (torch is imported only then).
- ``llm:model=NAME[:base_url=URL][:temperature=T][:retries=N][:timeout=S][:fallback=heuristic|random]``:
  any OpenAI-compatible chat model through the text protocol, :class:`rummy_env.agents.llm.LLMAgent`
  (:func:`rummy_env.agents.specs.parse_llm_spec`; the ``llm`` extra); played like ``ismcts``.
- ``ppo``: the game's committed best policy, ``checkpoints/<game>/policy_fp16.pt`` of the repository,
  or with the env's options the committed one trained on them (Contract Rummy under its default
  rules: ``checkpoints/contract_rummy/default_rules/policy_fp16.pt``;
  :func:`rummy_env.agents.policy_checkpoint.committed_checkpoint`; a ``ValueError`` saying where it looked
  when the folder is missing, e.g. in a wheel install).

This is the one module that imports the agent families (the rule-based agents, ``ismcts``, ``pimc``,
``llm``, the PPO agent): it gives each the parts it is built from (the search agents their
rule-based agent class, ``pimc:base=ppo`` its PPO agent, a policy with a prior its rule-based agent).
Every error is a ``ValueError`` with a one-line message, so command-line tools can print it.
"""
from __future__ import annotations

import importlib
import os

from rummy_env.registry import game_key, game_module, make_raw_env

from .base import Agent, RandomAgent
from .presets import resolve_spec
from .specs import parse_ismcts_spec, parse_llm_spec, parse_pimc_spec

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


def check_agent_spec(spec: str, game: str) -> None:
    """Raise ``ValueError`` if ``spec`` cannot give an agent for ``game``, without building it
    (a ``ppo:`` spec is checked for an existing file but not loaded; a search or ``llm`` spec is
    built, which checks its values)."""
    key = game_key(game)
    if spec == "random":
        return
    if spec == "heuristic":
        heuristic_class(key)
        return
    if spec == "ppo":
        from .policy_checkpoint import committed_checkpoint
        committed_checkpoint(key)
        return
    if spec.startswith("ppo:"):
        path = spec[4:]
        if not path:
            raise ValueError("agent spec 'ppo:' needs a checkpoint path, e.g. ppo:runs/rummy/model.pt")
        if not os.path.exists(path):
            raise ValueError(f"agent spec {spec!r}: no such checkpoint file {path!r}")
        return
    if family_agent(spec, key, None) is None:
        raise ValueError(f"unknown agent {spec!r}: choose one of {', '.join(AGENT_SPECS)}")


def family_agent(spec: str, key: str, options: dict | None) -> Agent | None:
    """The ``ismcts``, ``pimc`` or ``llm`` agent of ``spec`` for the game ``key`` (None for a spec of
    another family), given its rule-based agent class and, for ``pimc:base=ppo``, the committed PPO
    policy's greedy agent (checked against ``options`` when given)."""
    if spec == "ismcts" or spec.startswith("ismcts:"):
        from .ismcts import ISMCTSAgent
        return ISMCTSAgent(key, heuristic_class(key), **parse_ismcts_spec(resolve_spec(spec, key)))
    if spec == "pimc" or spec.startswith("pimc:"):
        from .pimc import PIMCAgent
        kwargs = parse_pimc_spec(resolve_spec(spec, key))
        if kwargs.get("base") == "ppo":
            from .policy_checkpoint import committed_checkpoint
            kwargs["base_agent"] = load_ppo_agent(committed_checkpoint(key), key, options=options)
        return PIMCAgent(key, heuristic_class(key), **kwargs)
    if spec.startswith("llm:"):
        from .llm import LLMAgent
        kwargs = parse_llm_spec(spec)
        fallback = heuristic_class(key)() if kwargs.get("fallback", "heuristic") == "heuristic" else None
        return LLMAgent(key, **kwargs, fallback_agent=fallback)
    return None


def make_agent(spec: str, game: str, options: dict | None = None) -> Agent:
    """A fresh agent for ``spec`` playing ``game`` (see the module docstring for the specs); with the
    env's ``options``, a ``ppo`` policy checks them against its training options."""
    key = game_key(game)
    if spec == "random":
        return RandomAgent()
    if spec == "heuristic":
        return heuristic_class(key)()
    agent = family_agent(spec, key, options)
    if agent is not None:
        return agent
    check_agent_spec(spec, game)
    from .policy_checkpoint import committed_checkpoint
    return load_ppo_agent(committed_checkpoint(key, options) if spec == "ppo" else spec[4:], key, options=options)


def load_ppo_agent(path: str, game: str | None = None, greedy: bool = True,
                   options: dict | None = None):
    """A :class:`rummy_env.agents.ppo_agent.PPOAgent` from a checkpoint file (CPU), with its prior's
    agent when the network has one (its ``prior`` is an agent spec). ``ValueError`` if the file is
    not a PPO checkpoint or was trained on another game than ``game`` (``"rummy"`` or
    ``"rummy_v0"``). With the env's ``options`` (and ``game``): see
    :func:`rummy_env.agents.policy_checkpoint.check_options`."""
    from .policy_checkpoint import check_layout, check_options, load_checkpoint, policy_from_checkpoint
    from .ppo_agent import PPOAgent
    data = load_checkpoint(path, game)
    net = policy_from_checkpoint(data)
    trained_on = data.get("game")
    net.name = f"{trained_on} checkpoint {path}"
    if game is not None and trained_on is not None:
        key = game_key(game)
        if options is not None:
            check_options(path, data, key, options)
        elif "observation_layout" in data:
            check_layout(path, data, make_raw_env(key, **data.get("options", {})).observation_layout())
    if net.prior and trained_on is None:
        raise ValueError(f"{net.name} has the prior {net.prior!r}: loading it needs the checkpoint's game")
    return PPOAgent(net, greedy=greedy, prior_agent=make_agent(net.prior, trained_on) if net.prior else None)


def policy_for_game(game: str, obs_size: int, num_actions: int, hidden: str = "256,256",
                    conv_channels: int = 32, head: str = "flat", factor_dim: int = 32,
                    prior: str = "", prior_weight: float = 5.0, prior_candidates: int = 0):
    """A fresh :class:`rummy_env.agents.policy_net.PolicyNet` for ``game``: ``hidden`` is
    comma-separated layer widths; the conv board reader is added when the game module exposes
    ``OBS_BOARD_SHAPE`` (Ginny-O); ``head`` ``"factored"`` reads the game's ``ACTION_GRID`` (Ginny-O;
    ``ValueError`` for a game without one); ``prior`` (an agent spec) ``"heuristic"`` adds the
    residual over the rule-based agent (``ValueError`` for another spec); ``prior_candidates`` K
    restricts it to the rule-based agent's K best moves (``ValueError`` for a game whose rule-based
    agent does not rank its moves)."""
    from .policy_net import PolicyNet
    module = game_module(game)
    if head == "factored" and not hasattr(module, "ACTION_GRID"):
        raise ValueError(f"{game_key(game)} has no action grid for a factored policy head (only ginny_o has)")
    if prior not in ("", "heuristic"):
        raise ValueError(f"policy prior must be '' (none) or 'heuristic', got {prior!r}")
    if prior and prior_candidates and not hasattr(heuristic_class(game), "ranked_actions"):
        raise ValueError(f"prior candidates need a rule-based agent that ranks its moves; {game_key(game)}'s does not")
    return PolicyNet(obs_size, num_actions, tuple(int(h) for h in hidden.split(",") if h),
                     board_shape=getattr(module, "OBS_BOARD_SHAPE", None),
                     board_offset=getattr(module, "OBS_BOARD_OFFSET", 0), conv_channels=conv_channels,
                     obs_log1p=True, head=head, action_grid=getattr(module, "ACTION_GRID", None),
                     factor_dim=factor_dim, prior=prior, prior_weight=prior_weight,
                     prior_candidates=prior_candidates)


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
