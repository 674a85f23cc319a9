"""Tournaments (issue 7): duplicate-deal seating, statistics, parallel play, crash-safe output."""
from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import textwrap
from collections import Counter, defaultdict

import numpy as np
import pytest

from rummy_env.agents.base import RandomAgent
from rummy_env.agents.registry import agent_labels, check_agent_spec, make_agent
from rummy_env.experiments import io
from rummy_env.experiments.tournament import (TournamentConfig, bootstrap_ratio_ci, deal_seed, openskill_ratings,
                                    play_game, run_tournament, seatings, summarize, win_credit)
from rummy_env.registry import make_raw_env

GAME = "rummy"
SHORT = {"max_rounds": 1}  # one round per match keeps the tests fast


@pytest.mark.parametrize("k,n", [(1, 3), (2, 2), (2, 3), (3, 3), (2, 4), (3, 4), (4, 6), (3, 2), (4, 3)])
def test_seatings_every_agent_plays_every_seat_equally(k, n):
    """Per deal seed, every agent sits in every seat, equally often, and no seating repeats a
    rotation of its lineup in the wrong shape (each game fills all n seats)."""
    lineup = seatings(k, n)
    assert all(len(s) == n for s in lineup)
    per_seat = [Counter(s[seat] for s in lineup) for seat in range(n)]
    for a in range(k):
        counts = {per_seat[seat][a] for seat in range(n)}
        assert len(counts) == 1 and counts.pop() > 0, (a, per_seat)
    if k <= n:
        assert len(lineup) == n
        assert all(sorted(Counter(s).values()) == sorted(Counter(lineup[0]).values()) for s in lineup)
    else:
        assert all(len(set(s)) == n for s in lineup)


def test_tournament_plays_duplicate_deals_with_rotated_seats():
    """Every deal seed is played once per seating with the same env seed, each agent in every seat;
    different deal seeds get different env seeds; every game gets fresh agent seeds."""
    records = []
    config = TournamentConfig(game=GAME, agents=("random", "random"), games=20, seed=3, options=SHORT)
    results = run_tournament(config, progress=False, on_records=records.extend)
    assert results["games"] == len(records) == 20 and results["deals"] == 10
    by_deal = defaultdict(list)
    for r in records:
        by_deal[r["deal"]].append(r)
    seeds = set()
    for deal, games in by_deal.items():
        assert {g["seed"] for g in games} == {deal_seed(3, deal)}
        assert sorted(g["rotation"] for g in games) == [0, 1]
        assert sorted(tuple(g["agent_index"]) for g in games) == [(0, 1), (1, 0)]
        seeds.add(games[0]["seed"])
        assert len({s for g in games for s in g["agent_seeds"]}) == 4
    assert len(seeds) == 10
    # The same seed really is the same deal: the opening hands of both rotations coincide.
    env = make_raw_env(GAME, **SHORT)
    hands = []
    for g in by_deal[0]:
        env.reset(seed=g["seed"])
        hands.append([env.view(s)["hand"] for s in range(2)])
    assert hands[0] == hands[1]


def test_three_seat_game_rotates_two_agents(tmp_path):
    """A 3-seat Rummy with 2 agents: seatings [0,1,0] rotated, results count seat-games right."""
    records = []
    config = TournamentConfig(game=GAME, agents=("random", "random"), games=6, seed=1,
                              options={**SHORT, "num_players": 3})
    results = run_tournament(config, progress=False, on_records=records.extend)
    assert results["seatings"] == [["random#1", "random#2", "random#1"], ["random#2", "random#1", "random#1"],
                                   ["random#1", "random#1", "random#2"]]
    seat_games = {s["agent"]: s["seat_games"] for s in results["summary"]}
    assert seat_games == {"random#1": 12, "random#2": 6}
    shares = sum(s["win_share"] * s["seat_games"] for s in results["summary"])
    assert shares == pytest.approx(results["games"])


