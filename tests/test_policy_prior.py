"""The residual policy over the rule-based agent (``PolicyNet(prior="heuristic")``, ``--prior``):
its logits, its untrained greedy play, training with it, and its checkpoints."""
from __future__ import annotations

import csv

import numpy as np
import pytest
import torch

from rummy_env.agents.ppo_agent import PPOAgent, load_ppo_agent, masked_distribution, policy_for_game, with_prior
from rummy_env.agents.registry import make_agent
from rummy_env.experiments import train_ppo as tp
from rummy_env.registry import make_raw_env
from rummy_env.vector import VectorGames

TINY = ["--game", "rummy", "--opt", "max_rounds=1", "--opt", "max_turns=16", "--num-envs", "4", "--num-steps", "16",
        "--hidden", "32", "--update-epochs", "2", "--num-minibatches", "2", "--eval-every", "2",
        "--eval-episodes", "4", "--eval-opponents", "heuristic", "--opponents", "pool:1,heuristic:1",
        "--snapshot-every", "1", "--prior", "heuristic", "--no-progress"]


def test_prior_adds_its_logit_to_the_priors_action_only_in_forward_and_choose():
    torch.manual_seed(0)
    vg = VectorGames("rummy", 8, 3)
    net = policy_for_game("rummy", vg.obs_size, vg.num_actions, hidden="32", prior="heuristic", prior_weight=2.5)
    plain = policy_for_game("rummy", vg.obs_size, vg.num_actions, hidden="32")
    plain.load_state_dict({k: v for k, v in net.state_dict().items() if k != "prior_logit"})
    obs, mask, _ = vg.observe()
    legal = torch.from_numpy(mask).bool()
    prior = np.array([int(np.flatnonzero(m)[-1]) for m in mask])
    inputs = torch.from_numpy(with_prior(obs, prior))
    logits, value = net(inputs)
    base, base_value = plain(torch.from_numpy(obs))
    bonus = torch.zeros_like(base)
    bonus[torch.arange(8), torch.from_numpy(prior)] = 2.5
    assert torch.allclose(logits, base + bonus, atol=1e-6) and torch.allclose(value, base_value)
    actions, logp, _ = net.choose(inputs, legal)
    assert torch.allclose(masked_distribution(logits, legal).log_prob(actions), logp, atol=1e-5)
    assert torch.allclose(net.value(torch.from_numpy(obs)), value)


@pytest.mark.parametrize("game", ["rummy", "tongits", "contract_rummy", "i_doubt_it"])
def test_untrained_greedy_prior_policy_plays_the_rule_based_agents_moves(game):
    """With the head's small initial logits the prior's bonus decides every greedy move: up to 400
    turns of a game (its end, when sooner) where the residual policy's choice is compared with the
    rule-based agent's at each turn."""
    torch.manual_seed(1)
    env = make_raw_env(game)
    env.reset(seed=5)
    state = env.game
    net = policy_for_game(game, state.observation(0).shape[0], len(state.legal_mask()), hidden="64",
                          prior="heuristic")
    agents = {s: _residual_agent(net, game, s) for s in range(state.num_players)}
    rules = {s: make_agent("heuristic", game) for s in range(state.num_players)}
    for s in rules:
        rules[s].reset(s, 0)
    compared = 0
    while not state.done and compared < 400:
        seat = state.current_player
        obs, mask, view = state.observation(seat), state.legal_mask(), state.view(seat)
        rule = rules[seat].act(obs, mask.copy(), view)
        assert agents[seat].act(obs, mask.copy(), view) == rule
        state.step(rule)
        compared += 1
    assert compared >= 50


def _residual_agent(net, game: str, seat: int) -> PPOAgent:
    agent = PPOAgent(net, game=game)
    agent.reset(seat, 0)
    assert agent.uses_view
    return agent


def test_training_with_a_prior_scores_what_it_sampled_and_its_checkpoint_plays(tmp_path):
    trainer = tp.train(tp.parse_args(TINY + ["--run-dir", str(tmp_path), "--total-timesteps", "192"]))
    assert trainer.update == 3 and trainer.net.prior == "heuristic"
    with open(tmp_path / "train.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 3 and all(float(r["logp_err0"]) < 1e-5 for r in rows)
    agent = load_ppo_agent(str(tmp_path / "policy.pt"), "rummy", options={"max_rounds": 1, "max_turns": 16})
    assert agent.prior_agent is not None and agent.uses_view
    env = make_raw_env("rummy", max_rounds=1, max_turns=16)
    env.reset(seed=2)
    agent.reset(0, 1)
    moves = 0
    while not env.game.done:
        seat = env.game.current_player
        mask = env.game.legal_mask()
        action = agent.act(env.game.observation(seat), mask.copy(), env.game.view(seat))
        assert mask[action]
        env.game.step(action)
        moves += 1
    assert moves > 0


def test_prior_must_be_the_rule_based_agent_and_benchmark_refuses_it():
    with pytest.raises(ValueError, match="policy prior must be"):
        policy_for_game("rummy", 10, 5, prior="random")
    from rummy_env.experiments import measure_policy
    with pytest.raises(ValueError, match="drop --prior"):
        measure_policy.benchmark_selfplay(tp.parse_args(["--game", "rummy", "--prior", "heuristic", "--benchmark", "1"]))


def test_agreement_reads_the_rule_based_move_as_a_residual_policys_prior(tmp_path):
    """A residual policy after two tiny updates still plays every rule-based move greedily (its
    head's logits are far below the bonus of 5), so ``experiments/agreement.py`` must find full
    agreement; a run stopped before its summary is scored too."""
    from rummy_env.experiments import agreement
    tp.train(tp.parse_args(TINY + ["--run-dir", str(tmp_path), "--total-timesteps", "128", "--eval-every", "0"]))
    (tmp_path / "summary.json").unlink()
    row = agreement.agreement("rummy", {"max_rounds": 1, "max_turns": 16}, [str(tmp_path)], 300, 999, 4)["runs"][str(tmp_path)]
    assert row["agreement"] == 1.0 and row["training_summary"] is None
    assert sum(k["decisions"] for k in row["by_kind"].values()) >= 300
