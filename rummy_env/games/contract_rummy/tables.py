"""Tables: the meld catalogue of one (jokers, ``min_run_length``) with the lookup tables of the
legal-move search, and facts about one suit's 13-bit rank mask (which cards can lie in a run,
how many runs its cards need, how many joker-free runs they hold), memoised by the meld catalogue
that owns them.

A rank mask has bit ``r`` set for rank ``r + 1`` (the ace is bit 0); run positions are 1..14, the
ace counted at both ends (CR-9, CR-14).
"""
from __future__ import annotations

from functools import cache

import numpy as np

from ... import melds as ml
from ...cards import NUM_CARDS, RANK_OF, SUIT_OF, mask_of, suit_mask_items

SUIT_MASK = 0x1FFF
"""The 13 bits of one suit in a 52-bit card mask."""
RANKS_IN = suit_mask_items(range(13))
"""Per 13-bit rank mask: its rank indices (rank - 1), ascending."""
MEMO_LIMIT = 100_000
"""Entries a memo of :class:`MeldCatalogue` keeps before it starts again (bounded memory)."""


def at_least(masks: list, k: int) -> int:
    """Bitwise "at least ``k`` of the bit-vectors ``masks`` are set" (3 or 4 masks)."""
    if k <= 1:
        out = 0
        for mask in masks:
            out |= mask
        return out
    if k > len(masks):
        return 0
    if len(masks) == 3:
        a, b, c = masks
        return a & b & c if k == 3 else (a & b) | (a & c) | (b & c)
    a, b, c, d = masks
    if k == 4:
        return a & b & c & d
    if k == 3:
        return (a & b & (c | d)) | (c & d & (a | b))
    return (a & (b | c | d)) | (b & (c | d)) | (c & d)


def coverable_in_suit(ranks: int, jokers: int, min_run: int) -> int:
    """The ranks of ``ranks`` lying in a window of ``min_run`` run positions that holds at least
    ``min_run - jokers`` of them: only those can be in a run (CR-14)."""
    window_starts = (1 << (15 - min_run)) - 1
    positions = ranks | ((ranks & 1) << 13)
    starts = at_least([positions >> i for i in range(min_run)], min_run - jokers) & window_starts
    covered = 0
    for i in range(min_run):
        covered |= starts << i
    return ((covered & SUIT_MASK) | (covered >> 13 & 1)) & ranks


def joker_free_runs(ranks: int, min_run: int) -> int:
    """At least the number of disjoint joker-free runs one deck's cards of a suit can form: the
    maximal gap-free stretches of positions 1..14, the ace at both ends, each holding
    ``length // min_run`` runs (an upper bound, CR-14)."""
    positions = ranks | ((ranks & 1) << 13)
    runs = stretch = 0
    for p in range(15):
        if positions >> p & 1:
            stretch += 1
        else:
            runs += stretch // min_run
            stretch = 0
    return runs


def run_segments(ranks: int, jokers: int) -> tuple[int, bool]:
    """(runs needed at least, has a one-card group) for one suit's rank mask: groups of cards whose
    gaps ``jokers`` jokers cannot bridge need separate runs (the ace placed low or high, whichever
    needs fewer; CR-9, CR-17)."""
    best = None
    for ace_high in (False, True):
        positions = sorted((14 if ace_high and r == 0 else r + 1) for r in range(13) if ranks >> r & 1)
        groups, lone, size, previous = 0, False, 0, None
        for p in positions:
            if previous is None or p - previous - 1 > jokers:
                lone = lone or size == 1
                groups += 1
                size = 0
            size += 1
            previous = p
        lone = lone or size == 1
        if best is None or groups < best[0]:
            best = (groups, lone)
    return best


