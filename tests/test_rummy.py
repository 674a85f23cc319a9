"""Tests of Rummy (``docs/rules/rummy.md``): scenario checks 1-16, PettingZoo API, randomized
games against an independent legality reference, hidden information, round trips, texts, options
and deals."""
from __future__ import annotations

import json

import numpy as np
import pytest


from tests import reference_melds as rm
from tests.harness import (check_determinize_writes_nothing, check_hidden_information, check_roundtrips, play_random_games,
                           random_legal_action, run_pettingzoo_tests)
from tests.redeals import redeal_rummy as redeal
from rummy_env import rummy_v0
from rummy_env.cards import BIT, CARD_TEXT, NUM_CARDS, cards_of, parse_card, parse_cards
from rummy_env.games.rummy import HAND_SIZE, NUM_ACTIONS, Options, RummyGame
from rummy_env.games.rummy.options import DRAW, PLAY

# -- helpers -----------------------------------------------------------------------------------


def start(deal: dict | None = None, seed: int = 0, **options) -> rummy_v0.raw_env:
    env = rummy_v0.raw_env(**options)
    env.reset(seed=seed, options={"deal": deal} if deal is not None else None)
    return env


def play(env, *texts: str) -> None:
    for t in texts:
        env.step(env.text_to_action(t))


def legal(env) -> set[str]:
    return {env.action_to_text(int(a)) for a in np.flatnonzero(env.game.legal_mask())}


def is_legal(env, text: str) -> bool:
    return bool(env.game.legal_mask()[env.text_to_action(text)])


def full_stock(deal: dict, top: list[str]) -> list[str]:
    """``top`` then every card not yet listed in ``deal`` (for a deal that must give the stock)."""
    listed = set(parse_cards(top))
    for h in deal.get("hands", []):
        listed |= set(parse_cards(h))
    listed |= set(parse_cards(deal.get("discard", [])))
    for md in deal.get("melds", []):
        listed |= set(parse_cards(md["cards"]))
    return top + [CARD_TEXT[c] for c in range(NUM_CARDS) if c not in listed]


def with_stock(deal: dict, top: list[str]) -> dict:
    return {**deal, "stock": full_stock(deal, top)}


def refused(env, text: str) -> None:
    """Stepping ``text`` raises ValueError naming it and leaves the state unchanged (README 4)."""
    before = json.dumps(env.game.to_dict(), sort_keys=True)
    with pytest.raises(ValueError, match=text):
        env.step(env.text_to_action(text))
    assert json.dumps(env.game.to_dict(), sort_keys=True) == before


def hand_value(texts: str, ace_high: bool = False) -> int:
    return sum(15 if ace_high and CARD_TEXT[c][0] == "A" else min(c % 13 + 1, 10) for c in parse_cards(texts))


# -- scenario checks ---------------------------------------------------------------------------


def test_scenario_01_deal_sizes():
    """RM-2..RM-5: hand sizes 10, 7, 7, 6, 6; stock 31, 30, 23, 21, 15; one upcard; the dealer's
    left plays first; impossible deals refused."""
    for n, k, stock in [(2, 10, 31), (3, 7, 30), (4, 7, 23), (5, 6, 21), (6, 6, 15)]:
        for seed in range(3):
            g = start(seed=seed, num_players=n).game
            assert [h.bit_count() for h in g.hands] == [k] * n
            assert len(g.stock) == stock and len(g.discard) == 1
            assert g.current_player == (g.dealer + 1) % n and g.phase == 0
    hands3 = ["AC 2C 3C 4C 5C 6C 7C", "AD 2D 3D 4D 5D 6D 7D", "AH 2H 3H 4H 5H 6H 7H"]
    assert start({"dealer": 2, "hands": [h.split() for h in hands3]}, num_players=3).game.current_player == 0
    with pytest.raises(ValueError, match="n\\*k"):
        start({"hands": ["AC 2C 3C 4C 5C 6C 7C 8C 9C".split(), "AD 2D 3D 4D 5D 6D 7D 8D 9D TD".split()]})
    with pytest.raises(ValueError, match="5C is listed twice"):
        start({"hands": ["AC 2C 3C 4C 5C 6C 7C 8C 9C TC".split(), "5C 2D 3D 4D 5D 6D 7D 8D 9D TD".split()]})


def test_scenario_02_phases():
    """RM-6, RM-7, RM-9: draw phase mask exactly the two draws; a discard there refused with the
    state unchanged; no draw in the play phase; other seats' masks all zero."""
    env = start(seed=3)
    for turn in range(6):
        assert legal(env) == {"draw stock", "take discard"}
        hand = env.game.hands[env.game.current_player]
        card = CARD_TEXT[cards_of(hand)[0]]
        refused(env, f"discard {card}")
        env.step(turn % 2)
        assert not is_legal(env, "draw stock") and not is_legal(env, "take discard")
        me = env.agent_selection
        for agent in env.agents:
            if agent != me:
                assert env.observe(agent)["action_mask"].sum() == 0
        assert env.observe(me)["action_mask"].sum() > 0
        discards = [a for a in legal(env) if a.startswith("discard")]
        play(env, sorted(discards)[0])
    env = start(seed=3)
    refused(env, "discard " + CARD_TEXT[cards_of(env.game.hands[env.game.current_player])[0]])
    with pytest.raises(ValueError, match="discard 5C"):
        env.step(env.text_to_action("discard 5C"))


SC3 = {"dealer": 0, "to_play": 1, "hands": ["2C 4C 6C 8C TC QC 2D 4D 6D 8D".split(),
                                           "9S 3H 5H 7H JH KH AS 3S 5S 7S".split()]}


