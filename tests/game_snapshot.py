"""A frozen copy of every attribute of a game, to check that a call leaves the game bit-identical
(``determinize`` in the games' tests): the pickle of the whole game (its exact state with the
generator's) and each attribute by value. Arrays and memoryviews are frozen as their bytes (with
dtype, shape and writability); other plain data by its pickle; any other object (a table shared
by the games of one set of options, which owns its caches) by identity."""
from __future__ import annotations

import pickle
from collections import deque

import numpy as np

PLAIN = (type(None), bool, int, float, str, bytes, list, tuple, dict, set, frozenset, deque, np.random.Generator,
         np.generic)


def _freeze(value):
    if isinstance(value, np.ndarray):
        return "array", value.dtype.str, value.shape, value.flags.writeable, value.tobytes()
    if isinstance(value, memoryview):
        return "memoryview", value.format, value.shape, value.readonly, value.tobytes()
    if isinstance(value, PLAIN) or hasattr(value, "__dataclass_fields__"):
        return "pickle", pickle.dumps(value)
    return "object", id(value)


def snapshot(game) -> dict:
    """Every attribute of ``game`` frozen (see the module docstring), plus ``pickle.dumps(game)``
    and the generator's state."""
    frozen = {name: _freeze(value) for name, value in vars(game).items()}
    frozen["pickle.dumps(game)"] = pickle.dumps(game)
    frozen["rng state"] = repr(game.rng.bit_generator.state)
    return frozen


def changed(before: dict, after: dict) -> list[str]:
    """The attributes that differ (added, removed or changed) between two snapshots."""
    return sorted(name for name in before.keys() | after.keys() if before.get(name) != after.get(name))
