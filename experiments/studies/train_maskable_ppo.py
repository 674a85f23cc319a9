"""Example: sb3-contrib's MaskablePPO on a game through the Gymnasium wrapper.

    .venv/bin/python -m rummy_env.experiments.studies.train_maskable_ppo --game rummy --opt reward_mode=win_loss \\
        --opt max_rounds=1 --timesteps 20000 --eval-episodes 100

:class:`rummy_env.gym_wrapper.SingleAgentEnv` makes one seat (``--seat``, default drawn per episode)
the learner and lets random agents (or ``--opponent heuristic``) play the others; its
``action_masks()`` method is what ``MaskablePPO`` asks for, so no extra wrapper is needed. After
training, the greedy masked policy plays ``--eval-episodes`` episodes and the win share is printed
(1 for a sole best return, 1/k when k seats share it; 1/n is par). The result, the arguments
and :func:`rummy_env.experiments.io.provenance` (git commit, dirty flag, command line) go to ``--out``
(JSON, default ``runs/maskable_ppo_<game>_s<seed>.json``). ``--save`` writes sb3's zip.

A one-off study, kept in ``experiments/studies/`` and left out of the wheel: run it from a
repository checkout (``pip install -e .``) as ``python -m
rummy_env.experiments.studies.train_maskable_ppo``. It produced
``docs/results/maskable_ppo/rummy.json``; its results record the command line it had before it
moved here.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from rummy_env.agents.registry import make_agent
from rummy_env.experiments import io
from rummy_env.experiments.options import parse_env_options
from rummy_env.agents.base import win_credit
from rummy_env.gym_wrapper import SingleAgentEnv


def make_env(game: str, opponent: str, seat: str, options: dict) -> SingleAgentEnv:
    probe = SingleAgentEnv(game, **options)
    opponents = [make_agent(opponent, game) for _ in range(probe.num_players - 1)]
    return SingleAgentEnv(game, opponents=opponents, seat=seat if seat == "random" else int(seat), **options)


def evaluate(model, env: SingleAgentEnv, episodes: int, seed: int) -> tuple[float, float]:
    """(win share, mean return) of the greedy masked policy over ``episodes`` episodes."""
    shares, returns = [], []
    for k in range(episodes):
        obs, info = env.reset(seed=seed + k)
        done = False
        while not done:
            action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
            obs, _, terminated, truncated, info = env.step(int(action))
            done = terminated or truncated
        shares.append(win_credit(list(info["returns"]))[info["seat"]])
        returns.append(info["returns"][info["seat"]])
    return float(np.mean(shares)), float(np.mean(returns))


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``python -m rummy_env.experiments.studies.train_maskable_ppo``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="rummy")
    parser.add_argument("--opt", action="append", default=[], metavar="KEY=VALUE",
                        help="env option, repeatable (default reward_mode=win_loss max_rounds=1 for rummy)")
    parser.add_argument("--opponent", default="random", help="agent spec for the other seats")
    parser.add_argument("--seat", default="random")
    parser.add_argument("--timesteps", type=int, default=20_000)
    parser.add_argument("--n-steps", type=int, default=512, help="rollout length per update")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--eval-episodes", type=int, default=100)
    parser.add_argument("--save", default="", help="path of sb3's model zip (optional)")
    parser.add_argument("--out", default="", help="result JSON (default runs/maskable_ppo_<game>_s<seed>.json)")
    return parser


def main(argv: list[str] | None = None) -> dict:
    args = build_parser().parse_args(argv)

    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    options = parse_env_options(args.opt) if args.opt else (
        {"reward_mode": "win_loss", "max_rounds": 1} if args.game == "rummy" else {})
    env = make_env(args.game, args.opponent, args.seat, options)
    eval_env = make_env(args.game, args.opponent, args.seat, options)
    model = MaskablePPO("MlpPolicy", env, n_steps=args.n_steps, batch_size=min(64, args.n_steps),
                        seed=args.seed, device="cpu", verbose=0)
    before = evaluate(model, eval_env, args.eval_episodes, 10_000)
    start = time.perf_counter()
    model.learn(total_timesteps=args.timesteps)
    seconds = time.perf_counter() - start
    after = evaluate(model, eval_env, args.eval_episodes, 10_000)
    if args.save:
        model.save(args.save)
    result = {"game": args.game, "options": options, "opponent": args.opponent, "timesteps": args.timesteps,
              "seconds": round(seconds, 1), "eval_episodes": args.eval_episodes, "win_share_before": before[0],
              "win_share_after": after[0], "return_before": before[1], "return_after": after[1],
              "args": vars(args), **io.provenance()}
    io.write_json(args.out or f"runs/maskable_ppo_{args.game}_s{args.seed}.json", result)
    print(f"MaskablePPO {args.game} vs {args.opponent}: {args.timesteps} learner steps in {seconds:.0f}s; "
          f"greedy win share {before[0]:.3f} -> {after[0]:.3f}, mean return {before[1]:.3f} -> {after[1]:.3f} "
          f"over {args.eval_episodes} episodes")
    return result


if __name__ == "__main__":
    main()
