"""The parts of the shared contract (``docs/rules/README.md``) that every game keeps the same way,
checked on all five games at once: observe() of any agent is that agent's own observation, wrapped
environments and agents pickle mid-game (for Ray), and the wrapped env shows itself in Jupyter."""
from __future__ import annotations

import pickle

import numpy as np
import pytest

from rummy_env.agents.registry import make_agent
from rummy_env.registry import GAMES, make_env
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
