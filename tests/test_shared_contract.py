"""The parts of the shared contract (``docs/rules/README.md``) that every game keeps the same way,
checked on all five games at once: observe() of any agent is that agent's own observation, wrapped
environments and agents pickle mid-game (for Ray), the wrapped env shows itself in Jupyter, the text
methods refuse to run before reset() without touching the env, the wrapper keeps PettingZoo's order
checks on PettingZoo's public wrapper base alone, and the game protocol names every keyword option an
engine's determinize takes."""
from __future__ import annotations

import inspect
import pickle

import numpy as np
import pytest
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import BaseWrapper

from rummy_env.agents.registry import make_agent
from rummy_env.base import ORDERED_ATTRIBUTES, Game
from rummy_env.registry import GAMES, make_env, make_raw_env
from tests.harness import random_legal_action


def _advance(env, steps: int, rng: np.random.Generator) -> None:
    for _ in range(steps):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            return
        env.step(random_legal_action(obs["action_mask"], rng))


@pytest.mark.parametrize("game", list(GAMES))
def test_observe_returns_the_named_agents_own_view(game):
    """PettingZoo's gin_rummy once returned the acting seat's hand from observe(other_agent): here
    observe(a) is seat a's own observation, and only the acting seat has a non-zero mask."""
    env = make_env(game)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    for _ in range(5):
        _advance(env, 7, rng)
        raw = env.unwrapped
        acting = env.agent_selection
        for agent in env.possible_agents:
            seat = raw.agent_name_mapping[agent]
            obs = env.observe(agent)
            np.testing.assert_array_equal(obs["observation"], raw.game.observation(seat))
            assert obs["action_mask"].any() == (agent == acting and not raw.game.done)
            assert raw.view(agent)["seat"] == seat


@pytest.mark.parametrize("game", list(GAMES))
def test_wrapped_env_and_agents_pickle_mid_game(game):
    """A pickled env (and a pickled rule-based agent) continues exactly like the original."""
    env = make_env(game)
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    _advance(env, 30, rng)
    copy = pickle.loads(pickle.dumps(env))
    agent = make_agent("heuristic", game)
    agent.reset(0, seed=1)
    agent_copy = pickle.loads(pickle.dumps(agent))
    for _ in range(40):
        obs, _, term, trunc, _ = env.last()
        obs_copy, _, term_copy, trunc_copy, _ = copy.last()
        assert (term, trunc) == (term_copy, trunc_copy)
        np.testing.assert_array_equal(obs["observation"], obs_copy["observation"])
        np.testing.assert_array_equal(obs["action_mask"], obs_copy["action_mask"])
        if term or trunc:
            break
        action = random_legal_action(obs["action_mask"], rng)
        env.step(action)
        copy.step(action)
    seat = env.unwrapped.agent_name_mapping[env.agent_selection]
    if not env.unwrapped.game.done:
        view = env.unwrapped.view(seat)
        obs = env.observe(env.agent_selection)
        agent.reset(seat, seed=1)
        agent_copy.reset(seat, seed=1)
        assert agent.act(obs["observation"], obs["action_mask"], view) == \
            agent_copy.act(obs["observation"], obs["action_mask"], view)


@pytest.mark.parametrize("game", list(GAMES))
def test_wrapped_env_renders_html(game):
    env = make_env(game)
    env.reset(seed=0)
    html = env._repr_html_()
    assert html.startswith("<") and game in html


def _text_calls(env) -> dict:
    """The env's text methods, each called as a caller would (the first action, seat 0)."""
    return {"action_to_text": lambda: env.action_to_text(0), "text_to_action": lambda: env.text_to_action("pass"),
            "prompt": lambda: env.prompt(0), "parse_reply": lambda: env.parse_reply(0, "[pass]")}


@pytest.mark.parametrize("game", list(GAMES))
def test_text_methods_before_reset_raise_and_leave_the_env_and_its_generator_alone(game):
    """action_to_text, text_to_action, prompt and parse_reply before the first reset() raise a
    ValueError naming reset() (raw and wrapped env); no game is made and the generator does not
    move, so a later unseeded reset deals what it would have dealt."""
    for env in (make_raw_env(game), make_env(game)):
        raw = env.unwrapped
        raw.np_random = np.random.default_rng(11)
        for method, call in _text_calls(env).items():
            with pytest.raises(ValueError, match=rf"call reset\(\) before {method}\(\)"):
                call()
        assert raw.game is None and raw.seed_used is None
        assert raw.np_random.bit_generator.state == np.random.default_rng(11).bit_generator.state
        env.reset()
        twin = make_raw_env(game)
        twin.np_random = np.random.default_rng(11)
        twin.reset()
        assert raw.game.to_dict() == twin.game.to_dict()
        assert env.text_to_action(env.action_to_text(0)) == 0


@pytest.mark.parametrize("game", list(GAMES))
def test_wrapper_keeps_the_order_checks_on_pettingzoos_public_base_only(game):
    """The wrapper's PettingZoo classes are the public BaseWrapper and AECEnv. Before reset() the
    episode attributes raise AttributeError and the calls ValueError; agent_iter hands out a turn
    only after the previous one was stepped; stepping past the end changes nothing."""
    env = make_env(game)
    assert {c for c in type(env).__mro__ if c.__module__.startswith("pettingzoo")} == {BaseWrapper, AECEnv}
    for name in ORDERED_ATTRIBUTES:
        with pytest.raises(AttributeError, match="before reset"):
            getattr(env, name)
    for method, call in {"step": lambda: env.step(0), "last": env.last, "observe": lambda: env.observe("player_0"),
                         "render": env.render, "agent_iter": env.agent_iter}.items():
        with pytest.raises(ValueError, match=rf"call reset\(\) before {method}\(\)"):
            call()
    env.reset(seed=2)
    turns = iter(env.agent_iter())
    assert next(turns) == env.agent_selection
    with pytest.raises(ValueError, match="before the next turn"):
        next(turns)
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    for agent in env.agent_iter(max_iter=10_000):
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else random_legal_action(obs["action_mask"], rng))
    assert not env.agents
    done = env.unwrapped.game.to_dict()
    env.step(0)
    assert env.unwrapped.game.to_dict() == done


@pytest.mark.parametrize("game", list(GAMES))
def test_game_protocol_names_every_determinize_option(game):
    """Every keyword option of an engine's determinize has a default and is named in the Game
    protocol's determinize; anything else is refused with TypeError."""
    env = make_raw_env(game)
    env.reset(seed=4)
    engine = env.game
    params = list(inspect.signature(type(engine).determinize).parameters.values())[3:]
    protocol = inspect.getdoc(Game.determinize)
    for param in params:
        assert param.default is not inspect.Parameter.empty, param
        assert f"``{param.name}``" in protocol, f"{game}: option {param.name} is not in Game.determinize"
        engine.determinize(0, np.random.default_rng(0), **{param.name: param.default})
    with pytest.raises(TypeError):
        engine.determinize(0, np.random.default_rng(0), no_such_option=True)
