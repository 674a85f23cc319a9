"""Ginny-O's observation (documented part by part in ``rummy_env.ginny_o_v0``) and its named layout.

The board block is 15 planes of 15x15 (channels first), cached by the game until the board or
this turn's placements change; the rest is written per seat.
"""
from __future__ import annotations

import numpy as np

from ...cards import JOKER, NUM_CARDS, RANK_OF, SUIT_OF
from ...layout import ObservationLayout
from .board import CENTRE, LAYOUTS, NSQ, RED_SQUARES, SIZE

PHASES = ("start", "exchange", "play")

BOARD_PARTS = [  # 15x15 planes, channels first
    ("occupied", (SIZE, SIZE), "{0,1}", "square holds a tile"),
    ("rank", (SIZE, SIZE), "[0, 1]", "rank / 13 of the card the tile stands for"),
    ("suits", (4, SIZE, SIZE), "{0,1}", "suit one-hot C D H S"),
    ("joker", (SIZE, SIZE), "{0,1}", "the tile is a joker"),
    ("premium", (5, SIZE, SIZE), "{0,1}", "yellow (tile x2), green (tile x3), red (start, meld x2), blue (meld x3), "
                                         "centre H8"),
    ("groups", (SIZE, SIZE), "0..inf", "group id + 1 of committed tiles (GO-25)"),
    ("placed", (SIZE, SIZE), "{0,1}", "placed this turn"),
    ("open_start", (SIZE, SIZE), "{0,1}", "open start square"),
]
TILE_PARTS = [  # 53 tiles: the 52 cards, then JK
    ("rack", 53, "0..8", "own rack, count per tile"),
    ("chosen", 53, "0..8", "tiles chosen this turn for an exchange"),
    ("drawn", 53, "{0,1}", "the tile drawn this turn, one-hot"),
    ("unseen", 53, "0..8", "unseen tile counts"),
    ("phase", 3, "{0,1}", "phase one-hot: start, exchange, play"),
    ("drew", 1, "{0,1}", "drew this turn"),
    ("box_empty", 1, "{0,1}", "box empty at turn start"),
]


def _observation_layout(n: int) -> ObservationLayout:
    return ObservationLayout(BOARD_PARTS + TILE_PARTS + [
        ("scores", n, "[-inf, inf]", "scores / 100 from this seat on"),
        ("rack_sizes", n, "[0, inf]", "rack sizes / 7 from this seat on"),
        ("to_play", n, "{0,1}", "to-play one-hot from this seat on"),
        ("progress", 4, "[0, 1]", "box size / tiles in play, turns without a play / stall limit, turns / max_turns, "
                                  "board tiles / tiles in play"),
    ])


OBSERVATION_LAYOUTS = {n: _observation_layout(n) for n in range(2, 5)}


def observation_layout(options) -> ObservationLayout:
    """The observation's named parts for ``options.num_players``."""
    return OBSERVATION_LAYOUTS[options.num_players]


def obs_size(num_players: int) -> int:
    return OBSERVATION_LAYOUTS[num_players].size


