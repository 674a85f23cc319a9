"""Named observation layouts: one way for every game to say what each observation entry means.

An :class:`ObservationLayout` is built from an ordered list of parts ``(name, shape, range,
description)``; the parts tile the observation in that order. Engines build theirs once (at import,
or when a game is created for options that change it) and read the integer offsets they write to
from it; users get it from ``env.unwrapped.observation_layout()`` and split an observation into
named arrays with :meth:`ObservationLayout.split`, as OpenSpiel's named tensor parts allow::

    layout = env.unwrapped.observation_layout()
    parts = layout.split(env.observe(agent)["observation"])   # {"hand": array(52), ...}

Range notation (the module docstrings use the same): ``{0,1}`` binary, ``a..b`` integers (``b``
may be ``inf``, ``a`` may be ``-inf``), ``[a, b]`` reals (``inf``: no bound).
"""
from __future__ import annotations

import math
import re
from typing import Iterable, NamedTuple

import numpy as np

_INTEGERS = re.compile(r"(-?\d+|-inf)\.\.(-?\d+|inf)")
_REALS = re.compile(r"\[(-?\d+(?:\.\d+)?|-inf), (-?\d+(?:\.\d+)?|inf)\]")


def parse_range(text: str) -> tuple[float, float, bool]:
    """(low, high, integers only) of a range written ``{0,1}``, ``a..b`` or ``[a, b]``;
    ``ValueError`` naming the text for anything else."""
    if text == "{0,1}":
        return 0.0, 1.0, True
    counts = _INTEGERS.fullmatch(text)
    if counts:
        return float(counts[1]), float(counts[2]), True
    reals = _REALS.fullmatch(text)
    if reals:
        return float(reals[1]), float(reals[2]), False
    raise ValueError(f"unknown range notation {text!r}: use {{0,1}}, a..b or [a, b]")


class Part(NamedTuple):
    """One named part of an observation: ``obs[start:stop]`` read as an array of ``shape``."""

    name: str
    shape: tuple[int, ...]
    range: str
    description: str
    start: int
    stop: int

    @property
    def size(self) -> int:
        return self.stop - self.start

    @property
    def slice(self) -> slice:
        return slice(self.start, self.stop)


class ObservationLayout:
    """The observation as named parts, in order (see the module docstring).

    ``layout["hand"]`` is the :class:`Part` named ``hand``; ``layout.start("hand")`` its first
    index; ``layout.size`` the observation length.
    """

    def __init__(self, parts: Iterable[tuple[str, tuple[int, ...] | int, str, str]]):
        built = []
        start = 0
        for name, shape, value_range, description in parts:
            shape = (shape,) if isinstance(shape, int) else tuple(shape)
            if not name.isidentifier():
                raise ValueError(f"observation part name {name!r} is not an identifier")
            if not shape or any(not isinstance(d, int) or d < 1 for d in shape):
                raise ValueError(f"observation part {name!r}: shape {shape!r} must be positive ints")
            parse_range(value_range)
            stop = start + math.prod(shape)
            built.append(Part(name, shape, value_range, description, start, stop))
            start = stop
        self.parts: tuple[Part, ...] = tuple(built)
        self.size = start
        self._by_name = {part.name: part for part in built}
        if len(self._by_name) != len(built):
            raise ValueError(f"observation part names repeat: {[part.name for part in built]}")

    def __getitem__(self, name: str) -> Part:
        if name not in self._by_name:
            raise KeyError(f"no observation part {name!r}; parts: {', '.join(self._by_name)}")
        return self._by_name[name]

    def __iter__(self):
        return iter(self.parts)

    def __len__(self) -> int:
        return len(self.parts)

    def __contains__(self, name: str) -> bool:
        return name in self._by_name

    def __repr__(self) -> str:
        inner = ", ".join(f"{p.name}{list(p.shape)}@{p.start}" for p in self.parts)
        return f"ObservationLayout(size={self.size}: {inner})"

    def names(self) -> list[str]:
        return [part.name for part in self.parts]

    def start(self, name: str) -> int:
        return self[name].start

    def split(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        """Views of ``obs`` (length :attr:`size`, or a batch ``(..., size)``) per part, each
        reshaped to the part's shape (after the batch dimensions); writing to a view writes to
        ``obs``."""
        obs = np.asarray(obs)
        if obs.shape[-1:] != (self.size,):
            raise ValueError(f"observation of shape {obs.shape} does not end in the layout's size {self.size}")
        batch = obs.shape[:-1]
        return {p.name: obs[..., p.start:p.stop].reshape(batch + p.shape) for p in self.parts}

    def bounds(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per observation entry: lowest value, highest value, whether it is always an integer."""
        low, high, integer = np.zeros(self.size), np.zeros(self.size), np.zeros(self.size, bool)
        for part in self.parts:
            low[part.slice], high[part.slice], integer[part.slice] = parse_range(part.range)
        return low, high, integer

    def part_at(self, index: int) -> Part:
        """The part holding observation entry ``index``."""
        for part in self.parts:
            if part.start <= index < part.stop:
                return part
        raise ValueError(f"index {index} is outside the observation (size {self.size})")
