"""I Doubt It's action catalogue (rules file, "Action ids"; DI-8, DI-11, DI-13, DI-19).

0 ``doubt``, 1 ``pass``, then every rank multiset of 1 .. ``max_cards_per_play`` cards, by size
and then lexicographically by rank index (A=0 .. K=12); ``misclaim`` last when
``wrong_rank_claims``. A play names only the ranks of the cards put down (DI-11).
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from ...actions import RANK, Catalogue, Combination, Segment

DOUBT, PASS, FIRST_PLAY = 0, 1, 2


def num_plays(m: int) -> int:
    """Number of ``play`` actions for ``max_cards_per_play = m``: C(13+m, m) - 1."""
    return math.comb(13 + m, m) - 1


class PlayTable:
    """Every rank multiset of 1..m cards in action-id order (action ``2 + i`` is row ``i``).

    ``ranks[i]``: sorted tuple of rank indices; ``counts``: int8 array (num_plays, 13) of cards
    per rank; ``sizes``: int8 array of cards per play; ``catalogues``: the action catalogue
    without and with ``misclaim`` (DI-13).
    """

    def __init__(self, m: int):
        self.m = m
        self.ranks = [t for k in range(1, m + 1) for t in itertools.combinations_with_replacement(range(13), k)]
        p = len(self.ranks)
        assert p == num_plays(m)
        self.sizes = np.fromiter((len(t) for t in self.ranks), dtype=np.int8, count=p)
        flat = np.fromiter(itertools.chain.from_iterable(self.ranks), dtype=np.int64)
        rows = np.repeat(np.arange(p, dtype=np.int64), self.sizes.astype(np.int64))
        self.counts = np.bincount(rows * 13 + flat, minlength=p * 13).reshape(p, 13).astype(np.int8)
        self.counts.flags.writeable = False
        self.sizes.flags.writeable = False
        plays = Combination("<rank> ...", self.ranks, RANK, f"a play has at most max_cards_per_play={m} cards (DI-8)")
        self.catalogues = tuple(Catalogue([Segment("doubt"), Segment("pass"), Segment("play <ranks>", ranks=plays)]
                                          + [Segment("misclaim")] * misclaim) for misclaim in (False, True))
        assert [self.catalogues[True].start(name) for name in ("doubt", "pass", "play", "misclaim")] == [
            DOUBT, PASS, FIRST_PLAY, FIRST_PLAY + p]


_TABLES: dict[int, PlayTable] = {}


def play_table(m: int) -> PlayTable:
    """The cached :class:`PlayTable` for ``max_cards_per_play = m``."""
    table = _TABLES.get(m)
    if table is None:
        table = _TABLES[m] = PlayTable(m)
    return table