def test_scenario_03_taken_card():
    """RM-17: the card taken from the discard pile cannot be discarded that turn; a stock card can;
    the taken card can be discarded on a later turn."""
    env = start({**SC3, "discard": ["9C"]})
    play(env, "take discard")
    assert not is_legal(env, "discard 9C") and is_legal(env, "discard 9S")
    refused(env, "discard 9C")
    play(env, "discard 9S", "draw stock")
    play(env, sorted(a for a in legal(env) if a.startswith("discard"))[0])
    play(env, "draw stock")
    assert is_legal(env, "discard 9C")
    env = start(with_stock({**SC3, "discard": ["KD"]}, ["9C"]))
    play(env, "draw stock")
    assert is_legal(env, "discard 9C")


SC4_HAND = "7C 7D 7H 7S AH 2H 3H QH KH 5D".split()
SC4 = {"dealer": 1, "to_play": 0, "hands": [SC4_HAND, "2C 4C 6C 8C TC QC 2S 4S 9S JS".split()], "discard": ["9D"]}


def test_scenario_04_meld_shapes():
    """RM-10, RM-11 and the meld text grammar."""
    env = start(with_stock(SC4, ["KS"]))
    play(env, "draw stock")
    for text in ("meld 7C 7D 7S", "meld 7C 7D 7H 7S", "meld AH 2H 3H"):
        assert is_legal(env, text), text
    assert not is_legal(env, "meld QH KH AH")
    refused(env, "meld QH KH AH")
    assert env.action_to_text(env.text_to_action("meld 7S 7C 7D")) == "meld 7C 7D 7S"
    assert env.action_to_text(env.text_to_action("meld 10H JH QH")) == "meld TH JH QH"
    for bad in ("meld KH AH 2H", "meld 4H 5H 7H", "meld 7C 7D", "pass"):
        with pytest.raises(ValueError, match="unknown action"):
            env.text_to_action(bad)


def test_scenario_05_ace_high():
    """RM-11, RM-12, RM-14: with ace_high Q-K-A and A-2-3 are runs, K-A-2 never; J fits Q-K-A, 2 does not."""
    env = start(with_stock(SC4, ["KS"]), ace_high=True)
    play(env, "draw stock")
    assert is_legal(env, "meld QH KH AH") and is_legal(env, "meld AH 2H 3H")
    with pytest.raises(ValueError, match="unknown action"):
        env.text_to_action("meld KH AH 2H")
    deal = with_stock({"dealer": 0, "to_play": 1, "discard": ["9D"],
                       "melds": [{"owner": 0, "cards": ["QS", "KS", "AS"]}],
                       "hands": ["2C 4C 6C 8C TC QC 2D".split(), "JS 2S 3H 5H 7H JH 4D 6D 8D TD".split()]}, ["9C"])
    env = start(deal, ace_high=True)
    play(env, "draw stock")
    assert is_legal(env, "layoff JS @0") and not is_legal(env, "layoff 2S @0")
    refused(env, "layoff 2S @0")


def test_scenario_06_layoff_both_ends():
    """RM-14..RM-16, RM-19, RM-23: lay-offs at both ends of another's run, one at a time; they stay
    in front of the player; going out without rummy."""
    deal = with_stock({"dealer": 1, "to_play": 2, "discard": ["9D"],
                       "melds": [{"owner": 1, "cards": ["8H", "9H", "TH"]},
                                 {"owner": 2, "cards": ["4C", "4D", "4H", "4S"]}],
                       "hands": ["2D 5D 7D AS 3S 5S 7S".split(), "KC KD 6S 9S".split(), "7H JH 2C".split()]},
                      ["QH"])
    env = start(deal, num_players=3)
    play(env, "draw stock")
    assert is_legal(env, "layoff 7H @0") and is_legal(env, "layoff JH @0") and not is_legal(env, "layoff QH @0")
    play(env, "layoff JH @0")
    assert is_legal(env, "layoff QH @0")
    play(env, "layoff 7H @0", "layoff QH @0")
    meld = env.game.view(0)["melds"][0]
    assert meld["cards"] == "7H 8H 9H TH JH QH".split() and meld["owner"] == 1
    assert meld["layoffs"] == {"7H": 2, "JH": 2, "QH": 2}
    play(env, "discard 2C")
    expected = hand_value("2D 5D 7D AS 3S 5S 7S") + hand_value("KC KD 6S 9S")
    assert env.game.scores == [0, 0, expected]
    assert env.game.last_round == {"round": 1, "winner": 2, "points": expected, "rummy": False, "dead": False,
                                   "hands": [["2D", "5D", "7D", "AS", "3S", "5S", "7S"], ["KC", "KD", "6S", "9S"], []],
                                   "hand_points": [30, 35, 0]}


def _sc7(melds, p1_hand, **options):
    p1_table = sum(len(m["cards"]) for m in melds if m["owner"] == 1)
    hand0 = "TC 6D 7D TD QD KD TH".split()
    p0_table = sum(len(m["cards"]) for m in melds if m["owner"] == 0)
    deal = {"dealer": 0, "to_play": 1, "discard": ["5D"], "melds": melds,
            "hands": [hand0[:10 - p0_table], p1_hand.split()[:10 - p1_table]]}
    env = start(with_stock(deal, ["9D"]), **options)
    play(env, "draw stock")
    return env


