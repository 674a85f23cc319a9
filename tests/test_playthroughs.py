"""Golden playthroughs: replaying the seeded games of ``tests/playthroughs/<game>.txt`` gives the
same text line by line (acting seats, actions, rewards, each named observation part, the view).

A difference means an engine, an observation or a view changed: if the change is meant, rewrite
the files with ``python -m tests.playthroughs.regenerate <game>`` and review the diff (trained
checkpoints read the observation parts, so an observation change breaks them).
"""
from __future__ import annotations

import pytest

from rummy_env.registry import GAMES
from tests.playthroughs.regenerate import HERE, PLAYTHROUGHS, file_text


def first_difference(expected: list[str], got: list[str]) -> str | None:
    """``line N: expected ..., got ...`` for the first line that differs, or None."""
    for number, (want, have) in enumerate(zip(expected, got), start=1):
        if want != have:
            return f"line {number}: expected {want[:300]!r}, got {have[:300]!r}"
    if len(expected) != len(got):
        return f"line {min(len(expected), len(got)) + 1}: expected {len(expected)} lines, got {len(got)}"
    return None


@pytest.mark.parametrize("game", list(GAMES))
def test_live_play_matches_the_golden_playthrough(game):
    path = HERE / f"{game}.txt"
    difference = first_difference(path.read_text().splitlines(), file_text(game).splitlines())
    assert difference is None, (f"{path.name} {difference} (if meant: python -m tests.playthroughs.regenerate "
                                f"{game}, and review the diff)")


def test_every_game_has_playthroughs():
    assert set(PLAYTHROUGHS) == set(GAMES)
    assert all(len(PLAYTHROUGHS[game]) >= 2 for game in GAMES)


def test_first_difference_names_the_line():
    assert first_difference(["a", "b", "c"], ["a", "x", "c"]) == "line 2: expected 'b', got 'x'"
    assert first_difference(["a"], ["a", "b"]) == "line 2: expected 1 lines, got 2"
    assert first_difference(["a"], ["a"]) is None
