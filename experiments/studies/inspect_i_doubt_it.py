"""How an I Doubt It agent plays against the rule-based one: per-seat totals over a few games.

    .venv/bin/python -m rummy_env.experiments.studies.inspect_i_doubt_it --agent ppo:checkpoints/i_doubt_it/policy_fp16.pt \\
        --games 30 --seed 100

Seat 0 is ``--agent``, the other seats ``agents/heuristic_i_doubt_it.py``; game g is dealt with
seed ``seed + g``. Prints, per seat, the totals of the public per-seat statistics the view keeps
(``view["stats"]``: plays, cards played, doubts, passes, pickups, cards picked up, times caught
lying) and how often the seat went out first (the win under the default ``reward_mode="winner"``);
``--out FILE`` also writes them as JSON with the commit and command line.

A one-off study, kept in ``experiments/studies/`` and left out of the wheel: run it from a
repository checkout (``pip install -e .``) as ``python -m
rummy_env.experiments.studies.inspect_i_doubt_it``. It produced
``docs/results/search/value_cards/i_doubt_it_inspect_pimc.json``; its results record the command
line it had before it moved here.
"""
from __future__ import annotations

import argparse
from collections import Counter

from rummy_env.agents.registry import make_agent
from rummy_env.registry import make_env

from .. import io
from ..tournament import agent_move


def seat_totals(agent_spec: str, games: int, seed: int, num_players: int = 4) -> list[Counter]:
    env = make_env("i_doubt_it", num_players=num_players)
    agents = [make_agent(agent_spec, "i_doubt_it")] + [make_agent("heuristic", "i_doubt_it")
                                                       for _ in range(num_players - 1)]
    totals = [Counter() for _ in range(num_players)]
    for g in range(games):
        env.reset(seed=seed + g)
        for s, agent in enumerate(agents):
            agent.reset(s, seed + g)
        for name in env.agent_iter():
            _, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            seat = env.unwrapped.agent_name_mapping[name]
            env.step(agent_move(agents[seat], env.unwrapped, seat))
        final = env.unwrapped.view("player_0")
        for s in range(num_players):
            totals[s].update(final["stats"][s])
            totals[s]["first_out"] += final["places"][s] == 1
    return totals


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``python -m rummy_env.experiments.studies.inspect_i_doubt_it``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agent", required=True, help="agent spec for seat 0, e.g. ppo:PATH")
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--seed", type=int, default=100)
    parser.add_argument("--out", help="also write the totals to this JSON file")
    return parser


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    totals = seat_totals(args.agent, args.games, args.seed)
    keys = ["plays", "cards_played", "doubts", "passes", "pickups", "cards_picked_up", "caught_lying"]
    print(f"{args.games} games, seeds {args.seed}..{args.seed + args.games - 1}; totals per seat")
    print("seat agent      " + " ".join(f"{k:>15}" for k in keys) + "  first out")
    for s, t in enumerate(totals):
        label = "agent" if s == 0 else "heuristic"
        print(f"{s:<4} {label:<10} " + " ".join(f"{t[k]:>15}" for k in keys) + f"  {t['first_out'] / args.games:.3f}")
    if args.out:
        io.write_json(args.out, {"agent": args.agent, "games": args.games, "first_seed": args.seed,
                                 "seats": [{"agent": "agent" if s == 0 else "heuristic", **{k: t[k] for k in keys},
                                            "first_out_share": t["first_out"] / args.games}
                                           for s, t in enumerate(totals)], **io.provenance()})


if __name__ == "__main__":
    main()
