"""Tests of Tongits (``docs/rules/tongits.md``): scenario checks 1-17, the PettingZoo API,
random play against an independent reference, hidden information, round trips, text, options."""
from __future__ import annotations

import itertools
import json
import pickle

import numpy as np
import pytest

from rummy_env import tongits_v0
from rummy_env.cards import CARD_TEXT, POINTS, RANK_OF, cards_of, parse_card
from rummy_env.games.tongits import (DRAW, MELD, NUM_ACTIONS, OBS_SIZE, PICKUP, RESPONSE, Options, TongitsGame,
                                    least_deadwood)
from tests import reference_melds as rm
from tests.harness import (check_determinize_writes_nothing, check_hidden_information, check_roundtrips,
                           play_random_games, random_legal_action, run_pettingzoo_tests)
from tests.redeals import TONGITS_REDEAL_CHANGES as REDEAL_CHANGES, redeal_tongits as redeal



# ---- helpers -------------------------------------------------------------------------------
def make(deal, **opts):
    env = tongits_v0.raw_env(**opts)
    env.reset(seed=1, options={"deal": deal})
    return env


def fill(deal):
    """Put every card not placed anywhere at the bottom of the discard pile (for deals with a
    given stock, which must place all 52 cards)."""
    used = set()
    for h in deal.get("hands", []):
        used |= {parse_card(c) for c in h}
    for key in ("stock", "discard"):
        used |= {parse_card(c) for c in deal.get(key, [])}
    for m in deal.get("melds", []):
        used |= {parse_card(c) for c in m["cards"]}
    rest = [CARD_TEXT[c] for c in range(52) if c not in used]
    deal["discard"] = rest + list(deal.get("discard", []))
    return deal


def legal_texts(env):
    game = env.game
    return {game.action_to_text(int(a)) for a in np.flatnonzero(game.legal_mask())}


def act(env, text):
    env.step(env.text_to_action(text))


def is_legal(env, text):
    return bool(env.game.legal_mask()[env.text_to_action(text)])


MELD_P = {"owner": 0, "cards": ["TD", "JD", "QD"]}   # an ace-free face-up meld


# ---- scenario checks -----------------------------------------------------------------------
def test_scenario_01_dealers_opening():
    """TG-3, TG-5, TG-6, TG-7: the dealer opens in the meld phase without drawing."""
    env = make({"dealer": 0})
    game = env.game
    assert game.current_player == 0 and game.sizes == [13, 12, 12] and len(game.stock) == 15
    legal = legal_texts(env)
    assert not {"draw stock", "take discard", "call draw"} & legal
    assert not any(t.startswith("layoff") for t in legal)
    hand = [CARD_TEXT[c] for c in cards_of(game.hands[0])]
    assert {t for t in legal if t.startswith("discard")} == {f"discard {c}" for c in hand}
    for top, can in (("9H", True), ("KS", False)):
        hands = [["9H", "KS", "2C", "4C", "6C", "8C", "TC", "QC", "3D", "5D", "7D", "JD", "KD"],
                 ["9C", "9D", "AH", "3H", "5H", "7H", "JH", "AS", "3S", "5S", "7S", "QS"],
                 ["AC", "3C", "5C", "7C", "AD", "2D", "4D", "6D", "8D", "2H", "4H", "6H"]]
        env = make({"dealer": 0, "hands": hands})
        act(env, f"discard {top}")
        assert env.game.current_player == 1 and env.game.phase == 0
        assert is_legal(env, "take discard") is can
        assert is_legal(env, "draw stock")


def test_scenario_02_taking_the_discard():
    """TG-7 and option discard_take_must_meld."""
    deal = {"dealer": 0, "turn": 1, "hands": [["2C", "4D"], ["7H", "8H", "9C", "KD"], ["3C", "JS"]],
            "discard": ["9H"]}
    env = make(deal)
    assert is_legal(env, "take discard")
    act(env, "take discard")
    assert legal_texts(env) == {"meld 7H 8H 9H"}
    for t in ("discard 9H", "discard KD", "draw stock"):
        assert not is_legal(env, t)
    act(env, "meld 7H 8H 9H")
    assert legal_texts(env) == {"discard 9C", "discard KD"}
    deal5 = {"dealer": 0, "turn": 1, "hands": [["2C", "4D"], ["7H", "8H", "9C", "KD"], ["3C", "JS"]],
             "discard": ["5S"]}
    assert not is_legal(make(deal5), "take discard")
    env = make(deal5, discard_take_must_meld=False)
    assert is_legal(env, "take discard")
    act(env, "take discard")
    assert env.game.phase == 2 and not is_legal(env, "discard 5S") and is_legal(env, "discard KD")


