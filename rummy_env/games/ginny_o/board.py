"""The Ginny-O board: squares, premium layouts, lines, groups and the score of a play (GO-1..GO-3,
GO-15..GO-33).

A board is a list of 225 pieces in reading order (square ``q = 15 * (row - 1) + column``, columns
A-O = 0-14), ``-1`` for an empty square; a piece is a card id ``c`` or a joker declared as ``c``,
``52 + c`` (:mod:`rummy_env.melds`).
"""
from __future__ import annotations

from ...actions import parse_index
from ...cards import NUM_CARDS, POINTS, RANK_OF
from ...melds import SET, line_meld, piece_text

SIZE = 15
NSQ = SIZE * SIZE
CENTRE = 7 * SIZE + 7  # H8
COLS = "ABCDEFGHIJKLMNO"
SQUARE_TEXT = tuple(COLS[q % SIZE] + str(q // SIZE + 1) for q in range(NSQ))

STANDARD_ROWS = """
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
"""Layout ``"standard"`` (GO-2): Y tile x2, G tile x3, R start square and meld x2, B meld x3, C the centre."""

LAYOUTS: dict[str, tuple[str, ...]] = {
    "standard": tuple("".join(STANDARD_ROWS)),
    "bare": tuple("C" if q == CENTRE else ("R" if "".join(STANDARD_ROWS)[q] == "R" else ".") for q in range(NSQ)),
}
"""Premium letter of every square, per ``board_layout`` option (GO-2, GO-3)."""
RED_SQUARES = {name: tuple(q for q in range(NSQ) if layout[q] == "R") for name, layout in LAYOUTS.items()}
TILE_MULT_OF = {"Y": 2, "G": 3}
MELD_MULT_OF = {"R": 2, "B": 3}

LINE_SQUARES = tuple(
    tuple(tuple(line * SIZE + i for i in range(SIZE)) if direction == 0 else tuple(i * SIZE + line for i in range(SIZE))
          for line in range(SIZE))
    for direction in (0, 1))
"""``LINE_SQUARES[d][i]``: the 15 squares of row ``i`` (d=0) or column ``i`` (d=1), in reading order."""
NEIGHBOURS = tuple(
    tuple(s for s, on_board in ((q - SIZE, q >= SIZE), (q + SIZE, q < NSQ - SIZE),
                                (q - 1, q % SIZE > 0), (q + 1, q % SIZE < SIZE - 1)) if on_board)
    for q in range(NSQ))
"""The orthogonal neighbours of each square."""
CROSS_NEIGHBOURS = tuple(
    tuple(tuple(s for s in NEIGHBOURS[q] if (abs(s - q) == SIZE) == (direction == 0)) for q in range(NSQ))
    for direction in (0, 1))
"""``CROSS_NEIGHBOURS[d][q]``: the neighbours of ``q`` across a line of direction ``d``."""


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


def read_line(board, square: int, direction: int, extra: dict | None = None) -> tuple[list[int], list[int]]:
    """Squares and pieces of the maximal line through ``square`` in ``direction`` (0 row, 1 column),
    with ``extra`` (square -> piece) counted as occupied."""
    step = 1 if direction == 0 else SIZE
    extra = extra or {}

    def occupied(s):
        return board[s] >= 0 or s in extra

    if direction == 0:
        first, last = square - square % SIZE, square - square % SIZE + SIZE - 1
    else:
        first, last = square % SIZE, square % SIZE + SIZE * (SIZE - 1)
    low = square
    while low - step >= first and occupied(low - step):
        low -= step
    high = square
    while high + step <= last and occupied(high + step):
        high += step
    squares = list(range(low, high + 1, step))
    return squares, [board[s] if board[s] >= 0 else extra[s] for s in squares]


def score_play(board, placements, layout: str = "standard", descending: bool = True) -> int:
    """Score of a legal play (GO-29..GO-33): ``board`` is 225 pieces (-1 empty) before the play,
    ``placements`` a sequence of ``(square, piece)``. Only placed tiles score; each line that
    holds a placed tile adds (sum of value x tile multiplier) x product of meld multipliers; an
    ace is worth 1 in a run and 15 in a set (GO-6), a joker nothing."""
    premium = LAYOUTS[layout]
    placed = dict(placements)
    squares = sorted(placed)
    if len(squares) == 1:
        lines = [(squares[0], 0), (squares[0], 1)]
    else:
        direction = 0 if squares[0] // SIZE == squares[-1] // SIZE else 1
        lines = [(squares[0], direction)] + [(q, 1 - direction) for q in squares]
    total = 0
    for q, direction in lines:
        line, pieces = read_line(board, q, direction, placed)
        if len(line) < 2:
            continue
        kind = line_meld(pieces, descending)
        tile_sum = 0
        meld_mult = 1
        for s, piece in zip(line, pieces):
            if s not in placed:
                continue
            letter = premium[s]
            if piece < NUM_CARDS:
                value = (15 if kind == SET else 1) if RANK_OF[piece] == 1 else POINTS[piece]
                tile_sum += value * TILE_MULT_OF.get(letter, 1)
            meld_mult *= MELD_MULT_OF.get(letter, 1)
        total += tile_sum * meld_mult
    return total


def board_lines(board) -> list[list[int]]:
    """Squares of every line of the board (2+ tiles), rows first, in reading order."""
    out = []
    for direction in (0, 1):
        for line in LINE_SQUARES[direction]:
            run: list[int] = []
            for q in line + (-1,):
                if q >= 0 and board[q] >= 0:
                    run.append(q)
                else:
                    if len(run) >= 2:
                        out.append(run)
                    run = []
    return out


def board_groups(board, premium, descending: bool) -> tuple[list[int], list[int]]:
    """Check a set-up board (GO-15, GO-22, GO-23) and number its groups (GO-25): every line a
    meld, H8 covered, each group on a red square. Returns the group of every square (-1 empty)
    and each group's start square (H8 for the group holding it, else its first red square);
    ``ValueError`` naming the problem."""
    group = [-1] * NSQ
    starts: list[int] = []
    if not any(p >= 0 for p in board):
        return group, starts
    for line in board_lines(board):
        if line_meld([board[q] for q in line], descending) is None:
            raise ValueError("board line " + " ".join(f"{SQUARE_TEXT[q]} {piece_text(board[q])}" for q in line)
                             + " is not a meld")
    if board[CENTRE] < 0:
        raise ValueError("a non-empty board must cover H8 (GO-22)")
    for q in [CENTRE] + [q for q in range(NSQ) if q != CENTRE]:
        if board[q] < 0 or group[q] >= 0:
            continue
        number = len(starts)
        group[q] = number
        stack, members = [q], []
        while stack:
            s = stack.pop()
            members.append(s)
            for t in NEIGHBOURS[s]:
                if board[t] >= 0 and group[t] < 0:
                    group[t] = number
                    stack.append(t)
        reds = sorted(s for s in members if premium[s] in "RC")
        if not reds:
            raise ValueError(f"the group at {SQUARE_TEXT[min(members)]} covers no red square (GO-23)")
        starts.append(CENTRE if CENTRE in reds else reds[0])
    return group, starts
