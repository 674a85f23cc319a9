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


def test_meld_tables_agree_with_classify():
    """The heuristic's precomputed meld tables answer as the rules' ``classify`` does: the discard
    completes a meld with the hand exactly when some two hand cards make a legal meld with it (a
    longer legal meld holding it always holds a legal three-card one), and a card extends a table
    meld exactly when the meld plus the card is legal; both ace rules, 3,000 random hands."""
    from itertools import combinations

    from rummy_env.agents.heuristic_rummy import _LEGAL_MELDS, _MELDS_WITH
    from rummy_env.cards import BIT, cards_of, mask_of
    from rummy_env.melds import classify

    rng = np.random.default_rng(7)
    checked = {"draw": 0, "extend": 0, "completes": 0, "extends": 0}
    for trial in range(3000):
        ace_high = bool(trial % 2)
        deal = rng.permutation(52)
        top, hand = int(deal[0]), [int(c) for c in deal[1:1 + int(rng.integers(2, 12))]]
        with_top = mask_of(hand) | BIT[top]
        by_table = any(not meld & ~with_top for meld in _MELDS_WITH[ace_high][top])
        by_rules = any(classify([a, b, top], ace_high) is not None for a, b in combinations(hand, 2))
        assert by_table == by_rules, (ace_high, top, hand)
        checked["draw"] += 1
        checked["completes"] += by_rules
        meld = sorted(_LEGAL_MELDS[ace_high])[int(rng.integers(len(_LEGAL_MELDS[ace_high])))]
        card = int(rng.choice([c for c in range(52) if not meld & BIT[c]]))
        extends = classify(cards_of(meld) + [card], ace_high) is not None
        assert ((meld | BIT[card]) in _LEGAL_MELDS[ace_high]) == extends, (ace_high, meld, card)
        checked["extend"] += 1
        checked["extends"] += extends
    assert checked["draw"] == checked["extend"] == 3000, checked
    assert 100 < checked["completes"] < 2900 and 30 < checked["extends"] < 2900, checked
