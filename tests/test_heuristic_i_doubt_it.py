"""The rule-based I Doubt It agent: strategy checks, strength against random play, and
independence from hidden cards."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from rummy_env.agents.base import RandomAgent
from rummy_env.agents.heuristic_i_doubt_it import IDoubtItHeuristic, prob_at_least
from rummy_env import i_doubt_it_v0
from tests.harness import random_legal_action
from tests.redeals import redeal_i_doubt_it as redeal


def setup(deal: dict, **opts):
    e = i_doubt_it_v0.raw_env(**opts)
    e.reset(seed=0, options={"deal": deal})
    return e


def choice(e) -> str:
    seat = e.game.current_player
    agent = IDoubtItHeuristic()
    agent.reset(seat, 0)
    a = agent.act(e.game.observation(seat), e.game.legal_mask(), e.view(seat))
    return e.action_to_text(a)


def test_plays_the_truth_when_it_can():
    e = setup({"rank": "7", "to_play": 0, "hands": [["7S", "7C", "8S", "KD"], ["2C", "3C"], ["4C", "5C"]]}, num_players=3)
    assert choice(e) == "play 7 7"


def test_truthful_final_play_wins():
    e = setup({"rank": "Q", "to_play": 0, "hands": [["QS", "QC"], ["2C", "3C"], ["4C", "5C"]]}, num_players=3)
    assert choice(e) == "play Q Q"


def test_bluffs_one_card_of_the_rank_needed_last():
    """3 seats: p0 claims 7 now, then 4, A, J, 8, 5, 2, Q, 9, 6, 3, K, T: T is due last."""
    e = setup({"rank": "7", "to_play": 0, "hands": [["4S", "TC", "KD", "KS"], ["2C", "3C"], ["4C", "5C"]]},
              num_players=3, wrong_rank_claims=True)
    assert choice(e) == "play T"


def test_bluff_counts_seats_still_in_the_game():
    """4 seats, rank 7: future claims 3, Q, 8, 4, K, 9, 5, A, T, 6, 2, J: J is due last."""
    e = setup({"rank": "7", "to_play": 0, "hands": [["JC", "QD", "3S"], ["2C"], ["4C"], ["5C"]]})
    assert choice(e) == "play J"


def test_doubts_an_impossible_claim():
    """DI-20: holding three 9s, a claim of two 9s (one deck) cannot be true."""
    e = setup({"rank": "9", "to_play": 0, "hands": [["2S", "3S", "4S"], ["9C", "9D", "9H", "5C"], ["4C", "5D"]]},
              num_players=3)
    e.step(e.text_to_action("play 2 3"))
    assert choice(e) == "doubt"


def test_passes_a_plausible_claim():
    e = i_doubt_it_v0.raw_env(num_players=4)
    e.reset(seed=3)
    game = e.game
    held = [r for r in range(13) if game.hand_ranks[game.current_player][r]]
    game.step(e.text_to_action("play " + "A23456789TJQK"[held[0]]))   # a one-card claim is plausible
    assert choice(e) == "pass"


def test_doubts_a_final_play_in_an_ordinary_window():
    e = setup({"rank": "K", "to_play": 0, "hands": [["KS"], ["2C", "3C"], ["4C", "5C"]]}, num_players=3,
              auto_doubt_last=False)
    e.step(e.text_to_action("play K"))
    assert choice(e) == "doubt"


def test_probability_matches_brute_force():
    cards = list(range(9))
    for successes in range(0, 5):
        for draws in range(0, 6):
            for k in range(0, 4):
                hands = list(itertools.combinations(cards, draws))
                brute = sum(1 for h in hands if sum(1 for c in h if c < successes) >= k) / len(hands)
                assert prob_at_least(k, 9, successes, draws) == pytest.approx(brute)


def play_match(n: int, games: int, seed: int) -> tuple[int, int]:
    """Heuristic in a rotating seat against n-1 random agents: (heuristic wins, random wins)."""
    h_wins = r_wins = 0
    for g in range(games):
        e = i_doubt_it_v0.raw_env(num_players=n)
        e.reset(seed=seed + g)
        hseat = g % n
        agents = [IDoubtItHeuristic() if s == hseat else RandomAgent() for s in range(n)]
        for s, agent in enumerate(agents):
            agent.reset(s, seed + 97 * g + s)
        game = e.game
        while not game.done:
            s = game.current_player
            view = e.view(s) if s == hseat else {}
            game.step(agents[s].act(game.observation(s), game.legal_mask(), view))
        if game.out_order:
            if game.out_order[0] == hseat:
                h_wins += 1
            else:
                r_wins += 1
    return h_wins, r_wins


def test_beats_random_agents_clearly():
    """4 players: the heuristic's win share is at least 3x a random seat's share."""
    games = 60
    h_wins, r_wins = play_match(4, games, seed=1000)
    h_share = h_wins / games
    r_share = r_wins / (games * 3)
    assert h_share >= 0.5 and h_share >= 3 * r_share, (h_wins, r_wins)


@pytest.mark.parametrize("opts", [{}, {"num_players": 7, "wrong_rank_claims": True, "auto_doubt_last": False}])
def test_choice_independent_of_hidden_cards(opts):
    """Re-dealing other hands and the unseen pile cards never changes the agent's choice."""
    rng = np.random.default_rng(4)
    e = i_doubt_it_v0.raw_env(**opts)
    e.reset(seed=4)
    game = e.game
    redeal.changed = 0
    checked = 0
    for _ in range(40):
        for _ in range(int(rng.integers(1, 40))):
            if game.done:
                e.reset()
                game = e.game
            game.step(random_legal_action(game.legal_mask(), rng))
        if game.done:
            continue
        seat = game.current_player
        agent = IDoubtItHeuristic()
        agent.reset(seat, 0)
        expected = agent.act(game.observation(seat), game.legal_mask(), game.view(seat))
        for _ in range(4):
            other = redeal(game, seat, rng)
            assert agent.act(other.observation(seat), other.legal_mask(), other.view(seat)) == expected
            checked += 1
    assert checked > 100 and redeal.changed > checked // 2
