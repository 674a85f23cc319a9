"""Ginny-O's legal moves: the exact legal-play search (GO-20..GO-27) and the legal mask of a
position (GO-40..GO-44).

A play fills every empty square of one span of a row or column so that the span reads as a meld
(GO-15, GO-16, GO-20); each placed tile's cross line must be a meld too (GO-21), the play must
touch exactly one group or, as a new group, cover an open start square (GO-22..GO-25). The search
walks every span of every line whose empty squares could all be filled, matches it against the
melds that fit its board tiles (or, for an all-empty span, the melds the rack can form), and
checks each placed tile's cross line through a per-square card mask. A play is a tuple of
``(square, piece)`` in reading order.

:class:`PlaySearch` holds one rules variant's caches: the plays of the last few (board, rack)
pairs, the cross-line masks of the last few boards and the melds each rack can form. The game
works out its position's plays (:func:`legal_plays`) and mask (:func:`legal_mask`) once per step.
"""
from __future__ import annotations

import itertools

import numpy as np

from ...cards import FULL_DECK, JOKER, NUM_CARDS, RANK_OF, SUIT_OF, card, cards_of, mask_of_counts
from ...melds import line_meld, position_card
from .actions import COMMIT, DRAW, EXCHANGE0, NUM_ACTIONS, PASS, PLACE0, RETURN0
from .board import CENTRE, CROSS_NEIGHBOURS, LAYOUTS, LINE_SQUARES, NEIGHBOURS, NSQ, SIZE, read_line

Play = tuple[tuple[int, int], ...]


def run_neighbour_ranks(rank: int) -> tuple[int, ...]:
    """Ranks that can sit next to ``rank`` in a run (aces low or high, GO-5)."""
    if rank == 1:
        return (2, 13)
    if rank == 13:
        return (12, 1)
    return (rank - 1, rank + 1)


