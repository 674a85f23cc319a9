"""Copies of an I Doubt It game for search: :func:`clone` and :func:`determinize`, the re-deal
that keeps what a seat knows (DI-5, DI-20, DI-21).

What a re-deal deals again in one position for one seat (:class:`Redeal`) is worked out once and
kept in a module-level cache holding the last one (its game held weakly, its position and seat),
for a search that determinizes one position many times; nothing is written on the game.
"""
from __future__ import annotations

import itertools
import weakref
from collections import deque

import numpy as np

from ...cards import NUM_CARDS
from ...rng import copy_rng, fresh_rng
from .moves import legal_mask
from .observation import hand_start, own_start
from .options import DOUBT_PHASE, MAX_EVENTS

_CARD_IDS = range(NUM_CARDS)
RANK_OF = tuple(c % 13 for c in _CARD_IDS)
"""The rank index of every card id (DI-5: suits never matter)."""
BELIEF_TRIES = 64
"""Deals tried by ``determinize(..., truthful_claim=True)`` for one in which the claim can be true."""


def _play_truthfully(cards: list[int], claim: int, played: int) -> list[int]:
    """A pending seat's re-dealt hand and play (``cards``, shuffled; the play is the last
    ``played``) reordered so that the play is ``played`` cards of the claimed rank, chosen at random
    among those it holds, when it holds that many; otherwise unchanged."""
    claimed = [i for i, c in enumerate(cards) if RANK_OF[c] == claim]
    if len(claimed) < played:
        return cards
    chosen = set(claimed[:played])
    return [c for i, c in enumerate(cards) if i not in chosen] + [cards[i] for i in sorted(chosen)]


class Redeal:
    """What :func:`determinize` deals again in one position for one seat, which depends only on
    the two (DI-5, DI-20, DI-21): the cards that seat cannot place (``pool``, sorted by rank, so
    that a deal depends only on what the seat has seen and not on where the cards are) and the
    slots a shuffled pool fills, in order: ``slots`` (``NUM_CARDS * seat`` for each of the first
    ``dealt`` cards, the pending seat counted as seat ``n``), the pending seat's share
    ``pending_from:pending_to`` (dealt with its own play, see :func:`determinize`), then the pile
    positions ``loose``. ``kept``: the card counts that stay where they are (the seat's own hand
    and the cards other seats are known to hold), ``NUM_CARDS`` per seat; ``changed``: the seats
    whose cards in the pile are dealt again."""

    __slots__ = ("seat", "pool", "dealt", "slots", "kept", "pending", "pending_keep", "pending_from",
                 "pending_to", "played", "loose", "changed")

    def __init__(self, game, seat: int):
        n = game.num_players
        pile, owner = game.pile, game.pile_owner
        pending = game.pending if game.phase == DOUBT_PHASE and game.pending != seat else -1
        played = len(pile) - game.pending_k if game.phase == DOUBT_PHASE else len(pile)
        second_copies = game.options.num_decks > 1
        rank_of = RANK_OF
        pool = []
        self.pending_keep = []   # the pending seat's cards known to stay among its hand and play
        self.pending_from = self.pending_to = 0
        kept = [0] * (n * NUM_CARDS)
        kept[seat * NUM_CARDS:(seat + 1) * NUM_CARDS] = game.hand_cards[seat]
        takers = []   # the seats in the order they take their cards from the shuffled pool
        for s in range(n):
            if s == seat:
                continue
            counts = game.hand_cards[s]
            region = list(itertools.compress(_CARD_IDS, counts))
            if second_copies:
                region += [c for c in region if counts[c] > 1]
            if s == pending:
                region += pile[played:]
            need = (game.pending_known if s == pending else game.known[s])[:]
            taken = len(takers)
            for c in region:
                r = rank_of[c]
                if need[r]:
                    need[r] -= 1
                    if s == pending:
                        self.pending_keep.append(c)
                    else:
                        kept[NUM_CARDS * s + c] += 1
                else:
                    pool.append(c)
                    takers.append(n if s == pending else s)
            if s == pending:
                self.pending_from, self.pending_to = taken, len(takers)
        self.loose = [i for i, s in enumerate(owner[:played]) if s != seat]
        pool += [pile[i] for i in self.loose]
        pool.sort(key=rank_of.__getitem__)
        self.seat = seat
        self.pool = np.array(pool, dtype=np.intp)
        self.dealt = len(takers)
        self.slots = NUM_CARDS * np.array(takers, dtype=np.intp)
        self.kept = np.array(kept, dtype=np.intp)
        self.pending = pending
        self.played = played
        self.changed = sorted({s for s in owner if s >= 0 and s != seat})


_LAST_REDEAL: list = [None, None, None]
"""The last :class:`Redeal` worked out: [a weak reference to its game, the game's position
(:func:`_position`), the re-deal]."""


def _position(game) -> tuple[int, int, int]:
    """Where ``game`` is in its line of play: plays made, phase and the doubt window's progress.
    A play (or misclaim) raises the count, a pass moves the window on, and a doubt or the last
    pass ends the window (back to the play phase), so no two positions of one game share these."""
    return game.plays_made, game.phase, game.window_pos


def _redeal(game, seat: int) -> Redeal:
    """The :class:`Redeal` of ``game``'s position for ``seat``, kept for the next call."""
    ref, position, redeal = _LAST_REDEAL
    here = _position(game)
    if ref is None or ref() is not game or position != here or redeal.seat != seat:
        redeal = Redeal(game, seat)
        _LAST_REDEAL[:] = weakref.ref(game), here, redeal
    return redeal


