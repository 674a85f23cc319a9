"""The residual policy over the rule-based agent (``PolicyNet(prior="heuristic")``, ``--prior``):
its logits, its untrained greedy play, training with it, and its checkpoints."""
from __future__ import annotations

import csv

import numpy as np
import pytest
import torch

from rummy_env.agents.policy_net import masked_distribution, prior_ids, with_prior
from rummy_env.agents.ppo_agent import PPOAgent
from rummy_env.agents.registry import load_ppo_agent, make_agent, policy_for_game
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
    agent = PPOAgent(net, prior_agent=make_agent("heuristic", game))
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
    head's logits are far below the bonus of 5), so ``experiments/studies/agreement.py`` must find full
    agreement; a run stopped before its summary is scored too."""
    from rummy_env.experiments.studies import agreement
    tp.train(tp.parse_args(TINY + ["--run-dir", str(tmp_path), "--total-timesteps", "128", "--eval-every", "0"]))
    (tmp_path / "summary.json").unlink()
    row = agreement.agreement("rummy", {"max_rounds": 1, "max_turns": 16}, [str(tmp_path)], 300, 999, 4)["runs"][str(tmp_path)]
    assert row["agreement"] == 1.0 and row["training_summary"] is None
    assert sum(k["decisions"] for k in row["by_kind"].values()) >= 300


def _candidate_rows(game: str, vg: VectorGames, mask: np.ndarray, k: int) -> np.ndarray:
    """Each game's K best moves by its rule-based agent, padded with -1 (``prior_ids``)."""
    rows = []
    for i, m in enumerate(mask):
        agent = make_agent("heuristic", game)
        agent.reset(vg.games[i].current_player, 0)
        rows.append(prior_ids(agent, vg.observe()[0][i], m, vg.games[i].view(vg.games[i].current_player), k))
    return np.array(rows)


def test_candidates_leave_the_policy_only_the_priors_best_moves():
    """``prior_candidates=3``: in forward and choose every action outside the three ranked candidates
    has the logit -1e9, the first gets the bonus, and 200 samples per game stay among the candidates."""
    torch.manual_seed(0)
    vg = VectorGames("rummy", 8, 4)
    drawn = np.arange(4)  # games 0-3 draw, so they are in the play phase; 4-7 are still to draw
    vg.step(np.array([int(np.flatnonzero(m)[0]) for m in vg.observe(drawn)[1]]), drawn)
    net = policy_for_game("rummy", vg.obs_size, vg.num_actions, hidden="32", prior="heuristic", prior_weight=0.0,
                          prior_candidates=3)
    obs, mask, _ = vg.observe()
    candidates = _candidate_rows("rummy", vg, mask, 3)
    assert (candidates[:, 0] >= 0).all() and (candidates == -1).any() and (candidates[:, 2] >= 0).any()
    inputs = torch.from_numpy(with_prior(obs, candidates))
    logits, _ = net(inputs)
    legal = torch.from_numpy(mask).bool()
    for row, ids in zip(logits, candidates):
        outside = np.setdiff1d(np.arange(vg.num_actions), ids[ids >= 0])
        assert (row[outside] == -1e9).all() and (row[ids[ids >= 0]] > -1e3).all()
    seen = [set() for _ in range(8)]
    for _ in range(200):
        actions, logp, _ = net.choose(inputs, legal)
        assert torch.allclose(masked_distribution(logits, legal).log_prob(actions), logp, atol=1e-5)
        for i, a in enumerate(actions.tolist()):
            seen[i].add(a)
    for i, ids in enumerate(candidates):
        assert seen[i] == set(ids[ids >= 0].tolist())  # with no bonus, every candidate is drawn


def test_rummy_rule_based_ranking_starts_with_its_choice_and_holds_every_legal_move():
    """Every decision of one Rummy match (at least 300): ``ranked_actions`` lists each legal action
    once, and its first is the agent's ``act``."""
    env = make_raw_env("rummy")
    env.reset(seed=11)
    state, agent = env.game, make_agent("heuristic", "rummy")
    compared = 0
    while not state.done:
        seat = state.current_player
        obs, mask, view = state.observation(seat), state.legal_mask(), state.view(seat)
        ranked = agent.ranked_actions(obs, mask.copy(), view)
        choice = agent.act(obs, mask.copy(), view)
        assert ranked[0] == choice and sorted(ranked.tolist()) == np.flatnonzero(mask).tolist()
        state.step(choice)
        compared += 1
    assert compared >= 300