class PlaySearch:
    """Every legal play of a rack on a board, for one ``board_layout`` and ``descending_runs``.

    The plays are a function of the board (its groups are its connected tile groups) and the rack
    counts only, so the object keeps the last :attr:`KEPT` results, and the cross-line masks of
    the last :attr:`KEPT` boards; a game and its clones and determinizations share one object.
    """

    KEPT = 16
    """Boards (and board, rack pairs) whose masks (plays) are kept."""
    RACKS_KEPT = 256
    """Racks whose melds (:meth:`_melds_of_length`) are kept."""

    def __init__(self, board_layout: str, descending_runs: bool):
        self.board_layout = board_layout
        self.premium = LAYOUTS[board_layout]
        self.descending_runs = descending_runs
        self.run_steps = (1, -1) if descending_runs else (1,)
        self._plays: dict[tuple, tuple[Play, ...]] = {}
        self._cross_masks: dict[tuple, dict[int, int]] = {}
        self._rack_melds: dict[tuple[int, int], dict[int, list[tuple[int, ...]]]] = {}

    # ------------------------------------------------------------------ entry points
    def plays(self, board: list[int], group: list[int], counts: list[int]) -> tuple[Play, ...]:
        """Every legal play of rack ``counts`` (length 53, index 52 = jokers) on ``board``."""
        board_key = tuple(board)
        key = (board_key, tuple(counts))
        found = self._plays.get(key)
        if found is None:
            found = tuple(self._search(board, board_key, group, counts, first_only=False))
            if len(self._plays) >= self.KEPT:
                del self._plays[next(iter(self._plays))]
            self._plays[key] = found
        return found

    def has_play(self, board: list[int], group: list[int], counts: list[int]) -> bool:
        """Whether rack ``counts`` has any legal play on ``board``: the search stopped at its first play."""
        board_key = tuple(board)
        found = self._plays.get((board_key, tuple(counts)))
        if found is not None:
            return bool(found)
        return bool(self._search(board, board_key, group, counts, first_only=True))

    # ------------------------------------------------------------------ cross lines
    def _masks_of_board(self, board_key: tuple) -> dict[int, int]:
        masks = self._cross_masks.get(board_key)
        if masks is None:
            if len(self._cross_masks) >= self.KEPT:
                del self._cross_masks[next(iter(self._cross_masks))]
            masks = self._cross_masks[board_key] = {}
        return masks

    def _cross_mask(self, board: list[int], square: int, direction: int) -> int:
        """52-bit mask of the cards that may stand on empty ``square`` as far as its line along
        ``direction`` goes (GO-21): every card when ``square`` has no neighbour along it."""
        if direction == 0:
            has_neighbour = ((square % SIZE > 0 and board[square - 1] >= 0)
                             or (square % SIZE < SIZE - 1 and board[square + 1] >= 0))
        else:
            has_neighbour = ((square >= SIZE and board[square - SIZE] >= 0)
                             or (square < NSQ - SIZE and board[square + SIZE] >= 0))
        if not has_neighbour:
            return FULL_DECK
        squares, pieces = read_line(board, square, direction, {square: 0})
        at = squares.index(square)
        neighbour = pieces[at - 1] if at > 0 else pieces[at + 1]
        neighbour_card = neighbour % NUM_CARDS
        rank, suit = RANK_OF[neighbour_card], SUIT_OF[neighbour_card]
        candidates = {card(rank, s) for s in range(4)} | {card(r, suit) for r in run_neighbour_ranks(rank)}
        mask = 0
        for c in candidates:
            pieces[at] = c
            if line_meld(pieces, self.descending_runs) is not None:
                mask |= 1 << c
        return mask

    # ------------------------------------------------------------------ melds of a rack
    def _melds_by_length(self, held: int, jokers: int) -> dict[int, list[tuple[int, ...]]]:
        """The melds a rack can form (:meth:`_melds_of_length`) by length, so far; kept per rack
        (the cards it holds as a mask, its jokers)."""
        by_length = self._rack_melds.get((held, jokers))
        if by_length is None:
            if len(self._rack_melds) >= self.RACKS_KEPT:
                del self._rack_melds[next(iter(self._rack_melds))]
            by_length = self._rack_melds[(held, jokers)] = {}
        return by_length

    def _melds_of_length(self, counts: list[int], jokers: int, length: int) -> list[tuple[int, ...]]:
        """Ordered card sequences of ``length`` that read as a line meld (GO-15, GO-16) and that the
        rack can supply (its naturals, the rest jokers)."""
        out = []
        suits = range(4) if jokers else sorted({SUIT_OF[c] for c in range(NUM_CARDS) if counts[c]})
        for suit in suits:
            for start in range(1, 16 - length):
                run = tuple(position_card(p, suit) for p in range(start, start + length))
                if sum(1 for c in run if not counts[c]) <= jokers:
                    out.append(run)
                    if self.descending_runs:
                        out.append(run[::-1])
        if length <= 4:
            for rank in range(1, 14):
                held_suits = [s for s in range(4) if counts[card(rank, s)]]
                if len(held_suits) + jokers < length:
                    continue
                for suit_order in itertools.permutations(range(4), length):
                    if sum(1 for s in suit_order if not counts[card(rank, s)]) <= jokers:
                        out.append(tuple(card(rank, s) for s in suit_order))
        return out

    # ------------------------------------------------------------------ the search
    def _search(self, board: list[int], board_key: tuple, group: list[int], counts: list[int],
                first_only: bool) -> list[Play]:
        """The plays of rack ``counts`` on ``board``; with ``first_only``, stop once one is found."""
        plays: list[Play] = []
        jokers = counts[JOKER]
        rack_size = sum(counts)
        if rack_size == 0:
            return plays
        held = mask_of_counts(counts)
        playable = FULL_DECK if jokers else held
        board_empty = board[CENTRE] < 0
        masks = self._masks_of_board(board_key)

        def cross(square, direction):
            key = 2 * square + direction
            mask = masks.get(key)
            if mask is None:
                mask = masks[key] = self._cross_mask(board, square, direction)
            return mask

        def add_plays(needed):
            """Every way (natural tile or joker) to supply the ``(square, card)`` pairs ``needed``."""
            choices = []
            jokers_needed = 0
            for q, c in needed:
                if counts[c]:
                    choices.append(((q, c), (q, c + NUM_CARDS)) if jokers else ((q, c),))
                else:
                    jokers_needed += 1
                    choices.append(((q, c + NUM_CARDS),))
            if jokers_needed > jokers:
                return
            if not jokers:
                plays.append(tuple(choice[0] for choice in choices))
                return
            for play in itertools.product(*choices):
                if sum(1 for _, p in play if p >= NUM_CARDS) <= jokers:
                    plays.append(play)

        # one-tile plays: next to the board, both lines valid, one group touched
        if not board_empty:
            seen = set()
            for tile_square in range(NSQ):
                if board[tile_square] < 0:
                    continue
                for q in NEIGHBOURS[tile_square]:
                    if board[q] >= 0 or q in seen:
                        continue
                    seen.add(q)
                    if len({group[t] for t in NEIGHBOURS[q] if board[t] >= 0}) > 1:
                        continue
                    for c in cards_of(cross(q, 0) & cross(q, 1) & playable):
                        if counts[c]:
                            plays.append(((q, c),))
                        if jokers:
                            plays.append(((q, c + NUM_CARDS),))
                if first_only and plays:
                    return plays
        if rack_size < 2:
            return plays
        premium = self.premium
        melds_by_length = self._melds_by_length(held, jokers)
        for direction in (0, 1):
            across = 1 - direction
            for line in LINE_SQUARES[direction]:
                occupied = [board[q] >= 0 for q in line]
                fits = [0] * SIZE
                touched_groups: list = [None] * SIZE
                opens = [False] * SIZE
                worth_searching = any(occupied)
                for i, q in enumerate(line):
                    if occupied[i]:
                        continue
                    fits[i] = cross(q, across) & playable
                    groups = [group[t] for t in CROSS_NEIGHBOURS[direction][q] if board[t] >= 0]
                    if groups:
                        touched_groups[i] = groups
                        worth_searching = True
                    if (q == CENTRE) if board_empty else premium[q] == "R":
                        opens[i] = True
                        worth_searching = True
                if not worth_searching:
                    continue
                for first in range(SIZE):
                    if first and occupied[first - 1]:
                        continue
                    empties = 0
                    groups = set()
                    opens_group = False
                    for last in range(first, min(first + 13, SIZE)):
                        if occupied[last]:
                            groups.add(group[line[last]])
                        else:
                            if not fits[last]:
                                break
                            empties += 1
                            if empties > rack_size:
                                break
                            if touched_groups[last]:
                                groups.update(touched_groups[last])
                            if opens[last]:
                                opens_group = True
                        if len(groups) > 1:
                            break
                        if last - first < 2 or empties < 2 or (last < SIZE - 1 and occupied[last + 1]):
                            continue
                        if not groups and not opens_group:
                            continue
                        self._span_plays(board, line, first, last, occupied, fits, counts, melds_by_length,
                                        add_plays)
                        if first_only and plays:
                            return plays
        return plays

    def _span_plays(self, board, line, first, last, occupied, fits, counts, melds_by_length, add_plays) -> None:
        """Plays filling every empty square of ``line[first..last]`` so that it reads as a meld."""
        length = last - first + 1
        tile_at = next((i for i in range(first, last + 1) if occupied[i]), -1)
        if tile_at < 0:
            melds = melds_by_length.get(length)
            if melds is None:
                melds = melds_by_length[length] = self._melds_of_length(counts, counts[JOKER], length)
            for meld in melds:
                needed = []
                for i, c in enumerate(meld):
                    if not (fits[first + i] >> c) & 1:
                        break
                    needed.append((line[first + i], c))
                else:
                    add_plays(needed)
            return
        tile_card = board[line[tile_at]] % NUM_CARDS
        rank, suit = RANK_OF[tile_card], SUIT_OF[tile_card]
        offset = tile_at - first
        for step in self.run_steps:
            for tile_position in ((1, 14) if rank == 1 else (rank,)):
                start = tile_position - step * offset
                end = start + step * (length - 1)
                if min(start, end) < 1 or max(start, end) > 14:
                    continue
                needed = []
                for i in range(length):
                    c = position_card(start + step * i, suit)
                    if occupied[first + i]:
                        if board[line[first + i]] % NUM_CARDS != c:
                            break
                    elif (fits[first + i] >> c) & 1:
                        needed.append((line[first + i], c))
                    else:
                        break
                else:
                    add_plays(needed)
        if length <= 4:
            suits_on_board = 0
            free = []
            for i in range(first, last + 1):
                if occupied[i]:
                    c = board[line[i]] % NUM_CARDS
                    if RANK_OF[c] != rank or suits_on_board >> SUIT_OF[c] & 1:
                        return
                    suits_on_board |= 1 << SUIT_OF[c]
                else:
                    free.append(i)
            free_suits = [s for s in range(4) if not suits_on_board >> s & 1]
            for suit_order in itertools.permutations(free_suits, len(free)):
                needed = []
                for i, s in zip(free, suit_order):
                    c = card(rank, s)
                    if not (fits[i] >> c) & 1:
                        break
                    needed.append((line[i], c))
                else:
                    add_plays(needed)


