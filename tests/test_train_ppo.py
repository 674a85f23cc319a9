"""experiments/train_ppo.py: the action mask is applied identically when acting and when scoring,
checkpoints are atomic, a run killed at any moment resumes exactly, a tiny run trains and its policy
loads as an agent (agents/ppo_agent.py, agents/registry.py)."""
from __future__ import annotations

import csv
import os
import pickle
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch

from rummy_env.agents.policy_checkpoint import CHECKPOINT_FORMAT, policy_from_checkpoint
from rummy_env.agents.policy_net import PolicyNet, legal_bools, masked_distribution, masked_logits, pick_per_row
from rummy_env.agents.registry import load_ppo_agent, make_agent
from rummy_env.experiments import measure_policy, train_ppo as tp
from rummy_env.experiments.arena import Arena
from rummy_env.experiments.rollout import compute_gae

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Tiny and fast: 2-player Rummy, one round, short rounds; 64 learner decisions per update.
TINY = ["--game", "rummy", "--opt", "reward_mode=zero_sum", "--opt", "max_rounds=1", "--opt", "max_turns=16",
        "--num-envs", "4", "--num-steps", "16", "--hidden", "32", "--update-epochs", "2",
        "--num-minibatches", "2", "--snapshot-every", "2", "--pool-size", "2", "--eval-every", "2",
        "--eval-episodes", "4", "--eval-opponents", "random", "--opponents", "pool:1,random:1", "--no-progress"]
UNTIMED = ("sps", "time_s")


def _args(tmp_path, *extra) -> tp.Args:
    return tp.parse_args(TINY + ["--run-dir", str(tmp_path), *extra])


def _rows(path) -> list[dict]:
    with open(path) as f:
        return [{k: v for k, v in row.items() if k not in UNTIMED} for row in csv.DictReader(f)]


def test_mask_applied_identically(tmp_path):
    """Sampled actions are legal; masked actions get probability 0; the log-probabilities stored
    while acting equal those the update recomputes before its first step."""
    torch.set_num_threads(1)
    trainer = tp.Trainer(_args(tmp_path, "--total-timesteps", "64"))
    batch = trainer.collect()
    mask = batch["mask"]
    assert mask[torch.arange(len(mask)), batch["actions"]].all()
    logits, _ = trainer.net(batch["obs"])
    dist = masked_distribution(logits, mask)
    torch.testing.assert_close(dist.log_prob(batch["actions"]), batch["logp"], rtol=0, atol=1e-5)
    assert (dist.probs[~mask] == 0).all()
    assert mask.sum(1).min() >= 1 and (~mask).any()
    stats = tp.ppo_update(trainer.net, trainer.optimizer, batch, trainer.args, trainer.rng)
    assert stats["logp_err0"] < 1e-5
    # The check can fail: scoring without the mask gives other log-probabilities.
    unmasked = torch.distributions.Categorical(logits=logits).log_prob(batch["actions"])
    assert (unmasked - batch["logp"]).abs().max() > 1e-3


def test_gae_terminal_cuts_bootstrap():
    rewards = torch.tensor([[0.0], [1.0], [0.0]])
    ended = torch.tensor([[0.0], [1.0], [0.0]])
    values = torch.tensor([[0.5], [0.5], [0.5]])
    adv, ret = compute_gae(rewards, ended, values, torch.tensor([2.0]), gamma=1.0, lam=1.0)
    torch.testing.assert_close(ret.squeeze(1), torch.tensor([1.0, 1.0, 2.0]))


def test_atomic_checkpoint(tmp_path, monkeypatch):
    """A kill while the checkpoint is being written leaves the previous checkpoint whole; the
    resumed run then matches one that never stopped."""
    straight = tp.train(_args(tmp_path / "a", "--total-timesteps", "192"))

    real_replace = os.replace

    class Killed(Exception):
        pass

    saves = [0]

    def replace(src, dst):
        if str(dst).endswith("checkpoint.pt"):
            saves[0] += 1
            if saves[0] == 3:  # the temp file of update 3 is written, not yet moved into place
                raise Killed
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(Killed):
        tp.train(_args(tmp_path / "b", "--total-timesteps", "192"))
    monkeypatch.setattr(os, "replace", real_replace)
    data = torch.load(tmp_path / "b" / "checkpoint.pt", weights_only=False)
    assert data["update"] == 2 and len(data["train_rows"]) == 2
    assert len(_rows(tmp_path / "b" / "train.csv")) == 2
    resumed = tp.train(_args(tmp_path / "b", "--total-timesteps", "192"))
    for (k, a), b in zip(straight.net.state_dict().items(), resumed.net.state_dict().values()):
        assert torch.equal(a, b), k
    assert _rows(tmp_path / "a" / "train.csv") == _rows(tmp_path / "b" / "train.csv")
    assert _rows(tmp_path / "a" / "eval.csv") == _rows(tmp_path / "b" / "eval.csv")


