"""Re-deals of what one seat's observation does not show, one per game: ``redeal_<game>(game, seat,
rng)`` returns a copy of ``game`` in which the cards hidden from ``seat``'s observation are dealt
again at random. Each keeps what its docstring lists, which is everything the seat observes: its own
hand, the public cards and every count, so that the seat's observation and view stay bit-identical
(``harness.check_hidden_information``). They keep no more than that, and so not everything a seat
could work out from the history: after an unshuffled Rummy turnover (RM-24) the stock's order and
each card drawn from it are public, and after a Contract Rummy reshuffle (CR-32) which cards make up
the new stock is public, yet these re-deals shuffle those cards with the other hidden ones (the
engines' ``determinize`` keeps them; tests/test_redeals.py shows both). The hidden-information tests
of the games and of their rule-based agents compare what a seat observes, or an agent chooses,
before and after such a re-deal (shared contract 3).
"""
from __future__ import annotations

import numpy as np

from rummy_env.cards import BIT, cards_of
from rummy_env.games.i_doubt_it import IDoubtItGame
from rummy_env.games.tongits import TongitsGame

# Whether each Tongits re-deal changed anything (hands, stock or a secret's rank).
TONGITS_REDEAL_CHANGES: list = []


def redeal_rummy(game, seat, rng):
    """A copy of ``game`` with the other hands (except cards publicly taken from the discard pile)
    and the stock re-dealt over the same slots, even after an unshuffled turnover."""
    g = game.clone()
    hidden = [g.hands[q] & ~g.known[q] if q != seat else 0 for q in range(g.num_players)]
    pool = [c for h in hidden for c in cards_of(h)] + list(g.stock)
    pool = [pool[i] for i in rng.permutation(len(pool))]
    pos = 0
    for q in range(g.num_players):
        if q != seat:
            size = hidden[q].bit_count()
            g.hands[q] = g.known[q] | sum(BIT[c] for c in pool[pos:pos + size])
            pos += size
    g.stock = pool[pos:]
    g.rng = np.random.default_rng(int(rng.integers(1 << 30)))
    g._mask = None
    g._rebuild_buf()
    return g


def redeal_tongits(game, seat, rng):
    """Re-deal everything ``seat`` cannot see: other hands (except cards publicly known to be
    there), the stock order, and the ranks of other seats' face-down secrets (still four of a kind)."""
    d = game.to_dict()
    others = [s for s in range(3) if s != seat]
    pool = set(d["stock"])
    for s in others:
        pool |= set(cards_of(d["hands"][s] & ~d["known"][s]))
    hidden_secrets = [k for k, m in enumerate(d["melds"]) if m[2] and m[0] != seat]
    for k in hidden_secrets:
        pool |= set(cards_of(d["melds"][k][1]))
    full_ranks = [r for r in range(1, 14) if all(13 * s + r - 1 in pool for s in range(4))]
    ranks = rng.choice(full_ranks, size=len(hidden_secrets), replace=False) if hidden_secrets else []
    for k, r in zip(hidden_secrets, ranks):
        mask = sum(1 << (13 * s + int(r) - 1) for s in range(4))
        d["melds"][k][1] = mask
        d["melds"][k][4] = int(r)
        pool -= set(cards_of(mask))
    pool = [int(c) for c in rng.permutation(sorted(pool))]
    sizes = [len(d["stock"])] + [len(cards_of(d["hands"][s] & ~d["known"][s])) for s in others]
    d["stock"], pos = pool[:sizes[0]], sizes[0]
    for s, n in zip(others, sizes[1:]):
        d["hands"][s] = d["known"][s] | sum(1 << c for c in pool[pos:pos + n])
        pos += n
    redealt = TongitsGame.from_dict(d)
    TONGITS_REDEAL_CHANGES.append((redealt.stock != game.stock) or redealt.hands != game.hands
                          or [m[1] for m in redealt.melds] != [m[1] for m in game.melds])
    return redealt


