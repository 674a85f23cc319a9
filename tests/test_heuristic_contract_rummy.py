"""Tests of agents/heuristic_contract_rummy.py: it beats the random agent clearly and decides
from public information only."""
from __future__ import annotations

import numpy as np

from rummy_env.agents.base import RandomAgent
from rummy_env.agents.heuristic_contract_rummy import ContractRummyHeuristic
from rummy_env import contract_rummy_v0
from tests.harness import agent_ignores_hidden_information, play_agents
from tests.redeals import redeal_contract_rummy as redeal


def play_match(seed: int, heuristic_seat: int, deals, check=None) -> list[int]:
    """A 4-seat match, one heuristic against three random agents; returns the final totals."""
    agents = [RandomAgent() for _ in range(4)]
    agents[heuristic_seat] = ContractRummyHeuristic()
    env = contract_rummy_v0.raw_env(deals=deals, max_turns_per_deal=60)
    return list(play_agents(env, agents, seed, check).scores)


def test_heuristic_beats_random():
    """Over 42 one-deal matches (every contract, seats rotating) the heuristic's penalty total is
    under 60% of the random agents' average, and it has the lowest total in most matches."""
    mine, theirs, best = 0, 0.0, 0
    for g in range(42):
        seat = g % 4
        scores = play_match(g, seat, deals=(g % 7 + 1,))
        mine += scores[seat]
        others = [s for i, s in enumerate(scores) if i != seat]
        theirs += sum(others) / 3
        best += scores[seat] <= min(others)
    assert mine < 0.6 * theirs, (mine, theirs)
    assert best >= 26, best


def test_heuristic_ignores_hidden_cards():
    """Re-dealing the other hands' unknown cards and the stock never changes the choice."""
    rng = np.random.default_rng(0)
    checked = [0, 0]

    for seed in range(4):
        heuristic_seat = seed % 4

        def check(game, seat, action):
            if seat == heuristic_seat:
                checked[1] += agent_ignores_hidden_information(ContractRummyHeuristic, game, seat, action,
                                                               redeal, rng, 2)
                checked[0] += 2

        play_match(seed, heuristic_seat, deals=(seed % 7 + 1, 7 - seed % 7), check=check)
    assert checked[0] > 100 and checked[1] > 0.8 * checked[0]
