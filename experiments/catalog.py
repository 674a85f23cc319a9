"""What ``rummy-env agents`` and ``rummy-env options`` print: the agent spec families with each
game's presets and their cost per decision, and a game's options with defaults, allowed values
and rule ids."""
from __future__ import annotations

import dataclasses
import json
import textwrap
from pathlib import Path

from rummy_env.agents.presets import PRESETS, SEARCH_FAMILIES
from rummy_env.registry import GAMES, game_key, game_module

COSTS = Path(__file__).resolve().parents[1] / "docs" / "results" / "agent_costs.json"
"""Seconds per decision (``python -m rummy_env.experiments.measure_agent_costs``); a repository
checkout has it."""
CLAIMS = COSTS.with_name("claims.json")
"""The claims index (``docs/results.md`` is written from it); a repository checkout has it."""
LADDER_KINDS = {"ppo": "learned (ppo)", "search": "search"}

FAMILIES = (
    ("random", "uniform over the legal actions"),
    ("heuristic", "the game's rule-based agent (agents/heuristic_<game>.py)"),
    ("ppo", "the game's committed PPO policy (checkpoints/<game>/), the one trained on the env's options "
            "where there is one"),
    ("ppo:PATH", "a policy checkpoint, e.g. from `rummy-env train`"),
    ("ismcts[:N][:KEY=VALUE...]", "information-set MCTS: the game's recipe below, at N iterations per decision "
                                  "when N is given; keys seconds, rollout, c, bias, depth, value, claims, moves, "
                                  "candidates, credit, tree, gate, baseline replace the recipe's"),
    ("pimc[:W][:KEY=VALUE...]", "the rule-based move unless determinized flat Monte Carlo finds a better one: the "
                                "game's recipe below, at W test worlds when W is given; keys screen, candidates, z, "
                                "points, value, depth, base, claims, moves replace the recipe's"),
    ("...:preset=none", "an ismcts or pimc spec from the agent's own defaults instead of the recipe"),
    ("llm:model=NAME[:KEY=VALUE...]", "an OpenAI-compatible chat model through the text protocol; keys base_url, "
                                      "temperature, retries, timeout, fallback (the `llm` extra; docs/guides/llm.md)"),
)
"""(spec, meaning) of each family of agent specs."""


def measured_costs() -> dict[tuple[str, str], float]:
    """(game, spec) -> seconds per decision from :data:`COSTS`; empty when the file is missing."""
    if not COSTS.is_file():
        return {}
    with open(COSTS, encoding="utf-8") as f:
        return {(row["game"], row["spec"]): row["seconds_per_decision"] for row in json.load(f)["costs"]}


def claims() -> list[dict]:
    """The entries of :data:`CLAIMS`; empty when the file is missing."""
    if not CLAIMS.is_file():
        return []
    with open(CLAIMS, encoding="utf-8") as f:
        return json.load(f)


def ladder_lines(game: str, entries: list[dict]) -> list[str]:
    """Per learned and search kind, the claim against the rule-based agent under the game's default
    rules with the highest lower CI bound: spec, win share with its 95% CI against par, games, deal
    seed, cost per decision and where the CI lies; or that there is none under the default rules."""
    lines = [f"{game}: the strongest claimed agent of each kind against the rule-based agent, default rules"]
    for kind, name in LADDER_KINDS.items():
        mine = [c for c in entries if c["game"] == game and c["kind"] == kind and "heuristic" in c["opponents"]]
        default = [c for c in mine if not c["options"]]
        if not default:
            other = f" (claims under other rules: {', '.join(sorted({c['unit'] for c in mine}))})" if mine else ""
            lines.append(f"  {name:14} no claim under the default rules{other}")
            continue
        c = max(default, key=lambda c: c["ci"][0])
        lo, hi = c["ci"]
        where = "above par" if lo > c["par"] else "below par" if hi < c["par"] else "only at par"
        lines.append(f"  {name:14} {c['agent']}: win share {c['win_share']:.3f} [{lo:.3f}, {hi:.3f}], par "
                     f"{c['par']:.3f}: {where} ({c['games']} games, unit: {c['unit']}; deal seed {c['seed']}, "
                     f"{c['cost_per_decision']:.4f} s per decision; claim {c['id']})")
    return lines


def agents_text(game: str | None = None) -> str:
    """The spec families, then per game (``game`` only, when given) each plain spec with its cost
    per decision and each search preset with its recipe and the tournament behind it."""
    costs, entries = measured_costs(), claims()
    width = max(len(spec) for spec, _ in FAMILIES)
    lines = ["Agent specs (--agents, --opponents):"]
    lines += [textwrap.fill(meaning, 100, initial_indent=f"  {spec:{width}}  ", subsequent_indent=" " * (width + 4))
              for spec, meaning in FAMILIES]
    for key in [game_key(game)] if game else list(GAMES):
        lines += ["", f"{key}: CPU seconds per decision (mean over decisions with two or more legal actions)"]
        for spec in ("random", "heuristic", "ppo", *SEARCH_FAMILIES):
            cost = costs.get((key, spec))
            lines.append(f"  {spec:9} {'-' if cost is None else f'{cost:.4f}':>8} s")
            if spec in SEARCH_FAMILIES:
                preset = PRESETS[key, spec]
                verdict = "beat the rule-based agent" if preset.beats else "best found, not above the rule-based agent"
                options = ", ".join(f"{k}={option_text(v)}" for k, v in preset.options.items()) or "default rules"
                lines.append(f"            = {preset.spec}")
                lines.append(f"            ({verdict} under {options}: {preset.results})")
        if entries:
            lines += ["", *ladder_lines(key, entries)]
    if not costs:
        lines += ["", f"(costs: {COSTS} is missing; a repository checkout has it)"]
    return "\n".join(lines)


def option_rows(game: str) -> list[tuple[str, str, str, str]]:
    """(option, default, allowed values, rule ids) of each option of ``game``, as ``--option``
    writes them, from its ``Options`` dataclass and ``Options.RULES``."""
    options_class = game_module(game).raw_env.options_class
    return [(field.name, option_text(field.default), options_class.RULES[field.name].allowed(),
             options_class.RULES[field.name].rules) for field in dataclasses.fields(options_class)]


def option_text(value) -> str:
    """A default as ``--option`` writes it: ``true``, ``none``, ``1,2,3``, ``chips``."""
    if isinstance(value, bool):
        return str(value).lower()
    if value is None:
        return "none"
    if isinstance(value, (tuple, list)):
        return ",".join(map(str, value))
    return str(value)


def options_text(game: str) -> str:
    """The options table of ``game`` (``rummy-env options GAME``)."""
    key = game_key(game)
    rows = [("option", "default", "allowed", "rules"), *option_rows(key)]
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    lines = [f"{key} options (--option KEY=VALUE; rule ids from docs/rules/{key}.md):"]
    lines += ["  " + "  ".join(f"{cell:{w}}" for cell, w in zip(row[:3], widths)) + "  " + row[3] for row in rows]
    return "\n".join(lines)
