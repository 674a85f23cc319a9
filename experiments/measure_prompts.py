"""Prompt sizes of the text protocol (issue 44): the characters of ``env.unwrapped.prompt(agent)``
at every decision of uniformly random play, per game, under the default options.

    python -m rummy_env.experiments.measure_prompts --games 20 --seed 5600000 \\
        --out docs/results/llm/prompt_sizes.json

Reports, per game, the largest prompt (and the deal seed and step where it occurred), the mean, the
most legal move texts at one decision and the most move lines they took in the prompt, against
:data:`rummy_env.text_protocol.PROMPT_LIMIT`.
"""
from __future__ import annotations

import argparse

import numpy as np

from rummy_env.registry import GAMES, make_raw_env
from rummy_env.text_protocol import PROMPT_LIMIT, move_lines

from . import io
from .usage import count


def measure_game(game: str, games: int, first_seed: int) -> dict:
    """Prompt sizes over ``games`` random games dealt with seeds ``first_seed``, ``first_seed + 1``, ..."""
    env = make_raw_env(game)
    rng = np.random.default_rng(first_seed)
    largest, where, total, count, most_moves, most_lines = 0, None, 0, 0, 0, 0
    for seed in range(first_seed, first_seed + games):
        env.reset(seed=seed)
        step = 0
        while not env.game.done:
            seat = env.game.current_player
            view = env.view(seat)
            size = len(env.prompt(seat))
            total += size
            count += 1
            if size > largest:
                largest, where = size, {"seed": seed, "step": step}
            most_moves = max(most_moves, len(view["legal_actions"]))
            most_lines = max(most_lines, len(move_lines(view)))
            mask = env.game.legal_mask()
            env.step(int(rng.choice(np.flatnonzero(mask))))
            step += 1
    return {"game": game, "games": games, "decisions": count, "largest_chars": largest, "largest_at": where,
            "mean_chars": total / count, "most_legal_moves": most_moves, "most_move_lines": most_lines}


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``python -m rummy_env.experiments.measure_prompts``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=count("--games", 1), default=20, help="random games per game (default 20)")
    parser.add_argument("--seed", type=int, default=5600000, help="deal seed of the first game")
    parser.add_argument("--out", help="write the results here as JSON")
    return parser


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    rows = [measure_game(game, args.games, args.seed) for game in GAMES]
    for row in rows:
        print(f"{row['game']:<15} largest {row['largest_chars']:>5} chars, mean {row['mean_chars']:7.0f}, "
              f"up to {row['most_legal_moves']} legal moves in {row['most_move_lines']} lines")
    result = {"what": "characters of env.unwrapped.prompt(agent) at every decision of uniformly random play, "
                      "default options", "prompt_limit": PROMPT_LIMIT, "first_seed": args.seed,
              "games": rows, **io.provenance()}
    if args.out:
        io.write_json(args.out, result)
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
