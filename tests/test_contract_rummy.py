"""Tests of Contract Rummy (docs/rules/contract_rummy.md, CR-1..CR-34).

The scenario checks 1-21 of the rules file, PettingZoo's api/seed tests, random matches checked at
every step against an independent brute-force legality reference (melds read by the tests' own
checker, tests/reference_melds.py, not by ``rummy_env.melds``, the engine's catalogue tables or
search), card/joker conservation, hidden information,
round trips, option and deal validation and action texts.
"""
from __future__ import annotations

import itertools
import json
import pickle

import numpy as np
import pytest

from rummy_env import contract_rummy_v0
from rummy_env.cards import CARD_TEXT, JOKER, card, parse_card
from rummy_env.games.contract_rummy import Options
from rummy_env.render import view_text
from tests import reference_melds as rm
from tests.harness import (check_hidden_information, check_roundtrips, play_random_games,
                           random_legal_action, run_pettingzoo_tests)
from tests.redeals import redeal_contract_rummy as redeal

HAND_SIZE = {1: 10, 2: 10, 3: 10, 4: 10, 5: 12, 6: 12, 7: 12}
NEEDS = {1: (2, 0), 2: (1, 1), 3: (0, 2), 4: (3, 0), 5: (2, 1), 6: (1, 2), 7: (0, 3)}


def pen(c: int) -> int:
    """CR-30, written independently of the engine: 2-9 face, T-K 10, A 15, JK 15."""
    if c == JOKER:
        return 15
    r = c % 13 + 1
    return 15 if r == 1 else min(r, 10)


# ---------------------------------------------------------------------- scenario helpers
def make_deal(n=4, contract=1, deal_index=0, hands=None, melds=(), discard=None, stock_top=(), to_play=None,
              dealer=0, decks=1, jokers=1, stock=None, scores=None, turns=None):
    """A full deal dict: the given hands, other (not down) seats filled with the lowest spare
    cards (jokers last), then the pile and the stock (``stock_top`` first)."""
    hands = dict(hands or {})
    count = {c: decks for c in range(52)}
    count[JOKER] = jokers

    def use(texts):
        for t in texts:
            t = t.upper()
            c = JOKER if t.startswith("JK") else parse_card(t)
            count[c] -= 1
            assert count[c] >= 0, t

    for h in hands.values():
        use(h)
    for m in melds:
        use(m["cards"])
    use(discard or [])
    use(stock_top)
    if stock is not None:
        use(stock)
    spare = [c for c in list(range(52)) + [JOKER] for _ in range(count[c])]
    full = []
    for s in range(n):
        if s in hands:
            full.append(list(hands[s]))
        else:
            full.append([CARD_TEXT[c] for c in spare[:HAND_SIZE[contract]]])
            spare = spare[HAND_SIZE[contract]:]
    d = {"dealer": dealer, "hands": full, "deal_index": deal_index, "melds": list(melds)}
    if discard is None:
        discard = [CARD_TEXT[spare.pop(0)]]
    d["discard"] = list(discard)
    d["stock"] = list(stock_top) + [CARD_TEXT[c] for c in spare] if stock is None else list(stock)
    if stock is not None:
        assert not spare, [CARD_TEXT[c] for c in spare]
    if to_play is not None:
        d["to_play"] = to_play
    if scores is not None:
        d["scores"] = scores
    if turns is not None:
        d["turns"] = turns
    return d


def start(deal, **opts):
    env = contract_rummy_v0.raw_env(**opts)
    env.reset(seed=0, options={"deal": deal})
    return env, env.game


def legal_texts(game):
    return {game.action_to_text(int(a)) for a in np.flatnonzero(game.legal_mask())}


def act(env, text):
    env.step(env.text_to_action(text))


def discards(texts):
    return {"discard " + t for t in texts}


def meld_cards(game, k):
    return game.view(0)["melds"][k]["cards"]


# ---------------------------------------------------------------------- scenario checks
def test_scenario_01_pack():
    """CR-2, CR-4, CR-7: pack sizes, M, hand/pile/stock sizes, a pack too small."""
    env = contract_rummy_v0.raw_env(num_players=5)
    assert env.options.pack_size == 106 and env.options.decks == 2 and env.options.jokers == 2
    env.reset(seed=1)
    assert env.game.M == 15
    assert env.action_space("player_0").n == 1 + 106 + 53 + 9707 + 156 * 15
    with pytest.raises(ValueError, match="num_decks"):
        contract_rummy_v0.raw_env(num_players=5, num_decks=1)
    env = contract_rummy_v0.raw_env()
    env.reset(seed=3)
    g = env.game
    assert g.hsize == [10] * 4 and len(g.pile) == 1 and len(g.stock) == 12
    assert env.action_space("player_0").n == 4584
    env = contract_rummy_v0.raw_env(deals=(5,))
    env.reset(seed=3)
    g = env.game
    assert g.hsize == [12] * 4 and len(g.pile) == 1 and len(g.stock) == 4


def test_scenario_02_two_sets():
    """CR-8, CR-15, CR-16, CR-29: laying the contract, then the discard."""
    d = make_deal(hands={1: "5C 5D 5H KC KD KS 2C 7D 9H JD".split()}, stock_top=["3S"])
    env, g = start(d)
    act(env, "draw stock")
    hand = "5C 5D 5H KC KD KS 2C 7D 9H JD 3S".split()
    assert legal_texts(g) == {"meld 5C 5D 5H", "meld KC KD KS"} | discards(hand)
    act(env, "meld 5C 5D 5H")
    assert legal_texts(g) == {"meld KC KD KS"}
    act(env, "meld KC KD KS")
    assert g.down[1]
    assert meld_cards(g, 0) == ["5C", "5D", "5H"] and meld_cards(g, 1) == ["KC", "KD", "KS"]
    act(env, "discard 9H")
    assert sorted(g.view(1)["hand"]) == sorted(["2C", "3S", "7D", "JD"])
    assert g.current_player == 2


def test_scenario_03_no_half_contract():
    """CR-16: no meld when the rest of the contract cannot be laid."""
    hand = "5C 5D 5H KC KD 2C 7D 9H JD QS".split()
    env, g = start(make_deal(hands={1: hand}, stock_top=["3S"]))
    act(env, "draw stock")
    assert legal_texts(g) == discards(hand + ["3S"])


