"""A trained policy (:class:`rummy_env.agents.policy_net.PolicyNet`) as an
:class:`rummy_env.agents.base.Agent`. ``experiments/train_ppo.py`` trains the network and writes
checkpoints; any of them (the full training checkpoint ``checkpoint.pt`` or the small ``policy.pt``
export) loads as an agent with :func:`rummy_env.agents.registry.load_ppo_agent`:

    from rummy_env.agents.registry import load_ppo_agent
    agent = load_ppo_agent("checkpoints/rummy/policy_fp16.pt", "rummy")   # greedy by default
    agent.reset(seat=0, seed=1)
    action = agent.act(observation, action_mask, view)
"""
from __future__ import annotations

import numpy as np
import torch

from .base import Agent
from .policy_net import PolicyNet, prior_ids, with_prior


class PPOAgent(Agent):
    """Plays a trained :class:`PolicyNet`: the arg-max legal action (``greedy=True``) or a sample from
    the masked policy, seeded by :meth:`reset`. A network with a ``prior`` is given its rule-based
    agent (``prior_agent``, reset with this agent; :func:`rummy_env.agents.registry.load_ppo_agent`
    builds it) for the prior's action, so it reads the view."""

    name = "ppo"

    def __init__(self, net: PolicyNet, greedy: bool = True, prior_agent: Agent | None = None):
        if bool(net.prior) != (prior_agent is not None):
            raise ValueError(f"{net.name} has the prior {net.prior!r}: PPOAgent needs its rule-based agent"
                             if net.prior else f"{net.name} has no prior: PPOAgent takes no prior agent")
        self.net = net
        self.greedy = greedy
        self.generator = torch.Generator()
        self.prior_agent = prior_agent
        self.uses_view = prior_agent is not None
        self.reset(0, None)

    def reset(self, seat: int, seed: int | None = None) -> None:
        super().reset(seat, seed)
        self.generator.manual_seed(int(self.rng.integers(2**63 - 1)))
        if self.prior_agent is not None:
            self.prior_agent.reset(seat, int(self.rng.integers(2**63 - 1)))

    def act(self, observation: np.ndarray, action_mask: np.ndarray, view: dict) -> int:
        cfg = self.net.config
        if observation.shape != (cfg["obs_size"],) or action_mask.shape != (cfg["num_actions"],):
            raise ValueError(f"this policy takes observations of {cfg['obs_size']} and {cfg['num_actions']} "
                             f"actions, got {observation.shape} and {action_mask.shape}")
        inputs = observation[None]
        if self.prior_agent is not None:
            inputs = with_prior(inputs, prior_ids(self.prior_agent, observation, action_mask, view,
                                                 self.net.prior_candidates))
        return int(self.net.act(inputs, action_mask[None], self.greedy, self.generator)[0])
