"""Tongits' card and meld tables (TG-7, TG-10..TG-13, TG-30), built once at import and shared by
every game: the meld catalogue, rank masks, the pairs that meld with a card, and the memoised
least-deadwood search."""
from __future__ import annotations

import functools

from ...cards import BIT, POINTS, RANK_OF, SUIT_OF, mask_of
from ...melds import catalogue_masks, standard_catalogue

CATALOGUE = standard_catalogue(ace_high=False)
"""The 329 melds of the action layout (sets, then runs), each in canonical card order."""
CAT_MASK = catalogue_masks(CATALOGUE)
FOURS = tuple(tuple(13 * s + r for s in range(4)) for r in range(13))
"""The four cards of each rank A..K, suits C D H S: the cards of a ``secret`` (TG-13)."""

SUIT_BITS = 0x1FFF
RANK_MASK = (0,) + tuple(mask_of(four) for four in FOURS)  # index 1..13
ACES = RANK_MASK[1]
MELDS_WITH_CARD = tuple(tuple(m for m in CAT_MASK if m & BIT[c]) for c in range(52))
POINTS_OF_BIT = {BIT[c]: POINTS[c] for c in range(52)}


def _take_pairs(t: int) -> tuple:
    """Masks of the card pairs that make a meld with card ``t`` (TG-7, TG-10..TG-12)."""
    r, s = RANK_OF[t], SUIT_OF[t]
    same = [BIT[13 * u + r - 1] for u in range(4) if u != s]
    pairs = [same[0] | same[1], same[0] | same[2], same[1] | same[2]]
    for lo in (r - 2, r - 1, r):
        if lo >= 1 and lo + 2 <= 13:
            pairs.append(sum(BIT[13 * s + x - 1] for x in (lo, lo + 1, lo + 2) if x != r))
    return tuple(pairs)


TAKE_PAIRS = tuple(_take_pairs(t) for t in range(52))
"""``TAKE_PAIRS[t]``: the masks of the card pairs that make a meld with card ``t`` (TG-7)."""


@functools.lru_cache(maxsize=1 << 18)
def least_deadwood(mask: int) -> int:
    """Least sum of points of the cards of ``mask`` left over when disjoint valid melds are
    taken out (``count_hand_melds=False``, TG-30): exact search, memoised."""
    if not mask:
        return 0
    low = mask & -mask
    best = POINTS_OF_BIT[low] + least_deadwood(mask ^ low)
    for m in MELDS_WITH_CARD[low.bit_length() - 1]:
        if m & mask == m:
            v = least_deadwood(mask ^ m)
            if v < best:
                best = v
    return best


def four_ranks(mask: int) -> int:
    """13-bit mask of the ranks of which ``mask`` holds all four cards."""
    return mask & (mask >> 13) & (mask >> 26) & (mask >> 39) & SUIT_BITS
