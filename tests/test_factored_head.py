"""The factored policy head (``PolicyNet(head="factored")``, issue 17): Ginny-O's piece x square
``place`` logits from embeddings, the other actions one logit each; still a masked softmax over
every action id, saved and restored with the checkpoint, trainable by imitation and PPO."""
from __future__ import annotations

import functools

import numpy as np
import pytest
import torch

from rummy_env.agents.policy_checkpoint import CHECKPOINT_FORMAT, policy_from_checkpoint
from rummy_env.agents.policy_net import masked_distribution, masked_logits
from rummy_env.agents.registry import load_ppo_agent, policy_for_game
from rummy_env.experiments import imitate, train_ppo as tp
from rummy_env.experiments.studies import agreement
from rummy_env.experiments.checkpoints import atomic_torch_save, policy_record
from rummy_env.games.ginny_o import ACTIONS, NUM_ACTIONS
from rummy_env.vector import VectorGames


def _net(hidden: str = "16", conv_channels: int = 4, factor_dim: int = 8):
    """A small factored Ginny-O network whose logits spread out (the embeddings start near 0)."""
    torch.manual_seed(0)
    vg = VectorGames("ginny_o", 1, 0)
    net = policy_for_game("ginny_o", vg.obs_size, vg.num_actions, hidden, conv_channels, "factored", factor_dim)
    with torch.no_grad():
        for p in (net.square_key.weight, net.square_embedding, net.piece_logit.weight, net.policy_head.weight):
            p.normal_()
    return net


@functools.cache
def _decisions(count: int = 12) -> tuple[torch.Tensor, torch.Tensor]:
    """Observations and masks of the first ``count`` decisions of rule-based play (random play
    rarely places a tile; here placements are legal in several rows)."""
    demos = imitate.collect("ginny_o", {}, 100, num_envs=4, seed=0, gamma=0.99, reward_scale=1.0)
    rows = np.arange(count)
    return torch.from_numpy(demos.obs[rows]).float(), demos.mask(rows)


def test_factored_logits_equal_a_brute_force_sum_over_every_action_id():
    """Each of the 23,509 logits equals its formula with the action read back from the catalogue:
    ``place p at q`` -> u_p + <e_p + s, W f_q + b + b_q>, any other id -> its own linear logit;
    and the logits of a subset of ids (the acting path) equal those columns."""
    net = _net()
    obs, mask = _decisions()
    with torch.no_grad():
        logits, _ = net(obs)
        x, board_map = net.encode(obs)
        u, s = net.piece_logit(x), net.state_query(x)
        features = board_map.flatten(2)  # (B, C, squares)
        other = net.policy_head(x)
        expected = torch.empty_like(logits)
        others = 0
        for action in range(NUM_ACTIONS):
            name, values = ACTIONS.decode(action)
            if name == "place":
                p, q = values["piece"], values["square"]
                key = net.square_key(features[:, :, q]) + net.square_embedding[q]
                expected[:, action] = u[:, p] + ((net.piece_embedding[p] + s) * key).sum(1)
            else:
                expected[:, action] = other[:, others]
                others += 1
        torch.testing.assert_close(logits, expected, rtol=1e-5, atol=1e-5)
        assert logits.std() > 1.0, "near-constant logits: the test is void"
        ids = torch.cat([torch.tensor([0, 2, 57, 108]), torch.randperm(NUM_ACTIONS - 109)[:500].sort().values + 109])
        torch.testing.assert_close(net.action_logits(x, board_map, ids), logits[:, ids])


def test_masked_distribution_sums_to_one_over_legal_actions_and_choose_scores_it():
    """Under real masks the factored policy's probabilities sum to 1 over the legal actions (0
    elsewhere); ``choose`` (legal logits only) gives the same log-probabilities and the greedy
    arg-max, both when few actions are legal in the batch and when all are."""
    net = _net()
    obs, mask = _decisions()
    assert (mask[:, 109:].sum(1) > 1).any(), "no placements legal: the test is void"
    everything = torch.ones_like(mask)
    for m in (mask, everything):
        with torch.no_grad():
            logits, value = net(obs)
            actions, logp, chosen_value = net.choose(obs, m, generator=torch.Generator().manual_seed(1))
        dist = masked_distribution(logits, m)
        torch.testing.assert_close(dist.probs.sum(1), torch.ones(len(obs)))
        assert (dist.probs[~m] == 0).all()
        assert m[torch.arange(len(m)), actions].all()
        torch.testing.assert_close(logp, dist.log_prob(actions), rtol=0, atol=1e-4)
        torch.testing.assert_close(chosen_value, value)
        greedy = net.act(obs.numpy(), m.numpy(), greedy=True)
        assert greedy.tolist() == masked_logits(logits, m).argmax(1).tolist()


