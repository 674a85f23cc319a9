"""The main job: a baseline tournament (random vs the rule-based heuristic) in every game.

For every game whose environment and heuristic agent exist, plays a duplicate-deal tournament
(``experiments.tournament``) of ``random`` against ``heuristic`` with the game's default options,
on all cores, and prints one table: per game and agent, seat-games, mean reward and win share with
95% bootstrap CIs, and the openskill rating. Games that are not available yet are listed with the
reason. Each game's results, plot and replay log go to ``runs/demo/<game>/``.

Run: ``python -m experiments.demo`` (``make demo``) or ``rummy-env demo``; under a minute on
2 cores.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from rummy_env.registry import GAMES

from .tournament import TournamentConfig, check_config, format_table, run_tournament

AGENTS = ("random", "heuristic")
# Games per game type, sized so the whole demo takes well under a minute on 2 quiet cores: matches that
# last many rounds (Rummy to 150 points, Contract Rummy's seven deals) get fewer games.
DEMO_GAMES = {
    "rummy": 1000,
    "tongits": 1500,
    "i_doubt_it": 1000,
    "contract_rummy": 100,
    "ginny_o": 100,
}


def available(game: str) -> str | None:
    """None if ``game`` can run the demo, else why not (one line)."""
    try:
        check_config(TournamentConfig(game=game, agents=AGENTS))
    except ValueError as e:
        return str(e)
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m experiments.demo", description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=None, help="games per game type (default: per game, see DEMO_GAMES)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=os.path.join("runs", "demo"))
    args = parser.parse_args(argv)

    start = time.perf_counter()
    tables, skipped, facts = [], [], []
    for game in GAMES:
        reason = available(game)
        if reason is not None:
            skipped.append(f"  {game}: skipped, {reason}")
            continue
        config = TournamentConfig(game=game, agents=AGENTS, games=args.games or DEMO_GAMES[game],
                                  seed=args.seed, workers=args.workers)
        results = run_tournament(config, out_dir=Path(args.out) / game, progress=sys.stderr.isatty())
        tables.extend({**row, "game": f"{game} ({results['num_seats']}p)"} for row in results["summary"])
        facts.append(f"  {game}: {results['games']} games ({results['deals']} deal seeds x "
                     f"{len(results['seatings'])} seatings) in {results['wall_s']:.1f} s; "
                     f"replay one: rummy-env replay {results['files']['games_log']} --game-index 0")

    print(f"Baseline tournament: {' vs '.join(AGENTS)}, duplicate deals with seat rotation, "
          f"{args.workers} worker(s)\n")
    if tables:
        print(format_table(tables, with_game=True))
        print("\nwin share = win credit per seat played (highest episode return wins, ties split); "
              "an agent no better than the rest gets 1/players (column equal).\n95% CIs: percentile bootstrap over "
              "deal seeds; rating: openskill Plackett-Luce mu±sigma.")
    else:
        print("No game has both an environment and a heuristic agent yet.")
    if facts:
        print("\n" + "\n".join(facts))
    if skipped:
        print("\n" + "\n".join(skipped))
    print(f"\ntotal {time.perf_counter() - start:.1f} s; results under {args.out}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