def test_scenario_03_meld_shapes():
    """TG-10, TG-11, TG-12 and the canonical meld text."""
    hand = ["AS", "2S", "3S", "QS", "KS", "7C", "7D", "7H", "7S", "4H", "5H", "6H", "8H", "5D", "6D", "8D",
            "9C", "9D"]
    env = make({"dealer": 0, "turn": 0, "phase": "meld", "hands": [hand, ["2C"], ["3C"]]})
    for t in ("meld AS 2S 3S", "meld 7C 7D 7H 7S", "meld 4H 5H 6H 7H 8H"):
        assert is_legal(env, t)
    for t in ("meld QS KS AS", "meld 5D 6D 8D", "meld 9C 9D", "meld KS AS 2S"):
        with pytest.raises(ValueError):
            env.text_to_action(t)
    assert env.action_to_text(env.text_to_action("meld 3S AS 2S")) == "meld AS 2S 3S"
    assert env.action_to_text(env.text_to_action("meld 10H JH QH")) == "meld TH JH QH"


def test_scenario_04_layoffs():
    """TG-14, TG-15."""
    deal = {"dealer": 0, "turn": 2, "phase": "meld", "hands": [["2C"], ["3C"], ["3H", "7H", "8H", "2D"]],
            "melds": [{"owner": 1, "cards": ["4H", "5H", "6H"]}, {"owner": 0, "cards": ["8C", "8D", "8S"]}]}
    env = make(deal)
    for t in ("layoff 3H @0", "layoff 7H @0", "layoff 8H @1"):
        assert is_legal(env, t)
    for t in ("layoff 8H @0", "layoff 2D @0", "layoff 3H @2"):
        assert not is_legal(env, t)
    with pytest.raises(ValueError, match="no meld @2"):
        act(env, "layoff 3H @2")
    act(env, "layoff 7H @0")
    assert is_legal(env, "layoff 8H @0")


def test_scenario_05_block_after_layoff():
    """TG-16, TG-18: a layoff on p0's meld blocks p0's next Draw call."""
    deal = {"dealer": 0, "turn": 1, "phase": "meld",
            "hands": [["2C", "4D", "9S", "JC"], ["7H", "KC", "QS"], ["3C", "JS", "5D"]],
            "melds": [{"owner": 0, "cards": ["4H", "5H", "6H"]}],
            "stock": ["2S", "3D", "6S", "8C", "KD", "TS", "2D"]}
    env = make(fill(deal))
    act(env, "layoff 7H @0")
    assert env.game.blocked[0]
    act(env, "discard KC")
    act(env, "draw stock")
    act(env, "discard 2S")
    assert env.game.current_player == 0 and not is_legal(env, "call draw")
    act(env, "draw stock")
    act(env, "discard 3D")
    assert not env.game.blocked[0]
    for _ in range(2):
        drawn = env.game.stock[-1]
        act(env, "draw stock")
        act(env, f"discard {CARD_TEXT[drawn]}")
    assert env.game.current_player == 0 and is_legal(env, "call draw")


def test_scenario_06_who_may_call_and_answer():
    """TG-13, TG-18, TG-19, TG-20: a secret alone allows no call; every opponent is asked in turn,
    and one that is not qualified may only fold."""
    melds = [{"owner": 2, "cards": ["9C", "9D", "9H", "9S"], "secret": True},
             {"owner": 0, "cards": ["4H", "5H", "6H"]}]
    hands = [["2C", "4D"], ["3C", "JS"], ["KD", "QS"]]
    env = make({"dealer": 0, "turn": 2, "hands": hands, "melds": melds})
    assert not is_legal(env, "call draw") and is_legal(env, "draw stock")
    env = make({"dealer": 0, "turn": 0, "hands": hands, "melds": melds})
    act(env, "call draw")
    assert env.game.current_player == 1 and env.game.responses == [0, 0, 0]
    assert legal_texts(env) == {"fold"}
    before = json.dumps(env.game.to_dict(), sort_keys=True)
    with pytest.raises(ValueError, match="challenge.*TG-20"):
        act(env, "challenge")
    assert json.dumps(env.game.to_dict(), sort_keys=True) == before
    act(env, "fold")
    assert env.game.responses[1] == 2 and env.game.current_player == 2
    assert legal_texts(env) == {"challenge", "fold"}
    assert env.view(0)["responses"] == ["", "fold", ""] and env.view(0)["events"][-1] == "player_1 folds"
    env = make({"dealer": 0, "turn": 0, "hands": hands, "melds": melds}, require_meld_to_contest=False)
    act(env, "call draw")
    assert env.game.current_player == 1 and legal_texts(env) == {"challenge", "fold"}


def test_scenario_07_uncontested_draw():
    """TG-21, TG-31, TG-33, TG-34, TG-38."""
    for mode, want in (("bank", [5, 0, 0]), ("pay", [10, -5, -5])):
        env = make({"dealer": 1, "turn": 0, "hands": [["AS", "2C"], ["3C", "JS"], ["KD", "QS"]],
                    "melds": [{"owner": 0, "cards": ["AC", "AD", "AH"]}]}, chip_mode=mode)
        act(env, "call draw")
        assert env.game.current_player == 1 and legal_texts(env) == {"fold"}   # TG-20: asked all the same
        act(env, "fold")
        assert env.game.current_player == 2 and legal_texts(env) == {"fold"}
        act(env, "fold")
        assert env.game.chips == want and env.game.last_hand["how"] == "draw"
        assert [env._cumulative_rewards[a] for a in env.agents] == want
        assert env.game.dealer == 0 and env.game.hand_index == 1 and env.game.sizes[0] == 13


