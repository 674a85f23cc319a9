"""Ray: tournaments on Ray tasks (same results as the process pool, a lost worker retried) and the
RLlib adapter and training example (issue 18).

One local Ray with 2 CPUs serves the whole module (under pytest-xdist each worker that runs a test
here starts its own, one after the other)."""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np
import psutil
import pytest
import ray
from filelock import FileLock

from rummy_env.experiments.cli import main
from rummy_env.experiments.rllib_env import (LEARNER, RULE_BASED, ActionMaskingPPOModule, CardGameMultiAgentEnv,
                                   card_game_spaces)
from rummy_env.experiments.tournament import TournamentConfig, check_config, run_tournament
from rummy_env.experiments.train_rllib import iteration_stats, ppo_config
from rummy_env.registry import GAMES, make_raw_env
from tests.harness import SHORT_EPISODE_OPTIONS


@pytest.fixture(scope="module")
def local_ray():
    """A local Ray with 2 CPUs; pytest-xdist workers start theirs one after the other (a file lock),
    so two Ray start-ups never race (one run with both starting at once failed in this fixture)."""
    with FileLock(os.path.join(tempfile.gettempdir(), "rummy_env_test_ray_init.lock")):
        ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def _log(out) -> list[dict]:
    return [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]


# -- tournaments ----------------------------------------------------------------------------------
@pytest.mark.parametrize("game", GAMES)
def test_ray_backend_gives_the_results_of_the_process_backend(game, local_ray, tmp_path):
    """Same seeds: the same summary, game count, steps and per-game log on either backend."""
    runs = {}
    for backend in ("process", "ray"):
        config = TournamentConfig(game=game, agents=("random", "heuristic"), games=18, seed=3,
                                  options=SHORT_EPISODE_OPTIONS[game], workers=2, backend=backend)
        runs[backend] = run_tournament(config, out_dir=tmp_path / backend, progress=False)
    process, on_ray = runs["process"], runs["ray"]
    assert on_ray["backend"] == "ray" and on_ray["ray_startup_s"] > 0
    for key in ("games", "deals", "steps", "truncated_games", "summary"):
        assert on_ray[key] == process[key], key
    assert _log(tmp_path / "ray") == _log(tmp_path / "process")


def _raylet_children_running(task_name: str) -> list[psutil.Process]:
    """Worker processes of this driver's Ray that are running ``task_name`` now."""
    from ray._private import ray_constants
    from ray._private.worker import _global_node

    raylet = psutil.Process(_global_node.all_processes[ray_constants.PROCESS_TYPE_RAYLET][0].process.pid)
    running = []
    for child in raylet.children(recursive=True):
        try:
            if " ".join(child.cmdline()).startswith(f"ray::{task_name}"):
                running.append(child)
        except psutil.NoSuchProcess:
            continue
    return running


def test_a_killed_worker_loses_and_duplicates_no_games(local_ray, tmp_path):
    """SIGKILL the process of a running chunk task mid-tournament: Ray reruns the chunk and the
    results and the log equal those of a clean run, every game index exactly once."""
    config = TournamentConfig(game="tongits", agents=("heuristic", "random"), games=240, seed=5,
                              options={"hands_per_match": 1}, workers=2)
    clean = run_tournament(config, out_dir=tmp_path / "clean", progress=False)
    on_ray = TournamentConfig(**{**config.__dict__, "backend": "ray"})
    outcome = {}
    thread = threading.Thread(target=lambda: outcome.update(
        results=run_tournament(on_ray, out_dir=tmp_path / "killed", progress=False)))
    thread.start()
    killed = []
    deadline = time.monotonic() + 120
    while not killed and thread.is_alive() and time.monotonic() < deadline:
        running = _raylet_children_running("_play_chunk")
        if running:
            running[0].kill()
            killed.append(running[0].pid)
        time.sleep(0.02)
    thread.join()
    assert killed, "no chunk task was caught running"
    results = outcome["results"]
    assert results["summary"] == clean["summary"] and results["steps"] == clean["steps"]
    log = _log(tmp_path / "killed")
    assert [r["index"] for r in log] == list(range(clean["games"]))
    assert log == _log(tmp_path / "clean")


