"""Tests of the shared card core (rummy_env/cards.py): ids, text, bitmasks, points, packs."""
from __future__ import annotations

import numpy as np
import pytest

from rummy_env import cards
from rummy_env.cards import (BIT, CARD_TEXT, FULL_DECK, JOKER, NUM_CARDS, POINTS, RANK_OF, SUIT_OF, card, card_text,
                             cards_of, cards_text, counts_of, hand_points, make_pack, mask_of, mask_to_array,
                             parse_card, parse_cards, parse_rank)


def test_card_ids_follow_the_shared_layout():
    assert card(1, 0) == 0 and card(13, 3) == 51 and card(7, 2) == 32
    for c in range(NUM_CARDS):
        assert c == 13 * SUIT_OF[c] + RANK_OF[c] - 1
    assert CARD_TEXT[0] == "AC" and CARD_TEXT[9] == "TC" and CARD_TEXT[51] == "KS" and CARD_TEXT[JOKER] == "JK"
    assert len(set(CARD_TEXT)) == 53


@pytest.mark.parametrize("text,expected", [("7H", card(7, 2)), ("7h", card(7, 2)), (" ts ", card(10, 3)),
                                           ("10D", card(10, 1)), ("10d", card(10, 1)), ("aC", 0), ("KS", 51),
                                           ("qd", card(12, 1)), ("Jh", card(11, 2))])
def test_parse_card_any_case_and_ten(text, expected):
    assert parse_card(text) == expected


@pytest.mark.parametrize("bad", ["", "7", "H7", "1H", "11H", "0S", "7X", "ZZ", "JK", "joker", "10", "7HH", None, 7])
def test_parse_card_refuses_bad_texts(bad):
    with pytest.raises(ValueError):
        parse_card(bad)


def test_joker_only_when_allowed():
    assert parse_card("jk", allow_joker=True) == JOKER
    with pytest.raises(ValueError, match="no jokers"):
        parse_card("JK")
    assert parse_cards("JK 7H", allow_joker=True) == [JOKER, card(7, 2)]


def test_parse_rank():
    assert [parse_rank(r) for r in "A23456789TJQK"] == list(range(1, 14))
    assert parse_rank("10") == 10 and parse_rank("t") == 10
    for bad in ("1", "11", "X", ""):
        with pytest.raises(ValueError):
            parse_rank(bad)


def test_parse_cards_and_formatting_round_trip():
    ids = parse_cards("7h 8H 10h")
    assert ids == [card(7, 2), card(8, 2), card(10, 2)]
    assert parse_cards(["7H", "8H"]) == ids[:2]
    assert cards_text(ids) == "7H 8H TH" and card_text(ids[2]) == "TH"
    for c in range(NUM_CARDS):
        assert parse_card(card_text(c)) == c and parse_card(card_text(c).lower()) == c
    assert cards_text([]) == ""


def test_bitmask_helpers():
    ids = [51, 0, 13, 26]
    m = mask_of(ids)
    assert m == BIT[0] | BIT[13] | BIT[26] | BIT[51]
    assert cards_of(m) == sorted(ids) and cards_of(0) == [] and cards_of(FULL_DECK) == list(range(52))
    arr = mask_to_array(m)
    assert arr.dtype == np.float32 and arr.shape == (52,)
    assert np.flatnonzero(arr).tolist() == sorted(ids)
    out = np.full(60, 7.0, np.float32)
    mask_to_array(m, out[4:56])
    assert np.flatnonzero(out[4:56]).tolist() == sorted(ids) and out[:4].tolist() == [7.0] * 4
    rng = np.random.default_rng(0)
    for _ in range(50):
        sub = [int(c) for c in rng.choice(52, size=int(rng.integers(0, 53)), replace=False)]
        assert cards_of(mask_of(sub)) == sorted(sub)
        assert np.flatnonzero(mask_to_array(mask_of(sub))).tolist() == sorted(sub)


def test_points_and_hand_points():
    assert POINTS[card(1, 0)] == 1 and POINTS[card(9, 1)] == 9 and POINTS[card(10, 2)] == 10
    assert POINTS[card(11, 3)] == POINTS[card(12, 3)] == POINTS[card(13, 3)] == 10
    assert hand_points(mask_of(parse_cards("KS 7D AC 2H"))) == 20
    assert hand_points(mask_of(parse_cards("KS 7D AC 2H")), cards.ACE_FIFTEEN_POINTS) == 34
    assert hand_points(0) == 0 and hand_points(FULL_DECK) == 4 * (sum(range(1, 11)) + 30)
    rng = np.random.default_rng(0)
    for mask in [0, FULL_DECK] + [int(x) for x in rng.integers(0, FULL_DECK, 200, dtype=np.int64)]:
        assert cards.mask_points(mask) == hand_points(mask)


def test_masks_to_planes():
    masks = [mask_of(parse_cards("AC KS")), 0, FULL_DECK]
    planes = cards.masks_to_planes(masks).reshape(3, 52)
    assert [np.flatnonzero(p).tolist() for p in planes[:2]] == [[0, 51], []] and planes[2].all()


def test_packs_counts_and_card_id_order_is_display_order():
    assert make_pack() == list(range(52))
    pack = make_pack(2, 4)
    assert len(pack) == 108 and pack.count(JOKER) == 4 and pack.count(17) == 2
    counts = counts_of(pack)
    assert counts.shape == (53,) and counts[JOKER] == 4 and counts[:52].tolist() == [2] * 52
    hand = parse_cards("KS JK 2C AH 3C", allow_joker=True)
    assert cards_text(sorted(hand)) == "2C 3C AH KS JK"  # by suit, then rank; the joker last
    assert cards.NUM_CARDS == 52