_FIXED_PARTS = ObservationLayout(BOARD_PARTS + TILE_PARTS)
OBS_BOARD_SIZE = _FIXED_PARTS.start("rack")
BOARD_PLANES = OBS_BOARD_SIZE // NSQ
"""Planes of the board block of the observation."""
OBS_BOARD_SHAPE = (BOARD_PLANES, SIZE, SIZE)
P_OCCUPIED, P_RANK, P_SUITS, P_JOKER, P_PREMIUM, P_GROUPS, P_PLACED, P_OPEN_START = (
    _FIXED_PARTS.start(name) // NSQ for name, *_ in BOARD_PARTS)
"""First plane of each board part."""
O_CHOSEN, O_DRAWN, O_UNSEEN, O_PHASE, O_DREW, O_BOX_EMPTY = (
    _FIXED_PARTS.start(name) - OBS_BOARD_SIZE for name, *_ in TILE_PARTS[1:])
"""Offsets after the board block."""
SEAT_PART_STARTS = {n: tuple(layout.start(name) for name in ("scores", "rack_sizes", "to_play", "progress"))
                    for n, layout in OBSERVATION_LAYOUTS.items()}


def _premium_planes(layout: str) -> np.ndarray:
    premium = LAYOUTS[layout]
    planes = np.array([[1.0 if premium[q] == letter else 0.0 for q in range(NSQ)] for letter in "YGRBC"],
                      dtype=np.float32)
    planes.flags.writeable = False
    return planes


PREMIUM_PLANES = {name: _premium_planes(name) for name in LAYOUTS}
"""The premium planes (yellow, green, red, blue, centre) of each layout."""


def board_block(game) -> tuple[np.ndarray, list[int], int]:
    """The board block of the observation (the 15 planes, flattened), the tile counts on the board
    (this turn's placements included) and the number of tiles there."""
    planes = np.zeros((BOARD_PLANES, NSQ), dtype=np.float32)
    planes[P_PREMIUM:P_GROUPS] = PREMIUM_PLANES[game.options.board_layout]
    on_board = [0] * (NUM_CARDS + 1)
    tiles = [(q, p) for q, p in enumerate(game.board) if p >= 0] + game.placed
    for q, piece in tiles:
        c = piece % NUM_CARDS
        planes[P_OCCUPIED, q] = 1
        planes[P_RANK, q] = RANK_OF[c] / 13
        planes[P_SUITS + SUIT_OF[c], q] = 1
        if piece >= NUM_CARDS:
            planes[P_JOKER, q] = 1
            on_board[JOKER] += 1
        else:
            on_board[c] += 1
        if game.group[q] >= 0:
            planes[P_GROUPS, q] = game.group[q] + 1
    placed_squares = set()
    for q, _ in game.placed:
        planes[P_PLACED, q] = 1
        placed_squares.add(q)
    if game.board[CENTRE] < 0:
        if CENTRE not in placed_squares:
            planes[P_OPEN_START, CENTRE] = 1
    else:
        for q in RED_SQUARES[game.options.board_layout]:
            if game.board[q] < 0 and q not in placed_squares:
                planes[P_OPEN_START, q] = 1
    return planes.reshape(-1), on_board, len(tiles)


def write_observation(game, seat: int, block: tuple[np.ndarray, list[int], int]) -> np.ndarray:
    """The float32 observation of ``seat`` (length ``obs_size(n)``), from the game's board ``block``."""
    n = game.num_players
    options = game.options
    planes, on_board, board_tiles = block
    obs = np.empty(obs_size(n), dtype=np.float32)
    obs[:OBS_BOARD_SIZE] = planes
    obs[OBS_BOARD_SIZE:] = 0
    o = OBS_BOARD_SIZE
    rack = game.racks[seat]
    obs[o:o + 53] = rack
    limits = options.tile_limits()
    acting = seat == game.current_player and not game.done
    if acting:
        for t in game.chosen:
            obs[o + O_CHOSEN + t] += 1
        if game.drew >= 0:
            obs[o + O_DRAWN + game.drew] = 1
    obs[o + O_UNSEEN:o + O_UNSEEN + 53] = [limits[t] - on_board[t] - rack[t] for t in range(53)]
    if not game.done:
        obs[o + O_PHASE + PHASES.index(game.phase)] = 1
    obs[o + O_DREW] = 1.0 if (acting and game.drew >= 0) else 0.0
    obs[o + O_BOX_EMPTY] = 1.0 if game.box_empty_start else 0.0
    scores_at, rack_sizes_at, to_play_at, progress_at = SEAT_PART_STARTS[n]
    for k in range(n):
        s = (seat + k) % n
        obs[scores_at + k] = (game.final_scores[s] if game.done else game.scores[s]) / 100
        obs[rack_sizes_at + k] = sum(game.racks[s]) / 7
        if not game.done and s == game.current_player:
            obs[to_play_at + k] = 1
    total = options.num_tiles
    obs[progress_at] = len(game.box) / total
    obs[progress_at + 1] = game.stall / (options.stall_rounds * n if game.box else n)
    obs[progress_at + 2] = game.turns / options.max_turns if options.max_turns else 0.0
    obs[progress_at + 3] = board_tiles / total
    return obs
