"""Rummy's legal moves: the legal mask of the seat to act (RM-6, RM-7, RM-10..RM-20), built once
per state from the meld tables and kept until the next step."""
from __future__ import annotations

import numpy as np

from ...melds import extend
from .actions import DRAW_STOCK, LAYOFF0, MELD0, NUM_ACTIONS, TAKE_DISCARD
from .options import DRAW
from .tables import CAT_MASK, SET_IDS, fit_mask, runs_in

DRAW_MASK = np.zeros(NUM_ACTIONS, np.int8)
DRAW_MASK[[DRAW_STOCK, TAKE_DISCARD]] = 1
DRAW_MASK.flags.writeable = False
NO_MASK = np.zeros(NUM_ACTIONS, np.int8)
NO_MASK.flags.writeable = False


def legal_mask(game) -> np.ndarray:
    """int8 mask over the 1307 actions for ``current_player`` (cached, read-only)."""
    m = game._mask
    if m is None:
        if game.done:
            m = NO_MASK
        elif game.phase == DRAW:
            m = DRAW_MASK
        else:
            m = np.frombuffer(play_bytes(game), np.int8)
            m.flags.writeable = False
        game._mask = m
    return m


def meld_candidates(hand: int, ace_high: bool) -> list[int]:
    """Catalogue ids of every meld inside ``hand`` under the options (RM-10..RM-12)."""
    a = hand & 0x1FFF
    b = (hand >> 13) & 0x1FFF
    c = (hand >> 26) & 0x1FFF
    d = hand >> 39
    out: list[int] = []
    three = (a & b & (c | d)) | (c & d & (a | b))
    while three:
        low = three & -three
        r0 = low.bit_length() - 1
        out += SET_IDS[r0][(a >> r0 & 1) | (b >> r0 & 1) << 1 | (c >> r0 & 1) << 2 | (d >> r0 & 1) << 3]
        three ^= low
    for s, x in enumerate((a, b, c, d)):
        y = x | (x & 1) << 13 if ace_high else x
        if y & (y >> 1) & (y >> 2):
            out += runs_in(s, x, ace_high)
    return out


def stranding_ok(game, rest: int, tbit: int, new_fit: int, skip: int) -> bool:
    """RM-18/RM-20 for a meld or lay-off leaving ``rest`` (at most one card) in hand.

    ``new_fit``: lay-off mask of the meld the move lays or extends; ``skip``: its index
    among the table melds (-1 for a new meld)."""
    if game.options.must_discard_to_go_out:
        return rest != 0 and rest != tbit
    if rest == 0 or rest != tbit:
        return True
    if rest & new_fit:
        return True
    fit = game.meld_fit
    return any(rest & fit[j] for j in range(len(fit)) if j != skip)


def play_bytes(game) -> bytearray:
    """The play-phase mask (RM-7, RM-14, RM-17, RM-18, RM-20) as bytes."""
    b = bytearray(NUM_ACTIONS)
    hand = game.hands[game.current_player]
    tbit = game.current_taken_bit
    high = game.options.ace_high
    cat_fit = game._cat_fit
    h = hand ^ tbit
    while h:  # discards: every card but the taken one (RM-17)
        low = h & -h
        b[low.bit_length() + 1] = 1  # DISCARD0 + card
        h ^= low
    for m in meld_candidates(hand, high):
        rest = hand ^ CAT_MASK[m]
        if rest & (rest - 1) == 0 and not stranding_ok(game, rest, tbit, cat_fit[m], -1):
            continue
        b[MELD0 + m] = 1
    for k, fit in enumerate(game.meld_fit):  # lay-offs (RM-14, RM-15)
        f = hand & fit
        while f:
            low = f & -f
            f ^= low
            c = low.bit_length() - 1
            rest = hand ^ low
            if rest & (rest - 1) == 0:
                shape = extend(game.meld_shape[k], c, high)
                new_fit = fit_mask(shape, game.meld_mask[k] | low, high)
                if not stranding_ok(game, rest, tbit, new_fit, k):
                    continue
            b[LAYOFF0 + 17 * c + k] = 1
    return b
