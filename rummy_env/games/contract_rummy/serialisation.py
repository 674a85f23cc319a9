"""A Contract Rummy game as JSON-able data: :func:`to_dict` and :func:`from_dict` (pickling goes
through them)."""
from __future__ import annotations

import numpy as np

from ... import melds as ml
from .options import CONTRACTS, Options


def to_dict(g) -> dict:
    """The whole state as JSON-able data (the options, the generator's state and every field)."""
    return {
        "options": g.opts.to_dict(),
        "rng": g.rng.bit_generator.state,
        "deal_idx": g.deal_idx, "dealer": g.dealer, "scores": list(g.scores),
        "hands": [list(h) for h in g.hands], "stock": list(g.stock), "pile": list(g.pile),
        "melds": [[list(m[0]), m[2], m[1].lo] for m in g.melds],
        "down": list(g.down), "known": [list(k) for k in g.known], "turns": g.turns,
        "current_player": g.current_player, "phase": g.phase, "must": g.must,
        "banned": g.banned, "freed": g.freed, "went_down": g.went_down, "laid": list(g.laid),
        "done": g.done, "truncated": g.truncated,
        "events": [e if isinstance(e, str) else [e[0], e[1], list(e[2]) if e[2] else None]
                   for e in g.events[-20:]],
        "last_deal": g.last_deal,
        "from_new_stock": g.from_new_stock and [list(row) for row in g.from_new_stock],
    }


def from_dict(cls, d: dict):
    """A game of class ``cls`` in the state :func:`to_dict` wrote."""
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