def test_scenario_04_run_with_joker():
    """CR-16, CR-20, CR-21: joker placements; the set may not take the joker the run needs."""
    hand = "7H 8H JK 4C 4D 4S 2C 5D TS QC".split()
    env, g = start(make_deal(contract=2, deal_index=1, hands={1: hand}, stock_top=["KD"]))
    act(env, "draw stock")
    melds = {t for t in legal_texts(g) if t.startswith("meld")}
    assert melds == {"meld JK=6H 7H 8H", "meld 7H 8H JK=9H", "meld 4C 4D 4S"}
    assert "meld 4C 4D JK=4H 4S" not in legal_texts(g)
    assert env.action_to_text(env.text_to_action("meld 7H JK=9H 8H")) == "meld 7H 8H JK=9H"
    act(env, "meld 7H JK=9H 8H")
    act(env, "meld 4C 4D 4S")
    assert meld_cards(g, 0) == ["7H", "8H", "JK=9H"] and meld_cards(g, 1) == ["4C", "4D", "4S"]


def _swap_deal(p2_hand, p2_melds=True):
    melds = [{"owner": 1, "cards": ["7H", "8H", "JK=9H"]}, {"owner": 1, "cards": ["4C", "4D", "4S"]}]
    if p2_melds:
        melds += [{"owner": 2, "cards": ["QC", "QD", "QS"]}, {"owner": 2, "cards": ["5D", "6D", "7D"]}]
    return make_deal(contract=2, deal_index=1, hands={1: ["2D", "3D"], 2: p2_hand}, melds=melds,
                     stock_top=["3C"], to_play=2)


def test_scenario_05_joker_swap():
    """CR-22, CR-23: swap a run's joker, then lay it off at once; not in the turn of going down."""
    env, g = start(_swap_deal(["9H", "2C", "KS"]))
    act(env, "draw stock")
    assert "swap 9H @0" in legal_texts(g)
    act(env, "swap 9H @0")
    assert meld_cards(g, 0) == ["7H", "8H", "9H"]
    assert sorted(g.view(2)["hand"]) == sorted(["JK", "2C", "KS", "3C"])
    assert legal_texts(g) == {"layoff JK=6H @0", "layoff JK=TH @0", "layoff JK=4H @1", "layoff JK=QH @2",
                              "layoff JK=4D @3", "layoff JK=8D @3"}
    with pytest.raises(ValueError, match="discard JK"):
        act(env, "discard JK")
    # going down this turn: no swap
    hand = "QC QD QS 5D 6D 7D 9H 2C KS AC".split()
    env, g = start(_swap_deal(hand, p2_melds=False))
    act(env, "draw stock")
    act(env, "meld QC QD QS")
    act(env, "meld 5D 6D 7D")
    assert g.down[2]
    assert "swap 9H @0" not in legal_texts(g)
    with pytest.raises(ValueError, match="swap 9H @0"):
        act(env, "swap 9H @0")


def test_scenario_06_dead_joker():
    """CR-24: a joker in a set is never swapped; its declared suit counts as present."""
    melds = [{"owner": 0, "cards": ["4C", "4D", "JK=4S"]}, {"owner": 0, "cards": ["9C", "9D", "9H"]},
             {"owner": 1, "cards": ["KC", "KD", "KH"]}, {"owner": 1, "cards": ["QC", "QD", "QH"]}]
    env, g = start(make_deal(hands={0: ["2D"], 1: ["4S", "4H", "7S"]}, melds=melds, stock_top=["2C"], to_play=1))
    act(env, "draw stock")
    legal = legal_texts(g)
    assert "swap 4S @0" not in legal and "layoff 4S @0" not in legal and "layoff 4H @0" in legal
    act(env, "layoff 4H @0")
    assert meld_cards(g, 0) == ["4C", "4D", "4H", "JK=4S"]
    assert not any(t.endswith("@0") for t in legal_texts(g))


def _deep_deal(**kw):
    return make_deal(hands={1: "9C 9D 5C 5D 5S 2H 7C JD QS KH".split()}, discard=["2D", "9S", "6D", "QH"], **kw)


def test_scenario_07_deep_take_not_down():
    """CR-11, CR-12, CR-16: a deep take only when the contract can be laid with its card."""
    env, g = start(_deep_deal())
    assert legal_texts(g) == {"draw stock", "take discard", "take discard 3"}
    act(env, "take discard 3")
    assert legal_texts(g) == {"meld 5C 5D 5S", "meld 9C 9D 9S"}
    act(env, "meld 9C 9D 9S")
    assert legal_texts(g) == {"meld 5C 5D 5S"}
    act(env, "meld 5C 5D 5S")
    assert legal_texts(g) == discards("2H 7C JD QS KH 6D QH".split())
    env, g = start(_deep_deal(), deep_discard=False)
    assert legal_texts(g) == {"draw stock", "take discard"}


def test_scenario_08_single_card_ban():
    """CR-26: the card taken by a single-card take may not be discarded that turn."""
    env, g = start(_deep_deal())
    act(env, "take discard")
    legal = legal_texts(g)
    assert not any(t.startswith("meld") for t in legal)
    assert legal == discards("9C 9D 5C 5D 5S 2H 7C JD QS KH".split())
    before = json.dumps(g.to_dict(), sort_keys=True)
    with pytest.raises(ValueError, match="discard QH"):
        act(env, "discard QH")
    assert json.dumps(g.to_dict(), sort_keys=True) == before


def _ban_deal(top):
    melds = [{"owner": 2, "cards": ["5H", "6H", "7H"]}, {"owner": 2, "cards": ["KC", "KD", "KS"]}]
    return make_deal(contract=2, deal_index=1, hands={2: ["8H"]}, melds=melds, discard=["2S", top], to_play=2)


def test_scenario_09_ban_and_dead_ends():
    """CR-26, CR-28: no action may leave only banned cards that cannot all be laid off."""
    env, g = start(_ban_deal("QD"))
    act(env, "take discard")
    assert legal_texts(g) == {"discard 8H"}
    env, g = start(_ban_deal("9H"))
    act(env, "take discard")
    assert legal_texts(g) == {"layoff 8H @0", "discard 8H"}
    act(env, "layoff 8H @0")
    assert legal_texts(g) == {"layoff 9H @0"}
    act(env, "layoff 9H @0")
    assert g.deal_idx == 2 and g.scores[2] == 0  # p2 went out, the next deal began


def test_scenario_10_two_decks():
    """CR-2, CR-13: two decks; a set never holds two cards of one suit."""
    env = contract_rummy_v0.raw_env(num_players=6)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="meld 8C 8C 8D"):
        env.text_to_action("meld 8C 8C 8D")
    melds = [{"owner": 0, "cards": ["8C", "8D", "8H"]}, {"owner": 0, "cards": ["2C", "2D", "2H"]},
             {"owner": 1, "cards": ["3C", "3D", "3H"]}, {"owner": 1, "cards": ["4C", "4D", "4H"]}]
    d = make_deal(n=6, decks=2, jokers=2, hands={0: ["9S"], 1: ["8C", "8S", "8S"]}, melds=melds,
                  stock_top=["KH"], to_play=1)
    env, g = start(d, num_players=6)
    act(env, "draw stock")
    legal = legal_texts(g)
    assert "layoff 8C @0" not in legal and "layoff 8S @0" in legal
    act(env, "layoff 8S @0")
    legal = legal_texts(g)
    assert "layoff 8C @0" not in legal and "layoff 8S @0" not in legal


