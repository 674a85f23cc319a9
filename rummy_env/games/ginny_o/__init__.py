"""Ginny-O: rummy melds played crossword-style on a 15x15 board (``docs/rules/ginny_o.md``, GO-1..GO-44).

The engine is plain Python (no PettingZoo); ``rummy_env.ginny_o_v0`` wraps it as an environment.

| Module | What it holds |
|---|---|
| ``board.py`` | squares (``H8`` = ``CENTRE``), premium layouts (GO-2, GO-3), lines, neighbours, the groups of a set-up board, ``score_play`` (GO-29..GO-33) |
| ``catalogue.py`` | ``ACTIONS``: the 23,509 action ids as segments of ``rummy_env.actions`` (texts, parser, starts; GO-40..GO-44) |
| ``options.py`` | ``Options`` and the reading of scenario deals (``read_deal``) |
| ``search.py`` | ``PlaySearch``: the exact legal-play search (GO-20..GO-27) and its caches |
| ``game.py`` | ``GinnyOGame``: state, turn flow, legal mask, stepping, ``clone``/``determinize``, ``to_dict``/``from_dict`` |
| ``returned.py`` | what each seat knows of the tiles it returned to the box, and the re-deal of ``determinize`` that keeps it |
| ``observation.py`` | the observation, its named layout (``observation_layout``) and board planes |
| ``view.py`` | the structured view (drawn as a picture and as text by ``rummy_env.render``) |

The board picture (``render_mode="rgb_array"``) is drawn by ``rummy_env.render`` from the view.
"""
from .board import (CENTRE, COLS, LAYOUTS, NSQ, RED_SQUARES, SIZE, SQUARE_TEXT, board_lines, read_line,
                    score_play, square_of)
from .catalogue import (ACTION_GRID, ACTIONS, COMMIT, DRAW, EXCHANGE0, NUM_ACTIONS, PASS, PLACE0, RETURN0,
                        place_action, text_to_action)
from .game import RACK_VALUE, GinnyOGame
from .observation import (BOARD_PLANES, OBS_BOARD_SHAPE, OBS_BOARD_SIZE, OBSERVATION_LAYOUTS, PHASES, obs_size,
                          observation_layout)
from .options import Options
from .search import Play, PlaySearch

__all__ = [
    "CENTRE", "COLS", "LAYOUTS", "NSQ", "RED_SQUARES", "SIZE", "SQUARE_TEXT", "board_lines", "read_line", "score_play",
    "square_of", "ACTION_GRID", "ACTIONS", "COMMIT", "DRAW", "EXCHANGE0", "NUM_ACTIONS", "PASS", "PLACE0", "RETURN0",
    "place_action", "text_to_action", "RACK_VALUE", "GinnyOGame", "BOARD_PLANES", "OBS_BOARD_SHAPE", "OBS_BOARD_SIZE",
    "OBSERVATION_LAYOUTS", "PHASES", "obs_size", "observation_layout", "Options", "Play", "PlaySearch",
]
