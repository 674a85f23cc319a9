"""experiments/improve.py: a candidate's value is what the real game pays when the rule-based
agents play on, the fit learns a departure that pays and leaves one that does not, and the written
policy plays through ``ppo:PATH``."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from rummy_env.agents.registry import heuristic_class, load_ppo_agent  # noqa: E402
from rummy_env.agents.base import rule_based_agents  # noqa: E402
from rummy_env.experiments import improve  # noqa: E402
from rummy_env.registry import make_raw_env  # noqa: E402

OPTIONS = {"reward_mode": "zero_sum"}


def test_the_choices_value_is_what_the_real_round_pays():
    """Along a real rule-based Rummy match, the rollout value of the agent's own choice (played in a
    copy, the agents playing on) equals the acting seat's reward when the real round is scored: the
    copy keeps the true stock and the agents are deterministic, so Q(choice) is exact."""
    env = make_raw_env("rummy", **OPTIONS)
    env.reset(seed=77)
    game = env.game
    rule = heuristic_class("rummy")
    rng = np.random.default_rng(0)
    players, rollout_agents = rule_based_agents(rule, 2, rng), rule_based_agents(rule, 2, rng)
    pending, checked, rounds = [], 0, 0
    while not game.done and rounds < 4:
        seat = game.current_player
        choice = players[seat].act(game.observation(seat), game.legal_mask().copy(), game.view(seat))
        if len(pending) < 60:
            pending.append((seat, improve.rollout_value(game.clone(), choice, seat, rollout_agents)))
        rewards = game.step(choice)
        if rewards is not None:
            assert [value for _, value in pending] == [float(rewards[seat]) for seat, _ in pending]
            checked += len(pending)
            pending, rounds = [], rounds + 1
    assert rounds == 4 and checked >= 100


def synthetic_labels(rows: int, seed: int) -> improve.Labels:
    """Rummy-sized observations; candidates draw stock (the choice), take discard and, in half the
    rows, discard card 0. Taking the discard is worth +1 when observation entry 5 is 1 and -1 when it
    is 0; discarding is worth -2."""
    rng = np.random.default_rng(seed)
    obs = np.zeros((rows, 1346), np.float16)
    flag = rng.random(rows) < 0.5
    obs[:, 5] = flag
    third = rng.random(rows) < 0.5
    candidates = np.stack([np.zeros(rows), np.ones(rows), np.where(third, 2, -1)], 1).astype(np.int64)
    q = np.stack([np.zeros(rows), np.where(flag, 1.0, -1.0), np.where(third, -2.0, np.nan)], 1).astype(np.float32)
    return improve.Labels(obs, candidates, q, np.arange(rows) // 4)


def test_the_fit_learns_the_departure_that_pays():
    """On synthetic labels the greedy policy takes the discard exactly where it pays: on held-out
    rows it departs in about half of them and realizes the hindsight gain (0.5 per decision)."""
    torch.manual_seed(0)
    args = improve.Args(game="rummy", epochs=6, batch_size=64, learning_rate=3e-3, val_fraction=0.2, seed=3)
    net = improve.policy_for_game("rummy", 1346, 1307, "64", prior="heuristic", prior_weight=1.0, prior_candidates=3)
    history = improve.fit(net, synthetic_labels(2400, 1), args, lambda line: None)
    last = history[-1]
    assert last["hindsight_gain"] == pytest.approx(0.5, abs=0.06)
    assert last["realized_gain"] == pytest.approx(last["hindsight_gain"], abs=1e-6)
    assert last["gain_margin_0.1"] == pytest.approx(last["realized_gain"], abs=1e-6)   # the gains are +-1
    assert 0.4 < last["deviation_rate"] < 0.6
    assert last["pick_best_rate"] > 0.95 and 0.4 < last["choice_best_rate"] < 0.6
    assert last["val_gap_loss"] < 0.1 < last["gap_variance"] and last["gap_correlation"] > 0.9


def test_a_run_writes_a_policy_that_plays(tmp_path):
    """A tiny run writes its files; the policy loads as ``ppo:PATH`` does, with its rule-based prior,
    and plays a whole match legally; its first labels are the agent's ranked moves."""
    run = str(tmp_path / "run")
    improve.main(["--game", "rummy", "--option", "reward_mode=zero_sum", "--decisions", "300", "--epochs", "1",
                  "--hidden", "32", "--reward-scale", "0.02", "--seed", "4", "--run-dir", run])
    summary = json.load(open(os.path.join(run, "summary.json")))
    assert summary["decisions"] == 300 and summary["args"]["candidates"] == 3
    assert os.path.exists(os.path.join(run, "improve.csv"))
    refit = str(tmp_path / "refit")
    improve.main(["--game", "rummy", "--option", "reward_mode=zero_sum", "--labels", os.path.join(run, "labels.npz"),
                  "--epochs", "1", "--hidden", "32", "--seed", "4", "--run-dir", refit])
    again = json.load(open(os.path.join(refit, "summary.json")))
    assert (again["decisions"], again["games"]) == (300, summary["games"])
    twice = improve.load_labels(",".join([os.path.join(run, "labels.npz")] * 2))
    assert len(twice.q) == 600 and np.array_equal(twice.candidates[:300], twice.candidates[300:])
    assert twice.game[300] == twice.game[299] + 1   # the second file's games come after the first's
    agent = load_ppo_agent(os.path.join(run, "policy.pt"), "rummy")
    assert agent.net.prior == "heuristic" and agent.net.prior_candidates == 3
    env = make_raw_env("rummy", **OPTIONS)
    env.reset(seed=8)
    agent.reset(0, 1)
    rule = heuristic_class("rummy")()
    rule.reset(1, 2)
    game, steps = env.game, 0
    while not game.done:
        seat = game.current_player
        player = agent if seat == 0 else rule
        game.step(player.act(game.observation(seat), game.legal_mask().copy(), game.view(seat)))
        steps += 1
    assert steps > 50