def _out_deal(**kw):
    melds = [{"owner": 3, "cards": ["7H", "8H", "9H"]}, {"owner": 3, "cards": ["4C", "4D", "4H"]},
             {"owner": 0, "cards": ["5C", "5D", "5H"]}, {"owner": 0, "cards": ["8C", "9C", "TC"]},
             {"owner": 1, "cards": ["6C", "6D", "6H"]}, {"owner": 1, "cards": ["JC", "QC", "KC"]},
             {"owner": 2, "cards": ["3C", "3D", "3H"]}, {"owner": 2, "cards": ["5S", "6S", "7S"]}]
    hands = {0: "AS KD 7C JK".split(), 1: "TD 2C".split(), 2: "QH QS AH 9D".split(), 3: ["TH", "4S"]}
    return make_deal(contract=2, deal_index=1, hands=hands, melds=melds, stock_top=["JH"], to_play=3, **kw)


def test_scenario_11_out_without_discard():
    """CR-18, CR-29: laying off the last card goes out at once, with no discard."""
    env, g = start(_out_deal())
    act(env, "draw stock")
    assert "layoff JH @0" not in legal_texts(g)
    act(env, "layoff TH @0")
    assert "layoff JH @0" in legal_texts(g)
    act(env, "layoff JH @0")
    act(env, "layoff 4S @1")
    assert g.deal_idx == 2 and g.turns == 0 and g.phase == 0  # the deal ended, the next began


def test_scenario_12_penalties():
    """CR-30: penalties of the hands left; rewards in "points" mode."""
    env, g = start(_out_deal())
    for t in ("draw stock", "layoff TH @0", "layoff JH @0"):
        act(env, t)
    env.step(env.text_to_action("layoff 4S @1"))
    assert [env.rewards[f"player_{i}"] for i in range(4)] == [-47, -12, -44, 0]
    assert g.scores == [47, 12, 44, 0]
    assert [sum(pen(parse_card(t, True)) for t in h.split()) for h in ("AS KD 7C JK", "TD 2C", "QH QS AH 9D")] \
        == [47, 12, 44]


CLUBS_2_TO_K = [CARD_TEXT[card(r, 0)] for r in range(2, 14)]


def _ace_runs_position():
    """Deal 3; p1 is down with @0 = JD QD KD and @1 = 2C .. KC, holds AD 2D AC JK 5S and has drawn."""
    melds = [{"owner": 1, "cards": ["JD", "QD", "KD"]}, {"owner": 1, "cards": CLUBS_2_TO_K}]
    d = make_deal(contract=3, deal_index=2, hands={1: ["AD", "2D", "AC", "JK", "5S"]}, melds=melds,
                  stock_top=["9S"])
    env, g = start(d)
    act(env, "draw stock")
    return CLUBS_2_TO_K, env, g


def test_scenario_13_aces():
    """CR-1, CR-14, CR-19: aces low or high, never around the corner; ace-to-ace runs."""
    env = contract_rummy_v0.raw_env()
    env.reset(seed=0)
    a, b = env.text_to_action("meld QS KS AS"), env.text_to_action("meld AS 2S 3S")
    assert a != b and env.action_to_text(a) == "meld QS KS AS" and env.action_to_text(b) == "meld AS 2S 3S"
    with pytest.raises(ValueError, match="KS AS 2S"):
        env.text_to_action("meld KS AS 2S")
    clubs, env, g = _ace_runs_position()
    act(env, "layoff AD @0")
    assert meld_cards(g, 0) == ["JD", "QD", "KD", "AD"]
    assert "layoff 2D @0" not in legal_texts(g)
    act(env, "layoff AC @1")
    assert meld_cards(g, 1) == clubs + ["AC"]
    act(env, "layoff JK=AC @1")
    assert meld_cards(g, 1) == ["JK=AC"] + clubs + ["AC"]
    assert not any(t.endswith("@1") for t in legal_texts(g))


def test_clone_keeps_high_ace_of_13_card_run():
    """CR-19: a 2..K run that took its ace high keeps it high through clone / to_dict (the
    pieces alone would classify it ace-low), so observations and views of the copy match."""
    clubs, env, g = _ace_runs_position()
    act(env, "layoff AC @1")
    for copy in (g.clone(), pickle.loads(pickle.dumps(g))):
        assert copy.melds[1][1] == g.melds[1][1] and copy.melds[1][1].hi == 14
        for seat in range(g.num_players):
            assert np.array_equal(copy.observation(seat), g.observation(seat))
            assert copy.view(seat) == g.view(seat)
        assert copy.to_dict() == g.to_dict()


def _all7(hand_extra, **opts):
    hand = "3C 4C 5C 6C 8D 9D TD JD QH KH AH 2S".split()
    return start(make_deal(contract=7, hands={1: hand}, stock_top=[hand_extra]), deals=(7,), **opts)


def test_scenario_14_deal7_all_at_once():
    """CR-17: contract 7 only as going out (all cards but at most one discardable card)."""
    env, g = _all7("7S")
    act(env, "draw stock")
    assert legal_texts(g) == discards("3C 4C 5C 6C 8D 9D TD JD QH KH AH 2S 7S".split())
    env, g = _all7("7C")
    act(env, "draw stock")
    melds = {t for t in legal_texts(g) if t.startswith("meld")}
    assert melds == {"meld 3C 4C 5C 6C 7C", "meld 8D 9D TD JD", "meld QH KH AH"}
    for t in sorted(melds):
        act(env, t)
    assert legal_texts(g) == {"discard 2S"}
    env.step(env.text_to_action("discard 2S"))
    assert g.done and g.scores[1] == 0
    env, g = _all7("7S", deal7_all_at_once=False)
    act(env, "draw stock")
    assert "meld 3C 4C 5C 6C" in legal_texts(g)


def test_scenario_15_same_suit_runs():
    """CR-9: two runs of one suit need a gap; option contract_runs_distinct_suits."""
    hand = "3H 4H 5H 6H 7H 8H 9H JC QC KC".split()
    for distinct in (False, True):
        env, g = start(make_deal(contract=3, deal_index=2, hands={1: hand}, stock_top=["2D"]),
                       contract_runs_distinct_suits=distinct)
        act(env, "draw stock")
        act(env, "meld 3H 4H 5H")
        legal = legal_texts(g)
        assert "meld JC QC KC" in legal and "meld 6H 7H 8H" not in legal
        assert ("meld 7H 8H 9H" in legal) == (not distinct)


