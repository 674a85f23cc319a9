"""Ginny-O: rummy melds played crossword-style on a 15x15 board (``docs/rules/ginny_o.md``, GO-1..GO-44).

The engine is plain Python (no PettingZoo); ``rummy_env.ginny_o_v0`` wraps it as an environment.

| Module | What it holds |
|---|---|
| ``options.py`` | ``Options`` (GO-2, GO-4, GO-14, GO-16, GO-36) and the reading of scenario deals (``read_deal``) |
| ``board.py`` | squares (``H8`` = ``CENTRE``), premium layouts (GO-2, GO-3), lines, neighbours, the groups of a set-up board, ``score_play`` (GO-29..GO-33) |
| ``actions.py`` | ``ACTIONS``: the 23,509 action ids as segments of ``rummy_env.actions`` (texts, parser, starts; GO-40..GO-44) |
| ``moves.py`` | ``PlaySearch``: the exact legal-play search (GO-20..GO-27) and its caches; the legal plays and mask of a position (GO-43) |
| ``game.py`` | ``GinnyOGame``: state, turn flow, stepping, scoring (GO-29..GO-38), illegal-action reasons |
| ``observation.py`` | the observation, its named layout (``observation_layout``) and board planes |
| ``view.py`` | the structured view (drawn as a picture and as text by ``rummy_env.render``) and the game's words there: the box and stall count, the board in letters |
| ``determinize.py`` | ``clone`` and ``determinize``: the re-deal keeping what a seat knows, with the tiles it returned to the box (GO-7, GO-11, GO-34) |
| ``serialisation.py`` | ``to_dict`` / ``from_dict`` and pickling |

A rack is a count list of length 53 (index 52 = jokers), the one representation of a hand.

The board picture (``render_mode="rgb_array"``) is drawn by ``rummy_env.render.board`` from the view.
"""
from .actions import (ACTION_GRID, ACTIONS, COMMIT, DRAW, EXCHANGE0, NUM_ACTIONS, PASS, PLACE0, RETURN0,
                      place_action, text_to_action)
from .board import (CENTRE, COLS, LAYOUTS, NSQ, RED_SQUARES, SIZE, SQUARE_TEXT, board_lines, read_line,
                    score_play, square_of)
from .game import RACK_VALUE, GinnyOGame
from .moves import Play, PlaySearch
from .observation import (BOARD_PLANES, OBS_BOARD_SHAPE, OBS_BOARD_SIZE, OBSERVATION_LAYOUTS, PHASES, obs_size,
                          observation_layout)
from .options import Options

__all__ = [
    "CENTRE", "COLS", "LAYOUTS", "NSQ", "RED_SQUARES", "SIZE", "SQUARE_TEXT", "board_lines", "read_line", "score_play",
    "square_of", "ACTION_GRID", "ACTIONS", "COMMIT", "DRAW", "EXCHANGE0", "NUM_ACTIONS", "PASS", "PLACE0", "RETURN0",
    "place_action", "text_to_action", "RACK_VALUE", "GinnyOGame", "BOARD_PLANES", "OBS_BOARD_SHAPE", "OBS_BOARD_SIZE",
    "OBSERVATION_LAYOUTS", "PHASES", "obs_size", "observation_layout", "Options", "Play", "PlaySearch",
]
