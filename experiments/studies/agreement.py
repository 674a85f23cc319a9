"""How often policies pick the rule-based agent's action, by kind of decision, on fresh decisions.

    .venv/bin/python -m rummy_env.experiments.studies.agreement --game ginny_o --decisions 5000 --seed 999 \\
        --runs runs/ginny_o_flat_bc,runs/ginny_o_factored_bc --out docs/results/ginny_o_factored/agreement.json

The rule-based agent plays every seat (:func:`rummy_env.experiments.imitate.collect`, deals from
``--seed``); each run's ``policy.pt`` picks its masked arg-max on every decision. Per run: the
agreement overall, on the decisions with more than one legal action, and per kind (the first word of
the agent's action text: ``draw``, ``place``, ...). The JSON also holds each run's ``summary.json``
(its held-out agreement, times, command and commit; none for a run stopped early) and this command's
provenance. A residual policy (``--prior heuristic``) reads the rule-based move as its prior's.

``--ranks``: also, on ``--decisions`` decisions of fresh rule-based games (:func:`departure_ranks`),
where each run's move stands in the rule-based agent's own ranking (``ranked_actions``; Rummy and
Contract Rummy), per kind: how far a residual policy restricted to the agent's K best moves
(``--prior-candidates K``) could follow the run.

A one-off study, kept in ``experiments/studies/`` and left out of the wheel: run it from a
repository checkout (``pip install -e .``) as ``python -m rummy_env.experiments.studies.agreement``.
It produced ``docs/results/ginny_o_factored/agreement.json``; its results record the command line
it had before it moved here.
"""
from __future__ import annotations

import argparse
import json
import os

import numpy as np
import torch

from rummy_env.agents.policy_net import masked_logits, with_prior
from rummy_env.agents.registry import load_ppo_agent, make_agent
from rummy_env.experiments import io
from rummy_env.experiments.imitate import collect
from rummy_env.experiments.options import add_option_argument, parse_env_options
from rummy_env.registry import game_key, make_raw_env
from rummy_env.vector import VectorGames


def greedy_actions(net, obs: np.ndarray, mask: torch.Tensor, rule_actions: np.ndarray,
                   chunk: int = 1024) -> np.ndarray:
    """The masked arg-max of ``net`` on each row of ``obs`` (float16 observations); a network with a
    prior (the rule-based agent) reads ``rule_actions`` as its prior's moves."""
    if net.prior_candidates:
        raise ValueError(f"{net.name} plays only its prior's ranked candidates, which the collected "
                         "decisions do not record: agreement cannot score it")
    out = []
    with torch.no_grad():
        for j in range(0, len(obs), chunk):
            inputs = obs[j:j + chunk].astype(np.float32)
            if net.prior:
                inputs = with_prior(inputs, rule_actions[j:j + chunk])
            logits, _ = net(torch.from_numpy(inputs))
            out.append(masked_logits(logits, mask[j:j + chunk]).argmax(1).numpy())
    return np.concatenate(out)


def agreement(game: str, options: dict, runs: list[str], decisions: int, seed: int, num_envs: int) -> dict:
    """Per run: agreement with the rule-based agent overall, on non-forced decisions and by kind."""
    demos = collect(game, options, decisions, num_envs, seed, gamma=0.99, reward_scale=1.0)
    mask = demos.mask(np.arange(len(demos.action)))
    forced = mask.sum(1).numpy() == 1
    env = make_raw_env(game, **options)
    env.reset(seed=seed)  # the action texts need a game
    kind = np.array([env.action_to_text(int(a)).split()[0] for a in demos.action])
    results = {}
    for run in runs:
        net = load_ppo_agent(os.path.join(run, "policy.pt"), game).net
        same = greedy_actions(net, demos.obs, mask, demos.action) == demos.action
        summary, summary_path = None, os.path.join(run, "summary.json")  # (a run stopped by a timeout has none)
        if os.path.exists(summary_path):
            with open(summary_path) as f:
                summary = json.load(f)
        results[run] = {
            "agreement": round(float(same.mean()), 4),
            "agreement_not_forced": round(float(same[~forced].mean()), 4),
            "by_kind": {k: {"decisions": int((kind == k).sum()), "forced": round(float(forced[kind == k].mean()), 4),
                            "agreement": round(float(same[kind == k].mean()), 4)} for k in sorted(set(kind))},
            "training_summary": summary}
    return {"game": game, "options": options, "decisions": len(demos.action), "seed": seed,
            "forced_share": round(float(forced.mean()), 4), "runs": results}


