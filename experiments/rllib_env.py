"""RLlib (new API stack) adapter: any ``<game>_v0`` environment as a ``MultiAgentEnv``, an
action-masking PPO RLModule, and the rule-based agent as a non-trainable RLModule.

:class:`CardGameMultiAgentEnv` (``env_config``: ``game``, ``options`` (the env's keyword
arguments), ``rule_based_share`` (0.5), ``seed`` (None)):

- **Seats and agent ids.** At every reset each seat is, independently with probability
  ``rule_based_share``, played by the game's rule-based agent; the others, always at least one,
  by the learner. The agent id says which and where: ``learner_<seat>`` or ``rule_based_<seat>``.
  :func:`policy_mapping` maps every ``learner_*`` id to the one shared ``learner`` module
  (self-play when it holds several seats) and every ``rule_based_*`` id to ``rule_based``.
- **Observations** (only for the seat to act, as in the AEC env): a dict with the keys RLlib's
  action-masking module expects, ``observations`` (the flat float32 ``Box`` observation) and
  ``action_mask`` (float32 0/1 over the action ids). A rule-based id's dict also holds
  ``rule_based_action``: the rule-based agent reads the structured view (not a tensor, so it
  cannot travel through RLlib's batches), hence the adapter asks it for its choice and
  :class:`RuleBasedRLModule` plays that choice.
- **Rewards** of every seat are summed as the env pays them and handed to an agent with its next
  observation; when the episode ends every agent that acted gets its final observation and its
  remaining reward, with ``terminateds`` (the match ended) or ``truncateds`` (a cap ended it).
- **Illegal actions** are refused with a ``ValueError`` naming the agent and the action, so a
  mask that is not honoured stops sampling at once.

Nothing here is imported by the environments; RLlib and torch come from the ``ray`` extra.
"""
from __future__ import annotations

import gymnasium as gym
import numpy as np
import torch
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.rl_module import RLModule
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.rllib.utils.torch_utils import FLOAT_MIN

from rummy_env.agents.registry import make_agent
from rummy_env.registry import game_key, make_raw_env

LEARNER = "learner"
RULE_BASED = "rule_based"


def policy_mapping(agent_id: str, episode=None, **kwargs) -> str:
    """The module of an agent id: ``rule_based_<seat>`` -> ``rule_based``, else ``learner``."""
    return RULE_BASED if agent_id.startswith(RULE_BASED) else LEARNER


def card_game_spaces(game: str, options: dict) -> tuple[gym.spaces.Dict, gym.spaces.Dict, gym.spaces.Discrete]:
    """(learner observation space, rule-based observation space, action space) of a game."""
    env = make_raw_env(game, **options)
    name = env.possible_agents[0]
    observation = env.observation_space(name)["observation"]
    actions = env.action_space(name)
    mask = gym.spaces.Box(0.0, 1.0, (actions.n,), np.float32)
    learner = gym.spaces.Dict({"observations": observation, "action_mask": mask})
    rule_based = gym.spaces.Dict({"observations": observation, "action_mask": mask,
                                  "rule_based_action": gym.spaces.Discrete(actions.n)})
    return learner, rule_based, gym.spaces.Discrete(actions.n)