def test_random_vs_random_shares_near_equal():
    """Two identical random agents in Rummy: win shares near 1/2, each CI covering 1/2, win credit
    adding up to one per game."""
    config = TournamentConfig(game=GAME, agents=("random", "random"), games=200, seed=11, options=SHORT)
    results = run_tournament(config, progress=False)
    for s in results["summary"]:
        assert abs(s["win_share"] - 0.5) < 0.08, s
        lo, hi = s["win_share_ci"]
        assert lo < 0.5 < hi and hi - lo < 0.2, s
        assert s["seat_games"] == 200
        assert s["win_share_by_seat"][0] is not None and s["win_share_by_seat"][1] is not None
    assert sum(s["win_share"] for s in results["summary"]) == pytest.approx(1.0)


def test_parallel_run_equals_serial_run():
    """Worker processes play exactly the games a single process plays (same records)."""
    def run(workers):
        records = []
        config = TournamentConfig(game=GAME, agents=("random", "random"), games=16, seed=5,
                                  options=SHORT, workers=workers)
        run_tournament(config, progress=False, on_records=records.extend)
        return sorted(records, key=lambda r: r["index"])

    serial, parallel = run(1), run(2)
    assert [r["index"] for r in serial] == list(range(16))
    assert serial == parallel


def test_play_game_resets_agents_every_episode_and_accumulates_returns():
    """``agent.reset(seat, seed)`` is called at the start of every episode; returns are the sums of
    the per-step rewards (they equal the env's own accounting of totals)."""
    calls = []

    class Recording(RandomAgent):
        uses_view = True

        def reset(self, seat, seed=None):
            calls.append((seat, seed))
            super().reset(seat, seed)

        def act(self, observation, action_mask, view):
            assert view["seat"] == self.seat and view["to_play"] == self.seat
            return super().act(observation, action_mask, view)

    env = make_raw_env(GAME, **SHORT, reward_mode="zero_sum")
    agents = [Recording(), Recording()]
    calls.clear()  # RandomAgent.__init__ resets once
    for episode in range(3):
        result = play_game(env, agents, env_seed=episode, agent_seeds=[10 * episode, 10 * episode + 1])
        assert calls[-2:] == [(0, 10 * episode), (1, 10 * episode + 1)]
        assert sum(result["returns"]) == pytest.approx(0.0)
        assert result["steps"] == len(result["actions"]) > 0
    assert len(calls) == 6


def test_win_credit_splits_ties():
    assert win_credit([3.0, 1.0]) == [1.0, 0.0]
    assert win_credit([2.0, 2.0, -1.0]) == [0.5, 0.5, 0.0]
    assert win_credit([0.0, 0.0, 0.0, 0.0]) == [0.25] * 4


def test_bootstrap_ci_matches_theory_and_resamples_deal_seeds():
    """Constant data: zero width. Independent 0/1 data: close to the normal-theory interval.
    Duplicating every observation inside its deal seed leaves the interval unchanged (the deal seed
    is the unit that is resampled), while treating the copies as independent would shrink it."""
    assert bootstrap_ratio_ci(np.ones(50), np.ones(50)) == (1.0, 1.0)
    rng = np.random.default_rng(0)
    x = (rng.random(2000) < 0.3).astype(float)
    lo, hi = bootstrap_ratio_ci(x, np.ones_like(x))
    p = x.mean()
    half = 1.96 * np.sqrt(p * (1 - p) / len(x))
    assert lo < p < hi
    assert (hi - lo) == pytest.approx(2 * half, rel=0.12)
    lo2, hi2 = bootstrap_ratio_ci(2 * x, 2 * np.ones_like(x))
    assert (lo2, hi2) == (lo, hi)
    lo3, hi3 = bootstrap_ratio_ci(np.repeat(x, 2), np.ones(2 * len(x)))
    assert hi3 - lo3 < 0.8 * (hi - lo)