def departure_ranks(game: str, options: dict, net, decisions: int, seed: int, num_envs: int) -> dict:
    """Per kind of the rule-based move: decisions, and how many of ``net``'s greedy moves are the
    rule-based agent's choice (rank 0), its second or third ranked move (1, 2), a later one ("3+"),
    or one it does not rank ("unranked"); the rule-based agent plays every seat, deals from ``seed``."""
    if net.prior:
        raise ValueError(f"{net.name} is a residual policy: rank a policy without a prior")
    vg = VectorGames(game, num_envs, seed, **options)
    agents = [[make_agent("heuristic", game) for _ in range(vg.num_players)] for _ in range(num_envs)]
    for i, row in enumerate(agents):
        for s, agent in enumerate(row):
            agent.reset(s, seed + i)
    env = make_raw_env(game, **options)
    env.reset(seed=seed)  # the action texts need a game
    counts: dict[str, dict[str, int]] = {}
    seen = 0
    while seen < decisions:
        obs, mask, seat = vg.observe()
        ranked = [agents[i][s].ranked_actions(obs[i], mask[i].copy(), vg.games[i].view(s)).tolist()
                  for i, s in enumerate(seat.tolist())]
        chosen = net.act(obs.astype(np.float32), mask, greedy=True)
        for order, move in zip(ranked, chosen.tolist()):
            rank = order.index(move) if move in order else -1
            kind = counts.setdefault(env.action_to_text(order[0]).split()[0], {})
            key = "unranked" if rank < 0 else str(rank) if rank < 3 else "3+"
            kind[key] = kind.get(key, 0) + 1
            kind["decisions"] = kind.get("decisions", 0) + 1
        seen += len(ranked)
        result = vg.step(np.array([order[0] for order in ranked]))
        for i in np.flatnonzero(result.done):
            for s, agent in enumerate(agents[i]):
                agent.reset(s, seed + seen + i)
    return {k: counts[k] for k in sorted(counts)}


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``python -m rummy_env.experiments.studies.agreement``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", required=True, help="game name")
    add_option_argument(parser, dest="opt")
    parser.add_argument("--runs", required=True, help="comma-separated run folders (each with policy.pt, and summary.json when the run finished)")
    parser.add_argument("--decisions", type=int, default=5000, help="fresh rule-based decisions to compare on")
    parser.add_argument("--seed", type=int, default=999, help="seed of the deals (use one not used in training)")
    parser.add_argument("--num-envs", type=int, default=32, help="games played side by side while collecting")
    parser.add_argument("--ranks", action="store_true",
                        help="also: where each run's move stands in the rule-based agent's ranking, by kind")
    parser.add_argument("--out", default="", help="also write the result, with git commit and command line, here")
    return parser


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    torch.set_num_threads(1)
    result = agreement(game_key(args.game), parse_env_options(args.opt), args.runs.split(","), args.decisions,
                       args.seed, args.num_envs)
    if args.ranks:
        for run, row in result["runs"].items():
            net = load_ppo_agent(os.path.join(run, "policy.pt"), result["game"]).net
            row["ranks"] = departure_ranks(result["game"], result["options"], net, args.decisions, args.seed,
                                           args.num_envs)
    print(json.dumps({run: {k: v for k, v in r.items() if k != "training_summary"}
                      for run, r in result["runs"].items()}, indent=1))
    if args.out:
        io.write_json(args.out, {**result, **io.provenance()})


if __name__ == "__main__":
    main()
