"""Every observation entry stays in the range its game's module docstring gives it.

Each ``rummy_env/<game>_v0.py`` has ``observation_ranges(options)``: the docstring's observation
table as code, one row per block (offset as the docstring writes it, start, stop, range as the
docstring writes it). The tests check that the rows tile the observation, that the docstring shows
each row's range on that row, and that random play (every seat's observation after every step, a
few option sets per game) never leaves a range. Range notation: ``{0,1}`` binary, ``a..b``
integers (``b`` may be ``inf``), ``[a, b]`` reals (``inf``: no bound); every entry is finite.
"""
from __future__ import annotations

import re

import numpy as np
import pytest

from rummy_env.registry import GAMES, game_module

CASES = [
    ("rummy", {"max_rounds": 3}),
    ("rummy", {"num_players": 4, "max_rounds": 3, "target_score": 50, "reward_mode": "zero_sum"}),
    ("tongits", {}),
    ("tongits", {"hands_per_match": 6, "chip_mode": "pay", "discard_take_must_meld": False}),
    ("i_doubt_it", {}),
    ("i_doubt_it", {"num_players": 7, "max_cards_per_play": 3, "wrong_rank_claims": True, "max_plays": 150}),
    ("contract_rummy", {"deals": [1, 7]}),
    ("contract_rummy", {"num_players": 6, "deals": [2], "num_jokers": 2}),
    ("ginny_o", {}),
    ("ginny_o", {"num_players": 4}),
]
GAMES_PER_CASE = 3


def parse_range(text: str) -> tuple[float, float, bool]:
    """(low, high, integers only) of a range in the notation of the module docstring."""
    if text == "{0,1}":
        return 0.0, 1.0, True
    counts = re.fullmatch(r"(-?\d+|-inf)\.\.(-?\d+|inf)", text)
    if counts:
        return float(counts[1]), float(counts[2]), True
    reals = re.fullmatch(r"\[(\S+), (\S+)\]", text)
    if reals:
        return float(reals[1]), float(reals[2]), False
    raise ValueError(f"unknown range notation {text!r}")


def entry_bounds(table: list, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per observation entry: low, high and whether it must be an integer."""
    low, high, integer = np.zeros(size), np.zeros(size), np.zeros(size, bool)
    for _, start, stop, text in table:
        low[start:stop], high[start:stop], integer[start:stop] = parse_range(text)
    return low, high, integer


def ranges_and_env(game: str, options: dict):
    module = game_module(game)
    env = module.raw_env(**options)
    return module.observation_ranges(env.options), env


@pytest.mark.parametrize("game,options", CASES)
def test_rows_tile_the_observation(game, options):
    table, env = ranges_and_env(game, options)
    size = env.observation_space(env.possible_agents[0])["observation"].shape[0]
    starts = [row[1] for row in table]
    stops = [row[2] for row in table]
    assert starts[0] == 0 and stops[-1] == size
    assert starts[1:] == stops[:-1], "blocks leave a gap or overlap"
    assert all(start < stop for start, stop in zip(starts, stops))


@pytest.mark.parametrize("game", list(GAMES))
def test_docstring_shows_each_range_on_its_row(game):
    """Row k's range text appears between row k's offset and row k+1's in the docstring."""
    module = game_module(game)
    table, _ = ranges_and_env(game, {})
    doc = module.__doc__
    positions = []
    pos = 0
    for label, *_ in table:
        found = re.compile(r"^\s*(- )?" + re.escape(label) + r"(\s|:)", re.M).search(doc, pos)
        assert found, f"{game}: no docstring row starts with {label!r} after offset {pos}"
        positions.append(found.start())
        pos = found.end()
    positions.append(len(doc))
    for k, (label, _, _, text) in enumerate(table):
        assert f"``{text}``" in doc[positions[k]:positions[k + 1]], f"{game}: row {label!r} lacks ``{text}``"


@pytest.mark.parametrize("game,options", CASES)
def test_random_play_stays_in_the_documented_ranges(game, options):
    table, env = ranges_and_env(game, options)
    size = env.observation_space(env.possible_agents[0])["observation"].shape[0]
    low, high, integer = entry_bounds(table, size)
    rows = np.zeros(size, np.int64)
    for k, (_, start, stop, _) in enumerate(table):
        rows[start:stop] = k
    rng = np.random.default_rng(0)
    for seed in range(GAMES_PER_CASE):
        env.reset(seed=seed)
        while env.agents:
            for agent in env.agents:
                obs = env.observe(agent)["observation"]
                ok = np.isfinite(obs) & (obs >= low) & (obs <= high) & (~integer | (obs == np.round(obs)))
                if not ok.all():
                    i = int(np.flatnonzero(~ok)[0])
                    label, _, _, text = table[rows[i]]
                    pytest.fail(f"{game} {options} seed {seed}: observation[{i}] = {obs[i]} "
                                f"outside {text} (row {label!r})")
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
            else:
                env.step(int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))