def _draw_showdown(caller, hands, answers, **opts):
    melds = [{"owner": s, "cards": c} for s, c in zip(range(3), (["TD", "JD", "QD"], ["4S", "5S", "6S"],
                                                                ["7C", "8C", "9C"]))]
    env = make({"dealer": caller, "turn": caller, "hands": hands, "melds": melds}, **opts)
    act(env, "call draw")
    for ans in answers:
        act(env, ans)
    return env


def test_scenario_08_challenger_wins():
    """TG-22, TG-28, TG-31, TG-33, TG-34."""
    hands = [["9S", "8D"], ["5C", "4D", "3S"], ["2H"]]
    env = _draw_showdown(0, hands, ["challenge", "fold"])
    assert env.game.chips == [-1, 3, 0] and env.game.last_hand["winner"] == 1
    env = _draw_showdown(0, hands, ["challenge", "fold"], chip_mode="pay")
    assert env.game.chips == [-4, 7, -3]


def test_scenario_09_draw_ties():
    """TG-23: ties go against the caller; among challengers the first after the caller wins."""
    env = _draw_showdown(0, [["KS"], ["TC"], ["2H"]], ["challenge", "fold"])
    assert env.game.chips == [-1, 3, 0]
    env = _draw_showdown(2, [["6H"], ["6C"], ["KS", "5C"]], ["challenge", "challenge"])
    assert env.game.chips == [3, 0, -1]
    env = _draw_showdown(2, [["6H"], ["6C"], ["6D"]], ["challenge", "challenge"])
    assert env.game.chips == [3, 0, -1] and env.game.last_hand["burned"] == 2


def _last_card(hands, melds, **opts):
    deal = fill({"dealer": 0, "turn": 1, "hands": hands, "melds": melds, "stock": ["KS"],
                 "discard": ["2C"]})
    env = make(deal, hands_per_match=1, **opts)
    act(env, "draw stock")
    act(env, "discard KS")
    return env


def test_scenario_10_last_stock_card():
    """TG-24, TG-25, TG-26, TG-27."""
    all_q = [{"owner": 0, "cards": ["TD", "JD", "QD"]}, {"owner": 1, "cards": ["4S", "5S", "6S"]},
             {"owner": 2, "cards": ["7C", "8C", "9C"]}]
    env = _last_card([["7H", "8D"], ["3C", "5D"], ["2D", "6H"]], all_q)
    g = env.game
    assert g.done and g.last_hand["points"] == [15, 8, 8] and g.chips == [0, 1, 0]
    assert [e[1] for e in g.events].count(2) == 0   # p2 got no turn
    env = _last_card([["3H", "5D"], ["KH", "QH"], ["2D", "6H"]], all_q)
    assert env.game.last_hand["points"] == [8, 20, 8] and env.game.chips == [0, 0, 1]
    two_q = all_q[:2]
    hands = [["3H", "5D"], ["KH", "QH"], ["2D", "AH"]]
    env = _last_card(hands, two_q)
    assert env.game.last_hand["points"] == [8, 20, 3] and env.game.chips == [1, 0, 0]
    env = _last_card(hands, two_q, require_meld_to_contest=False)
    assert env.game.chips == [0, 0, 2]   # 1 + 1 ace (AH)


def test_scenario_11_tongits_on_last_stock_card():
    """TG-17 beats TG-24."""
    deal = fill({"dealer": 0, "turn": 1, "hands": [["2D", "KH"], ["5S", "6S", "9C"], ["3D", "QH"]],
                 "melds": [{"owner": 0, "cards": ["9D", "9H", "9S"]}], "stock": ["7S"]})
    env = make(deal, hands_per_match=1)
    act(env, "draw stock")
    act(env, "meld 5S 6S 7S")
    act(env, "layoff 9C @0")
    assert env.game.done and env.game.last_hand["how"] == "tongits" and env.game.chips == [0, 3, 0]


def test_scenario_12_going_out():
    """TG-9, TG-17: a discard or a meld that empties the hand wins at once."""
    env = make({"dealer": 0, "turn": 2, "hands": [["2D", "KH"], ["3D", "QH"], ["5S", "6S", "7S"]],
                "stock": ["KD"] + [c for c in CARD_TEXT[:52] if c not in
                                   {"2D", "KH", "3D", "QH", "5S", "6S", "7S", "KD"}]}, hands_per_match=1)
    act(env, "draw stock")
    act(env, "meld 5S 6S 7S")
    assert env.game.current_player == 2 and legal_texts(env) == {"discard KD"}
    act(env, "discard KD")
    assert env.game.done and env.game.chips == [0, 0, 3]
    rest = [c for c in CARD_TEXT[:52] if c not in {"2D", "KH", "3D", "QH", "5S", "6S", "7S", "8S", "4C"}]
    env = make({"dealer": 0, "turn": 2, "hands": [["2D", "KH"], ["3D", "QH"], ["5S", "6S", "7S"]],
                "stock": ["8S"] + rest, "discard": ["4C"]}, hands_per_match=1)
    act(env, "draw stock")
    act(env, "meld 5S 6S 7S 8S")
    g = env.game
    assert g.done and g.chips == [0, 0, 3] and g.discard == [parse_card("4C")]