def test_scenario_16_layoff_timing():
    """CR-15, CR-18: lay-offs only once down (that turn too); a down seat never melds again."""
    melds = [{"owner": 0, "cards": ["9C", "9D", "9H"]}, {"owner": 0, "cards": ["3C", "3D", "3S"]}]
    hand = "9S 5C 5D 5H JC JD JH 2S 4D 7C".split()
    env, g = start(make_deal(hands={0: ["7H", "7D", "7S"], 1: hand}, melds=melds, stock_top=["KH"]))
    act(env, "draw stock")
    assert "layoff 9S @0" not in legal_texts(g)
    act(env, "meld 5C 5D 5H")
    assert "layoff 9S @0" not in legal_texts(g)
    act(env, "meld JC JD JH")
    assert "layoff 9S @0" in legal_texts(g)
    act(env, "discard 2S")
    while g.current_player != 0:
        act(env, "draw stock")
        env.step(int(np.flatnonzero(g.legal_mask())[-1]))
    act(env, "draw stock")
    assert not any(t.startswith("meld") for t in legal_texts(g))
    assert {"7H", "7D", "7S"} <= set(g.view(0)["hand"])


def test_scenario_17_deep_take_down():
    """CR-11, CR-12: a down seat's deep take needs the must-use card to fit the table now."""
    melds = [{"owner": 0, "cards": ["6H", "7H", "8H"]}, {"owner": 0, "cards": ["QC", "QD", "QS"]}]
    env, g = start(make_deal(contract=2, deal_index=1, hands={0: ["2S", "5C"]}, melds=melds,
                             discard=["9H", "3C", "KD"], to_play=0))
    legal = legal_texts(g)
    assert "take discard 3" in legal and "take discard 2" not in legal
    act(env, "take discard 3")
    assert legal_texts(g) == {"layoff 9H @0"}
    act(env, "layoff 9H @0")
    assert legal_texts(g) == discards(["2S", "5C", "3C", "KD"])


def _empty_stock_deal():
    pile = ["4C", "9D", "KS", "2H"]
    melds = [{"owner": 0, "cards": ["AC", "AD", "AH", "AS"]}, {"owner": 0, "cards": ["2C", "2D", "2S"]},
             {"owner": 1, "cards": ["3C", "3D", "3H", "3S"]}, {"owner": 1, "cards": ["4D", "4H", "4S"]}]
    hands = {2: "5C 5D 5H 5S 6C 6D 6H 6S 7C 7D".split(), 3: "7H 7S 8C 8D 8H 8S 9C 9H 9S TC".split()}
    rest = [t for t in CARD_TEXT
            if t not in pile + sum((m["cards"] for m in melds), []) + sum(hands.values(), [])]
    hands[0], hands[1] = rest[:6], rest[6:]
    return make_deal(hands=hands, melds=melds, discard=pile, stock=[], to_play=2)


def test_scenario_18_empty_stock():
    """CR-32: drawing from an empty stock reshuffles the pile but its top card."""
    env, g = start(_empty_stock_deal())
    act(env, "draw stock")
    assert g.pile == [parse_card("2H")]
    assert sorted(g.stock + [c for c in range(53) if g.hands[2][c] and c in
                             [parse_card(t) for t in ("4C", "9D", "KS")]]) == sorted(
        parse_card(t) for t in ("4C", "9D", "KS")) and len(g.stock) == 2
    env, g = start(_empty_stock_deal())
    act(env, "take discard")
    assert g.stock == [] and len(g.pile) == 3


def test_scenario_19_dead_deal():
    """CR-33: the deal ends dead on the discard completing turn max_turns_per_deal."""
    env, g = start(make_deal(), deals=(1,), max_turns_per_deal=2)
    hands_before = None
    for seat in (1, 2):
        assert g.current_player == seat and not g.done
        act(env, "draw stock")
        if seat == 2:
            hands_before = [list(h) for h in g.hands]
        env.step(int(np.flatnonzero(g.legal_mask())[-1]))
    assert g.done and all(env.terminations.values())
    c = int(np.flatnonzero(hands_before[2])[-1])
    hands_before[2][c] -= 1
    expect = [sum(pen(x) * k for x, k in enumerate(h)) for h in hands_before]
    assert g.scores == expect and [env.rewards[a] for a in env.agents] == [-x for x in expect]


def test_scenario_20_texts():
    """Action text: canonical forms and refusals."""
    env = contract_rummy_v0.raw_env()
    env.reset(seed=0)
    assert env.action_to_text(env.text_to_action("meld AH KH QH")) == "meld QH KH AH"
    assert env.text_to_action("take discard 1") == env.text_to_action("take discard") == 1
    assert env.action_to_text(env.text_to_action("layoff 10H @2")) == "layoff TH @2"
    assert env.action_to_text(env.text_to_action("  MELD 4c 4d jk=4h 4S ")) == "meld 4C 4D JK=4H 4S"
    for bad in ("layoff TH @12", "layoff TH @01", "meld 5C 5D", "pass", "take discard 54", "take discard 02",
                "swap JK=9H @0", "discard", ""):
        with pytest.raises(ValueError):
            env.text_to_action(bad)


def test_scenario_21_match_end():
    """CR-31, CR-34, rewards: the lowest total wins, ties share; dealer rotation."""
    target = [120, 95, 95, 210]
    d = make_deal(contract=7, deal_index=6, turns=299)
    hands = [[parse_card(t, True) for t in h] for h in d["hands"]]
    stock_top = parse_card(d["stock"][0], True)
    hands[1].append(stock_top)
    hands[1].remove(max(hands[1]))  # the discard below: the highest id
    p = [sum(pen(c) for c in h) for h in hands]
    d["scores"] = [t - x for t, x in zip(target, p)]
    for mode, expect in (("win_loss", [-1, 0, 0, -1]), ("points", [-x for x in p])):
        env, g = start(d, reward_mode=mode)
        act(env, "draw stock")
        env.step(int(np.flatnonzero(g.legal_mask())[-1]))
        assert g.done and g.scores == target
        assert [env.rewards[a] for a in env.agents] == expect
    env, g = start(make_deal(dealer=0), max_turns_per_deal=1)
    act(env, "draw stock")
    env.step(int(np.flatnonzero(g.legal_mask())[-1]))
    assert g.deal_idx == 1 and g.dealer == 1 and g.current_player == 2


# ---------------------------------------------------------------------- independent reference
def piece_text(p: int) -> str:
    """The text of an engine piece: card ``p``, or for ``52 + c`` a joker laid as card c (CR-20)."""
    return CARD_TEXT[p] if p < 52 else rm.JOKER_PIECE + CARD_TEXT[p - 52]


def shape(pieces, min_run: int) -> rm.Shape | None:
    """The tests' own reading (tests/reference_melds.py) of engine pieces as a meld: CR-13, CR-14,
    an ace high or low (CR-1)."""
    return rm.shape([piece_text(p) for p in pieces], True, min_run)


