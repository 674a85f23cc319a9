"""What a search budget costs in the three long games (issue 16): Contract Rummy (one deal),
I Doubt It and Ginny-O (whole games). With the rule-based agent in every seat: steps per game,
decisions per game of seat 0 (all, and those with two or more legal actions: the ones pimc
searches) and seconds per step (choosing and stepping, view included); then seconds and rollouts
per searched decision of the truncated-rollout ``pimc`` specs (:func:`measure_ismcts.measure`,
one seat searching, on each game's scoring unit with the reward mode its PPO value head learned);
and how well that value head predicts seat 0's return in the same rule-based games.

    python -m rummy_env.experiments.studies.measure_long_games --games 10 \
        --out docs/results/search/long_games_cost.json

``--only GAME --value PATH --specs A,B`` measures one game, calibrates the value head of the policy
checkpoint at ``PATH`` instead of the committed one, and times the given specs.

A one-off study, kept in ``experiments/studies/`` and left out of the wheel: run it from a
repository checkout (``pip install -e .``) as ``python -m
rummy_env.experiments.studies.measure_long_games``. It produced
``docs/results/search/long_games_cost.json``; its results record the command line it had before it
moved here.
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

from rummy_env.agents.registry import make_agent
from rummy_env.registry import make_raw_env

from .. import io
from .measure_ismcts import measure

# Each game's scoring unit, with the reward_mode of its committed PPO checkpoint (the default one
# except Contract Rummy's, trained with win_loss: the same winners as points, another return).
VALUE_UNITS = {
    "contract_rummy": {"deals": [1], "reward_mode": "win_loss"},
    "i_doubt_it": {},
    "ginny_o": {},
}
SPECS = {
    "contract_rummy": ["pimc:4:screen=1:candidates=3:value=ppo:depth=4:preset=none",
                       "pimc:4:screen=1:candidates=3:value=ppo:depth=4:base=ppo:preset=none"],
    "i_doubt_it": ["pimc:4:screen=1:candidates=3:value=ppo:depth=2:preset=none",
                   "pimc:4:screen=1:candidates=3:value=ppo:depth=4:preset=none"],
    "ginny_o": ["pimc:4:screen=1:candidates=3:value=ppo:depth=1:preset=none",
                "pimc:4:screen=1:candidates=3:value=ppo:depth=4:preset=none"],
}


def rule_based_cost(game: str, games: int, first_seed: int) -> dict:
    """Steps, seat-0 decisions and seconds per step over ``games`` rule-based games."""
    env = make_raw_env(game, **VALUE_UNITS[game])
    steps = decisions = searched = 0
    seconds = 0.0
    for seed in range(first_seed, first_seed + games):
        env.reset(seed=seed)
        game_state = env.game
        agents = [make_agent("heuristic", game) for _ in env.possible_agents]
        for seat, agent in enumerate(agents):
            agent.reset(seat, seed)
        start = time.perf_counter()
        while not game_state.done:
            seat = game_state.current_player
            mask = game_state.legal_mask()
            if seat == 0:
                decisions += 1
                searched += np.count_nonzero(mask) > 1
            game_state.step(int(agents[seat].act(game_state.observation(seat), mask.copy(), game_state.view(seat))))
            steps += 1
        seconds += time.perf_counter() - start
    return {"game": game, "options": VALUE_UNITS[game], "games": games, "first_seed": first_seed,
            "steps_per_game": steps / games, "seat0_decisions_per_game": decisions / games,
            "seat0_searched_decisions_per_game": searched / games, "seconds_per_step": seconds / steps,
            "seconds_per_game": seconds / games}


def value_calibration(game: str, games: int, first_seed: int, path: str | None = None) -> dict:
    """How well a value head (the committed PPO policy's, or that of the checkpoint at ``path``)
    predicts seat 0's episode return in rule-based games: its estimate on seat 0's observation at
    each of its decisions against the return it then got (correlation, mean squared error, and the
    squared error of always predicting the mean)."""
    import torch

    from rummy_env.agents.cutoff_value import ESTIMATES
    from rummy_env.agents.policy_checkpoint import committed_checkpoint
    from rummy_env.agents.registry import heuristic_class, load_ppo_agent
    path = committed_checkpoint(game) if path is None else path
    if path in ESTIMATES and ESTIMATES[path][0] != game:
        raise ValueError(f"--value {path} is {ESTIMATES[path][0]}'s estimate, not one for {game}")
    position_value = heuristic_class(game).position_value if path in ESTIMATES else None
    net = None if position_value else load_ppo_agent(path, game, options=VALUE_UNITS[game]).net
    env = make_raw_env(game, **VALUE_UNITS[game])
    estimates, outcomes = [], []
    for seed in range(first_seed, first_seed + games):
        env.reset(seed=seed)
        agents = [make_agent("heuristic", game) for _ in env.possible_agents]
        for seat, agent in enumerate(agents):
            agent.reset(seat, seed)
        observations, episode_return = [], 0.0
        while not env.game.done:
            seat = env.game.current_player
            if seat == 0:
                observations.append(position_value(env.game, 0) if net is None else env.game.observation(0))
            rewards = env.game.step(int(agents[seat].act(env.game.observation(seat), env.game.legal_mask().copy(),
                                                         env.game.view(seat))))
            if rewards is not None:
                episode_return += float(rewards[0])
        if net is None:
            estimates += observations
        else:
            with torch.inference_mode():
                estimates += net.value(torch.as_tensor(np.stack(observations))).tolist()
        outcomes += [episode_return] * len(observations)
    estimates, outcomes = np.array(estimates), np.array(outcomes)
    return {"game": game, "checkpoint": path, "games": games, "first_seed": first_seed, "decisions": len(outcomes),
            "correlation": float(np.corrcoef(estimates, outcomes)[0, 1]),
            "mean_squared_error": float(np.mean((estimates - outcomes) ** 2)),
            "variance_of_return": float(np.var(outcomes)), "mean_estimate": float(estimates.mean()),
            "mean_return": float(outcomes.mean())}


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``python -m rummy_env.experiments.studies.measure_long_games``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10, help="rule-based games per game (cost of a step)")
    parser.add_argument("--seed", type=int, default=500000, help="first deal seed")
    parser.add_argument("--deals", type=int, default=2, help="deals per spec (search cost)")
    parser.add_argument("--decisions", type=int, default=20, help="searched decisions per deal")
    parser.add_argument("--only", choices=sorted(SPECS), help="measure this game only")
    parser.add_argument("--value", help="with --only: the policy checkpoint whose value head to calibrate "
                                        "(or a hand-written estimate: 'cards' in i_doubt_it, 'score' in ginny_o)")
    parser.add_argument("--specs", help="with --only: comma-separated pimc specs to time instead of the defaults")
    parser.add_argument("--out", default="runs/long_games_cost.json")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if (args.value or args.specs) and not args.only:
        parser.error("--value and --specs need --only GAME")
    plan = {args.only: args.specs.split(",") if args.specs else SPECS[args.only]} if args.only else SPECS
    costs, rates, values = [], [], []
    for game, specs in plan.items():
        value = value_calibration(game, args.games, args.seed, args.value)
        print(f"{game:15s} value head: correlation {value['correlation']:.3f} with the return, squared error "
              f"{value['mean_squared_error']:.3f} (variance {value['variance_of_return']:.3f})", flush=True)
        values.append(value)
        cost = rule_based_cost(game, args.games, args.seed)
        print(f"{game:15s} {cost['steps_per_game']:7.1f} steps/game {cost['seat0_searched_decisions_per_game']:6.1f} "
              f"searched decisions/game {1e3 * cost['seconds_per_step']:6.3f} ms/step", flush=True)
        costs.append(cost)
        for spec in specs:
            rate = measure(game, spec, args.deals, args.decisions, VALUE_UNITS[game])
            rate["seconds_per_decision"] = rate["seconds"] / rate["decisions"]
            print(f"{game:15s} {spec:50s} {rate['seconds_per_decision']:.4f} s/decision "
                  f"{rate['iterations_per_decision']:.1f} rollouts/decision", flush=True)
            rates.append(rate)
    io.write_json(args.out, {"rule_based": costs, "value_head": values, "search": rates, "load_average_1min_at_end": os.getloadavg()[0],
                             "cpu_count": os.cpu_count(), **io.provenance()})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