def test_scenario_13_bonuses():
    """TG-31, TG-32, TG-34: a secret earns 3, aces in owned melds 1 each."""
    melds = [{"owner": 0, "cards": ["KC", "KD", "KH", "KS"], "secret": True},
             {"owner": 0, "cards": ["AC", "2C", "3C", "4C"]}]
    for mode, want in (("bank", [7, 0, 0]), ("pay", [14, -7, -7])):
        env = make({"dealer": 0, "turn": 0, "phase": "meld", "hands": [["9D"], ["3D", "QH"], ["5S", "JH"]],
                    "melds": melds}, chip_mode=mode)
        act(env, "discard 9D")
        assert env.game.chips == want


def test_scenario_14_hand_points():
    """TG-30 and option count_hand_melds."""
    for opt, want in ((True, 23), (False, 2)):
        deal = fill({"dealer": 0, "turn": 0, "hands": [["7C", "7D", "7H", "2S"], ["3D", "QH"], ["5S", "JH"]],
                     "stock": ["KS"], "discard": ["4C"]})
        env = make(deal, hands_per_match=1, count_hand_melds=opt)
        act(env, "draw stock")
        act(env, "discard KS")
        assert env.game.last_hand["points"][0] == want
    assert least_deadwood(sum(1 << parse_card(c) for c in ["7C", "7D", "7H", "7S", "8S", "9S"])) == 0


def test_scenario_15_match():
    """TG-35, TG-36, TG-38 and reward_mode win_loss."""
    env = make({"dealer": 0, "turn": 2, "phase": "meld", "hands": [["2D", "KH"], ["3D", "QH"], ["5S", "6S", "7S"]]},
               hands_per_match=3)
    act(env, "meld 5S 6S 7S")
    g = env.game
    assert g.hand_index == 1 and g.dealer == 2 and g.sizes[2] == 13 and g.current_player == 2 and g.phase == 2
    env = make({"dealer": 0, "turn": 2, "phase": "meld", "hands": [["2D", "KH"], ["3D", "QH"], ["5S", "6S", "7S"]],
                "chips": [2, 5, 2], "hand_index": 2}, hands_per_match=3, reward_mode="win_loss")
    act(env, "meld 5S 6S 7S")
    assert env.game.done and env.game.chips == [2, 5, 5]
    assert [env.rewards[a] for a in env.agents] == [-1, 0, 0]
    assert all(env.terminations.values())


def test_scenario_16_illegal_input():
    """Shared contract 4: an illegal action raises ValueError naming its text; state unchanged."""
    env = make({"dealer": 0, "turn": 1, "phase": "meld", "hands": [["KS", "2D"], ["3D", "QH"], ["5S", "JH"]]})
    before = json.dumps(env.game.to_dict(), sort_keys=True)
    with pytest.raises(ValueError, match="discard KS"):
        act(env, "discard KS")
    assert json.dumps(env.game.to_dict(), sort_keys=True) == before
    for t in ("discard 1S", "layoff 7H @17", "layoff 7H @01", "meld 7H 7H 7D", "draw", "secret 7C 7D 7H 8S"):
        with pytest.raises(ValueError):
            env.text_to_action(t)
    env = make({"dealer": 0, "turn": 1, "phase": "meld", "hands": [["KS", "2D"], ["3D", "QH"], ["5S", "JH"]]},
               illegal_action_penalty=True)
    env.step(env.text_to_action("discard KS"))
    assert env.rewards == {"player_0": 0, "player_1": -1, "player_2": 0}
    assert all(env.terminations.values())


