"""Rummy's meld tables (RM-10..RM-15), built once at import and shared by every game: the meld
catalogue of the action layout, per-rank set ids, per-suit run ids (cached by 13-bit suit
pattern) and each catalogue meld's lay-off mask."""
from __future__ import annotations

from ...cards import BIT
from ...melds import RUN, SET_SUIT_CHOICES, Meld, catalogue_masks, classify, layoff_cards, standard_catalogue

CATALOGUE = standard_catalogue(ace_high=True)
"""The 369 melds of the action layout, each in canonical card order."""
CAT_MASK = catalogue_masks(CATALOGUE)
CAT_SHAPE = [classify(m, ace_high=True) for m in CATALOGUE]
NUM_MELDS = len(CATALOGUE)

SET_IDS = [[tuple(5 * r0 + j for j, suits in enumerate(SET_SUIT_CHOICES) if all(pat >> s & 1 for s in suits))
            for pat in range(16)] for r0 in range(13)]
"""``SET_IDS[r0][suit pattern]``: catalogue ids of the sets of rank index r0 (= rank - 1)
inside a 4-bit suit pattern (RM-10)."""
# Runs of each suit: catalogue ids, ace-low ones first (66 per suit), then the 10 ace-high ones.
_SUIT_RUNS = [tuple(65 + 76 * s + i for i in range(76)) for s in range(4)]
_RUN_PATTERN = {m: (CAT_MASK[m] >> (13 * s)) & 0x1FFF for s in range(4) for m in _SUIT_RUNS[s]}
_RUN_CACHE: dict[int, tuple[int, ...]] = {}
ACE_HIGH_ONLY = frozenset(m for m in range(NUM_MELDS) if CAT_SHAPE[m].kind == RUN and CAT_SHAPE[m].hi == 14)
"""Catalogue ids of the runs with a high ace (legal only with ``ace_high``, RM-11, RM-12)."""


def runs_in(suit: int, pattern: int, ace_high: bool) -> tuple[int, ...]:
    """Catalogue ids of the runs of ``suit`` inside a 13-bit rank pattern (cached)."""
    key = (pattern << 3) | (suit << 1) | ace_high
    found = _RUN_CACHE.get(key)
    if found is None:
        runs = _SUIT_RUNS[suit] if ace_high else _SUIT_RUNS[suit][:66]
        found = _RUN_CACHE[key] = tuple(m for m in runs if not _RUN_PATTERN[m] & ~pattern)
    return found


def fit_mask(shape: Meld, meld_mask: int, ace_high: bool) -> int:
    """Mask of the cards that may be laid off on a meld now (RM-14, RM-15)."""
    out = 0
    for c in layoff_cards(shape, ace_high):
        out |= BIT[c]
    return out & ~meld_mask


CAT_FIT = [[fit_mask(CAT_SHAPE[m], CAT_MASK[m], high) for m in range(NUM_MELDS)] for high in (False, True)]
"""``CAT_FIT[ace_high][m]``: the lay-off mask of catalogue meld ``m`` as laid."""