def test_address_needs_the_ray_backend():
    with pytest.raises(ValueError, match="--address .* needs --backend ray"):
        check_config(TournamentConfig(game="rummy", agents=("random",), address="auto"))
    with pytest.raises(ValueError, match="unknown backend 'spark'"):
        check_config(TournamentConfig(game="rummy", agents=("random",), backend="spark"))


@pytest.mark.parametrize("argv, message", [
    (["tournament", "--game", "rummy", "--address", "auto"],
     "rummy-env tournament: error: --address joins a Ray cluster: it needs --backend ray"),
    (["train-rllib", "--game", "rummy", "--option", "max_rounds=0"],
     "rummy-env train-rllib: error: bad option for rummy: max_rounds must be an int >= 1, got 0"),
    (["train-rllib", "--game", "rummy", "--batch-size", "100"],
     "rummy-env train-rllib: error: --minibatch-size (500) must not exceed --batch-size (100)"),
    (["train-rllib", "--game", "rummy", "--rule-based-share", "1.5"],
     "rummy-env train-rllib: error: --rule-based-share must lie in [0, 1], got 1.5"),
])
def test_bad_ray_command_lines_are_one_line_usage_errors(argv, message, capsys):
    assert main(argv) == 2
    assert capsys.readouterr().err.strip() == message