def _need(pieces):
    """(card, copies) pairs the pieces take from a hand (a joker piece takes a ``JK``)."""
    need = {}
    for p in pieces:
        c = JOKER if p >= 52 else p
        need[c] = need.get(c, 0) + 1
    return tuple(need.items())


def _pieces_ok(cnt, pieces, need=None):
    return all(cnt[c] >= k for c, k in (need or _need(pieces)))


def ref_melds(cnt, num_jokers, min_run):
    """Every valid meld (sorted piece tuple) that the counts ``cnt`` can lay, by brute force over
    rank/suit windows and joker declarations, checked with ``melds.classify``. A window with more
    cards missing from the hand than jokers in it cannot be laid, nor can any longer one."""
    out = set()
    jk = min(cnt[JOKER], num_jokers)
    for r in range(1, 14):
        for size in (3, 4):
            for suits in itertools.combinations(range(4), size):
                if sum(not cnt[card(r, s)] for s in suits) > jk:
                    continue
                for nj in range(jk + 1):
                    for js in itertools.combinations(suits, nj):
                        pieces = [card(r, s) + (52 if s in js else 0) for s in suits]
                        if _pieces_ok(cnt, pieces) and shape(pieces, min_run):
                            out.add(tuple(sorted(pieces)))
    for s in range(4):
        for lo in range(1, 13):
            for hi in range(lo + min_run - 1, 15):
                cards = [card(1 if p == 14 else p, s) for p in range(lo, hi + 1)]
                if sum(not cnt[c] for c in cards) > jk:
                    break
                for nj in range(jk + 1):
                    for js in itertools.combinations(range(len(cards)), nj):
                        pieces = [c + (52 if i in js else 0) for i, c in enumerate(cards)]
                        if _pieces_ok(cnt, pieces) and shape(pieces, min_run):
                            out.add(tuple(sorted(pieces)))
    return out


def _sub(cnt, pieces, sign=1):
    for p in pieces:
        cnt[JOKER if p >= 52 else p] -= sign


def ref_lay_all(table, c, k):
    """CR-28 by brute force: ``k`` pieces of card ``c`` laid off one by one (classify decides)."""
    if k == 0:
        return True
    options = [c] if c != JOKER else [52 + x for x in range(52)]
    for i, m in enumerate(table):
        for p in options:
            if shape(m + [p], 3):
                if ref_lay_all(table[:i] + [m + [p]] + table[i + 1:], c, k - 1):
                    return True
    return False


def _runs_apart(shapes, distinct):
    runs = [s for s in shapes if s.kind == "run"]
    for x, y in itertools.combinations(runs, 2):
        if x.suit == y.suit and (distinct or not (x.hi < y.lo - 1 or y.hi < x.lo - 1)):
            return False
    return True


def ref_contracts(game, cnt, a, b, laid_shapes, must, banned, table, stop_first=False):
    """Every valid completion (list of melds) of a contract needing ``a`` sets and ``b`` runs."""
    opts = game.opts
    cands = sorted(ref_melds(cnt, opts.jokers, opts.min_run_length))
    kinds = {m: shape(list(m), opts.min_run_length) for m in cands}
    sets = [m for m in cands if kinds[m].kind == "set"]
    runs = [m for m in cands if kinds[m].kind == "run"]
    all7 = game.contract == 7 and opts.deal7_all_at_once
    needs = {m: _need(m) for m in cands}

    def uses_must(m):
        return (must in m) if must < 52 else any(p >= 52 for p in m)

    found = []

    def rec(chosen, pool, need_sets, need_runs, start):
        if need_sets == 0 and need_runs == 0:
            shapes = laid_shapes + [kinds[m] for m in chosen]
            if not _runs_apart(shapes, opts.contract_runs_distinct_suits):
                return False
            if must >= 0 and not any(uses_must(m) for m in chosen):
                return False
            total = sum(cnt)
            if all7:
                if total > 1 or (total == 1 and banned >= 0 and cnt[banned]):
                    return False
            elif total and banned >= 0 and cnt[banned] == total:
                if not ref_lay_all(table + [list(m) for m in chosen], banned, total):
                    return False
            found.append(list(chosen))
            return stop_first
        lst = sets if need_sets else runs
        # The last meld must use the must-use card if no other does, and under deal 7 all at once
        # leave at most one card in hand: skip the others at once (the checks above would refuse them).
        last = need_sets + need_runs == 1
        must_unused = last and must >= 0 and not any(uses_must(m) for m in chosen)
        min_len = sum(cnt) - 1 if last and all7 else 0
        for i in range(start, len(lst)):
            m = lst[i]
            if len(m) < min_len or (must_unused and not uses_must(m)) or not _pieces_ok(cnt, m, needs[m]):
                continue
            _sub(cnt, m)
            chosen.append(m)
            done = rec(chosen, pool, need_sets - (1 if need_sets else 0), need_runs - (0 if need_sets else 1),
                       0 if need_sets == 1 else i)
            chosen.pop()
            _sub(cnt, m, -1)
            if done:
                return True
        return False

    rec([], None, a, b, 0)
    return found