def test_scenario_07_sets_aces_no_rearranging():
    """RM-10, RM-13, RM-14: a set takes its fourth card only; melds are never rearranged; an ace
    fits below a 2 always, above a king only with ace_high."""
    env = _sc7([{"owner": 0, "cards": ["8C", "8D", "8H"]}], "8S 3H 5H 7H 9H JS KS 2S 4S 6S")
    assert is_legal(env, "layoff 8S @0")
    play(env, "layoff 8S @0")
    assert not any(env.game.legal_mask()[423 + 17 * c] for c in range(NUM_CARDS))
    assert env.game.meld_fit[0] == 0
    env = _sc7([{"owner": 0, "cards": ["2C", "2H", "2S"]}, {"owner": 0, "cards": ["3S", "4S", "5S"]}],
               "AS 6S 3H 5H 7H 9H JS KS 8C 4C")
    assert not is_legal(env, "layoff AS @1") and is_legal(env, "layoff 6S @1")
    refused(env, "layoff AS @1")
    for high in (False, True):
        env = _sc7([{"owner": 0, "cards": ["2D", "3D", "4D"]}, {"owner": 0, "cards": ["JC", "QC", "KC"]}],
                   "AD AC 3H 5H 7H 9H JS 2S 4S 6S", ace_high=high)
        assert is_legal(env, "layoff AD @0")
        assert is_legal(env, "layoff AC @1") == high


def _sc8(scores=(0, 0, 0), **options):
    deal = with_stock({"dealer": 2, "to_play": 0, "discard": ["2D"], "scores": list(scores),
                       "melds": [{"owner": 0, "cards": ["6C", "7C", "8C"]}, {"owner": 0, "cards": ["3D", "4D", "5D"]},
                                 {"owner": 1, "cards": ["9S", "TS", "JS"]},
                                 {"owner": 2, "cards": ["2S", "3S", "4S", "5S", "6S"]}],
                       "hands": [["9C"], "KS 7D AC 2H".split(), "QH QD".split()]}, ["KC"])
    env = start(deal, num_players=3, **options)
    play(env, "draw stock", "layoff 9C @0")
    return env


def test_scenario_08_round_score():
    """RM-21, RM-22, RM-27 and rewards: the one who goes out scores the others' hands."""
    env = _sc8(scores=(5, 7, 9))
    play(env, "discard KC")
    assert env.game.scores == [45, 7, 9]
    assert [env.rewards[a] for a in env.agents] == [40, 0, 0]
    env = _sc8(ace_high=True)
    play(env, "discard KC")
    assert env.game.scores == [54, 0, 0]
    env = _sc8(reward_mode="zero_sum")
    play(env, "discard KC")
    assert [env.rewards[a] for a in env.agents] == [40, -20, -20]


SC9 = {"dealer": 0, "hands": ["AC 2D 3S 4H 5S 6H 7H 8S TD KC".split(), "2C 3C 4C 5C 9D 9H 9S JH QH KH".split()],
       "discard": ["8D"]}


def test_scenario_09_going_rummy():
    """RM-8, RM-19, RM-20, RM-23: going out in one turn from k cards doubles the score."""
    assert hand_value(" ".join(SC9["hands"][0])) == 56
    env = start(with_stock(SC9, ["6D"]))
    play(env, "draw stock", "meld 2C 3C 4C 5C", "meld 9D 9H 9S", "meld JH QH KH", "discard 6D")
    assert env.game.scores == [0, 112] and env.game.last_round["rummy"]
    env = start(with_stock(SC9, ["6D"]), reward_mode="zero_sum")
    play(env, "draw stock", "meld 2C 3C 4C 5C", "meld 9D 9H 9S", "meld JH QH KH", "discard 6D")
    assert [env.rewards[a] for a in env.agents] == [-112, 112]
    env = start(with_stock(SC9, ["6C"]))
    play(env, "draw stock", "meld 2C 3C 4C 5C 6C", "meld 9D 9H 9S", "meld JH QH KH")
    assert env.game.scores == [0, 112] and env.game.rounds_played == 1
    env = start(with_stock(SC9, ["6C"]), must_discard_to_go_out=True)
    play(env, "draw stock", "meld 2C 3C 4C 5C 6C", "meld 9D 9H 9S")
    assert not is_legal(env, "meld JH QH KH")
    refused(env, "meld JH QH KH")
    env = start(with_stock(SC9, ["6C"]), must_discard_to_go_out=True)
    play(env, "draw stock", "meld 2C 3C 4C 5C", "meld 9D 9H 9S", "meld JH QH KH", "discard 6C")
    assert env.game.scores == [0, 112]
    earlier = {**SC9, "hands": [SC9["hands"][0], "9D 9H 9S JH QH KH".split()],
               "melds": [{"owner": 1, "cards": ["2C", "3C", "4C", "5C"]}]}
    env = start(with_stock(earlier, ["6D"]))
    play(env, "draw stock", "meld 9D 9H 9S", "meld JH QH KH", "discard 6D")
    assert env.game.scores == [0, 56] and not env.game.last_round["rummy"]


SC10 = {"dealer": 0, "to_play": 1, "discard": ["KD"],
        "melds": [{"owner": 0, "cards": ["5H", "6H", "7H"]}, {"owner": 1, "cards": ["2C", "3C", "4C"]},
                  {"owner": 1, "cards": ["2D", "3D", "4D"]}, {"owner": 1, "cards": ["2S", "3S", "4S"]}],
        "hands": ["AC 9C JC 8D TD JS QS".split(), ["8H"]]}