class CardGameMultiAgentEnv(MultiAgentEnv):
    """A rummy_env game as an RLlib ``MultiAgentEnv`` (see the module docstring)."""

    def __init__(self, config: dict | None = None) -> None:
        super().__init__()
        config = dict(config or {})
        self.game = game_key(config.get("game", "rummy"))
        self.options = dict(config.get("options", {}))
        self.rule_based_share = float(config.get("rule_based_share", 0.5))
        if not 0.0 <= self.rule_based_share <= 1.0:
            raise ValueError(f"rule_based_share must lie in [0, 1], got {self.rule_based_share}")
        self.env = make_raw_env(self.game, **self.options)
        self.names = self.env.possible_agents
        seats = range(len(self.names))
        learner_space, rule_based_space, action_space = card_game_spaces(self.game, self.options)
        self.possible_agents = [f"{LEARNER}_{s}" for s in seats] + [f"{RULE_BASED}_{s}" for s in seats]
        self.agents = []
        self.observation_spaces = {a: rule_based_space if a.startswith(RULE_BASED) else learner_space
                                   for a in self.possible_agents}
        self.action_spaces = {a: action_space for a in self.possible_agents}
        self.rng = np.random.default_rng(config.get("seed"))
        self.rule_based_agents = [make_agent("heuristic", self.game, self.options) for _ in seats]
        self.ids: list[str] = []
        self.pending = np.zeros(len(self.names))
        self.acted = np.zeros(len(self.names), dtype=bool)
        self.mask = np.zeros(action_space.n, dtype=np.float32)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        n = len(self.names)
        rule_based = self.rng.random(n) < self.rule_based_share
        if rule_based.all():
            rule_based[self.rng.integers(n)] = False  # the learner plays at least one seat
        self.ids = [f"{RULE_BASED if rule_based[s] else LEARNER}_{s}" for s in range(n)]
        self.agents = list(self.ids)
        self.env.reset(seed=int(self.rng.integers(2**63)))
        for seat in np.flatnonzero(rule_based):
            self.rule_based_agents[seat].reset(int(seat), int(self.rng.integers(2**63)))
        self.pending[:] = 0.0
        self.acted[:] = False
        seat = self.env.agent_name_mapping[self.env.agent_selection]
        return {self.ids[seat]: self._observe(seat)}, {}

    def _observe(self, seat: int) -> dict:
        """The observation dict of ``seat`` (the seat to act, or a final one with an empty mask)."""
        obs = self.env.observe(self.names[seat])
        mask = obs["action_mask"].astype(np.float32)
        out = {"observations": obs["observation"], "action_mask": mask}
        if self.ids[seat].startswith(RULE_BASED):
            view = self.env.view(seat)
            out["rule_based_action"] = (
                int(self.rule_based_agents[seat].act(obs["observation"], obs["action_mask"], view))
                if mask.any() else 0)
        if mask.any():
            self.mask = mask
        return out

    def step(self, action_dict: dict):
        seat = self.env.agent_name_mapping[self.env.agent_selection]
        agent_id = self.ids[seat]
        action = int(action_dict[agent_id])
        if not 0 <= action < len(self.mask) or not self.mask[action]:
            raise ValueError(f"{agent_id} chose action {action}, which its action mask forbids: "
                             "the policy did not honour the mask")
        self.env.step(action)
        self.acted[seat] = True
        rewards = self.env.rewards
        for s, name in enumerate(self.names):
            self.pending[s] += rewards[name]
        if self.env.terminations[self.names[0]] or self.env.truncations[self.names[0]]:
            return self._final()
        seat = self.env.agent_name_mapping[self.env.agent_selection]
        obs = {self.ids[seat]: self._observe(seat)}
        reward = {}
        if self.acted[seat]:
            reward[self.ids[seat]] = float(self.pending[seat])
            self.pending[seat] = 0.0
        return obs, reward, {"__all__": False}, {"__all__": False}, {}

    def _final(self):
        """Final observations and rewards for every agent that acted; the episode is over."""
        truncated = bool(self.env.truncations[self.names[0]])
        seats = np.flatnonzero(self.acted)
        obs = {self.ids[s]: self._observe(int(s)) for s in seats}
        rewards = {self.ids[s]: float(self.pending[s]) for s in seats}
        ended = {self.ids[s]: True for s in seats} | {"__all__": True}
        not_ended = {"__all__": False}
        self.agents = []
        return obs, rewards, not_ended if truncated else ended, ended if truncated else not_ended, {}


class ActionMaskingPPOModule(DefaultPPOTorchRLModule):
    """PPO's default torch module (MLP policy and value heads) on ``observations``, with the
    logits of the actions ``action_mask`` forbids pushed to the float minimum, so they are never
    sampled (and get no probability in the loss)."""

    def __init__(self, *, observation_space=None, **kwargs) -> None:
        if not isinstance(observation_space, gym.spaces.Dict) or "action_mask" not in observation_space.spaces:
            raise ValueError("ActionMaskingPPOModule needs a Dict observation space with 'observations' "
                             f"and 'action_mask', got {observation_space}")
        super().__init__(observation_space=observation_space["observations"], **kwargs)

    @staticmethod
    def _split(batch: dict) -> tuple[dict, torch.Tensor]:
        """The batch with the bare observations, and the action mask."""
        obs = batch[Columns.OBS]
        return {**batch, Columns.OBS: obs["observations"]}, obs["action_mask"]

    @staticmethod
    def _masked(outs: dict, mask: torch.Tensor) -> dict:
        outs[Columns.ACTION_DIST_INPUTS] = outs[Columns.ACTION_DIST_INPUTS] + torch.clamp(torch.log(mask),
                                                                                          min=FLOAT_MIN)
        return outs

    def _forward_inference(self, batch, **kwargs):
        batch, mask = self._split(batch)
        return self._masked(super()._forward_inference(batch, **kwargs), mask)

    def _forward_exploration(self, batch, **kwargs):
        batch, mask = self._split(batch)
        return self._masked(super()._forward_exploration(batch, **kwargs), mask)

    def _forward_train(self, batch, **kwargs):
        batch, mask = self._split(batch)
        return self._masked(super()._forward_train(batch, **kwargs), mask)

    def compute_values(self, batch, embeddings=None):
        if isinstance(batch[Columns.OBS], dict):
            batch, _ = self._split(batch)
        return super().compute_values(batch, embeddings)


class RuleBasedRLModule(RLModule):
    """The game's rule-based agent as a non-trainable module: plays ``rule_based_action``, the
    choice the adapter got from the agent (see the module docstring). Keep it out of
    ``policies_to_train``."""

    def _forward(self, batch, **kwargs):
        return {Columns.ACTIONS: batch[Columns.OBS]["rule_based_action"]}

    def _forward_train(self, batch, **kwargs):
        raise NotImplementedError("the rule-based module is not trainable: leave it out of policies_to_train")