def test_scenario_17_deal_checks():
    """Deal keys: wrong sizes, invalid melds and the other refusals raise ValueError."""
    g13 = list(CARD_TEXT[:13])
    bad = [
        {"dealer": 0, "hands": [CARD_TEXT[0:13], CARD_TEXT[13:26], CARD_TEXT[26:38]]},
        {"dealer": 0, "turn": 0, "hands": [["2C"], ["3C"], ["4C"]], "melds": [{"owner": 1, "cards": ["QS", "KS", "AS"]}]},
        {"dealer": 0, "turn": 0, "hands": [["2C"], ["2C"], ["4C"]]},
        {"dealer": 0, "turn": 0, "hands": [["2C"], ["JK"], ["4C"]]},
        {"dealer": 0, "turn": 0, "hands": [["2C"], [], ["4C"]]},
        {"dealer": 0, "turn": 0, "hands": [["2C"], ["3C"], ["4C"]], "stock": []},
        {"dealer": 0, "turn": 0, "hands": [["2C"], ["3C"], ["4C"]],
         "melds": [{"owner": 1, "cards": ["5S", "6S", "7S"], "secret": True}]},
        {"dealer": 0, "phase": "meld", "hands": [g13, CARD_TEXT[13:25], CARD_TEXT[26:38]]},
        {"dealer": 0, "hands": [g13, CARD_TEXT[13:25], CARD_TEXT[25:37]], "chips": [0, 0]},
        {"dealer": 0, "hands": [g13, CARD_TEXT[13:25], CARD_TEXT[25:37]], "hand_index": 3},
        {"dealer": 3, "hands": [g13, CARD_TEXT[13:25], CARD_TEXT[25:37]]},
        {"dealer": 0, "turn": -1, "hands": [["2C"], ["3C"], ["4C"]]},
        {"dealer": 0, "turn": 0, "hands": [["2C"], ["3C"], ["4C"]], "blocked": [5]},
        {"dealer": 0, "turn": 0, "hands": [["2C"], ["3C"], ["4C"]], "melds": [{"owner": 7, "cards": ["5S", "6S", "7S"]}]},
        {"dealer": 0, "turn": 0, "hands": [["2C"], ["3C"], ["4C"]], "stock": ["5C"]},   # cards missing
        {"dealer": 0, "hands": [g13, CARD_TEXT[13:25], CARD_TEXT[25:37]], "discard": ["KS"]},
        {"dealer": 0, "hands": [g13, CARD_TEXT[13:25], CARD_TEXT[25:37]], "bogus": 1},
        {"dealer": 0, "turn": 0, "phase": "pickup", "hands": [["2C"], ["3C"], ["4C"]]},
    ]
    for deal in bad:
        with pytest.raises(ValueError):
            make(deal)
    make({"dealer": 0, "hands": [g13, CARD_TEXT[13:25], CARD_TEXT[25:37]], "chips": [1, 2, 3], "hand_index": 2})


# ---- PettingZoo API -----------------------------------------------------------------------
def test_pettingzoo_api():
    run_pettingzoo_tests(lambda: tongits_v0.env(hands_per_match=2), num_cycles=200)


# ---- independent reference -----------------------------------------------------------------
TEXT_ID = {TongitsGame.action_to_text(None, a): a for a in range(NUM_ACTIONS)}


def reference_mask(game) -> np.ndarray:
    """Legal actions by brute force over the hand and the table (TG-5..TG-20), melds read by the
    tests' own checker (tests/reference_melds.py, TG-10..TG-12), not the engine's meld code."""
    ref = np.zeros(NUM_ACTIONS, dtype=np.int8)
    if game.done:
        return ref
    p = game.current_player
    hand = {CARD_TEXT[c] for c in cards_of(game.hands[p])}
    taken = CARD_TEXT[game.taken] if game.taken is not None else None
    phase = ("draw", "pickup", "meld", "response")[game.phase]

    def t2a(text: str) -> int:
        if text not in TEXT_ID:
            raise AssertionError(f"the reference's move {text!r} has no action id")
        return TEXT_ID[text]

    if phase == "response":   # TG-20: every opponent answers; only a qualified one may challenge
        owns_meld = any(m[0] == p for m in game.melds)
        four = any(sum(rm.rank_suit(c)[0] == r for c in hand) == 4 for r in range(1, 14))
        ref[t2a("challenge")] = int(owns_meld or four or not game.options.require_meld_to_contest)
        ref[t2a("fold")] = 1
        return ref
    if phase == "draw":
        ref[t2a("draw stock")] = int(len(game.stock) > 0)
        if game.discard:
            top = CARD_TEXT[game.discard[-1]]
            ok = (not game.options.discard_take_must_meld
                  or any(rm.shape([top, a, b], False) for a, b in itertools.combinations(sorted(hand), 2)))
            ref[t2a("take discard")] = int(ok)
        exposed = any(m[0] == p and not m[2] for m in game.melds)
        ref[t2a("call draw")] = int(exposed and not game.blocked[p])
        return ref
    for cards in rm.hand_melds(hand, False):
        if phase == "meld" or taken in cards:
            ref[t2a("meld " + " ".join(CARD_TEXT[c] for c in sorted(parse_card(t) for t in cards)))] = 1
    if phase == "pickup":
        return ref
    for c in hand:
        if c != taken or len(hand) == 1:
            ref[t2a("discard " + c)] = 1
    for r in range(1, 14):
        four = [c for c in hand if rm.rank_suit(c)[0] == r]
        if len(four) == 4:
            ref[t2a("secret " + " ".join(CARD_TEXT[c] for c in sorted(parse_card(t) for t in four)))] = 1
    for k, m in enumerate(game.melds):
        if m[2]:
            continue
        on_table = [CARD_TEXT[c] for c in cards_of(m[1])]
        for c in hand:
            if rm.shape(on_table + [c], False) is not None:
                ref[t2a(f"layoff {c} @{k}")] = 1
    return ref


