"""The action catalogues of rummy_env.actions (issue 15): segment starts and sizes add up to every
game's action count, every id survives id -> text -> id in all five games, and the one parser's
messages name the text and the reason."""
from __future__ import annotations

import pickle

import pytest

from rummy_env.actions import (CARD, PIECE, RANK, Catalogue, Combination, Segment, Word, number_word,
                               slot_word)
from rummy_env.games import contract_rummy, i_doubt_it, rummy, tongits
from rummy_env.registry import make_raw_env

CATALOGUE_OPTIONS = [
    ("rummy", rummy.ACTIONS, {"num_players": n}) for n in range(2, 7)
] + [
    ("tongits", tongits.ACTIONS, {}),
] + [
    ("i_doubt_it", i_doubt_it.play_table(m).catalogues[mis],
     {"num_players": 6, "max_cards_per_play": m, "wrong_rank_claims": mis})
    for m in range(1, 9) for mis in (False, True)
] + [
    ("contract_rummy", contract_rummy.action_catalogue(contract_rummy.Options(**options)), options)
    for options in [{"num_players": n} for n in range(3, 9)] + [
        {"num_players": 3, "num_jokers": j, "num_decks": d, "min_run_length": r}
        for j in (0, 2) for d in (1, 3) for r in (3, 4)]
]
"""(game, its catalogue, options): every player count and option that changes the action count."""


def _raw_env(game: str, options: dict):
    env = make_raw_env(game, **options)
    env.reset(seed=0)
    return env


@pytest.mark.parametrize("game,actions,options", CATALOGUE_OPTIONS,
                         ids=[f"{g}-{sorted(o.items())}" for g, _, o in CATALOGUE_OPTIONS])
def test_segments_lay_end_to_end_and_fill_the_action_space(game, actions, options):
    env = _raw_env(game, options)
    n = env.action_space(env.possible_agents[0]).n
    assert actions.size == n == sum(segment.size for segment in actions.segments)
    stop = 0
    for start, segment in zip(actions.starts, actions.segments):
        assert start == stop and actions.ids(segment.name) == range(start, start + segment.size)
        stop = start + segment.size
    assert len(actions.texts) == n


def test_engine_constants_are_the_catalogue_starts():
    """The engines' module-level offsets are read from the catalogue, in the rules files' layout."""
    assert (rummy.DRAW_STOCK, rummy.TAKE_DISCARD, rummy.DISCARD0, rummy.MELD0, rummy.LAYOFF0,
            rummy.NUM_ACTIONS) == (0, 1, 2, 54, 423, 1307)
    assert (tongits.A_DRAW, tongits.A_TAKE, tongits.A_CALL, tongits.A_CHALLENGE, tongits.A_FOLD, tongits.DISCARD0,
            tongits.MELD0, tongits.SECRET0, tongits.LAYOFF0, tongits.NUM_ACTIONS) == (
        0, 1, 2, 3, 4, 5, 57, 386, 399, 1283)
    table = i_doubt_it.play_table(4)
    assert [table.catalogues[True].start(name) for name in ("doubt", "pass", "play", "misclaim")] == [
        i_doubt_it.DOUBT, i_doubt_it.PASS, i_doubt_it.FIRST_PLAY, 2 + i_doubt_it.num_plays(4)]
    assert rummy.ACTIONS.action_id("layoff", card=32, slot=3) == 423 + 17 * 32 + 3
    assert rummy.ACTIONS.decode(423 + 17 * 32 + 3) == ("layoff", {"card": 32, "slot": 3})


ROUND_TRIP_OPTIONS = [(game, options) for game, _, options in CATALOGUE_OPTIONS
                      if game not in ("i_doubt_it", "contract_rummy")] + [
    ("i_doubt_it", {"num_players": 6, "max_cards_per_play": m, "wrong_rank_claims": True}) for m in (1, 4, 6)
] + [("contract_rummy", {"num_players": n}) for n in range(3, 9)] + [
    ("contract_rummy", {"num_players": 3, "num_jokers": j}) for j in (0, 1, 2)
] + [("ginny_o", {"num_players": n}) for n in (2, 4)]


@pytest.mark.parametrize("game,options", ROUND_TRIP_OPTIONS,
                         ids=[f"{g}-{sorted(o.items())}" for g, o in ROUND_TRIP_OPTIONS])
def test_every_id_round_trips_through_its_text(game, options):
    """``text_to_action(action_to_text(a)) == a`` for every id, through the environment, and the
    texts are distinct; a re-spaced upper-case text reads the same."""
    env = _raw_env(game, options)
    n = env.action_space(env.possible_agents[0]).n
    texts = [env.action_to_text(a) for a in range(n)]
    assert len(set(texts)) == n
    for a, text in enumerate(texts):
        assert env.text_to_action(text) == a, text
    for a in range(0, n, 97):
        assert env.text_to_action("  " + texts[a].upper().replace(" ", " \t ") + "\n") == a