def reference_mask(game):
    """Legal actions of the current seat, computed by brute force from the rules."""
    mask = np.zeros(game.num_actions, dtype=np.int8)
    if game.done:
        return mask
    opts = game.opts
    seat = game.current_player
    cnt = list(game.hands[seat])
    table = [list(m[0]) for m in game.melds]
    pile = game.pile
    down = game.down[seat]
    N = opts.pack_size
    A_DISC, A_MELD = N + 1, N + 54
    all7 = game.contract == 7 and opts.deal7_all_at_once
    a_need, b_need = NEEDS[game.contract]

    def layoff_id(k, p):
        return game.text_to_action(f"layoff {piece_text(p)} @{k}")

    def fits(m, p):
        return shape(m + [p], opts.min_run_length) is not None

    def dead(cnt_after, tbl, banned):
        t = sum(cnt_after)
        return banned >= 0 and t > 0 and cnt_after[banned] == t and not ref_lay_all(tbl, banned, t)

    def joker_layoffs(cnt_h, tbl, banned):
        out = []
        for k, m in enumerate(tbl):
            for x in range(52):
                if fits(m, 52 + x):
                    after = list(cnt_h)
                    after[JOKER] -= 1
                    if not dead(after, tbl[:k] + [m + [52 + x]] + tbl[k + 1:], banned):
                        out.append((k, 52 + x))
        return out

    def swaps(cnt_h, tbl, banned, only=None):
        out = []
        if not opts.joker_swap or game.went_down:
            return out
        for k, m in enumerate(tbl):
            if shape(m, opts.min_run_length).kind != "run":
                continue
            for p in set(m):
                c = p - 52
                if p >= 52 and cnt_h[c] and (only is None or c == only):
                    m2 = list(m)
                    m2[m2.index(p)] = c
                    tbl2 = tbl[:k] + [m2] + tbl[k + 1:]
                    h2 = list(cnt_h)
                    h2[c] -= 1
                    h2[JOKER] += 1
                    if not dead(h2, tbl2, banned) and joker_layoffs(h2, tbl2, banned):
                        out.append((k, c))
        return out

    def natural_layoffs(cnt_h, tbl, banned, only=None):
        out = []
        for k, m in enumerate(tbl):
            for c in range(52):
                if cnt_h[c] and (only is None or c == only) and fits(m, c):
                    after = list(cnt_h)
                    after[c] -= 1
                    if not dead(after, tbl[:k] + [m + [c]] + tbl[k + 1:], banned):
                        out.append((k, c))
        return out

    phase = game.phase
    if phase == 0:
        if game.stock or len(pile) >= 2:
            mask[0] = 1
        h = list(cnt)
        h[pile[-1]] += 1
        if not dead(h, table, pile[-1]):
            mask[1] = 1
        if opts.deep_discard:
            for K in range(2, len(pile) + 1):
                h = list(cnt)
                for c in pile[-K:]:
                    h[c] += 1
                m = pile[-K]
                if down:
                    if m == JOKER:
                        ok = bool(joker_layoffs(h, table, -1))
                    else:
                        ok = bool(natural_layoffs(h, table, -1, m) or swaps(h, table, -1, m))
                else:
                    ok = bool(ref_contracts(game, h, a_need, b_need, [], m, -1, table, stop_first=True))
                if ok:
                    mask[K] = 1
        return mask
    banned = game.banned
    if phase == 1 or (phase == 3 and not down):
        laid = [shape(table[k], opts.min_run_length) for k in game.laid]
        a = a_need - sum(1 for s in laid if s.kind == "set")
        b = b_need - sum(1 for s in laid if s.kind == "run")
        for combo in ref_contracts(game, list(cnt), a, b, laid, game.must, banned, table):
            for m in combo:
                mask[A_MELD + game.text_to_action("meld " + " ".join(piece_text(p) for p in m)) - A_MELD] = 1
    if phase == 2:
        if game.freed or game.must == JOKER:
            for k, p in joker_layoffs(cnt, table, banned):
                mask[layoff_id(k, p)] = 1
        else:
            for k, p in natural_layoffs(cnt, table, banned, game.must):
                mask[layoff_id(k, p)] = 1
            for k, c in swaps(cnt, table, banned, game.must):
                mask[game.text_to_action(f"swap {CARD_TEXT[c]} @{k}")] = 1
        return mask
    if phase == 3:
        if down and not (game.went_down and all7):
            for k, p in natural_layoffs(cnt, table, banned):
                mask[layoff_id(k, p)] = 1
            if cnt[JOKER]:
                for k, p in joker_layoffs(cnt, table, banned):
                    mask[layoff_id(k, p)] = 1
            for k, c in swaps(cnt, table, banned):
                mask[game.text_to_action(f"swap {CARD_TEXT[c]} @{k}")] = 1
        for c in range(53):
            if cnt[c] and c != banned:
                mask[A_DISC + c] = 1
    return mask


def check_invariants(game):
    """Conservation of cards and jokers (CR-2); hand sizes; public pick-ups within the hand."""
    opts = game.opts
    counts = [0] * 53
    for h in game.hands:
        for c in range(53):
            counts[c] += h[c]
    for c in game.stock + game.pile:
        counts[c] += 1
    for m in game.melds:
        for p in m[0]:
            counts[JOKER if p >= 52 else p] += 1
        assert shape(m[0], opts.min_run_length) is not None
    assert counts == [opts.decks] * 52 + [opts.jokers]
    for s in range(game.num_players):
        assert game.hsize[s] == sum(game.hands[s])
        assert all(k <= h for k, h in zip(game.known[s], game.hands[s]))
        if not game.done and not game.down[s]:
            assert game.hsize[s] == HAND_SIZE[game.contract] or s == game.current_player
    assert len(game.melds) <= game.M


OPTION_SETS = [
    dict(deals=(1,), max_turns_per_deal=40),
    dict(deals=(2,), max_turns_per_deal=40),
    dict(deals=(3,), max_turns_per_deal=40, num_players=3),
    dict(deals=(4,), max_turns_per_deal=40, num_players=5),
    dict(deals=(5,), max_turns_per_deal=40, contract_runs_distinct_suits=True),
    dict(deals=(6,), max_turns_per_deal=40, min_run_length=4),
    dict(deals=(7,), max_turns_per_deal=40),
    dict(deals=(7,), max_turns_per_deal=40, deal7_all_at_once=False, num_players=6),
    dict(deals=(2, 6), max_turns_per_deal=25, joker_swap=False, reward_mode="win_loss"),
    dict(deals=(1, 3), max_turns_per_deal=25, deep_discard=False, num_players=8),
    dict(deals=(5,), max_turns_per_deal=40, num_decks=2, num_jokers=1, num_players=3),
    dict(deals=(2,), max_turns_per_deal=40, num_jokers=0),
]
# Deals of runs that last: seats stay down for many turns beside runs with jokers (swaps, CR-22).
LONG_DEAL_SETS = [
    dict(deals=(3,), num_players=3, max_turns_per_deal=120),
    dict(deals=(3,), num_players=4, num_decks=2, num_jokers=2, max_turns_per_deal=120),
    dict(deals=(6,), num_players=3, num_decks=2, num_jokers=2, max_turns_per_deal=120),
]
POSITION_KINDS = ("meld", "layoff", "swap", "deep take")


def position_kinds(game, mask):
    """The kinds of play ``mask`` allows (action layout, CR "Actions"): a ``meld``, a ``layoff``,
    a ``swap``, a ``take discard K`` with K >= 2 (``deep take``)."""
    legal = np.flatnonzero(mask)
    kinds = []
    if np.any((legal >= game.A_MELD) & (legal < game.A_LAY)):
        kinds.append("meld")
    if np.any((legal >= game.A_LAY) & (legal < game.A_SWAP)):
        kinds.append("layoff")
    if np.any(legal >= game.A_SWAP):
        kinds.append("swap")
    if np.any((legal >= 2) & (legal < game.A_DISC)):
        kinds.append("deep take")
    return kinds


def keen_action(game, mask, rng):
    """A random legal action that melds or takes deep half the time it can, and otherwise draws or
    discards 4 times in 5: seats go down, keep full hands and meet lay-offs and swaps often."""
    legal = np.flatnonzero(mask)
    keen = legal[((legal >= 2) & (legal < game.A_DISC)) | ((legal >= game.A_MELD) & (legal < game.A_LAY))]
    if len(keen) and rng.random() < 0.5:
        return int(rng.choice(keen))
    plain = legal[legal < game.A_MELD]
    if len(plain) and rng.random() < 0.8:
        return int(rng.choice(plain))
    return int(rng.choice(legal))


