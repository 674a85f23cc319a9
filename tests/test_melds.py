"""Tests of the shared meld core (rummy_env/melds.py): classify, lay-off fit, canonical order,
piece text and the standard catalogue."""
from __future__ import annotations

import pytest

from rummy_env.cards import BIT, NUM_CARDS, RANK_OF, card, parse_cards
from rummy_env.melds import (RUN, SET, Meld, canonical_order, catalogue_masks, classify, extend, fit_position, fits,
                             is_joker_piece, layoff_cards, meld_text, parse_piece, piece_card, piece_text, position,
                             standard_catalogue)


def c(text):
    return parse_cards(text)


def jk(text):
    """Piece list where ``JK=7H`` is a joker standing for 7H."""
    return [parse_piece(t) for t in text.split()]


def test_pieces_text_and_parsing():
    p = parse_piece("jk=10h")
    assert p == NUM_CARDS + card(10, 2) and is_joker_piece(p) and piece_card(p) == card(10, 2)
    assert piece_text(p) == "JK=TH" and piece_text(card(7, 2)) == "7H" and not is_joker_piece(card(7, 2))
    assert parse_piece("7h") == card(7, 2)
    for bad in ("JK", "JK=", "JK=JK", "7", "JK=1H"):
        with pytest.raises(ValueError):
            parse_piece(bad)
    with pytest.raises(ValueError, match="no jokers"):
        parse_piece("JK=7H", allow_joker=False)
    assert position(card(1, 0)) == 1 and position(card(1, 0), high_ace=True) == 14 and position(card(5, 0), True) == 5


def test_classify_sets():
    m = classify(c("7C 7D 7S"))
    assert m == Meld(SET, 7, -1, 0, 0, 0b1011, 3)
    assert classify(c("7C 7D 7H 7S")).size == 4
    assert classify(c("7C 7D")) is None
    assert classify(c("7C 7D 8S")) is None
    assert classify(c("7C 7C 7D")) is None, "two decks: a set needs distinct suits"
    assert classify(c("7C 7D 7H 7S 7C")) is None
    assert classify(jk("7C JK=7D 7S")).kind == SET


def test_classify_runs_ace_low_and_high_never_wrapping():
    assert classify(c("AH 2H 3H")) == Meld(RUN, 0, 2, 1, 3, 0, 3)
    assert classify(c("3H AH 2H")) == Meld(RUN, 0, 2, 1, 3, 0, 3), "order free"
    assert classify(c("QH KH AH")) is None
    assert classify(c("QH KH AH"), ace_high=True) == Meld(RUN, 0, 2, 12, 14, 0, 3)
    assert classify(c("AH 2H 3H"), ace_high=True).lo == 1
    for wrap in ("KH AH 2H", "QH KH AH 2H"):
        assert classify(c(wrap)) is None and classify(c(wrap), ace_high=True) is None
    assert classify(c("4H 5H 7H")) is None
    assert classify(c("4H 5H 6D")) is None
    thirteen = c("AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS")
    for high in (False, True):
        m = classify(thirteen, ace_high=high)
        assert (m.lo, m.hi, m.size) == (1, 13, 13), "the 13-card run takes a low ace"
    assert classify(c("2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS")[:12] + [card(1, 3)], True).lo == 1


def test_classify_two_decks_jokers_and_min_run():
    ace_to_ace = c("AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS")
    assert classify(ace_to_ace) is None
    m = classify(ace_to_ace, ace_high=True)
    assert (m.lo, m.hi, m.size) == (1, 14, 14)
    assert classify(jk("4H JK=5H 6H")) == Meld(RUN, 0, 2, 4, 6, 0, 3)
    assert classify(jk("4H JK=7H 6H")) is None
    assert classify(jk("JK=QH KH AH"), ace_high=True).hi == 14
    assert classify(c("4H 5H 6H"), min_run=4) is None
    assert classify(c("4H 5H 6H 7H"), min_run=4).size == 4
    assert classify(c("4H 4D 4C"), min_run=4).kind == SET, "min_run does not apply to sets"
    assert classify(c("4H 4H 5H 6H")) is None