def test_scenario_10_out_by_layoff_or_discard():
    """RM-8, RM-19, RM-20: the last card goes by lay-off or by discard, same score."""
    scores = []
    for last in ("layoff 9H @0", "discard 9H"):
        env = start(with_stock(SC10, ["9H"]))
        play(env, "draw stock")
        assert legal(env) == {"layoff 8H @0", "discard 8H", "discard 9H"}
        play(env, "layoff 8H @0")
        assert legal(env) == {"layoff 9H @0", "discard 9H"}
        play(env, last)
        scores.append(env.game.scores)
    assert scores[0] == scores[1] == [0, hand_value("AC 9C JC 8D TD JS QS")]
    env = start(with_stock(SC10, ["9H"]), must_discard_to_go_out=True)
    play(env, "draw stock", "layoff 8H @0")
    assert legal(env) == {"discard 9H"}
    play(env, "discard 9H")
    assert env.game.scores == [0, hand_value("AC 9C JC 8D TD JS QS")]


SC11 = {"dealer": 0, "to_play": 1,
        "melds": [{"owner": 0, "cards": ["6H", "7H", "8H"]}, {"owner": 1, "cards": ["2C", "3C", "4C"]},
                  {"owner": 1, "cards": ["2D", "3D", "4D"]}, {"owner": 1, "cards": ["2S", "3S", "4S"]}],
        "hands": ["AC 9C JC 8D TD JS QS".split(), ["5H"]]}


def test_scenario_11_taken_card_never_stranded():
    """RM-17, RM-18, RM-20: no move may leave only the taken card with nowhere to go."""
    env = start({**SC11, "discard": ["KC"]})
    play(env, "take discard")
    assert legal(env) == {"discard 5H"}
    refused(env, "layoff 5H @0")
    play(env, "discard 5H")
    assert env.game.hands[1] == BIT[parse_card("KC")] and env.game.current_player == 0
    env = start({**SC11, "discard": ["9H"]})
    play(env, "take discard")
    assert legal(env) == {"layoff 5H @0", "layoff 9H @0", "discard 5H"}
    env = start({**SC11, "discard": ["9H"]}, must_discard_to_go_out=True)
    play(env, "take discard")
    assert legal(env) == {"layoff 9H @0", "discard 5H"}
    play(env, "layoff 9H @0")
    assert legal(env) == {"discard 5H"}
    play(env, "discard 5H")
    assert env.game.scores[1] > 0 and env.game.rounds_played == 1


def _sc12(**options):
    hands = ["AC 2C 3C 4C 5C 6C 7C 8C 9C TC".split(), "AD 2D 3D 4D 5D 6D 7D 8D 9D TD".split()]
    pile = [CARD_TEXT[c] for c in range(NUM_CARDS) if CARD_TEXT[c] not in hands[0] + hands[1]]
    rng = np.random.default_rng(5)
    pile = [pile[i] for i in rng.permutation(len(pile))]
    env = start({"dealer": 0, "to_play": 1, "hands": hands, "discard": pile, "stock": []}, seed=11, **options)
    return env, pile


def test_scenario_12_turnover():
    """RM-24, RM-25: an empty stock is refilled by turning the discard pile over (bottom card on top)."""
    env, pile = _sc12()
    assert len(pile) == 32 and env.game.stock == []
    play(env, "draw stock")
    g = env.game
    assert [CARD_TEXT[c] for c in g.discard] == [pile[31]]
    assert [CARD_TEXT[c] for c in g.stock[::-1]] == pile[1:31] and len(g.stock) == 30
    assert g.hands[1] & BIT[parse_card(pile[0])] and g.turnovers == 1
    assert is_legal(env, f"discard {pile[0]}")
    env, pile = _sc12()
    play(env, "take discard")
    assert env.game.turnovers == 0 and env.game.stock == [] and env.game.hands[1] & BIT[parse_card(pile[31])]
    assert not is_legal(env, f"discard {pile[31]}")
    orders = []
    for _ in range(2):
        env, pile = _sc12(shuffle_turnover=True)
        play(env, "draw stock")
        g = env.game
        turned = [CARD_TEXT[c] for c in cards_of(g.hands[1] & ~(sum(BIT[c] for c in parse_cards(
            "AD 2D 3D 4D 5D 6D 7D 8D 9D TD"))))] + [CARD_TEXT[c] for c in g.stock]
        assert sorted(turned) == sorted(pile[:31]) and g.turnovers == 1
        orders.append(list(g.stock))
    assert orders[0] == orders[1] and [CARD_TEXT[c] for c in orders[0][::-1]] != pile[1:31]


def test_scenario_13_dead_round():
    """RM-26, RM-31: an empty stock with the turnover cap reached, or max_turns completed turns,
    ends the round dead: no score, a round played, the deal passes left."""
    hands = ["AC 3C 5C 7C 9C JC KC 2D 4D 6D".split(), "8D TD QD AH 3H 5H 7H 9H JH KH".split()]
    listed = set(hands[0] + hands[1] + ["2S"])
    pile = [CARD_TEXT[c] for c in range(NUM_CARDS) if CARD_TEXT[c] not in listed]
    deal = {"dealer": 0, "to_play": 0, "hands": hands, "discard": pile, "stock": ["2S"], "turnovers": 3}
    env = start(deal)
    play(env, "draw stock", "discard 2S")
    g = env.game
    assert [env.rewards[a] for a in env.agents] == [0, 0] and g.scores == [0, 0]
    assert g.rounds_played == 1 and g.dealer == 1 and g.current_player == 0 and g.last_round["dead"]
    assert [h.bit_count() for h in g.hands] == [10, 10] and g.turnovers == 0 and not g.done
    env = start({"dealer": 0, "hands": hands, "discard": ["2S"]}, max_turns=2)
    play(env, "draw stock")
    play(env, sorted(a for a in legal(env) if a.startswith("discard"))[0])
    assert env.game.rounds_played == 0 and env.game.current_player == 0
    play(env, "draw stock")
    play(env, sorted(a for a in legal(env) if a.startswith("discard"))[0])
    assert env.game.rounds_played == 1 and env.game.last_round["dead"] and env.game.dealer == 1
    assert [env.rewards[a] for a in env.agents] == [0, 0]


