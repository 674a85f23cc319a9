"""Win share of a learned policy against random seats: the measure the RL-library recipes
(``examples/``, ``docs/guides/rl_libraries.md``) report.

The learner sits at a given seat or one drawn from each deal seed; the other seats play uniformly random legal
moves (:class:`rummy_env.gym_wrapper.SingleAgentEnv`). A game is a win when the learner's episode
return is the single highest (Tongits: most chips won; I Doubt It: first out). Par is
``1 / num_players``; the interval is Wilson's 95% score interval.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from rummy_env.gym_wrapper import SingleAgentEnv

from .io import write_json

Policy = Callable[[np.ndarray, np.ndarray], int]
"""(observation, int8 action mask) -> action id."""

Z95 = 1.959964


def wilson_interval(wins: int, games: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval for a proportion of ``wins`` in ``games``."""
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    share = wins / games
    centre = (share + z * z / (2 * games)) / (1 + z * z / games)
    half = z * np.sqrt(share * (1 - share) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return max(0.0, float(centre - half)), min(1.0, float(centre + half))


def random_policy(seed: int) -> Policy:
    """Uniformly random legal moves (the reference a learner is compared with)."""
    rng = np.random.default_rng(seed)
    return lambda obs, mask: int(rng.choice(np.flatnonzero(mask)))


def win_share(game: str, policy: Policy, games: int, first_seed: int, seat: int | str = "random",
              **options) -> dict:
    """Play ``games`` episodes on deal seeds ``first_seed ..`` with the learner at ``seat`` (an int,
    or ``"random"``: drawn from each deal seed) and count its wins."""
    env = SingleAgentEnv(game, seat=seat, **options)
    wins = 0
    for i in range(games):
        obs, info = env.reset(seed=first_seed + i)
        over = False
        while not over:
            obs, _, terminated, truncated, info = env.step(policy(obs, info["action_mask"]))
            over = terminated or truncated
        returns = info["returns"]
        wins += int(returns[info["seat"]] > np.delete(returns, info["seat"]).max())
    low, high = wilson_interval(wins, games)
    return {"games": games, "wins": wins, "win_share": wins / games, "ci95": [low, high],
            "par": 1 / env.num_players, "deal_seeds": [first_seed, first_seed + games - 1]}


def write_result(path: str, record: dict, origin: dict) -> None:
    """``record`` with ``origin`` (the :func:`rummy_env.experiments.io.provenance` taken when the run
    started), written atomically as JSON."""
    write_json(path, {**record, "provenance": origin})
