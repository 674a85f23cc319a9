"""Ginny-O's options (ginny_o.md "Options") and scenario deals (ginny_o.md "Scenario set-up")."""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ...cards import CARD_TEXT, JOKER, NUM_CARDS, parse_card
from ...melds import parse_piece
from .board import LAYOUTS, NSQ, SQUARE_TEXT, board_groups, square_of

RACK_SIZE = 7
"""Tiles on a rack between turns while the box lasts (GO-8, GO-12)."""
DEAL_KEYS = frozenset({"hands", "stock", "board", "scores", "first", "dealer", "discard"})


def _is_int(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


@dataclass(frozen=True)
class Options:
    """Game options (ginny_o.md "Options"); a bad value raises ``ValueError`` naming it."""

    num_players: int = 2
    num_sets: int | None = None
    jokers_per_set: int = 2
    board_layout: str = "standard"
    descending_runs: bool = True
    reshuffle_on_return: bool = True
    stall_rounds: int = 5
    max_turns: int = 500
    reward_mode: str = "rank"

    def __post_init__(self):
        if not _is_int(self.num_players) or not 2 <= self.num_players <= 4:
            raise ValueError(f"num_players must be 2-4, got {self.num_players!r}")
        if self.num_sets is not None and (not _is_int(self.num_sets) or self.num_sets not in (1, 2)):
            raise ValueError(f"num_sets must be None, 1 or 2, got {self.num_sets!r}")
        if not _is_int(self.jokers_per_set) or not 0 <= self.jokers_per_set <= 4:
            raise ValueError(f"jokers_per_set must be 0-4, got {self.jokers_per_set!r}")
        if self.board_layout not in LAYOUTS:
            raise ValueError(f"board_layout must be one of {sorted(LAYOUTS)}, got {self.board_layout!r}")
        for name in ("descending_runs", "reshuffle_on_return"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be a bool, got {getattr(self, name)!r}")
        if not _is_int(self.stall_rounds) or self.stall_rounds < 1:
            raise ValueError(f"stall_rounds must be an int >= 1, got {self.stall_rounds!r}")
        if not _is_int(self.max_turns) or self.max_turns < 0:
            raise ValueError(f"max_turns must be an int >= 0, got {self.max_turns!r}")
        if self.reward_mode not in ("rank", "score_diff"):
            raise ValueError(f"reward_mode must be 'rank' or 'score_diff', got {self.reward_mode!r}")

    @property
    def sets(self) -> int:
        """Tile sets in play (GO-4): 1 for 2 players, 2 for 3-4, unless ``num_sets`` says."""
        return self.num_sets if self.num_sets is not None else (1 if self.num_players == 2 else 2)

    @property
    def num_tiles(self) -> int:
        return self.sets * (NUM_CARDS + self.jokers_per_set)

    def tile_limits(self) -> list[int]:
        """How many of each tile (52 cards, then JK) the sets hold."""
        return [self.sets] * NUM_CARDS + [self.sets * self.jokers_per_set]


class Deal(NamedTuple):
    """A position read from a scenario deal: the board with its groups, the racks (count lists
    of length 53), the box (top first), the scores and the seat to act."""

    board: list[int]
    group: list[int]
    group_start: list[int]
    racks: list[list[int]]
    box: list[int]
    scores: list[int] | None
    first: int


def _tile_texts(value, where: str) -> list:
    """Tile texts of a deal value: a list of strings, or one string of words."""
    if isinstance(value, str):
        return value.split()
    if not isinstance(value, (list, tuple)) or not all(isinstance(t, str) for t in value):
        raise ValueError(f"deal {where} must be a list of tile texts, got {value!r}")
    return list(value)


def read_deal(options: Options, deal: dict, rng: np.random.Generator) -> Deal:
    """The position a scenario deal describes (ginny_o.md "Scenario set-up"); the box, when not
    given, is the rest of the tiles shuffled by ``rng``, and so is the first seat. ``ValueError``
    naming any problem."""
    if not isinstance(deal, dict):
        raise ValueError(f"deal must be a dict, got {type(deal).__name__}")
    unknown = set(deal) - DEAL_KEYS
    if unknown:
        raise ValueError(f"unknown deal key(s) {sorted(unknown)}: expected {sorted(DEAL_KEYS)}")
    n = options.num_players
    if "discard" in deal and (not isinstance(deal["discard"], (list, tuple)) or deal["discard"]):
        raise ValueError(f"deal 'discard' must be absent or empty: Ginny-O has no discard pile, "
                         f"got {deal['discard']!r}")
    if "first" in deal and "dealer" in deal:
        raise ValueError("deal gives both 'first' and 'dealer': give one")
    limits = options.tile_limits()
    used = [0] * (NUM_CARDS + 1)

    def use(tile, where):
        used[tile] += 1
        if used[tile] > limits[tile]:
            raise ValueError(f"tile {CARD_TEXT[tile]} used more often than the sets hold "
                             f"({limits[tile]}), at {where}")

    def read_tile(text, where):
        try:
            return parse_card(text, allow_joker=True)
        except ValueError:
            raise ValueError(f"bad tile {text!r} in {where}") from None

    board = [-1] * NSQ
    entries = deal.get("board", [])
    if not isinstance(entries, (list, tuple)):
        raise ValueError(f"deal 'board' must be a list of '<square> <tile>' entries, got {entries!r}")
    for entry in entries:
        if not isinstance(entry, str) or len(entry.split()) != 2:
            raise ValueError(f"bad board entry {entry!r}: expected '<square> <tile>', e.g. 'H8 JK=6H'")
        square_text, piece_word = entry.split()
        q = square_of(square_text)
        try:
            piece = parse_piece(piece_word)
        except ValueError:
            raise ValueError(f"bad tile {piece_word!r} in board entry {entry!r} (a joker is 'JK=<card>')") from None
        if board[q] >= 0:
            raise ValueError(f"two tiles on square {SQUARE_TEXT[q]}")
        board[q] = piece
        use(JOKER if piece >= NUM_CARDS else piece, f"board {entry!r}")
    group, group_start = board_groups(board, LAYOUTS[options.board_layout], options.descending_runs)
    hands = deal.get("hands")
    if hands is None:
        raise ValueError("deal needs 'hands': one list of tile texts per seat")
    if not isinstance(hands, (list, tuple)) or len(hands) != n:
        raise ValueError(f"deal 'hands' must hold {n} racks, one per seat")
    racks = [[0] * (NUM_CARDS + 1) for _ in range(n)]
    for s, hand in enumerate(hands):
        hand = _tile_texts(hand, f"'hands' of seat {s}")
        if len(hand) > RACK_SIZE:
            raise ValueError(f"rack of seat {s} holds {len(hand)} tiles: at most {RACK_SIZE}")
        for text in hand:
            tile = read_tile(text, f"hand {s}")
            use(tile, f"hand {s}")
            racks[s][tile] += 1
    if "stock" in deal:
        box = []
        for text in _tile_texts(deal["stock"], "'stock'"):
            tile = read_tile(text, "stock")
            use(tile, "stock")
            box.append(tile)
    else:
        box = [t for t in range(NUM_CARDS + 1) for _ in range(limits[t] - used[t])]
        rng.shuffle(box)
    if box:
        for s in range(n):
            if sum(racks[s]) != RACK_SIZE:
                raise ValueError(f"rack of seat {s} holds {sum(racks[s])} tiles: "
                                 f"exactly {RACK_SIZE} while the box is not empty (GO-12)")
    scores = None
    if "scores" in deal:
        scores = deal["scores"]
        if not isinstance(scores, (list, tuple)) or len(scores) != n or not all(map(_is_int, scores)):
            raise ValueError(f"deal 'scores' must be {n} ints, got {scores!r}")
        scores = [int(x) for x in scores]
    if "first" in deal or "dealer" in deal:
        key = "first" if "first" in deal else "dealer"
        seat = deal[key]
        if not _is_int(seat) or not 0 <= seat < n:
            raise ValueError(f"bad seat {seat!r} for deal {key!r}: expected 0..{n - 1}")
        first = int(seat) if key == "first" else (int(seat) + 1) % n
    else:
        first = int(rng.integers(n))
    return Deal(board, group, group_start, racks, box, scores, first)