def check_invariants(game) -> None:
    """Card conservation (every card in exactly one place) and derived state in step."""
    places = [set(cards_of(h)) for h in game.hands] + [set(game.stock), set(game.discard)]
    places += [set(cards_of(m[1])) for m in game.melds]
    assert sum(len(p) for p in places) == 52 and set().union(*places) == set(range(52))
    assert len(game.stock) == len(set(game.stock)) and len(game.discard) == len(set(game.discard))
    for m in game.melds:
        cards = cards_of(m[1])
        assert rm.shape([CARD_TEXT[c] for c in cards], False) is not None
        assert not m[2] or (len(cards) == 4 and len({RANK_OF[c] for c in cards}) == 1)
    for s in range(3):
        assert game.sizes[s] == len(places[s])
    s = game.current_player
    obs = game.observation(s)
    assert obs.shape == (OBS_SIZE,) and obs.dtype == np.float32
    assert set(np.flatnonzero(obs[:52])) == places[s]
    assert set(np.flatnonzero(obs[293:345])) == places[4]
    assert sum(game.chips) == 0 or game.options.chip_mode == "bank"
    if not game.done:
        assert game.sizes[game.current_player] > 0


OPTION_SETS = [dict(discard_take_must_meld=a, count_hand_melds=b, require_meld_to_contest=c, chip_mode=d,
                    hands_per_match=h)
               for (a, b, c, d), h in zip(itertools.product([True, False], [True, False], [True, False],
                                                            ["bank", "pay"]), itertools.cycle([1, 2]))]


def test_random_play_matches_reference():
    """>= 2,000 complete matches across all options; mask == reference, cards conserved."""
    total = 0
    for i, opts in enumerate(OPTION_SETS):
        n = 125
        stats = play_random_games(lambda: tongits_v0.raw_env(**opts), n, seed=100 + i,
                                  reference_mask=reference_mask, check_invariants=check_invariants,
                                  illegal_probe_every=11)
        assert stats["terminated"] == n
        total += stats["games"]
    assert total >= 2000


# ---- hidden information ---------------------------------------------------------------------
def test_hidden_information():
    """Shared contract 3, TG-13: observations and views do not depend on hidden cards."""
    REDEAL_CHANGES.clear()
    for opts in ({}, {"discard_take_must_meld": False}):
        checked = check_hidden_information(lambda: tongits_v0.raw_env(hands_per_match=2, **opts), seed=5,
                                           num_states=25, redeal=redeal, redeals_per_state=3)
        assert checked > 100
    assert sum(REDEAL_CHANGES) > 0.9 * len(REDEAL_CHANGES)
    # A face-down secret of p1: its rank is re-dealt, p0's observation and view stay the same.
    env = make({"dealer": 0, "turn": 0, "hands": [["2C", "4D"], ["3C", "JS"], ["KD", "QS"]],
                "melds": [{"owner": 1, "cards": ["9C", "9D", "9H", "9S"], "secret": True}]})
    game = env.game
    rng = np.random.default_rng(0)
    ranks = set()
    for _ in range(20):
        other = redeal(game, 0, rng)
        ranks.add(other.melds[0][4])
        assert json.dumps(other.view(0), sort_keys=True) == json.dumps(game.view(0), sort_keys=True)
        np.testing.assert_array_equal(other.observation(0), game.observation(0))
    assert len(ranks) > 1
    assert game.view(0)["melds"][0]["cards"] == ["??"] * 4 and game.view(1)["melds"][0]["cards"][0] == "9C"
    assert game.observation(1)[397 + parse_card("9C")] == 1 and game.observation(0)[397 + parse_card("9C")] == 0


# ---- round trips, text, options ---------------------------------------------------------------
def test_roundtrips():
    for seed, opts in ((1, {"hands_per_match": 8}),
                       (2, {"discard_take_must_meld": False, "count_hand_melds": False, "hands_per_match": 8}),
                       (3, {"chip_mode": "pay", "reward_mode": "win_loss", "hands_per_match": 5})):
        check_roundtrips(lambda: tongits_v0.raw_env(**opts), seed=seed, steps_before=60, steps_after=300)
    env = tongits_v0.raw_env(hands_per_match=8)
    env.reset(seed=9)
    rng = np.random.default_rng(9)
    while not env.game.done:
        env.game.step(random_legal_action(env.game.legal_mask(), rng))
        copy = TongitsGame.from_dict(json.loads(json.dumps(env.game.to_dict())))
        assert all(copy.view(s) == env.game.view(s) for s in range(3))


def test_text_roundtrip_all_ids():
    env = tongits_v0.raw_env()
    env.reset(seed=0)
    texts = [env.action_to_text(a) for a in range(NUM_ACTIONS)]
    assert len(set(texts)) == NUM_ACTIONS == 1283
    assert texts[:5] == ["draw stock", "take discard", "call draw", "challenge", "fold"]
    for a, t in enumerate(texts):
        assert env.text_to_action(t) == a
        assert env.text_to_action("  " + t.lower().replace(" ", "  ") + " ") == a
    assert env.text_to_action("LAYOFF 10h @3") == env.text_to_action("layoff TH @3")
    assert env.text_to_action("secret 7s 7c 7h 7d") == env.text_to_action("secret 7C 7D 7H 7S")
    with pytest.raises(ValueError):
        env.action_to_text(NUM_ACTIONS)


