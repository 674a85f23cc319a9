"""Seconds per decision of every agent family in every game (what ``rummy-env agents`` shows):
the agent in seat 0 and the rule-based agent in the other seats play seeded deals (seeds 0, 1, ...)
until the agent has made ``--decisions`` decisions with at least two legal actions; the cost is the
mean CPU time of its ``act`` (``act_on`` for a search agent; building its inputs included) over
those decisions (``time.process_time``: the process's CPU seconds, all its threads, so other
processes on a shared machine do not inflate it; on an idle core the wall time is about the same). Each game is played under the options of its
``ismcts`` preset's tournament (:mod:`rummy_env.agents.presets`), the scoring unit the recipes
were measured on.

    python -m rummy_env.experiments.measure_agent_costs --out docs/results/agent_costs.json
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

from rummy_env.agents.presets import PRESETS, resolve_spec
from rummy_env.agents.registry import make_agent
from rummy_env.registry import GAMES, make_raw_env

from . import io
from .tournament import agent_move
from .usage import count

SPECS = ("random", "heuristic", "ppo", "ismcts", "pimc")


def measure(game: str, spec: str, decisions: int, options: dict) -> dict:
    """Mean and largest CPU seconds of ``spec``'s ``act`` over its first ``decisions`` decisions with
    two or more legal actions in seat 0 of deals seeded 0, 1, ..., the rule-based agent elsewhere."""
    env = make_raw_env(game, **options)
    times: list[float] = []
    seed = 0
    while len(times) < decisions:
        env.reset(seed=seed)
        agents = [make_agent(spec if s == 0 else "heuristic", game, options) for s in range(len(env.possible_agents))]
        for s, agent in enumerate(agents):
            agent.reset(s, seed)
        while not env.game.done and len(times) < decisions:
            seat = env.game.current_player
            several = np.count_nonzero(env.game.legal_mask()) >= 2
            start = time.process_time()
            action = agent_move(agents[seat], env, seat)
            if seat == 0 and several:
                times.append(time.process_time() - start)
            env.step(action)
        seed += 1
    return {"game": game, "spec": spec, "resolved": resolve_spec(spec, game), "options": options,
            "decisions": len(times), "deals": seed, "seconds_per_decision": float(np.mean(times)),
            "max_seconds": float(np.max(times))}


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``python -m rummy_env.experiments.measure_agent_costs``."""
    parser = argparse.ArgumentParser(prog="python -m rummy_env.experiments.measure_agent_costs",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--decisions", type=count("--decisions", 1), default=10, help="decisions timed per game and spec (default 10)")
    parser.add_argument("--games", default=",".join(GAMES), help="comma-separated games (default: all)")
    parser.add_argument("--out", required=True, help="output JSON")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    rows = []
    for game in args.games.split(","):
        options = PRESETS[game, "ismcts"].options
        for spec in SPECS:
            rows.append(measure(game, spec, args.decisions, options))
            print(f"{game:15} {spec:10} {rows[-1]['seconds_per_decision']:.4f} CPU s per decision")
    io.write_json(args.out, {"costs": rows, "decisions": args.decisions, "clock": "process CPU time",
                             "load_average_1min_at_end": os.getloadavg()[0], "cpus": os.cpu_count(),
                             **io.provenance()})
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
