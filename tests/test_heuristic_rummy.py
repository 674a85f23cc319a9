"""Tests of agents/heuristic_rummy.py: it beats the random agent and decides from public
information only."""
from __future__ import annotations

import numpy as np

from agents.base import RandomAgent
from agents.heuristic_rummy import RummyHeuristic
from rummy_env import rummy_v0
from rummy_env.cards import BIT, cards_of


def play_round(seed: int, heuristic_seat: int, check=None) -> list[int]:
    """One-round 2-player match, heuristic vs random; returns the final totals."""
    env = rummy_v0.raw_env(max_rounds=1, target_score=0)
    env.reset(seed=seed)
    agents = [RandomAgent(), RandomAgent()]
    agents[heuristic_seat] = RummyHeuristic()
    for seat, agent in enumerate(agents):
        agent.reset(seat, seed=seed * 10 + seat)
    game = env.game
    while not game.done:
        seat = game.current_player
        obs, mask, view = game.observation(seat), game.legal_mask(), game.view(seat)
        action = agents[seat].act(obs, mask, view)
        assert mask[action]
        if check is not None and seat == heuristic_seat:
            check(game, seat, action)
        game.step(action)
    return list(game.scores)


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

    def check(game, seat, action):
        agent = RummyHeuristic()
        agent.reset(seat, seed=0)
        for _ in range(3):
            g = game.clone()
            other = 1 - seat
            hidden = g.hands[other] & ~g.known[other]
            pool = cards_of(hidden) + list(g.stock)
            pool = [pool[i] for i in rng.permutation(len(pool))]
            size = hidden.bit_count()
            g.hands[other] = g.known[other] | sum(BIT[c] for c in pool[:size])
            g.stock = pool[size:]
            g._mask = None
            g._rebuild_buf()
            checked[1] += g.hands != game.hands
            checked[0] += 1
            assert agent.act(g.observation(seat), g.legal_mask(), g.view(seat)) == action

    for seed in range(6):
        play_round(seed, seed % 2, check)
    assert checked[0] > 50 and checked[1] > 0.8 * checked[0]
