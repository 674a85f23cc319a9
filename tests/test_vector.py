"""rummy_env.vector.VectorGames: batched stepping equals stepping each game through the AEC env,
auto reset, per-seat returns, determinism from the seed, pickling, illegal actions."""
from __future__ import annotations

import pickle

import numpy as np
import pytest

from rummy_env.registry import GAMES
from rummy_env.vector import VectorGames
from tests.harness import SHORT_EPISODE_OPTIONS

GAME_NAMES = list(GAMES)


def _random_actions(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per row of ``mask`` (vectorised: Gumbel-free arg-max)."""
    noise = rng.random(mask.shape)
    return np.argmax(np.where(mask.astype(bool), noise, -1.0), axis=1)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_matches_aec_env_one_by_one(name):
    """Env i of VectorGames is the AEC env reset with generator i: same observations, masks, seats,
    per-step rewards, episode returns (== the AEC cumulative rewards) and next deals."""
    from rummy_env.registry import game_module
    n_envs, seed, opts = 3, 11, SHORT_EPISODE_OPTIONS[name]
    vg = VectorGames(name, n_envs, seed, **opts)
    rngs = [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(n_envs)]
    envs = []
    for rng in rngs:
        env = game_module(name).raw_env(**opts)
        env.np_random = rng
        env.reset()
        envs.append(env)
    returns = [np.zeros(vg.num_players) for _ in envs]
    pick = np.random.default_rng(0)
    finished = 0
    for _ in range(150):
        obs, mask, seat = vg.observe()
        for i, env in enumerate(envs):
            agent = env.agent_selection
            assert seat[i] == env.agent_name_mapping[agent]
            o = env.observe(agent)
            np.testing.assert_array_equal(obs[i], o["observation"])
            np.testing.assert_array_equal(mask[i], o["action_mask"])
        actions = _random_actions(pick, mask)
        out = vg.step(actions)
        for i, env in enumerate(envs):
            env.step(int(actions[i]))
            step_rewards = np.array([env.rewards[a] for a in env.possible_agents], np.float32)
            np.testing.assert_array_equal(out.rewards[i], step_rewards)
            returns[i] += step_rewards
            ended = all(env.terminations[a] or env.truncations[a] for a in env.possible_agents)
            assert out.done[i] == ended
            if ended:
                finished += 1
                assert out.truncated[i] == any(env.truncations.values())
                np.testing.assert_allclose(out.returns[i], returns[i], rtol=1e-5, atol=1e-4)
                np.testing.assert_allclose(
                    out.returns[i], [env._cumulative_rewards[a] for a in env.possible_agents], rtol=1e-5, atol=1e-4)
                returns[i][:] = 0.0
                env.reset()  # the next deal comes from the same generator, like VectorGames' auto reset
            else:
                assert not out.returns[i].any() and out.lengths[i] == 0
    assert finished >= 1, "no episode ended: the test would not check auto reset"


@pytest.mark.parametrize("name", GAME_NAMES[:2])
def test_auto_reset_and_lengths(name):
    """A finished game is replaced at once: its length counter restarts, the reported length is the
    number of actions stepped in it, and ``episodes_done`` counts the ends."""
    vg = VectorGames(name, 4, 3, **SHORT_EPISODE_OPTIONS[name])
    pick = np.random.default_rng(1)
    steps = np.zeros(4, np.int64)
    ends = 0
    for _ in range(200):
        _, mask, _ = vg.observe()
        out = vg.step(_random_actions(pick, mask))
        steps += 1
        for i in np.flatnonzero(out.done):
            assert out.lengths[i] == steps[i]
            assert vg.episode_lengths[i] == 0 and not vg.episode_returns[i].any()
            assert not vg.games[i].done
            steps[i] = 0
            ends += 1
    assert ends >= 1 and vg.episodes_done == ends


@pytest.mark.parametrize("name", GAME_NAMES[:2])
def test_deterministic_from_seed(name):
    """Same seed and actions -> identical batches; another seed -> other deals."""
    def run(seed):
        vg = VectorGames(name, 3, seed, **SHORT_EPISODE_OPTIONS[name])
        pick = np.random.default_rng(5)
        trace = []
        for _ in range(60):
            obs, mask, seat = vg.observe()
            out = vg.step(_random_actions(pick, mask))
            trace.append((obs, mask, seat, out.rewards, out.done))
        return trace

    a, b, c = run(7), run(7), run(8)
    for x, y in zip(a, b):
        for u, v in zip(x, y):
            np.testing.assert_array_equal(u, v)
    assert any(not np.array_equal(x[0], z[0]) for x, z in zip(a, c))


def test_subset_step_pickle_and_illegal():
    """Stepping a subset leaves the others untouched; a pickled copy continues identically; an
    illegal action raises ValueError naming its text before any game is stepped."""
    name = GAME_NAMES[0]
    vg = VectorGames(name, 3, 0, **SHORT_EPISODE_OPTIONS[name])
    obs0, mask0, _ = vg.observe()
    pick = np.random.default_rng(2)
    vg.step(_random_actions(pick, mask0[[1]]), env_ids=[1])
    obs1, _, _ = vg.observe()
    np.testing.assert_array_equal(obs1[[0, 2]], obs0[[0, 2]])

    copy = pickle.loads(pickle.dumps(vg))
    for _ in range(30):
        _, mask, _ = vg.observe()
        actions = _random_actions(pick, mask)
        out_a, out_b = vg.step(actions), copy.step(actions)
        for u, v in zip(out_a, out_b):
            np.testing.assert_array_equal(u, v)
    np.testing.assert_array_equal(vg.observe()[0], copy.observe()[0])

    obs, mask, _ = vg.observe()
    illegal = int(np.flatnonzero(mask[2] == 0)[0])
    actions = _random_actions(pick, mask)
    actions[2] = illegal
    text = vg.games[2].action_to_text(illegal)
    with pytest.raises(ValueError, match=f"env 2: illegal action {illegal} '{text}'"):
        vg.step(actions)
    np.testing.assert_array_equal(vg.observe()[0], obs)
    with pytest.raises(ValueError, match="2 actions for 3"):
        vg.step(actions[:2])


def test_scored_marks_each_deal_end_of_a_seven_deal_match():
    """``scored`` is set on exactly the steps on which a Contract Rummy deal ends: seven in a match
    of the default seven deals, the last of them the match's end, and on no other step."""
    vg = VectorGames("contract_rummy", 1, 5)
    game = vg.games[0]
    pick = np.random.default_rng(0)
    deal_ends, steps = [], 0
    while True:
        deal_before = game.deal_idx
        out = vg.step(_random_actions(pick, vg.observe()[1]))
        steps += 1
        assert out.scored[0] == (out.done[0] or game.deal_idx != deal_before)
        if out.scored[0]:
            deal_ends.append(steps)
        if out.done[0]:
            break
    assert len(deal_ends) == 7 and deal_ends[-1] == steps