def copy_game(game):
    """A copy for :func:`clone` and :func:`determinize`, which set its generator and its
    per-seat hands and own-pile counts (shared with ``game`` until then)."""
    g = object.__new__(type(game))
    g.__dict__.update(game.__dict__)
    g.known = [row[:] for row in game.known]
    g.stats = [row[:] for row in game.stats]
    g.hand_size = game.hand_size[:]
    g.pile = game.pile[:]
    g.pile_owner = game.pile_owner[:]
    g.window = game.window[:]
    g.out = game.out[:]
    g.places = game.places[:]
    g.out_order = game.out_order[:]
    g.known_total = game.known_total[:]
    if game.pending_known is not None:
        g.pending_known = game.pending_known[:]
    g.events = deque(game.events, maxlen=MAX_EVENTS)
    g._vec = game._vec.copy()
    g._mv = memoryview(g._vec)
    return g


def clone(game):
    """An independent copy in the same state, copied directly (tables, masks and the
    replaced-not-changed records ``last_reveal`` and ``final_rewards`` are shared)."""
    g = copy_game(game)
    g.rng = copy_rng(game.rng)
    g.hand_cards = [row[:] for row in game.hand_cards]
    g.hand_ranks = [row[:] for row in game.hand_ranks]
    g.own_pile = [row[:] for row in game.own_pile]
    return g


def determinize(game, seat: int, rng: np.random.Generator, truthful_claim: bool = False):
    """An independent copy in which everything ``seat`` cannot see is dealt again uniformly
    among the deals consistent with what it has seen: the other hands and the face-down pile
    cards it did not play itself (DI-21) are shuffled over the same slots, keeping every hand
    and pile size, each seat's publicly known cards (``known``: cards revealed by a doubt and
    taken, DI-20) and, during a doubt window, the cards the pending player was known to hold
    before its play, which lie anywhere among its hand and the cards just played (so the
    claim's truth is re-dealt too). Not tracked by the engine, and so not kept: which of
    ``seat``'s own pile cards went to the seat that took that pile. The copy's generator is
    drawn from ``rng``. ``game`` is left unchanged.

    ``truthful_claim=True`` deals from a belief instead of uniformly: that the player whose
    claim is pending told the truth when it could (the rule-based agents do). The pool is
    shuffled again, up to ``BELIEF_TRIES`` times, until that player's re-dealt hand and play
    hold enough cards of the claimed rank, and its play is then made of them; when no try
    does (the seat may know that too few copies are left), the last deal stands. The seat's
    own observation is the same either way. ``agents/pimc.py`` uses it with
    ``claims=truthful`` (docs/journal/search.md)."""
    redeal = _redeal(game, seat)
    g = copy_game(game)
    g.rng = fresh_rng(rng)
    n = game.num_players
    rank_of = RANK_OF
    shuffled = redeal.pool.copy()
    rng.shuffle(shuffled)
    pending = redeal.pending
    if truthful_claim and pending >= 0:
        kept = sum(rank_of[c] == game.claim_rank for c in redeal.pending_keep)
        missing = len(game.pile) - redeal.played - kept   # claimed cards its re-dealt share must hold
        for _ in range(BELIEF_TRIES - 1):
            share = shuffled[redeal.pending_from:redeal.pending_to]
            if np.count_nonzero(share % 13 == game.claim_rank) >= missing:
                break
            rng.shuffle(shuffled)
    counts = np.bincount(redeal.slots + shuffled[:redeal.dealt], minlength=(n + 1) * NUM_CARDS)
    counts = counts[:n * NUM_CARDS] + redeal.kept
    ranks = counts.reshape(n, NUM_CARDS // 13, 13).sum(axis=1)   # card id = 13 * suit + rank
    hand_cards = g.hand_cards = counts.reshape(n, NUM_CARDS).tolist()
    own_pile = g.own_pile = [row[:] for row in game.own_pile]
    new_pile = g.pile
    if pending >= 0:   # its hand and its play, shuffled together (sorted by rank, as the pool)
        cards = redeal.pending_keep + shuffled[redeal.pending_from:redeal.pending_to].tolist()
        cards.sort(key=rank_of.__getitem__)
        rng.shuffle(cards)
        size = game.hand_size[pending]
        if truthful_claim:
            cards = _play_truthfully(cards, game.claim_rank, len(cards) - size)
        new_pile[redeal.played:] = cards[size:]
        hand = [0] * NUM_CARDS
        hand_ranks = [0] * 13
        for c in cards[:size]:
            hand[c] += 1
            hand_ranks[rank_of[c]] += 1
        hand_cards[pending] = hand
        ranks[pending] = hand_ranks
    for i, c in zip(redeal.loose, shuffled[redeal.dealt:].tolist()):
        new_pile[i] = c
    v = g._vec
    if redeal.changed:
        own0 = own_start(n)
        for s in redeal.changed:
            own_pile[s] = [0] * 13
        for c, s in zip(new_pile, game.pile_owner):
            if s >= 0 and s != seat:
                own_pile[s][rank_of[c]] += 1
        for s in redeal.changed:
            v[own0 + 13 * s:own0 + 13 * s + 13] = own_pile[s]
    g.hand_ranks = ranks.tolist()
    hand0 = hand_start(n)
    v[hand0:hand0 + 13 * n] = ranks.ravel()
    if game.current_player != seat and game.phase != DOUBT_PHASE and not game.done:
        g._mask = legal_mask(g)   # the acting hand was dealt again (else the mask stays)
    return g
