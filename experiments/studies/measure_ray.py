"""Measure the Ray backends against the local ones, in one run (issue 18), and write the numbers
with their provenance (git commit, command line) and the machine's load to ``--out``.

    .venv/bin/python -m rummy_env.experiments.studies.measure_ray --out docs/results/ray_scaling.json

- **Tournaments**: a ``--games``-game Tongits tournament (random vs heuristic) on the process and
  the ray backend with 2 workers, then a ``--games-one-worker``-game one with 1 worker (games/s
  without Ray's start-up, which is reported apart), and the ratio ray / process at 2 workers
  (target: at least 0.85). A 2,000-game run on Ray gives the mean time of one task (target: at
  least 0.1 s): wall time x workers / tasks.
- **RLlib**: ``--iterations`` PPO iterations of ``rummy-env train-rllib`` on Rummy (one round per
  episode) with 1 and with 2 env runners: env steps/s over the iterations (sampling and updates),
  then of ``--sample-steps`` env steps per runner sampled alone, all runners at once.

The load averages (``os.getloadavg``) before and after each part are recorded: on a shared
machine they say how far the numbers can be trusted.

A one-off study, kept in ``experiments/studies/`` and left out of the wheel: run it from a
repository checkout (``pip install -e .``) as ``python -m
rummy_env.experiments.studies.measure_ray``. It produced ``docs/results/ray_scaling.json``; its
results record the command line it had before it moved here.
"""
from __future__ import annotations

import argparse
import os
import time

import ray

from rummy_env.experiments import io
from rummy_env.experiments.tournament import TournamentConfig, run_tournament
from rummy_env.experiments.train_rllib import train


def tournament_rate(backend: str, workers: int, games: int) -> dict:
    """games/s of one Tongits tournament (random vs heuristic, no game log)."""
    config = TournamentConfig(game="tongits", agents=("random", "heuristic"), games=games, seed=0,
                              workers=workers, backend=backend)
    load_before = os.getloadavg()
    results = run_tournament(config, progress=False, log_games=False)
    return {"backend": backend, "workers": results["workers"], "games": results["games"],
            "chunks": results["chunks"], "wall_s": results["wall_s"], "games_per_s": results["games_per_s"],
            "mean_task_s": results["wall_s"] * results["workers"] / results["chunks"],
            "ray_startup_s": results["ray_startup_s"], "load_before": load_before, "load_after": os.getloadavg()}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m rummy_env.experiments.studies.measure_ray",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20_000,
                        help="games of each 2-worker tournament (default 20000)")
    parser.add_argument("--games-one-worker", type=int, default=5_000,
                        help="games of each 1-worker tournament (default 5000)")
    parser.add_argument("--iterations", type=int, default=2, help="PPO iterations per RLlib run (default 2)")
    parser.add_argument("--batch-size", type=int, default=1000, help="env steps per PPO iteration (default 1000)")
    parser.add_argument("--sample-steps", type=int, default=1000,
                        help="env steps each env runner samples after training, timed alone (default 1000)")
    parser.add_argument("--out", default="docs/results/ray_scaling.json",
                        help="result JSON (default docs/results/ray_scaling.json)")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run every measurement in turn (module docstring) and write ``--out``."""
    args = build_parser().parse_args(argv)

    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    runs = []
    for workers in (2, 1):
        for backend in ("process", "ray"):
            runs.append(tournament_rate(backend, workers, args.games if workers == 2 else args.games_one_worker))
            print(runs[-1], flush=True)
    rate = {(r["backend"], r["workers"]): r["games_per_s"] for r in runs}
    tasks_2000 = tournament_rate("ray", 2, 2000)
    print(tasks_2000, flush=True)

    rllib = []
    for env_runners in (1, 2):
        load_before = os.getloadavg()
        result = train("rummy", {"max_rounds": 1}, args.iterations, env_runners, batch_size=args.batch_size,
                       minibatch_size=min(500, args.batch_size), epochs=1, sample_steps=args.sample_steps)
        rllib.append({"env_runners": env_runners, "training_env_steps": result["env_steps"],
                      "training_s": result["train_s"], "training_env_steps_per_s": result["env_steps_per_s"],
                      "sampling": result["sampling"], "startup_s": result["startup_s"],
                      "load_before": load_before, "load_after": os.getloadavg()})
        print(rllib[-1], flush=True)

    summary = {
        "started_utc": started, "cpus": os.cpu_count(), "ray_version": ray.__version__, "arguments": vars(args),
        "tournaments": runs,
        "ray_over_process_2_workers": rate[("ray", 2)] / rate[("process", 2)],
        "ray_over_process_1_worker": rate[("ray", 1)] / rate[("process", 1)],
        "tasks_of_a_2000_game_tournament": tasks_2000,
        "rllib_rummy": rllib,
        **io.provenance(),
    }
    io.write_json(args.out, summary)
    print(f"ray / process games/s with 2 workers: {summary['ray_over_process_2_workers']:.3f}; wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