def play_checked(opts, games, seed):
    """Matches of ``keen_action`` play; at every step the mask equals the brute-force reference and
    the cards are conserved; points returns = -totals (CR-30, CR-31). Returns how many positions
    allowed each of ``POSITION_KINDS``."""
    rng = np.random.default_rng(seed)
    counts = dict.fromkeys(POSITION_KINDS, 0)
    for gi in range(games):
        env = contract_rummy_v0.raw_env(**opts)
        env.reset(seed=seed * 1000 + gi)
        game = env.game
        ret = np.zeros(game.num_players)
        n = 0
        while not game.done:
            check_invariants(game)
            mask = game.legal_mask()
            ref = reference_mask(game)
            assert np.array_equal(mask, ref), (
                opts, gi, n, [(game.action_to_text(int(a)), mask[a], ref[a]) for a in np.flatnonzero(mask != ref)])
            for kind in position_kinds(game, ref):
                counts[kind] += 1
            r = game.step(keen_action(game, mask, rng))
            if r is not None:
                ret += r
            n += 1
            assert n < 50_000
        check_invariants(game)
        if opts.get("reward_mode", "points") == "points":
            assert list(-ret) == game.scores
    return counts


def test_reference_at_every_step():
    """The mask equals the brute-force reference at every step of 66 matches (3 per option set, 10
    per long-deal set), and those steps include at least 300 positions each with a legal meld, a
    legal lay-off, a legal joker swap and a legal deep take."""
    total = dict.fromkeys(POSITION_KINDS, 0)
    for games, option_sets in ((3, OPTION_SETS), (10, LONG_DEAL_SETS)):
        for opts in option_sets:
            for kind, k in play_checked(opts, games, seed=len(str(opts))).items():
                total[kind] += k
    print("positions checked, by legal play:", total)
    assert all(k >= 300 for k in total.values()), total


@pytest.mark.parametrize("opts", OPTION_SETS, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()))
def test_random_every_step(opts):
    """Mask == reference on every step, plus illegal probes (harness), in short matches."""
    short = dict(opts, max_turns_per_deal=14)
    stats = play_random_games(lambda: contract_rummy_v0.raw_env(**short), 1, seed=5,
                              reference_mask=reference_mask, check_invariants=check_invariants)
    assert stats["terminated"] == 1


@pytest.mark.slow
@pytest.mark.parametrize("opts", OPTION_SETS)
def test_random_every_step_slow(opts):
    """Mask == reference on every step, plus illegal probes (harness), in 30 whole matches per set."""
    stats = play_random_games(lambda: contract_rummy_v0.raw_env(**opts), 30, seed=11,
                              reference_mask=reference_mask, check_invariants=check_invariants)
    assert stats["terminated"] == 30


@pytest.mark.slow
def test_full_matches_slow():
    """Full seven-deal matches (3 per table) checked against the reference at every step."""
    for kw in ({}, {"num_players": 6}, {"num_players": 3, "reward_mode": "win_loss"}):
        play_checked(kw, 3, seed=3)


def test_full_default_match_ends():
    """Every match of the default 7 deals ends, with every agent terminated."""
    env = contract_rummy_v0.env()
    env.reset(seed=4)
    for agent in env.agent_iter():
        obs, r, term, trunc, info = env.last()
        env.step(None if term or trunc else random_legal_action(obs["action_mask"], env.unwrapped.np_random))
    assert env.unwrapped.game.done and env.unwrapped.game.deal_idx == 6


# ---------------------------------------------------------------------- API, hidden information, round trips
def test_pettingzoo_api():
    run_pettingzoo_tests(lambda: contract_rummy_v0.env(max_turns_per_deal=30), num_cycles=300)
    run_pettingzoo_tests(lambda: contract_rummy_v0.env(num_players=6, deals=(6, 7)), num_cycles=100)


def test_hidden_information():
    """CR-6: observations and views depend only on what the seat may know."""
    for kw in ({}, {"num_players": 6}):
        env = contract_rummy_v0.raw_env(**kw)
        env.reset(seed=2)
        g = env.game
        assert redeal(g, 0, np.random.default_rng(0)).hands != g.hands
        n = check_hidden_information(lambda: contract_rummy_v0.raw_env(max_turns_per_deal=60, **kw), seed=3,
                                     num_states=6, redeal=redeal, redeals_per_state=3, max_walk=150)
        assert n > 0


def test_roundtrips():
    """clone / to_dict-from_dict through JSON / pickle reproduce the state and the play."""
    for kw in ({}, {"num_players": 6}, {"deals": (7,), "max_turns_per_deal": 80}):
        for seed in (0, 1):
            check_roundtrips(lambda: contract_rummy_v0.raw_env(**kw), seed, 120, 150)


def test_text_round_trip_all_ids():
    for kw in ({}, {"num_players": 6}, {"num_jokers": 0, "min_run_length": 4}):
        env = contract_rummy_v0.raw_env(**kw)
        env.reset(seed=0)
        n = env.action_space("player_0").n
        for a in range(n):
            t = env.action_to_text(a)
            assert env.text_to_action(t) == a, (a, t)
            assert env.text_to_action(t.lower()) == a


def test_catalogue_sizes():
    """Rules file: catalogue sizes for (jokers, min run) and the action count."""
    for (j, m), size in {(1, 3): 2605, (2, 3): 9707, (0, 3): 373, (1, 4): 2413}.items():
        env = contract_rummy_v0.raw_env(num_jokers=j, min_run_length=m)
        assert env.action_space("player_0").n == 1 + 52 + j + 53 + size + 156 * 12
    env = contract_rummy_v0.raw_env()
    env.reset(seed=0)
    assert env.action_to_text(1 + 53 + 53) == "meld AC AD AH"
    assert env.action_to_text(1 + 53 + 53 + 273) == "meld AC 2C 3C"
    assert env.action_to_text(4584 - 1) == "swap KS @11"


def test_options_validation():
    bad = [dict(num_players=2), dict(num_players=9), dict(num_decks=4), dict(num_jokers=3), dict(deals=()),
           dict(deals=(8,)), dict(deal7_all_at_once=1), dict(deep_discard="yes"), dict(joker_swap=None),
           dict(contract_runs_distinct_suits=0), dict(min_run_length=5), dict(max_turns_per_deal=0),
           dict(reward_mode="money"), dict(num_players=8, num_decks=1)]
    for kw in bad:
        name = next(iter(kw))
        if name == "num_players" and "num_decks" in kw:
            name = "num_decks"
        with pytest.raises(ValueError, match=name):
            contract_rummy_v0.raw_env(**kw)
    with pytest.raises(ValueError, match="colour"):
        contract_rummy_v0.raw_env(colour=1)
    assert Options(num_players=3, num_decks=2, num_jokers=1).pack_size == 105


