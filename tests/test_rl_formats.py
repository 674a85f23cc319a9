"""What RL libraries need of the environments (issue 42): the two observation formats, finite Box
bounds, ``max_cycles``, the Gymnasium ids and the reward-credit wrapper, in all five games."""
from __future__ import annotations

import gymnasium
import numpy as np
import pettingzoo
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

import rummy_env
from rummy_env.gym_wrapper import SingleAgentEnv
from rummy_env.registry import GAMES, make_env, make_raw_env
from rummy_env.wrappers import CreditOnTurn

FAST = {"rummy": {"max_rounds": 1}, "tongits": {"hands_per_match": 1}, "i_doubt_it": {},
        "contract_rummy": {"deals": [1]}, "ginny_o": {}}
GYM_IDS = dict(zip(GAMES, rummy_env.PETTINGZOO_IDS))


def random_play(env, seed: int, on_step=None):
    """Play one episode of the AEC ``env`` with uniformly random legal moves (mask from either format)."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    for agent in env.agent_iter():
        obs, _, terminated, truncated, info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        mask = info["action_mask"] if isinstance(obs, np.ndarray) else obs["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
        if on_step is not None:
            on_step(agent)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("action_mask", ["observation", "info"])
def test_api_test_passes_in_both_formats(game, action_mask):
    api_test(make_env(game, action_mask=action_mask, **FAST[game]), num_cycles=200)


@pytest.mark.parametrize("game", GAMES)
def test_info_format_observes_the_bare_box_and_puts_the_mask_in_infos(game):
    env = make_env(game, action_mask="info", **FAST[game])
    env.reset(seed=3)
    box = env.observation_space(env.possible_agents[0])
    assert isinstance(box, gymnasium.spaces.Box) and np.isfinite(box.low).all() and np.isfinite(box.high).all()
    obs, _, _, _, info = env.last()
    assert isinstance(obs, np.ndarray) and box.contains(obs)
    reference = make_env(game, **FAST[game])
    reference.reset(seed=3)
    np.testing.assert_array_equal(info["action_mask"], reference.observe(reference.agent_selection)["action_mask"])
    np.testing.assert_array_equal(obs, reference.observe(reference.agent_selection)["observation"])
    others = [a for a in env.agents if a != env.agent_selection]
    assert all(not env.infos[a]["action_mask"].any() for a in others)


@pytest.mark.parametrize("game", GAMES)
def test_random_play_stays_in_the_box_and_only_clipped_parts_exceed_their_caps(game):
    raw = make_raw_env(game, **FAST[game])
    box = raw.observation_box
    layout = raw.observation_layout()
    exact = np.ones(layout.size, bool)
    for name in raw.clipped_parts:
        exact[layout[name].slice] = False

    def check(_agent):
        for seat, agent in enumerate(raw.possible_agents):
            assert box.contains(raw.observe(agent)["observation"]), f"{game}: {agent} observation outside the Box"
            unclipped = raw.game.observation(seat)
            inside = (unclipped >= box.low) & (unclipped <= box.high)
            assert inside[exact].all(), (f"{game}: part {layout.part_at(int(np.flatnonzero(~inside & exact)[0])).name}"
                                         " exceeds a cap declared exact")

    for seed in range(2):
        random_play(raw, seed, check)


def test_clipping_holds_a_chip_total_at_its_cap():
    raw = make_raw_env("tongits")
    raw.reset(seed=0)
    obs = raw.game.observation(0)
    obs[raw.observation_layout()["chips"].slice] = [1e6, -1e6, 3]
    np.testing.assert_array_equal(raw.clip_observation(obs)[raw.observation_layout()["chips"].slice], [150, -150, 3])


@pytest.mark.parametrize("game", GAMES)
def test_max_cycles_truncates_every_agent_after_n_steps_of_each(game):
    env = pettingzoo.make("aec", GYM_IDS[game], max_cycles=2, **FAST[game]) if hasattr(pettingzoo, "make") \
        else make_env(game, max_cycles=2, **FAST[game])
    steps = []
    random_play(env, 0, steps.append)
    raw = env.unwrapped
    assert len(steps) == 2 * len(raw.possible_agents) and raw.num_steps == len(steps)
    assert not raw.game.done and not env.agents


@pytest.mark.parametrize("bad", [{"action_mask": "dict"}, {"max_cycles": 0}, {"max_cycles": 2.5},
                                 {"max_cycles": True}])
def test_bad_format_options_are_refused(bad):
    with pytest.raises(ValueError, match=next(iter(bad))):
        make_env("tongits", **bad)


@pytest.mark.parametrize("game", GAMES)
def test_gymnasium_make_gives_the_seat_env_that_passes_check_env(game):
    env = gymnasium.make(GYM_IDS[game], opponents="heuristic", render_mode="rgb_array", **FAST[game])
    check_env(env.unwrapped, skip_render_check=True)
    obs, info = env.reset(seed=1)
    assert env.observation_space.contains(obs)
    np.testing.assert_array_equal(env.unwrapped.action_masks(), info["action_mask"].astype(bool))
    frame = env.render()
    assert frame.ndim == 3 and frame.shape[2] == 3 and frame.dtype == np.uint8


def test_single_agent_env_refuses_aec_only_options_and_search_opponents():
    with pytest.raises(ValueError, match="max_episode_steps"):
        SingleAgentEnv("tongits", max_cycles=3)
    with pytest.raises(ValueError, match="search agents"):
        gymnasium.make(GYM_IDS["tongits"], opponents="ismcts")


@pytest.mark.parametrize("game", GAMES)
def test_credit_on_turn_sums_to_every_seat_return(game):
    env = CreditOnTurn(make_env(game, **FAST[game]))
    for seed in range(3):
        returns = dict.fromkeys(env.possible_agents, 0.0)
        credited = dict.fromkeys(env.possible_agents, 0.0)

        def read(actor):
            over = all(env.terminations[a] or env.truncations[a] for a in env.agents)
            for agent, reward in env.unwrapped.rewards.items():
                returns[agent] += reward
            for agent in env.agents:
                if agent == actor or over:
                    credited[agent] += env.rewards[agent]
                else:
                    assert env.rewards[agent] == 0.0

        random_play(env, seed, read)
        assert credited == pytest.approx(returns), f"{game} seed {seed}"


@pytest.mark.slow  # needs the clients extra, which `make test-slow` installs
@pytest.mark.parametrize("wrapper", ["normalize_obs_v0", "frame_stack_v1"])
@pytest.mark.parametrize("game", ["tongits", "i_doubt_it"])
def test_supersuit_observation_wrappers_run_on_the_info_format(game, wrapper):
    import supersuit

    env = getattr(supersuit, wrapper)(make_env(game, action_mask="info", **FAST[game]))
    steps = []
    random_play(env, 0, steps.append)
    assert steps
    obs = env.observe(env.possible_agents[0])
    assert env.observation_space(env.possible_agents[0]).contains(obs)


def test_wilson_interval_matches_a_known_value_and_stays_in_zero_one():
    from rummy_env.experiments.client_eval import wilson_interval

    assert wilson_interval(50, 100) == pytest.approx((0.4038, 0.5962), abs=1e-4)
    assert wilson_interval(20, 20)[1] == 1.0 and wilson_interval(0, 20)[0] == 0.0
    with pytest.raises(ValueError, match="games"):
        wilson_interval(0, 0)
