"""Gymnasium single-agent view of a game: one seat learns, the other seats are played by agents.

    from rummy_env.gym_wrapper import SingleAgentEnv
    env = SingleAgentEnv("rummy", seat="random", reward_mode="win_loss", max_rounds=1)
    obs, info = env.reset(seed=0)            # obs: float32 (obs_dim,); info["action_mask"]: int8
    obs, reward, terminated, truncated, info = env.step(action)
    env.action_masks()                       # bool mask, what sb3-contrib's MaskablePPO asks for

* The learner's seat is ``seat`` (an int) or drawn from the env's generator at every reset
  (``"random"``). The other seats are played, in seat order, by ``opponents``: agents with the
  :class:`rummy_env.agent.Agent` interface (default one :class:`rummy_env.agent.RandomAgent` per seat; a
  list of one agent is copied for every other seat). Each is ``reset(seat, seed)`` at every episode
  with a seed drawn from the env's generator, so an episode is reproducible from ``reset(seed=...)``.
* ``step`` applies the learner's action, then lets the opponents play until it is the learner's
  turn again or the episode ends. The reward is the learner's rewards summed over that stretch
  (its own step and every opponent step after it; the first step also carries what the seat got
  before its first turn), so the episode's rewards add up to the seat's return in the AEC env.
  ``terminated``/``truncated`` follow the engine (truncated: ended by a cap).
* A deal that ends before the learner's first turn is replaced by a new one (from the same
  generator), so every ``reset`` returns a position where the learner has a legal action.
* Illegal learner actions: by default (``illegal_action_penalty=True``, PettingZoo classic's
  convention) the learner gets -1 and the episode terminates, with ``info["illegal_action"]`` naming
  the action text; with ``illegal_action_penalty=False`` the step raises ``ValueError`` naming the
  action text and why, state unchanged.
* ``info`` carries ``action_mask`` (int8, a copy), ``seat`` and, at the episode end, ``returns``
  (every seat's episode return).
* The observation space is the raw env's finite Box (``raw.observation_box``; clipped parts are
  clipped, see :mod:`rummy_env.base`). Render modes: ``ansi``, ``human`` and ``rgb_array`` (the
  learner's view). Episode caps are Gymnasium's: ``gymnasium.make(..., max_episode_steps=N)``;
  the AEC-only options ``action_mask`` and ``max_cycles`` are refused.
* Importing :mod:`rummy_env` registers ``rummy_env/<Name>-v0`` (the PettingZoo ids) with Gymnasium:
  ``gymnasium.make("rummy_env/Tongits-v0", opponents="heuristic", **options)`` builds this env,
  the opponents given as agent specs (:func:`rummy_env.agents.gym_env.single_agent_env`).
"""
from __future__ import annotations

import copy
from types import ModuleType

import gymnasium as gym
import numpy as np
from gymnasium import spaces


from .actions import check_action_id
from .agent import Agent, RandomAgent
from .registry import game_module


