"""Copies of a Tongits game for search: :func:`clone` (the same state) and :func:`determinize`
(everything a seat cannot see dealt again, TG-7, TG-13, TG-20). Neither writes on the game it
copies; what a position's re-deal needs (:class:`Redeal`) is memoised here, keyed by the
position's content."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ...cards import BIT, cards_of, mask_of
from ...rng import copy_rng, fresh_rng
from .observation import O_HAND, O_MELD_INFO, O_PRIVATE_END, O_TAKEN
from .options import NUM_PLAYERS, PICKUP, RESPONSE
from .tables import RANK_MASK, TAKE_PAIRS, four_ranks


class Redeal(NamedTuple):
    """What :func:`determinize` deals again in one position for one seat: the other seats
    (``others``) and how many hidden cards each holds (``sizes``), the other seats' secret
    melds (indices in ``melds``), the ``unseen`` cards (mask; ``pool``: their list), the ranks a
    secret may have (``free_ranks``), the seats that must hold four of a rank (TG-20) and the
    seat that must meld the discard it took (TG-7, -1 for none)."""

    seat: int
    others: tuple[int, ...]
    sizes: tuple[int, ...]
    secret_melds: tuple[int, ...]
    unseen: int
    pool: list[int]
    free_ranks: list[int]
    must_hold_four: list[int]
    must_meld_taken: int


def redeal_of(game, seat: int) -> Redeal:
    """What :func:`determinize` deals again for ``seat`` in this position."""
    others = tuple(q for q in range(NUM_PLAYERS) if q != seat)
    hidden = [game.hands[q] & ~game.known[q] for q in others]
    secret_melds = tuple(k for k, m in enumerate(game.melds) if m[2] and m[0] != seat)
    unseen = sum(hidden) | mask_of(game.stock) | sum(game.melds[k][1] for k in secret_melds)
    return Redeal(
        seat=seat, others=others, sizes=tuple(h.bit_count() for h in hidden), secret_melds=secret_melds,
        unseen=unseen, pool=cards_of(unseen),
        free_ranks=[r for r in range(1, 14) if unseen & RANK_MASK[r] == RANK_MASK[r]],
        must_hold_four=[q for q in others if game.phase == RESPONSE and game.responses[q] == 1
                        and game.options.require_meld_to_contest and not game.faceup[q]
                        and not game.secrets[q]],
        must_meld_taken=game.current_player if game.phase == PICKUP and game.current_player != seat else -1)


_REDEALS: dict[tuple, Redeal] = {}
"""Memo of :func:`redeal_of`, keyed by the seat and every part of the position it reads (a
search determinizes one position many times); cleared when it grows past 4096 entries."""


def memo_redeal(game, seat: int) -> Redeal:
    """:func:`redeal_of` through the memo."""
    key = (seat, game.phase, game.current_player, game.options.require_meld_to_contest, *game.hands, *game.known,
           *game.responses, *game.faceup, *game.secrets, tuple(game.stock),
           tuple((k, m[0], m[1]) for k, m in enumerate(game.melds) if m[2]))
    redeal = _REDEALS.get(key)
    if redeal is None:
        if len(_REDEALS) >= 4096:
            _REDEALS.clear()
        redeal = _REDEALS[key] = redeal_of(game, seat)
    return redeal


def clone(game):
    """An independent copy in the same state, copied directly (tables and the read-only
    masks are shared)."""
    g = object.__new__(type(game))
    g.__dict__.update(game.__dict__)
    g.rng = copy_rng(game.rng)
    for name in ("chips", "discard", "blocked", "known", "responses", "events", "hands", "stock", "sizes",
                 "fits", "faceup", "secrets"):
        setattr(g, name, list(getattr(game, name)))
    g.melds = [list(m) for m in game.melds]
    priv = g.priv = game.priv.copy()
    g.hand_arr = priv[:, O_HAND:O_TAKEN]
    g.ext = priv[:, O_TAKEN:O_MELD_INFO]
    g.meld_info = priv[:, O_MELD_INFO:O_PRIVATE_END]
    g.pub = game.pub.copy()
    g.sa = game.sa.copy()
    return g


def determinize(game, seat: int, rng: np.random.Generator):
    """An independent copy in which everything ``seat`` cannot see is dealt again uniformly
    among the deals consistent with what it has seen: the other seats' face-down secrets
    (TG-12) get ranks whose four cards ``seat`` has not seen, and the other hands' cards not
    publicly taken from the discard pile (TG-7) and the stock are shuffled over the same slots.
    Every choice of secret ranks leaves the same number of ways to deal the rest, so drawing
    the ranks uniformly (ordered, without repeats) and then shuffling is uniform over the
    consistent deals. Two public facts constrain a hand, and deals breaking them are rejected
    and drawn again: a seat that took the discard and must meld it now (TG-7) holds two cards
    that meld with it, and during a call's responses a seat with no meld on the table that has
    challenged holds four of one rank (TG-20). The copy's generator for later deals is drawn
    from ``rng``. What is dealt again (:class:`Redeal`) is memoised by position and seat, for a
    search that determinizes one position many times."""
    redeal = memo_redeal(game, seat)
    g = clone(game)
    g.rng = fresh_rng(rng)
    secret_melds = [g.melds[k] for k in redeal.secret_melds]
    must_hold_four, must_meld_taken = redeal.must_hold_four, redeal.must_meld_taken
    while True:
        pool = redeal.pool
        if secret_melds:
            ranks = rng.permutation(redeal.free_ranks)[:len(secret_melds)].tolist()
            rest = redeal.unseen
            for r in ranks:
                rest &= ~RANK_MASK[r]
            pool = cards_of(rest)
        else:
            ranks = []
        order = rng.permutation(len(pool)).tolist()
        pos = 0
        for q, size in zip(redeal.others, redeal.sizes):
            hand = game.known[q]
            for i in order[pos:pos + size]:
                hand |= BIT[pool[i]]
            pos += size
            g.hands[q] = hand
        if all(four_ranks(g.hands[q]) for q in must_hold_four) and (
                must_meld_taken < 0 or any(g.hands[must_meld_taken] & pair == pair
                                           for pair in TAKE_PAIRS[game.taken])):
            break
    for m, r in zip(secret_melds, ranks):
        m[1] = RANK_MASK[r]
        m[4] = r
    g.stock = [pool[i] for i in order[pos:]]
    for q in redeal.others:
        row = g.hand_arr[q]
        row.fill(0.0)
        row[cards_of(g.hands[q])] = 1.0
    g._mask = None
    return g
