"""Pictures of a view: ``rummy_env.render`` (RGB frames and HTML), on built views and real games."""
from __future__ import annotations

import re

import numpy as np
import pytest

from rummy_env import render
from rummy_env.registry import GAMES, make_env
from rummy_env.render import (MIN_HEIGHT, RED, WIDTH, board_html, board_tiles, card_face, card_html,
                              view_to_html, view_to_rgb)


def make_view(**changes) -> dict:
    view = {"game": "rummy_v0", "seat": 0, "num_players": 3, "to_play": 0, "phase": "play", "done": False,
            "hand": ["AC", "7C", "TS"], "hand_sizes": [3, 7, 5], "scores": [0, 12, -3.5],
            "legal_actions": ["discard AC", "discard 7C", "discard TS"],
            "melds": [{"index": 0, "owner": 1, "cards": ["2C", "3C", "4C"]},
                      {"index": 1, "owner": 2, "cards": ["5S", "5C", "JK=5D"]}],
            "discard": ["3S", "KC"], "stock_size": 30, "events": ["player_2 discards KC"]}
    view.update(changes)
    return view


def red_pixels(img: np.ndarray) -> int:
    return int(np.all(img == np.array(RED, dtype=np.uint8), axis=-1).sum())


def test_card_face_reads_every_card_text_form():
    assert card_face("7H") == ("7", "H", False, None)
    assert card_face("TH") == ("10", "H", False, None)
    assert card_face("10d") == ("10", "D", False, None)
    assert card_face("JK") == ("JK", None, True, None)
    assert card_face("JK=QS") == ("JK", None, True, "QS")
    assert card_face("??") == ("??", None, False, None)


def test_rgb_frame_shape_and_type():
    img = view_to_rgb(make_view(), "rummy_v0")
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
    assert img.shape[1] == WIDTH and img.shape[0] >= MIN_HEIGHT


def test_rgb_red_suits_are_red_and_black_suits_are_not():
    black_only = make_view(hand=["AC", "7S"], melds=[], discard=["3S"], legal_actions=[], events=[])
    with_heart = make_view(hand=["AC", "7S", "9H"], melds=[], discard=["3S"], legal_actions=[], events=[])
    assert red_pixels(view_to_rgb(black_only)) == 0
    assert red_pixels(view_to_rgb(with_heart)) > 100


def test_rgb_is_deterministic_and_depends_on_the_view():
    a = view_to_rgb(make_view())
    assert np.array_equal(a, view_to_rgb(make_view()))
    b = view_to_rgb(make_view(hand=["AC", "7C", "TD"]))
    assert a.shape == b.shape and not np.array_equal(a, b)
    c = view_to_rgb(make_view(melds=[]))
    assert c.shape != a.shape or not np.array_equal(a, c)


def test_rgb_grows_for_a_crowded_table():
    melds = [{"index": i, "owner": i % 3, "cards": ["2C", "3C", "4C", "5C", "6C"]} for i in range(30)]
    hand = ["AC", "2D", "3H", "4S"] * 12
    img = view_to_rgb(make_view(melds=melds, hand=hand, revealed_hands=[hand, hand, hand]))
    assert img.shape[0] > MIN_HEIGHT and img.shape[1] == WIDTH


def test_html_cards_have_suit_symbols_and_colours():
    heart = card_html("9H")
    assert "\u2665" in heart and "#c41e2d" in heart
    spade = card_html("TS")
    assert "\u2660" in spade and "#c41e2d" not in spade and ">10<" in spade
    assert "=5" in card_html("JK=5D") and "\u2666" in card_html("JK=5D")


def test_html_groups_melds_by_owner_and_shows_table():
    out = view_to_html(make_view(), "rummy_v0")
    assert out.index("melds of player_1") < out.index("melds of player_2")
    for text in ("2C", "3C", "4C", "JK=5D", "3S", "KC", "AC", "7C", "TS"):
        assert f'title="{text}"' in out
    assert "3 legal actions" in out and "score" in out and "-3.5" in out
    assert "player_2 discards KC" in out


def test_html_escapes_text():
    out = view_to_html(make_view(events=["<script>alert(1)</script>"]))
    assert "<script>" not in out and "&lt;script&gt;" in out


