"""A Tongits game as JSON-ready data and back (:func:`to_dict` / :func:`load_state`); pickling
goes through the same data."""
from __future__ import annotations

import copy
from dataclasses import asdict

import numpy as np

from .observation import rebuild


def to_dict(game) -> dict:
    """JSON-serialisable state; ``TongitsGame.from_dict`` restores it exactly."""
    return {
        "options": asdict(game.options),
        "rng": game.rng.bit_generator.state,
        "chips": list(game.chips), "hand_index": game.hand_index, "done": game.done,
        "dealer": game.dealer, "turn": game.turn, "current_player": game.current_player,
        "phase": game.phase, "hands": list(game.hands), "stock": list(game.stock),
        "discard": list(game.discard), "melds": [list(m) for m in game.melds],
        "blocked": list(game.blocked), "taken": game.taken, "known": list(game.known),
        "caller": game.caller, "responses": list(game.responses), "turns_done": game.turns_done,
        "events": [list(e) for e in game.events], "last_hand": copy.deepcopy(game.last_hand),
    }


def rng_of(d: dict) -> np.random.Generator:
    """The generator whose state :func:`to_dict` wrote."""
    bg = getattr(np.random, d["rng"]["bit_generator"])()
    bg.state = d["rng"]
    return np.random.Generator(bg)


def load_state(game, d: dict) -> None:
    """Fill a game made for ``d``'s options and generator with the state :func:`to_dict` wrote."""
    game.chips = list(d["chips"])
    game.hand_index = d["hand_index"]
    game.done = d["done"]
    game.truncated = False
    for key in ("dealer", "turn", "current_player", "phase", "taken", "caller", "turns_done"):
        setattr(game, key, d[key])
    game.hands = list(d["hands"])
    game.stock = list(d["stock"])
    game.discard = list(d["discard"])
    game.melds = [list(m) for m in d["melds"]]
    game.blocked = list(d["blocked"])
    game.known = list(d["known"])
    game.responses = list(d["responses"])
    game.events = [tuple(e) for e in d["events"]]
    game.last_hand = copy.deepcopy(d["last_hand"])
    rebuild(game)


def setstate(game, d: dict) -> None:
    """Unpickle: the state :func:`to_dict` wrote, restored in place."""
    game.__dict__.update(type(game).from_dict(d).__dict__)
