"""An I Doubt It game as JSON (:func:`to_dict` / :func:`from_dict`, an exact state) and pickling
through them."""
from __future__ import annotations

from collections import deque

import numpy as np

from .options import MAX_EVENTS, Options


def to_dict(game) -> dict:
    """JSON-serialisable exact state."""
    return {
        "options": dict(game.options_dict),
        "rng": game.rng.bit_generator.state,
        "dealer": game.dealer, "rank": game.rank, "phase": game.phase,
        "current_player": game.current_player, "done": game.done, "truncated": game.truncated,
        "hands": [[c for c, x in enumerate(hc) if x for _ in range(x)] for hc in game.hand_cards],
        "pile": list(game.pile), "pile_owner": list(game.pile_owner),
        "pending": [game.pending, game.pending_k, game.claim_rank],
        "pending_known": None if game.pending_known is None else list(game.pending_known),
        "window": list(game.window), "window_pos": game.window_pos,
        "out": list(game.out), "places": list(game.places), "out_order": list(game.out_order),
        "known": [list(k) for k in game.known], "stats": [list(s) for s in game.stats],
        "last_reveal": None if game.last_reveal is None else [game.last_reveal[0], list(game.last_reveal[1]),
                                                              bool(game.last_reveal[2]), game.last_reveal[3]],
        "plays_made": game.plays_made,
        "events": [[x if not isinstance(x, tuple) else list(x) for x in e] for e in game.events],
        "final_rewards": None if game.final_rewards is None else list(game.final_rewards),
    }


def from_dict(cls, d: dict):
    """The game of class ``cls`` in the state ``d`` written by :func:`to_dict`."""
    g = cls(Options(**d["options"]))
    state = d["rng"]
    g.rng = np.random.Generator(getattr(np.random, state["bit_generator"])())
    g.rng.bit_generator.state = state
    g.set_up(d["dealer"], d["hands"], d["pile"], d["rank"], d["current_player"])
    g.phase = d["phase"]
    g.done = d["done"]
    g.truncated = d["truncated"]
    g.pile_owner = list(d["pile_owner"])
    g.pending, g.pending_k, g.claim_rank = d["pending"]
    g.pending_known = None if d["pending_known"] is None else list(d["pending_known"])
    g.window = list(d["window"])
    g.window_pos = d["window_pos"]
    g.out = list(d["out"])
    g.places = list(d["places"])
    g.out_order = list(d["out_order"])
    g.known = [list(k) for k in d["known"]]
    g.stats = [list(s) for s in d["stats"]]
    lr = d["last_reveal"]
    g.last_reveal = None if lr is None else [lr[0], list(lr[1]), bool(lr[2]), lr[3]]
    g.plays_made = d["plays_made"]
    g.events = deque((tuple(tuple(x) if isinstance(x, list) else x for x in e) for e in d["events"]),
                     maxlen=MAX_EVENTS)
    g.final_rewards = None if d["final_rewards"] is None else list(d["final_rewards"])
    g.rebuild()
    return g
