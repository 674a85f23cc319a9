"""An independent reference for Ginny-O's legal actions, written from the rules (GO-1..GO-44) alone.

It reads only the public view of a position (``game.view(seat)``: board texts, this turn's
placements, the acting seat's rack, phase, drawn tile, box state, options) and maps moves to
action ids through the public action texts (``game.text_to_action``). It has its own card model,
start squares, line and meld checker, group finder and search, and shares no code or table with
the engine.

The search (``PlaySearch``) is exhaustive over the rules' play geometry (GO-20): a play fills
every empty square between its first and last placed square of one row or column. Along every row
and column, from every empty square, it places every rack tile left (a joker declared as every
card) square by square, and after each one either ends the play or goes on to the next empty
square. It drops a partial play only when no completion can be legal: a line across it that is
not a meld, a main line so far that no meld begins with, a joker declared as a card that cannot
follow the previous card in any meld, or no square within the rack's reach that touches the
board or is an open start square. Each play found is then checked whole (GO-21..GO-25).
"""
from __future__ import annotations

import functools
from collections import Counter

import numpy as np

RANKS = "A23456789TJQK"
SUITS = "CDHS"
CARDS = tuple(r + s for s in SUITS for r in RANKS)
RANK = {c: RANKS.index(c[0]) + 1 for c in CARDS}
"""Rank 1..13 (A 1, K 13) of each card text (GO-5)."""
JOKER = "JK"
NUM_ACTIONS = 23_509
"""Size of the action space (the rules' "Action ids")."""