def test_the_environments_do_not_import_ray():
    code = ("import sys, rummy_env, rummy_env.registry as r\n"
            "[r.make_raw_env(g) for g in r.GAMES]\n"
            "print(sorted(m for m in sys.modules if m == 'ray' or m.startswith('ray.')))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


# -- the RLlib adapter ----------------------------------------------------------------------------
def _play_adapter(env: CardGameMultiAgentEnv, seed: int) -> tuple[dict, dict, list, list]:
    """One episode with random legal actions for learner ids and the rule-based choice for the
    others; returns the rewards summed per agent id, the last step's dicts, the acting ids and
    the actions."""
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    totals: dict[str, float] = {}
    acting, actions = [], []
    while True:
        (agent_id, o), = obs.items()
        acting.append(agent_id)
        if agent_id.startswith(RULE_BASED):
            action = o["rule_based_action"]
            assert o["action_mask"][action] == 1
        else:
            action = rng.choice(np.flatnonzero(o["action_mask"]))
        actions.append(int(action))
        obs, rewards, terminateds, truncateds, _ = env.step({agent_id: action})
        for a, r in rewards.items():
            totals[a] = totals.get(a, 0.0) + r
        if terminateds["__all__"] or truncateds["__all__"]:
            return totals, {"obs": obs, "terminateds": terminateds, "truncateds": truncateds}, acting, actions


@pytest.mark.parametrize("game", GAMES)
def test_adapter_ends_with_final_observations_and_rewards_for_every_agent_that_acted(game):
    """The last step gives every agent that acted its final observation and an ended flag, and the
    rewards handed out sum to each seat's episode return in the raw env replayed with the same
    actions."""
    env = CardGameMultiAgentEnv({"game": game, "options": SHORT_EPISODE_OPTIONS[game], "rule_based_share": 0.5})
    for seed in range(3):
        totals, last, acting, actions = _play_adapter(env, seed)
        acted = set(acting)
        assert set(last["obs"]) == acted
        ended = last["truncateds"] if last["truncateds"]["__all__"] else last["terminateds"]
        assert {a for a in ended if a != "__all__"} == acted
        for o in last["obs"].values():
            assert o["observations"].dtype == np.float32 and not o["action_mask"].any()
        raw = make_raw_env(game, **SHORT_EPISODE_OPTIONS[game])
        raw.reset(seed=env.env.seed_used)
        returns = np.zeros(len(raw.possible_agents))
        for action in actions:
            raw.step(action)
            returns += [raw.rewards[n] for n in raw.possible_agents]
        for agent_id in acted:
            assert totals.get(agent_id, 0.0) == pytest.approx(returns[int(agent_id.rsplit("_", 1)[1])])


def test_adapter_gives_the_learner_a_seat_and_names_the_rule_based_ones():
    env = CardGameMultiAgentEnv({"game": "tongits", "rule_based_share": 1.0})
    for seed in range(5):
        env.reset(seed=seed)
        assert sum(a.startswith(LEARNER) for a in env.agents) == 1
        assert sorted(int(a.rsplit("_", 1)[1]) for a in env.agents) == [0, 1, 2]
    self_play = CardGameMultiAgentEnv({"game": "tongits", "rule_based_share": 0.0})
    self_play.reset(seed=0)
    assert self_play.agents == ["learner_0", "learner_1", "learner_2"]


def test_adapter_refuses_an_action_its_mask_forbids():
    env = CardGameMultiAgentEnv({"game": "rummy", "rule_based_share": 0.0})
    obs, _ = env.reset(seed=1)
    (agent_id, o), = obs.items()
    illegal = int(np.flatnonzero(o["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match=f"{agent_id} chose action {illegal}, which its action mask forbids"):
        env.step({agent_id: illegal})


def test_action_masking_module_samples_legal_actions_only():
    import torch
    from ray.rllib.core.columns import Columns

    learner_space, _, action_space = card_game_spaces("rummy", {})
    module = ActionMaskingPPOModule(observation_space=learner_space, action_space=action_space,
                                    model_config={"fcnet_hiddens": [32]})
    rng = np.random.default_rng(0)
    masks = np.zeros((64, action_space.n), np.float32)
    for row in masks:
        row[rng.choice(action_space.n, size=3, replace=False)] = 1.0
    obs = {"observations": torch.from_numpy(rng.random((64, learner_space["observations"].shape[0]), np.float32)),
           "action_mask": torch.from_numpy(masks)}
    logits = module.forward_exploration({Columns.OBS: obs})[Columns.ACTION_DIST_INPUTS]
    samples = torch.distributions.Categorical(logits=logits).sample((200,)).numpy()
    assert masks[np.arange(64), samples].all()


# -- RLlib training -------------------------------------------------------------------------------
def test_rllib_trains_on_rummy_with_legal_actions_and_finite_statistics(local_ray):
    """Two PPO iterations on Rummy with one remote env runner: the learner's losses come back
    finite, and episodes sampled by the env runner show every action inside its mask, for both
    the learner and the rule-based module."""
    config = ppo_config("rummy", {"max_rounds": 1}, env_runners=1, batch_size=256, minibatch_size=128, epochs=1,
                        hidden=(64,))
    algo = config.build_algo()
    try:
        stats = [iteration_stats(algo.train(), seconds=1.0) for _ in range(2)]
        sampled = algo.env_runner_group.foreach_env_runner(lambda runner: runner.sample(num_timesteps=200),
                                                           local_env_runner=False)
    finally:
        algo.stop()
    for s in stats:
        assert s["env_steps"] > 0
        for key in ("policy_loss", "vf_loss", "entropy", "total_loss"):
            assert math.isfinite(s[key]), (key, s)
    modules, checked = set(), 0
    for episode in (e for episodes in sampled for e in episodes):
        for agent_id, single in episode.agent_episodes.items():
            steps = len(single)
            if steps == 0:
                continue
            masks = np.asarray(single.get_observations(slice(0, steps))["action_mask"])
            actions = np.asarray(single.get_actions(slice(0, steps)))
            assert masks[np.arange(steps), actions].all(), agent_id
            modules.add(episode.module_for(agent_id))
            checked += steps
    assert checked >= 100 and modules == {LEARNER, RULE_BASED}
