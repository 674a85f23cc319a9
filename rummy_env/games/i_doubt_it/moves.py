"""I Doubt It's legal moves (DI-6..DI-8, DI-13, DI-19): the legal mask of a position.

Play phase: every multiset of held ranks of 1..``max_cards_per_play`` cards, ``misclaim`` when
enabled; doubt phase: ``doubt`` and ``pass``. A play mask is an AND over the 13 ranks of
precomputed bit sets "needs at most c of rank r" -- no loop over actions -- kept per hand in a
bounded cache owned by the :class:`PlayMasks` of the options.
"""
from __future__ import annotations

import numpy as np

from .actions import DOUBT, FIRST_PLAY, PASS, play_table
from .options import DOUBT_PHASE

MASK_CACHE_BYTES = 16 << 20
"""Play-phase masks are cached by hand (13 rank counts) per :class:`PlayMasks`, up to about this many bytes."""


def _bits(plays_ok: np.ndarray) -> int:
    """Bit set over action ids from a boolean vector over plays."""
    packed = np.packbits(np.concatenate([np.zeros(FIRST_PLAY, bool), plays_ok]), bitorder="little")
    return int.from_bytes(packed.tobytes(), "little")


def _read_only(mask: np.ndarray) -> np.ndarray:
    mask.flags.writeable = False
    return mask


class PlayMasks:
    """The legal masks of one ``max_cards_per_play`` (``m``) with or without ``misclaim``.

    ``ok[r][c]``: int bit set over action ids of the plays needing at most ``c`` cards of rank
    ``r`` (c < m); ``play_bits``: bit set of all play ids (and ``misclaim``); ``doubt``: the
    doubt-window mask; ``none``: the all-zero mask of a finished game. Every mask is read-only
    and shared by the games of these options."""

    def __init__(self, m: int, misclaim: bool):
        table = play_table(m)
        self.m = m
        self.num_actions = table.catalogues[misclaim].size
        self.ok = [[_bits(table.counts[:, r] <= c) for c in range(m)] for r in range(13)]
        self.play_bits = ((1 << len(table.ranks)) - 1) << FIRST_PLAY
        self.misclaim_bit = (1 << (self.num_actions - 1)) if misclaim else 0
        self.nbytes = (self.num_actions + 7) // 8
        doubt = np.zeros(self.num_actions, dtype=np.int8)
        doubt[DOUBT] = doubt[PASS] = 1
        self.doubt = _read_only(doubt)
        self.none = _read_only(np.zeros(self.num_actions, dtype=np.int8))
        self.cache: dict[tuple[int, ...], np.ndarray] = {}
        """Play-phase masks by hand (13 rank counts), bounded by ``MASK_CACHE_BYTES``."""
        self.cache_max = max(16, MASK_CACHE_BYTES // self.num_actions)

    def play_mask(self, hand: list[int]) -> np.ndarray:
        """The play-phase mask of a hand of 13 rank counts (DI-6..DI-8, DI-13)."""
        key = tuple(hand)
        mask = self.cache.get(key)
        if mask is None:
            bits = self.play_bits
            m = self.m
            ok = self.ok
            for r, c in enumerate(hand):
                if c < m:
                    bits &= ok[r][c]
            bits |= self.misclaim_bit
            mask = _read_only(np.unpackbits(np.frombuffer(bits.to_bytes(self.nbytes, "little"), dtype=np.uint8),
                                            count=self.num_actions, bitorder="little").view(np.int8))
            if len(self.cache) >= self.cache_max:
                self.cache.clear()
            self.cache[key] = mask
        return mask


_MASKS: dict[tuple[int, bool], PlayMasks] = {}


def play_masks(m: int, misclaim: bool) -> PlayMasks:
    """The shared :class:`PlayMasks` of ``max_cards_per_play = m`` with or without ``misclaim``."""
    masks = _MASKS.get((m, misclaim))
    if masks is None:
        masks = _MASKS[m, misclaim] = PlayMasks(m, misclaim)
    return masks


def legal_mask(game) -> np.ndarray:
    """The read-only legal mask of ``game``'s position for ``current_player`` (DI-6..DI-8,
    DI-13, DI-19)."""
    masks = game._masks
    if game.done:
        return masks.none
    if game.phase == DOUBT_PHASE:
        return masks.doubt
    return masks.play_mask(game.hand_ranks[game.current_player])
