"""The main job: a baseline tournament (the rule-based heuristic vs random play) in every game.

For every game, plays a duplicate-deal tournament (``rummy_env.experiments.tournament``) of one
``heuristic`` against ``random`` in every other seat of the game's default table (the lineup of the
README's baseline table and docs/baselines.md), on all cores. Each tournament's lineup is printed before it starts and its time when it ends (so a log of
a run without a terminal shows progress too); at the end one table: per game, the heuristic's win
share with its 95% bootstrap CI and the random seats' pooled win share. Each game's results, plot
and replay log go to ``runs/demo/<game>/``.

Run: ``python -m rummy_env.experiments.demo`` (``make demo``) or ``rummy-env demo``; about a minute on
2 cores.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from rummy_env.agents.registry import agent_labels
from rummy_env.registry import GAMES

from .tournament import TournamentConfig, check_config, games_played, run_tournament

# Games per game type, sized so the whole demo takes about a minute on 2 quiet cores: matches that
# last many rounds (Rummy to 150 points, Contract Rummy's seven deals) get fewer games.
DEMO_GAMES = {
    "rummy": 1000,
    "tongits": 1500,
    "i_doubt_it": 1000,
    "contract_rummy": 100,
    "ginny_o": 100,
}


def lineup(game: str) -> tuple[str, ...]:
    """One ``heuristic`` against ``random`` in every other seat of the game's default table."""
    seats = check_config(TournamentConfig(game=game, agents=("heuristic", "random")))
    return ("heuristic",) + ("random",) * (seats - 1)


def demo_row(results: dict) -> dict:
    """The README's columns for one tournament: the heuristic's win share with its CI and the
    random seats' win share pooled over all of them."""
    heuristic = next(s for s in results["summary"] if s["spec"] == "heuristic")
    randoms = [s for s in results["summary"] if s["spec"] == "random"]
    seat_games = sum(s["seat_games"] for s in randoms)
    random_share = sum(s["win_share"] * s["seat_games"] for s in randoms) / seat_games
    n = results["num_seats"]
    return {"game": f"{results['game']} ({n}p)", "lineup": "H vs R" if n == 2 else f"1 H + {n - 1} R",
            "games": str(results["games"]),
            "heuristic": f"{heuristic['win_share']:.3f} [{heuristic['win_share_ci'][0]:.3f}, "
                         f"{heuristic['win_share_ci'][1]:.3f}]",
            "random": f"{random_share:.3f}", "equal": f"{1 / n:.3f}"}


def format_demo_table(rows: list[dict]) -> str:
    """A Markdown table of :func:`demo_row` rows (the README shows it as printed)."""
    head = {"game": "game", "lineup": "lineup", "games": "games", "heuristic": "heuristic win share [95% CI]",
            "random": "random win share", "equal": "equal share"}
    lines = ["| " + " | ".join(head.values()) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(row[k] for k in head) + " |" for row in rows]
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``python -m rummy_env.experiments.demo`` (``rummy-env demo`` takes the same flags)."""
    parser = argparse.ArgumentParser(prog="python -m rummy_env.experiments.demo", description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=None,
                        help="games per game type (default: per game, 100 to 1500, see DEMO_GAMES)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                        help=f"worker processes (default: all {os.cpu_count() or 1} cores)")
    parser.add_argument("--seed", type=int, default=0, help="base seed of every tournament (default 0)")
    parser.add_argument("--out", default=os.path.join("runs", "demo"), help="output directory (default runs/demo)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)

    start = time.perf_counter()
    print(f"Baseline tournaments: the rule-based agent (H) against random agents (R) in every other seat, "
          f"duplicate deals with seat rotation, {args.workers} worker(s)", flush=True)
    rows, facts = [], []
    lineups = {game: lineup(game) for game in GAMES}
    bar = sys.stderr.isatty()  # a progress bar per tournament on a terminal, else one line each
    for number, (game, agents) in enumerate(lineups.items(), 1):
        config = TournamentConfig(game=game, agents=agents, games=args.games or DEMO_GAMES[game],
                                  seed=args.seed, workers=args.workers)
        print(f"[{number}/{len(lineups)}] {game}: {' vs '.join(agent_labels(list(agents)))}, "
              f"{config.games} games", end="\n" if bar else " ...", flush=True)
        results = run_tournament(config, out_dir=Path(args.out) / game, progress=bar)
        print(f"{'  ' if bar else ' '}done in {results['wall_s']:.1f} s", flush=True)
        rows.append(demo_row(results))
        facts.append(f"  {game}: {games_played(results, ' (')}); "
                     f"replay one: rummy-env replay {results['files']['games_log']} --game-index 0")

    print("\n" + format_demo_table(rows))
    print("\nwin share = win credit per seat played (highest episode return wins, ties split); equal "
          "share = 1/players.\n95% CI: percentile bootstrap over deal seeds; random: pooled over the "
          f"random seats. Per-agent tables with mean rewards and ratings: {args.out}/<game>/results.json")
    print("\n" + "\n".join(facts))
    print(f"\ntotal {time.perf_counter() - start:.1f} s; results under {args.out}/")
    return 0


if __name__ == "__main__":  # runs as `rummy-env demo`
    from rummy_env.experiments.cli import run_as_command
    sys.exit(run_as_command("demo"))