class MeldCatalogue:
    """The meld catalogue of one (num_jokers, min_run) (CR-13, CR-14) with the lookup tables and
    memos of the search. Entry ``i`` has ``pieces[i]`` (natural ``c`` or ``52 + c`` for
    ``JK=c``), its :class:`rummy_env.melds.Meld` ``shape[i]``, ``naturals[i]`` and
    ``jokers_in[i]``; the sets come first (``num_sets``), then the runs."""

    def __init__(self, jokers: int, min_run: int):
        self.jokers = jokers
        self.min_run = min_run
        self.pieces = ml.joker_catalogue(jokers, min_run)
        self.size = len(self.pieces)
        self.index = {tuple(sorted(p)): i for i, p in enumerate(self.pieces)}
        """Sorted pieces -> entry (for the action text ``meld ...``)."""
        self.shape = [ml.classify(p, True, min_run) for p in self.pieces]
        self.text = [" ".join(ml.piece_text(q) for q in p) for p in self.pieces]
        self.is_set = [s.kind == ml.SET for s in self.shape]
        self.num_sets = sum(self.is_set)
        self.naturals = [tuple(q for q in p if q < NUM_CARDS) for p in self.pieces]
        self.natural_mask = [mask_of(set(n)) for n in self.naturals]
        self.jokers_in = [sum(q >= NUM_CARDS for q in p) for p in self.pieces]
        self.length = [len(p) for p in self.pieces]
        self.run_extent = [(s.suit, s.lo, s.hi) for s in self.shape]
        """Runs: (suit, lo, hi) for CR-9's test between the runs of a contract."""
        self.set_table = [() for _ in range(13 * 16 * 3)]
        """Sets by (rank index, natural suit mask, jokers) at ``(r * 16 + suits) * 3 + jokers``."""
        for r in range(13):
            for suits in range(16):
                for j in range(3):
                    self.set_table[(r * 16 + suits) * 3 + j] = tuple(
                        i for i in range(self.num_sets)
                        if RANK_OF[self.pieces[i][0] % 52] == r + 1 and self.jokers_in[i] <= j
                        and all(suits >> SUIT_OF[c] & 1 for c in self.naturals[i]))
        self.minimal_set_table = [tuple(i for i in e if self.length[i] == 3) for e in self.set_table]
        """``set_table`` with the 3-piece sets only (the minimal sets, see
        :func:`~rummy_env.games.contract_rummy.moves._candidates`)."""
        # runs: per suit, columns (entry, natural rank mask, needs two natural aces, jokers)
        rows = [[] for _ in range(4)]
        for i in range(self.num_sets, self.size):
            ranks = 0
            for c in self.naturals[i]:
                ranks |= 1 << (RANK_OF[c] - 1)
            two_aces = len(self.naturals[i]) != len(set(self.naturals[i]))
            rows[self.shape[i].suit].append((i, ranks, two_aces, self.jokers_in[i]))
        self.suit_runs = [tuple(np.array(col, dtype=np.int64) for col in zip(*r)) for r in rows]
        self.minimal_suit_runs = [tuple(np.array(col, dtype=np.int64)
                                        for col in zip(*(e for e in r if self.length[e[0]] == min_run)))
                                  for r in rows]
        self._runs_memo: dict[int, tuple[int, ...]] = {}
        self._runs_with_memo: dict[int, tuple[int, ...]] = {}
        self._coverable_memo: dict[int, int] = {}
        self._segments_memo: dict[int, tuple[int, bool]] = {}
        self.joker_free_runs = tuple(joker_free_runs(ranks, min_run) for ranks in range(1 << 13))
        """Per suit rank mask: :func:`joker_free_runs`."""

    def runs_with(self, c: int, ranks: int, two_aces: int, jokers: int, minimal: int = 0) -> tuple[int, ...]:
        """:meth:`runs_for` of card ``c``'s suit, only the runs holding a natural ``c``."""
        key = (minimal << 22) | (c << 16) | (two_aces << 15) | (jokers << 13) | ranks
        found = self._runs_with_memo.get(key)
        if found is None:
            found = tuple(i for i in self.runs_for(SUIT_OF[c], ranks, two_aces, jokers, minimal)
                          if c in self.naturals[i])
            if len(self._runs_with_memo) > MEMO_LIMIT:
                self._runs_with_memo.clear()
            self._runs_with_memo[key] = found
        return found

    def runs_for(self, suit: int, ranks: int, two_aces: int, jokers: int, minimal: int = 0) -> tuple[int, ...]:
        """Runs of ``suit`` whose natural ranks are in ``ranks`` with at most ``jokers`` jokers
        (``two_aces``: two natural aces held); ``minimal``: only the runs of ``min_run`` pieces."""
        key = (minimal << 18) | (suit << 16) | (two_aces << 15) | (jokers << 13) | ranks
        found = self._runs_memo.get(key)
        if found is None:
            entry, run_ranks, needs_two_aces, run_jokers = (self.minimal_suit_runs if minimal else self.suit_runs)[suit]
            fits = (run_jokers <= jokers) & ((run_ranks & ~ranks) == 0)
            if not two_aces:
                fits &= needs_two_aces == 0
            found = tuple(entry[fits].tolist())
            if len(self._runs_memo) > MEMO_LIMIT:
                self._runs_memo.clear()
            self._runs_memo[key] = found
        return found

    def coverable_in_suit(self, ranks: int, jokers: int) -> int:
        """:func:`coverable_in_suit` for this ``min_run`` (memoised)."""
        key = jokers << 13 | ranks
        found = self._coverable_memo.get(key)
        if found is None:
            found = self._coverable_memo[key] = coverable_in_suit(ranks, jokers, self.min_run)
        return found

    def coverable(self, cards: int, jokers: int) -> int:
        """The cards of a 52-card mask that can lie in a run with ``jokers`` jokers, suit by suit
        (:func:`coverable_in_suit`, a necessary condition, CR-14)."""
        out = 0
        for shift in (0, 13, 26, 39):
            ranks = (cards >> shift) & SUIT_MASK
            if ranks:
                out |= self.coverable_in_suit(ranks, jokers) << shift
        return out

    def runs_needed(self, cards: int, jokers: int) -> tuple[int, bool]:
        """Over the four suits of a card mask: how many runs are needed at least to hold every card
        (:func:`run_segments` per suit), and whether some suit has a lone-card group."""
        need, lone = 0, False
        for shift in (0, 13, 26, 39):
            ranks = (cards >> shift) & SUIT_MASK
            if ranks:
                key = ranks << 2 | jokers
                found = self._segments_memo.get(key)
                if found is None:
                    found = self._segments_memo[key] = run_segments(ranks, jokers)
                need += found[0]
                lone = lone or found[1]
        return need, lone


@cache
def catalogue(jokers: int, min_run: int) -> MeldCatalogue:
    """The catalogue for ``num_jokers`` and ``min_run_length``, built once and shared by every game
    with those options (its memos depend on no hand)."""
    return MeldCatalogue(jokers, min_run)
