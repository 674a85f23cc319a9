"""Pictures and text of a view: ``rummy_env.render`` (RGB frames, HTML and the text table), on built
views and real games."""
from __future__ import annotations

import io
import re

import numpy as np
import pytest
from PIL import ImageColor

from rummy_env import render
from rummy_env.agents.registry import make_agent
from rummy_env.experiments.play import main
from rummy_env.experiments.replay import replay_game
from rummy_env.gym_wrapper import SingleAgentEnv
from rummy_env.registry import GAMES, make_env
from rummy_env.render import (ANSI_CODE, MAX_LISTED, MIN_HEIGHT, RED, WIDTH, board_html, board_text, board_tiles,
                              card_face, card_html, group_by_suit, view_text, view_to_html, view_to_rgb)


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
    assert re.search(r"^pile: 1 card face down$", text, re.M)
    assert re.search(r'^claim: player_\d played 1 card saying "one \w+" - doubt it or pass$', text, re.M)
    assert re.search(r"^next play must claim: \w+s \(you hold \d+\)$", text, re.M)
    assert "stock" not in text and "card(s)" not in text


def test_group_by_suit_keeps_order_and_puts_jokers_last():
    groups = group_by_suit(["3C", "9C", "TD", "2S", "JK", "KS"])
    assert [cards for _, cards in groups] == [["3C", "9C"], ["TD"], ["2S", "KS"], ["JK"]]
    assert groups[0][0].endswith("clubs") and groups[-1][0] == "jokers"


def test_view_text_shows_melds_by_owner_and_colours_red_cards():
    view = {"game": "rummy_v0", "seat": 1, "num_players": 2, "to_play": 1, "phase": "play", "done": False,
            "hand": ["AC", "9H"], "hand_sizes": [5, 2], "scores": [3.0, 0],
            "melds": [{"index": 0, "owner": 0, "cards": ["7D", "8D", "9D"]}], "discard": ["KS"],
            "stock_size": 20, "events": []}
    text = view_text(view)
    assert "player_0   @0: 7D 8D 9D" in text and "player_1 (you)" in text and "score 3" in text
    assert "discard pile (top card last): KS" in text and "stock: 20 cards" in text
    assert "\033[" not in text
    coloured = view_text(view, colour=True)
    assert "\033[31m9H\033[0m" in coloured and "\033[31mAC" not in coloured
    assert ANSI_CODE.sub("", coloured) == text


def test_view_text_moves_are_numbered_and_a_long_list_is_summed_up_within_the_width():
    short = view_text(make_view(), moves=True)
    assert short.endswith("legal moves (3):\n  1. discard AC   2. discard 7C   3. discard TS")
    assert "legal moves" not in view_text(make_view())
    legal = [f"play {r}" for r in "A23456789TJQK" for _ in range(4)] + ["doubt", "pass"]
    long = view_text(make_view(legal_actions=legal), moves=True, width=60)
    tail = long.split("legal moves (54):\n")[1].splitlines()
    assert len(legal) > MAX_LISTED and len(tail) < 5 and all(len(line) <= 60 for line in tail)
    assert "  play ...: 52 moves (e.g. play A, play A, play A)" in tail and "53. doubt" in tail[0]


def test_ginny_o_board_keeps_its_grid_with_jokers_and_has_a_legend():
    board = [[""] * 15 for _ in range(15)]
    board[7][6], board[7][7], board[7][8] = "JK=8D", "8C", "8H"
    premium = ["." * 15] * 7 + ["B..Y...C...Y..B"] + ["." * 15] * 7
    lines = board_text({"board": board, "premium": premium})
    rows = lines[:16]
    assert len({len(r) for r in rows}) == 1 and len(rows[0]) <= 80
    assert "8D*  8C  8H" in rows[8] and " b   .   .   y" in rows[8]
    assert "premium squares:" in lines[-1] and "8D* = joker as 8D" in lines[-1]
    assert all(len(line) <= 80 for line in lines)


class Terminal(io.StringIO):
    """An output stream that says it is a terminal, so that the player uses colours."""

    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("game", list(GAMES))
