"""Issue 46: every process pool starts its workers safely (spawned, torch threads set per worker),
and a tournament whose worker stalls or dies fails with one clear error, keeping finished games."""
from __future__ import annotations

import json
import os
import time

import pytest

from rummy_env.experiments import tournament
from rummy_env.experiments.tournament import TournamentConfig, TournamentError, run_tournament

GAME = "rummy"
SHORT = {"max_rounds": 1}
PLANTED_LOG = "RUMMY_ENV_TEST_PLANTED_LOG"
"""Environment variable naming the games log a planted worker waits on (inherited by spawned workers)."""


def _first_chunk_logged() -> None:
    """Wait (in a worker) until the tournament has logged its first chunk, so one chunk is finished."""
    path = os.environ[PLANTED_LOG]
    while not (os.path.exists(path) and open(path, encoding="utf-8").read().count("\n") >= 2):
        time.sleep(0.05)


def stall_in_second_chunk(game, options, specs, labels, seed, tasks):
    """``_play_chunk`` whose second chunk never finishes a game (once the first is logged)."""
    if tasks[0][0] == 2:
        _first_chunk_logged()
        tournament.play_game = lambda *args: time.sleep(3600)  # this worker process only
    return tournament._play_chunk(game, options, specs, labels, seed, tasks)


def exit_after_reports(*args) -> None:
    """Exit abruptly once the progress reports already sent have reached the driver (the queue's
    feeder thread flushed): the chunk's start report is not lost with the process."""
    queue = tournament._PROGRESS[0]
    queue.close()
    queue.join_thread()
    os._exit(3)


def die_in_second_chunk(game, options, specs, labels, seed, tasks):
    """``_play_chunk`` whose worker exits abruptly in the second chunk (once the first is logged)."""
    if tasks[0][0] == 2:
        _first_chunk_logged()
        tournament.play_game = exit_after_reports  # this worker process only
    return tournament._play_chunk(game, options, specs, labels, seed, tasks)


def _logged_indices(path) -> set[int]:
    with open(path, encoding="utf-8") as f:
        return {json.loads(line)["index"] for line in f}


def _planted_run(monkeypatch, tmp_path, planted) -> str:
    """A 2-worker tournament of 4 chunks (2 games each) with ``planted`` as the chunk player; its error."""
    monkeypatch.setattr(tournament, "_play_chunk", planted)
    monkeypatch.setenv(PLANTED_LOG, str(tmp_path / "games.jsonl"))
    config = TournamentConfig(game=GAME, agents=("random", "heuristic"), games=8, options=SHORT, workers=2,
                              stall_timeout=8.0)
    with pytest.raises(TournamentError) as error:
        run_tournament(config, out_dir=tmp_path, progress=False)
    return str(error.value)


def test_a_stalled_worker_fails_in_the_stall_timeout_naming_its_chunk_and_keeps_finished_games(monkeypatch, tmp_path):
    message = _planted_run(monkeypatch, tmp_path, stall_in_second_chunk)
    assert "no game finished for 8 s (--stall-timeout)" in message, message
    assert "chunk 2 of 4 (games 2-3, deals 1-1) at game 2 (deal 1, env seed " in message, message
    logged = _logged_indices(tmp_path / "games.jsonl")
    assert {0, 1} <= logged and not {2, 3} & logged
    assert f"the finished games ({len(logged)}) are in {tmp_path / 'games.jsonl'}" in message, message


def test_a_dead_worker_is_named_with_its_exit_code_and_finished_games_are_kept(monkeypatch, tmp_path):
    message = _planted_run(monkeypatch, tmp_path, die_in_second_chunk)
    assert message.startswith("a worker process died"), message
    assert " in chunk 2 of 4 (games 2-3, deals 1-1) at game 2 (deal 1, env seed " in message, message
    logged = _logged_indices(tmp_path / "games.jsonl")
    assert {0, 1} <= logged and not {2, 3} & logged


def test_a_negative_stall_timeout_is_refused():
    with pytest.raises(ValueError, match="--stall-timeout must be >= 0 seconds"):
        tournament.check_config(TournamentConfig(game=GAME, agents=("random",), stall_timeout=-1))


