"""Tests of the rule-based Tongits agent (agents/heuristic_tongits.py)."""
from __future__ import annotations

import numpy as np

from rummy_env.agents.base import RandomAgent
from rummy_env.agents.heuristic_tongits import TongitsHeuristic, arrange
from rummy_env import tongits_v0
from rummy_env.cards import parse_card
from tests.redeals import redeal_tongits as redeal


def _match(env, agents, seed):
    env.reset(seed=seed)
    for i, a in enumerate(agents):
        a.reset(i, seed * 10 + i)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = env.unwrapped.agent_name_mapping[agent]
        env.step(agents[seat].act(obs["observation"], obs["action_mask"], env.unwrapped.view(agent)))
    return list(env.unwrapped.game.chips)


def test_arrange_is_least_deadwood():
    hand = sum(1 << parse_card(c) for c in "7C 7D 7H 7S 8S 9S 2D KD".split())
    pts, melds = arrange(hand)
    assert pts == 12 and sum(bin(m).count("1") for m in melds) == 6


def test_beats_random_agents():
    """Over 45 three-hand matches (seats rotated) the heuristic ends with the most chips far more
    often than a random player would (1/3) and earns far more chips than its random opponents."""
    env = tongits_v0.env(hands_per_match=3)
    mine, theirs, top = [], [], 0
    for g in range(45):
        seat = g % 3
        agents = [TongitsHeuristic() if i == seat else RandomAgent() for i in range(3)]
        chips = _match(env, agents, seed=1000 + g)
        mine.append(chips[seat])
        theirs += [chips[i] for i in range(3) if i != seat]
        top += chips[seat] == max(chips)
    assert top >= 0.75 * 45
    assert np.mean(mine) > np.mean(theirs) + 3.0


def test_plays_every_option_set():
    for opts in ({"discard_take_must_meld": False}, {"count_hand_melds": False, "chip_mode": "pay"},
                 {"require_meld_to_contest": False, "reward_mode": "win_loss"}):
        env = tongits_v0.env(hands_per_match=2, **opts)
        chips = _match(env, [TongitsHeuristic() for _ in range(3)], seed=7)
        assert env.unwrapped.game.done and len(chips) == 3


def test_choice_ignores_hidden_cards():
    """The action depends only on what the seat may see: re-dealing other hands, the stock order
    and the ranks of others' face-down secrets never changes it."""
    rng = np.random.default_rng(3)
    checked = 0
    for opts in ({}, {"discard_take_must_meld": False}):
        env = tongits_v0.raw_env(hands_per_match=4, **opts)
        env.reset(seed=11)
        players = [TongitsHeuristic() for _ in range(3)]
        game = env.game
        while not game.done:
            seat = game.current_player
            mask = game.legal_mask()
            action = players[seat].act(game.observation(seat), mask, game.view(seat))
            if checked < 400:
                for _ in range(2):
                    other = redeal(game, seat, rng)
                    assert players[seat].act(other.observation(seat), other.legal_mask(), other.view(seat)) == action
                    checked += 1
            game.step(action if rng.random() < 0.8 else int(rng.choice(np.flatnonzero(mask))))
    assert checked >= 200


def test_answers_a_draw_call_qualified_or_not():
    """TG-20: after p0's ``call draw`` p1, not qualified, may only fold and does; p2, owning a
    face-up meld, challenges."""
    env = tongits_v0.raw_env()
    env.reset(seed=0, options={"deal": {
        "dealer": 0, "turn": 0, "hands": [["2C", "5H"], ["3C", "JS"], ["KD", "QS"]],
        "melds": [{"owner": 0, "cards": ["TD", "JD", "QD"]}, {"owner": 2, "cards": ["4S", "5S", "6S"]}]}})
    env.step(env.text_to_action("call draw"))
    for seat, answer in ((1, "fold"), (2, "challenge")):
        game = env.game
        assert game.current_player == seat
        player = TongitsHeuristic()
        player.reset(seat, 0)
        action = player.act(game.observation(seat), game.legal_mask(), game.view(seat))
        assert env.action_to_text(action) == answer
        env.step(action)