SIZE = 15
COLUMNS = "ABCDEFGHIJKLMNO"
SQUARE_NAMES = tuple(COLUMNS[q % SIZE] + str(q // SIZE + 1) for q in range(SIZE * SIZE))
"""Square index 15 x (row - 1) + column (A-O = 0-14), so index order is reading order (GO-43)."""
CENTRE = 7 * SIZE + 7  # H8

START_SQUARES = frozenset(COLUMNS.index(name[0]) + SIZE * (int(name[1:]) - 1)
                          for name in ("D4", "L4", "H8", "D12", "L12"))
"""GO-2, GO-3: the five red squares, the centre included, are the start squares of both layouts
(the other premium squares only score, so legality does not depend on the layout)."""

ROWS = tuple(tuple(r * SIZE + c for c in range(SIZE)) for r in range(SIZE))
COLS = tuple(tuple(r * SIZE + c for r in range(SIZE)) for c in range(SIZE))
NEIGHBOURS = tuple(tuple((r + dr) * SIZE + c + dc for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
                         if 0 <= r + dr < SIZE and 0 <= c + dc < SIZE)
                   for r in range(SIZE) for c in range(SIZE))


# ------------------------------------------------------------------------------- melds
def _is_run(cards: tuple[str, ...], descending: bool) -> bool:
    """One suit, ranks up by one at each step (or down, with ``descending``); an ace is low or
    high for the whole line, never both, and nothing wraps (GO-5, GO-16)."""
    if len({c[1] for c in cards}) != 1:
        return False
    for ace in (1, 14):
        pos = [ace if RANK[c] == 1 else RANK[c] for c in cards]
        steps = {b - a for a, b in zip(pos, pos[1:])}
        if steps == {1} or (descending and steps == {-1}):
            return True
    return False


def _is_set_part(cards: tuple[str, ...]) -> bool:
    """One rank, all suits different, at most 4 tiles (GO-15)."""
    return len({RANK[c] for c in cards}) == 1 and len({c[1] for c in cards}) == len(cards) <= 4


@functools.lru_cache(maxsize=None)
def is_meld(cards: tuple[str, ...], descending: bool) -> bool:
    """A line (cards in reading order, jokers as their declared cards) is a set or a run (GO-15,
    GO-16, GO-17); a line of 2 tiles never is (GO-21)."""
    return len(cards) >= 3 and (_is_set_part(cards) or _is_run(cards, descending))


@functools.lru_cache(maxsize=None)
def could_begin_meld(cards: tuple[str, ...], descending: bool) -> bool:
    """Whether some meld begins with these cards (a necessary condition used to prune)."""
    return len(cards) <= 1 or _is_set_part(cards) or _is_run(cards, descending)


FOLLOWERS = {c: tuple(d for d in CARDS if could_begin_meld((c, d), True)) for c in CARDS}
"""The cards that may follow each card in a meld (same rank, or same suit and next rank either
way): the only declarations a joker placed after it can usefully take."""


# ------------------------------------------------------------------------------- board
def groups_of(board: list) -> list[int]:
    """Group label of every occupied square (orthogonally connected tiles), -1 on empty ones."""
    label = [-1] * len(board)
    count = 0
    for q, card in enumerate(board):
        if card is None or label[q] >= 0:
            continue
        label[q], todo = count, [q]
        while todo:
            s = todo.pop()
            for t in NEIGHBOURS[s]:
                if board[t] is not None and label[t] < 0:
                    label[t] = count
                    todo.append(t)
        count += 1
    return label


def _line_through(board: list, line: tuple, i: int) -> tuple[int, int]:
    """First and last index in ``line`` of the occupied stretch that would contain ``line[i]``
    if it were occupied (board tiles before and after it)."""
    lo = i
    while lo > 0 and board[line[lo - 1]] is not None:
        lo -= 1
    hi = i
    while hi < SIZE - 1 and board[line[hi + 1]] is not None:
        hi += 1
    return lo, hi


def _starts_group(squares: list[int], board: list) -> bool:
    """A play touching no board tile: the first play covers H8 (GO-22), a later one covers an
    uncovered red square (GO-23 b); either places at least 3 tiles."""
    if len(squares) < 3:
        return False
    if all(card is None for card in board):
        return CENTRE in squares
    return any(q in START_SQUARES and board[q] is None for q in squares)


class PlaySearch:
    """Every legal play (GO-20..GO-27) of the tiles ``rack`` (card texts, ``JK``) on ``board``
    (225 entries: the card a tile stands for, a joker's declared card, or None): ``run()``
    returns them as tuples of ``(square, piece text)`` in reading order (``"7H"``,
    ``"JK=7H"``); afterwards ``joining`` holds the plays refused only because they would join
    two groups (GO-25).

    Depth-first, for every row and column and every empty square ``i`` of it: place a rack
    tile on ``i``, then either end the play (after the board tiles that follow) or go on to the
    next empty square, which the play must then fill too (GO-20)."""

    def __init__(self, board: list, rack: list[str], descending: bool):
        self.board = board
        self.tiles = Counter(rack)
        self.rack_size = len(rack)
        self.descending = descending
        self.label = groups_of(board)
        self.cross_cache: dict = {}
        self.found: set = set()
        self.joining: set = set()
        self.along_rows = True
        empty_board = all(card is None for card in board)
        self.anchors = {q for q in range(SIZE * SIZE) if board[q] is None and (
            q == CENTRE if empty_board else q in START_SQUARES or any(board[t] is not None for t in NEIGHBOURS[q]))}

    def run(self) -> set[tuple]:
        board = self.board
        for self.along_rows, lines in ((True, ROWS), (False, COLS)):
            for line in lines:
                for i in range(SIZE):
                    if board[line[i]] is None:
                        lo, _ = _line_through(board, line, i)
                        self._place(line, i, tuple(board[s] for s in line[lo:i]), [], False)
        return self.found

    def _can_anchor(self, line: tuple, j: int, tiles_left: int) -> bool:
        """Whether ``tiles_left`` more tiles from ``line[j]`` on can reach an anchor: a square
        next to a board tile (GO-23 a) or an open start square (GO-22, GO-23 b). A play that
        covers no anchor is illegal, so searches that cannot reach one are cut."""
        empties = [q for q in line[j:] if self.board[q] is None][:tiles_left]
        return any(q in self.anchors for q in empties)

    def _place(self, line: tuple, j: int, cards: tuple, play: list, anchored: bool) -> None:
        """Put each rack tile left (a joker as each card it could usefully stand for) on the
        empty square ``line[j]``; ``cards`` is the main line before it; ``anchored``: the play
        so far covers an anchor."""
        board, q = self.board, line[j]
        if not anchored and not self._can_anchor(line, j, self.rack_size - len(play)):
            return
        anchored = anchored or q in self.anchors
        for tile in [t for t, n in self.tiles.items() if n > 0]:
            self.tiles[tile] -= 1
            for card in ((FOLLOWERS[cards[-1]] if cards else CARDS) if tile == JOKER else (tile,)):
                if self._cross_ok(q, card) and could_begin_meld(cards + (card,), self.descending):
                    play.append((q, f"JK={card}" if tile == JOKER else card))
                    self._after(line, j, cards + (card,), play, anchored)
                    play.pop()
            self.tiles[tile] += 1

    def _after(self, line: tuple, j: int, cards: tuple, play: list, anchored: bool) -> None:
        """``line[j]`` has just been filled: the play ends there, or continues on the next empty
        square after the board tiles that follow."""
        k = j + 1
        while k < SIZE and self.board[line[k]] is not None:
            cards += (self.board[line[k]],)
            k += 1
        self._end(cards, play)
        if k < SIZE and len(play) < self.rack_size and could_begin_meld(cards, self.descending):
            self._place(line, k, cards, play, anchored)

    def _end(self, cards: tuple, play: list) -> None:
        """Record ``play`` if legal: its main line ``cards`` is a meld or a lone tile (GO-21), and
        it connects to exactly one group (GO-23 a, GO-25) or starts one (GO-22, GO-23 b). A
        single tile counts once, as a play along its row."""
        if len(play) == 1 and not self.along_rows:
            return
        if len(cards) > 1 and not is_meld(cards, self.descending):
            return
        squares = [q for q, _ in play]
        touched = {self.label[t] for q in squares for t in NEIGHBOURS[q] if self.board[t] is not None}
        if len(touched) == 1 or (not touched and _starts_group(squares, self.board)):
            self.found.add(tuple(play))
        elif len(touched) > 1:
            self.joining.add(tuple(play))

    def _cross_ok(self, q: int, card: str) -> bool:
        """Whether ``card`` on ``q`` leaves its line across the play a meld or a lone tile (GO-21)."""
        key = (q, card, self.along_rows)
        if key not in self.cross_cache:
            line = COLS[q % SIZE] if self.along_rows else ROWS[q // SIZE]
            i = line.index(q)
            lo, hi = _line_through(self.board, line, i)
            cards = tuple(card if s == q else self.board[s] for s in line[lo:hi + 1])
            self.cross_cache[key] = len(cards) == 1 or is_meld(cards, self.descending)
        return self.cross_cache[key]


# ------------------------------------------------------------------------------- positions and the mask
def committed_board(view: dict) -> list:
    """The board before this turn's placements, from a view: per square the card a tile stands
    for (a joker's declared card) or None."""
    placed = {square for square, _ in map(_split, view["placed"])}
    return [None if not text or SQUARE_NAMES[q] in placed else text[-2:]
            for q, text in enumerate(t for row in view["board"] for t in row)]


def board_lines(board: list) -> list[tuple[str, ...]]:
    """The cards of every line (2+ adjacent tiles of a row or column, reading order)."""
    lines = []
    for line in ROWS + COLS:
        stretch: list[str] = []
        for q in line + (None,):
            if q is not None and board[q] is not None:
                stretch.append(board[q])
                continue
            if len(stretch) >= 2:
                lines.append(tuple(stretch))
            stretch = []
    return lines


class ReferenceMask:
    """``mask(game)``: the legal-action mask from the rules (GO-40..GO-44), plays from
    ``PlaySearch`` (run once per board and turn rack). Counts what it covered: ``positions``
    (play phases searched), the ``plays``, ``multi_tile_plays`` and ``joker_plays`` found there,
    the ``longest_play``, the plays refused for joining groups (``group_joins_refused``),
    ``decisions`` (masks built) and ``placement_actions`` (legal ``place`` ids in them)."""

    def __init__(self):
        self._tree: dict = {}
        self.positions = self.plays = self.multi_tile_plays = self.joker_plays = self.longest_play = 0
        self.group_joins_refused = self.decisions = self.placement_actions = 0

    def next_steps(self, view: dict) -> dict[tuple, set[str]]:
        """This turn's legal plays as a tree (GO-43): for every sequence of placements that
        begins a legal play, the texts of the actions that continue one (``place ...``, and
        ``commit`` where a play ends). Searched once per committed board and turn rack (the
        view shows placed tiles on the board, not on the rack)."""
        board = committed_board(view)
        rack = list(view["hand"]) + [JOKER if piece.startswith(JOKER) else piece
                                     for _, piece in map(_split, view["placed"])]
        key = (tuple(board), tuple(sorted(rack)), view["descending_runs"])
        if key not in self._tree:
            if len(self._tree) > 200:
                self._tree.clear()
            search = PlaySearch(board, rack, view["descending_runs"])
            plays = search.run()
            tree: dict[tuple, set[str]] = {}
            for play in plays:
                for m, (q, piece) in enumerate(play):
                    tree.setdefault(play[:m], set()).add(f"place {piece} at {SQUARE_NAMES[q]}")
                tree.setdefault(play, set()).add("commit")
            self._tree[key] = tree
            self.positions += 1
            self.plays += len(plays)
            self.multi_tile_plays += sum(len(play) > 1 for play in plays)
            self.joker_plays += sum(any(piece.startswith(JOKER) for _, piece in play) for play in plays)
            self.longest_play = max([self.longest_play] + [len(play) for play in plays])
            self.group_joins_refused += len(search.joining)
        return self._tree[key]

    def mask(self, game) -> np.ndarray:
        """The mask of the acting seat, from its view; action ids from the action texts."""
        view = game.view(game.current_player)
        self.decisions += 1
        hand = Counter(view["hand"])
        if view["phase"] == "start":  # GO-40
            texts = {"draw"} | {f"exchange {t}" for t in hand}
        elif view["phase"] == "exchange":  # GO-41
            texts = {"commit"} | {f"exchange {t}" for t in hand - Counter(view["exchange_chosen"])}
        else:  # GO-42, GO-43
            placed = tuple((SQUARE_NAMES.index(square), piece) for square, piece in map(_split, view["placed"]))
            texts = set(self.next_steps(view).get(placed, ()))
            self.placement_actions += len(texts - {"commit"})
            if not placed and view["drawn"] is not None:
                texts |= {f"return {t}" for t in hand}
            if not placed and view["box_empty_at_turn_start"]:
                texts.add("pass")
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        if texts:
            mask[[game.text_to_action(text) for text in texts]] = 1
        return mask


def _split(placement: str) -> tuple[str, str]:
    """``"H8 JK=6H"`` -> ``("H8", "JK=6H")``."""
    square, piece = placement.split()
    return square, piece
