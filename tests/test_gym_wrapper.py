"""rummy_env.gym_wrapper.SingleAgentEnv: Gymnasium API (check_env), SyncVectorEnv, action masks,
the learner's reward accumulated between its turns, opponents, illegal actions."""
from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from rummy_env.agents.base import Agent, RandomAgent
from rummy_env.gym_wrapper import SingleAgentEnv
from rummy_env.registry import GAMES
from tests.harness import SHORT_EPISODE_OPTIONS

GAME_NAMES = list(GAMES)


def _first_legal(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


@pytest.mark.parametrize("name", GAME_NAMES)
def test_check_env(name):
    """Gymnasium's env checker passes (seeded resets, step determinism, fresh arrays)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # infinite Box bounds and "no spec" warnings only
        check_env(SingleAgentEnv(name, seat="random", **SHORT_EPISODE_OPTIONS[name]), skip_render_check=True)


class Recorder(Agent):
    """Random agent that records the seats it is asked to play."""

    def __init__(self):
        self.seats = []
        self.reset(0, None)

    def act(self, observation, action_mask, view):
        self.seats.append(view["seat"])
        assert view["to_play"] == view["seat"]
        legal = np.flatnonzero(action_mask)
        return int(legal[self.rng.integers(len(legal))])


@pytest.mark.parametrize("name", GAME_NAMES)
def test_learner_reward_is_its_return(name):
    """The learner acts only on its turns, with the engine's mask; its rewards sum to its episode
    return; the opponents play the other seats; reset(seed) reproduces an episode."""
    rec = Recorder()
    env = SingleAgentEnv(name, opponents=[rec], seat="random", **SHORT_EPISODE_OPTIONS[name])
    seats = set()

    def episode(seed):
        rec.seats.clear()
        obs, info = env.reset(seed=seed)
        seats.add(info["seat"])
        trace, total = [obs], 0.0
        rng = np.random.default_rng(seed)
        while True:
            game = env.game
            assert game.current_player == env.seat and not game.done
            np.testing.assert_array_equal(info["action_mask"], game.legal_mask())
            np.testing.assert_array_equal(env.action_masks(), game.legal_mask().astype(bool))
            legal = np.flatnonzero(info["action_mask"])
            obs, reward, terminated, truncated, info = env.step(int(legal[rng.integers(len(legal))]))
            trace.append(obs)
            total += reward
            if terminated or truncated:
                assert not env.action_masks().any()
                assert env.seat not in rec.seats
                return trace, total, info

    for seed in range(4):
        trace, total, info = episode(seed)
        assert total == pytest.approx(info["returns"][info["seat"]], abs=1e-4)
        again, total2, _ = episode(seed)
        assert total2 == total
        for a, b in zip(trace, again):
            np.testing.assert_array_equal(a, b)
    if env.num_players == 2:
        assert len(seats) == 2, "seat='random' should give both seats over 8 episodes"


def test_sync_vector_env_and_masks():
    """Two wrapped games in gymnasium's SyncVectorEnv, actions read from the stacked masks."""
    name = GAME_NAMES[0]
    envs = gym.vector.SyncVectorEnv([lambda: SingleAgentEnv(name, seat="random", **SHORT_EPISODE_OPTIONS[name])] * 2)
    obs, infos = envs.reset(seed=3)
    assert obs.shape == (2,) + envs.single_observation_space.shape and obs.dtype == np.float32
    ends = 0
    for _ in range(120):
        masks = infos["action_mask"]
        assert masks.shape == (2, envs.single_action_space.n)
        actions = np.array([_first_legal(m) if m.any() else 0 for m in masks])
        obs, rewards, terminated, truncated, infos = envs.step(actions)
        ends += int((terminated | truncated).sum())
    assert ends >= 1
    masks = envs.call("action_masks")
    assert len(masks) == 2 and masks[0].dtype == bool
    envs.close()


def test_illegal_actions_and_options():
    name = GAME_NAMES[0]
    env = SingleAgentEnv(name, **SHORT_EPISODE_OPTIONS[name])
    obs, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    obs2, reward, terminated, truncated, info2 = env.step(illegal)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info2["illegal_action"] == env.game.action_to_text(illegal)
    with pytest.raises(ValueError, match="episode is over"):
        env.step(_first_legal(info["action_mask"]))

    strict = SingleAgentEnv(name, illegal_action_penalty=False, **SHORT_EPISODE_OPTIONS[name])
    strict.reset(seed=0)
    before = strict.game.observation(strict.seat)
    with pytest.raises(ValueError, match=f"illegal action {illegal} '{strict.game.action_to_text(illegal)}'"):
        strict.step(illegal)
    np.testing.assert_array_equal(strict.game.observation(strict.seat), before)

    n = env.num_players
    with pytest.raises(ValueError, match="opponents"):
        SingleAgentEnv(name, opponents=[RandomAgent() for _ in range(n)], **SHORT_EPISODE_OPTIONS[name])
    with pytest.raises(ValueError, match="seat"):
        SingleAgentEnv(name, seat=n, **SHORT_EPISODE_OPTIONS[name])