def redeal_i_doubt_it(game, seat: int, rng: np.random.Generator):
    """Re-deal everything ``seat`` cannot see: other hands and the pile cards it did not put
    there, keeping each seat's publicly known cards (and, during a window, the cards the
    pending player was known to hold before its play) and every hand and pile size."""
    d = game.to_dict()
    n = game.num_players
    pending = d["pending"][0] if d["phase"] == 1 else -1
    k = d["pending"][1]
    slots = []   # (place, index, card, owner seat)
    for s in range(n):
        if s != seat:
            slots += [("hand", s, c, s) for c in d["hands"][s]]
    pile = d["pile"]
    for i, (c, o) in enumerate(zip(pile, d["pile_owner"])):
        if o != seat:
            slots.append(("pile", i, c, pending if (pending >= 0 and i >= len(pile) - k) else -2))
    fixed = [False] * len(slots)
    for s in range(n):
        if s == seat:
            continue
        need = list(d["pending_known"] if s == pending else d["known"][s])
        for j, (place, _, c, owner) in enumerate(slots):   # hand slots first, then pending pile slots
            if owner == s and need[c % 13] > 0:
                need[c % 13] -= 1
                fixed[j] = True
        assert not any(need)
    free = [j for j in range(len(slots)) if not fixed[j]]
    pool = [slots[j][2] for j in free]
    rng.shuffle(pool)
    new_hands = {s: [] for s in range(n) if s != seat}
    new_pile = list(pile)
    placed = dict(zip(free, pool))
    for j, (place, idx, c, _) in enumerate(slots):
        card = placed.get(j, c)
        if place == "hand":
            new_hands[idx].append(card)
        else:
            new_pile[idx] = card
    for s, h in new_hands.items():
        d["hands"][s] = sorted(h)
    d["pile"] = new_pile
    redeal_i_doubt_it.changed += d["hands"] != game.to_dict()["hands"] or d["pile"] != pile
    return IDoubtItGame.from_dict(d)


# How many I Doubt It re-deals changed a hand or the pile.
redeal_i_doubt_it.changed = 0


def redeal_contract_rummy(game, seat, rng):
    """Copy of ``game`` with the other hands (minus their public pick-ups) and the stock re-dealt
    over the same slots, even after a reshuffle."""
    g = game.clone()
    pool = list(g.stock)
    for s in range(g.num_players):
        if s != seat:
            for c in range(53):
                pool += [c] * (g.hands[s][c] - g.known[s][c])
    order = rng.permutation(len(pool))
    pool = [pool[i] for i in order]
    for s in range(g.num_players):
        if s != seat:
            hand = list(g.known[s])
            for _ in range(g.hsize[s] - sum(g.known[s])):
                hand[pool.pop()] += 1
            g.hands[s] = hand
    g.stock = pool
    g._rebuild_buffers()
    g._state_changed()
    return g


def redeal_ginny_o(game, seat, rng):
    """A copy of ``game`` with everything ``seat`` cannot see re-dealt: the other racks (the
    acting seat keeps the tiles it chose to exchange), the box order and contents, the RNG."""
    g = game.clone()
    keep = {s: [0] * 53 for s in range(g.num_players)}
    if g.current_player != seat:
        for t in g.chosen:
            keep[g.current_player][t] += 1
    pool = list(g.box)
    sizes = {}
    for s in range(g.num_players):
        if s == seat:
            continue
        r = g.racks[s]
        sizes[s] = sum(r) - sum(keep[s])
        pool += [t for t in range(53) for _ in range(r[t] - keep[s][t])]
    rng.shuffle(pool)
    for s, k in sizes.items():
        r = list(keep[s])
        for t in pool[:k]:
            r[t] += 1
        pool = pool[k:]
        g.racks[s] = r
    g.box = pool
    cp = g.current_player
    if cp != seat and g.drew >= 0 and not g.racks[cp][g.drew] and sum(g.racks[cp]):
        g.drew = next(t for t in range(53) if g.racks[cp][t])
    g.rng = np.random.default_rng(int(rng.integers(2 ** 32)))
    g.state_changed()
    return g
