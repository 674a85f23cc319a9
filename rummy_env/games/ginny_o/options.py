"""Ginny-O's options (ginny_o.md "Options") and scenario deals (ginny_o.md "Scenario set-up")."""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ...cards import JOKER, NUM_CARDS, make_pack
from ...melds import parse_piece
from ...validate import (OptionRule, PackTally, check_deal_keys, check_option_rules, check_int, check_list,
                         int_list)
from .board import LAYOUTS, NSQ, SQUARE_TEXT, board_groups, square_of

RACK_SIZE = 7
"""Tiles on a rack between turns while the box lasts (GO-8, GO-12)."""
DEAL_KEYS = frozenset({"hands", "stock", "board", "scores", "first", "dealer", "discard"})
REWARD_MODES = ("rank", "score_diff")


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

    RULES = {
        "num_players": OptionRule("GO-4", ints=(2, 4)),
        "num_sets": OptionRule("GO-4", words="None (1 set for 2 players, 2 for 3-4), 1 or 2"),
        "jokers_per_set": OptionRule("GO-4", ints=(0, 4)),
        "board_layout": OptionRule("GO-2", choices=tuple(LAYOUTS)),
        "descending_runs": OptionRule("GO-16", boolean=True),
        "reshuffle_on_return": OptionRule("GO-14", boolean=True),
        "stall_rounds": OptionRule("GO-36b", ints=(1, None)),
        "max_turns": OptionRule("GO-36d (0: no cap)", ints=(0, None)),
        "reward_mode": OptionRule("Rewards", choices=REWARD_MODES),
    }
    """Each option's allowed values and rule ids (ginny_o.md)."""

    def __post_init__(self):
        check_option_rules(self)
        if self.num_sets is not None:
            object.__setattr__(self, "num_sets", check_int("num_sets", self.num_sets, 1, 2))

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


def read_deal(options: Options, deal: dict, rng: np.random.Generator) -> Deal:
    """The position a scenario deal describes (ginny_o.md "Scenario set-up"); the box, when not
    given, is the rest of the tiles shuffled by ``rng``, and so is the first seat. ``ValueError``
    naming any problem."""
    check_deal_keys(deal, DEAL_KEYS)
    n = options.num_players
    if "discard" in deal and (not isinstance(deal["discard"], (list, tuple)) or deal["discard"]):
        raise ValueError(f"deal 'discard' must be absent or empty: Ginny-O has no discard pile, "
                         f"got {deal['discard']!r}")
    if "first" in deal and "dealer" in deal:
        raise ValueError("deal gives both 'first' and 'dealer': give one")
    tally = PackTally(make_pack(options.sets, options.sets * options.jokers_per_set))
    board = [-1] * NSQ
    for entry in check_list("deal 'board' (of '<square> <tile>' entries)", deal.get("board", [])):
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
        tally.count(f"board {entry!r}", [JOKER if piece >= NUM_CARDS else piece])
    group, group_start = board_groups(board, LAYOUTS[options.board_layout], options.descending_runs)
    racks = [[0] * (NUM_CARDS + 1) for _ in range(n)]
    for s, hand in enumerate(check_list("deal 'hands' (one rack per seat)", deal.get("hands"), n)):
        if isinstance(hand, str):
            hand = hand.split()
        hand = check_list(f"deal 'hands': the rack of seat {s} (tile texts)", hand, longest=RACK_SIZE)
        for t in tally.take(f"hand {s}", hand):
            racks[s][t] += 1
    if "stock" in deal:
        box = tally.take("stock", deal["stock"], allow_string=True)
    else:
        box = tally.unlisted()
        rng.shuffle(box)
    if box:
        for s in range(n):
            if sum(racks[s]) != RACK_SIZE:
                raise ValueError(f"rack of seat {s} holds {sum(racks[s])} tiles: "
                                 f"exactly {RACK_SIZE} while the box is not empty (GO-12)")
    scores = int_list("deal 'scores'", deal["scores"], n) if "scores" in deal else None
    if "first" in deal or "dealer" in deal:
        key = "first" if "first" in deal else "dealer"
        seat = check_int(f"deal {key!r}", deal[key], 0, n - 1, what="a seat")
        first = seat if key == "first" else (seat + 1) % n
    else:
        first = int(rng.integers(n))
    return Deal(board, group, group_start, racks, box, scores, first)
