"""Ginny-O (``docs/rules/ginny_o.md``) as a PettingZoo AEC environment: rummy melds played
crossword-style on a 15x15 board with premium squares.

``env(**kwargs)`` (wrapped) and ``raw_env(**kwargs)``. Keyword options (GO "Options"):
``num_players`` 2-4, ``num_sets`` (None/1/2), ``jokers_per_set`` 0-4, ``board_layout``
("standard" | "bare"), ``descending_runs``, ``reshuffle_on_return``, ``stall_rounds``,
``max_turns`` (0 = no cap), ``reward_mode`` ("rank" | "score_diff"), plus ``render_mode``
("ansi" | "human" | "rgb_array") and ``illegal_action_penalty``.

Actions (23,509 ids, GO-40..GO-44): 0 ``draw``, 1 ``pass``, 2 ``commit``; 3-55 ``return <t>``;
56-108 ``exchange <t>`` (t: the 52 cards in id order, then JK); 109 + 225 x card + square
``place <c> at <sq>``; 11809 + 225 x card + square ``place JK=<c> at <sq>`` (square =
15 x (row - 1) + column, A-O = 0-14). The mask is exact: a ``place`` is legal only if the play
can still be completed (GO-43); placements go in reading order. ``ACTION_GRID`` = (109, 104, 225):
the ``place`` ids as a piece x square grid, for a factored policy head.

Observation (float32, length ``3375 + 221 + 3n``; n = num_players), in this order. Ranges:
``{0,1}`` binary, ``a..b`` integers (``inf``: no bound), ``[a, b]`` reals;
``env.unwrapped.observation_layout()`` gives the same list as named parts (each row names its part),
and ``tests/test_observation_ranges.py`` checks this list and random play against it.

The board, ``[0, 3375)``: ``BOARD_PLANES`` = 15 planes of 15x15, channels first
(``obs[:3375].reshape(OBS_BOARD_SHAPE)``, plane[p, row, col]); this turn's placements are on
the board. Planes:

- ``[0, 225)`` ``{0,1}`` occupied: plane 0, the square holds a tile.
- ``[225, 450)`` ``[0, 1]`` rank: plane 1, rank / 13 of the card the tile stands for (a joker's
  declared card).
- ``[450, 1350)`` ``{0,1}`` suits: planes 2-5, suit one-hot C D H S.
- ``[1350, 1575)`` ``{0,1}`` joker: plane 6, the tile is a joker.
- ``[1575, 2700)`` ``{0,1}`` premium: planes 7-11, 7 yellow (tile x2); 8 green (tile x3); 9 red
  (start square, meld x2); 10 blue (meld x3); 11 centre H8.
- ``[2700, 2925)`` ``0..inf`` groups: plane 12, group id + 1 of committed tiles (GO-25; 0
  elsewhere).
- ``[2925, 3150)`` ``{0,1}`` placed: plane 13, placed this turn.
- ``[3150, 3375)`` ``{0,1}`` open_start: plane 14, open start square (an empty red square where
  a new group may start; only H8 while the board is empty).

Then:

- ``[3375, 3428)`` ``0..8`` rack: own rack, count per tile (52 cards, JK), placed tiles excluded.
- ``[3428, 3481)`` ``0..8`` chosen: tiles chosen this turn for an exchange (own, while acting).
- ``[3481, 3534)`` ``{0,1}`` drawn: the tile drawn this turn, one-hot (own, while acting).
- ``[3534, 3587)`` ``0..8`` unseen: unseen tile counts, what the sets hold minus the board and own
  rack (other racks and the box together; never split).
- ``[3587, 3590)`` ``{0,1}`` phase: phase one-hot (start, exchange, play).
- ``[3590]`` ``{0,1}`` drew: drew this turn.
- ``[3591]`` ``{0,1}`` box_empty: box empty at turn start.
- ``[3592, 3592 + n)`` ``[-inf, inf]`` scores: scores / 100 from this seat on (running; final once
  the game is over).
- ``[3592 + n, 3592 + 2n)`` ``[0, inf]`` rack_sizes: rack sizes / 7, from this seat on.
- ``[3592 + 2n, 3592 + 3n)`` ``{0,1}`` to_play: to-play one-hot, from this seat on.
- ``[3592 + 3n, 3596 + 3n)`` ``[0, 1]`` progress: box size / tiles in play, turns without a play /
  the stall limit (GO-36), turns / ``max_turns`` (0 without a cap), board tiles / tiles in play.

Rewards (GO-37, GO-38): 0 until the end; "rank": 1 - 2(p-1)/(n-1) for place p (ties share);
"score_diff": final score minus the others' mean. A ``max_turns`` cap truncates.

``view(agent)`` adds to the shared keys ``board`` (15x15 piece texts, '' empty), ``premium``
(15 strings of 15 letters: Y G R B C or '.'), ``placed`` (this turn's ``"<sq> <piece>"``),
``groups``, ``exchange_count``/``exchange_chosen``, ``drawn``. ``render_mode="rgb_array"``
gives ``rummy_env.render.board_to_rgb`` of the acting seat's view; "ansi" a text
board.
"""
from __future__ import annotations

import numpy as np

from .base import CardGameEnv, wrap
from .games.ginny_o import (ACTION_GRID, BOARD_PLANES, NUM_ACTIONS, OBS_BOARD_SHAPE, OBS_BOARD_SIZE, GinnyOGame,
                            Options, observation_layout)
from .layout import ObservationLayout

__all__ = ["env", "raw_env", "ACTION_GRID", "BOARD_PLANES", "OBS_BOARD_SHAPE", "OBS_BOARD_SIZE"]


class raw_env(CardGameEnv):
    metadata = {"name": "ginny_o_v0", "render_modes": ["ansi", "human", "rgb_array"],
                "is_parallelizable": False, "render_fps": 1}
    options_class = Options
    reward_modes = ("rank", "score_diff")

    def observation_layout(self) -> ObservationLayout:
        """The observation's named parts (the list above; ``layout.split(obs)`` names them)."""
        return observation_layout(self.options)

    def _sizes(self) -> tuple[int, int]:
        return observation_layout(self.options).size, NUM_ACTIONS

    def _new_game(self, rng: np.random.Generator, deal: dict | None) -> GinnyOGame:
        return GinnyOGame.new(self.options, rng, deal)

    clipped_parts = ("groups", "scores")

    def _range_caps(self) -> dict[str, tuple[float, float]]:
        """Rack sizes are at most the tiles in play; group ids are capped at the tiles in play and
        scores at +-10 (1,000 points), both clipped."""
        tiles = float(self.options.num_tiles)
        return {"groups": (0.0, tiles), "scores": (-10.0, 10.0), "rack_sizes": (0.0, tiles / 7)}


def env(**kwargs):
    return wrap(raw_env(**kwargs))