def test_deal_validation():
    good = make_deal()
    start(good)

    def bad(change, match, **opts):
        d = json.loads(json.dumps(good))
        change(d)
        with pytest.raises(ValueError, match=match):
            start(d, **opts)

    bad(lambda d: d["hands"].pop(), "hands")
    bad(lambda d: d["hands"][0].__setitem__(0, "ZZ"), "bad card")
    bad(lambda d: d["hands"][0].__setitem__(0, d["hands"][1][0]), "pack")
    bad(lambda d: d["hands"][0].pop(), "seat 0")
    bad(lambda d: d.__setitem__("discard", []), "discard")
    bad(lambda d: d.__setitem__("dealer", 7), "dealer")
    bad(lambda d: d.__setitem__("to_play", -1), "to_play")
    bad(lambda d: d.__setitem__("deal_index", 7), "deal_index")
    bad(lambda d: d.__setitem__("turns", 300), "turns")
    bad(lambda d: d.__setitem__("scores", [0]), "scores")
    bad(lambda d: d.__setitem__("colour", 1), "colour")
    bad(lambda d: d.__setitem__("melds", [{"owner": 0, "cards": ["AC", "2D", "3C"]}]), "not a valid meld")
    bad(lambda d: d.__setitem__("melds", [{"owner": 9, "cards": ["AC", "2C", "3C"]}]), "owner")
    bad(lambda d: d.__setitem__("melds", [{"owner": 0, "cards": ["KC", "KD", "JK=KS"]}]), "contract")
    # an emptied hand; an empty stock with a one-card pile; melds in deal 7 all at once
    d = make_deal(hands={0: []}, melds=[{"owner": 0, "cards": ["9C", "9D", "9H"]},
                                        {"owner": 0, "cards": ["3C", "3D", "3S"]}])
    with pytest.raises(ValueError, match="empty"):
        start(d)
    d = _empty_stock_deal()
    d["hands"][0] += d["discard"][:3]
    d["discard"] = d["discard"][3:]
    with pytest.raises(ValueError, match="one-card"):
        start(d)
    clubs = ["3C", "4C", "5C"]
    d = make_deal(contract=7, hands={0: ["2S"]}, melds=[{"owner": 0, "cards": clubs},
                                                       {"owner": 0, "cards": ["3D", "4D", "5D"]},
                                                       {"owner": 0, "cards": ["3H", "4H", "5H"]}])
    with pytest.raises(ValueError, match="deal 7"):
        start(d, deals=(7,))
    start(d, deals=(7,), deal7_all_at_once=False)


def test_illegal_action_penalty():
    env = contract_rummy_v0.env(illegal_action_penalty=True)
    env.reset(seed=0)
    agent = env.agent_selection
    obs = env.observe(agent)
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    env.step(bad)
    assert env.terminations[agent] and env._cumulative_rewards[agent] == -1
    assert all(env.terminations.values())
    env = contract_rummy_v0.env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="discard"):
        env.step(env.unwrapped.text_to_action("discard AS"))


def test_observation_layout_and_view():
    env = contract_rummy_v0.raw_env()
    env.reset(seed=0, options={"deal": _deep_deal()})
    g = env.game
    o = g.observation(1)
    assert o.dtype == np.float32 and o.shape == env.observation_space("player_1")["observation"].shape
    assert o[:53].sum() == 10 and o[parse_card("9C")] == 1
    parts = env.observation_layout().split(o)
    assert env.observation_layout().size == len(o)
    assert parts["pile_top"][0, parse_card("QH")] == 1 and parts["pile_top"][1, parse_card("6D")] == 1
    env.step(env.text_to_action("take discard 3"))
    o = g.observation(2)
    # p2 sees p1's public pick-ups in relative slot n-1 = 3
    picked_up = env.observation_layout().split(o)["picked_up"][3]
    assert {CARD_TEXT[c] for c in range(53) if picked_up[c]} == {"9S", "6D", "QH"}
    v = env.view("player_1")
    assert v["must_use"] == "9S" and v["phase"] == "contract" and v["legal_actions"] == sorted(
        v["legal_actions"], key=env.text_to_action)
    assert env.view("player_2")["legal_actions"] == []
    assert "player_1 takes 9S 6D QH from the pile" in v["events"]
    assert "you must put 9S on the table this turn" in view_text(v)


def frozen(value):
    """A comparable copy of an attribute: arrays and memoryviews by their bytes, lists and dicts item
    by item, tuples (which no step changes in place: the game's lookup tables) and shared objects
    (the catalogues, the options, the generator) by identity."""
    if isinstance(value, np.ndarray):
        return "ndarray", value.dtype.str, value.shape, value.tobytes()
    if isinstance(value, memoryview):
        return "memoryview", value.tobytes()
    if isinstance(value, list):
        return "list", tuple(frozen(x) for x in value)
    if isinstance(value, dict):
        return "dict", tuple((k, frozen(v)) for k, v in value.items())
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return "shared", id(value)


def game_snapshot(game) -> tuple:
    """The game's pickle, its generator's state and every attribute."""
    return (pickle.dumps(game), json.dumps(game.rng.bit_generator.state, default=str),
            tuple(sorted((name, frozen(value)) for name, value in vars(game).items())))


def test_determinize_leaves_the_real_game_bit_identical():
    rng = np.random.default_rng(3)
    env = contract_rummy_v0.raw_env(num_players=4, deals=(1, 7), max_turns_per_deal=40)
    phases, checked = set(), 0
    for seed in range(2):
        env.reset(seed=seed)
        game = env.game
        for step in range(300):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                break
            if step % 9 == 4:
                before = game_snapshot(game)
                for seat in range(game.num_players):
                    for _ in range(2):
                        game.determinize(seat, np.random.default_rng(int(rng.integers(1 << 30))))
                assert game_snapshot(game) == before, f"determinize changed the game at step {step}"
                phases.add(game.phase)
                checked += 1
            env.step(random_legal_action(obs["action_mask"], rng))
    assert checked >= 20 and phases >= {0, 3}, (checked, phases)


def test_observed_penalty_totals_are_capped_at_50_and_never_below_0():
    """The ``scores`` part shows penalty totals / 100 inside its box [0, 50] (CR-31): the game caps
    them, so the environment clips nothing."""
    env, game = start(make_deal(scores=[9000, 120, -40, 5000], to_play=1), deals=[1, 2])
    part = env.observation_layout()["scores"].slice
    for seat in range(4):
        shown = game.observation(seat)[part]
        expected = np.roll(np.array([50.0, 1.2, 0.0, 50.0], dtype=np.float32), -seat)
        np.testing.assert_array_equal(shown, expected)
    assert env.clipped_parts == ()