@pytest.mark.parametrize("kwargs", [dict(hands_per_match=0), dict(hands_per_match=True), dict(chip_mode="x"),
                                    dict(count_hand_melds=1), dict(discard_take_must_meld="no"),
                                    dict(require_meld_to_contest=None), dict(reward_mode="score"),
                                    dict(bogus_option=1)])
def test_option_validation(kwargs):
    name = next(iter(kwargs))
    with pytest.raises(ValueError, match=name):
        tongits_v0.env(**kwargs)


def test_spaces_and_pickle():
    env = tongits_v0.env(render_mode="ansi")
    env.reset(seed=3)
    agent = env.agent_selection
    assert env.observation_space(agent)["observation"].shape == (OBS_SIZE,)
    assert env.action_space(agent).n == NUM_ACTIONS
    assert "player_" in env.render()
    game = env.unwrapped.game
    assert pickle.loads(pickle.dumps(game)).to_dict() == game.to_dict()
    v = env.unwrapped.view(agent)
    for key in ("game", "seat", "num_players", "to_play", "phase", "done", "hand", "hand_sizes", "scores",
                "legal_actions", "melds", "discard", "stock_size", "events"):
        assert key in v
    assert v["legal_actions"] == [env.unwrapped.action_to_text(a) for a in np.flatnonzero(game.legal_mask())]
    assert sum(POINTS[parse_card(c)] for c in v["hand"]) == game.hand_points(game.current_player)


def test_turn_cap_without_discard_meld_rule():
    """Option discard_take_must_meld=False: the discard completing the 100th turn ends the hand,
    settled as TG-25..TG-27 with the mover as the taker of the last card."""
    deal = {"dealer": 0, "turn": 1, "phase": "meld", "hands": [["3H", "5D"], ["KH", "QH", "2S"], ["2D", "6H"]],
            "melds": [{"owner": 0, "cards": ["TD", "JD", "QD"]}, {"owner": 1, "cards": ["4S", "5S", "6S"]},
                      {"owner": 2, "cards": ["7C", "8C", "9C"]}]}
    for must_meld, ends in ((False, True), (True, False)):
        env = make(deal, hands_per_match=1, discard_take_must_meld=must_meld)
        d = env.game.to_dict()
        d["turns_done"] = 99
        env.game = TongitsGame.from_dict(d)
        act(env, "discard 2S")
        assert env.game.done is ends
        if ends:
            assert env.game.last_hand["how"] == "turn_cap" and env.game.last_hand["points"] == [8, 20, 8]
            assert env.game.chips == [0, 0, 1]   # tie 8/8: p2 is first after the mover p1


def test_rewards_sum_to_chip_changes():
    """reward_mode chips: the rewards of a match sum to each seat's chip total (TG-31..TG-34)."""
    for mode in ("bank", "pay"):
        env = tongits_v0.env(hands_per_match=3, chip_mode=mode)
        env.reset(seed=4)
        rng = np.random.default_rng(4)
        totals = {a: 0.0 for a in env.possible_agents}
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            totals[agent] += reward
            env.step(None if term or trunc else random_legal_action(obs["action_mask"], rng))
        assert [totals[a] for a in env.possible_agents] == env.unwrapped.game.chips
        assert mode == "bank" or sum(env.unwrapped.game.chips) == 0


def _expected_hand_chips(lh, caller, challengers, last, mode):
    """TG-21..TG-34 recomputed from the revealed hand (``view()["last_hand"]``, TG-29), the
    Draw call and answers seen in the action history and the seat ``last`` that moved last:
    (winner, per-seat chip change)."""
    hands, melds, how = lh["hands"], lh["melds"], lh["how"]
    points = [sum(POINTS[parse_card(c)] for c in h) for h in hands]
    burned = -1
    if how == "tongits":
        winners = [s for s in range(3) if not hands[s]]
        assert len(winners) == 1
        w = winners[0]
    elif how == "draw":
        assert caller >= 0 and not challengers
        w = caller
    elif how in ("challenge", "draw_challenged"):
        assert caller >= 0 and challengers
        rivals = [(caller + k) % 3 for k in (1, 2) if (caller + k) % 3 in challengers]
        low = min(points[s] for s in rivals)
        w = caller if points[caller] < low else next(s for s in rivals if points[s] == low)   # TG-23
        if w != caller:
            burned = caller                                                                   # TG-28
    else:                                                                                     # TG-24..TG-27
        order = [last, (last + 1) % 3, (last + 2) % 3]
        four = [any(sum(c[0] == r for c in hands[s]) == 4 for r in "A23456789TJQK") for s in range(3)]
        cand = [s for s in order if four[s] or any(m["owner"] == s for m in melds)] or order
        w = min(cand, key=lambda s: (points[s], cand.index(s)))
    ranks = [RANK_OF[parse_card(c)] for c in hands[w]]
    aces = ranks.count(1) + sum(c.startswith("A") for m in melds if m["owner"] == w for c in m["cards"])
    secrets = sum(m["secret"] for m in melds if m["owner"] == w) + sum(ranks.count(r) == 4 for r in set(ranks))
    gain = (3 if how in ("tongits", "challenge") else 1) + aces + 3 * secrets
    delta = [0, 0, 0]
    if mode == "bank":                                                                        # TG-33, TG-34
        delta[w] = gain
        if burned >= 0:
            delta[burned] = -1
    else:
        delta = [gain * 2 if s == w else -gain for s in range(3)]
        if burned >= 0:
            delta[burned] -= 1
            delta[w] += 1
    return w, delta


