"""Each game's best known search recipe: what a bare ``ismcts`` or ``pimc`` spec means (issue 40).

A spec ``ismcts``, ``ismcts:N``, ``pimc`` or ``pimc:N`` is the game's preset, with ``N`` in place
of the preset's iterations (ISMCTS) or test worlds (``pimc``) when given; every knob written out
(``c=1.4``, ``rollout=random``, ...) replaces the preset's value of that knob, and ``seconds=S``
without ``N`` replaces its iteration budget. ``preset=none`` starts from the agent's own defaults
instead (200 iterations with random rollouts for ISMCTS; 16 worlds, screen 4, 8 candidates for
``pimc``): the meaning every spec had before presets. :func:`resolve_spec` writes the spec out.

Each preset is the spec that beat the rule-based agent on held-out deals (the ``results`` file,
a tournament's ``results.json``, with its options: the scoring unit the search was measured on),
or where none did, the best one found (``beats: False``).
"""
from __future__ import annotations

from typing import NamedTuple

from rummy_env.registry import game_key

SEARCH_FAMILIES = ("ismcts", "pimc")
NO_PRESET = "preset=none"
"""The knob that turns the preset off (the agent's own defaults)."""


class Preset(NamedTuple):
    """One game's recipe for one search family and the tournament that measured it."""

    spec: str
    results: str
    """Repository path of the tournament's ``results.json`` (the recipe against the rule-based agent)."""
    beats: bool
    """Whether it beat the rule-based agent there (95% CI above par); else it is the best found."""
    options: dict
    """The env options of that tournament (the scoring unit it was measured on)."""


PRESETS = {
    ("rummy", "ismcts"): Preset(
        "ismcts:300:rollout=heuristic:bias=1",
        "docs/results/search/rummy/ismcts_300_heuristic_bias1/results.json", True, {"max_rounds": 1}),
    ("rummy", "pimc"): Preset(
        "pimc:16:screen=4",
        "docs/results/search/curves/rummy_pimc16/pimc-16-screen-4/results.json", False, {"max_rounds": 1}),
    ("tongits", "ismcts"): Preset(
        "ismcts:300:rollout=heuristic:bias=1:credit=win:tree=1:gate=2",
        "docs/results/search/tongits/ismcts_300_win_tree1_gate2/results.json", True, {"hands_per_match": 1}),
    ("tongits", "pimc"): Preset(
        "pimc:24:screen=4",
        "docs/results/search/tongits/pimc_24_screen4/results.json", True, {"hands_per_match": 1}),
    ("contract_rummy", "ismcts"): Preset(
        "ismcts:24:rollout=heuristic:bias=1:depth=4:value=ppo:moves=plans:tree=1:baseline=rule:gate=1",
        "docs/results/search/plans/contract_rummy/ismcts_24_plans_tree1_baseline_gate1/results.json", True,
        {"deals": [1], "reward_mode": "win_loss"}),
    ("contract_rummy", "pimc"): Preset(
        "pimc:16:screen=2:candidates=3:value=ppo:depth=4:moves=plans",
        "docs/results/search/plans/contract_rummy/pimc_16_screen_2_plans_3_value_ppo_depth_4/results.json", True,
        {"deals": [1], "reward_mode": "win_loss"}),
    ("i_doubt_it", "ismcts"): Preset(
        "ismcts:50:rollout=heuristic:bias=1:depth=4:value=cards:claims=truthful",
        "docs/results/search/value_cards/i_doubt_it/ismcts_50_value_cards_depth_4_truthful/results.json", True, {}),
    ("i_doubt_it", "pimc"): Preset(
        "pimc:4:screen=1:candidates=3:value=cards:depth=4:claims=truthful",
        "docs/results/search/value_cards/i_doubt_it/pimc_4_value_cards_depth_4_truthful/results.json", True, {}),
    ("ginny_o", "ismcts"): Preset(
        "ismcts:32:rollout=heuristic:bias=1:candidates=8:value=score:depth=4:moves=plans:tree=1:baseline=rule:gate=1",
        "docs/results/search/plans/ginny_o/ismcts_32_plans_tree1_baseline_gate1/results.json", False, {}),
    ("ginny_o", "pimc"): Preset(
        "pimc:16:screen=4:candidates=8:value=score:depth=turn:moves=plans",
        "docs/results/search/plans/ginny_o/pimc_16_screen_4_plans_8_score_turn/results.json", False, {}),
}
"""(game, family) -> the game's recipe for that search family."""


def resolve_spec(spec: str, game: str) -> str:
    """``spec`` written out in full for ``game``: an ``ismcts`` or ``pimc`` spec laid over the
    game's preset (module docstring); ``preset=none`` removed and nothing laid under it; any other
    spec unchanged. ``ValueError`` for an unknown game or a knob written twice."""
    family, *parts = spec.split(":")
    if family not in SEARCH_FAMILIES:
        return spec
    keys = [part.partition("=")[0] if "=" in part else "N" for part in parts]
    repeated = sorted({key for key in keys if keys.count(key) > 1})
    if repeated:
        raise ValueError(f"agent spec {spec!r}: {', '.join(repeated)} given twice")
    if "preset" in keys and NO_PRESET not in parts:
        raise ValueError(f"agent spec {spec!r}: preset=none is the only value of preset (without it the spec "
                         "is laid over the game's recipe)")
    if NO_PRESET in parts:
        return ":".join([family, *(part for part in parts if part != NO_PRESET)])
    preset = PRESETS[game_key(game), family].spec.split(":")[1:]
    count = next((part for part in parts if "=" not in part), None)
    knobs = {part.partition("=")[0]: part for part in parts if "=" in part}
    if count is None and "seconds" not in knobs:   # seconds=S without N replaces the iterations
        count = next((part for part in preset if "=" not in part), None)
    merged = [] if count is None else [count]
    merged += [knobs.pop(part.partition("=")[0], part) for part in preset if "=" in part]
    return ":".join([family, *merged, *knobs.values()])
