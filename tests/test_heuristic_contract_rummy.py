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


def test_candidate_plans_rank_draws_and_discards_with_the_choice_first():
    """``candidate_plans`` (for ``pimc moves=plans``): after a draw or a discard, one-action moves
    of legal draws or discards, the chosen one first and no repeats; after any other decision
    (meld, lay-off), None."""
    env = contract_rummy_v0.raw_env(deals=(1, 2), max_turns_per_deal=60)
    env.reset(seed=5)
    game = env.game
    agent = ContractRummyHeuristic()
    agent.reset(0, 0)
    seen = {"draw": 0, "discard": 0, "other": 0}
    while not game.done and sum(seen.values()) < 400:
        seat = game.current_player
        view, mask = game.view(seat), game.legal_mask().copy()
        action = agent.act(game.observation(seat), mask, view)
        plans = agent.candidate_plans(3)
        kind = view["phase"] if view["phase"] == "draw" else \
            "discard" if view["legal_actions"][list(np.flatnonzero(mask)).index(action)].startswith("discard ") else "other"
        seen[kind] += 1
        if kind == "other":
            assert plans is None
        else:
            assert plans[0] == [action] and all(len(p) == 1 and mask[p[0]] for p in plans)
            assert len({p[0] for p in plans}) == len(plans) == min(3, len(agent._ranked))
        game.step(action)
    assert min(seen.values()) >= 20, seen
