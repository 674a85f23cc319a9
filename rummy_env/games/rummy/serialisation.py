"""A Rummy game as JSON-ready data and back (:func:`to_dict` / :func:`load_state`), and the
pickling hooks (the memoryview over the observation buffer is rebuilt, not pickled)."""
from __future__ import annotations

import numpy as np

from ...cards import cards_of, mask_of
from ...melds import Meld
from .observation import rebuild_buf
from .tables import fit_mask


def to_dict(game) -> dict:
    """JSON-serialisable state; :func:`load_state` (``RummyGame.from_dict``) restores it exactly."""
    return {
        "options": dict(vars(game.options)), "rng": game.rng.bit_generator.state,
        "dealer": game.dealer, "current_player": game.current_player, "phase": game.phase,
        "done": game.done, "truncated": game.truncated,
        "hands": [cards_of(h) for h in game.hands], "stock_top_last": list(game.stock),
        "discard": list(game.discard),
        "melds": [{"owner": game.meld_owner[k], "cards": cards_of(game.meld_mask[k]),
                   "shape": list(game.meld_shape[k])} for k in range(len(game.meld_mask))],
        "front": [cards_of(m) for m in game.front], "known": [cards_of(m) for m in game.known],
        "taken": game.taken, "clean_start": game.clean_start, "scores": list(game.scores),
        "rounds_played": game.rounds_played, "turnovers": game.turnovers, "turns": game.turns,
        "turned": [cards_of(m) for m in game.turned],
        "events": [list(e) for e in game.events], "last_round": game.last_round,
    }


def rng_of(d: dict) -> np.random.Generator:
    """The generator whose state :func:`to_dict` wrote."""
    state = d["rng"]
    rng = np.random.Generator(getattr(np.random, state["bit_generator"])())
    rng.bit_generator.state = state
    return rng


def load_state(game, d: dict) -> None:
    """Fill a game made for ``d``'s options and generator with the state :func:`to_dict` wrote."""
    game.dealer, game.current_player, game.phase = d["dealer"], d["current_player"], d["phase"]
    game.done, game.truncated = d["done"], d["truncated"]
    game.hands = [mask_of(h) for h in d["hands"]]
    game.stock = list(d["stock_top_last"])
    game.discard = list(d["discard"])
    game.pile_mask = mask_of(game.discard)
    game.meld_owner = [md["owner"] for md in d["melds"]]
    game.meld_mask = [mask_of(md["cards"]) for md in d["melds"]]
    game.meld_shape = [Meld(*md["shape"]) for md in d["melds"]]
    game.meld_fit = [fit_mask(s, m, game.options.ace_high) for s, m in zip(game.meld_shape, game.meld_mask)]
    game.front = [mask_of(f) for f in d["front"]]
    game.known = [mask_of(f) for f in d["known"]]
    game.taken, game.clean_start = d["taken"], d["clean_start"]
    game.scores = list(d["scores"])
    game.rounds_played, game.turnovers, game.turns = d["rounds_played"], d["turnovers"], d["turns"]
    game.turned = [mask_of(cards) for cards in d.get("turned", [])]
    game.events.extend(tuple(e) for e in d["events"])
    game.last_round = d["last_round"]
    rebuild_buf(game)


def getstate(game) -> dict:
    """Pickled state: every attribute but the memoryview."""
    state = dict(game.__dict__)
    del state["_mv"]
    return state


def setstate(game, state: dict) -> None:
    """Restore a pickled state and the memoryview over its buffer."""
    game.__dict__.update(state)
    game._mv = memoryview(game._buf)
