"""Copies of a game: :meth:`~Serialisation.clone`, :meth:`~Serialisation.determinize`, JSON
(``to_dict`` / ``from_dict``) and pickling."""
from __future__ import annotations

from itertools import compress, repeat

import numpy as np

from ... import melds as ml
from ...cards import BIT, NUM_CARDS, mask_of_counts
from ...rng import copy_rng, fresh_rng
from .options import CONTRACTS, Options


ALL_CARDS = range(53)


class Serialisation:
    """Copies, a part of :class:`~rummy_env.games.contract_rummy.game.ContractRummyGame`."""

    def clone(self) -> "ContractRummyGame":
        """An independent copy in the same state, copied directly (the catalogue and its search
        memos, which depend on no hand, are shared)."""
        return self._copy(copy_rng(self.rng))

    def _copy(self, rng) -> "ContractRummyGame":
        """:meth:`clone` with the generator ``rng``."""
        g = object.__new__(type(self))
        g.__dict__.update(self.__dict__)
        g.rng = rng
        g.scores = self.scores[:]
        g.events = self.events[:]
        g.hsize = self.hsize[:]
        g.pile = self.pile[:]
        g.stock = self.stock[:]
        g.down = self.down[:]
        g.laid = self.laid[:]
        g.present = self.present[:]
        g._hand_version = self._hand_version[:]
        g.hands = [row[:] for row in self.hands]
        g.known = [row[:] for row in self.known]
        if self.from_new_stock is not None:
            g.from_new_stock = [row[:] for row in self.from_new_stock]
        g.melds = [[m[0][:], m[1], m[2], m[3], m[4][:]] for m in self.melds]
        g.hand_np = self.hand_np.copy()
        g.known_np = self.known_np.copy()
        g.pile_np = self.pile_np.copy()
        g.public_obs = self.public_obs.copy()
        g._public_view = memoryview(g.public_obs)
        g._obs = g._obs_views = g._seen = None   # the seats' buffers: written again when asked for
        g._hand_views = [memoryview(h) for h in g.hand_np]
        g._known_views = [memoryview(k) for k in g.known_np]
        g._pile_view = memoryview(g.pile_np)
        return g

    def determinize(self, seat: int, rng: np.random.Generator) -> "ContractRummyGame":
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
        g = self._copy(fresh_rng(rng))
        if self._unseen is None or self._unseen[0] != seat:
            self._unseen = (seat, self._unseen_cards(seat))
        others, known_present, classes = self._unseen[1]
        duty = self.current_player != seat and (self.must >= 0 or self.freed)
        while True:
            hands = [self.known[s][:] for s in others]
            present = list(known_present)
            views = [g._hand_views[s] for s in others]
            for s, view in zip(others, views):
                view[:] = self._known_views[s]
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

    def _unseen_cards(self, seat: int) -> tuple:
        """What ``seat`` cannot see: the other seats, the masks of the cards each is known to hold,
        and the unseen cards by class ``(cards, slots)`` (the cards sorted, so that a re-deal
        depends only on what the seat has seen, and the slots of each other seat; the stock's slots
        are the rest of the first class). After a reshuffle the first class is the new stock's
        cards (the stock and what the others drew from it and hold), the second the older ones;
        before, there is one class."""
        others = [s for s in range(self.num_players) if s != seat]
        fresh = self.from_new_stock
        stock_class, older_class = self.stock[:], []
        stock_slots, older_slots = [], []
        for s in others:
            hand, known = self.hands[s], self.known[s]
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
        return others, [mask_of_counts(self.known[s]) for s in others], classes

    def to_dict(self) -> dict:
        return {
            "options": self.opts.to_dict(),
            "rng": self.rng.bit_generator.state,
            "deal_idx": self.deal_idx, "dealer": self.dealer, "scores": list(self.scores),
            "hands": [list(h) for h in self.hands], "stock": list(self.stock), "pile": list(self.pile),
            "melds": [[list(m[0]), m[2], m[1].lo] for m in self.melds],
            "down": list(self.down), "known": [list(k) for k in self.known], "turns": self.turns,
            "current_player": self.current_player, "phase": self.phase, "must": self.must,
            "banned": self.banned, "freed": self.freed, "went_down": self.went_down, "laid": list(self.laid),
            "done": self.done, "truncated": self.truncated,
            "events": [e if isinstance(e, str) else [e[0], e[1], list(e[2]) if e[2] else None]
                       for e in self.events[-20:]],
            "last_deal": self.last_deal,
            "from_new_stock": self.from_new_stock and [list(row) for row in self.from_new_stock],
        }

    @classmethod
    def from_dict(cls, d: dict) -> "ContractRummyGame":
        o = dict(d["options"])
        o["deals"] = tuple(o["deals"])
        rng = np.random.default_rng()
        rng.bit_generator.state = d["rng"]
        g = cls(Options(**o), rng)
        g.deal_idx = d["deal_idx"]
        g.dealer = d["dealer"]
        g.scores = list(d["scores"])
        g.contract = g.opts.deals[g.deal_idx]
        g.contract7_at_once = g.contract == 7 and g.opts.deal7_all_at_once
        _, g.need_sets, g.need_runs = CONTRACTS[g.contract]
        g.hands = [list(h) for h in d["hands"]]
        g.hsize = [sum(h) for h in g.hands]
        g.stock = list(d["stock"])
        g.pile = list(d["pile"])
        g.melds = []
        for entry in d["melds"]:
            pieces, owner = entry[0], entry[1]
            shape = ml.classify(pieces, True, g.opts.min_run_length)
            if len(entry) > 2 and shape.kind == ml.RUN and shape.lo != entry[2]:
                # a 13-piece run with one ace (CR-19): keep the end its ace was laid at
                shape = shape._replace(lo=entry[2], hi=entry[2] + shape.size - 1)
            g._add_meld(pieces, shape, owner)
        g.down = list(d["down"])
        g.known = [list(k) for k in d["known"]]
        for key in ("turns", "current_player", "phase", "must", "banned", "freed", "went_down", "done", "truncated"):
            setattr(g, key, d[key])
        g.laid = list(d["laid"])
        g.events = [e if isinstance(e, str) else (e[0], e[1], e[2]) for e in d["events"]]
        g.last_deal = d.get("last_deal")
        fresh = d.get("from_new_stock")
        g.from_new_stock = fresh and [list(row) for row in fresh]
        g._rebuild_buffers()
        return g

    def __getstate__(self):
        return self.to_dict()

    def __setstate__(self, d):
        self.__dict__.update(type(self).from_dict(d).__dict__)