def _sc14(p_out: int, **options):
    melds = [{"owner": p_out, "cards": ["5H", "6H", "7H"]}, {"owner": p_out, "cards": ["2S", "3S", "4S"]},
             {"owner": p_out, "cards": ["9D", "TD", "JD"]},
             {"owner": 1 - p_out, "cards": ["5S", "6S", "7S", "8S", "9S"]},
             {"owner": 1 - p_out, "cards": ["KC", "KD", "KH"]}]
    hands = [None, None]
    hands[p_out], hands[1 - p_out] = ["8H"], ["8C", "4D"]
    deal = with_stock({"dealer": 1 - p_out, "to_play": p_out, "discard": ["2C"], "melds": melds, "hands": hands,
                       "scores": [140, 90]}, ["QD"])
    env = start(deal, **options)
    play(env, "draw stock", "layoff 8H @0", "discard QD")
    return env


def test_scenario_14_target_reached():
    """RM-27, RM-28, RM-30 and the three reward modes at a match end by target_score."""
    for mode, rewards in (("points", [12, 0]), ("zero_sum", [12, -12]), ("win_loss", [1, -1])):
        env = _sc14(0, reward_mode=mode)
        assert env.game.scores == [152, 90] and env.game.done and not env.game.truncated
        assert all(env.terminations.values()) and not any(env.truncations.values())
        assert [env.rewards[a] for a in env.agents] == rewards
        assert env.game.winners() == [0]
    env = _sc14(1)
    assert env.game.scores == [140, 102] and not env.game.done and env.game.dealer == 1
    assert not any(env.terminations.values())


def test_scenario_15_round_limit():
    """RM-28..RM-30: max_rounds with target_score 0 ends normally, ties share the win; a capped
    match with a target is truncated."""
    melds = [{"owner": 0, "cards": ["5H", "6H", "7H"]}, {"owner": 0, "cards": ["2S", "3S", "4S"]},
             {"owner": 1, "cards": ["9D", "TD", "JD"]}, {"owner": 1, "cards": ["5S", "6S", "7S"]},
             {"owner": 2, "cards": ["JC", "QC", "KC"]}, {"owner": 2, "cards": ["8C", "9C", "TC"]}]
    deal = with_stock({"dealer": 0, "to_play": 1, "discard": ["3D"], "melds": melds,
                       "hands": [["4C"], ["8H"], ["6D"]], "scores": [30, 20, 10], "rounds_played": 1}, ["2H"])
    for mode, rewards in (("win_loss", [0, 0, -1]), ("points", [0, 10, 0])):
        env = start(deal, num_players=3, target_score=0, max_rounds=2, reward_mode=mode)
        play(env, "draw stock", "layoff 8H @0", "discard 2H")
        g = env.game
        assert g.scores == [30, 30, 10] and g.done and not g.truncated and g.winners() == [0, 1]
        assert all(env.terminations.values()) and not any(env.truncations.values())
        assert [env.rewards[a] for a in env.agents] == rewards
    hands = ["AC 3C 5C 7C 9C JC KC 2D 4D 6D".split(), "8D TD QD AH 3H 5H 7H 9H JH KH".split()]
    pile = [CARD_TEXT[c] for c in range(NUM_CARDS) if CARD_TEXT[c] not in set(hands[0] + hands[1] + ["2S"])]
    env = start({"dealer": 0, "to_play": 0, "hands": hands, "discard": pile, "stock": ["2S"], "turnovers": 3},
                max_rounds=1, reward_mode="win_loss")
    play(env, "draw stock", "discard 2S")
    assert env.game.done and env.game.truncated and env.game.scores == [0, 0] and env.game.winners() == [0, 1]
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert [env.rewards[a] for a in env.agents] == [0, 0]


def test_scenario_16_indices():
    """RM-13, RM-14: lay-offs only onto existing melds; @17 is no action; cards must be in hand."""
    deal = with_stock({"dealer": 0, "to_play": 1, "discard": ["KD"],
                       "melds": [{"owner": 0, "cards": ["8C", "8D", "8H"]}, {"owner": 0, "cards": ["2S", "3S", "4S"]},
                                 {"owner": 0, "cards": ["TC", "JC", "QC"]}],
                       "hands": [["AD"], "7H 5S 9C 2C 4C 6C AH 3H 5D 7D".split()]}, ["9H"])
    env = start(deal)
    play(env, "draw stock")
    assert not is_legal(env, "layoff 7H @3")
    refused(env, "layoff 7H @3")
    with pytest.raises(ValueError, match="unknown action"):
        env.text_to_action("layoff 7H @17")
    assert is_legal(env, "layoff 5S @1") and is_legal(env, "layoff 9C @2")
    assert not is_legal(env, "layoff 6S @1") and not is_legal(env, "layoff KC @2") and not is_legal(env, "layoff 8S @0")
    assert not is_legal(env, "meld 8S 9S TS") and not is_legal(env, "discard 8S")
    refused(env, "layoff KC @2")


# -- independent reference and invariants ---------------------------------------------------------

def texts(cards) -> list[str]:
    return [CARD_TEXT[c] for c in cards]