def test_fits_extend_and_layoff_cards():
    run = classify(c("8H 9H TH"))
    assert fit_position(run, card(7, 2)) == 7 and fit_position(run, card(11, 2)) == 11
    assert fit_position(run, card(12, 2)) == -1 and fit_position(run, card(7, 1)) == -1
    assert sorted(layoff_cards(run)) == sorted(c("7H JH"))
    longer = extend(extend(run, card(11, 2)), card(7, 2))
    assert (longer.lo, longer.hi, longer.size) == (7, 11, 5)
    assert fits(extend(run, card(11, 2)), card(12, 2))
    with pytest.raises(ValueError):
        extend(run, card(13, 2))
    three = classify(c("8C 8D 8H"))
    assert layoff_cards(three) == c("8S") and fits(three, card(8, 3)) and fit_position(three, card(8, 3)) == 0
    four = extend(three, card(8, 3))
    assert four.size == 4 and layoff_cards(four) == [] and not fits(four, card(8, 0))
    low = classify(c("2D 3D 4D"))
    assert fits(low, card(1, 1)) and fits(low, card(1, 1), ace_high=True)
    king = classify(c("JC QC KC"))
    assert not fits(king, card(1, 0)) and fit_position(king, card(1, 0), ace_high=True) == 14
    assert layoff_cards(king) == c("TC") and sorted(layoff_cards(king, True)) == sorted(c("TC AC"))
    assert extend(king, card(1, 0), ace_high=True).hi == 14
    high = classify(c("QS KS AS"), ace_high=True)
    assert fits(high, card(11, 3), True) and not fits(high, card(2, 3), True) and layoff_cards(high, True) == c("JS")
    two_to_king = classify(c("2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS"))
    assert layoff_cards(two_to_king, True) == c("AS"), "the ace fits both ends: listed once"
    assert fit_position(two_to_king, card(1, 3), True) == 14 and fit_position(two_to_king, card(1, 3)) == 1


def test_canonical_order_and_meld_text():
    assert meld_text(c("7S 7C 7D")) == "7C 7D 7S"
    assert meld_text(c("3H AH 2H")) == "AH 2H 3H"
    assert meld_text(c("AH KH QH")) == "QH KH AH"
    assert meld_text(c("KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S AS")) == "AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS"
    ace_to_ace = c("KS AS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S AS")
    assert meld_text(ace_to_ace) == "AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS"
    assert meld_text(jk("6H JK=5H 4H")) == "4H JK=5H 6H"
    assert meld_text(jk("JK=AH KH QH")) == "QH KH JK=AH"
    shape = classify(c("QH KH AH"), True)
    assert canonical_order(c("AH QH KH"), shape) == c("QH KH AH")
    with pytest.raises(ValueError):
        meld_text(c("KH AH 2H"))


def test_standard_catalogue_layout():
    high, low = standard_catalogue(True), standard_catalogue(False)
    assert len(high) == 369 and len(low) == 329 and len(set(high)) == 369
    assert high[:5] == [tuple(c("AC AD AH")), tuple(c("AC AD AS")), tuple(c("AC AH AS")), tuple(c("AD AH AS")),
                        tuple(c("AC AD AH AS"))]
    assert high[65] == tuple(c("AC 2C 3C")) and high[65 + 10] == tuple(c("AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC"))
    assert high[65 + 66] == tuple(c("QC KC AC")) and high[65 + 75] == tuple(c("3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC"))
    assert high[65 + 76] == tuple(c("AD 2D 3D")) and high[-1] == tuple(c("3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS"))
    for m in high:
        shape = classify(list(m), ace_high=True)
        assert shape is not None and list(m) == canonical_order(list(m), shape)
    assert [m for m in high if classify(list(m)) is not None] == low
    masks = catalogue_masks(high)
    assert len(set(masks)) == 369 and masks[0] == BIT[0] | BIT[13] | BIT[26]
    assert all(RANK_OF[m[-1]] == 1 for m in high[65 + 66:65 + 76])
