"""Cheap copies of an engine's random generator for ``clone()`` and ``determinize()``.

Building a numpy bit generator costs tens of microseconds (its seeding), more than copying a
whole game state, and most copies made by a search never draw again. :class:`LazyRng` holds a
generator's state and builds the generator on first use, so a copy costs one state read.
"""
from __future__ import annotations

import hashlib

import numpy as np


class LazyRng:
    """Stands in for a ``numpy.random.Generator`` whose bit-generator state is ``state`` (a
    bit-generator state dict, or an int: the PCG64 state :func:`seeded_rng` makes of it); the
    generator is built the first time any attribute is read (``permutation``, ``integers``,
    ``bit_generator``, ...). ``state`` is never modified, so copies may share it."""

    __slots__ = ("state", "_generator")

    def __init__(self, state: dict):
        self.state = state
        self._generator = None

    def __getattr__(self, name: str):
        if name.startswith("__"):   # copy and pickle probing for hooks: not a generator attribute
            raise AttributeError(name)
        generator = self._generator
        if generator is None:
            state = self.state if isinstance(self.state, dict) else _pcg64_state(self.state)
            bit_generator = getattr(np.random, state["bit_generator"])(0)
            bit_generator.state = state
            generator = self._generator = np.random.Generator(bit_generator)
        return getattr(generator, name)

    def __reduce__(self):
        return LazyRng, (self.state if self._generator is None else self._generator.bit_generator.state,)


def copy_rng(rng) -> LazyRng:
    """An independent generator in the same state as ``rng`` (a Generator or a LazyRng)."""
    if type(rng) is LazyRng and rng._generator is None:
        return LazyRng(rng.state)
    return LazyRng(rng.bit_generator.state)


def fresh_rng(rng: np.random.Generator) -> LazyRng:
    """A new generator seeded from one 64-bit draw of ``rng`` (for a determinized world's
    future shuffles, which the observing seat cannot know)."""
    return LazyRng(int(rng.bit_generator.random_raw()))


_SCRATCH = np.random.Generator(np.random.PCG64(0))


def seeded_rng(seed: int) -> np.random.Generator:
    """A PCG64 generator whose state is a hash of the int ``seed`` (the same seed, the same
    draws), without the cost of numpy's seeding. It reuses one module-level bit generator, so it
    is valid only until the next call: use it at once, do not keep it."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"seed must be an int, got {seed!r}")
    _SCRATCH.bit_generator.state = _pcg64_state(int(seed))
    return _SCRATCH


def _pcg64_state(seed: int) -> dict:
    """A PCG64 state dict made of a hash of ``seed`` (nearby seeds give unrelated streams)."""
    digest = hashlib.blake2b(seed.to_bytes(32, "little", signed=True), digest_size=32).digest()
    return {"bit_generator": "PCG64", "has_uint32": 0, "uinteger": 0,
            "state": {"state": int.from_bytes(digest[:16], "little"),
                      "inc": int.from_bytes(digest[16:], "little") | 1}}