def action_id(game, text: str) -> int:
    """The id of a move the reference finds legal; AssertionError if the engine has no such move."""
    try:
        return game.text_to_action(text)
    except ValueError as err:
        raise AssertionError(f"the reference's move {text!r} has no action id: {err}") from None


def reference_mask(game) -> np.ndarray:
    """Brute-force legality from the rules text (RM-6, RM-7, RM-10..RM-20) with the tests' own meld
    reading (tests/reference_melds.py); it never calls the engine's mask or meld code, and names
    each move by its action text."""
    mask = np.zeros(NUM_ACTIONS, np.int8)
    if game.done:
        return mask
    if game.phase == 0:
        mask[[action_id(game, "draw stock"), action_id(game, "take discard")]] = 1
        return mask
    opts = game.options
    high, mdgo = opts.ace_high, opts.must_discard_to_go_out
    hand = set(texts(cards_of(game.hands[game.current_player])))
    taken = CARD_TEXT[game.taken] if game.taken is not None and CARD_TEXT[game.taken] in hand else None
    table = [texts(cards_of(m)) for m in game.meld_mask]

    def may_leave(rest: set, table_after: list) -> bool:
        if not rest:
            return not mdgo
        if rest == {taken}:
            return not mdgo and any(rm.shape(t + [taken], high) is not None for t in table_after)
        return True

    for c in hand - {taken}:
        mask[action_id(game, f"discard {c}")] = 1
    for cards in rm.hand_melds(hand, high):
        if may_leave(hand - cards, table + [list(cards)]):
            mask[action_id(game, "meld " + " ".join(sorted(cards)))] = 1
    for k, t in enumerate(table):
        for c in hand:
            if rm.shape(t + [c], high) is not None:
                after = table[:k] + [t + [c]] + table[k + 1:]
                if may_leave(hand - {c}, after):
                    mask[action_id(game, f"layoff {c} @{k}")] = 1
    return mask


def make_invariants(stats: dict):
    def check(game) -> None:
        n, k = game.num_players, HAND_SIZE[game.num_players]
        stock = sum(BIT[c] for c in set(game.stock))
        pile = sum(BIT[c] for c in set(game.discard))
        assert stock.bit_count() == len(game.stock) and pile.bit_count() == len(game.discard)
        places = game.hands + game.meld_mask + [stock, pile]
        union = 0
        for m in places:
            union |= m
        assert union == (1 << NUM_CARDS) - 1 and sum(m.bit_count() for m in places) == NUM_CARDS, \
            "every card in exactly one place"
        table = 0
        for m in game.meld_mask:
            table |= m
        front = 0
        for f in game.front:
            assert not front & f
            front |= f
        assert front == table
        for p in range(n):
            assert not game.known[p] & ~game.hands[p]
        if not game.done:
            assert sum(h.bit_count() for h in game.hands) + table.bit_count() == n * k + game.phase
            assert game.discard or game.phase == 1
        stats["steps"] = stats.get("steps", 0) + 1
        if stats["steps"] % 5 == 0:
            assert all(rm.shape(texts(cards_of(m)), game.options.ace_high) is not None for m in game.meld_mask)
            incremental = game._buf.copy()
            game._rebuild_buf()
            assert np.array_equal(incremental, game._buf), "incremental observation == rebuilt"
        stats["turnovers"] = max(stats.get("turnovers", 0), game.turnovers)
        stats["melds"] = max(stats.get("melds", 0), len(game.meld_mask))
        lr = game.last_round
        if lr and lr is not stats.get("last"):
            stats["last"] = lr
            key = "dead" if lr["dead"] else ("rummy" if lr["rummy"] else "out")
            stats[key] = stats.get(key, 0) + 1
    return check


class _LateRoundEnv(rummy_v0.raw_env):
    """Starts every match from a random position late in a round (melds on the table, one to three
    cards in hand), so that random play often goes out: scoring, rewards and match ends get
    exercised by the randomized test."""

    def reset(self, seed=None, options=None):
        rng = np.random.default_rng(seed)
        n, k = self.options.num_players, HAND_SIZE[self.options.num_players]
        low_runs = sorted(sorted(parse_cards(list(m))) for m in rm.hand_melds(CARD_TEXT[:NUM_CARDS], False))
        used, melds, hands = set(), [], []
        for p in range(n):
            table = 0
            for i in rng.permutation(len(low_runs)):
                m = low_runs[i]
                if table >= k - 3:
                    break
                if table + len(m) <= k - 1 and not used & set(m):
                    used |= set(m)
                    table += len(m)
                    melds.append({"owner": p, "cards": [CARD_TEXT[c] for c in m]})
            hands.append(k - table)
        rest = [c for c in rng.permutation(NUM_CARDS) if c not in used]
        deal = {"hands": [], "melds": melds}
        for size in hands:
            deal["hands"].append([CARD_TEXT[c] for c in rest[:size]])
            rest = rest[size:]
        super().reset(seed=seed, options={"deal": deal})


NUM_RANDOM_GAMES = 2000


def random_options(rng: np.random.Generator) -> dict:
    return {
        "num_players": int(rng.integers(2, 7)),
        "ace_high": bool(rng.integers(2)),
        "must_discard_to_go_out": bool(rng.integers(2)),
        "shuffle_turnover": bool(rng.integers(2)),
        "target_score": int(rng.choice([0, 0, 15, 40, 150])),
        "max_rounds": int(rng.choice([1, 1, 2, 3])),
        "max_turnovers": int(rng.choice([0, 1, 2, 3])),
        "max_turns": int(rng.choice([1, 2, 3, 4, 6, 10, 20, 40])),
        "reward_mode": str(rng.choice(["points", "zero_sum", "win_loss"])),
    }


