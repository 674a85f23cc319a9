"""Copies of a Contract Rummy game for search: :func:`clone` (the same state) and
:func:`determinize` (a re-deal keeping what a seat knows, CR-6); the real game is only read."""
from __future__ import annotations

import weakref
from itertools import compress, repeat

import numpy as np

from ...cards import BIT, NUM_CARDS, mask_of_counts
from ...rng import copy_rng, fresh_rng

ALL_CARDS = range(53)
LAST_UNSEEN: list = [None]
"""The last :func:`_unseen_cards` found: (the game, weakly; its ``state_version``; the seat; the
cards). Search re-deals one position many times; the real game is only read."""


def clone(g):
    """An independent copy in the same state, copied directly (the catalogue and its search
    memos, which depend on no hand, are shared)."""
    return copy(g, copy_rng(g.rng))


def copy(game, rng):
    """:func:`clone` with the generator ``rng``."""
    g = object.__new__(type(game))
    g.__dict__.update(game.__dict__)
    g.rng = rng
    g.scores = game.scores[:]
    g.events = game.events[:]
    g.hsize = game.hsize[:]
    g.pile = game.pile[:]
    g.stock = game.stock[:]
    g.down = game.down[:]
    g.laid = game.laid[:]
    g.present = game.present[:]
    g._hand_version = game._hand_version[:]
    g.hands = [row[:] for row in game.hands]
    g.known = [row[:] for row in game.known]
    if game.from_new_stock is not None:
        g.from_new_stock = [row[:] for row in game.from_new_stock]
    g.melds = [[m[0][:], m[1], m[2], m[3], m[4][:], m[5]] for m in game.melds]
    g.hand_np = game.hand_np.copy()
    g.known_np = game.known_np.copy()
    g.pile_np = game.pile_np.copy()
    g.public_obs = game.public_obs.copy()
    g._public_view = memoryview(g.public_obs)
    g._obs = g._obs_views = g._seen = None   # the seats' buffers: written again when asked for
    g._hand_views = [memoryview(h) for h in g.hand_np]
    g._known_views = [memoryview(k) for k in g.known_np]
    g._pile_view = memoryview(g.pile_np)
    return g


def determinize(game, seat: int, rng: np.random.Generator):
    """An independent copy in which everything ``seat`` cannot see (CR-6) is dealt again
    uniformly at random among the deals consistent with what it has seen: the other hands'
    cards not publicly picked up from the pile (CR-11) and the stock are shuffled over the same
    slots, keeping every hand size and the cards each seat is known to hold.

    After the pile is shuffled into a new stock (CR-4, CR-32) the new stock's cards are public
    as a set: the stock then holds only cards of it, and each other hand as many as it drew
    from it and still holds (``from_new_stock``; a card played counts as one held before the
    reshuffle while the hand has such a copy, exact with one deck and at most one joker; after
    a second reshuffle, the first one's cards count as older ones). So the unseen cards of the
    new stock are shuffled over the stock and those slots, the other unseen cards over the
    rest. The unseen cards are found once per position and seat (``_unseen``).

    When another seat is to act with a must-use card or a freed joker to place (CR-12, CR-23),
    which its take or swap showed it can, deals in which it has no legal action are rejected
    and drawn again. The copy's generator is drawn from ``rng``."""
    g = copy(game, fresh_rng(rng))
    others, known_present, classes = _unseen_of(game, seat)
    duty = game.current_player != seat and (game.must >= 0 or game.freed)
    while True:
        hands = [game.known[s][:] for s in others]
        present = list(known_present)
        views = [g._hand_views[s] for s in others]
        for s, view in zip(others, views):
            view[:] = game._known_views[s]
        for k, (cards, slots) in enumerate(classes):
            shuffled = cards.copy()
            rng.shuffle(shuffled)
            shuffled = shuffled.tolist()
            at = 0
            for i, size in enumerate(slots):
                hand, view = hands[i], views[i]
                for c in shuffled[at:at + size]:
                    hand[c] += 1
                    view[c] = hand[c]
                    if c < NUM_CARDS:
                        present[i] |= BIT[c]
                at += size
            if k == 0:
                g.stock = shuffled[at:]
        for i, s in enumerate(others):
            g.hands[s] = hands[i]
            g.present[s] = present[i]
            g._hand_version[s] += 1
        g._state_changed()
        if not duty or g.legal_mask().any():
            return g


def _unseen_of(game, seat: int) -> tuple:
    """:func:`_unseen_cards`, found again only when the game, its state or the seat differs."""
    last = LAST_UNSEEN[0]
    if last is not None and last[0]() is game and last[1] == game.state_version and last[2] == seat:
        return last[3]
    unseen = _unseen_cards(game, seat)
    LAST_UNSEEN[0] = (weakref.ref(game), game.state_version, seat, unseen)
    return unseen


def _unseen_cards(g, seat: int) -> tuple:
    """What ``seat`` cannot see: the other seats, the masks of the cards each is known to hold,
    and the unseen cards by class ``(cards, slots)`` (the cards sorted, so that a re-deal
    depends only on what the seat has seen, and the slots of each other seat; the stock's slots
    are the rest of the first class). After a reshuffle the first class is the new stock's
    cards (the stock and what the others drew from it and hold), the second the older ones;
    before, there is one class."""
    others = [s for s in range(g.num_players) if s != seat]
    fresh = g.from_new_stock
    stock_class, older_class = g.stock[:], []
    stock_slots, older_slots = [], []
    for s in others:
        hand, known = g.hands[s], g.known[s]
        from_stock = older = 0
        for c in compress(ALL_CARDS, hand):
            hidden = hand[c] - known[c]
            if hidden:
                drawn = hidden if fresh is None else fresh[s][c]
                stock_class.extend(repeat(c, drawn))
                older_class.extend(repeat(c, hidden - drawn))
                from_stock += drawn
                older += hidden - drawn
        stock_slots.append(from_stock)
        older_slots.append(older)
    classes = [(np.sort(stock_class), stock_slots)]
    if older_class:
        classes.append((np.sort(older_class), older_slots))
    return others, [mask_of_counts(g.known[s]) for s in others], classes