RUMMY_MESSAGES = {
    "fly away": "expected 'draw stock', 'take discard', 'discard <card>', 'meld <cards>' or 'layoff <card> @<k>'",
    "take discard 1": "wrong number of words for 'take discard': expected 'take discard'",
    "layoff 7H": "wrong number of words for 'layoff': expected 'layoff <card> @<k>'",
    "layoff 7H 3": "expected a meld index '@k', got '3'",
    "layoff 7H @17": "the meld index k of '@k' must be a number 0..16",
    "discard 7X": "bad card '7x'",
    "meld 7C 7D 7S 7C": "the cards form no meld (RM-10..RM-12)",
}


@pytest.mark.parametrize("text,reason", RUMMY_MESSAGES.items())
def test_parser_names_the_text_and_the_reason(text, reason):
    with pytest.raises(ValueError) as err:
        rummy.ACTIONS.text_to_action(text)
    assert str(err.value).startswith(f"unknown action text {text!r}: ") and reason in str(err.value)


def test_the_same_messages_in_every_game():
    """One parser: the same kind of mistake reads the same in Tongits and I Doubt It as in Rummy."""
    with pytest.raises(ValueError, match="expected 'draw stock', .* or 'layoff <card> @<k>'"):
        tongits.ACTIONS.text_to_action("fly away")
    with pytest.raises(ValueError, match="wrong number of words for 'layoff'"):
        tongits.ACTIONS.text_to_action("layoff 7H @1 6")
    actions = i_doubt_it.play_table(2).catalogues[False]
    with pytest.raises(ValueError, match="wrong number of words for 'play': expected 'play <rank> ...'"):
        actions.text_to_action("play")
    with pytest.raises(ValueError, match=r"expected 'doubt', 'pass' or 'play <rank> \.\.\.'"):
        actions.text_to_action("misclaim")
    with pytest.raises(ValueError, match="at most max_cards_per_play=2 cards"):
        actions.text_to_action("play 7 7 7")


def test_argument_order_literal_words_and_optional_numbers():
    """What Contract Rummy and Ginny-O need: a slot-major id, a literal word between arguments,
    ``take discard [K]`` with ``take discard 1`` read as ``take discard``, a joker piece."""
    square = Word("<square>", ("A1", "B1", "A2", "B2"), _square_index)
    actions = Catalogue([
        Segment("take discard <count>", count=number_word(1, 3, "K", optional=True)),
        Segment("swap <card> <slot>", card=CARD, slot=slot_word(2), id_order=("slot", "card")),
        Segment("place <piece> at <square>", piece=PIECE, square=square),
    ])
    assert actions.texts[:3] == ("take discard", "take discard 2", "take discard 3")
    assert actions.text_to_action("take discard 1") == actions.text_to_action("TAKE discard") == 0
    swap = actions.start("swap")
    assert actions.action_to_text(swap + 52 * 1 + 5) == "swap 6C @1"
    place = actions.start("place")
    assert actions.action_to_text(place + 4 * 60 + 2) == "place JK=9C at A2"
    assert actions.text_to_action("place jk=9c AT a2") == place + 4 * 60 + 2
    assert actions.size == 3 + 104 + 104 * 4
    for text, reason in (("place 7H on A2", "expected 'place <card> at <square>'"),
                         ("take discard 0", "K must be a number 1..3"),
                         ("place 7H at C3", "no square 'c3'")):
        with pytest.raises(ValueError, match=reason):
            actions.text_to_action(text)


def _square_index(word: str) -> int:
    squares = ("a1", "b1", "a2", "b2")
    if word not in squares:
        raise ValueError(f"no square {word!r}")
    return squares.index(word)


def test_a_catalogue_pickles_and_refuses_ambiguous_segments():
    again = pickle.loads(pickle.dumps(rummy.ACTIONS))
    assert again.text_to_action("layoff 7h @3") == rummy.ACTIONS.text_to_action("layoff 7H @3")
    with pytest.raises(ValueError, match="two segments are named 'discard'"):
        Catalogue([Segment("discard <card>", card=CARD), Segment("discard <rank>", rank=RANK)])
    with pytest.raises(ValueError, match="only the last argument"):
        Segment("meld <meld> <slot>", meld=Combination("<cards>", [(0, 1, 2)], CARD, "no meld"), slot=slot_word(2))
    with pytest.raises(ValueError, match="must name the pattern's <arguments>"):
        Segment("discard <card>", rank=RANK)
