"""Why determinized search misjudges doubts in I Doubt It (issue 16): at each doubt decision of
seat 0 in games of rule-based agents, is the pending claim true, and in what share of the worlds
``game.determinize(0, rng)`` samples is it true?

``determinize`` deals the cards the seat has not seen uniformly among the deals consistent with
what it has seen (DI rules: the face-down cards of a claim are not seen), so in a sampled world the
claimed cards are random unseen cards; the rule-based agents, however, claim truthfully whenever
they can. The gap between the two rates is what a search over such worlds acts on.

    python -m rummy_env.experiments.studies.measure_claim_truth --games 20 --worlds 50 \\
        --out docs/results/search/i_doubt_it_claim_truth.json

It also reports the same share in worlds dealt with the belief that a player tells the truth
when it can (``determinize(..., truthful_claim=True)``, pimc's ``claims=truthful``).

A one-off study, kept in ``experiments/studies/`` and left out of the wheel: run it from a
repository checkout (``pip install -e .``) as ``python -m
rummy_env.experiments.studies.measure_claim_truth``. It produced
``docs/results/search/i_doubt_it_claim_truth.json``; its results record the command line it had
before it moved here.
"""
from __future__ import annotations

import argparse
import os

import numpy as np

from rummy_env.agents.registry import make_agent
from rummy_env.registry import make_raw_env

from .. import io


def claim_is_true(game) -> bool:
    """Whether every card of the pending claim has the claimed rank (DI-20)."""
    return all(c % 13 == game.claim_rank for c in game.pile[-game.pending_k:])


def rule_based_turns(env, seed: int):
    """Deal ``seed`` in the raw I Doubt It ``env`` and yield ``(seat, its rule-based agent)`` at
    every decision until the game ends; the caller steps ``env.game``."""
    env.reset(seed=seed)
    agents = [make_agent("heuristic", "i_doubt_it") for _ in env.possible_agents]
    for seat, agent in enumerate(agents):
        agent.reset(seat, seed)
    while not env.game.done:
        seat = env.game.current_player
        yield seat, agents[seat]


def measure(games: int, worlds: int, first_seed: int, num_players: int = 4) -> dict:
    """Per doubt decision of seat 0: the claim's truth and its truth rate over ``worlds`` sampled
    worlds; summarised overall and split by the real truth."""
    env = make_raw_env("i_doubt_it", num_players=num_players)
    rng = np.random.default_rng(first_seed)
    real, sampled, believed, doubted = [], [], [], []
    for seed in range(first_seed, first_seed + games):
        for seat, agent in rule_based_turns(env, seed):
            game = env.game
            mask = game.legal_mask().copy()
            view = game.view(seat)
            action = int(agent.act(game.observation(seat), mask, view))
            if seat == 0 and view["phase"] == "doubt" and np.count_nonzero(mask) > 1:
                real.append(claim_is_true(game))
                sampled.append(np.mean([claim_is_true(game.determinize(0, rng)) for _ in range(worlds)]))
                believed.append(np.mean([claim_is_true(game.determinize(0, rng, truthful_claim=True))
                                         for _ in range(worlds)]))
                doubted.append(game.action_to_text(action) == "doubt")
            game.step(action)
    real, sampled, believed, doubted = np.array(real), np.array(sampled), np.array(believed), np.array(doubted)
    return {"games": games, "num_players": num_players, "first_seed": first_seed, "worlds_per_decision": worlds,
            "doubt_decisions": len(real), "claims_true": float(real.mean()),
            "sampled_worlds_claim_true": float(sampled.mean()),
            "sampled_worlds_claim_true_when_true": float(sampled[real].mean()),
            "sampled_worlds_claim_true_when_false": float(sampled[~real].mean()),
            "truthful_belief_worlds_claim_true": float(believed.mean()),
            "truthful_belief_worlds_claim_true_when_true": float(believed[real].mean()),
            "truthful_belief_worlds_claim_true_when_false": float(believed[~real].mean()),
            "rule_based_doubts": float(doubted.mean()),
            "rule_based_doubts_that_were_right": float((~real[doubted]).mean()) if doubted.any() else None}


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``python -m rummy_env.experiments.studies.measure_claim_truth``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="rule-based games")
    parser.add_argument("--worlds", type=int, default=50, help="sampled worlds per doubt decision")
    parser.add_argument("--seed", type=int, default=500000, help="first deal seed")
    parser.add_argument("--out", default="runs/i_doubt_it_claim_truth.json")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    result = measure(args.games, args.worlds, args.seed)
    for key, value in result.items():
        print(f"{key:40s} {value}")
    io.write_json(args.out, {**result, "load_average_1min_at_end": os.getloadavg()[0], **io.provenance()})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
