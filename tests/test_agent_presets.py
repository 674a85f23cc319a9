"""Agents by name (issue 40): per-game search presets, ``rummy-env agents``, ``rummy-env options``,
the agent families in ``--help`` and the terminal player's thinking line."""
from __future__ import annotations

import dataclasses
import io
import json
import re
import threading
from pathlib import Path

import numpy as np
import pytest

from rummy_env.agents.base import Agent
from rummy_env.agents.ismcts import DEFAULT_ITERATIONS
from rummy_env.agents.presets import PRESETS, resolve_spec
from rummy_env.agents.registry import check_agent_spec, make_agent
from rummy_env.agents.specs import parse_ismcts_spec, parse_pimc_spec
from rummy_env.experiments import play
from rummy_env.experiments.catalog import agents_text, option_rows
from rummy_env.experiments.cli import main as cli_main
from rummy_env.registry import GAMES, game_module

ROOT = Path(__file__).resolve().parents[1]
PARSE = {"ismcts": parse_ismcts_spec, "pimc": parse_pimc_spec}


@pytest.mark.parametrize("game,family", sorted(PRESETS))
def test_bare_spec_is_the_games_recipe(game, family):
    recipe = PRESETS[game, family].spec
    assert resolve_spec(family, game) == recipe
    assert PARSE[family](resolve_spec(family, game)) == PARSE[family](recipe)


@pytest.mark.parametrize("game,family", sorted(PRESETS))
def test_n_replaces_only_the_recipes_budget(game, family):
    budget = "iterations" if family == "ismcts" else "worlds"
    recipe = PARSE[family](PRESETS[game, family].spec)
    resolved = PARSE[family](resolve_spec(f"{family}:7", game))
    assert resolved == {**recipe, budget: 7}


def test_a_knob_written_out_replaces_the_recipes():
    recipe = parse_ismcts_spec(PRESETS["tongits", "ismcts"].spec)
    assert parse_ismcts_spec(resolve_spec("ismcts:c=1.4:gate=3", "tongits")) == {**recipe, "exploration": 1.4,
                                                                                 "gate": 3.0}
    assert parse_ismcts_spec(resolve_spec("ismcts:50:rollout=random", "tongits")) == {
        **recipe, "iterations": 50, "rollout": "random"}
    assert parse_pimc_spec(resolve_spec("pimc:z=2", "i_doubt_it")) == {
        **parse_pimc_spec(PRESETS["i_doubt_it", "pimc"].spec), "z": 2.0}


def test_seconds_without_n_replace_the_recipes_iterations():
    agent = make_agent("ismcts:seconds=0.5", "tongits")
    assert (agent.iterations, agent.seconds, agent.gate, agent.rollout) == (None, 0.5, 2.0, "heuristic")
    agent = make_agent("ismcts:40:seconds=0.5", "tongits")
    assert (agent.iterations, agent.seconds) == (40, 0.5)


def test_bare_ismcts_builds_the_recipes_agent():
    agent = make_agent("ismcts", "tongits")
    assert (agent.iterations, agent.rollout, agent.bias, agent.credit, agent.tree_depth, agent.gate) == (
        300, "heuristic", 1.0, "win", 1, 2.0)
    agent = make_agent("pimc", "i_doubt_it")
    assert (agent.worlds, agent.screen, agent.candidates, agent.depth, agent.deal_options) == (
        4, 1, 3, 4, {"truthful_claim": True})


def test_preset_none_starts_from_the_agents_defaults():
    agent = make_agent("ismcts:preset=none", "tongits")
    assert (agent.iterations, agent.rollout, agent.bias, agent.credit, agent.tree_depth, agent.gate) == (
        DEFAULT_ITERATIONS, "random", 0.0, "return", None, None)
    assert resolve_spec("ismcts:40:bias=3:preset=none", "tongits") == "ismcts:40:bias=3"
    assert resolve_spec("heuristic", "tongits") == "heuristic"


@pytest.mark.parametrize("bad,words", [("ismcts:40:50", "N given twice"), ("ismcts:c=1:c=2", "c given twice"),
                                       ("pimc:z=1:z=2", "z given twice"),
                                       ("ismcts:preset=rummy", "preset=none is the only value")])
def test_bad_preset_specs_are_refused_by_name(bad, words):
    with pytest.raises(ValueError, match=words):
        check_agent_spec(bad, "tongits")


@pytest.mark.parametrize("game,family", sorted(PRESETS))
def test_each_preset_cites_the_tournament_that_measured_it(game, family):
    """The results file exists, is this game's, seats the recipe against the rule-based agent, and
    ``beats`` says what its 95% CI says."""
    preset = PRESETS[game, family]
    results = json.loads((ROOT / preset.results).read_text(encoding="utf-8"))
    assert results["game"] == game and results["options"] == preset.options
    assert sorted(set(results["agents"])) == sorted({preset.spec, "heuristic"})
    row = next(r for r in results["summary"] if r["spec"] == preset.spec)
    assert preset.beats == (row["win_share_ci"][0] > row["equal_share"])


