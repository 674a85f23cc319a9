"""The tests' own meld reading (tests/reference_melds.py) on the rules' examples, and proof that the
legality references of Rummy, Tongits and Contract Rummy that use it can fail: each wrong reading of
a meld rule put in its place is caught against the engine in games where the right reading passes."""
from __future__ import annotations

import pytest

from rummy_env.registry import make_raw_env
from tests import reference_melds as rm
from tests.harness import play_random_games
from tests.test_contract_rummy import play_checked
from tests.test_rummy import make_invariants, reference_mask as rummy_reference
from tests.test_tongits import check_invariants as tongits_invariants, reference_mask as tongits_reference

HONEST = rm.shape


def shape_of(texts: str, ace_high: bool, min_run: int = 3) -> rm.Shape | None:
    return rm.shape(texts.split(), ace_high, min_run)


def test_sets_three_or_four_of_a_rank_no_suit_twice():
    """RM-10, TG-10, CR-13 (a joker counts as the suit it is laid as, CR-24)."""
    assert shape_of("7C 7D 7S", False) == ("set", "", 7, 7)
    assert shape_of("7C 7D 7H 7S", False).kind == "set"
    assert shape_of("7C 7D", False) is None and shape_of("7C 7D 8S", False) is None
    assert shape_of("7C 7C 7D", True) is None, "two decks: never two sevens of clubs"
    assert shape_of("7C JK=7C 7D", True) is None and shape_of("7C JK=7H 7D", True).kind == "set"
    assert shape_of("7C 7D 7H 7S JK=7S", True) is None


def test_runs_ace_low_or_high_never_round_the_corner():
    """RM-11, RM-12, TG-12, CR-1, CR-14: A-2-3 always, Q-K-A only with ace_high, K-A-2 never."""
    assert shape_of("3H AH 2H", False) == ("run", "H", 1, 3)
    assert shape_of("QH KH AH", False) is None and shape_of("QH KH AH", True) == ("run", "H", 12, 14)
    for wrap in ("KH AH 2H", "QH KH AH 2H"):
        assert shape_of(wrap, False) is None and shape_of(wrap, True) is None
    assert shape_of("4H 5H 7H", True) is None and shape_of("4H 5H 6D", True) is None
    assert shape_of("4H 5H 6H", True, min_run=4) is None and shape_of("4H 5H 6H 7H", True, min_run=4).kind == "run"
    ace_to_ace = "AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS"
    assert shape_of(ace_to_ace, True) == ("run", "S", 1, 14) and shape_of(ace_to_ace, False) is None
    assert shape_of("5D JK=6D 7D", True) == ("run", "D", 5, 7)
    assert shape_of("5D 5D 6D", True) is None, "a position is taken once"


def test_hand_melds_finds_every_meld_of_a_hand():
    hand = "AC 2C 3C 4C QC KC 7D 7H 7S 7C".split()
    low = {" ".join(sorted(m)) for m in rm.hand_melds(hand, False)}
    assert low == {"2C 3C AC", "2C 3C 4C", "2C 3C 4C AC", "7C 7D 7H", "7C 7D 7S", "7C 7H 7S", "7D 7H 7S",
                   "7C 7D 7H 7S"}
    high = {" ".join(sorted(m)) for m in rm.hand_melds(hand, True)}
    assert high - low == {"AC KC QC"}


# -- wrong readings, each caught ---------------------------------------------------------------------
def aces_only_low(pieces, ace_high, min_run=3):
    return HONEST(pieces, False, min_run)


def aces_also_high(pieces, ace_high, min_run=3):
    return HONEST(pieces, True, min_run)


def no_four_card_sets(pieces, ace_high, min_run=3):
    pieces = list(pieces)
    found = HONEST(pieces, ace_high, min_run)
    return None if found and found.kind == "set" and len(pieces) == 4 else found


def pairs_are_sets(pieces, ace_high, min_run=3):
    pieces = list(pieces)
    ranks = {rm.rank_suit(p)[0] for p in pieces}
    if len(pieces) == 2 and len(ranks) == 1:
        return rm.Shape("set", "", min(ranks), min(ranks))
    return HONEST(pieces, ace_high, min_run)


def runs_round_the_corner(pieces, ace_high, min_run=3):
    pieces = list(pieces)
    found = HONEST(pieces, ace_high, min_run)
    cards = [rm.rank_suit(p) for p in pieces]
    ranks = {r - 1 for r, _ in cards}
    if found is None and len(pieces) >= 3 and len({s for _, s in cards}) == 1 and len(ranks) == len(pieces):
        for start in range(13):
            if ranks == {(start + i) % 13 for i in range(len(pieces))}:
                return rm.Shape("run", cards[0][1], start + 1, start + len(pieces))
    return found


def sets_may_repeat_a_suit(pieces, ace_high, min_run=3):
    pieces = list(pieces)
    found = HONEST(pieces, ace_high, min_run)
    ranks = {rm.rank_suit(p)[0] for p in pieces}
    if found is None and 3 <= len(pieces) <= 4 and len(ranks) == 1:
        return rm.Shape("set", "", min(ranks), min(ranks))
    return found


def play_rummy(games: int, **options) -> None:
    play_random_games(lambda: make_raw_env("rummy", max_rounds=1, target_score=0, **options), games, seed=3,
                      reference_mask=rummy_reference, check_invariants=make_invariants({}))


def play_tongits(games: int) -> None:
    play_random_games(lambda: make_raw_env("tongits", hands_per_match=1), games, seed=3,
                      reference_mask=tongits_reference, check_invariants=tongits_invariants)


CR_OPTIONS = dict(deals=(2, 5), max_turns_per_deal=40, num_decks=2, num_jokers=2, num_players=4)

CASES = {
    "rummy-aces_only_low": (aces_only_low, lambda: play_rummy(20, ace_high=True)),
    "rummy-aces_also_high": (aces_also_high, lambda: play_rummy(20)),
    "rummy-no_four_card_sets": (no_four_card_sets, lambda: play_rummy(20)),
    "rummy-pairs_are_sets": (pairs_are_sets, lambda: play_rummy(20)),
    "rummy-runs_round_the_corner": (runs_round_the_corner, lambda: play_rummy(20, ace_high=True)),
    "tongits-aces_also_high": (aces_also_high, lambda: play_tongits(10)),
    "tongits-no_four_card_sets": (no_four_card_sets, lambda: play_tongits(10)),
    "tongits-pairs_are_sets": (pairs_are_sets, lambda: play_tongits(10)),
    "tongits-runs_round_the_corner": (runs_round_the_corner, lambda: play_tongits(10)),
    "contract_rummy-aces_only_low": (aces_only_low, lambda: play_checked(CR_OPTIONS, 3, seed=2)),
    "contract_rummy-no_four_card_sets": (no_four_card_sets, lambda: play_checked(CR_OPTIONS, 3, seed=2)),
    "contract_rummy-sets_may_repeat_a_suit": (sets_may_repeat_a_suit, lambda: play_checked(CR_OPTIONS, 3, seed=2)),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_wrong_meld_reading_is_caught_where_the_right_one_passes(case, monkeypatch):
    """The games pass with the right reading; with the wrong one the reference differs from the
    engine (or a move it finds legal has no action id), an AssertionError."""
    wrong, play = CASES[case]
    play()
    monkeypatch.setattr(rm, "shape", wrong)
    with pytest.raises(AssertionError):
        play()
