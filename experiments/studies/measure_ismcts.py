"""ISMCTS iterations (pimc: rollouts) per second per game (issue 16): one agent searches the first
decisions with at least two legal actions of a few seeded deals (every other seat plays the
rule-based agent), on each game's scoring unit, and the rate is iterations / search seconds.

    python -m rummy_env.experiments.studies.measure_ismcts --out docs/results/search/iterations_per_s.json
    python -m rummy_env.experiments.studies.measure_ismcts --specs pimc --deals 3 --decisions 10 \
        --out docs/results/search/pimc_rollouts_per_s.json

A one-off study, kept in ``experiments/studies/`` and left out of the wheel: run it from a
repository checkout (``pip install -e .``) as ``python -m
rummy_env.experiments.studies.measure_ismcts``. It produced
``docs/results/search/iterations_per_s.json`` and ``docs/results/search/pimc_rollouts_per_s.json``;
its results record the command line it had before it moved here.
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

from rummy_env.agents.registry import make_agent
from rummy_env.registry import make_raw_env

from .. import io
from ..tournament import agent_move

SCORING_UNITS = {
    "rummy": {"max_rounds": 1},
    "tongits": {"hands_per_match": 1},
    "contract_rummy": {"deals": [1]},
    "i_doubt_it": {},
    "ginny_o": {},
}
SPECS = {
    "rummy": ["ismcts:20:preset=none", "ismcts:20:rollout=heuristic:bias=1", "ismcts:100:rollout=heuristic:bias=3",
              "ismcts:300:rollout=heuristic:bias=1", "pimc:16:screen=4"],
    "tongits": ["ismcts:20:preset=none", "ismcts:20:rollout=heuristic:bias=1:preset=none",
                "ismcts:100:bias=3:preset=none",
                "ismcts:300:rollout=heuristic:bias=1:preset=none", "ismcts:300:rollout=heuristic:bias=1:credit=win:tree=1:gate=2",
                "pimc:16:screen=4", "pimc:24:screen=4", "pimc:40:screen=8"],
    "contract_rummy": ["ismcts:5:preset=none", "ismcts:5:bias=1:preset=none"],
    "i_doubt_it": ["ismcts:5:preset=none", "ismcts:5:bias=1:preset=none"],
    "ginny_o": ["ismcts:5:preset=none"],
}


def measure(game: str, spec: str, deals: int, decisions: int, options: dict | None = None) -> dict:
    """Iterations per second of ``spec`` over the first ``decisions`` searched decisions of seat 0
    in ``deals`` deals (seeds 0..deals-1), under ``options`` (default: the game's scoring unit).
    ``decisions`` counts the decisions searched: fewer than ``deals * decisions`` when an episode
    ends first."""
    options = SCORING_UNITS[game] if options is None else options
    env = make_raw_env(game, **options)
    iterations, seconds, searched_total = 0, 0.0, 0
    for seed in range(deals):
        env.reset(seed=seed)
        agents = [make_agent(spec if s == 0 else "heuristic", game) for s in range(len(env.possible_agents))]
        for s, agent in enumerate(agents):
            agent.reset(s, seed)
        searched = 0
        while not env.game.done and searched < decisions:
            seat = env.game.current_player
            several = np.count_nonzero(env.game.legal_mask()) > 1
            start = time.perf_counter()
            action = agent_move(agents[seat], env, seat)
            if seat == 0 and several:
                seconds += time.perf_counter() - start
                iterations += agents[0].last_iterations
                searched += 1
            env.step(action)
        searched_total += searched
    return {"game": game, "spec": spec, "options": options, "decisions": searched_total,
            "iterations": iterations, "seconds": seconds, "iterations_per_s": iterations / seconds,
            "iterations_per_decision": iterations / searched_total}


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``python -m rummy_env.experiments.studies.measure_ismcts``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=2)
    parser.add_argument("--decisions", type=int, default=3, help="searched decisions per deal")
    parser.add_argument("--out", default="runs/ismcts_iterations_per_s.json")
    parser.add_argument("--specs", help="comma-separated substrings: measure only the specs containing one")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    wanted = args.specs.split(",") if args.specs else [""]
    rows = []
    for game, specs in SPECS.items():
        for spec in (s for s in specs if any(w in f"{game} {s}" for w in wanted)):
            row = measure(game, spec, args.deals, args.decisions)
            print(f"{game:15s} {spec:36s} {row['iterations_per_s']:8.1f} iterations/s", flush=True)
            rows.append(row)
    io.write_json(args.out, {"rates": rows, "load_average_1min_at_end": os.getloadavg()[0],
                             "cpu_count": os.cpu_count(), **io.provenance()})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
