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


def check_determinize_writes_nothing(game, rng: np.random.Generator, steps: int, check_here, variants=({},),
                                     choose=None) -> list:
    """Play up to ``steps`` random legal moves of ``game`` (``choose(legal, rng)`` picks one, else
    uniformly); at each position where ``check_here(game, step)`` is true, call
    ``game.determinize(seat, generator, **variant)`` for every seat and each of ``variants`` and
    assert that the game's snapshot is unchanged; assert that each step does change it. Returns
    the positions checked (``check_here``'s true values)."""
    checked = []
    for step in range(steps):
        if game.done:
            break
        here = check_here(game, step)
        if here:
            checked.append(here)
            before = snapshot(game)
            for seat in range(game.num_players):
                for variant in variants:
                    game.determinize(seat, np.random.default_rng(int(rng.integers(1 << 30))), **variant)
            assert changed(before, snapshot(game)) == [], (step, here, changed(before, snapshot(game)))
        legal = np.flatnonzero(game.legal_mask())
        action = choose(legal, rng) if choose else int(legal[int(rng.integers(len(legal)))])
        before = snapshot(game)
        game.step(action)
        assert changed(before, snapshot(game)), step
    return checked