def test_candidate_prior_trains_resumes_its_width_and_its_checkpoint_plays_candidates(tmp_path):
    trainer = tp.train(tp.parse_args(TINY + ["--run-dir", str(tmp_path), "--total-timesteps", "128",
                                             "--prior-candidates", "3", "--prior-weight", "1"]))
    assert trainer.net.prior_width == 3
    with open(tmp_path / "train.csv") as f:
        assert all(float(r["logp_err0"]) < 1e-5 for r in csv.DictReader(f))
    agent = load_ppo_agent(str(tmp_path / "policy.pt"), "rummy", options={"max_rounds": 1, "max_turns": 16})
    agent.greedy = False
    assert agent.net.prior_candidates == 3
    env = make_raw_env("rummy", max_rounds=1, max_turns=16)
    env.reset(seed=3)
    rule = make_agent("heuristic", "rummy")
    agent.reset(0, 1)
    moves = 0
    while not env.game.done:
        seat = env.game.current_player
        obs, mask, view = env.game.observation(seat), env.game.legal_mask(), env.game.view(seat)
        action = agent.act(obs, mask.copy(), view)
        assert action in rule.ranked_actions(obs, mask.copy(), view)[:3]
        env.game.step(action)
        moves += 1
    assert moves > 20


def test_candidates_need_a_prior_that_ranks_its_moves():
    with pytest.raises(ValueError, match="ranks its moves"):
        policy_for_game("tongits", 10, 5, prior="heuristic", prior_candidates=3)
    with pytest.raises(ValueError, match="prior_candidates must be"):
        policy_for_game("rummy", 10, 5, prior_candidates=3)


def test_contract_rummy_ranking_starts_with_its_choice_and_ranks_draws_and_discards():
    """Every decision of one seven-deal game (at least 1,000): ``ranked_actions`` starts with ``act``,
    lists legal actions once each, and at a draw or a discard holds every legal draw, or every legal
    discard but the joker."""
    env = make_raw_env("contract_rummy")
    env.reset(seed=11)
    state, agent = env.game, make_agent("heuristic", "contract_rummy")
    compared = ranked_more = 0
    while not state.done:
        seat = state.current_player
        obs, mask, view = state.observation(seat), state.legal_mask(), state.view(seat)
        ranked = agent.ranked_actions(obs, mask.copy(), view).tolist()
        choice = agent.act(obs, mask.copy(), view)
        assert ranked[0] == choice and len(set(ranked)) == len(ranked) and all(mask[ranked])
        texts = [env.action_to_text(a) for a in np.flatnonzero(mask)]
        kind = env.action_to_text(choice).split()[0]
        if kind in ("draw", "take"):
            assert len(ranked) == sum(t.split()[0] in ("draw", "take") for t in texts)
        elif kind == "discard":
            assert len(ranked) == max(1, sum(t.startswith("discard ") and t != "discard JK" for t in texts))
        ranked_more += len(ranked) > 1
        state.step(choice)
        compared += 1
    assert compared >= 1000 and ranked_more >= 300


def test_departure_ranks_counts_every_decision_once_and_refuses_a_residual_policy():
    """``agreement.departure_ranks`` on 96 decisions of rule-based Rummy: per kind, the ranks add up
    to its decisions, and the kinds to the decisions seen (a multiple of the 8 games)."""
    from rummy_env.experiments.studies import agreement
    torch.manual_seed(0)
    vg = VectorGames("rummy", 1, 0)
    net = policy_for_game("rummy", vg.obs_size, vg.num_actions, hidden="32")
    ranks = agreement.departure_ranks("rummy", {}, net, 96, 5, 8)
    assert sum(k["decisions"] for k in ranks.values()) == 96
    for counts in ranks.values():
        assert sum(v for key, v in counts.items() if key != "decisions") == counts["decisions"]
    residual = policy_for_game("rummy", vg.obs_size, vg.num_actions, hidden="32", prior="heuristic")
    with pytest.raises(ValueError, match="residual policy"):
        agreement.departure_ranks("rummy", {}, residual, 96, 5, 8)
