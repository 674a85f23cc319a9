"""The five games in TextArena (issue 44): ``import rummy_env.textarena`` registers them, and
``textarena.make`` gives environments with TextArena's contract, playable by its own wrappers and
agents (here TextArena's ``OpenAIAgent`` against the rule-playing server of tests/llm_server.py)."""
from __future__ import annotations

import random

import pytest

ta = pytest.importorskip("textarena")
pytest.importorskip("openai")

import rummy_env.textarena  # noqa: E402,F401  (registers the games)
from llm_server import RuleServer, rule_move  # noqa: E402

from rummy_env.text_protocol import turn_text  # noqa: E402
from rummy_env.text_rules import RULES  # noqa: E402
from rummy_env.textarena import IDS  # noqa: E402

PLAYERS = {"rummy": 2, "tongits": 3, "i_doubt_it": 3, "ginny_o": 2, "contract_rummy": 3}
SHORT = {"rummy": {"max_rounds": 1, "max_turns": 30}, "tongits": {"hands_per_match": 1},
         "i_doubt_it": {"max_plays": 40}, "contract_rummy": {"deals": [1], "max_turns_per_deal": 15},
         "ginny_o": {"max_turns": 16}}
"""Options that keep each game short."""


def test_make_tongits_after_import_gives_the_text_protocol_prompt():
    """The default wrappers show the rules and the latest board: the prompt of the seat to act."""
    env = ta.make("rummy_env/Tongits-v0")
    env.reset(num_players=3, seed=5600000)
    player, observation = env.get_observation()
    assert player == env.raw.game.current_player
    assert observation.startswith(RULES["tongits"]) and observation.endswith(turn_text(env.raw.view(player)))
    assert env.raw.prompt(player).startswith(RULES["tongits"])


@pytest.mark.parametrize("game", list(IDS))
def test_each_game_plays_to_the_end_with_textarenas_loop(game):
    """reset / get_observation / step / close until done, moves read from the observation as an
    agent would read them; rewards are +1 for the highest return (0 all level), -1 otherwise."""
    env = ta.make(IDS[game], **SHORT[game])
    env.reset(num_players=PLAYERS[game], seed=5600000)
    rng = random.Random(0)
    done, steps = False, 0
    while not done:
        player, observation = env.get_observation()
        done, info = env.step(rule_move(observation, rng))
        steps += 1
    rewards, game_info = env.close()
    assert steps > 3 and set(rewards) == set(range(PLAYERS[game]))
    returns = [game_info[p]["return"] for p in range(PLAYERS[game])]
    best = max(returns)
    level = len(set(returns)) == 1
    assert rewards == {p: 0 if level else (1 if r == best else -1) for p, r in enumerate(returns)}
    assert not any(game_info[p]["invalid_move"] for p in rewards)


def test_an_invalid_action_is_asked_again_then_ends_the_game_for_the_offender():
    env = ta.make("rummy_env/Rummy-v0-raw", error_allowance=1)
    env.reset(num_players=2, seed=5600000)
    player, _ = env.get_observation()
    done, _ = env.step("[fly away]")
    assert not done
    again, messages = env.get_observation()
    assert again == player
    board = [m for _, m, kind in messages if kind == ta.ObservationType.GAME_BOARD]
    assert board and board[-1].startswith("Your last answer was not accepted: unknown action text 'fly away'")
    done, _ = env.step("[layoff AS @16]")
    rewards, game_info = env.close()
    assert done and rewards == {player: -1, 1 - player: 0} and game_info[player]["invalid_move"]


def test_a_player_count_the_game_does_not_allow_is_a_value_error():
    with pytest.raises(ValueError, match="tongits is played by exactly 3 players, got num_players=2"):
        ta.make("rummy_env/Tongits-v0").reset(num_players=2)
    with pytest.raises(ValueError, match="num_players"):
        ta.make("rummy_env/Rummy-v0").reset(num_players=9)
    with pytest.raises(ValueError, match="given to reset"):
        ta.make("rummy_env/Rummy-v0", num_players=2)


def test_textarenas_own_agent_and_observation_wrapper_play_a_game():
    """TextArena's OpenAIAgent (against the local rule server) and LLMObservationWrapper play Ginny-O."""
    server = RuleServer(seed=2).start()
    try:
        agent = ta.agents.OpenAIAgent(model_name="rule", api_key="none", base_url=server.url)
        env = ta.wrappers.LLMObservationWrapper(ta.make("rummy_env/GinnyO-v0-raw", max_turns=6))
        env.reset(num_players=2, seed=5600001)
        done = False
        while not done:
            _, observation = env.get_observation()
            done, _ = env.step(agent(observation))
        rewards, game_info = env.close()
    finally:
        server.stop()
    assert sorted(rewards) == [0, 1] and not any(info["invalid_move"] for info in game_info.values())
    assert len(server.requests) > 6
