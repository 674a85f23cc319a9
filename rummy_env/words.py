"""Words the games' view texts and the render back ends (:mod:`rummy_env.render`) share: a count
with its noun, a seat as its viewer names it, small numbers in words."""
from __future__ import annotations

NUMBER_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five"}


def plural(count: int, word: str) -> str:
    """``1 card``, ``2 cards``."""
    return f"{count} {word if count == 1 else word + 's'}"


def seat_name(i: int, seat: int) -> str:
    """``you`` for the view's own seat, else ``player_i``."""
    return "you" if i == seat else f"player_{i}"
