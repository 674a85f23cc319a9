"""Ginny-O: rummy melds played crossword-style on a 15x15 board (``docs/rules/ginny_o.md``).

The engine is plain Python (no PettingZoo). State: the board (225 squares, each ``-1`` or a
piece: a card id ``c`` or a joker declared as ``c``, encoded ``52 + c``, see ``melds``), the
group of every board tile (GO-25), racks as count lists of length 53 (index 52 = jokers), the
box (a list, top first), scores, and the turn's phase (GO-40..GO-42).

Legal plays (GO-20..GO-27) are enumerated once when a play phase opens, from the rack and the
board's lines: every span of a row or column whose empty squares would all be filled, matched
against the melds that fit its board tiles (or, for an all-empty span, the melds the rack can
form), each placed tile's cross line checked through a per-square card mask cached until the
board changes. Plays are tuples of ``(square, piece)`` in reading order, so the placement mask
of GO-43 is the set of next steps of the plays that begin with the placements made so far.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from ..actions import action_text_error, check_action_id, parse_index, split_words
from ..cards import CARD_TEXT, JOKER, NUM_CARDS, RANK_OF, SUIT_OF, parse_card
from ..layout import ObservationLayout
from ..melds import SET, line_meld, parse_piece, piece_text
from ..rng import copy_rng, fresh_rng

# --------------------------------------------------------------------------------------------
# Board geometry and premium squares (GO-1, GO-2, GO-3)
SIZE = 15
NSQ = SIZE * SIZE
CENTRE = 7 * SIZE + 7  # H8
COLS = "ABCDEFGHIJKLMNO"
SQUARE_TEXT = tuple(COLS[q % SIZE] + str(q // SIZE + 1) for q in range(NSQ))
ALL_CARDS = (1 << NUM_CARDS) - 1

_STANDARD = """
B..Y...B...Y..B
.....G...G.....
......Y.Y......
Y..R...Y...R..Y
...............
.G...G...G...G.
..Y...Y.Y...Y..
B..Y...C...Y..B
..Y...Y.Y...Y..
.G...G...G...G.
...............
Y..R...Y...R..Y
......Y.Y......
.....G...G.....
B..Y...B...Y..B
""".split()

LAYOUTS: dict[str, tuple[str, ...]] = {
    "standard": tuple("".join(_STANDARD)),
    "bare": tuple("C" if q == CENTRE else ("R" if "".join(_STANDARD)[q] == "R" else ".") for q in range(NSQ)),
}
RED_SQUARES = {name: tuple(q for q in range(NSQ) if lay[q] == "R") for name, lay in LAYOUTS.items()}
TILE_MULT_OF = {"Y": 2, "G": 3}
MELD_MULT_OF = {"R": 2, "B": 3}

# --------------------------------------------------------------------------------------------
# Action layout (23,509 ids)
DRAW, PASS, COMMIT = 0, 1, 2
RETURN0 = 3
EXCHANGE0 = 56
PLACE0 = 109
NUM_ACTIONS = PLACE0 + NSQ * 2 * NUM_CARDS  # 23509
PHASES = ("start", "exchange", "play")


def place_action(sq: int, piece: int) -> int:
    """Action id of ``place <piece> at <sq>`` (a joker piece is ``52 + c``)."""
    return PLACE0 + NSQ * piece + sq


def _tile_text(t: int) -> str:
    return CARD_TEXT[t]


ACTION_TEXT: tuple[str, ...] = tuple(
    ["draw", "pass", "commit"]
    + [f"return {_tile_text(t)}" for t in range(53)]
    + [f"exchange {_tile_text(t)}" for t in range(53)]
    + [f"place {piece_text(p)} at {SQUARE_TEXT[q]}" for p in range(2 * NUM_CARDS) for q in range(NSQ)]
)

VALUE = tuple(0 if RANK_OF[c] == 1 else min(RANK_OF[c], 10) for c in range(NUM_CARDS))
"""Tile value (GO-6) except aces, which are 1 in a run and 15 in a set."""
RACK_VALUE = tuple(15 if RANK_OF[c] == 1 else min(RANK_OF[c], 10) for c in range(NUM_CARDS)) + (0,)
"""End-of-game rack penalty per tile (GO-37): ace 15, joker 0."""


def square_of(text: str) -> int:
    """Square index from ``H8`` (any case); ``ValueError`` otherwise."""
    t = text.strip().upper()
    if len(t) < 2 or t[0] not in COLS:
        raise ValueError(f"bad square {text!r}: expected a column A-O and a row 1-15, e.g. 'H8'")
    try:
        row = parse_index(t[1:], "the row", 1, SIZE)
    except ValueError as err:
        raise ValueError(f"bad square {text!r}: {err}") from None
    return (row - 1) * SIZE + COLS.index(t[0])


def _neighbour_ranks(r: int) -> tuple[int, ...]:
    """Ranks that can sit next to rank ``r`` in a run (aces low or high, GO-5)."""
    if r == 1:
        return (2, 13)
    if r == 13:
        return (12, 1)
    return (r - 1, r + 1)


def _card(rank: int, suit: int) -> int:
    return 13 * suit + rank - 1


def _pos_card(pos: int, suit: int) -> int:
    return 13 * suit + (0 if pos == 14 else pos - 1)


def read_line(board, q: int, d: int, extra: dict | None = None) -> tuple[list[int], list[int]]:
    """Squares and pieces of the maximal line through ``q`` in direction ``d`` (0 row, 1 column),
    with ``extra`` (square -> piece) counted as occupied."""
    step = 1 if d == 0 else SIZE
    def occ(s):
        return board[s] >= 0 or (extra is not None and s in extra)
    def at(s):
        return board[s] if board[s] >= 0 else extra[s]
    if d == 0:
        lo_lim, hi_lim = q - q % SIZE, q - q % SIZE + SIZE - 1
    else:
        lo_lim, hi_lim = q % SIZE, q % SIZE + SIZE * (SIZE - 1)
    a = q
    while a - step >= lo_lim and occ(a - step):
        a -= step
    b = q
    while b + step <= hi_lim and occ(b + step):
        b += step
    squares = list(range(a, b + 1, step))
    return squares, [at(s) for s in squares]


def score_play(board, placements, layout: str = "standard", descending: bool = True) -> int:
    """Score of a legal play (GO-29..GO-33): ``board`` is 225 pieces (-1 empty) before the play,
    ``placements`` a sequence of ``(square, piece)``. Only placed tiles score; each line that
    holds a placed tile adds (sum of value x tile multiplier) x product of meld multipliers."""
    prem = LAYOUTS[layout]
    extra = dict(placements)
    squares = sorted(extra)
    if len(squares) == 1:
        starts = [(squares[0], 0), (squares[0], 1)]
    else:
        d = 0 if squares[0] // SIZE == squares[-1] // SIZE else 1
        starts = [(squares[0], d)] + [(q, 1 - d) for q in squares]
    total = 0
    for q, d in starts:
        sqs, pieces = read_line(board, q, d, extra)
        if len(sqs) < 2:
            continue
        kind = line_meld(pieces, descending)
        line_sum = 0
        mult = 1
        for s, p in zip(sqs, pieces):
            if s not in extra:
                continue
            sq_type = prem[s]
            if p < NUM_CARDS:
                v = (15 if kind == SET else 1) if RANK_OF[p] == 1 else VALUE[p]
                line_sum += v * TILE_MULT_OF.get(sq_type, 1)
            mult *= MELD_MULT_OF.get(sq_type, 1)
        total += line_sum * mult
    return total


LINE_SQUARES = tuple(
    tuple(tuple(li * SIZE + i for i in range(SIZE)) if d == 0 else tuple(i * SIZE + li for i in range(SIZE))
          for li in range(SIZE))
    for d in (0, 1))
"""``LINE_SQUARES[d][li]``: the 15 squares of row ``li`` (d=0) or column ``li`` (d=1), in reading order."""
NEIGHBOURS = tuple(
    tuple(s for s, ok in ((q - SIZE, q >= SIZE), (q + SIZE, q < NSQ - SIZE),
                          (q - 1, q % SIZE > 0), (q + 1, q % SIZE < SIZE - 1)) if ok)
    for q in range(NSQ))
PERP_NEIGHBOURS = tuple(
    tuple(tuple(s for s in NEIGHBOURS[q] if (abs(s - q) == SIZE) == (d == 0)) for q in range(NSQ))
    for d in (0, 1))
"""``PERP_NEIGHBOURS[d][q]``: neighbours of ``q`` across a line of direction ``d``."""


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
        def is_int(v):
            return isinstance(v, (int, np.integer)) and not isinstance(v, bool)
        if not is_int(self.num_players) or not 2 <= self.num_players <= 4:
            raise ValueError(f"num_players must be 2-4, got {self.num_players!r}")
        if self.num_sets is not None and (not is_int(self.num_sets) or self.num_sets not in (1, 2)):
            raise ValueError(f"num_sets must be None, 1 or 2, got {self.num_sets!r}")
        if not is_int(self.jokers_per_set) or not 0 <= self.jokers_per_set <= 4:
            raise ValueError(f"jokers_per_set must be 0-4, got {self.jokers_per_set!r}")
        if self.board_layout not in LAYOUTS:
            raise ValueError(f"board_layout must be one of {sorted(LAYOUTS)}, got {self.board_layout!r}")
        for name in ("descending_runs", "reshuffle_on_return"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be a bool, got {getattr(self, name)!r}")
        if not is_int(self.stall_rounds) or self.stall_rounds < 1:
            raise ValueError(f"stall_rounds must be an int >= 1, got {self.stall_rounds!r}")
        if not is_int(self.max_turns) or self.max_turns < 0:
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


def _bits(m: int):
    while m:
        low = m & -m
        yield low.bit_length() - 1
        m ^= low


# ---- observation layout (documented part by part in ginny_o_v0) -------------------------------
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


def observation_layout(options: "Options") -> ObservationLayout:
    """The observation's named parts for ``options.num_players``."""
    return OBSERVATION_LAYOUTS[options.num_players]