def test_revealed_hands_are_drawn_only_when_present():
    hidden = view_to_html(make_view(hand=["AC"], melds=[], discard=[]))
    shown = view_to_html(make_view(hand=["AC"], melds=[], discard=[], revealed_hands=[["AC"], ["QH"], ["KD"]]))
    assert 'title="QH"' not in hidden and 'title="QH"' in shown and 'title="KD"' in shown


def test_board_tiles_reads_each_board_form():
    expected = {(7, 6): "5H", (7, 7): "JK=6H", (7, 8): "7H"}
    assert board_tiles(["G8 5H", "H8 JK=6H", "I8 7H"]) == expected
    assert board_tiles({"G8": "5H", "H8": "JK=6H", "I8": "7H"}) == expected
    assert board_tiles([{"square": "G8", "tile": "5H"}, {"square": "H8", "tile": "JK=6H"},
                        {"square": "I8", "tile": "7H"}]) == expected
    grid = [[None] * 15 for _ in range(15)]
    grid[7][6:9] = ["5H", "JK=6H", "7H"]
    assert board_tiles(grid) == expected
    with pytest.raises(ValueError):
        board_tiles(["Z99 5H"])


def test_board_html_colours_premium_squares():
    out = board_html({"board": ["G8 5H", "H8 JK=6H", "I8 7H"]})
    assert out.count("<tr>") == 16  # column header + 15 rows
    assert out.count(render.PREMIUM_COLOURS["B"][0]) >= 8 + 1  # 8 blue squares and the legend
    assert out.count(render.PREMIUM_COLOURS["G"][0]) >= 12 + 1
    assert 'title="JK=6H"' in out and 'title="5H"' in out
    bare = board_html({"board": [], "board_layout": "bare"})
    assert render.PREMIUM_COLOURS["B"][0] not in bare
    rows = ["B" * 15] + ["." * 15] * 14
    assert board_html({"board": [], "premium": rows}).count(render.PREMIUM_COLOURS["B"][0]) == 15 + 1


@pytest.mark.parametrize("game", list(GAMES))
def test_env_renders_rgb_and_html(game):
    env = make_env(game, render_mode="rgb_array")
    env.reset(seed=3)
    raw = env.unwrapped
    rng = np.random.default_rng(0)
    for _ in range(12):
        img = env.render()
        assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3 and img.shape[0] >= 100
        seat = raw.game.current_player
        out = raw._repr_html_()
        for text in raw.view(seat)["hand"]:
            assert f'title="{text}"' in out
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))


def i_doubt_it_view(**changes) -> dict:
    view = make_view(game="i_doubt_it_v0", num_players=4, hand_sizes=[3, 9, 9, 9], scores=[0, 0, 0, 0], melds=[],
                     discard=[], stock_size=0, legal_actions=["doubt", "pass"], phase="doubt",
                     events=['player_2 plays 4 cards saying "four sixes"'], pile_size=4, rank="5",
                     claim={"seat": 2, "count": 4, "rank": "6"})
    view.update(changes)
    return view


def test_i_doubt_it_pictures_show_pile_claim_and_next_rank_not_stock_and_discard():
    out = view_to_html(i_doubt_it_view())
    assert "pile: 4 cards face down" in out and "claim: player_2 played 4 cards as sixes" in out
    assert "next claim: fives" in out
    assert "stock" not in out and "discard pile" not in out
    assert "stock" in view_to_html(make_view())  # the other games keep their stock and discard pile


def test_i_doubt_it_rgb_frame_depends_on_the_claim():
    with_claim = view_to_rgb(i_doubt_it_view())
    no_claim = view_to_rgb(i_doubt_it_view(claim=None))
    assert with_claim.shape == no_claim.shape and not np.array_equal(with_claim, no_claim)


def test_html_meld_numbers_match_the_action_text():
    out = view_to_html(make_view())
    assert ">@0<" in out and ">@1<" in out and ">#0<" not in out


def test_i_doubt_it_ansi_shows_pile_and_pending_claim_in_words():
    env = make_env("i_doubt_it", render_mode="ansi")
    env.reset(seed=1)
    env.step(env.unwrapped.text_to_action("play " + env.unwrapped.view(env.agent_selection)["hand"][0][:-1]))
    text = env.render()
    assert re.search(r"^pile: 1 card face down; next claim: \w$", text, re.M)
    assert re.search(r'^pending: player_\d claims "one \w+"; passed so far: nobody$', text, re.M)
    assert "stock" not in text and "card(s)" not in text
