"""rummy_env.validate (issue 15): the option and deal checks every game uses refuse bad values
with a ValueError naming the option or deal key, and normalise good ones."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from rummy_env.cards import JOKER, make_pack, parse_cards
from rummy_env.validate import (PackTally, card_list, check_bool, check_choice, check_deal_keys, check_fields,
                                check_int, check_list, check_record, int_list, is_int)


def test_ints_are_integers_not_bools_nor_floats():
    assert is_int(3) and is_int(np.int8(3)) and is_int(np.uint64(3))
    assert not any(is_int(v) for v in (True, np.bool_(True), 3.0, "3", None, np.float32(3)))
    value = check_int("max_turns", np.int64(7), 1)
    assert value == 7 and type(value) is int
    assert check_int("chips", -5) == -5
    for bad, message in ((True, "max_turns must be an int 1..9, got True"), (0, "max_turns must be an int 1..9"),
                         (10, "got 10"), (2.0, "got 2.0"), ("3", "got '3'")):
        with pytest.raises(ValueError, match=message):
            check_int("max_turns", bad, 1, 9)
    with pytest.raises(ValueError, match="deal: dealer must be a seat 0..2, got 3"):
        check_int("deal: dealer", 3, 0, 2, what="a seat")
    with pytest.raises(ValueError, match="target_score must be an int >= 0"):
        check_int("target_score", -1, 0)
    with pytest.raises(ValueError, match="x must be an int <= 4"):
        check_int("x", 5, hi=4)


def test_bools_and_choices():
    assert check_bool("ace_high", False) is False
    for bad in (0, 1, None, "yes", np.bool_(True)):
        with pytest.raises(ValueError, match="ace_high must be a bool"):
            check_bool("ace_high", bad)
    assert check_choice("reward_mode", "points", ("points", "win_loss")) == "points"
    with pytest.raises(ValueError, match=r"reward_mode must be one of \['points', 'win_loss'\], got 'score'"):
        check_choice("reward_mode", "score", ("points", "win_loss"))
    with pytest.raises(ValueError, match="num_decks"):
        check_choice("num_decks", True, (1, 2))


@dataclasses.dataclass(frozen=True)
class _Options:
    num_players: int = 2
    fast: bool = False
    mode: str = "a"

    def __post_init__(self):
        check_fields(self, ints={"num_players": (2, 6)}, bools=("fast",), choices={"mode": ("a", "b")})


def test_check_fields_checks_and_normalises_an_options_dataclass():
    options = _Options(num_players=np.int32(4))
    assert options.num_players == 4 and type(options.num_players) is int
    for field, bad in (("num_players", 7), ("num_players", True), ("fast", 1), ("mode", "c")):
        with pytest.raises(ValueError, match=field):
            _Options(**{field: bad})


def test_deal_keys():
    assert check_deal_keys({"hands": []}, ("hands", "stock")) == {"hands": []}
    with pytest.raises(ValueError, match=r"unknown deal key\(s\) \['bogus'\]; known: \['hands', 'stock'\]"):
        check_deal_keys({"hands": [], "bogus": 1}, ("hands", "stock"))
    with pytest.raises(ValueError, match="deal must be a dict, got list"):
        check_deal_keys([], ("hands",))


def test_lists_int_lists_and_records():
    assert check_list("deal melds", ({"cards": []},)) == [{"cards": []}]
    for bad, length, longest, message in (("ab", None, None, "deal x must be a list, got 'ab'"),
                                          ([1], 2, None, r"deal x must be a list of 2 items, got \[1\]"),
                                          ([1, 2, 3], None, 2, "deal x must be a list of at most 2 items")):
        with pytest.raises(ValueError, match=message):
            check_list("deal x", bad, length, longest)
    assert int_list("deal chips", (np.int8(-3), 4), 2) == [-3, 4]
    with pytest.raises(ValueError, match=r"deal scores\[1\] must be an int >= 0, got -1"):
        int_list("deal scores", [0, -1], 2, lo=0)
    with pytest.raises(ValueError, match=r"deal blocked\[0\] must be a seat 0..2, got True"):
        int_list("deal blocked", [True], lo=0, hi=2, what="a seat")
    meld = {"cards": ["7H"], "owner": 0}
    assert check_record("deal melds[0]", meld, ("owner", "cards", "secret"), required=("cards",)) is meld
    for bad in ({"owner": 0}, {"cards": [], "colour": 1}, ["7H"], None):
        with pytest.raises(ValueError, match=r"deal melds\[0\] must be a dict with keys among \['owner', 'cards'\], "
                                             r"'cards' required"):
            check_record("deal melds[0]", bad, ("owner", "cards"), required=("cards",))


def test_card_lists_are_lists_of_ascii_card_texts():
    assert card_list("hand", ["7H", "10d", "as"]) == parse_cards("7H TD AS")
    assert card_list("hand", "7H 8H", allow_string=True) == parse_cards("7H 8H")
    assert card_list("hand", ("JK",), allow_joker=True) == [JOKER]
    for bad in ("7H 8H", [7], [None], None, 5, {"7H": 1}, ["7H", True]):
        with pytest.raises(ValueError, match="hand must be a list of card texts"):
            card_list("hand", bad)
    for bad, word in ((["7\u017f"], "7ſ"), (["JK"], "no jokers"), (["1H"], "1H")):
        with pytest.raises(ValueError, match=f"hand: bad card .*{word}"):
            card_list("hand", bad)


def test_pack_tally_lists_every_card_at_most_as_often_as_the_pack_holds_it():
    tally = PackTally(make_pack())
    assert tally.take("hands[0]", ["7H", "8H"]) == parse_cards("7H 8H")
    with pytest.raises(ValueError, match=r"card 7H is listed twice \(hands\[0\] and stock\); the pack holds 1"):
        tally.take("stock", ["9H", "7H"])
    assert len(tally.unlisted()) == 52 - 3   # 9H was counted before 7H was refused
    with pytest.raises(ValueError, match="cards listed nowhere although 'stock' is given: AC 2C"):
        tally.check_all_listed("'stock' is given")
    tally.take("stock", "AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC".split())
    assert tally.unlisted()[0] == 13   # AD

    two_decks = PackTally(make_pack(2, 1))
    two_decks.take("hands[0]", ["7H", "JK"])
    two_decks.take("hands[1]", ["7H"])
    with pytest.raises(ValueError, match=r"card 7H is listed 3 times \(hands\[0\] and discard\); the pack holds 2"):
        two_decks.take("discard", ["7H"])
    with pytest.raises(ValueError, match="deal discard: bad card 'JK': this game has no jokers"):
        PackTally(make_pack()).take("discard", ["JK"])
    full = PackTally(make_pack(2, 1))
    full.take("stock", ["AC", "2C"] * 2)
    assert len(full.unlisted()) == 105 - 4


def test_check_number_takes_finite_reals_above_the_bound():
    from rummy_env.validate import check_number
    assert check_number("c", 0) == 0.0 and check_number("c", np.float32(1.5)) == 1.5
    assert check_number("s", 0.25, strict=True) == 0.25
    for bad in (-0.1, float("nan"), float("inf"), True, "1", None):
        with pytest.raises(ValueError, match=r"c must be a number >= 0, got"):
            check_number("c", bad)
    with pytest.raises(ValueError, match=r"s must be a number > 0, got 0"):
        check_number("s", 0, strict=True)