def obs_size(num_players: int) -> int:
    return OBSERVATION_LAYOUTS[num_players].size


_FIXED = ObservationLayout(BOARD_PARTS + TILE_PARTS)
OBS_BOARD_SIZE = _FIXED.start("rack")
BOARD_PLANES = OBS_BOARD_SIZE // NSQ
"""Planes of the board block of the observation, see ``GinnyOGame.observation``."""
OBS_BOARD_SHAPE = (BOARD_PLANES, SIZE, SIZE)
P_OCCUPIED, P_RANK, P_SUITS, P_JOKER, P_PREMIUM, P_GROUPS, P_PLACED, P_OPEN_START = (
    _FIXED.start(name) // NSQ for name, *_ in BOARD_PARTS)
O_CHOSEN, O_DRAWN, O_UNSEEN, O_PHASE, O_DREW, O_BOX_EMPTY = (
    _FIXED.start(name) - OBS_BOARD_SIZE for name, *_ in TILE_PARTS[1:])
"""Offsets after the board block."""
_SEAT_PART_STARTS = {n: tuple(layout.start(name) for name in ("scores", "rack_sizes", "to_play", "progress"))
                     for n, layout in OBSERVATION_LAYOUTS.items()}


_PLAYS_CACHE: dict = {}
"""(layout, descending_runs, board, rack counts) -> every legal play; see ``_enumerate_plays``."""
_PLAYS_CACHE_SIZE = 16
_PREMIUM_ROWS: dict = {}
"""layout -> the 15 premium rows of ``GinnyOGame.view``."""
_SEQ_CACHE: dict = {}
"""(cards held as a mask, jokers, descending_runs) -> {length: ``_rack_sequences`` result}."""
_CROSS_CACHE: dict = {}
"""(descending_runs, board) -> the ``GinnyOGame._cross`` masks of that board."""


class _PlayFound(Exception):
    pass


class _FirstPlay(list):
    """A play list that stops the search at its first play (``GinnyOGame.has_play``)."""

    def append(self, play) -> None:
        raise _PlayFound


class GinnyOGame:
    """One Ginny-O episode (the ``Game`` protocol of ``rummy_env.base``)."""

    num_actions = NUM_ACTIONS

    # ---------------------------------------------------------------- construction
    def __init__(self, options: Options):
        self.options = options
        self.num_players = options.num_players
        self.premium = LAYOUTS[options.board_layout]
        self.rng = np.random.default_rng(0)
        self.board = [-1] * NSQ
        self.group = [-1] * NSQ
        self.group_start: list[int] = []
        self.racks = [[0] * 53 for _ in range(self.num_players)]
        self.box: list[int] = []
        self.scores = [0] * self.num_players
        self.final_scores: list[int] | None = None
        self.current_player = 0
        self.phase = "start"
        self.drew = -1            # tile drawn this turn (-1: none)
        self.box_empty_start = False
        self.placed: list[tuple[int, int]] = []
        self.chosen: list[int] = []
        self.stall = 0
        self.turns = 0
        self.done = False
        self.truncated = False
        self.events: list[str] = []
        self.history: list[str] = []
        self._reset_caches()

    def _reset_caches(self):
        self._mask = None
        self._plays = None
        self._xcache: dict[int, int] = {}
        self._obs_cache: dict[int, np.ndarray] = {}
        self._board_block = None
        self._view_static = None

    @classmethod
    def new(cls, options: Options, rng: np.random.Generator, deal: dict | None = None) -> "GinnyOGame":
        g = cls(options)
        g.rng = np.random.default_rng(int(rng.integers(2 ** 63)))
        n = g.num_players
        if deal is None:
            tiles = [t for t in range(53) for _ in range(options.tile_limits()[t])]
            rng.shuffle(tiles)
            for s in range(n):
                for t in tiles[7 * s:7 * s + 7]:
                    g.racks[s][t] += 1
            g.box = tiles[7 * n:]
            g.current_player = int(rng.integers(n))
        else:
            g._apply_deal(deal, rng)
        g._start_turn()
        return g

    def _apply_deal(self, deal: dict, rng: np.random.Generator) -> None:
        """Scenario set-up (ginny_o.md "Scenario set-up"); ``ValueError`` naming any problem."""
        if not isinstance(deal, dict):
            raise ValueError(f"deal must be a dict, got {type(deal).__name__}")
        known = {"hands", "stock", "board", "scores", "first", "dealer", "discard"}
        unknown = set(deal) - known
        if unknown:
            raise ValueError(f"unknown deal key(s) {sorted(unknown)}: expected {sorted(known)}")
        n = self.num_players
        if "discard" in deal and (not isinstance(deal["discard"], (list, tuple)) or deal["discard"]):
            raise ValueError(f"deal 'discard' must be absent or empty: Ginny-O has no discard pile, "
                             f"got {deal['discard']!r}")
        if "first" in deal and "dealer" in deal:
            raise ValueError("deal gives both 'first' and 'dealer': give one")
        limits = self.options.tile_limits()
        used = [0] * 53

        def use(t, where):
            used[t] += 1
            if used[t] > limits[t]:
                raise ValueError(f"tile {CARD_TEXT[t]} used more often than the sets hold "
                                 f"({limits[t]}), at {where}")

        def tile(text, where):
            try:
                return parse_card(text, allow_joker=True)
            except ValueError:
                raise ValueError(f"bad tile {text!r} in {where}") from None

        board = deal.get("board", [])
        if not isinstance(board, (list, tuple)):
            raise ValueError(f"deal 'board' must be a list of '<square> <tile>' entries, got {board!r}")
        for entry in board:
            if not isinstance(entry, str) or len(entry.split()) != 2:
                raise ValueError(f"bad board entry {entry!r}: expected '<square> <tile>', e.g. 'H8 JK=6H'")
            sq_text, piece_t = entry.split()
            q = square_of(sq_text)
            try:
                piece = parse_piece(piece_t)
            except ValueError:
                raise ValueError(f"bad tile {piece_t!r} in board entry {entry!r} (a joker is 'JK=<card>')") from None
            if self.board[q] >= 0:
                raise ValueError(f"two tiles on square {SQUARE_TEXT[q]}")
            self.board[q] = piece
            use(JOKER if piece >= NUM_CARDS else piece, f"board {entry!r}")
        self._check_board()
        hands = deal.get("hands")
        if hands is None:
            raise ValueError("deal needs 'hands': one list of tile texts per seat")
        if not isinstance(hands, (list, tuple)) or len(hands) != n:
            raise ValueError(f"deal 'hands' must hold {n} racks, one per seat")
        for s, hand in enumerate(hands):
            hand = _tile_texts(hand, f"'hands' of seat {s}")
            if len(hand) > 7:
                raise ValueError(f"rack of seat {s} holds {len(hand)} tiles: at most 7")
            for text in hand:
                t = tile(text, f"hand {s}")
                use(t, f"hand {s}")
                self.racks[s][t] += 1
        if "stock" in deal:
            for text in _tile_texts(deal["stock"], "'stock'"):
                t = tile(text, "stock")
                use(t, "stock")
                self.box.append(t)
        else:
            rest = [t for t in range(53) for _ in range(limits[t] - used[t])]
            rng.shuffle(rest)
            self.box = rest
        if self.box:
            for s in range(n):
                if sum(self.racks[s]) != 7:
                    raise ValueError(f"rack of seat {s} holds {sum(self.racks[s])} tiles: "
                                     "exactly 7 while the box is not empty (GO-12)")
        if "scores" in deal:
            scores = deal["scores"]
            if not isinstance(scores, (list, tuple)) or len(scores) != n or not all(
                    isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in scores):
                raise ValueError(f"deal 'scores' must be {n} ints, got {scores!r}")
            self.scores = [int(x) for x in scores]
        if "first" in deal or "dealer" in deal:
            key = "first" if "first" in deal else "dealer"
            seat = deal[key]
            if not isinstance(seat, (int, np.integer)) or isinstance(seat, bool) or not 0 <= seat < n:
                raise ValueError(f"bad seat {seat!r} for deal {key!r}: expected 0..{n - 1}")
            self.current_player = int(seat) if key == "first" else (int(seat) + 1) % n
        else:
            self.current_player = int(rng.integers(n))

    def _check_board(self) -> None:
        """Deal board: every line a meld, H8 covered, each group on a red square; assigns groups."""
        board = self.board
        if not any(p >= 0 for p in board):
            return
        for d in (0, 1):
            for line in LINE_SQUARES[d]:
                i = 0
                while i < SIZE:
                    if board[line[i]] < 0:
                        i += 1
                        continue
                    j = i
                    while j + 1 < SIZE and board[line[j + 1]] >= 0:
                        j += 1
                    if j > i:
                        pieces = [board[line[t]] for t in range(i, j + 1)]
                        if line_meld(pieces, self.options.descending_runs) is None:
                            raise ValueError("board line " + " ".join(
                                f"{SQUARE_TEXT[line[t]]} {piece_text(board[line[t]])}" for t in range(i, j + 1))
                                + " is not a meld")
                    i = j + 1
        if board[CENTRE] < 0:
            raise ValueError("a non-empty board must cover H8 (GO-22)")
        order = [CENTRE] + [q for q in range(NSQ) if q != CENTRE]
        for q in order:
            if board[q] < 0 or self.group[q] >= 0:
                continue
            gid = len(self.group_start)
            stack = [q]
            self.group[q] = gid
            members = []
            while stack:
                s = stack.pop()
                members.append(s)
                for t in NEIGHBOURS[s]:
                    if board[t] >= 0 and self.group[t] < 0:
                        self.group[t] = gid
                        stack.append(t)
            reds = sorted(s for s in members if self.premium[s] in "RC")
            if not reds:
                raise ValueError(f"the group at {SQUARE_TEXT[min(members)]} covers no red square (GO-23)")
            self.group_start.append(CENTRE if CENTRE in reds else reds[0])

    # ---------------------------------------------------------------- turn flow
    def _start_turn(self) -> None:
        self.placed = []
        self._board_block = None
        self.chosen = []
        self.drew = -1
        self.box_empty_start = not self.box
        self.phase = "play" if self.box_empty_start else "start"
        self._mask = None
        self._plays = None
        self._obs_cache = {}

    def _end_turn(self, played: bool) -> np.ndarray | None:
        n = self.num_players
        self.stall = 0 if played else self.stall + 1
        self.turns += 1
        end = False
        if not self.box:
            if self.stall >= n or not any(sum(r) for r in self.racks):
                end = True
        elif self.stall >= self.options.stall_rounds * n:
            end = True
        if not end and self.options.max_turns and self.turns >= self.options.max_turns:
            self.truncated = True
            end = True
        if end:
            return self._finish()
        self.current_player = (self.current_player + 1) % n
        self._start_turn()
        return None

    def _finish(self) -> np.ndarray:
        """GO-37/GO-38 and Rewards: subtract racks, rank or score_diff rewards."""
        n = self.num_players
        self.done = True
        self.phase = "over"
        self.final_scores = [self.scores[s] - sum(RACK_VALUE[t] * k for t, k in enumerate(self.racks[s]))
                             for s in range(n)]
        self.events.append("game over: final scores " + " ".join(str(x) for x in self.final_scores))
        self.events = self.events[-20:]
        f = self.final_scores
        if self.options.reward_mode == "rank":
            r = np.zeros(n, dtype=np.float32)
            for s in range(n):
                better = sum(1 for t in range(n) if f[t] > f[s])
                equal = sum(1 for t in range(n) if f[t] == f[s])
                # places better+1 .. better+equal shared: average of 1 - 2(p-1)/(n-1)
                avg_p = better + (equal + 1) / 2
                r[s] = 1 - 2 * (avg_p - 1) / (n - 1)
        else:
            total = sum(f)
            r = np.array([f[s] - (total - f[s]) / (n - 1) for s in range(n)], dtype=np.float32)
        self._mask = None
        self._obs_cache = {}
        return r

    def _event(self, text: str) -> None:
        self.events.append(f"player_{self.current_player} {text}")
        if len(self.events) > 20:
            del self.events[0]

    def _to_box(self, tiles: list[int]) -> None:
        self.box.extend(tiles)
        if self.options.reshuffle_on_return:
            self.rng.shuffle(self.box)

    # ---------------------------------------------------------------- legality
    def _cross(self, q: int, d: int) -> int:
        """52-bit mask of cards that may stand on empty ``q`` as far as its ``d``-line goes
        (every card when ``q`` has no neighbour along ``d``). Cached until the board changes."""
        key = 2 * q + d
        m = self._xcache.get(key)
        if m is not None:
            return m
        board = self.board
        if d == 0:
            has = (q % SIZE > 0 and board[q - 1] >= 0) or (q % SIZE < SIZE - 1 and board[q + 1] >= 0)
        else:
            has = (q >= SIZE and board[q - SIZE] >= 0) or (q < NSQ - SIZE and board[q + SIZE] >= 0)
        if not has:
            m = ALL_CARDS
        else:
            squares, pieces = read_line(board, q, d, {q: 0})
            idx = squares.index(q)
            nb = pieces[idx - 1] if idx > 0 else pieces[idx + 1]
            nc = nb % NUM_CARDS
            r, s = RANK_OF[nc], SUIT_OF[nc]
            cands = {_card(r, t) for t in range(4)} | {_card(x, s) for x in _neighbour_ranks(r)}
            m = 0
            desc = self.options.descending_runs
            for c in cands:
                pieces[idx] = c
                if line_meld(pieces, desc) is not None:
                    m |= 1 << c
        self._xcache[key] = m
        return m

    def _rack_sequences(self, cnt, jokers: int, length: int, memo: dict) -> list[tuple[int, ...]]:
        """Ordered card sequences of ``length`` that form a line meld and that the rack can
        supply (naturals in ``cnt``, the rest jokers)."""
        got = memo.get(length)
        if got is not None:
            return got
        out = []
        suits = range(4) if jokers else sorted({SUIT_OF[c] for c in range(NUM_CARDS) if cnt[c]})
        for s in suits:
            for start in range(1, 16 - length):
                seq = tuple(_pos_card(p, s) for p in range(start, start + length))
                missing = sum(1 for c in seq if not cnt[c])
                if missing <= jokers:
                    out.append(seq)
                    if self.options.descending_runs:
                        out.append(seq[::-1])
        if length <= 4:
            for r in range(1, 14):
                have = [t for t in range(4) if cnt[_card(r, t)]]
                if len(have) + jokers < length:
                    continue
                for perm in itertools.permutations(range(4), length):
                    missing = sum(1 for t in perm if not cnt[_card(r, t)])
                    if missing <= jokers:
                        out.append(tuple(_card(r, t) for t in perm))
        memo[length] = out
        return out

    def _enumerate_plays(self, cnt: list[int]) -> list[tuple[tuple[int, int], ...]]:
        """Every legal play (GO-20..GO-27) from rack counts ``cnt`` on the current board.

        The result is a function of the layout, ``descending_runs``, the board and ``cnt``
        only (groups are the board's connected tile groups), so the last few results are kept
        in a small module-level cache shared by every game: an agent that rebuilds the public
        board in a scratch game (``agents/heuristic_ginny_o.py``) gets the enumeration the
        environment has just made for its mask instead of repeating it."""
        board = tuple(self.board)
        key = (self.options.board_layout, self.options.descending_runs, board, tuple(cnt))
        got = _PLAYS_CACHE.get(key)
        if got is None:
            self._share_cross(board)
            got = tuple(self._search_plays(cnt, []))
            if len(_PLAYS_CACHE) >= _PLAYS_CACHE_SIZE:
                del _PLAYS_CACHE[next(iter(_PLAYS_CACHE))]
            _PLAYS_CACHE[key] = got
        return list(got)

    def has_play(self, cnt: list[int]) -> bool:
        """Whether rack counts ``cnt`` have any legal play on the current board: the search of
        :meth:`_enumerate_plays`, stopped at the first play found."""
        board = tuple(self.board)
        got = _PLAYS_CACHE.get((self.options.board_layout, self.options.descending_runs, board, tuple(cnt)))
        if got is not None:
            return bool(got)
        self._share_cross(board)
        try:
            self._search_plays(cnt, _FirstPlay())
        except _PlayFound:
            return True
        return False

    def _share_cross(self, board: tuple) -> None:
        """Use the ``_cross`` masks of every game with this board and ``descending_runs`` (they
        depend on nothing else), so a scratch game and the environment compute them once."""
        key = (self.options.descending_runs, board)
        xc = _CROSS_CACHE.get(key)
        if xc is None:
            if len(_CROSS_CACHE) >= _PLAYS_CACHE_SIZE:
                del _CROSS_CACHE[next(iter(_CROSS_CACHE))]
            xc = _CROSS_CACHE[key] = self._xcache if self._xcache else {}
        self._xcache = xc

    def _search_plays(self, cnt: list[int], plays: list) -> list[tuple[tuple[int, int], ...]]:
        """The exact search behind :meth:`_enumerate_plays`, appending to ``plays``."""
        board = self.board
        group = self.group
        jokers = cnt[JOKER]
        total = sum(cnt)
        if total == 0:
            return plays
        avail = ALL_CARDS
        if not jokers:
            avail = 0
            for c in range(NUM_CARDS):
                if cnt[c]:
                    avail |= 1 << c
        empty_board = board[CENTRE] < 0
        premium = self.premium
        cross = self._cross

        def assign(empties):
            """All tile assignments (natural or joker) for the needed (square, card) list."""
            opts = []
            forced = 0
            for q, c in empties:
                if cnt[c]:
                    opts.append(((q, c), (q, c + NUM_CARDS)) if jokers else ((q, c),))
                else:
                    forced += 1
                    opts.append(((q, c + NUM_CARDS),))
            if forced > jokers:
                return
            if not jokers:
                plays.append(tuple(o[0] for o in opts))
                return
            for combo in itertools.product(*opts):
                if sum(1 for _, p in combo if p >= NUM_CARDS) <= jokers:
                    plays.append(combo)

        # one-tile plays: next to the board, both lines valid, one group touched
        if not empty_board:
            seen = set()
            for q0 in range(NSQ):
                if board[q0] < 0:
                    continue
                for q in NEIGHBOURS[q0]:
                    if board[q] >= 0 or q in seen:
                        continue
                    seen.add(q)
                    gs = {group[t] for t in NEIGHBOURS[q] if board[t] >= 0}
                    if len(gs) > 1:
                        continue
                    m = cross(q, 0) & cross(q, 1) & avail
                    for c in _bits(m):
                        if cnt[c]:
                            plays.append(((q, c),))
                        if jokers:
                            plays.append(((q, c + NUM_CARDS),))
        if total < 2:
            return plays
        desc = self.options.descending_runs
        steps = (1, -1) if desc else (1,)
        have = 0
        for c in range(NUM_CARDS):
            if cnt[c]:
                have |= 1 << c
        seq_key = (have, jokers, desc)
        memo = _SEQ_CACHE.get(seq_key)
        if memo is None:   # _rack_sequences depends on these only
            if len(_SEQ_CACHE) >= 256:
                del _SEQ_CACHE[next(iter(_SEQ_CACHE))]
            memo = _SEQ_CACHE[seq_key] = {}
        for d in (0, 1):
            perp = 1 - d
            for line in LINE_SQUARES[d]:
                occ = [board[q] >= 0 for q in line]
                allowed = [0] * SIZE
                touch = [None] * SIZE
                red = [False] * SIZE
                live = any(occ)
                for i, q in enumerate(line):
                    if occ[i]:
                        continue
                    allowed[i] = cross(q, perp) & avail
                    gs = [group[t] for t in PERP_NEIGHBOURS[d][q] if board[t] >= 0]
                    if gs:
                        touch[i] = gs
                        live = True
                    if (q == CENTRE) if empty_board else premium[q] == "R":
                        red[i] = True
                        live = True
                if not live:
                    continue
                for a in range(SIZE):
                    if a and occ[a - 1]:
                        continue
                    k = 0
                    groups = set()
                    has_red = False
                    for b in range(a, min(a + 13, SIZE)):
                        if occ[b]:
                            groups.add(group[line[b]])
                        else:
                            if not allowed[b]:
                                break
                            k += 1
                            if k > total:
                                break
                            if touch[b]:
                                groups.update(touch[b])
                            if red[b]:
                                has_red = True
                        if len(groups) > 1:
                            break
                        if b - a < 2 or k < 2 or (b < SIZE - 1 and occ[b + 1]):
                            continue
                        if not groups and not has_red:
                            continue
                        self._span_plays(line, a, b, occ, allowed, cnt, jokers, steps, memo, assign)
        return plays

    def _span_plays(self, line, a, b, occ, allowed, cnt, jokers, steps, memo, assign) -> None:
        """Plays filling every empty square of ``line[a..b]`` so that it reads as a meld."""
        board = self.board
        length = b - a + 1
        j = next((i for i in range(a, b + 1) if occ[i]), -1)
        if j < 0:
            for seq in self._rack_sequences(cnt, jokers, length, memo):
                empties = []
                for i, c in enumerate(seq):
                    if not (allowed[a + i] >> c) & 1:
                        break
                    empties.append((line[a + i], c))
                else:
                    assign(empties)
            return
        c0 = board[line[j]] % NUM_CARDS
        r0, s0 = RANK_OF[c0], SUIT_OF[c0]
        jj = j - a
        for step in steps:
            for p in ((1, 14) if r0 == 1 else (r0,)):
                start = p - step * jj
                end = start + step * (length - 1)
                if min(start, end) < 1 or max(start, end) > 14:
                    continue
                empties = []
                for i in range(length):
                    c = _pos_card(start + step * i, s0)
                    if occ[a + i]:
                        if board[line[a + i]] % NUM_CARDS != c:
                            break
                    elif (allowed[a + i] >> c) & 1:
                        empties.append((line[a + i], c))
                    else:
                        break
                else:
                    assign(empties)
        if length <= 4:
            suits = 0
            free_idx = []
            for i in range(a, b + 1):
                if occ[i]:
                    c = board[line[i]] % NUM_CARDS
                    if RANK_OF[c] != r0 or suits >> SUIT_OF[c] & 1:
                        return
                    suits |= 1 << SUIT_OF[c]
                else:
                    free_idx.append(i)
            free_suits = [t for t in range(4) if not suits >> t & 1]
            for perm in itertools.permutations(free_suits, len(free_idx)):
                empties = []
                for i, t in zip(free_idx, perm):
                    c = _card(r0, t)
                    if not (allowed[i] >> c) & 1:
                        break
                    empties.append((line[i], c))
                else:
                    assign(empties)

    def legal_plays(self) -> list[tuple[tuple[int, int], ...]]:
        """Legal plays that begin with this turn's placements (GO-43); play phase only.
        Each is a tuple of ``(square, piece)`` in reading order. Cached until the next step."""
        if self._plays is None:
            if self.phase != "play" or self.done:
                return []
            cnt = list(self.racks[self.current_player])
            for _, p in self.placed:
                cnt[JOKER if p >= NUM_CARDS else p] += 1
            every = self._enumerate_plays(cnt)
            m = len(self.placed)
            if m:
                pref = tuple(self.placed)
                every = [p for p in every if p[:m] == pref]
            self._plays = every
        return self._plays

    def legal_mask(self) -> np.ndarray:
        """int8 mask over the 23,509 actions (GO-40..GO-44), cached until the next step."""
        if self._mask is not None:
            return self._mask
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        if self.done:
            self._mask = mask
            return mask
        rack = self.racks[self.current_player]
        if self.phase == "start":
            mask[DRAW] = 1
            for t in range(53):
                if rack[t]:
                    mask[EXCHANGE0 + t] = 1
        elif self.phase == "exchange":
            mask[COMMIT] = 1
            left = list(rack)
            for t in self.chosen:
                left[t] -= 1
            for t in range(53):
                if left[t] > 0:
                    mask[EXCHANGE0 + t] = 1
        else:
            m = len(self.placed)
            ids = []
            for play in self.legal_plays():
                if len(play) == m:
                    mask[COMMIT] = 1
                else:
                    q, p = play[m]
                    ids.append(PLACE0 + NSQ * p + q)
            if ids:
                mask[ids] = 1
            if not m:
                if self.drew >= 0:
                    for t in range(53):
                        if rack[t]:
                            mask[RETURN0 + t] = 1
                if self.box_empty_start:
                    mask[PASS] = 1
        self._mask = mask
        return mask

    def illegal_reason(self, action: int) -> str:
        """Why ``action`` is not legal now."""
        a = int(action)
        if self.done:
            return "the game is over"
        rack = self.racks[self.current_player]
        ph = self.phase
        if a == DRAW:
            return "draw only at the start of a turn while the box is not empty (GO-10, GO-13)"
        if a == PASS:
            if self.placed:
                return "tiles are placed this turn: commit them (GO-42)"
            return "pass only when the box was empty at the start of the turn (GO-13, GO-42)"
        if a == COMMIT:
            if ph == "start":
                return "nothing to commit at the start of a turn: draw or exchange (GO-40)"
            return "the tiles placed so far do not form a legal play (GO-20..GO-27)" if self.placed \
                else "no tiles placed yet (GO-42)"
        if a < EXCHANGE0:
            t = a - RETURN0
            if ph != "play" or self.drew < 0:
                return "return only after a draw this turn (GO-11)"
            if self.placed:
                return "return only before any placement (GO-42)"
            return f"the rack holds no {CARD_TEXT[t]}"
        if a < PLACE0:
            t = a - EXCHANGE0
            if ph not in ("start", "exchange"):
                return "exchange only instead of drawing, at the start of a turn (GO-34, GO-35)"
            return f"the rack holds no unchosen {CARD_TEXT[t]}"
        if ph != "play":
            return "place only after a draw, or when the box was empty at turn start (GO-42)"
        q = (a - PLACE0) % NSQ
        p = (a - PLACE0) // NSQ
        t = JOKER if p >= NUM_CARDS else p
        if not rack[t]:
            return f"the rack holds no unplaced {CARD_TEXT[t]}"
        if self.board[q] >= 0 or any(s == q for s, _ in self.placed):
            return f"square {SQUARE_TEXT[q]} is taken"
        if self.placed and q <= self.placed[-1][0]:
            return "placements go in reading order (GO-43)"
        return "no legal play (GO-20..GO-27) can be completed with this placement (GO-43)"

    # ---------------------------------------------------------------- stepping
    def step(self, action: int) -> np.ndarray | None:
        """Apply a legal action (the wrapper checks the mask first)."""
        a = int(action)
        seat = self.current_player
        rack = self.racks[seat]
        self._mask = None
        self._obs_cache = {}
        if a == DRAW:
            t = self.box.pop(0)
            rack[t] += 1
            self.drew = t
            self.phase = "play"
            self._plays = None
            self._event("draws a tile")
            return None
        if a == PASS:
            self._event("passes")
            return self._end_turn(False)
        if a == COMMIT:
            if self.phase == "exchange":
                k = len(self.chosen)
                for t in self.chosen:
                    rack[t] -= 1
                self._to_box(self.chosen)
                for _ in range(k):
                    rack[self.box.pop(0)] += 1
                self._event(f"exchanges {k} tile{'s' if k > 1 else ''}")
                return self._end_turn(False)
            return self._commit_play()
        if a < EXCHANGE0:
            t = a - RETURN0
            rack[t] -= 1
            self._to_box([t])
            self._event("returns a tile to the box")
            return self._end_turn(False)
        if a < PLACE0:
            self.phase = "exchange"
            self.chosen.append(a - EXCHANGE0)
            return None
        q = (a - PLACE0) % NSQ
        p = (a - PLACE0) // NSQ
        m = len(self.placed)
        plays = self.legal_plays()
        self._plays = [pl for pl in plays if len(pl) > m and pl[m] == (q, p)]
        self.placed.append((q, p))
        self._board_block = None
        rack[JOKER if p >= NUM_CARDS else p] -= 1
        return None

    def _commit_play(self) -> np.ndarray | None:
        seat = self.current_player
        rack = self.racks[seat]
        placed = self.placed
        pts = score_play(self.board, placed, self.options.board_layout, self.options.descending_runs)
        touched = {self.group[t] for q, _ in placed for t in NEIGHBOURS[q] if self.board[t] >= 0}
        if touched:
            gid = touched.pop()
        else:
            gid = len(self.group_start)
            self.group_start.append(next(q for q, _ in placed if self.premium[q] in "RC"))
        for q, p in placed:
            self.board[q] = p
            self.group[q] = gid
        self._xcache = {}
        self._board_block = None
        self._view_static = None
        self.scores[seat] += pts
        while self.box and sum(rack) < 7:
            rack[self.box.pop(0)] += 1
        text = " ".join(f"{piece_text(p)}@{SQUARE_TEXT[q]}" for q, p in placed)
        self._event(f"plays {text} for {pts}")
        self.history.append(f"player_{seat} {text} {pts}")
        return self._end_turn(True)

    # ---------------------------------------------------------------- observation / view
    def observation(self, seat: int) -> np.ndarray:
        """float32 vector (length ``obs_size(n)``), documented in ``rummy_env.ginny_o_v0``."""
        cached = self._obs_cache.get(seat)
        if cached is not None:
            return cached.copy()
        n = self.num_players
        opt = self.options
        obs = np.empty(obs_size(n), dtype=np.float32)
        block, on_board, n_cells = self._board_planes()
        obs[:OBS_BOARD_SIZE] = block
        obs[OBS_BOARD_SIZE:] = 0
        o = OBS_BOARD_SIZE
        rack = self.racks[seat]
        obs[o:o + 53] = rack
        limits = opt.tile_limits()
        acting = seat == self.current_player and not self.done
        if acting:
            for t in self.chosen:
                obs[o + O_CHOSEN + t] += 1
            if self.drew >= 0:
                obs[o + O_DRAWN + self.drew] = 1
        obs[o + O_UNSEEN:o + O_UNSEEN + 53] = [limits[t] - on_board[t] - rack[t] for t in range(53)]
        if not self.done:
            obs[o + O_PHASE + PHASES.index(self.phase)] = 1
        obs[o + O_DREW] = 1.0 if (acting and self.drew >= 0) else 0.0
        obs[o + O_BOX_EMPTY] = 1.0 if self.box_empty_start else 0.0
        o_scores, o_rack_sizes, o_to_play, o = _SEAT_PART_STARTS[n]
        for k in range(n):
            s = (seat + k) % n
            obs[o_scores + k] = (self.final_scores[s] if self.done else self.scores[s]) / 100
            obs[o_rack_sizes + k] = sum(self.racks[s]) / 7
            if not self.done and s == self.current_player:
                obs[o_to_play + k] = 1
        total = opt.num_tiles
        obs[o] = len(self.box) / total
        obs[o + 1] = self.stall / (opt.stall_rounds * n if self.box else n)
        obs[o + 2] = self.turns / opt.max_turns if opt.max_turns else 0.0
        obs[o + 3] = n_cells / total
        self._obs_cache[seat] = obs
        return obs.copy()

    def _board_planes(self):
        """The board block of the observation (planes 0-14, flattened), the tile counts on the
        board (placements included) and the number of tiles; cached until the board changes."""
        if self._board_block is not None:
            return self._board_block
        planes = np.zeros((BOARD_PLANES, NSQ), dtype=np.float32)
        planes[P_PREMIUM:P_GROUPS] = _premium_planes(self.options.board_layout)
        on_board = [0] * 53
        cells = [(q, p) for q, p in enumerate(self.board) if p >= 0] + self.placed
        for q, p in cells:
            c = p % NUM_CARDS
            planes[P_OCCUPIED, q] = 1
            planes[P_RANK, q] = RANK_OF[c] / 13
            planes[P_SUITS + SUIT_OF[c], q] = 1
            if p >= NUM_CARDS:
                planes[P_JOKER, q] = 1
                on_board[JOKER] += 1
            else:
                on_board[c] += 1
            if self.group[q] >= 0:
                planes[P_GROUPS, q] = self.group[q] + 1
        placed_sq = set()
        for q, _ in self.placed:
            planes[P_PLACED, q] = 1
            placed_sq.add(q)
        if self.board[CENTRE] < 0:
            if CENTRE not in placed_sq:
                planes[P_OPEN_START, CENTRE] = 1
        else:
            for q in RED_SQUARES[self.options.board_layout]:
                if self.board[q] < 0 and q not in placed_sq:
                    planes[P_OPEN_START, q] = 1
        self._board_block = (planes.reshape(-1), on_board, len(cells))
        return self._board_block

    def board_texts(self) -> list[list[str]]:
        """15x15 piece texts ('' empty), this turn's placements included."""
        cells = list(self.board)
        for q, p in self.placed:
            cells[q] = p
        return [[piece_text(cells[r * SIZE + c]) if cells[r * SIZE + c] >= 0 else "" for c in range(SIZE)]
                for r in range(SIZE)]

    def board_lines(self) -> list[list[int]]:
        """Squares of every board line (2+ tiles), rows first, in reading order."""
        out = []
        for d in (0, 1):
            for line in LINE_SQUARES[d]:
                run: list[int] = []
                for q in line + (-1,):
                    if q >= 0 and self.board[q] >= 0:
                        run.append(q)
                    else:
                        if len(run) >= 2:
                            out.append(run)
                        run = []
        return out

    def _static_view(self) -> tuple:
        """The parts of the view that change only when a play is committed: the committed
        board's piece texts by row, its lines (melds) and its groups. Cached until then."""
        vs = self._view_static
        if vs is None:
            board = self.board
            rows = tuple(tuple(piece_text(board[r * SIZE + c]) if board[r * SIZE + c] >= 0 else ""
                               for c in range(SIZE)) for r in range(SIZE))
            lines = tuple((tuple(piece_text(board[q]) for q in line), tuple(SQUARE_TEXT[q] for q in line))
                          for line in self.board_lines())
            groups = tuple((SQUARE_TEXT[st], self.group.count(g)) for g, st in enumerate(self.group_start))
            vs = self._view_static = (rows, lines, groups)
        return vs

    def view(self, seat: int) -> dict:
        """Structured view (``rummy_env.base.Game.view``) plus ``board``, ``premium``,
        ``placed``, ``groups`` and turn details. The committed board's texts are cached until
        the next committed play."""
        n = self.num_players
        rack = self.racks[seat]
        hand = [CARD_TEXT[t] for t in range(53) for _ in range(rack[t])]
        acting = seat == self.current_player and not self.done
        if acting:
            legal = [ACTION_TEXT[a] for a in self.legal_mask().view(np.bool_).nonzero()[0].tolist()]
        else:
            legal = []
        rows, lines, groups = self._static_view()
        board = [list(row) for row in rows]
        for q, p in self.placed:
            board[q // SIZE][q % SIZE] = piece_text(p)
        premium = _PREMIUM_ROWS.get(self.options.board_layout)
        if premium is None:
            premium = _PREMIUM_ROWS[self.options.board_layout] = tuple(
                "".join(self.premium[r * SIZE:(r + 1) * SIZE]) for r in range(SIZE))
        return {
            "game": "ginny_o_v0",
            "seat": seat,
            "num_players": n,
            "to_play": -1 if self.done else self.current_player,
            "phase": self.phase,
            "done": self.done,
            "hand": hand,
            "hand_sizes": [sum(r) for r in self.racks],
            "scores": list(self.final_scores if self.done else self.scores),
            "running_scores": list(self.scores),
            "final_scores": list(self.final_scores) if self.done else None,
            "legal_actions": legal,
            "melds": [{"index": i, "owner": None, "cards": list(cards), "squares": list(squares)}
                      for i, (cards, squares) in enumerate(lines)],
            "discard": [],
            "stock_size": len(self.box),
            "events": list(self.events),
            "board": board,
            "premium": list(premium),
            "board_layout": self.options.board_layout,
            "descending_runs": self.options.descending_runs,
            "placed": [f"{SQUARE_TEXT[q]} {piece_text(p)}" for q, p in self.placed],
            "groups": [{"start": start, "size": size} for start, size in groups],
            "exchange_count": len(self.chosen),
            "exchange_chosen": [CARD_TEXT[t] for t in self.chosen] if acting else [],
            "drawn": CARD_TEXT[self.drew] if acting and self.drew >= 0 else None,
            "box_empty_at_turn_start": self.box_empty_start,
            "stall": self.stall,
            "stall_limit": self.options.stall_rounds * self.num_players if self.box else self.num_players,
            "turns": self.turns,
            "history": self.history[-20:],
        }

    def render_text(self, seat: int) -> str:
        """A text board (premium letters in lower case on empty squares) and the seat's rack."""
        cells = self.board_texts()
        lines = ["     " + "".join(f"{c:>5}" for c in COLS)]
        for r in range(SIZE):
            row = []
            for c in range(SIZE):
                t = cells[r][c]
                prem = self.premium[r * SIZE + c]
                row.append(f"{t:>5}" if t else f"{'.' if prem == '.' else prem.lower():>5}")
            lines.append(f"{r + 1:>5}" + "".join(row))
        v = self.view(seat)
        lines.append("scores: " + "  ".join(f"p{s}={x}" for s, x in enumerate(v["scores"]))
                     + f"   box: {len(self.box)}   " + ("game over" if self.done
                                                         else f"to play: player_{self.current_player} ({self.phase})"))
        if self.placed:
            lines.append("placed this turn: " + ", ".join(v["placed"]))
        lines.append(f"player_{seat} rack: " + " ".join(v["hand"]))
        return "\n".join(lines)

    # ---------------------------------------------------------------- text
    def action_to_text(self, action: int) -> str:
        """Canonical text of action id ``action``; ``ValueError`` for anything but an id 0..23508."""
        return ACTION_TEXT[check_action_id(action, NUM_ACTIONS)]

    def text_to_action(self, text: str) -> int:
        return text_to_action(text)

    # ---------------------------------------------------------------- copies
    def clone(self) -> "GinnyOGame":
        """An independent copy in the same state, copied directly. The caches stay shared: the
        mask, plays and observations are replaced, never changed, on a step, and the cross-check
        masks depend only on the board, which a commit replaces them with."""
        g = GinnyOGame.__new__(GinnyOGame)
        g.__dict__.update(self.__dict__)
        g.rng = copy_rng(self.rng)
        for k in ("board", "group", "group_start", "box", "scores", "placed", "chosen", "events", "history"):
            setattr(g, k, list(getattr(self, k)))
        g.racks = [list(r) for r in self.racks]
        g.final_scores = None if self.final_scores is None else list(self.final_scores)
        return g

    def determinize(self, seat: int, rng: np.random.Generator) -> "GinnyOGame":
        """An independent copy in which everything ``seat`` cannot see (GO-7) is dealt again
        uniformly at random: the other racks and the box are shuffled over the same slots
        (rack sizes and the box size kept; tiles placed this turn are public and stay). When
        another seat is to act, the tiles it drew or chose to exchange are private too: they
        become tiles of its new rack (the drawn tile a uniformly random one); once it has placed
        tiles, which it can complete into a legal play (GO-43), deals in which it cannot are
        rejected and drawn again. Not tracked by the
        engine, and so not kept: which of ``seat``'s own returned or exchanged tiles are still in
        the box. The copy's generator is drawn from ``rng``."""
        g = self.clone()
        g.rng = fresh_rng(rng)
        others = [q for q in range(self.num_players) if q != seat]
        pool = list(self.box)
        for q in others:
            rack = self.racks[q]
            for t in range(53):
                if rack[t]:
                    pool += [t] * rack[t]
        acting = self.current_player
        started = acting != seat and bool(self.placed) and not self.done
        while True:
            pool.sort()   # a deal that depends only on what the seat has seen, not on where the cards are
            order = rng.permutation(len(pool)).tolist()
            pos = 0
            for q in others:
                size = sum(self.racks[q])
                tiles = [pool[i] for i in order[pos:pos + size]]
                pos += size
                rack = [0] * 53
                for t in tiles:
                    rack[t] += 1
                g.racks[q] = rack
                if q == acting:
                    g.chosen = tiles[:len(self.chosen)]
                    if self.drew >= 0 and tiles:
                        g.drew = tiles[0]
            g._mask = None
            g._plays = None
            if not started or g.legal_mask().any():
                break
        g.box = [pool[i] for i in order[pos:]]
        g._obs_cache = {}
        return g

    def to_dict(self) -> dict:
        o = self.options
        return {
            "options": {k: getattr(o, k) for k in o.__dataclass_fields__},
            "rng": self.rng.bit_generator.state,
            "board": list(self.board), "group": list(self.group), "group_start": list(self.group_start),
            "racks": [list(r) for r in self.racks], "box": list(self.box), "scores": list(self.scores),
            "final_scores": None if self.final_scores is None else list(self.final_scores),
            "current_player": self.current_player, "phase": self.phase, "drew": self.drew,
            "box_empty_start": self.box_empty_start, "placed": [list(x) for x in self.placed],
            "chosen": list(self.chosen), "stall": self.stall, "turns": self.turns,
            "done": self.done, "truncated": self.truncated,
            "events": list(self.events), "history": list(self.history),
        }

    @classmethod
    def from_dict(cls, d: dict) -> "GinnyOGame":
        g = cls(Options(**d["options"]))
        g.rng.bit_generator.state = d["rng"]
        for k in ("board", "group", "group_start", "box", "scores", "chosen", "events", "history"):
            setattr(g, k, list(d[k]))
        g.racks = [list(r) for r in d["racks"]]
        g.final_scores = None if d["final_scores"] is None else list(d["final_scores"])
        g.placed = [tuple(x) for x in d["placed"]]
        for k in ("current_player", "phase", "drew", "box_empty_start", "stall", "turns", "done", "truncated"):
            setattr(g, k, d[k])
        g._reset_caches()
        return g

    def __getstate__(self):
        return self.to_dict()

    def __setstate__(self, state):
        self.__dict__.update(GinnyOGame.from_dict(state).__dict__)


_PREMIUM_PLANES: dict[str, np.ndarray] = {}


def _premium_planes(layout: str) -> np.ndarray:
    """Planes 7-11 of the observation: yellow, green, red, blue, centre."""
    got = _PREMIUM_PLANES.get(layout)
    if got is None:
        prem = LAYOUTS[layout]
        got = np.array([[1.0 if prem[q] == k else 0.0 for q in range(NSQ)] for k in "YGRBC"], dtype=np.float32)
        _PREMIUM_PLANES[layout] = got
    return got


def _tile_texts(value, where: str) -> list:
    """Tile texts of a deal value: a list of strings, or one string of words."""
    if isinstance(value, str):
        return value.split()
    if not isinstance(value, (list, tuple)) or not all(isinstance(t, str) for t in value):
        raise ValueError(f"deal {where} must be a list of tile texts, got {value!r}")
    return list(value)


def text_to_action(text: str) -> int:
    """Action id of a text (``draw``, ``return 7H``, ``exchange JK``, ``place JK=6H at H8``, ...; grammar
    of ``rummy_env.actions``); ``ValueError`` naming an unknown or malformed text."""
    words = split_words(text)
    w0 = words[0]
    try:
        if len(words) == 1 and w0 in ("draw", "pass", "commit"):
            return ("draw", "pass", "commit").index(w0)
        if len(words) == 2 and w0 in ("return", "exchange"):
            t = parse_card(words[1], allow_joker=True)
            return (RETURN0 if w0 == "return" else EXCHANGE0) + t
        if len(words) == 4 and w0 == "place" and words[2] == "at":
            return place_action(square_of(words[3]), parse_piece(words[1]))
    except ValueError as err:
        raise action_text_error(text, str(err)) from None
    raise action_text_error(text, "expected draw, pass, commit, return <t>, exchange <t> or place <c> at <sq>")
