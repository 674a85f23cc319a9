"""SB3 MaskablePPO through ``gymnasium.make``: one seat learns against random seats.

    python examples/sb3_maskable_ppo.py --game tongits --steps 30000 --eval-games 400
"""
from __future__ import annotations

import time

import gymnasium
from sb3_contrib import MaskablePPO

import rummy_env  # noqa: F401  (registers the rummy_env/<Name>-v0 ids)
from common import GYM_IDS, OPTIONS, parse_args, report


def main() -> None:
    args = parse_args(__doc__.splitlines()[0], steps=30_000)
    env = gymnasium.make(GYM_IDS[args.game], opponents="random", seat="random", **OPTIONS[args.game])
    env.reset(seed=args.seed)
    model = MaskablePPO("MlpPolicy", env, n_steps=min(1024, args.steps), batch_size=128, seed=args.seed)
    start = time.process_time()
    model.learn(total_timesteps=args.steps)
    train_seconds = time.process_time() - start

    def policy(obs, mask):
        return int(model.predict(obs, action_masks=mask.astype(bool), deterministic=True)[0])

    report(args, "stable-baselines3 MaskablePPO", policy, train_seconds)


if __name__ == "__main__":
    main()