def test_random_games_match_reference():
    """>= 2,000 complete matches over every option (a quarter from late-round positions): mask ==
    brute-force reference, illegal probes refused with the state unchanged, every card in exactly
    one place, incremental observation equal to a rebuild."""
    rng = np.random.default_rng(2024)
    stats: dict = {}
    seen = set()

    def make():
        opts = random_options(rng)
        seen.add((opts["num_players"], opts["ace_high"], opts["must_discard_to_go_out"], opts["reward_mode"]))
        return (_LateRoundEnv if rng.random() < 0.25 else rummy_v0.raw_env)(**opts)

    result = play_random_games(make, num_games=NUM_RANDOM_GAMES, seed=7, reference_mask=reference_mask,
                               check_invariants=make_invariants(stats))
    assert result["games"] == NUM_RANDOM_GAMES and result["terminated"] > 0 and result["truncated"] > 0
    assert len(seen) == 5 * 2 * 2 * 3
    assert stats["turnovers"] >= 1 and stats["melds"] >= 6
    assert stats["out"] >= 50 and stats["dead"] >= 500


# -- hidden information, round trips, texts, options, deals ---------------------------------------


def test_hidden_information():
    """RM-32: re-dealing other hands (except cards publicly taken from the discard pile) and the
    stock order leaves a seat's observation and view unchanged."""
    changed = [0, 0]

    def counted_redeal(game, seat, rng):
        g = redeal(game, seat, rng)
        changed[0] += 1
        changed[1] += g.hands != game.hands or g.stock != game.stock
        return g

    for n in (2, 4, 6):
        checked = check_hidden_information(lambda: rummy_v0.raw_env(num_players=n, max_turns=80), seed=n,
                                           num_states=8, redeal=counted_redeal, redeals_per_state=3)
        assert checked > 0
    assert changed[1] > 0.8 * changed[0]
    env = start({"dealer": 0, "to_play": 1, "hands": SC3["hands"], "discard": ["9C"]})
    play(env, "take discard", "discard 9S")
    assert env.game.known[1] == BIT[parse_card("9C")]
    obs = env.game.observation(0)
    assert obs[1092 + 17 * 2 + 52 * 2 + 52 + parse_card("9C")] == 1  # known block, relative seat 1
    assert obs[:52].tolist() == [float(c in cards_of(env.game.hands[0])) for c in range(NUM_CARDS)]


def test_roundtrips():
    """clone(), to_dict()/from_dict() through JSON and pickle reproduce the state and the play."""
    for seed, opts in enumerate([{}, {"num_players": 4, "ace_high": True, "reward_mode": "zero_sum"},
                                 {"num_players": 6, "max_turns": 30, "shuffle_turnover": True}]):
        check_roundtrips(lambda: rummy_v0.raw_env(**opts), seed=seed, steps_before=60, steps_after=400)


def test_pettingzoo_api():
    run_pettingzoo_tests(lambda: rummy_v0.env())
    run_pettingzoo_tests(lambda: rummy_v0.env(num_players=5, reward_mode="zero_sum", max_rounds=2),
                         num_cycles=100)


def test_action_texts_round_trip():
    env = start()
    texts = [env.action_to_text(a) for a in range(NUM_ACTIONS)]
    assert len(set(texts)) == NUM_ACTIONS == 1307
    for a, t in enumerate(texts):
        assert env.text_to_action(t) == a
        assert env.text_to_action("  " + t.lower().replace(" ", "   ") + " ") == a
    assert texts[:3] == ["draw stock", "take discard", "discard AC"]
    assert texts[54] == "meld AC AD AH" and texts[54 + 64] == "meld KC KD KH KS"
    assert texts[54 + 65] == "meld AC 2C 3C" and texts[54 + 65 + 66] == "meld QC KC AC"
    assert texts[54 + 65 + 10] == "meld " + " ".join(f"{r}C" for r in "A23456789TJQK")
    assert texts[423] == "layoff AC @0" and texts[-1] == "layoff KS @16"
    assert env.text_to_action("meld ah 2h 3h") == env.text_to_action("meld 3H AH 2H")
    for bad in ("", "draw", "draw discard", "discard", "discard JK", "discard 1H", "meld 7C 7C 7D",
                "meld JK 7C 7D", "layoff 7H", "layoff 7H 3", "layoff 7H @-1", "layoff 7H @x", "take", 7):
        with pytest.raises(ValueError):
            env.text_to_action(bad)


@pytest.mark.parametrize("option,value", [
    ("num_players", 1), ("num_players", 7), ("num_players", "2"), ("num_players", True), ("ace_high", 1),
    ("must_discard_to_go_out", None), ("target_score", -1), ("target_score", 1.5), ("max_rounds", 0),
    ("max_turnovers", -1), ("max_turns", 0), ("shuffle_turnover", "no"), ("reward_mode", "score"),
    ("no_such_option", 1)])
def test_option_validation(option, value):
    with pytest.raises(ValueError, match=option):
        rummy_v0.raw_env(**{option: value})


H2 = ["AC 2C 3C 4C 5C 6C 7C 8C 9C TC".split(), "AD 2D 3D 4D 5D 6D 7D 8D 9D TD".split()]