def test_openskill_rating_ranks_the_stronger_agent_higher():
    """Agent 0 wins 80% of synthetic games: its rating ends above agent 1's."""
    rng = np.random.default_rng(1)
    records = []
    for i in range(200):
        win = rng.random() < 0.8
        seating = [0, 1] if i % 2 == 0 else [1, 0]
        returns = [1.0 if (a == 0) == win else -1.0 for a in seating]
        records.append({"index": i, "deal": i // 2, "agent_index": seating, "returns": returns})
    ratings = openskill_ratings(records, 2)
    assert ratings[0]["mu"] > ratings[1]["mu"] + 2
    summary = summarize(records, ["a", "b"], ["random", "random"], num_seats=2)
    assert summary[0]["win_share"] == pytest.approx(np.mean([r["returns"][r["agent_index"].index(0)] > 0
                                                             for r in records]))


def test_outputs_record_everything_needed(tmp_path):
    """results.json, results.csv, the PNG plot and the replay log are written; the log records
    every game's seed, options and seating."""
    config = TournamentConfig(game=GAME, agents=("random", "random"), games=4, seed=2, options=SHORT)
    results = run_tournament(config, out_dir=tmp_path, progress=False)
    saved = json.loads((tmp_path / "results.json").read_text())
    assert saved["summary"] == json.loads(json.dumps(results["summary"]))
    assert saved["ci_method"].startswith("95% percentile bootstrap over deal seeds")
    with open(tmp_path / "results.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["agent"] for r in rows] == ["random#1", "random#2"]
    assert float(rows[0]["win_share"]) == pytest.approx(results["summary"][0]["win_share"])
    assert (tmp_path / "win_shares.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    log = io.read_jsonl(tmp_path / "games.jsonl")
    assert sorted(r["index"] for r in log) == [0, 1, 2, 3]
    for r in log:
        assert r["options"] == SHORT and r["game"] == GAME and isinstance(r["seed"], int)
        assert len(r["seating"]) == 2 and r["actions"]


def test_agent_registry_specs_and_errors(tmp_path):
    assert isinstance(make_agent("random", "rummy_v0"), RandomAgent)
    with pytest.raises(ValueError, match="unknown agent 'smart'"):
        check_agent_spec("smart", GAME)
    with pytest.raises(ValueError, match="unknown game 'poker'"):
        check_agent_spec("random", "poker")
    with pytest.raises(ValueError, match="no such checkpoint file"):
        check_agent_spec(f"ppo:{tmp_path / 'missing.pt'}", GAME)
    with pytest.raises(ValueError, match="needs a checkpoint path"):
        check_agent_spec("ppo:", GAME)
    assert agent_labels(["random", "heuristic", "random", "ppo:a/b/m.pt"]) == \
        ["random#1", "heuristic", "random#2", "ppo:m.pt"]


# -- crash-safe output --------------------------------------------------------------------------------
def test_atomic_write_failure_leaves_old_file(tmp_path):
    """A failure part-way through writing (here: an unserialisable value after some JSON was
    written) leaves the previous file intact and no temporary file behind."""
    path = tmp_path / "results.json"
    io.write_json(path, {"old": True})
    with pytest.raises(TypeError):
        io.write_json(path, {"a": list(range(1000)), "b": object()})
    assert json.loads(path.read_text()) == {"old": True}
    assert os.listdir(tmp_path) == ["results.json"]


def test_atomic_write_survives_a_killed_process(tmp_path):
    """A process killed in the middle of writing (os._exit inside the write) leaves the old file."""
    path = tmp_path / "out.csv"
    io.write_csv(path, [{"x": 1}], ["x"])
    code = textwrap.dedent(f"""
        import os
        from rummy_env.experiments import io
        def write(f):
            f.write("x\\n" + "2\\n" * 10000)
            f.flush()
            os._exit(9)
        io.atomic_write({str(path)!r}, write)
    """)
    proc = subprocess.run([sys.executable, "-c", code], cwd=os.path.dirname(os.path.dirname(__file__)))
    assert proc.returncode == 9
    assert path.read_text() == "x\n1\n"


def test_jsonl_partial_last_line_is_skipped_then_repaired(tmp_path):
    """A crash mid-append leaves a partial last line: reading skips it, the next append removes it."""
    path = tmp_path / "games.jsonl"
    io.append_jsonl(path, [{"index": 0}, {"index": 1}])
    with open(path, "a") as f:
        f.write('{"index": 2, "acti')
    assert io.read_jsonl(path) == [{"index": 0}, {"index": 1}]
    io.append_jsonl(path, [{"index": 3}])
    assert io.read_jsonl(path) == [{"index": 0}, {"index": 1}, {"index": 3}]
    with open(path, "a") as f:
        f.write("not json\n")
    with pytest.raises(ValueError, match="line 4"):
        io.read_jsonl(path)


def test_an_illegal_move_names_the_game_to_reproduce(monkeypatch):
    """An agent that plays a masked-out action stops the tournament with an error naming the game
    index, its env seed and the seating (and the env's reason), so it can be replayed."""
    import rummy_env.experiments.tournament as tournament

    class Illegal(RandomAgent):
        def act(self, observation, action_mask, view):
            return int(np.flatnonzero(action_mask == 0)[0])

    monkeypatch.setattr(tournament, "make_agent", lambda spec, game, options: Illegal())
    config = TournamentConfig(game=GAME, agents=("random", "random"), games=2, seed=4, options=SHORT)
    with pytest.raises(tournament.TournamentError,
                       match=rf"rummy game 0 \(env seed {deal_seed(4, 0)}, seats \['random#1', "
                             r"'random#2'\]\): illegal action"):
        run_tournament(config, progress=False)


def test_atomic_write_keeps_ordinary_permissions(tmp_path):
    """New files get the usual mode (not mkstemp's 0600); a rewrite keeps the old file's mode."""
    path = tmp_path / "a.json"
    io.write_json(path, [1])
    umask = os.umask(0)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask
    os.chmod(path, 0o640)
    io.write_json(path, [2])
    assert path.stat().st_mode & 0o777 == 0o640


# -- run folders, labels, log order, CSV ----------------------------------------------------------------
def test_a_tournament_that_fails_at_once_leaves_no_run_folder(monkeypatch, tmp_path):
    """The output folder is created with the first logged games, so a failing first game leaves none."""
    import rummy_env.experiments.tournament as tournament

    class Broken(RandomAgent):
        def act(self, observation, action_mask, view):
            raise RuntimeError("broken agent")

    monkeypatch.setattr(tournament, "make_agent", lambda spec, game, options: Broken())
    out = tmp_path / "run"
    config = TournamentConfig(game=GAME, agents=("random", "random"), games=2, options=SHORT)
    with pytest.raises(tournament.TournamentError, match="broken agent"):
        run_tournament(config, out_dir=out, progress=False)
    assert not out.exists()


def test_checkpoints_with_the_same_file_name_get_distinct_readable_labels():
    specs = ["ppo:checkpoints/tongits/policy_fp16.pt", "ppo:checkpoints/runs/tongits_prior_s2/policy_fp16.pt",
             "heuristic"]
    assert agent_labels(specs) == ["ppo:tongits/policy_fp16.pt", "ppo:tongits_prior_s2/policy_fp16.pt",
                                   "heuristic"]


def test_default_run_folder_name_has_only_plain_characters():
    from rummy_env.experiments.tournament import default_out_dir

    config = TournamentConfig(game=GAME, agents=("random", "random", "ppo:a/run1/m.pt", "ppo:b/run1/m.pt"))
    name = default_out_dir(config).name
    assert name == "tournament_rummy_random-1_vs_random-2_vs_ppo-a-run1-m.pt_vs_ppo-b-run1-m.pt_seed0"


def test_games_log_is_in_game_index_order_with_parallel_workers(tmp_path):
    """Chunks finishing out of order on two workers are still logged (and reported) by game index."""
    reported = []
    config = TournamentConfig(game=GAME, agents=("random", "random"), games=64, seed=3, options=SHORT, workers=2)
    run_tournament(config, out_dir=tmp_path, progress=False, on_records=reported.extend)
    assert [r["index"] for r in io.read_jsonl(tmp_path / "games.jsonl")] == list(range(64))
    assert [r["index"] for r in reported] == list(range(64))


def test_results_csv_numbers_are_rounded(tmp_path):
    config = TournamentConfig(game=GAME, agents=("random", "heuristic"), games=6, seed=1, options=SHORT)
    run_tournament(config, out_dir=tmp_path, progress=False, log_games=False)
    with open(tmp_path / "results.csv") as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        for name in ("mean_reward", "win_share_lo", "equal_share", "rating_mu", "rating_sigma"):
            decimals = row[name].partition(".")[2]
            assert len(decimals) <= 4, (name, row[name])