CRASH = """
import os, sys
from rummy_env.experiments import train_ppo as tp
real_collect = tp.Trainer.collect
def collect(self):
    if self.update == 2:  # die in the middle of update 3's rollout, mid-episode
        real_step, calls = self.arena.step, [0]
        def step(ids, actions):
            calls[0] += 1
            if calls[0] == 7:
                os._exit(3)
            return real_step(ids, actions)
        self.arena.step = step
    return real_collect(self)
tp.Trainer.collect = collect
tp.main(sys.argv[1:])
"""


@pytest.mark.parametrize("workers", [1, 2])
def test_killed_run_resumes_exactly(tmp_path, workers):
    """os._exit in a subprocess mid-rollout, then the same command again: same parameters, optimizer
    state, step counter and log rows as a run that was never killed; with two rollout workers too
    (the second's games and generators travel in the checkpoint)."""
    args = ["--total-timesteps", "256", "--rollout-workers", str(workers)]
    straight = tp.train(_args(tmp_path / "a", *args))
    run_b = tmp_path / "b"
    proc = subprocess.run([sys.executable, "-c", CRASH, *TINY, "--run-dir", str(run_b), *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 3, proc.stderr[-2000:]
    assert len(_rows(run_b / "train.csv")) == 2
    resumed = tp.train(_args(run_b, *args))
    assert resumed.update == straight.update == 4 and resumed.global_step == straight.global_step == 256
    for (k, a), b in zip(straight.net.state_dict().items(), resumed.net.state_dict().values()):
        assert torch.equal(a, b), k
    sa, sb = straight.optimizer.state_dict()["state"], resumed.optimizer.state_dict()["state"]
    assert all(torch.equal(sa[i]["exp_avg_sq"], sb[i]["exp_avg_sq"]) for i in sa)
    assert _rows(tmp_path / "a" / "train.csv") == _rows(run_b / "train.csv")
    assert _rows(tmp_path / "a" / "eval.csv") == _rows(run_b / "eval.csv")
    with pytest.raises(ValueError, match="other arguments"):
        tp.train(_args(run_b, *args, "--ent-coef", "0.5"))
    if workers == 2:
        assert straight.workers.env_steps[0] > 0
        assert straight.env_steps == straight.arena.env_steps + straight.workers.env_steps[0]
        assert int(_rows(run_b / "train.csv")[-1]["env_steps"]) == straight.env_steps


def test_rollout_workers_play_other_deals_and_report_their_errors(tmp_path):
    """Two rollout workers: the second's games are other deals than the first's, the batch holds
    both shards' learner decisions (legal ones), an error in the worker is raised in the trainer,
    and a worker count that does not divide the games is refused."""
    trainer = tp.Trainer(_args(tmp_path, "--rollout-workers", "2"))
    remote = pickle.loads(trainer.workers.shards[0][0])
    assert trainer.arena.vg.num_envs == remote.vg.num_envs == 2
    local_hands = {tuple(game.hands) for game in trainer.arena.vg.games}
    assert not local_hands & {tuple(game.hands) for game in remote.vg.games}
    trainer.workers.start(trainer.net, trainer.pool, trainer.args.seed, trainer.args)
    try:
        batch = trainer.collect()
        assert batch["obs"].shape[0] == 4 * 16
        assert batch["mask"][torch.arange(64), batch["actions"]].all()
        assert trainer.workers.env_steps[0] >= 32  # its two games, sixteen learner decisions each
    finally:
        trainer.workers.close()
    remote.vg.games[0] = None  # a broken shard: its worker fails while the trainer's own games play
    trainer.workers.shards = [(pickle.dumps(remote), None)]
    trainer.workers.start(trainer.net, trainer.pool, trainer.args.seed, trainer.args)
    try:
        with pytest.raises(AttributeError):
            trainer.collect()
    finally:
        trainer.workers.close()
    with pytest.raises(ValueError, match="--rollout-workers must be at least 1 and divide --num-envs 4, got 3"):
        tp.Trainer(_args(tmp_path, "--rollout-workers", "3"))


def test_a_checkpoint_from_before_rollout_workers_resumes_only_with_one(tmp_path):
    """A checkpoint without rollout shards (written before ``--rollout-workers`` existed) is refused
    by a resumed run that asks for two workers, instead of playing on with one shard."""
    tp.train(_args(tmp_path, "--total-timesteps", "64"))
    path = tmp_path / "checkpoint.pt"
    data = torch.load(path, weights_only=False)
    del data["shards"], data["args"]["rollout_workers"]
    torch.save(data, path)
    with pytest.raises(ValueError, match=r"was written with 1 rollout workers, the run asks for --rollout-workers 2"):
        tp.train(_args(tmp_path, "--total-timesteps", "128", "--rollout-workers", "2"))
    assert tp.train(_args(tmp_path, "--total-timesteps", "128")).update == 2


def test_tiny_training_run_and_agent(tmp_path):
    """A few hundred learner steps: logs, learning curve, checkpoints; the policy loads as an agent
    that plays legal moves through the AEC env, greedy or sampling."""
    trainer = tp.train(_args(tmp_path, "--total-timesteps", "320"))
    rows = _rows(tmp_path / "train.csv")
    assert [int(r["update"]) for r in rows] == [1, 2, 3, 4, 5]
    assert int(rows[-1]["global_step"]) == 320 and float(rows[-1]["logp_err0"]) < 1e-5
    evals = _rows(tmp_path / "eval.csv")
    assert [r["update"] for r in evals] == ["0", "2", "4", "5"] and all(r["opponent"] == "random" for r in evals)
    assert all(0.0 <= float(r["win_share"]) <= 1.0 for r in evals)
    assert os.path.getsize(tmp_path / "learning_curve.png") > 1000
    assert not [p for p in os.listdir(tmp_path) if ".tmp" in p]
    assert trainer.update == 5 and len(trainer.pool) == 2

    from rummy_env import rummy_v0
    for path in (tmp_path / "policy.pt", tmp_path / "checkpoint.pt"):
        for greedy in (True, False):
            agent = load_ppo_agent(str(path), "rummy_v0", greedy=greedy)
            env = rummy_v0.env(reward_mode="zero_sum", max_rounds=1, max_turns=16)
            env.reset(seed=4)
            agent.reset(0, seed=1)
            moves = 0
            for name in env.agent_iter():
                obs, _, term, trunc, _ = env.last()
                if term or trunc:
                    env.step(None)
                    continue
                env.step(agent.act(obs["observation"], obs["action_mask"], env.unwrapped.view(name)))
                moves += 1
            assert moves > 0
    from rummy_env.experiments.checkpoints import main as checkpoints_main
    assert checkpoints_main([str(tmp_path / "policy.pt"), str(tmp_path / "policy_fp16.pt")]) == 0
    half = torch.load(tmp_path / "policy_fp16.pt", weights_only=True)
    assert half["game"] == "rummy" and all(w.dtype == torch.float16 for w in half["model"].values())
    full, exported = load_ppo_agent(str(tmp_path / "policy.pt"), "rummy"), load_ppo_agent(str(tmp_path / "policy_fp16.pt"), "rummy")
    for name, w in full.net.state_dict().items():
        assert torch.equal(exported.net.state_dict()[name], w.half().float())
    with pytest.raises(ValueError, match="not a rummy_env policy file"):
        checkpoints_main([str(tmp_path / "train.csv"), str(tmp_path / "x.pt")])
    with pytest.raises(ValueError, match="trained on rummy"):
        load_ppo_agent(str(tmp_path / "policy.pt"), "tongits")
    with pytest.raises(ValueError, match="cannot load|not a rummy_env"):
        load_ppo_agent(str(tmp_path / "train.csv"), "rummy")


def test_conv_policy_on_board_planes():
    """Ginny-O exposes OBS_BOARD_SHAPE: the policy reads those planes with its conv net (changing
    only the board changes the logits) and acts legally on real observations."""
    from rummy_env import ginny_o_v0
    from rummy_env.vector import VectorGames
    torch.manual_seed(0)
    vg = VectorGames("ginny_o", 2, 0)
    net = PolicyNet(vg.obs_size, vg.num_actions, (16,), board_shape=ginny_o_v0.OBS_BOARD_SHAPE)
    assert net.board_shape == list(ginny_o_v0.OBS_BOARD_SHAPE)
    obs, mask, _ = vg.observe()
    for _ in range(3):
        actions = net.act(obs, mask)
        assert mask[np.arange(2), actions].all()
        vg.step(actions)
        obs, mask, _ = vg.observe()
    x = torch.from_numpy(obs[:1].copy())
    y = x.clone()
    y[0, :int(np.prod(ginny_o_v0.OBS_BOARD_SHAPE))] = 1.0
    assert not torch.allclose(net(x)[0], net(y)[0])


def test_rollout_rows_are_learner_turns(tmp_path):
    """Every stored transition is a decision of the learner's seat in that game (the observation
    is the learner's, taken when it was to act), including the first one of a run."""
    torch.set_num_threads(1)
    trainer = tp.Trainer(_args(tmp_path, "--total-timesteps", "64"))
    seats_at_start = trainer.arena.learner.copy()
    to_act = trainer.arena.vg.current_players()
    assert (to_act != seats_at_start).any(), "no game starts with an opponent to act: the test is void"
    vg = trainer.arena.vg
    real_observe, seen = vg.observe, []

    def observe(env_ids=None):
        if env_ids is None:  # the rollout's observation of every game, for the learner's move
            seen.append(bool((vg.current_players() == trainer.arena.learner).all()))
        return real_observe(env_ids)

    vg.observe = observe
    trainer.collect()
    assert seen and all(seen)


def test_eval_only_matches_the_runs_update0_evaluation(tmp_path):
    """``--eval-only`` without ``--init-from`` plays the run's untrained network on the deals of the
    run's update-0 evaluation (same win share as eval.csv's first row); the CI is mean +- 1.96 SE;
    with ``--init-from`` it plays the trained network; PPOAgent does not read the view."""
    tp.train(_args(tmp_path, "--total-timesteps", "64", "--eval-episodes", "6"))
    first = _rows(tmp_path / "eval.csv")[0]
    rows = measure_policy.evaluate_only(_args(tmp_path, "--eval-episodes", "6", "--eval-only"))
    (row,) = rows
    assert row["policy"] == "untrained" and row["opponent"] == "random" and row["games"] == 6
    assert row["win_share"] == pytest.approx(float(first["win_share"]), abs=1e-4)
    assert row["par"] == 0.5 and row["ci95_low"] == pytest.approx(row["win_share"] - 1.96 * row["se"], abs=2e-4)
    trained = measure_policy.evaluate_only(_args(tmp_path, "--eval-episodes", "6", "--eval-only",
                                                 "--init-from", str(tmp_path / "policy.pt")))
    assert trained[0]["policy"].endswith("policy.pt") and trained[0]["games"] == 6
    assert load_ppo_agent(str(tmp_path / "policy.pt"), "rummy").uses_view is False


def test_obs_log1p_network_reads_log_counts():
    """``obs_log1p=True`` is the same network applied to log(1 + obs); old checkpoints without the
    key load with it off."""
    torch.manual_seed(0)
    plain = PolicyNet(6, 4, (8,))
    logged = PolicyNet(6, 4, (8,), obs_log1p=True)
    logged.load_state_dict(plain.state_dict())
    obs = torch.tensor([[0.0, 1.0, 5.0, 1000.0, 2.0, 0.5]])
    torch.testing.assert_close(logged(obs)[0], plain(torch.log1p(obs))[0])
    assert not torch.allclose(logged(obs)[0], plain(obs)[0])
    config = dict(plain.config)
    del config["obs_log1p"]
    old = policy_from_checkpoint({"format": CHECKPOINT_FORMAT, "model_config": config, "model": plain.state_dict()})
    assert old.config["obs_log1p"] is False


def test_symlog_input_is_log1p_on_non_negative_entries_and_finite_below_minus_one():
    """The input transform is sign(x) * log(1 + |x|): what committed checkpoints (trained with
    log1p on non-negative observations) saw wherever they were valid, and finite for Tongits'
    negative chip totals, where log1p gave NaN or -inf."""
    torch.manual_seed(0)
    plain = PolicyNet(4, 3, (8,))
    net = PolicyNet(4, 3, (8,), obs_log1p=True)
    net.load_state_dict(plain.state_dict())
    non_negative = torch.tensor([[0.0, 0.5, 3.0, 1000.0]])
    torch.testing.assert_close(net(non_negative)[0], plain(torch.log1p(non_negative))[0])
    negative = torch.tensor([[-1.0, -5.0, 2.0, 0.0]])
    with pytest.raises(ValueError, match="observation index 0 is -inf"):
        plain(torch.log1p(negative))
    symlog = torch.tensor([[-np.log(2), -np.log(6), np.log(3), 0.0]], dtype=torch.float32)
    torch.testing.assert_close(net(negative)[0], plain(symlog)[0])


def test_tongits_default_options_train_on_negative_chip_totals(tmp_path):
    """Default Tongits (chips, three hands a match): a rollout, then a PPO update on it with every
    seat's chip total set to -3 (as after a lost hand; log1p made these NaN), and the policy acting
    on those observations: all finite."""
    args = tp.parse_args(["--game", "tongits", "--num-envs", "2", "--num-steps", "16", "--hidden", "16",
                          "--opponents", "random:1", "--update-epochs", "1", "--eval-every", "0", "--no-progress",
                          "--run-dir", str(tmp_path)])
    trainer = tp.Trainer(args)
    batch = trainer.collect()
    batch["obs"][:, 1290:1293] = -3.0  # chip totals, tongits_v0's observation table
    stats = tp.ppo_update(trainer.net, trainer.optimizer, batch, args, trainer.rng)
    assert all(np.isfinite(stats[k]) for k in ("policy_loss", "value_loss", "entropy"))
    actions = trainer.net.act(batch["obs"].numpy(), batch["mask"].numpy(), greedy=True)
    assert batch["mask"][torch.arange(len(actions)), torch.from_numpy(actions)].all()


def _tiny_checkpoint(path, game: str, options: dict | None, obs_size: int, num_actions: int) -> None:
    net = PolicyNet(obs_size, num_actions, (8,), obs_log1p=True)
    data = {"format": CHECKPOINT_FORMAT, "game": game, "model_config": net.config, "model": net.state_dict()}
    if options is not None:
        data["options"] = options
    torch.save(data, path)


def test_non_finite_logits_raise_one_line_naming_game_checkpoint_and_index(tmp_path):
    """A non-finite observation entry (or non-finite parameters) raises a one-line ValueError
    naming the policy and the first bad index, instead of the arg-max playing the first legal
    action or torch's Categorical dumping a tensor."""
    path = tmp_path / "p.pt"
    _tiny_checkpoint(path, "tongits", {}, 1319, 1283)
    agent = load_ppo_agent(str(path), "tongits")
    obs = np.zeros(1319, np.float32)
    obs[[1291, 1300]] = np.nan
    mask = np.ones(1283, np.int8)
    with pytest.raises(ValueError, match=rf"^non-finite logits from tongits checkpoint {path}: "
                                         r"observation index 1291 is nan \(batch row 0\)$"):
        agent.act(obs, mask, {})
    with torch.no_grad():
        agent.net.policy_head.weight[0, 0] = float("inf")
        agent.net.policy_head.weight[1, 0] = float("-inf")
    with pytest.raises(ValueError, match="every observation entry is finite, so the network's parameters are not"):
        agent.act(np.ones(1319, np.float32), mask, {})


def test_trainer_names_its_run_when_logits_are_not_finite(tmp_path):
    trainer = tp.Trainer(_args(tmp_path))
    with torch.no_grad():
        trainer.net.policy_head.bias[0] = float("nan")
    with pytest.raises(ValueError, match=rf"non-finite logits from rummy training run {tmp_path}: every observation"):
        trainer.collect()


def test_checkpoint_warns_about_other_options_and_refuses_other_sizes(tmp_path):
    """A checkpoint records its training options; loaded for an env with other options it warns
    in one line naming each difference, and refuses an env whose observation size differs."""
    import warnings
    path = tmp_path / "p.pt"
    _tiny_checkpoint(path, "tongits", {"reward_mode": "win_loss", "hands_per_match": 1}, 1319, 1283)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_ppo_agent(str(path), "tongits", options={"hands_per_match": 1, "reward_mode": "win_loss"})
        load_ppo_agent(str(path), "tongits")  # no env options given: nothing to compare
    with pytest.warns(UserWarning, match=r"other options than it was trained with: hands_per_match=3 \(trained "
                                         r"with 1\), reward_mode='chips' \(trained with 'win_loss'\)$"):
        load_ppo_agent(str(path), "tongits", options={})
    with pytest.warns(UserWarning, match="hands_per_match=3"):
        make_agent(f"ppo:{path}", "tongits", {"reward_mode": "win_loss"})
    cr = tmp_path / "cr.pt"
    _tiny_checkpoint(cr, "contract_rummy", {"deals": [1]}, 1685, 4584)
    with pytest.raises(ValueError, match="takes observations of 1685 .* has 1691"):
        load_ppo_agent(str(cr), "contract_rummy", options={})


def test_tournament_warns_when_a_checkpoint_plays_other_options(tmp_path):
    from rummy_env.experiments.tournament import TournamentConfig, run_tournament
    path = tmp_path / "p.pt"
    _tiny_checkpoint(path, "tongits", {"hands_per_match": 1}, 1319, 1283)
    config = TournamentConfig(game="tongits", agents=(f"ppo:{path}", "random", "random"), games=3, seed=0,
                              options={"hands_per_match": 2}, workers=1)
    with pytest.warns(UserWarning, match=r"hands_per_match=2 \(trained with 1\)"):
        run_tournament(config, progress=False, log_games=False)


def test_results_record_git_commit_and_command(tmp_path):
    """Training summary and the --benchmark / --eval-only JSON record io.provenance()."""
    import json
    from rummy_env.experiments import io
    tp.train(_args(tmp_path, "--total-timesteps", "64"))
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["update"] == 1 and summary["args"]["total_timesteps"] == 64
    out = tmp_path / "bench.json"
    tp.main(TINY + ["--benchmark", "0.2", "--out", str(out)])
    bench = json.loads(out.read_text())
    assert bench["result"]["steps"] > 0
    expected = io.provenance()
    for record in (summary, bench):
        assert record["git_commit"] == expected["git_commit"] and record["command"] == expected["command"]
        assert re.fullmatch(r"[0-9a-f]{40}", record["git_commit"]) and isinstance(record["dirty"], bool)


def test_provenance_outside_a_git_checkout_is_none(monkeypatch):
    from rummy_env.experiments import io
    monkeypatch.setenv("GIT_DIR", "/nonexistent")
    record = io.provenance()
    assert record["git_commit"] is None and record["dirty"] is None and record["command"]


def test_dual_clip_bounds_the_loss_of_a_huge_ratio_on_a_negative_advantage():
    """Dual-clip PPO: an action whose probability grew a millionfold with a negative advantage
    costs at most c * |A| and gets no gradient; without the dual clip (0) the loss is the huge
    ratio times |A|. Positive advantages keep CleanRL's clipped loss."""
    logratio = torch.tensor([np.log(1e6), np.log(1e6)], dtype=torch.float32, requires_grad=True)
    adv = torch.tensor([-2.0, 2.0])
    loss = tp.clipped_policy_loss(logratio.exp(), adv, clip_coef=0.2, dual_clip=3.0)
    torch.testing.assert_close(loss, torch.tensor([6.0, -2.4]))
    loss.sum().backward()
    assert logratio.grad.abs().max() == 0
    unbounded = tp.clipped_policy_loss(torch.tensor([1e6]), torch.tensor([-2.0]), clip_coef=0.2, dual_clip=0.0)
    assert unbounded.item() == pytest.approx(2e6)
    with pytest.raises(ValueError, match="--dual-clip must be 0 .off. or above 1, got 0.5"):
        tp.Trainer(tp.parse_args(TINY + ["--dual-clip", "0.5"]))


def test_checkpoint_records_its_observation_layout_and_refuses_another(tmp_path):
    """policy.pt stores the env's observation layout (part names, shapes, offsets); a checkpoint
    whose recorded layout differs from the env's is refused with or without env options, one
    without a recorded layout still loads."""
    from rummy_env.agents.policy_checkpoint import layout_record
    from rummy_env.registry import make_raw_env
    tp.train(_args(tmp_path, "--total-timesteps", "64", "--eval-every", "0"))
    data = torch.load(tmp_path / "policy.pt", weights_only=True)
    options = {"reward_mode": "zero_sum", "max_rounds": 1, "max_turns": 16}
    layout = make_raw_env("rummy", **options).observation_layout()
    assert data["observation_layout"] == layout_record(layout) and data["options"] == options
    load_ppo_agent(str(tmp_path / "policy.pt"), "rummy", options=options)
    first, second = data["observation_layout"][:2]
    first["name"], second["name"] = second["name"], first["name"]
    torch.save(data, tmp_path / "moved.pt")
    for given in (options, None):
        with pytest.raises(ValueError, match=rf"trained on another observation layout: part .*'name': "
                                             rf"'{second['name']}'"):
            load_ppo_agent(str(tmp_path / "moved.pt"), "rummy", options=given)
    del data["observation_layout"]
    torch.save(data, tmp_path / "old.pt")
    load_ppo_agent(str(tmp_path / "old.pt"), "rummy", options=options)


def test_choose_samples_the_masked_distribution_and_scores_it_exactly():
    """PolicyNet.choose (legal logits only, Gumbel-max) draws from masked_distribution: its
    log-probabilities and values equal the full network's, greedy is the masked arg-max, and the
    frequencies of 40,000 draws over two masks match the probabilities (within 0.01); both when
    few actions are legal in the batch (the head's legal rows only) and when most are (whole head)."""
    torch.manual_seed(3)
    net = PolicyNet(6, 12, (8,), obs_log1p=True)
    with torch.no_grad():
        net.policy_head.weight.mul_(100.0)  # spread the probabilities out
    obs = torch.rand(2, 6).repeat(20_000, 1)
    few = torch.zeros(2, 12, dtype=torch.int8)
    few[0, [0, 2, 3]] = few[1, [1, 3, 4]] = 1
    most = torch.ones(2, 12, dtype=torch.int8)
    most[0, [1, 5]] = most[1, [0, 7, 11]] = 0
    for mask in (few.repeat(20_000, 1), most.repeat(20_000, 1)):
        with torch.no_grad():
            actions, logp, value = net.choose(obs, mask, generator=torch.Generator().manual_seed(0))
            logits, expected_value = net(obs)
        dist = masked_distribution(logits, mask)
        torch.testing.assert_close(logp, dist.log_prob(actions), rtol=0, atol=1e-5)
        torch.testing.assert_close(value, expected_value)
        assert mask[torch.arange(len(mask)), actions].all()
        for row in (0, 1):
            freq = torch.bincount(actions[row::2], minlength=12).float() / 20_000
            torch.testing.assert_close(freq, dist.probs[row], rtol=0, atol=0.01)
        assert (dist.probs[:2] > 0.05).sum() >= 4  # not a near-deterministic policy: the test can fail
        greedy = net.act(obs[:2].numpy(), mask[:2].numpy(), greedy=True)
        assert greedy.tolist() == masked_logits(logits[:2], mask[:2]).argmax(1).tolist()


def test_choose_takes_rows_with_few_legal_actions_apart_and_samples_the_masked_distribution():
    """When most actions are legal somewhere in the batch but some rows have few (I Doubt It's
    doubt decisions among its play decisions), choose computes the head for those rows' actions
    only and the whole head for the others; log-probabilities, greedy actions and the
    frequencies of 20,000 draws per row still match masked_distribution."""
    torch.manual_seed(4)
    net = PolicyNet(6, 40, (8,), obs_log1p=True)
    with torch.no_grad():
        net.policy_head.weight.mul_(100.0)
    obs = torch.rand(2, 6).repeat(10, 1)
    pattern = torch.zeros(2, 40, dtype=torch.int8)
    pattern[0, [3, 17, 33]] = 1
    pattern[1, 10:35] = 1
    mask = pattern.repeat(10, 1)
    with torch.no_grad():
        logits, _ = net(obs)
    dist = masked_distribution(logits, mask)
    asked = []
    action_logits = net.action_logits
    net.action_logits = lambda x, board_map, ids=None: asked.append(ids) or action_logits(x, board_map, ids)
    generator = torch.Generator().manual_seed(0)
    with torch.no_grad():
        draws = []
        for _ in range(2000):
            actions, logp, _ = net.choose(obs, mask, generator=generator)
            torch.testing.assert_close(logp, dist.log_prob(actions), rtol=0, atol=1e-5)
            draws.append(actions)
        greedy = net.choose(obs, mask, greedy=True)[0]
    assert [None if ids is None else ids.tolist() for ids in asked[:2]] == [[3, 17, 33], None]
    draws = torch.stack(draws)
    assert mask[torch.arange(len(mask)), draws].all()
    for row in (0, 1):
        freq = torch.bincount(draws[:, row::2].reshape(-1), minlength=40).float() / draws[:, row::2].numel()
        torch.testing.assert_close(freq, dist.probs[row], rtol=0, atol=0.01)
    assert (dist.probs[:2] > 0.05).sum() >= 4  # not a near-deterministic policy: the test can fail
    assert greedy.tolist() == masked_logits(logits, mask).argmax(1).tolist()


def test_pick_per_row_never_draws_a_zero_uniform_or_weight_and_takes_the_lowest_action_on_a_tie():
    """The exponential race: a pair whose uniform is 0 or whose weight underflows to 0 never
    wins, silently (no numpy warning); the arg-max takes a row's lowest action on a tie; the
    log-probabilities are the row's log-softmax."""
    rows, cols = np.array([0, 0, 0, 1, 1]), np.array([1, 4, 7, 2, 3])
    logits = np.array([0.0, -200.0, 1.0, 3.0, 3.0], np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        drawn, logp = pick_per_row(rows, cols, logits, 2, np.array([0.5, 0.3, 0.0, 0.2, 0.9], np.float32))
        greedy, greedy_logp = pick_per_row(rows, cols, logits, 2, None)
    assert drawn.tolist() == [1, 3] and greedy.tolist() == [7, 2]
    np.testing.assert_allclose(logp, [-np.log1p(np.e), -np.log(2)], rtol=1e-6)
    np.testing.assert_allclose(greedy_logp, [1 - np.log1p(np.e), -np.log(2)], rtol=1e-6)


def test_choose_refuses_a_mask_row_without_a_legal_action():
    """A row with no legal action is a ValueError naming it, sampled or greedy (not an action id
    past the last)."""
    net = PolicyNet(6, 12, (8,), obs_log1p=True)
    mask = torch.ones(3, 12, dtype=torch.int8)
    mask[1] = 0
    for greedy in (False, True):
        with torch.no_grad(), pytest.raises(ValueError, match="mask row 1 has no legal action"):
            net.choose(torch.rand(3, 6), mask, greedy=greedy)


def test_sparse_features_equal_features_and_follow_weight_updates():
    """The acting path's first layer reads only the nonzero observation columns from a transposed
    copy of the weight: equal to the dense features, also after an optimizer step changes the
    weight (the copy is remade) and after a pickle round trip (the copy is not pickled)."""
    import pickle
    from rummy_env.vector import VectorGames
    torch.manual_seed(0)
    vg = VectorGames("tongits", 16, 0)
    obs = torch.from_numpy(vg.observe()[0])
    net = PolicyNet(vg.obs_size, vg.num_actions, (32, 16), obs_log1p=True)
    with torch.no_grad():
        torch.testing.assert_close(net.sparse_features(obs), net.features(obs), rtol=0, atol=1e-5)
    assert 2 * int((obs != 0).any(0).sum()) < obs.shape[1], "most columns used (dense path): the test is void"
    optimizer = torch.optim.SGD(net.parameters(), lr=1.0)
    net.features(obs).sum().backward()
    optimizer.step()
    with torch.no_grad():
        torch.testing.assert_close(net.sparse_features(obs), net.features(obs), rtol=0, atol=1e-5)
        copy = pickle.loads(pickle.dumps(net))
        assert copy._input_rows is None
        torch.testing.assert_close(copy.sparse_features(obs), net.features(obs), rtol=0, atol=1e-5)


def test_init_from_widens_a_one_deal_contract_rummy_policy_to_the_full_game(tmp_path):
    """``--init-from`` a policy trained on one Contract Rummy deal (``deal_index`` of 1 entry) for
    the seven-deal game (7 entries): every part keeps its weights, the six new entries start at zero,
    so on a first-deal observation of the full game the widened network gives the one-deal
    network's logits; a layout with other part names is refused."""
    import warnings
    from rummy_env.agents.policy_checkpoint import layout_record
    from rummy_env.experiments.checkpoints import start_network
    from rummy_env.registry import make_raw_env
    one_deal, full = make_raw_env("contract_rummy", deals=[1]), make_raw_env("contract_rummy")
    net = PolicyNet(one_deal.observation_layout().size, 4584, (8,), obs_log1p=True)
    data = {"format": CHECKPOINT_FORMAT, "game": "contract_rummy", "options": {"deals": [1]},
            "observation_layout": layout_record(one_deal.observation_layout()),
            "model_config": net.config, "model": net.state_dict()}
    torch.save(data, tmp_path / "one_deal.pt")
    with pytest.warns(UserWarning, match=r"observation widened \(deal_index \[1\] -> \[7\]\)"):
        widened = start_network("contract_rummy", {}, 1691, 4584, "8", 32, str(tmp_path / "one_deal.pt"))
    full.reset(seed=5)
    obs_full = torch.from_numpy(full.observe(full.agent_selection)["observation"])[None]
    start = full.observation_layout()["deal_index"].start
    assert obs_full[0, start] == 1 and obs_full[0, start + 1:start + 7].sum() == 0
    obs_one = torch.cat([obs_full[:, :start + 1], obs_full[:, start + 7:]], dim=1)
    with torch.no_grad():
        torch.testing.assert_close(widened(obs_full)[0], net(obs_one)[0])
    assert widened.trunk[0].weight[:, start + 1:start + 7].abs().max() == 0
    data["observation_layout"][0]["name"] = "renamed"
    torch.save(data, tmp_path / "renamed.pt")
    with warnings.catch_warnings(), pytest.raises(ValueError, match="cannot be mapped onto this env's .1691."):
        warnings.simplefilter("ignore")
        start_network("contract_rummy", {}, 1691, 4584, "8", 32, str(tmp_path / "renamed.pt"))


def test_choose_reads_int8_bool_and_float_masks_alike():
    """legal_bools: an int8 or bool mask is read as a view (no copy), a float one by comparison
    with 0; choose draws the same actions from all three on a batch whose rows split (few-action
    rows and whole-head rows)."""
    net = PolicyNet(6, 40, (8,), obs_log1p=True)
    mask = torch.zeros(16, 40, dtype=torch.int8)
    mask[:10, :2] = 1
    mask[10:] = (torch.rand(6, 40, generator=torch.Generator().manual_seed(5)) < 0.6).to(torch.int8)
    mask[10:, 2:4] = 1
    assert np.shares_memory(legal_bools(mask), mask.numpy())
    as_bool = mask.bool()
    assert np.shares_memory(legal_bools(as_bool), as_bool.numpy())
    obs = torch.rand(16, 6)
    chosen = []
    for form in (mask, mask.bool(), mask.float()):
        np.testing.assert_array_equal(legal_bools(form), mask.numpy() == 1)
        with torch.no_grad():
            chosen.append(net.choose(obs, form, generator=torch.Generator().manual_seed(9))[0].tolist())
    assert chosen[0] == chosen[1] == chosen[2]
    assert all(a < 2 for a in chosen[0][:10]) and len(set(chosen[0][10:])) > 1


def _play_a_match_through_the_arena(arena: Arena) -> tuple[object, list[tuple[float, list[int]]]]:
    """The learner (seat 1, uniformly random moves) plays one whole Contract Rummy match in game 0
    of ``arena`` as ``collect`` does; the match and, per transition whose return ended, its reward
    and the seats' penalty totals then."""
    game, pick, everyone = arena.vg.games[0], np.random.default_rng(1), np.zeros(1, np.int64)
    arena.advance(everyone, np.zeros(1), np.ones(1, bool), None)
    ends, total = [], 0.0
    while not arena.episodes:
        _, mask, _ = arena.vg.observe()
        carry, arena.carry = arena.carry, np.zeros(1)
        reward, ended = arena.step(everyone, np.array([pick.choice(np.flatnonzero(mask[0]))]))
        reward = reward + carry
        arena.advance(everyone, reward, ended, None)
        total += float(reward[0])
        if ended[0]:
            ends.append((total, list(game.scores)))
            total = 0.0
    assert game.done
    return game, ends


@pytest.mark.parametrize("per_deal", [False, True])
def test_return_per_deal_and_relative_reward_in_a_seven_deal_match(per_deal):
    """In a whole seven-deal Contract Rummy match the learner's return ends once (the match's end),
    or with ``return_per_deal`` seven times (each deal's end); with the ``relative`` reward its
    rewards add up to its penalty total's margin under the others' mean, ``-own + mean(others)``."""
    arena = Arena("contract_rummy", 1, 3, {}, ["random"], [1.0], "1", return_per_deal=per_deal,
                  learner_reward="relative")
    game, ends = _play_a_match_through_the_arena(arena)
    assert len(ends) == (7 if per_deal else 1)
    own, others = game.scores[1], [s for seat, s in enumerate(game.scores) if seat != 1]
    assert sum(reward for reward, _ in ends) == pytest.approx(-own + np.mean(others))


def test_deal_win_loss_pays_each_deal_by_its_penalties():
    """With ``deal_win_loss`` each deal's return is +1 when the learner's penalty in it was the sole
    lowest, 0 when shared, -1 otherwise, from the penalty totals before and after the deal; a bad
    name is refused."""
    arena = Arena("contract_rummy", 1, 4, {}, ["random"], [1.0], "1", return_per_deal=True,
                  learner_reward="deal_win_loss")
    _, ends = _play_a_match_through_the_arena(arena)
    before, paid = [0] * 4, []
    for reward, scores in ends:
        penalties = [after - was for after, was in zip(scores, before)]
        low = min(penalties)
        paid.append(reward)
        assert reward == (-1.0 if penalties[1] > low else 1.0 if penalties.count(low) == 1 else 0.0)
        before = scores
    assert len(paid) == 7 and {-1.0, 1.0} <= set(paid)
    with pytest.raises(ValueError, match="learner_reward must be one of own, relative, deal_win_loss"):
        Arena("contract_rummy", 1, 4, {}, ["random"], [1.0], "1", learner_reward="rank")


def test_rollout_workers_close_when_the_trainers_own_shard_fails(tmp_path):
    """The trainer's own shard fails while the worker is collecting: the error is raised, and
    closing does not wait forever on the worker, which is blocked sending a rollout nobody reads."""
    trainer = tp.Trainer(_args(tmp_path, "--rollout-workers", "2", "--num-steps", "64"))
    trainer.workers.start(trainer.net, trainer.pool, trainer.args.seed, trainer.args)
    trainer.arena.vg.games[0] = None
    try:
        with pytest.raises(AttributeError):
            trainer.collect()
    finally:
        trainer.workers.close()
    assert not trainer.workers.processes
