"""Command line and result record shared by the recipes in this folder."""
from __future__ import annotations

import argparse
import time

import torch

from rummy_env.experiments.client_eval import Policy, random_policy, win_share, write_result
from rummy_env.experiments.io import provenance

OPTIONS = {"tongits": {"hands_per_match": 1}, "i_doubt_it": {}}
"""Env options of the learning runs: one Tongits hand per episode, I Doubt It as it comes."""
GYM_IDS = {"tongits": "rummy_env/Tongits-v0", "i_doubt_it": "rummy_env/IDoubtIt-v0"}
EVAL_SEED = 5_500_000
"""First deal seed of the evaluation games (never used in training)."""


def parse_args(description: str, steps: int) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--game", choices=sorted(OPTIONS), default="tongits")
    parser.add_argument("--steps", type=int, default=steps, help="learner steps to train")
    parser.add_argument("--seed", type=int, default=0, help="training seed (deal seeds 0.. of training)")
    parser.add_argument("--eval-games", type=int, default=0, help="evaluation games against random seats")
    parser.add_argument("--out", help="write the result JSON here (with provenance)")
    args = parser.parse_args()
    if args.steps < 1 or args.eval_games < 0:
        parser.error("--steps must be at least 1 and --eval-games at least 0")
    torch.set_num_threads(1)  # the committed runs' CPU seconds are one core's
    args.origin = provenance()  # taken before training: the tree the run started from
    return args


def report(args: argparse.Namespace, library: str, policy: Policy, train_seconds: float,
           seat: int | str = "random") -> None:
    """Evaluate ``policy`` (at ``seat``, an int or ``"random"``) and a random one on the same fresh
    deals; print and optionally write."""
    record = {"library": library, "game": args.game, "options": OPTIONS[args.game], "train_steps": args.steps,
              "train_seed": args.seed, "train_cpu_seconds": round(train_seconds, 1), "eval_seat": seat}
    if args.eval_games:
        start = time.process_time()
        record["learner"] = win_share(args.game, policy, args.eval_games, EVAL_SEED, seat, **OPTIONS[args.game])
        record["random"] = win_share(args.game, random_policy(args.seed), args.eval_games, EVAL_SEED, seat,
                                     **OPTIONS[args.game])
        record["eval_cpu_seconds"] = round(time.process_time() - start, 1)
    print(record)
    if args.out:
        write_result(args.out, record, args.origin)
