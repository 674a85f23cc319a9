"""What ``train_ppo`` does instead of training: ``--benchmark`` and ``--eval-only``.

* :func:`benchmark_selfplay` (``--benchmark SECONDS``): self-play throughput, every seat played by
  the untrained policy (batched): env steps per second including policy inference.
* :func:`evaluate_only` (``--eval-only``): the greedy ``--init-from`` network (untrained without
  it) against each ``--eval-opponents``, win shares with 95% CIs.

:func:`measure` prints the result as JSON lines and with ``--out`` keeps it as JSON with
:func:`rummy_env.experiments.io.provenance` (commit, dirty flag, command).
"""
from __future__ import annotations

import dataclasses
import json
import os
import time

import numpy as np
import torch

from rummy_env.agents.registry import policy_for_game
from rummy_env.experiments import io
from rummy_env.experiments.arena import eval_opponents, play_greedy
from rummy_env.experiments.checkpoints import seed_globals, start_network
from rummy_env.experiments.options import parse_env_options
from rummy_env.registry import game_key
from rummy_env.vector import VectorGames


def benchmark_selfplay(args) -> dict:
    """Self-play rollout throughput: every seat of ``num_envs`` games played by one untrained policy
    (batched inference on the CPU), env steps per second over ``args.benchmark`` seconds, and per
    second of this process's CPU time (what one core gives when other jobs share the machine)."""
    if args.prior:
        raise ValueError("--benchmark times the policy network alone; drop --prior")
    torch.set_num_threads(args.torch_threads)
    torch.manual_seed(args.seed)
    vg = VectorGames(args.game, args.num_envs, args.seed, **parse_env_options(args.opt))
    net = policy_for_game(args.game, vg.obs_size, vg.num_actions, args.hidden, args.conv_channels, args.head,
                          args.factor_dim)
    generator = torch.Generator().manual_seed(args.seed)
    policy_s, steps, episodes = 0.0, 0, 0
    start, cpu_start = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < args.benchmark:
        obs, mask, _ = vg.observe()
        t = time.perf_counter()
        actions = net.act(obs, mask, generator=generator)
        policy_s += time.perf_counter() - t
        episodes += int(vg.step(actions).done.sum())
        steps += vg.num_envs
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start
    return {"game": args.game, "num_envs": vg.num_envs, "obs_size": vg.obs_size, "num_actions": vg.num_actions,
            "steps_per_s": round(steps / seconds), "steps_per_cpu_s": round(steps / cpu_seconds),
            "policy_share": round(policy_s / seconds, 2),
            "episodes": episodes, "steps": steps, "seconds": round(seconds, 1),
            "load_average_1min": round(os.getloadavg()[0], 2)}


def evaluate_only(args) -> list[dict]:
    """``--eval-only``: the greedy ``--init-from`` network (without it: the run's untrained network,
    seeded as ``train_ppo`` seeds it) plays ``--eval-episodes`` games against each
    ``--eval-opponents`` on the deals of the run's update-0 evaluation; win share, its standard
    error, a normal 95% CI and par (1/n)."""
    torch.set_num_threads(args.torch_threads)
    seed_globals(args.seed)
    key, options = game_key(args.game), parse_env_options(args.opt)
    vg = VectorGames(key, 1, args.seed, **options)
    net = start_network(key, options, vg.obs_size, vg.num_actions, args.hidden, args.conv_channels, args.init_from,
                        args.head, args.factor_dim, args.prior, args.prior_weight)
    rows = []
    for spec in eval_opponents(key, args.eval_opponents):
        start = time.perf_counter()
        eps = play_greedy(net, key, options, spec, args.eval_episodes, args.seed, update=0)
        shares = np.array([e[2] for e in eps])
        mean = float(shares.mean())
        se = float(shares.std(ddof=1) / np.sqrt(len(shares))) if len(shares) > 1 else float("nan")
        rows.append({"policy": args.init_from or "untrained", "opponent": spec, "games": len(eps),
                     "win_share": round(mean, 4), "se": round(se, 4),
                     "ci95_low": round(mean - 1.96 * se, 4), "ci95_high": round(mean + 1.96 * se, 4),
                     "par": round(1.0 / vg.num_players, 4),
                     "mean_return": round(float(np.mean([e[1] for e in eps])), 4),
                     "mean_length": round(float(np.mean([e[3] for e in eps])), 1),
                     "seconds": round(time.perf_counter() - start, 1)})
    return rows


def measure(args) -> None:
    """``--benchmark`` or ``--eval-only``: print the result (a JSON line per row); with ``--out``
    also write it, with the arguments and provenance, to that JSON file."""
    result = benchmark_selfplay(args) if args.benchmark else evaluate_only(args)
    for row in [result] if args.benchmark else result:
        print(json.dumps(row))
    if args.out:
        io.write_json(args.out, {"result": result, "args": dataclasses.asdict(args), **io.provenance()})
