"""Self-play throughput of two checkouts measured alternately in one time window (issue 17).

    git worktree add /tmp/old_340 340dbd7
    OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 .venv/bin/python -m rummy_env.experiments.studies.compare_selfplay \\
        --old-tree /tmp/old_340 --new-tree . --rounds 2 --seconds 8 \\
        --out docs/results/selfplay/old_vs_new_2.json

For each game and round, old then new, one fresh process per run runs that checkout's own
``train_ppo --benchmark`` loop (every seat played by one untrained policy, batched) on one thread.
The checkout's ``rummy_env``, ``agents`` and ``experiments`` are loaded from its tree (the editable
install of this repository is bypassed). The measure is env steps per second of the process's CPU
time in the loop (``steps_per_cpu_s_loop``): the CPU time and steps of an ``--seconds`` run minus
those of a 0.01 s run, both after a 0.01 s warm-up, so set-up is not counted; it is what one core
gives when other jobs share the machine. Every run is kept with the load averages before it; the
summary is the mean over rounds per game and side and the ratio new / old.

This file's top level imports only the standard library: run by its path with ``--worker`` it
loads a checkout before anything of ``rummy_env``.

A one-off study, kept in ``experiments/studies/`` and left out of the wheel: run it from a
repository checkout (``pip install -e .``) as ``python -m
rummy_env.experiments.studies.compare_selfplay``. It produced
``docs/results/selfplay/old_vs_new_2.json`` (and ``old_vs_new_2_at_3803c5d.json``); its results
record the command line it had before it moved here.
"""
from __future__ import annotations

import argparse
import dataclasses
import importlib
import importlib.util
import json
import os
import subprocess
import sys
import time

GAMES = ("rummy", "tongits", "i_doubt_it", "contract_rummy", "ginny_o")


def mount(tree: str) -> None:
    """Import ``rummy_env`` from checkout ``tree`` and map ``rummy_env.agents`` and
    ``rummy_env.experiments`` to its ``agents/`` and ``experiments/`` (the install's layout)."""
    sys.path[0] = tree
    rummy_env = importlib.import_module("rummy_env")
    if not rummy_env.__file__.startswith(tree):
        raise ValueError(f"rummy_env was imported from {rummy_env.__file__}, not from the checkout {tree}")
    for sub in ("agents", "experiments"):
        folder = os.path.join(tree, sub)
        spec = importlib.util.spec_from_file_location(f"rummy_env.{sub}", os.path.join(folder, "__init__.py"),
                                                      submodule_search_locations=[folder])
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        setattr(rummy_env, sub, module)


def worker(tree: str, game: str, seconds: float, num_envs: int, hidden: str) -> dict:
    """One run in this process: checkout ``tree``'s self-play benchmark of ``game``."""
    mount(tree)
    train_ppo = importlib.import_module("rummy_env.experiments.train_ppo")
    has_module = os.path.exists(os.path.join(tree, "experiments", "measure_policy.py"))
    bench = importlib.import_module("rummy_env.experiments.measure_policy" if has_module
                                    else "rummy_env.experiments.train_ppo").benchmark_selfplay
    args = train_ppo.parse_args(["--game", game, "--num-envs", str(num_envs), "--hidden", hidden,
                                 "--benchmark", str(seconds)])
    short = dataclasses.replace(args, benchmark=0.01)
    bench(short)  # warm-up: first calls, caches
    cpu = time.process_time()
    short_run = bench(short)
    cpu_short = time.process_time() - cpu
    cpu = time.process_time()
    run = bench(args)
    cpu_long = time.process_time() - cpu
    run["steps_per_cpu_s_loop"] = round((run["steps"] - short_run["steps"]) / (cpu_long - cpu_short))
    return run


def git_state(tree: str) -> dict:
    """The commit checked out in ``tree`` and whether tracked files differ from it."""
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=tree, capture_output=True, text=True, check=True).stdout.strip()
    return {"tree": os.path.abspath(tree), "commit": git("rev-parse", "HEAD"),
            "dirty": bool(git("status", "--porcelain", "--untracked-files=no"))}


def run_side(tree: str, game: str, args) -> dict:
    """One run of checkout ``tree`` in a fresh process (one thread), with the load averages before it."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    load = [round(x, 2) for x in os.getloadavg()]
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", os.path.abspath(tree), game,
                          str(args.seconds), str(args.num_envs), args.hidden],
                         cwd=tree, env=env, capture_output=True, text=True, check=True)
    return {**json.loads(out.stdout.splitlines()[-1]), "load_average_before": load}


def summarize(runs: list[dict]) -> dict:
    """Per game: each side's mean over rounds of ``steps_per_cpu_s_loop`` and of the wall-clock
    ``steps_per_s``, and the ratios new / old."""
    summary = {}
    for game in dict.fromkeys(r["game"] for r in runs):
        sides = {}
        for side in ("old", "new"):
            mine = [r for r in runs if r["game"] == game and r["side"] == side]
            sides[side] = {key: round(sum(r[key] for r in mine) / len(mine))
                           for key in ("steps_per_cpu_s_loop", "steps_per_s")}
            sides[side]["policy_share"] = round(sum(r["policy_share"] for r in mine) / len(mine), 2)
        old, new = sides["old"], sides["new"]
        summary[game] = {**sides, "ratio_cpu": round(new["steps_per_cpu_s_loop"] / old["steps_per_cpu_s_loop"], 2),
                         "ratio_wall": round(new["steps_per_s"] / old["steps_per_s"], 2)}
    return summary


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``python -m rummy_env.experiments.studies.compare_selfplay``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old-tree", required=True, help="checkout of the old code (a git worktree)")
    parser.add_argument("--new-tree", default=".", help="checkout of the new code")
    parser.add_argument("--games", default=",".join(GAMES), help="comma-separated game names")
    parser.add_argument("--rounds", type=int, default=2, help="old/new pairs per game")
    parser.add_argument("--seconds", type=float, default=8.0, help="length of each benchmark run")
    parser.add_argument("--num-envs", type=int, default=64)
    parser.add_argument("--hidden", default="256,256")
    parser.add_argument("--out", required=True, help="JSON file for every run and the summary")
    return parser


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    from rummy_env.experiments import io  # here, not at the top: the worker imports no rummy_env first
    trees = {"old": args.old_tree, "new": args.new_tree}
    runs = []
    for game in args.games.split(","):
        for round_ in range(1, args.rounds + 1):
            for side, tree in trees.items():
                runs.append({**run_side(tree, game, args), "side": side, "round": round_})
                print(json.dumps(runs[-1]), flush=True)
    io.write_json(args.out, {
        "what": "self-play throughput with policy inference (every seat by one untrained policy, batched, "
                "one thread), two checkouts measured alternately in one time window",
        "metric": "steps_per_cpu_s_loop: env steps per second of the process's CPU time in the benchmark loop; "
                  "steps_per_s: the benchmark's wall-clock figure, which depends on how much of a core it got",
        "old": git_state(args.old_tree), "new": git_state(args.new_tree),
        "arguments": vars(args), "summary": summarize(runs), "runs": runs, **io.provenance()})


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        tree, game, seconds, num_envs, hidden = sys.argv[2:]
        print(json.dumps(worker(tree, game, float(seconds), int(num_envs), hidden)))
    else:
        main()
