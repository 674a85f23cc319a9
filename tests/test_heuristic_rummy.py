"""Tests of agents/heuristic_rummy.py: it beats the random agent and decides from public
information only."""
from __future__ import annotations

import numpy as np

from rummy_env.agents.base import RandomAgent
from rummy_env.agents.heuristic_rummy import RummyHeuristic
from rummy_env import rummy_v0
from tests.harness import agent_ignores_hidden_information, play_agents
from tests.redeals import redeal_rummy as redeal


def play_round(seed: int, heuristic_seat: int, check=None) -> list[int]:
    """One-round 2-player match, heuristic vs random; returns the final totals."""
    agents = [RandomAgent(), RandomAgent()]
    agents[heuristic_seat] = RummyHeuristic()
    return list(play_agents(rummy_v0.raw_env(max_rounds=1, target_score=0), agents, seed, check).scores)


def test_heuristic_beats_random():
    """In 200 one-round games (seats alternating) the heuristic outscores the random agent in >= 90%."""
    wins = 0
    for g in range(200):
        seat = g % 2
        scores = play_round(g, seat)
        wins += scores[seat] > scores[1 - seat]
    assert wins >= 180, wins


def test_heuristic_ignores_hidden_cards():
    """Re-dealing the opponent's unknown cards and the stock never changes the heuristic's choice."""
    rng = np.random.default_rng(0)
    checked = [0, 0]

    for seed in range(6):
        heuristic_seat = seed % 2

        def check(game, seat, action):
            if seat == heuristic_seat:
                checked[1] += agent_ignores_hidden_information(RummyHeuristic, game, seat, action, redeal, rng, 3)
                checked[0] += 3

        play_round(seed, heuristic_seat, check)
    assert checked[0] > 50 and checked[1] > 0.8 * checked[0]
