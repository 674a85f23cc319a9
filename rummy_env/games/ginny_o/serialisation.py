"""A Ginny-O game as JSON (:func:`to_dict` / :func:`from_dict`, an exact state) and pickling
through them."""
from __future__ import annotations

from .determinize import ReturnedTiles
from .options import Options


def to_dict(game) -> dict:
    """JSON-serialisable exact state."""
    o = game.options
    return {
        "options": {k: getattr(o, k) for k in o.__dataclass_fields__},
        "rng": game.rng.bit_generator.state,
        "board": list(game.board), "group": list(game.group), "group_start": list(game.group_start),
        "racks": [list(r) for r in game.racks], "box": list(game.box), "scores": list(game.scores),
        "draws": list(game.draws),
        "returned": [[[list(field) for field in entry] for entry in known] for known in game.returned],
        "final_scores": None if game.final_scores is None else list(game.final_scores),
        "current_player": game.current_player, "phase": game.phase, "drew": game.drew,
        "box_empty_start": game.box_empty_start, "placed": [list(x) for x in game.placed],
        "chosen": list(game.chosen), "stall": game.stall, "turns": game.turns,
        "done": game.done, "truncated": game.truncated,
        "events": list(game.events), "history": list(game.history),
    }


def from_dict(cls, d: dict):
    """The game of class ``cls`` in the state ``d`` written by :func:`to_dict`."""
    g = cls(Options(**d["options"]))
    g.rng.bit_generator.state = d["rng"]
    for name in ("board", "group", "group_start", "box", "scores", "chosen", "events", "history"):
        setattr(g, name, list(d[name]))
    g.racks = [list(r) for r in d["racks"]]
    g.draws = list(d["draws"])
    g.returned = [tuple(ReturnedTiles(*map(tuple, entry)) for entry in known) for known in d["returned"]]
    g.final_scores = None if d["final_scores"] is None else list(d["final_scores"])
    g.placed = [tuple(x) for x in d["placed"]]
    for name in ("current_player", "phase", "drew", "box_empty_start", "stall", "turns", "done", "truncated"):
        setattr(g, name, d[name])
    g.state_changed()
    return g
