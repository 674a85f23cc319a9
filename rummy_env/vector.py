"""Batched self-play: N engines of one game stepped together, numpy in and numpy out.

    from rummy_env.vector import VectorGames
    vg = VectorGames("rummy", num_envs=64, seed=0, reward_mode="win_loss", max_rounds=1)
    obs, mask, seat = vg.observe()          # (N, obs_dim) float32, (N, num_actions) int8, (N,) int64
    out = vg.step(actions)                  # actions: (N,) ints, legal under ``mask``
    out.rewards                             # (N, num_players) float32, this step's per-seat rewards
    out.done, out.returns                   # (N,) bool; (N, num_players) episode returns where done
    out.scored                              # (N,) bool: a deal (round, hand) was scored on this step

The engines are the games' own (the packages ``rummy_env/games/<game>/``) used directly, without the
PettingZoo layer: ``observe`` asks each engine for the seat to act, its observation and its mask;
``step`` applies one action per engine. A finished game is replaced at once by a new deal (auto
reset), and ``step`` reports that episode's per-seat returns (the sum of its step rewards, the same
numbers the AEC env's ``_cumulative_rewards`` add up to) and length. Environment ``i`` draws its deals
from its own generator, spawned from ``seed`` by ``numpy.random.SeedSequence``, so a run is
reproducible from the seed and independent of the order in which environments are stepped.
A ``VectorGames`` pickles whole (engines and generators), which is how training checkpoints it.

Stepping an illegal action raises ``ValueError`` naming the environment, the action text and the
engine's reason, before any engine is stepped (the batch is all or nothing).
"""
from __future__ import annotations

from types import ModuleType
from typing import NamedTuple

import numpy as np

from .registry import game_module


class StepResult(NamedTuple):
    """What :meth:`VectorGames.step` returns, one row per stepped environment."""

    rewards: np.ndarray
    """(k, num_players) float32: each seat's reward from this step."""
    done: np.ndarray
    """(k,) bool: the episode ended on this step (the environment now holds a new deal)."""
    truncated: np.ndarray
    """(k,) bool: of those, the ones that ended by a cap rather than a normal end."""
    returns: np.ndarray
    """(k, num_players) float32: the finished episode's per-seat returns where ``done``, else 0."""
    lengths: np.ndarray
    """(k,) int64: the finished episode's number of actions where ``done``, else 0."""
    scored: np.ndarray
    """(k,) bool: the engine scored on this step (it paid rewards: the end of a deal, round or hand,
    or of the game; in a game of several deals the episode may go on)."""


class VectorGames:
    """``num_envs`` engines of ``game`` (a registry name such as ``"rummy"``, or a ``<game>_v0``
    module) built with the env keyword ``options`` (``reward_mode``, game options)."""

    def __init__(self, game: str | ModuleType, num_envs: int, seed: int | None = None, **options):
        if int(num_envs) != num_envs or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
        module = game_module(game) if isinstance(game, str) else game
        options.pop("render_mode", None)
        if options.pop("illegal_action_penalty", False):
            raise ValueError("illegal_action_penalty is not supported by VectorGames: "
                             "it raises ValueError on an illegal action")
        self.raw = module.raw_env(**options)
        self.name: str = self.raw.metadata["name"]
        self.num_envs = int(num_envs)
        self.num_players: int = self.raw.options.num_players
        self.obs_size, self.num_actions = self.raw._sizes()
        self.seed = seed
        self.rngs = [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(self.num_envs)]
        self.games = [self._fresh(i) for i in range(self.num_envs)]
        self.episode_returns = np.zeros((self.num_envs, self.num_players), np.float32)
        self.episode_lengths = np.zeros(self.num_envs, np.int64)
        self.episodes_done = 0

    def _fresh(self, i: int):
        game = self.raw._new_game(self.rngs[i], None)
        while game.done:  # a deal that ends before any action carries no decision: deal again
            game = self.raw._new_game(self.rngs[i], None)
        return game

    def observe(self, env_ids=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(obs, mask, seat) of the seat to act in each environment (all, or ``env_ids``)."""
        games = self.games
        ids = range(self.num_envs) if env_ids is None else [int(i) for i in env_ids]
        k = len(ids)
        obs = np.empty((k, self.obs_size), np.float32)
        mask = np.empty((k, self.num_actions), np.int8)
        seat = np.empty(k, np.int64)
        for j, i in enumerate(ids):
            g = games[i]
            s = g.current_player
            seat[j] = s
            obs[j] = g.observation(s)
            mask[j] = g.legal_mask()
        return obs, mask, seat

    def observation(self, env_id: int, seat: int) -> np.ndarray:
        """What ``seat`` sees now in environment ``env_id`` (whether or not it is its turn)."""
        return self.games[env_id].observation(seat)

    def current_players(self) -> np.ndarray:
        return np.fromiter((g.current_player for g in self.games), np.int64, self.num_envs)

    def step(self, actions, env_ids=None) -> StepResult:
        """Apply ``actions[j]`` to environment ``env_ids[j]`` (default: every environment, in
        order); finished games are replaced by new deals. See :class:`StepResult`."""
        ids = np.arange(self.num_envs) if env_ids is None else np.asarray(env_ids, np.int64).reshape(-1)
        acts = np.asarray(actions).reshape(-1)
        if acts.shape[0] != ids.shape[0]:
            raise ValueError(f"got {acts.shape[0]} actions for {ids.shape[0]} environments")
        if not np.issubdtype(acts.dtype, np.integer):
            raise ValueError(f"actions must be integers, got dtype {acts.dtype}")
        games = self.games
        ids_l = ids.tolist()
        acts_l = acts.tolist()
        for i, a in zip(ids_l, acts_l):
            g = games[i]
            if not 0 <= a < self.num_actions:
                raise ValueError(f"env {i}: action {a} is outside the action space 0..{self.num_actions - 1}")
            if not g.legal_mask()[a]:
                raise ValueError(f"env {i}: illegal action {a} '{g.action_to_text(a)}' for "
                                 f"player_{g.current_player}: {g.illegal_reason(a)}")
        k = len(ids_l)
        rewards = np.zeros((k, self.num_players), np.float32)
        done = np.zeros(k, bool)
        truncated = np.zeros(k, bool)
        returns = np.zeros((k, self.num_players), np.float32)
        lengths = np.zeros(k, np.int64)
        scored = np.zeros(k, bool)
        ep_ret = self.episode_returns
        ep_len = self.episode_lengths
        for j, (i, a) in enumerate(zip(ids_l, acts_l)):
            g = games[i]
            r = g.step(a)
            ep_len[i] += 1
            if r is not None:
                rewards[j] = r
                scored[j] = True
                ep_ret[i] += rewards[j]
            if g.done:
                done[j] = True
                truncated[j] = g.truncated
                returns[j] = ep_ret[i]
                lengths[j] = ep_len[i]
                ep_ret[i] = 0.0
                ep_len[i] = 0
                self.episodes_done += 1
                games[i] = self._fresh(i)
        return StepResult(rewards, done, truncated, returns, lengths, scored)