def test_factored_policy_round_trips_through_a_checkpoint_and_old_files_load_flat(tmp_path):
    """The head and its grid are in the saved config: a loaded policy gives identical logits; a
    checkpoint whose config has no ``head`` (written before it existed) loads as the flat head."""
    net = _net()
    obs, _ = _decisions()
    path = str(tmp_path / "policy.pt")
    atomic_torch_save(policy_record(net, "ginny_o", {}), path)
    loaded = load_ppo_agent(path, "ginny_o").net
    assert loaded.config["head"] == "factored" and loaded.config["action_grid"] == [109, 104, 225]
    with torch.no_grad():
        torch.testing.assert_close(loaded(obs)[0], net(obs)[0], rtol=0, atol=0)
    flat = policy_for_game("ginny_o", net.config["obs_size"], NUM_ACTIONS, "16", 4)
    old_config = {k: v for k, v in flat.config.items() if k not in ("head", "action_grid", "factor_dim")}
    old = policy_from_checkpoint({"format": CHECKPOINT_FORMAT, "model_config": old_config,
                                  "model": flat.state_dict()})
    assert old.config["head"] == "flat" and old.grid is None
    assert old.policy_head.out_features == NUM_ACTIONS


def test_factored_head_has_far_fewer_parameters_than_the_flat_head():
    """At the committed Ginny-O size (256x64 MLP, 16 conv channels) the flat head has 64 x 23,509
    weights; the factored head (embeddings of 32) has under a twentieth of that."""
    flat = policy_for_game("ginny_o", 3602, NUM_ACTIONS, "256,64", 16)
    factored = policy_for_game("ginny_o", 3602, NUM_ACTIONS, "256,64", 16, "factored")
    shared = {name for name, _ in flat.named_parameters() if name.startswith(("trunk", "conv", "value_head"))}
    flat_head = sum(p.numel() for name, p in flat.named_parameters() if name not in shared)
    factored_head = sum(p.numel() for name, p in factored.named_parameters() if name not in shared)
    assert flat_head == 64 * NUM_ACTIONS + NUM_ACTIONS
    assert factored_head * 20 < flat_head


def test_factored_head_refuses_a_game_without_an_action_grid_and_unknown_heads():
    with pytest.raises(ValueError, match="no action grid"):
        policy_for_game("rummy", 100, 10, "8", head="factored")
    with pytest.raises(ValueError, match="'flat' or 'factored'"):
        policy_for_game("ginny_o", 3602, NUM_ACTIONS, "8", 4, head="pointer")


def test_imitation_then_ppo_with_the_factored_head_on_ginny_o(tmp_path):
    """``--head factored`` in both tools (the shared run flags): a tiny imitation run writes a
    factored policy (which ``experiments/studies/agreement.py`` scores on fresh decisions), and a tiny PPO
    run starts from it and trains one update end to end."""
    torch.set_num_threads(1)
    small = ["--game", "ginny_o", "--hidden", "16", "--conv-channels", "4", "--head", "factored",
             "--factor-dim", "8"]
    summary = imitate.imitate(imitate.parse_args(small + [
        "--decisions", "400", "--num-envs", "4", "--epochs", "1", "--batch-size", "64", "--val-fraction", "0.2",
        "--run-dir", str(tmp_path / "bc")]))
    assert 0.0 <= summary["val_accuracy"] <= 1.0
    assert load_ppo_agent(str(tmp_path / "bc" / "policy.pt"), "ginny_o").net.config["head"] == "factored"
    compared = agreement.agreement("ginny_o", {}, [str(tmp_path / "bc")], 100, 999, 4)
    row = compared["runs"][str(tmp_path / "bc")]
    assert sum(k["decisions"] for k in row["by_kind"].values()) == compared["decisions"] >= 100
    assert row["training_summary"]["decisions"] == summary["decisions"] and 0.0 <= row["agreement"] <= 1.0
    trainer = tp.train(tp.parse_args(small + [
        "--init-from", str(tmp_path / "bc" / "policy.pt"), "--num-envs", "2", "--num-steps", "16",
        "--total-timesteps", "32", "--update-epochs", "1", "--num-minibatches", "2", "--opponents", "random:1",
        "--eval-every", "0", "--no-progress", "--run-dir", str(tmp_path / "ppo")]))
    row = trainer.train_rows[-1]
    assert trainer.update == 1 and row["logp_err0"] < 1e-4 and np.isfinite(row["policy_loss"])
    assert load_ppo_agent(str(tmp_path / "ppo" / "policy.pt"), "ginny_o").net.config["head"] == "factored"


def test_a_flat_ginny_o_checkpoint_from_before_the_factored_head_starts_a_flat_run(tmp_path):
    """``--init-from`` a flat Ginny-O policy written before the head option existed (its model config
    has no ``head`` or ``action_grid``) builds the same network config as a fresh flat run: the flat
    head records no action grid."""
    import warnings
    from rummy_env.experiments.checkpoints import start_network
    record = policy_record(policy_for_game("ginny_o", 3602, NUM_ACTIONS, "16", 4), "ginny_o", {})
    record["model_config"] = {k: v for k, v in record["model_config"].items() if k not in ("head", "action_grid")}
    path = str(tmp_path / "old_flat.pt")
    atomic_torch_save(record, path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        net = start_network("ginny_o", {}, 3602, NUM_ACTIONS, "16", 4, path)
    assert net.config["head"] == "flat" and net.config["action_grid"] is None