def test_ansi_play_and_replay_show_the_same_table(game, monkeypatch):
    """One position reached three ways: stepping the env (``render_mode="ansi"``), the terminal
    player (the first seat to act answers its first legal move twice, random opponents seeded as
    the player seeds them) and the replay of the same action texts. All three print the same
    table; the player's has colours, and the ansi text and the replay add the legal moves."""
    monkeypatch.delenv("NO_COLOR", raising=False)
    seed, answers = 5, 2
    env = make_env(game, render_mode="ansi")
    env.reset(seed=seed)
    raw = env.unwrapped
    seat = raw.agent_name_mapping[env.agent_selection]
    opponents = {}
    for s in range(len(raw.possible_agents)):
        if s != seat:
            opponents[s] = make_agent("random", game)
            opponents[s].reset(s, seed + 1000 + s)
    texts, answered = [], 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        assert not (term or trunc)
        s = raw.agent_name_mapping[agent]
        if s == seat and answered == answers:
            break
        if s == seat:
            action, answered = int(np.flatnonzero(obs["action_mask"])[0]), answered + 1
        else:
            action = opponents[s].act(obs["observation"], obs["action_mask"], raw.view(s))
        texts.append(raw.action_to_text(action))
        env.step(action)
    ansi = env.render()
    table = ansi.split("\nlegal moves (")[0]
    assert table.startswith("=== ") and f"legal moves ({len(raw.view(seat)['legal_actions'])}):" in ansi

    out = Terminal()
    script = ["1"] * answers + ["quit"]
    assert main([game, "--seed", str(seed), "--seat", str(seat), "--opponents", "random"],
                input_fn=lambda prompt: script.pop(0), out=out) == 0
    played = out.getvalue()
    plain = ANSI_CODE.sub("", played)
    assert "\033[" in played and plain.rindex(table) > plain.rindex("you play: ")

    shown = []
    replay_game({"game": game, "options": {}, "seed": seed, "actions": texts,
                 "returns": [0.0] * len(raw.possible_agents)}, show=shown.append)
    assert shown[-1] == ansi


def test_human_mode_prints_the_ansi_text_and_the_gym_wrapper_renders_its_seat(capsys):
    ansi = make_env("tongits", render_mode="ansi")
    human = make_env("tongits", render_mode="human")
    ansi.reset(seed=2)
    human.reset(seed=2)
    assert human.render() is None
    assert capsys.readouterr().out == ansi.render() + "\n"  # captured output is no terminal: no colours
    single = SingleAgentEnv("tongits", seat=1, render_mode="ansi")
    single.reset(seed=2)
    assert single.render() == view_text(single.game.view(1), moves=True)


def test_ginny_o_board_picture_shows_premium_squares_tiles_jokers_and_placements():
    """``board_to_rgb`` (the Ginny-O board picture, in render/board.py since the rules folder keeps no
    drawing code): each square in its premium colour, a tile over it, a joker's tile in its own
    colour, this turn's placements outlined, red cards red."""
    board = [[""] * 15 for _ in range(15)]
    board[7][6], board[7][7], board[7][8] = "JK=8D", "8C", "8H"
    view = {"board": board, "premium": list(render.board_premiums({})), "placed": ["I8 8H"], "hand": ["2S"],
            "seat": 0, "scores": [0, 5], "done": False, "to_play": 0, "phase": "play", "stock_size": 20}
    img = render.board_to_rgb(view)
    cell, margin = render.BOARD_CELL, render.BOARD_MARGIN

    def square(col: int, row: int) -> np.ndarray:
        return img[margin + row * cell:margin + (row + 1) * cell, margin + col * cell:margin + (col + 1) * cell]

    def has(pixels: np.ndarray, colour) -> bool:
        return bool(np.all(pixels == np.array(colour, dtype=np.uint8), axis=-1).any())

    blue = ImageColor.getrgb(render.PREMIUM_COLOURS["B"][0])
    assert img.shape == (2 * margin + 15 * cell + render.BOARD_PANEL, 2 * margin + 15 * cell, 3)
    assert has(square(0, 0), blue) and not has(square(1, 0), blue)
    assert has(square(7, 7), render.TILE_FACE) and not has(square(7, 7), render.JOKER_FACE)
    assert has(square(6, 7), render.JOKER_FACE) and has(square(6, 7), RED)
    assert has(square(8, 7), render.PLACED_OUTLINE) and not has(square(7, 7), render.PLACED_OUTLINE)
    assert has(square(8, 7), RED) and not has(square(7, 7), RED)
    assert not np.array_equal(img, render.board_to_rgb(dict(view, board=[[""] * 15 for _ in range(15)])))


@pytest.mark.parametrize("game", list(GAMES))
def test_each_games_wording_is_found_in_its_own_view_module(game):
    """The back ends find a game's title and state in words through one table, ``GAME_VIEWS``,
    whose entry is the game's own ``view.py``; the table text shows those words."""
    module = render.GAME_VIEWS[game]
    assert module.__name__ == f"rummy_env.games.{game}.view"
    env = make_env(game)
    env.reset(seed=4)
    view = env.unwrapped.view(env.unwrapped.game.current_player)
    assert render.title(view) == module.TITLE and render.status_lines(view) == module.status_lines(view)
    assert view_text(view).startswith(f"=== {module.TITLE} | ")
    for line in module.status_lines(view):
        assert "\n  " + line + "\n" in view_text(view)
