"""SuperSuit's observation wrappers on the ``action_mask="info"`` format: the observation is the bare
finite Box, so ``normalize_obs_v0`` (to [0, 1]) and ``frame_stack_v1`` apply; the mask stays in
``info["action_mask"]``. Plays random legal moves and prints what a learner would see.

    python examples/supersuit_wrappers.py --game tongits --steps 300
"""
from __future__ import annotations

import argparse

import numpy as np
import supersuit

from rummy_env.registry import GAMES, make_env


def wrapped_env(game: str, stack: int):
    """The game with the mask in infos, observations scaled to [0, 1] and the last ``stack`` stacked."""
    env = make_env(game, action_mask="info")
    env = supersuit.normalize_obs_v0(env, env_min=0.0, env_max=1.0)
    return supersuit.frame_stack_v1(env, stack_size=stack)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=sorted(GAMES), default="tongits")
    parser.add_argument("--steps", type=int, default=300, help="random moves to play")
    parser.add_argument("--stack", type=int, default=4, help="frames to stack")
    args = parser.parse_args()
    env = wrapped_env(args.game, args.stack)
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    space = env.observation_space(env.possible_agents[0])
    for step in range(args.steps):
        obs, _, terminated, truncated, info = env.last()
        if not space.contains(obs):
            raise SystemExit(f"step {step}: observation outside {space}")
        if terminated or truncated:
            env.step(None)
            if not env.agents:
                env.reset(seed=step)
            continue
        env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
    print(f"{args.game}: {args.steps} steps; observation {space.shape} in [{space.low.min()}, {space.high.max()}]")


if __name__ == "__main__":
    main()
