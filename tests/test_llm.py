"""Language-model agents (issue 44) against a real OpenAI-compatible server on 127.0.0.1
(tests/llm_server.py, which plays by rule and injects faults), through the real ``openai`` client."""
from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("openai")

from llm_server import GARBAGE, ILLEGAL, RuleServer  # noqa: E402

from rummy_env.agents.llm import LLMAgent, LLMServerError  # noqa: E402
from rummy_env.agents.specs import parse_llm_spec  # noqa: E402
from rummy_env.agents.registry import check_agent_spec, make_agent  # noqa: E402
from rummy_env.experiments import io  # noqa: E402
from rummy_env.experiments.cli import main  # noqa: E402
from rummy_env.experiments.tournament import (TournamentConfig, TournamentError, describe,  # noqa: E402
                                              run_tournament)
from rummy_env.registry import GAMES, make_raw_env  # noqa: E402

SHORT = {"rummy": {"max_rounds": 1, "max_turns": 30}, "tongits": {"hands_per_match": 1},
         "i_doubt_it": {"num_players": 3, "max_plays": 40},
         "contract_rummy": {"num_players": 3, "deals": [1], "max_turns_per_deal": 15},
         "ginny_o": {"max_turns": 16}}
"""Options that keep each game's tournament short."""


@pytest.fixture
def server():
    srv = RuleServer(seed=1, slow_s=1.0).start()
    yield srv
    srv.stop()


def spec(server, extra: str = "") -> str:
    return f"llm:model=rule:base_url={server.url}:timeout=0.4:retries=2{extra}"


def agent_at_first_decision(server, game: str = "rummy", extra: str = "", seed: int = 5600000):
    """An llm agent for the seat to act of a fresh raw env of ``game`` at the first decision, and that env."""
    env = make_raw_env(game, **SHORT[game])
    env.reset(seed=seed)
    agent = make_agent(spec(server, extra), game)
    agent.reset(env.agent_name_mapping[env.agent_selection], 1)
    return agent, env


def decide(agent, env) -> tuple[int, dict]:
    """One decision of ``agent`` for the seat to act, and its record."""
    name = env.agent_selection
    action = agent.act_on(env.information_state(name))
    assert env.observe(name)["action_mask"][action]
    return action, agent.pop_decisions()[-1]


# -- the spec -------------------------------------------------------------------------------------
def test_the_spec_keeps_the_colons_of_a_url_and_of_a_model_name():
    assert parse_llm_spec("llm:model=llama3:8b:base_url=http://127.0.0.1:8000/v1:temperature=0.7:retries=3"
                          ":timeout=5:fallback=random") == {
        "model": "llama3:8b", "base_url": "http://127.0.0.1:8000/v1", "temperature": 0.7, "retries": 3,
        "timeout": 5.0, "fallback": "random"}


@pytest.mark.parametrize("bad, words", [
    ("llm:", "needs model=NAME"), ("llm:base_url=http://x", "needs model=NAME"),
    ("llm:model=m:temprature=1", "unknown key 'temprature'"), ("llm:model=m:retries=two", "retries must be"),
    ("llm:model=m:model=n", "given twice"), ("llm:gpt", "is not key=value"),
    ("llm:model=m:fallback=ppo", "fallback must be one of"), ("llm:model=m:temperature=3", "temperature must be"),
    ("llm:model=m:timeout=0", "timeout must be > 0"),
])
def test_a_bad_spec_is_a_one_line_value_error(bad, words):
    with pytest.raises(ValueError, match=words):
        check_agent_spec(bad, "rummy")


def test_act_without_the_information_state_says_what_to_call(server):
    agent = make_agent(spec(server), "rummy")
    with pytest.raises(ValueError, match=r"agent.act_on\(env.information_state\(seat\)\)"):
        agent.act(np.zeros(1), np.ones(2, np.int8), {})


# -- one decision ---------------------------------------------------------------------------------
def test_a_rule_reply_is_played_with_its_tokens_and_latency(server):
    agent, env = agent_at_first_decision(server)
    action, record = decide(agent, env)
    assert record["prompt"] == env.prompt(env.agent_selection)
    assert record["move"] == env.action_to_text(action) and not record["fallback"]
    (attempt,) = record["attempts"]
    assert attempt["reply"] == f"I play [{record['move']}]" and attempt["error"] is None
    assert record["prompt_tokens"] == len(record["prompt"]) // 4 > 0 and record["completion_tokens"] > 0
    assert record["latency_s"] > 0 and record["invalid_replies"] == 0


@pytest.mark.parametrize("fault, words", [(GARBAGE, "no move in square brackets"),
                                          (ILLEGAL, "'layoff AS @16' is not a legal move now")])
def test_an_invalid_reply_is_answered_with_the_error_and_asked_again(server, fault, words):
    agent, env = agent_at_first_decision(server)
    server.script = ["garbage" if fault == GARBAGE else "illegal"]
    _, record = decide(agent, env)
    first, second = record["attempts"]
    assert first["reply"] == fault and words in first["error"] and second["error"] is None
    assert record["invalid_replies"] == 1 and not record["fallback"]
    mode, messages = server.requests[-1]
    assert mode == "rule" and messages[1] == {"role": "assistant", "content": fault}
    assert words in messages[2]["content"] and messages[2]["role"] == "user"


@pytest.mark.parametrize("fallback", ["heuristic", "random"])
def test_after_the_retries_the_fallback_move_is_played_and_counted(server, fallback):
    agent, env = agent_at_first_decision(server, extra=f":fallback={fallback}")
    server.script = ["garbage", "illegal", "garbage"]
    _, record = decide(agent, env)
    assert record["fallback"] and record["invalid_replies"] == 3 and len(record["attempts"]) == 3
    assert [m for m, _ in server.requests] == ["garbage", "illegal", "garbage"]