class SingleAgentEnv(gym.Env):
    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 1}

    def __init__(self, game: str | ModuleType = "rummy", opponents: list[Agent] | None = None,
                 seat: int | str = 0, render_mode: str | None = None,
                 illegal_action_penalty: bool = True, **options):
        module = game_module(game) if isinstance(game, str) else game
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not one of {self.metadata['render_modes']}")
        if not isinstance(illegal_action_penalty, bool):
            raise ValueError(f"illegal_action_penalty must be a bool, got {illegal_action_penalty!r}")
        aec_only = sorted({"action_mask", "max_cycles"} & set(options))
        if aec_only:
            raise ValueError(f"option(s) {aec_only} belong to the AEC env; the single-agent env's observation is "
                             f"the Box with the mask in info, and gymnasium.make(..., max_episode_steps=N) caps it")
        self.raw = module.raw_env(**options)
        self.metadata = {**self.metadata, "name": self.raw.metadata["name"]}
        self.render_mode = render_mode
        self.illegal_action_penalty = illegal_action_penalty
        self.num_players: int = self.raw.options.num_players
        n = self.num_players
        if seat != "random" and not (isinstance(seat, (int, np.integer)) and 0 <= seat < n):
            raise ValueError(f"seat must be 0..{n - 1} or 'random', got {seat!r}")
        self.seat_option = seat
        if opponents is None:
            opponents = [RandomAgent() for _ in range(n - 1)]
        opponents = list(opponents)
        if len(opponents) == 1 and n > 2:
            opponents += [copy.deepcopy(opponents[0]) for _ in range(n - 2)]
        if len(opponents) != n - 1:
            raise ValueError(f"opponents must list 1 or {n - 1} agents for {n} players, got {len(opponents)}")
        self.opponents = opponents
        _, num_actions = self.raw._sizes()
        self.observation_space = self.raw.observation_box
        self.action_space = spaces.Discrete(num_actions)
        self.game = None
        self.seat = 0 if seat == "random" else int(seat)
        self._seat_agents: dict[int, Agent] = {}
        self._returns = np.zeros(n, np.float64)
        self._ended = False
        self._carry = 0.0

    # -- helpers ------------------------------------------------------------------------------
    def _play_opponents(self) -> float:
        """Let the other seats act until the learner's turn or the end; the learner's reward sum."""
        game = self.game
        total = 0.0
        while not game.done and game.current_player != self.seat:
            s = game.current_player
            mask = game.legal_mask().copy()
            a = int(self._seat_agents[s].act(game.observation(s), mask, game.view(s)))
            if not 0 <= a < mask.shape[0] or not mask[a]:
                raise ValueError(f"opponent {type(self._seat_agents[s]).__name__} at player_{s} chose "
                                 f"illegal action {a}")
            total += self._add(game.step(a))
        return total

    def _add(self, rewards) -> float:
        if rewards is None:
            return 0.0
        self._returns += rewards
        return float(rewards[self.seat])

    def _observe(self) -> np.ndarray:
        return self.raw.clip_observation(self.game.observation(self.seat))

    def _info(self) -> dict:
        info = {"action_mask": self._mask(), "seat": self.seat}
        if self.game.done:
            info["returns"] = self._returns.copy()
        return info

    def _mask(self) -> np.ndarray:
        if self._ended or self.game.done:
            return np.zeros(self.action_space.n, np.int8)
        return self.game.legal_mask().copy()

    # -- gymnasium API --------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        deal = None
        if options:
            unknown = set(options) - {"deal"}
            if unknown:
                raise ValueError(f"unknown reset option(s) {sorted(unknown)}: only 'deal' is accepted")
            deal = options.get("deal")
        rng = self.np_random
        while True:
            if self.seat_option == "random":
                self.seat = int(rng.integers(self.num_players))
            others = [s for s in range(self.num_players) if s != self.seat]
            self._seat_agents = dict(zip(others, self.opponents))
            for s, agent in self._seat_agents.items():
                agent.reset(s, int(rng.integers(2**63 - 1)))
            self.game = self.raw._new_game(rng, deal)
            self._returns[:] = 0.0
            self._ended = False
            self._carry = self._play_opponents()
            if not self.game.done:
                break
            if deal is not None:
                raise ValueError("the deal ends before the learner's first turn")
        return self._observe(), self._info()

    def step(self, action):
        if self.game is None:
            raise ValueError("call reset() before step()")
        game = self.game
        if self._ended or game.done:
            raise ValueError("the episode is over: call reset()")
        a = check_action_id(action, self.action_space.n)
        if not game.legal_mask()[a]:
            text = game.action_to_text(a)
            if not self.illegal_action_penalty:
                raise ValueError(f"illegal action {a} '{text}' for player_{self.seat}: {game.illegal_reason(a)}")
            info = {"action_mask": np.zeros(self.action_space.n, np.int8), "seat": self.seat,
                    "illegal_action": text}
            self._ended = True
            return self._observe(), -1.0, True, False, info
        reward = self._carry + self._add(game.step(a))
        self._carry = 0.0
        reward += self._play_opponents()
        terminated = game.done and not game.truncated
        truncated = game.done and game.truncated
        if self.render_mode == "human":
            self.render()
        return self._observe(), reward, terminated, truncated, self._info()

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the learner's legal actions (sb3-contrib ``MaskablePPO``)."""
        return self._mask().astype(bool)

    def render(self):
        if self.render_mode is None or self.game is None:
            return None
        if self.render_mode == "rgb_array":
            from .render import view_to_rgb
            return view_to_rgb(self.game.view(self.seat), self.metadata["name"])
        from .render import render_as_text
        return render_as_text(self.game.view(self.seat), self.render_mode)
