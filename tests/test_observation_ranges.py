"""Every observation entry stays in the range its game's layout gives it, and each module docstring
shows that layout.

Each engine declares its observation once as an :class:`rummy_env.layout.ObservationLayout` (named
parts with shape and range); ``env.unwrapped.observation_layout()`` returns it. The tests check
that the module docstring lists the parts in order, each row with the part's offset (an expression
in n = num_players, or the part's name in Contract Rummy's table), its name and its range, and that
random play (every seat's observation after every step, a few option sets per game) never leaves a
range. Range notation: ``{0,1}`` binary, ``a..b`` integers (``b`` may be ``inf``), ``[a, b]`` reals
(``inf``: no bound); every entry is finite.
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

_OFFSET = r"\d+(?: \+ \d*n)?"
DOC_ROW = re.compile(
    # list rows: - ``[a:b)`` / ``[a, b)`` / ``[a]`` ``range`` name: ...
    rf"^- ``\[(?P<start>{_OFFSET})(?:(?::|, )(?P<stop>{_OFFSET})\)|\])`` ``(?P<range>[^`]+)`` (?P<name>\w+):"
    # table rows: offset  size  ``range``  name: ...
    rf"|^(?P<offset>{_OFFSET})  +\S.*?  +``(?P<trange>[^`]+)``  +(?P<tname>\w+):"
    # named table rows (Contract Rummy): name  size  ``range``  ...
    r"|^(?P<label>[a-z_]+)  +\S.*?  +``(?P<lrange>[^`]+)``  ", re.M)


def offset_value(text: str, n: int) -> int:
    """The value of an offset written ``a``, ``a + n`` or ``a + bn`` for ``n`` seats."""
    base, _, per_seat = text.partition(" + ")
    return int(base) + (int(per_seat[:-1] or 1) * n if per_seat else 0)


def doc_rows(doc: str) -> list[dict]:
    """The observation rows of a module docstring: name, range, start and stop (None if not
    written) as expressions."""
    section = doc[doc.index("Observation"):]
    rows = []
    for m in DOC_ROW.finditer(section):
        if m["name"]:
            rows.append({"name": m["name"], "range": m["range"], "start": m["start"], "stop": m["stop"]})
        elif m["tname"]:
            rows.append({"name": m["tname"], "range": m["trange"], "start": m["offset"], "stop": None})
        elif m["label"] not in ("offset", "slice"):
            rows.append({"name": m["label"], "range": m["lrange"], "start": None, "stop": None})
    return rows


def layout_and_env(game: str, options: dict):
    env = game_module(game).raw_env(**options)
    return env.observation_layout(), env


@pytest.mark.parametrize("game,options", CASES)
def test_layout_tiles_the_observation(game, options):
    layout, env = layout_and_env(game, options)
    env.reset(seed=0)
    assert layout.size == env.observation_space(env.possible_agents[0])["observation"].shape[0]
    assert layout.size == env.observe(env.agent_selection)["observation"].shape[0]
    assert [p.start for p in layout][1:] == [p.stop for p in layout][:-1]


@pytest.mark.parametrize("game,options", CASES)
def test_docstring_rows_are_the_layout(game, options):
    """Row k of the docstring's observation table names part k, shows its range and its offset."""
    layout, env = layout_and_env(game, options)
    n = len(env.possible_agents)
    rows = doc_rows(game_module(game).__doc__)
    assert [row["name"] for row in rows] == layout.names(), f"{game}: docstring rows differ from the layout"
    for row, part in zip(rows, layout):
        assert row["range"] == part.range, f"{game}: row {part.name!r} shows ``{row['range']}``, layout {part.range}"
        if row["start"] is not None:
            assert offset_value(row["start"], n) == part.start, f"{game}: row {part.name!r} start"
        if row["stop"] is not None:
            assert offset_value(row["stop"], n) == part.stop, f"{game}: row {part.name!r} stop"


@pytest.mark.parametrize("game,options", CASES)
def test_random_play_stays_in_the_documented_ranges(game, options):
    layout, env = layout_and_env(game, options)
    low, high, integer = layout.bounds()
    rng = np.random.default_rng(0)
    for seed in range(GAMES_PER_CASE):
        env.reset(seed=seed)
        while env.agents:
            for agent in env.agents:
                obs = env.observe(agent)["observation"]
                ok = np.isfinite(obs) & (obs >= low) & (obs <= high) & (~integer | (obs == np.round(obs)))
                if not ok.all():
                    i = int(np.flatnonzero(~ok)[0])
                    part = layout.part_at(i)
                    pytest.fail(f"{game} {options} seed {seed}: observation[{i}] = {obs[i]} "
                                f"outside {part.range} (part {part.name!r})")
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
            else:
                env.step(int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))


def test_every_game_is_covered():
    assert {game for game, _ in CASES} == set(GAMES)