def test_agents_command_lists_families_presets_and_costs(capsys):
    assert cli_main(["agents", "--game", "tongits"]) == 0
    out = capsys.readouterr().out
    for family in ("random", "heuristic", "ppo", "ppo:PATH", "ismcts[:N]", "pimc[:W]", "preset=none"):
        assert family in out
    assert PRESETS["tongits", "ismcts"].spec in out and PRESETS["tongits", "pimc"].spec in out
    assert "rummy:" not in out and "tongits:" in out
    costs = json.loads((ROOT / "docs/results/agent_costs.json").read_text(encoding="utf-8"))
    tongits = {row["spec"]: row["seconds_per_decision"] for row in costs["costs"] if row["game"] == "tongits"}
    assert f"{tongits['ismcts']:.4f} s" in out
    assert all(f"\n{key}:" in "\n" + agents_text() for key in GAMES)


def test_agent_costs_cover_every_game_and_family_from_a_clean_tree():
    costs = json.loads((ROOT / "docs/results/agent_costs.json").read_text(encoding="utf-8"))
    assert costs["dirty"] is False and costs["git_commit"]
    measured = {(row["game"], row["spec"]) for row in costs["costs"]}
    assert measured == {(g, s) for g in GAMES for s in ("random", "heuristic", "ppo", "ismcts", "pimc")}
    assert all(row["decisions"] == costs["decisions"] for row in costs["costs"])


def test_options_command_lists_every_option_with_default_allowed_values_and_rules(capsys):
    assert cli_main(["options", "tongits"]) == 0
    out = capsys.readouterr().out
    rows = option_rows("tongits")
    assert ("hands_per_match", "3", ">= 1", "TG-35") in rows
    assert ("reward_mode", "chips", '"chips" or "win_loss"', "Rewards") in rows
    for row in rows:
        assert re.search(r"^\s+" + r"\s+".join(map(re.escape, row)) + "$", out, re.M), row
    assert cli_main(["options", "nogame"]) == 2
    assert "unknown game 'nogame'" in capsys.readouterr().err


@pytest.mark.parametrize("game", GAMES)
def test_every_option_has_its_rules_and_its_allowed_values_are_enforced(game):
    options_class = game_module(game).raw_env.options_class
    assert list(options_class.RULES) == [f.name for f in dataclasses.fields(options_class)]
    rows = option_rows(game)
    assert all(allowed and rules for _, _, allowed, rules in rows)
    for name, rule in options_class.RULES.items():
        if rule.ints is not None:
            lo = rule.ints[0]
            with pytest.raises(ValueError, match=name):
                options_class(**{name: lo - 1})
        if rule.choices is not None:
            with pytest.raises(ValueError, match=name):
                options_class(**{name: "no_such_value"})
        if rule.boolean:
            with pytest.raises(ValueError, match=name):
                options_class(**{name: 1})


@pytest.mark.parametrize("command", [["tournament", "--help"], ["play", "--help"]])
def test_agents_help_names_every_family(command, capsys):
    with pytest.raises(SystemExit):
        cli_main(command)
    out = " ".join(capsys.readouterr().out.split())
    for family in ("random", "heuristic", "ppo (the game's committed policy)", "ppo:PATH", "ismcts", "pimc",
                   "rummy-env agents"):
        assert family in out


class WaitingAgent(Agent):
    """A slow bot: its move waits until the table has said that it is thinking (at most 30 s)."""

    def __init__(self, shown: threading.Event) -> None:
        super().__init__()
        self.shown = shown
        self.waited = []

    def act(self, observation, action_mask, view) -> int:
        self.waited.append(self.shown.wait(30))
        return int(np.flatnonzero(action_mask)[0])


class Watched(io.StringIO):
    """Output that sets ``shown`` when a thinking line is written."""

    def __init__(self, shown: threading.Event) -> None:
        super().__init__()
        self.shown = shown

    def write(self, text: str) -> int:
        if "is thinking..." in text:
            self.shown.set()
        return super().write(text)


def session(out, opponent: Agent, thinking_after: float) -> play.Session:
    """A Rummy game (one round) against ``opponent``, the person always drawing or discarding the first move."""
    ns = play.build_parser().parse_args(["rummy", "--seed", "3", "--no-color", "--option", "max_rounds=1"])
    game = play.Session(ns, input_fn=lambda prompt: "1" if "move>" in prompt else "quit", out=out)
    game.agents[1] = opponent
    game.thinking_after = thinking_after
    return game


def test_a_slow_bot_shows_that_it_is_thinking():
    shown = threading.Event()
    out = Watched(shown)
    bot = WaitingAgent(shown)
    session(out, bot, thinking_after=0.05).run()
    assert bot.waited and bot.waited[0] is True
    assert "player_1 is thinking..." in out.getvalue()


def test_a_quick_bot_shows_nothing():
    out = io.StringIO()
    bot = WaitingAgent(threading.Event())
    bot.shown.set()   # answers at once
    session(out, bot, thinking_after=30).run()
    assert bot.waited and "is thinking" not in out.getvalue()