@pytest.mark.parametrize("fault", ["500", "429", "slow"])
def test_http_errors_and_timeouts_are_retried(server, fault):
    """A 500, a 429 or a reply slower than the timeout is retried by the client; the retry's answer
    is played, and nothing counts as an invalid reply."""
    agent, env = agent_at_first_decision(server)
    server.script = [fault]
    _, record = decide(agent, env)
    assert [m for m, _ in server.requests] == [fault, "rule"]
    assert record["invalid_replies"] == 0 and not record["fallback"] and len(record["attempts"]) == 1


@pytest.mark.parametrize("fault", ["500", "429", "slow"])
def test_a_server_that_keeps_failing_is_a_clear_error_naming_it(server, fault):
    agent, env = agent_at_first_decision(server)
    server.fail_after = (0, fault)
    with pytest.raises(LLMServerError, match=rf"language model server {server.url}/ \(model 'rule'\) "
                                             r"failed after 2 retries"):
        decide(agent, env)
    assert len(server.requests) == 3


def test_a_server_that_is_not_there_is_a_clear_error_naming_it():
    agent = LLMAgent("tongits", "m", base_url="http://127.0.0.1:9/v1", retries=0, timeout=0.5, fallback="random")
    env = make_raw_env("tongits")
    env.reset(seed=5600000)
    agent.reset(env.agent_name_mapping[env.agent_selection], 0)
    with pytest.raises(LLMServerError, match=r"http://127.0.0.1:9/v1/ \(model 'm'\).*APIConnectionError"):
        decide(agent, env)


# -- tournaments ----------------------------------------------------------------------------------
def test_the_log_and_the_summary_account_for_every_decision(server, tmp_path):
    """games.jsonl holds each decision's prompt, replies, tokens and latency; the summary's llm
    counts are their sums, and the printed report names invalid replies and tokens."""
    server.script = ["garbage", "rule", "illegal"] + ["rule"] * 20 + ["garbage"] * 3
    config = TournamentConfig(game="rummy", agents=(spec(server), "random"), games=2, seed=5600000,
                              options=SHORT["rummy"])
    results = run_tournament(config, out_dir=tmp_path, progress=False)
    games = io.read_jsonl(tmp_path / "games.jsonl")
    decisions = [d for g in games for d in g["decisions"]]
    llm_seats = {(g["index"], d["seat"]) for g in games for d in g["decisions"]}
    assert llm_seats == {(g["index"], g["agent_specs"].index(spec(server))) for g in games}
    assert all(d["prompt"].startswith("Game: Rummy") and d["attempts"] for d in decisions)
    usage = results["summary"][0]["llm"]
    assert usage["decisions"] == len(decisions)
    assert len(server.requests) == sum(len(d["attempts"]) for d in decisions) == (
        usage["decisions"] + usage["invalid_replies"] - usage["fallbacks"])
    assert usage["invalid_replies"] == 5 and usage["fallbacks"] == 1
    assert usage["prompt_tokens"] == sum(d["prompt_tokens"] for d in decisions) > 0
    assert usage["completion_tokens"] == sum(d["completion_tokens"] for d in decisions) > 0
    assert "llm" not in results["summary"][1]
    saved = json.loads((tmp_path / "results.json").read_text())
    assert saved["summary"][0]["llm"] == usage
    assert "5 invalid replies, 1 fallback moves" in describe(results)


def test_a_server_failing_mid_tournament_stops_with_a_clear_error_and_keeps_the_games_played(server, tmp_path):
    config = TournamentConfig(game="tongits", agents=(spec(server), "random"), games=6, seed=5600000,
                              options=SHORT["tongits"])
    server.fail_after = (60, "500")
    with pytest.raises(TournamentError, match=rf"tongits game \d \(env seed \d+, seats .*\): LLMServerError: "
                                              rf"language model server {server.url}/ .* the games played "
                                              "are in"):
        run_tournament(config, out_dir=tmp_path, progress=False)
    games = io.read_jsonl(tmp_path / "games.jsonl")
    assert games and [g["index"] for g in games] == list(range(len(games)))
    assert all(g["actions"] and g["decisions"] for g in games)
    assert not (tmp_path / "results.json").exists()


@pytest.mark.parametrize("game", list(GAMES))
def test_a_whole_tournament_of_each_game_through_the_openai_client(server, tmp_path, game):
    config = TournamentConfig(game=game, agents=(spec(server), "random"), games=2, seed=5600000,
                              options=SHORT[game])
    results = run_tournament(config, out_dir=tmp_path, progress=False)
    usage = results["summary"][0]["llm"]
    assert usage["decisions"] > 0 and usage["invalid_replies"] == 0 and usage["fallbacks"] == 0
    assert usage["decisions"] == sum(len(g["decisions"]) for g in io.read_jsonl(tmp_path / "games.jsonl"))


def test_the_cli_tournament_reports_invalid_replies_and_tokens(server, tmp_path, capsys):
    server.script = ["garbage"]
    rc = main(["tournament", "--game", "rummy", "--agents", f"llm:model=M:base_url={server.url},random",
               "--games", "2", "--seed", "5600000", "--option", "max_rounds=1", "--option", "max_turns=20",
               "--workers", "1", "--out", str(tmp_path), "--quiet"])
    out = capsys.readouterr().out
    assert rc == 0
    assert f"llm:model=M:base_url={server.url}: " in out and "1 invalid replies" in out
    assert "prompt + " in out and "completion tokens" in out