@pytest.mark.parametrize("deal,options,message", [
    ({"hands": [H2[0]]}, {}, "hands"),
    ({"hands": [H2[0], H2[1][:9] + ["XX"]]}, {}, "XX"),
    ({"hands": [H2[0], H2[1][:9] + ["JK"]]}, {}, "JK"),
    ({"hands": [H2[0], H2[1][:9] + ["AC"]]}, {}, "twice"),
    ({"hands": H2, "stock": ["JS"]}, {}, "listed nowhere"),
    ({"hands": [H2[0], []]}, {}, "empty"),
    ({"hands": [H2[0] + ["JC"], H2[1]]}, {}, "more than k"),
    ({"hands": [H2[0], H2[1][:7]]}, {}, "n\\*k"),
    ({"hands": [H2[0][:7], H2[1]], "melds": [{"owner": 1, "cards": ["JS", "QS", "KS"]}]}, {}, "seat 0"),
    ({"hands": [H2[0][:7], H2[1]], "melds": [{"owner": 0, "cards": ["JS", "QS", "AS"]}]}, {}, "not a valid meld"),
    ({"hands": H2, "discard": []}, {}, "discard pile is empty"),
    ({"hands": H2, "stock": [], "discard": None}, {}, "card texts"),
    ({"hands": H2, "turnovers": 2, "discard": [c for c in CARD_TEXT[:52] if c[1] in "HS"] + ["JC", "QC", "KC",
                                                                                             "JD", "QD", "KD"],
      "stock": []}, {"max_turnovers": 2}, "turnovers = max_turnovers"),
    ({"hands": H2, "dealer": 2}, {}, "dealer"),
    ({"hands": H2, "to_play": -1}, {}, "to_play"),
    ({"hands": H2, "scores": [150, 0]}, {}, "target_score"),
    ({"hands": H2, "rounds_played": 5}, {"max_rounds": 5}, "rounds_played"),
    ({"hands": H2, "scores": [1, -1]}, {}, "scores"),
    ({"hands": H2, "scores": [1]}, {}, "scores"),
    ({"hands": H2, "turns": 300}, {}, "turns"),
    ({"hands": H2, "turnovers": 4}, {}, "turnovers"),
    ({"hands": [H2[0][:7], H2[1]], "melds": [{"owner": 0, "cards": ["JS", "QS", "KS"], "layoffs": {"AS": 1}}]},
     {}, "not a card of the meld"),
    ({"hands": [H2[0][:7], H2[1]], "melds": [{"owner": 0, "cards": ["JS", "QS", "KS"], "layoffs": {"JS": 0}}]},
     {}, "own owner"),
    ({"hands": H2, "bogus": 1}, {}, "bogus"),
    ("not a dict", {}, "dict"),
])
def test_deal_validation(deal, options, message):
    with pytest.raises(ValueError, match=message):
        start(deal, **options)


def test_deal_layoffs_and_defaults():
    """A deal's lay-offs count for the seat that laid them off; defaults fill stock and upcard."""
    deal = {"hands": [H2[0][:8], H2[1][:9]],
            "melds": [{"owner": 0, "cards": ["JS", "QS", "KS"], "layoffs": {"KS": 1}}]}
    g = start(deal, seed=4).game
    assert g.front == [BIT[parse_card("JS")] | BIT[parse_card("QS")], BIT[parse_card("KS")]]
    assert len(g.discard) == 1 and len(g.stock) == 52 - 17 - 3 - 1
    assert start(deal, seed=4).game.to_dict() == g.to_dict()
    assert g.current_player == (g.dealer + 1) % 2
    assert json.loads(json.dumps(g.view(0)))["melds"][0]["layoffs"] == {"KS": 1}


def test_illegal_action_penalty():
    env = rummy_v0.env(illegal_action_penalty=True)
    env.reset(seed=1)
    agent = env.agent_selection
    env.step(env.unwrapped.text_to_action("discard 5C"))
    assert env.rewards[agent] == -1 and all(env.terminations.values())
    assert sum(env.rewards.values()) == -1


def test_view_and_render():
    env = start(with_stock(SC4, ["KS"]), render_mode="ansi")
    play(env, "draw stock", "meld 7C 7D 7S")
    v = env.game.view(0)
    for key in ("game", "seat", "num_players", "to_play", "phase", "done", "hand", "hand_sizes", "scores",
                "legal_actions", "melds", "discard", "stock_size", "events"):
        assert key in v
    assert v["legal_actions"] == [env.action_to_text(int(a)) for a in np.flatnonzero(env.game.legal_mask())]
    assert env.game.view(1)["legal_actions"] == [] and v["melds"][0]["cards"] == ["7C", "7D", "7S"]
    assert v["events"][-1] == "player_0 melds 7C 7D 7S as @0"
    assert "7C 7D 7S" in env.render()
    json.dumps(v)


@pytest.mark.parametrize("shuffle_turnover", [False, True])
def test_determinize_leaves_the_real_game_bit_identical(shuffle_turnover):
    """Determinizing every seat at positions of both phases, before and after a turnover (RM-24),
    writes nothing on the game: every attribute and the generator's state stay bit-identical."""
    rng = np.random.default_rng(5)
    options = Options(shuffle_turnover=shuffle_turnover)
    game = RummyGame.new(options, np.random.default_rng(5))
    seen = set()
    for step in range(700):
        if step % 23 == 0 or (game.phase, bool(game.turned)) not in seen:
            seen.add((game.phase, bool(game.turned)))
            check_determinize_writes_nothing(game, rng)
        game.step(random_legal_action(game.legal_mask(), rng))
        if game.done:
            game = RummyGame.new(options, np.random.default_rng(step))
    assert seen == {(DRAW, False), (PLAY, False), (DRAW, True), (PLAY, True)}