@pytest.mark.parametrize("game, flag, value, message", [
    ("rummy", "--candidates", "1", "--candidates"), ("rummy", "--sample", "0", "--sample"),
    ("rummy", "--workers", "65", "--workers"), ("rummy", "--seed", "-1", "--seed"),
    ("rummy", "--collect-seconds", "-1", "--collect-seconds"), ("rummy", "--teacher", "heuristic", "--teacher"),
    ("rummy", "--teacher", "ismcts:0", "ismcts iterations"), ("contract_rummy", "--teacher", "ismcts:5", "--teacher")])
def test_bad_arguments_are_refused(game, flag, value, message):
    with pytest.raises(ValueError, match=message):
        improve.parse_args(["--game", game, flag, value])


def test_a_teacher_labels_its_root_visit_shares_and_leaves_the_game_alone():
    """With ``--teacher`` each candidate's label is its share of the search's root visits (the
    candidates are among the root's actions, so the shares of a decision sum to at most 1, and the
    search visits the rule-based move first); the real games go on exactly as without a teacher."""
    common = ["--game", "rummy", "--decisions", "12", "--seed", "5"]
    taught = improve.collect("rummy", {}, improve.parse_args(common + ["--teacher", "ismcts:24:rollout=heuristic:bias=1"]))
    rolled = improve.collect("rummy", {}, improve.parse_args(common))
    assert np.array_equal(taught.obs, rolled.obs) and np.array_equal(taught.candidates, rolled.candidates)
    shares = np.nan_to_num(taught.q)
    assert len(shares) == 12 and (shares >= 0).all() and (shares.sum(1) <= 1 + 1e-6).all()
    assert (shares[:, 0] > 0).all()
    assert np.all(np.isclose(shares * 24, np.round(shares * 24)))   # whole visits out of 24 iterations


def test_collecting_stops_at_its_time_limit():
    args = improve.parse_args(["--game", "rummy", "--decisions", "1000000", "--collect-seconds", "0.5", "--seed", "7"])
    labels = improve.collect("rummy", {}, args)
    assert 0 < len(labels.q) < 1000000


def test_workers_label_their_own_games():
    """Two collecting processes share the decisions out and play different deals; the labels keep
    which worker's game each came from."""
    args = improve.parse_args(["--game", "rummy", "--option", "reward_mode=zero_sum", "--decisions", "41",
                               "--workers", "2", "--seed", "6"])
    labels = improve.collect_all("rummy", OPTIONS, args)
    first = labels.game < 1 << 14
    assert len(labels.q) == 41 and first.sum() == 21 and (labels.game[~first] >= 1 << 14).all()
    assert not np.array_equal(labels.obs[0], labels.obs[21])
