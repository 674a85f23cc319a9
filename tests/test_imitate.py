"""experiments/imitate.py: the demonstrations are the rule-based agent's legal choices with the
right discounted returns, the fitted network agrees with the agent far above chance, and the
written policy loads as an agent and as a PPO warm start."""
from __future__ import annotations

import dataclasses
import json
import os

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from rummy_env.agents.registry import load_ppo_agent, make_agent  # noqa: E402
from rummy_env.experiments import imitate, io  # noqa: E402
from rummy_env.experiments import train_ppo as tp  # noqa: E402
from rummy_env.vector import VectorGames  # noqa: E402

OPTIONS = {"reward_mode": "win_loss", "max_rounds": 1}


def test_demonstrations_replay_the_agent_and_discount_the_return():
    """Replaying the recorded episodes: each row is the acting seat's observation and legal mask,
    its action is the heuristic's choice there, and the value target is gamma ** (decisions left
    after this one) times the seat's win/loss return (the only reward comes at the end)."""
    gamma = 0.9
    demos = imitate.collect("rummy", OPTIONS, 300, num_envs=3, seed=5, gamma=gamma, reward_scale=1.0)
    assert len(demos.action) >= 300 and demos.episode[0] == 0
    assert np.all(np.diff(demos.episode) >= 0)
    for ep in range(int(demos.episode.max()) + 1):
        rows = np.flatnonzero(demos.episode == ep)
        mask = demos.mask(rows).numpy()
        assert mask[np.arange(len(rows)), demos.action[rows]].all()
        # the first decision of an episode is seat 0's or seat 1's first decision; every episode
        # ends with a win (+1) or a loss (-1) for each seat, so |value| = gamma ** k, k >= 0
        k = np.log(np.abs(demos.value[rows])) / np.log(gamma)
        np.testing.assert_allclose(k, np.round(k), atol=1e-4)
        assert (np.round(k) == 0).sum() == 2  # each seat's last decision carries the undiscounted result
        assert set(np.sign(demos.value[rows])) == {-1.0, 1.0}


def _lowest_legal(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    return mask.astype(bool).argmax(axis=1)


@pytest.mark.parametrize("policy", [None, _lowest_legal], ids=["heuristic", "dagger"])
def test_rows_match_a_replay_of_the_same_deals(policy):
    """The same seed replayed by hand with fresh heuristic agents gives the same first episode.
    With a policy (DAgger) the drawn seat plays the policy's action while its row is labelled with
    the heuristic's choice."""
    demos = imitate.collect("rummy", OPTIONS, 50, num_envs=1, seed=11, gamma=0.99, reward_scale=1.0, policy=policy)
    vg = VectorGames("rummy", 1, 11, **OPTIONS)
    seeds = np.random.default_rng([11, 31337])
    agents = [make_agent("heuristic", "rummy") for _ in range(2)]
    for s, agent in enumerate(agents):
        agent.reset(s, int(seeds.integers(2**63 - 1)))
    played = int(seeds.integers(2)) if policy else -1
    rows = np.flatnonzero(demos.episode == 0)
    overruled = 0
    for row in rows:
        obs, mask, seat = vg.observe()
        s = int(seat[0])
        np.testing.assert_array_equal(demos.obs[row], obs[0].astype(np.float16))
        np.testing.assert_array_equal(demos.mask(np.array([row])).numpy()[0], mask[0].astype(bool))
        label = agents[s].act(obs[0], mask[0], vg.games[0].view(s))
        assert demos.action[row] == label
        action = policy(obs, mask)[0] if s == played else label
        overruled += action != label
        done = vg.step(np.array([action])).done[0]
    assert done
    assert (overruled > 0) == (policy is not None)


def test_fit_learns_the_agent_and_warm_starts_ppo(tmp_path, capsys):
    torch.set_num_threads(1)
    summary = imitate.imitate(imitate.parse_args(["--game", "rummy", "--opt", "reward_mode=win_loss", "--opt", "max_rounds=1",
                            "--decisions", "3000", "--num-envs", "8", "--hidden", "64", "--epochs", "3",
                            "--batch-size", "128", "--val-fraction", "0.2", "--run-dir", str(tmp_path)]))
    # Chance agreement: a uniformly random legal action agrees about 1 / (legal actions) of the time,
    # below 0.4 on these decisions; three epochs on 3,000 decisions reach well above it.
    demos = imitate.collect("rummy", OPTIONS, 3000, num_envs=8, seed=1, gamma=0.99, reward_scale=1.0)
    chance = float(np.mean(1.0 / demos.mask(np.arange(len(demos.action))).sum(1).numpy()))
    assert chance < 0.4
    assert summary["val_accuracy"] > chance + 0.2
    written = json.loads((tmp_path / "summary.json").read_text())
    assert written["decisions"] == summary["decisions"]
    assert len(written["git_commit"]) == 40 and written["command"] == io.provenance()["command"]
    agent = load_ppo_agent(str(tmp_path / "policy.pt"), "rummy")
    vg = VectorGames("rummy", 1, 0, **OPTIONS)
    obs, mask, _ = vg.observe()
    assert mask[0, agent.act(obs[0], mask[0], {})]
    trainer = tp.Trainer(tp.parse_args(["--game", "rummy", "--opt", "reward_mode=win_loss", "--opt", "max_rounds=1",
                                        "--hidden", "64", "--init-from", str(tmp_path / "policy.pt"),
                                        "--run-dir", str(tmp_path / "ppo")]))
    for name, tensor in agent.net.state_dict().items():
        torch.testing.assert_close(trainer.net.state_dict()[name], tensor)


def test_imitate_and_train_ppo_share_run_flags_with_their_own_help():
    """Both tools' ``Args`` inherit the shared flags of ``RunArgs`` (listed by both parsers, with the
    shared docstring as help); a tool's own docstring for a redeclared flag wins, and each tool
    names its default run folder by its kind."""
    from rummy_env.experiments.dataclass_args import RunArgs, field_docs
    shared = {f.name for f in dataclasses.fields(RunArgs)}
    assert {"game", "opt", "seed", "run_dir", "hidden", "conv_channels", "torch_threads"} <= shared
    for tool, own_seed_help in ((imitate, "the held-out split"), (tp, "minibatch order")):
        assert issubclass(tool.Args, RunArgs)
        docs = field_docs(tool.Args)
        assert shared <= set(docs) and own_seed_help in docs["seed"]
        assert "torch CPU threads" in tool.build_parser().format_help()
    assert imitate.parse_args(["--game", "tongits_v0"]).output_dir() == os.path.join("runs", "tongits_bc_s1")
    assert tp.parse_args(["--seed", "3"]).output_dir() == os.path.join("runs", "rummy_ppo_s3")
    assert tp.parse_args(["--run-dir", "x"]).output_dir() == "x"