def test_two_workers_play_a_value_ppo_search_agent_after_the_parent_ran_torch(tmp_path, capfd):
    """The hang of issue 46: the parent has built the cut-off value's PolicyNet with live torch
    threads; spawned workers build it again and finish (a stall would fail within 120 s). The
    value's options warning, raised in both workers, is shown once, on one line."""
    torch = pytest.importorskip("torch")
    from rummy_env.agents.registry import make_agent
    from rummy_env.experiments.cli import main

    spec = "ismcts:2:rollout=heuristic:depth=2:value=ppo"
    torch.set_num_threads(2)
    make_agent(spec, GAME, SHORT)
    torch.nn.init.orthogonal_(torch.empty(256, 256))
    rc = main(["tournament", "--game", GAME, "--agents", f"{spec},heuristic", "--games", "4", "--workers", "2",
               "--option", "max_rounds=1", "--option", "reward_mode=win_loss", "--option", "max_turns=200",
               "--stall-timeout", "120", "--quiet", "--out", str(tmp_path)])
    out, err = capfd.readouterr()
    assert rc == 0, err
    assert "4 games = 2 deal seeds x 2 seatings, 2 workers (process)" in out
    [line] = err.splitlines()
    assert line.startswith("rummy-env tournament: warning: checkpoint ") and line.endswith(
        "policy_fp16.pt' plays rummy with other options than it was trained with: max_turns=200 (trained with 300)"), err


def test_rollout_workers_start_after_the_parent_ran_torch_and_name_a_stalled_or_dead_shard(tmp_path):
    torch = pytest.importorskip("torch")
    from rummy_env.experiments import train_ppo
    from rummy_env.experiments.rollout import RolloutWorkerError

    torch.set_num_threads(2)
    torch.nn.init.orthogonal_(torch.empty(256, 256))
    args = train_ppo.parse_args(["--game", "rummy", "--opt", "max_rounds=1", "--opt", "max_turns=16",
                                 "--num-envs", "4", "--num-steps", "8", "--hidden", "32", "--no-progress",
                                 "--opponents", "random:1", "--rollout-workers", "2", "--stall-timeout", "120",
                                 "--run-dir", str(tmp_path)])
    trainer = train_ppo.Trainer(args)
    workers = trainer.workers
    workers.start(trainer.net, trainer.pool, args.seed, args)
    try:
        assert trainer.collect()["obs"].shape[0] == 4 * 8
        workers.stall_timeout = 0.5
        with pytest.raises(RolloutWorkerError, match=r"rollout worker 1 \(shard 1, process \d+\) sent nothing "
                                                     r"for 0.5 s \(--stall-timeout\)"):
            workers.receive(0)  # asked nothing: it stays silent
        workers.processes[0].kill()
        with pytest.raises(RolloutWorkerError, match=r"rollout worker 1 \(shard 1, process \d+\) died \(exit code -9\)"):
            workers.receive(0)
    finally:
        workers.close()
    assert not workers.processes


def test_improve_workers_search_with_a_torch_value_after_the_parent_ran_torch():
    torch = pytest.importorskip("torch")
    from rummy_env.experiments import improve

    torch.set_num_threads(2)
    torch.nn.init.orthogonal_(torch.empty(256, 256))
    args = improve.parse_args(["--game", "rummy", "--option", "reward_mode=win_loss", "--decisions", "4",
                               "--workers", "2", "--teacher", "ismcts:2:rollout=heuristic:depth=2:value=ppo"])
    labels = improve.collect_all("rummy", {"reward_mode": "win_loss"}, args)
    assert len(labels.q) == 4


def late_report_after_first_chunk(game, options, specs, labels, seed, tasks):
    """``_play_chunk`` whose first chunk's last progress report reaches the driver after its result,
    and whose other games each take a second, so the tournament outlives the stall timeout."""
    import threading

    if tasks[0][0] == 0:
        records = tournament._play_chunk(game, options, specs, labels, seed, tasks)
        threading.Timer(0.5, tournament._report, (0, len(records))).start()
        return records
    if not hasattr(tournament.play_game, "slowed"):  # once per worker process
        quick_play = tournament.play_game

        def play_slowly(*args):
            time.sleep(1.0)
            return quick_play(*args)
        play_slowly.slowed = True
        tournament.play_game = play_slowly
    return tournament._play_chunk(game, options, specs, labels, seed, tasks)


def test_a_report_arriving_after_its_chunk_finished_is_not_a_stall(monkeypatch, tmp_path):
    monkeypatch.setattr(tournament, "_play_chunk", late_report_after_first_chunk)
    config = TournamentConfig(game=GAME, agents=("random", "heuristic"), games=8, options=SHORT, workers=2,
                              stall_timeout=2.5)
    results = run_tournament(config, out_dir=tmp_path, progress=False)
    assert len(_logged_indices(tmp_path / "games.jsonl")) == 8 and results["config"]["games"] == 8
