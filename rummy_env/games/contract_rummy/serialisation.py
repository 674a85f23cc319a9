"""Copies of a game: :meth:`~Serialisation.clone`, :meth:`~Serialisation.determinize`, JSON
(``to_dict`` / ``from_dict``) and pickling."""
from __future__ import annotations

import numpy as np

from ... import melds as ml
from ...cards import mask_of_counts
from ...rng import copy_rng, fresh_rng
from .options import CONTRACTS, Options


class Serialisation:
    """Copies, a part of :class:`~rummy_env.games.contract_rummy.game.ContractRummyGame`."""

    def clone(self) -> "ContractRummyGame":
        """An independent copy in the same state, copied directly (the catalogue and its search
        caches, which depend on no hand, are shared)."""
        g = object.__new__(type(self))
        g.__dict__.update(self.__dict__)
        g.rng = copy_rng(self.rng)
        for name in ("scores", "events", "hsize", "pile", "stock", "down", "laid", "present", "_hand_version"):
            setattr(g, name, getattr(self, name)[:])
        for name in ("hands", "known", "_seen"):
            setattr(g, name, [row[:] for row in getattr(self, name)])
        g.melds = [[m[0][:], m[1], m[2], m[3], m[4][:]] for m in self.melds]
        g.hand_np = self.hand_np.copy()
        g.known_np = self.known_np.copy()
        g.pile_np = self.pile_np.copy()
        g.public_obs = self.public_obs.copy()
        g._public_view = memoryview(g.public_obs)
        g._obs = self._obs.copy()
        g._obs_rows = list(g._obs)
        g._obs_views = [memoryview(o) for o in g._obs]
        g._hand_views = [memoryview(h) for h in g.hand_np]
        g._known_views = [memoryview(k) for k in g.known_np]
        g._pile_view = memoryview(g.pile_np)
        return g

    def determinize(self, seat: int, rng: np.random.Generator) -> "ContractRummyGame":
        """An independent copy in which everything ``seat`` cannot see (CR-6) is dealt again
        uniformly at random: the other hands' cards not publicly picked up from the pile and the
        stock are shuffled over the same slots, keeping every hand size and the cards each seat
        is known to hold. When another seat is to act with a must-use card or a freed joker to
        place (CR-12, CR-23), which its take or swap showed it can, deals in which it has no legal
        action are rejected and drawn again. Not kept apart: after the pile is shuffled into a new stock (CR-4), its
        cards are public as a set, but the engine does not track which of them are still in the
        stock. The copy's generator is drawn from ``rng``."""
        g = self.clone()
        g.rng = fresh_rng(rng)
        others = [s for s in range(self.num_players) if s != seat]
        pool = list(self.stock)
        for s in others:
            hand, known = self.hands[s], self.known[s]
            for c in range(53):
                if hand[c] > known[c]:
                    pool += [c] * (hand[c] - known[c])
        duty = self.current_player != seat and (self.must >= 0 or self.freed)
        while True:
            pool.sort()   # a deal that depends only on what the seat has seen, not on where the cards are
            order = rng.permutation(len(pool)).tolist()
            pos = 0
            for s in others:
                hand = self.known[s][:]
                size = self.hsize[s] - sum(hand)
                for i in order[pos:pos + size]:
                    hand[pool[i]] += 1
                pos += size
                g.hands[s] = hand
                g.present[s] = mask_of_counts(hand)
                g.hand_np[s] = hand
                g._hand_version[s] += 1
            g._forget_legal_mask()
            if not duty or g.legal_mask().any():
                break
        g.stock = [pool[i] for i in order[pos:]]
        return g

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
        g._rebuild_buffers()
        return g

    def __getstate__(self):
        return self.to_dict()

    def __setstate__(self, d):
        self.__dict__.update(type(self).from_dict(d).__dict__)