@pytest.mark.parametrize("mode", ["bank", "pay"])
def test_every_hand_pays_only_its_winner(mode):
    """TG-31..TG-34 regression (a tournament report of chips jumping [0, -1, 5] -> [0, 1, 6] in
    one hand): over whole random matches, the chips, the rendered ``scores`` and the rewards change
    only when a hand ends, and then exactly by the amounts recomputed from the revealed hands; in
    bank mode only the winner gains and only a burned caller loses."""
    rng = np.random.default_rng(7)
    env = tongits_v0.raw_env(hands_per_match=4, chip_mode=mode)
    hands_seen = dict.fromkeys(("tongits", "draw", "challenge", "draw_challenged", "stock"), 0)
    for seed in range(12):
        env.reset(seed=seed)
        game = env.game
        caller, challengers = -1, []
        before, hand_index = list(game.chips), game.hand_index
        while not game.done:
            seat = game.current_player
            scores = env.view(seat)["scores"]
            legal = np.flatnonzero(game.legal_mask())
            if rng.random() < 0.7:
                legal = legal[legal != 2]   # call draw less often, so that stocks run out
            melding = legal[legal >= 57]   # meld, secret, layoff: often, so that Tongits happens
            a = int(rng.choice(melding if len(melding) and rng.random() < 0.9 else legal))
            text = game.action_to_text(a)
            if text == "call draw":
                caller = seat
            elif text == "challenge":
                challengers.append(seat)
            env.step(a)
            rewards = [env.rewards[n] for n in env.possible_agents]
            if game.hand_index == hand_index and not game.done:
                assert game.chips == before == scores and rewards == [0, 0, 0]
                continue
            lh = env.view(seat)["last_hand"]
            w, delta = _expected_hand_chips(lh, caller, challengers, seat, mode)
            change = [game.chips[s] - before[s] for s in range(3)]
            hands_seen[lh["how"]] += 1
            assert lh["winner"] == w and change == delta, (seed, hand_index, lh, caller, challengers)
            assert lh["chips_change"] == change and rewards == change
            if mode == "bank":
                assert [s for s in range(3) if change[s] > 0] == [w]
                assert all(change[s] in (0, -1) for s in range(3) if s != w)
            caller, challengers = -1, []
            before, hand_index = list(game.chips), game.hand_index
    assert all(hands_seen.values()), hands_seen


def test_two_hands_can_move_two_seats():
    """Why [0, -1, 5] can become [0, 1, 6] between two renders of one match: it takes two hands,
    each paying only its own winner (TG-31, TG-33, TG-34)."""
    melds = [{"owner": 1, "cards": ["AC", "2C", "3C"]}, {"owner": 2, "cards": ["TD", "JD", "QD"]}]
    hands = [["5H", "9S"], ["4D", "7H"], ["8S", "KH"]]
    env = make({"dealer": 0, "turn": 1, "hands": hands, "melds": melds, "chips": [0, -1, 5], "hand_index": 1})
    act(env, "call draw")                       # p2 folds; p0, not qualified, may only fold
    act(env, "fold")
    act(env, "fold")
    assert env.game.chips == [0, 1, 5] and env.game.last_hand["chips_change"] == [0, 2, 0]
    env = make({"dealer": 1, "turn": 2, "hands": hands, "melds": melds, "chips": [0, 1, 5], "hand_index": 2})
    act(env, "call draw")
    act(env, "fold")
    act(env, "fold")
    assert env.game.chips == [0, 1, 6] and env.game.done


def test_determinize_leaves_the_real_game_bit_identical():
    """Determinizing every seat in all four phases (TG-6, TG-7, TG-8, TG-20), with and without
    face-down secrets on the table, writes nothing on the game: every attribute and the
    generator's state stay bit-identical (the re-deal memo lives in determinize.py)."""
    rng = np.random.default_rng(8)
    options = Options(hands_per_match=1)
    game = TongitsGame.new(options, np.random.default_rng(8))
    seen = set()
    for step in range(3000):
        kind = (game.phase, any(m[2] for m in game.melds))
        if step % 17 == 0 or kind not in seen:
            seen.add(kind)
            check_determinize_writes_nothing(game, rng)
        game.step(random_legal_action(game.legal_mask(), rng))
        if game.done:
            game = TongitsGame.new(options, np.random.default_rng(step))
    assert {phase for phase, _ in seen} == {DRAW, PICKUP, MELD, RESPONSE} and (MELD, True) in seen
