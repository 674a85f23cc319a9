"""Do a search agent's departures from the rule-based move help? Judged twice, by the model the
search plans with and by the real deal (issue 16; the game's scoring unit, e.g. one Tongits hand).

Positions come from games of rule-based agents (deal seeds ``seed``, ``seed + 1``, ...): each
decision with two or more legal actions is taken with probability ``sample``, and every spec
chooses there from the acting seat's information (a fresh agent, given its information state). Where
a spec's move differs from the rule-based agent's, both moves are scored by the seat's win credit (1
for the sole highest return from the decision on, split on ties, else 0), with the rule-based agent
in every seat after the move:

- **model gain**: the mean paired difference over ``worlds`` determinized worlds
  (``game.determinize(seat, rng)``: what the searches sample, hidden cards dealt uniformly);
- **true gain**: the difference in a copy of the real game. The rule-based agents are deterministic
  and the real game fixes the stock, so this is the move's real effect at that position.

A position where the spec plays the rule-based move adds 0 to both. The mean over all sampled
positions, with its standard error, is the gain per decision; every spec sees the same positions.
A search whose model gain is positive but whose true gain is not is exploiting what its worlds
get wrong (the real opponents' hands are not uniform given their play).

    python -m rummy_env.experiments.studies.decision_gain --game tongits --option hands_per_match=1 \\
        --specs pimc:24:screen=4,ismcts:300:rollout=heuristic:bias=1:preset=none --positions 400 --seed 510000 \\
        --out docs/results/search/decision_gain/tongits.json

A one-off study, kept in ``experiments/studies/`` and left out of the wheel: run it from a
repository checkout (``pip install -e .``) as ``python -m
rummy_env.experiments.studies.decision_gain``. It produced
``docs/results/search/decision_gain/tongits.json``, ``tongits_gate_1.json`` and
``tongits_gate_2.json``; its results record the command line it had before it moved here.
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

from rummy_env.agents.pimc import PIMCAgent
from rummy_env.agents.registry import check_agent_spec, heuristic_class, make_agent
from rummy_env.registry import make_raw_env

from .. import io
from ..options import add_option_argument, parse_env_options
from ..tournament import agent_move


def sampled_positions(game: str, options: dict, positions: int, seed: int, sample: float):
    """Yield the raw env at ``positions`` decisions (two or more legal actions) of rule-based games,
    each taken with probability ``sample``, with the acting seat's rule-based move; the caller must
    not step the env."""
    rng = np.random.default_rng(seed)
    taken, deal = 0, seed
    while taken < positions:
        env = make_raw_env(game, **options)
        env.reset(seed=deal)
        deal += 1
        rules = [heuristic_class(game)() for _ in env.possible_agents]
        for seat, agent in enumerate(rules):
            agent.reset(seat, deal)
        while not env.game.done and taken < positions:
            seat = env.game.current_player
            mask = env.game.legal_mask()
            rule = int(rules[seat].act(env.game.observation(seat), mask.copy(), env.game.view(seat)))
            if np.count_nonzero(mask) > 1 and rng.random() < sample:
                taken += 1
                yield env, rule
            env.game.step(rule)


def measure(game: str, options: dict, specs: list[str], positions: int, seed: int, worlds: int,
            sample: float) -> list[dict]:
    """Per spec: deviations from the rule-based move, model and true gain per decision (module
    docstring) and seconds per decision, over the same sampled positions."""
    rng = np.random.default_rng(seed + 1)
    model = {spec: [] for spec in specs}
    true = {spec: [] for spec in specs}
    seconds = {spec: 0.0 for spec in specs}
    deviations = {spec: 0 for spec in specs}
    for env, rule in sampled_positions(game, options, positions, seed, sample):
        real = env.game
        seat = real.current_player
        state = env.information_state(seat)
        referee = PIMCAgent(game, heuristic_class(game))   # its paired rule-based rollouts, scored by win credit
        referee.reset(seat, int(rng.integers(2**31)))
        referee.prepare(state)
        for spec in specs:
            agent = make_agent(spec, game, options)
            agent.reset(seat, int(rng.integers(2**31)))
            start = time.perf_counter()
            move = agent_move(agent, env, seat)
            seconds[spec] += time.perf_counter() - start
            if move == rule:
                model[spec].append(0.0)
                true[spec].append(0.0)
                continue
            deviations[spec] += 1
            values = referee._values(state, [[rule], [move]], worlds)
            model[spec].append(float((values[:, 1] - values[:, 0]).mean()))
            true[spec].append(referee._rollout(real.clone(), [move])[0] - referee._rollout(real.clone(), [rule])[0])
    rows = []
    for spec in specs:
        model_gain, true_gain = np.array(model[spec]), np.array(true[spec])
        rows.append({"spec": spec, "positions": len(model_gain),
                     "deviations": deviations[spec],
                     "model_gain": float(model_gain.mean()),
                     "model_gain_se": float(model_gain.std(ddof=1) / np.sqrt(len(model_gain))),
                     "true_gain": float(true_gain.mean()),
                     "true_gain_se": float(true_gain.std(ddof=1) / np.sqrt(len(true_gain))),
                     "s_per_decision": seconds[spec] / len(model_gain)})
    return rows


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``python -m rummy_env.experiments.studies.decision_gain``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", required=True)
    parser.add_argument("--specs", required=True, help="comma-separated agent specs")
    add_option_argument(parser)
    parser.add_argument("--positions", type=int, default=400)
    parser.add_argument("--seed", type=int, default=510000, help="first deal seed (and the samplers' seed)")
    parser.add_argument("--worlds", type=int, default=20, help="determinized worlds per model gain")
    parser.add_argument("--sample", type=float, default=0.3, help="probability of taking a decision")
    parser.add_argument("--out", default="runs/decision_gain.json")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    options = parse_env_options(args.option)
    specs = args.specs.split(",")
    for spec in specs:
        check_agent_spec(spec, args.game)
    rows = measure(args.game, options, specs, args.positions, args.seed, args.worlds, args.sample)
    for row in rows:
        print(row)
    io.write_json(args.out, {"game": args.game, "options": options, "seed": args.seed, "worlds": args.worlds,
                             "sample": args.sample, "results": rows,
                             "load_average_1min_at_end": os.getloadavg()[0], **io.provenance()})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
