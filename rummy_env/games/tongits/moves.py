"""Tongits' legal moves: the legal mask of the seat to act (TG-6..TG-8, TG-10..TG-20), with the
meld-id lookups it is built from, and the lay-off mask of a table meld (TG-15)."""
from __future__ import annotations

import numpy as np

from ...cards import BIT, RANK_OF, SUIT_OF
from ...melds import SET_SUIT_CHOICES
from .actions import A_CALL, A_CHALLENGE, A_DRAW, A_FOLD, A_TAKE, DISCARD0, LAYOFF0, MELD0, NUM_ACTIONS, SECRET0
from .options import DRAW, MELD, RESPONSE
from .tables import CAT_MASK, CATALOGUE, RANK_MASK, SUIT_BITS, TAKE_PAIRS

# SET_IDS[r][suitmask] -> meld action ids of the sets of rank r (1..13) inside suitmask.
SET_IDS = [[()] * 16] + [
    [tuple(MELD0 + 5 * (r - 1) + j for j, ss in enumerate(SET_SUIT_CHOICES)
           if all(sm >> s & 1 for s in ss)) for sm in range(16)]
    for r in range(1, 14)]
_RUN_INDEX = {}
for _i, _m in enumerate(CATALOGUE):
    if _i >= 65:
        _RUN_INDEX[(SUIT_OF[_m[0]], RANK_OF[_m[0]], RANK_OF[_m[-1]])] = MELD0 + _i


def _segment_runs(sm: int) -> list:
    """(lo, hi) rank pairs of every run of 3+ consecutive ranks inside the 13-bit mask ``sm``."""
    out = []
    r = 1
    while r <= 13:
        if sm >> (r - 1) & 1:
            e = r
            while e < 13 and sm >> e & 1:
                e += 1
            out.extend((lo, hi) for lo in range(r, e - 1) for hi in range(lo + 2, e + 1))
            r = e + 1
        else:
            r += 1
    return out


_SEGMENTS = [_segment_runs(sm) if sm & (sm >> 1) & (sm >> 2) else [] for sm in range(1 << 13)]
RUN_IDS = tuple(tuple(tuple(sorted(_RUN_INDEX[(s, lo, hi)] for lo, hi in seg)) if seg else () for seg in _SEGMENTS)
                for s in range(4))
"""RUN_IDS[suit][13-bit rank mask] -> meld action ids of the runs inside it."""
del _SEGMENTS


def _const_mask(ids) -> np.ndarray:
    m = np.zeros(NUM_ACTIONS, dtype=np.int8)
    m[list(ids)] = 1
    m.flags.writeable = False
    return m


DRAW_MASKS = ((_const_mask([A_DRAW]), _const_mask([A_DRAW, A_CALL])),
              (_const_mask([A_DRAW, A_TAKE]), _const_mask([A_DRAW, A_TAKE, A_CALL])))
RESPONSE_MASK = _const_mask([A_CHALLENGE, A_FOLD])
FOLD_MASK = _const_mask([A_FOLD])
"""TG-20: the only answer of an opponent that is not qualified."""
EMPTY_MASK = _const_mask([])


def fit(m: list) -> int:
    """Cards that may be laid off on face-up meld ``m`` (TG-15)."""
    if m[3] == 0:
        return RANK_MASK[m[4]] & ~m[1]   # the missing suit of a 3-card set; 0 for four
    suit, lo, hi = m[4], m[5], m[6]
    f = 0
    if lo > 1:
        f |= BIT[13 * suit + lo - 2]
    if hi < 13:
        f |= BIT[13 * suit + hi]
    return f


def can_take(game, seat: int) -> bool:
    """TG-7: the top discard and two hand cards form a meld."""
    if not game.discard:
        return False
    if not game.options.discard_take_must_meld:
        return True
    h = game.hands[seat]
    for pair in TAKE_PAIRS[game.discard[-1]]:
        if h & pair == pair:
            return True
    return False


def meld_ids(h: int) -> list:
    """Meld (and secret) action ids of everything in hand ``h``."""
    s0 = h & SUIT_BITS
    s1 = (h >> 13) & SUIT_BITS
    s2 = (h >> 26) & SUIT_BITS
    s3 = (h >> 39) & SUIT_BITS
    ids = []
    three = (s0 & s1 & (s2 | s3)) | (s2 & s3 & (s0 | s1))
    while three:
        low = three & -three
        i = low.bit_length() - 1
        sm = (s0 >> i & 1) | (s1 >> i & 1) << 1 | (s2 >> i & 1) << 2 | (s3 >> i & 1) << 3
        ids.extend(SET_IDS[i + 1][sm])
        if sm == 15:
            ids.append(SECRET0 + i)
        three ^= low
    ids += RUN_IDS[0][s0]
    ids += RUN_IDS[1][s1]
    ids += RUN_IDS[2][s2]
    ids += RUN_IDS[3][s3]
    return ids


def legal_mask(game) -> np.ndarray:
    """int8 mask of the legal actions of ``current_player``, cached until the next step.
    Draw- and response-phase masks are shared read-only arrays: copy before changing one."""
    m = game._mask
    if m is not None:
        return m
    ph = game.phase
    p = game.current_player
    if game.done:
        m = EMPTY_MASK
    elif ph == DRAW:
        m = DRAW_MASKS[can_take(game, p)][game.faceup[p] > 0 and not game.blocked[p]]
    elif ph == RESPONSE:                                               # TG-20
        m = RESPONSE_MASK if game.qualified(p) or not game.options.require_meld_to_contest else FOLD_MASK
    elif ph == MELD:
        m = np.zeros(NUM_ACTIONS, dtype=np.int8)
        h = game.hands[p]
        m[DISCARD0:MELD0] = game.hand_arr[p]
        if game.taken >= 0 and game.sizes[p] > 1:
            m[DISCARD0 + game.taken] = 0
        ids = meld_ids(h)
        k = 0
        for f in game.fits:
            x = h & f
            while x:
                low = x & -x
                ids.append(LAYOFF0 + 17 * (low.bit_length() - 1) + k)
                x ^= low
            k += 1
        if ids:
            m[ids] = 1
    else:  # PICKUP (TG-7): face-up melds holding the taken card
        m = np.zeros(NUM_ACTIONS, dtype=np.int8)
        tb = BIT[game.taken]
        m[[a for a in meld_ids(game.hands[p]) if a < SECRET0 and CAT_MASK[a - MELD0] & tb]] = 1
    game._mask = m
    return m
