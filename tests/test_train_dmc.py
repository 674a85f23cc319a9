"""experiments/train_dmc.py: Deep Monte-Carlo gated over the rule-based agent (issue 45)."""
from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import time

import numpy as np
import pytest
import torch

pytest.importorskip("tqdm")

from rummy_env.agents.registry import load_ppo_agent
from rummy_env.agents.registry import make_agent
from rummy_env.experiments.train_dmc import Args, Trainer, q_values, train
from rummy_env.registry import make_raw_env

ROUND = ["max_rounds=1"]
torch.set_num_threads(1)  # as train() does: one thread per process on a shared machine


def tiny(tmp_path, **kw) -> Args:
    base = dict(game="rummy", opt=ROUND, run_dir=str(tmp_path / "run"), num_envs=4, num_steps=8, total_timesteps=32 * 6,
                prior_candidates=4, eval_every=0, save_every=1, progress=False, learner_reward="relative",
                reward_scale=0.01, hidden="32")
    return Args(**{**base, **kw})


def test_an_untrained_dmc_policy_plays_exactly_the_rule_based_agent(tmp_path):
    trainer = Trainer(tiny(tmp_path))
    os.makedirs(trainer.run_dir)
    trainer.save()
    env = make_raw_env("rummy", max_rounds=1)
    decisions = 0
    for seed in range(3):
        env.reset(seed=seed)
        learned = load_ppo_agent(os.path.join(trainer.run_dir, "policy.pt"), "rummy")
        rule = make_agent("heuristic", "rummy")
        learned.reset(0, seed)
        rule.reset(0, seed)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            view = env.view(agent)
            if agent == env.possible_agents[0]:
                action = learned.act(obs["observation"], obs["action_mask"], view)
                assert action == rule.act(obs["observation"], obs["action_mask"], view)
                decisions += 1
            else:
                action = int(np.flatnonzero(obs["action_mask"])[-1])
            env.step(action)
    assert decisions > 20


def test_the_targets_are_the_learners_undiscounted_returns(tmp_path):
    """With one return per episode, the first decision of each finished episode is fitted to the
    episode's return (times the scale)."""
    trainer = Trainer(tiny(tmp_path, learner_reward="own", reward_scale=0.5, num_steps=64))
    firsts = [len(p) == 0 for p in trainer.pending]
    assert all(firsts)
    inputs, moves, returns = trainer.collect()
    episodes = trainer.arena.take_episodes()
    assert len(episodes) >= 4 and len(returns) > 0
    # every episode's decisions end in a block whose first target is its return
    episode_returns = sorted(round(0.5 * e[1], 6) for e in episodes)
    assert len(returns) == len(moves) == len(inputs)
    assert set(episode_returns) <= set(np.round(returns, 6))


def test_a_tiny_fit_learns_a_toy_position_and_opens_the_gate_only_for_a_better_move(tmp_path):
    """A position where the rule-based agent's move returns 0 and its second choice +1: after fitting
    the greedy gated policy plays the second; where the second returns -1 it keeps the rule."""
    for better, expected_second in ((1.0, True), (-1.0, False)):
        trainer = Trainer(tiny(tmp_path, gate=0.3, epochs=200, learning_rate=1e-2))
        obs, mask, seat = trainer.arena.vg.observe(np.arange(1))
        inputs = trainer.arena.policy_inputs(np.arange(1), obs, mask, seat)
        rule_move, second = (int(a) for a in inputs[0, -4:-2])
        assert trainer.net.act(inputs, mask, greedy=True)[0] == rule_move
        x = np.repeat(inputs, 2, axis=0)
        trainer.fit(x, np.array([rule_move, second]), np.array([0.0, better], np.float32))
        q = q_values(trainer.net, torch.from_numpy(x), torch.tensor([rule_move, second])).detach()
        assert abs(q[0]) < 0.05 and abs(q[1] - better) < 0.05  # Q = V + A fits both returns
        chosen = trainer.net.act(inputs, mask, greedy=True)[0]
        assert (chosen == second) == expected_second


def checkpoint_update(path: str) -> int:
    try:
        return int(torch.load(path, map_location="cpu", weights_only=False)["update"])
    except (FileNotFoundError, EOFError, RuntimeError):
        return 0


def test_a_killed_run_started_again_finishes_as_an_uninterrupted_one(tmp_path):
    """A run killed (SIGKILL) at whatever update it reached, started again with a total a few updates
    past it, ends with the weights and log rows of a run that was never interrupted."""
    args = tiny(tmp_path / "b")
    command = [sys.executable, "-m", "rummy_env.experiments.train_dmc", "--game", "rummy", "--option", "max_rounds=1",
               "--run-dir", args.run_dir, "--num-envs", "4", "--num-steps", "8", "--total-timesteps", str(32 * 10**6),
               "--prior-candidates", "4", "--eval-every", "0", "--save-every", "1", "--no-progress",
               "--learner-reward", "relative", "--reward-scale", "0.01", "--hidden", "32"]
    run = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    checkpoint = os.path.join(args.run_dir, "checkpoint.pt")
    deadline = time.monotonic() + 120
    while checkpoint_update(checkpoint) < 2 and run.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    run.kill()
    run.wait()
    killed_at = checkpoint_update(checkpoint)
    assert run.returncode != 0 and killed_at >= 2, run.stderr.read().decode()
    total = 32 * (killed_at + 3)
    resumed = train(dataclasses.replace(args, total_timesteps=total))
    straight = train(dataclasses.replace(tiny(tmp_path / "a"), total_timesteps=total))
    assert resumed.update == straight.update == killed_at + 3
    for name, weight in straight.net.state_dict().items():
        assert torch.equal(weight, resumed.net.state_dict()[name]), name
    strip = lambda rows: repr([{k: v for k, v in r.items() if k != "time_s"} for r in rows])  # nan == nan here
    assert strip(resumed.train_rows) == strip(straight.train_rows)
