"""Copies of a Rummy game for search: :func:`clone` (the same state) and :func:`determinize`
(every card a seat cannot see dealt again, RM-24, RM-32). Neither writes on the game it copies."""
from __future__ import annotations

from collections import deque

import numpy as np

from ...cards import BIT, FULL_DECK, cards_of, masks_to_planes
from ...rng import copy_rng, fresh_rng


def clone(game):
    """An independent copy in the same state (tables and read-only masks are shared)."""
    g = object.__new__(type(game))
    g.__dict__.update(game.__dict__)
    for name in ("hands", "stock", "discard", "meld_owner", "meld_mask", "meld_shape", "meld_fit", "front",
                 "known", "scores", "turned"):
        setattr(g, name, list(getattr(game, name)))
    g.events = deque(game.events, maxlen=20)
    g._buf = game._buf.copy()
    g._mv = memoryview(g._buf)
    g.rng = copy_rng(game.rng)
    return g


def determinize(game, seat: int, rng: np.random.Generator):
    """An independent copy in which every card ``seat`` cannot see (RM-32) is dealt again
    uniformly among the deals consistent with what it has seen. Cards taken from the discard
    pile stay with their taker. Without a turnover this round, the other hands' other cards
    and the stock are shuffled over the same slots. A turnover (RM-24) splits the unseen cards
    by the last packet each was turned over in (none: dealt or drawn before any turnover):
    the stock holds only cards of the last packet, and each hand holds a public number of
    cards of each packet (every draw since is counted, every card that leaves a hand is
    seen). Unshuffled, the stock's order and so every card drawn from it is public: those
    stay, and only never-turned cards are shuffled among the other hands. Shuffled, each
    packet's unseen cards are shuffled over its own slots (the stock and its count in each
    hand). The copy's generator for later shuffles is drawn from ``rng``."""
    g = clone(game)
    g.rng = fresh_rng(rng)
    others = [q for q in range(game.num_players) if q != seat]
    hidden = {q: game.hands[q] & ~game.known[q] for q in others}
    classes = []   # (mask of the cards whose last packet it is, whether the stock is among its slots)
    later = 0
    for i in range(len(game.turned) - 1, -1, -1):
        classes.append((game.turned[i] & ~later, i == len(game.turned) - 1))
        later |= game.turned[i]
    classes.append((FULL_DECK & ~later, not game.turned))
    hands = dict.fromkeys(others, 0)
    public_stock = not game.options.shuffle_turnover
    for k, (mask, with_stock) in enumerate(classes):
        if public_stock and k < len(classes) - 1:
            for q in others:
                hands[q] |= hidden[q] & mask   # drawn from a public stock: seen
            continue
        pool = cards_of(sum(hidden[q] & mask for q in others))
        if with_stock:
            pool += game.stock
        pool.sort()   # a deal that depends only on what the seat has seen, not on where the cards are
        order = rng.permutation(len(pool)).tolist()
        pos = 0
        for q in others:
            size = (hidden[q] & mask).bit_count()
            for i in order[pos:pos + size]:
                hands[q] |= BIT[pool[i]]
            pos += size
        if with_stock:
            g.stock = [pool[i] for i in order[pos:]]
    L, buf = game.layout, g._buf
    for q in others:
        hand = g.hands[q] = game.known[q] | hands[q]
        buf[L.hands + 52 * q:L.hands + 52 * q + 52] = masks_to_planes([hand])
    g._mask = None
    return g