def legal_plays(game) -> list[Play]:
    """The legal plays of ``game``'s acting seat that begin with this turn's placements (GO-43);
    none outside the play phase."""
    if game.phase != "play" or game.done:
        return []
    counts = list(game.racks[game.current_player])
    for _, piece in game.placed:
        counts[JOKER if piece >= NUM_CARDS else piece] += 1
    every = list(game.search.plays(game.board, game.group, counts))
    placed_count = len(game.placed)
    if placed_count:
        placed = tuple(game.placed)
        every = [play for play in every if play[:placed_count] == placed]
    return every


def legal_mask(game, plays: list[Play]) -> np.ndarray:
    """int8 mask over the 23,509 actions (GO-40..GO-44) of ``game``'s position, whose legal
    plays are ``plays`` (:func:`legal_plays`)."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    if game.done:
        return mask
    rack = game.racks[game.current_player]
    if game.phase == "start":
        mask[DRAW] = 1
        for t in range(53):
            if rack[t]:
                mask[EXCHANGE0 + t] = 1
    elif game.phase == "exchange":
        mask[COMMIT] = 1
        left = list(rack)
        for t in game.chosen:
            left[t] -= 1
        for t in range(53):
            if left[t] > 0:
                mask[EXCHANGE0 + t] = 1
    else:
        placed_count = len(game.placed)
        ids = []
        for play in plays:
            if len(play) == placed_count:
                mask[COMMIT] = 1
            else:
                q, piece = play[placed_count]
                ids.append(PLACE0 + NSQ * piece + q)
        if ids:
            mask[ids] = 1
        if not placed_count:
            if game.drew >= 0:
                for t in range(53):
                    if rack[t]:
                        mask[RETURN0 + t] = 1
            if game.box_empty_start:
                mask[PASS] = 1
    return mask
