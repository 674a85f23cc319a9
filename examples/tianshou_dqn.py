"""Tianshou DQN at seat player_0 against random seats, through Tianshou's ``PettingZooEnv`` and the
credit wrapper ``rummy_env.wrappers.CreditOnTurn``.

    python examples/tianshou_dqn.py --game tongits --steps 30000 --eval-games 400

Tianshou credits an agent with ``env.rewards[agent]`` read right after its own step;
``CreditOnTurn`` moves the rewards paid on other seats' moves onto those steps. What it cannot
move: when the episode ends on another seat's move, Tianshou files the last rewards under that
seat's transition, so the learner never sees its final payment of such episodes.
"""
from __future__ import annotations

import time

import numpy as np
import torch
from tianshou.algorithm import DQN
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
from tianshou.data import Batch, Collector, VectorReplayBuffer
from tianshou.env import DummyVectorEnv, PettingZooEnv
from tianshou.utils.net.common import Net
from tianshou.utils.torch_utils import policy_within_training_step, torch_train_mode

from common import OPTIONS, parse_args, report
from rummy_env.registry import make_env
from rummy_env.wrappers import CreditOnTurn

COLLECT_STEPS = 200
"""Env steps (all seats) between updates."""
UPDATES = 20
"""Gradient steps after each collection."""


def main() -> None:
    args = parse_args(__doc__.splitlines()[0], steps=30_000)
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)

    def make():
        return PettingZooEnv(CreditOnTurn(make_env(args.game, **OPTIONS[args.game])))

    env = make()
    obs_size = env.observation_space["observation"].shape[0]
    net = Net(state_shape=obs_size, action_shape=env.action_space.n, hidden_sizes=[256, 256])
    learner = DQN(policy=DiscreteQLearningPolicy(model=net, action_space=env.action_space, eps_training=0.2),
                  optim=AdamOptimizerFactory(lr=1e-3), gamma=0.95, n_step_return_horizon=1,
                  target_update_freq=200)
    opponents = [MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space) for _ in env.agents[1:]]
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=[learner, *opponents], env=env)
    train_envs = DummyVectorEnv([make])
    train_envs.seed(args.seed)
    buffer = VectorReplayBuffer(50_000, 1)
    collector = Collector(algorithm, train_envs, buffer, exploration_noise=True)
    collector.reset()
    start = time.process_time()
    collected = 0
    with policy_within_training_step(algorithm.policy), torch_train_mode(algorithm.policy):
        while collected < args.steps:
            collector.collect(n_step=COLLECT_STEPS)
            collected += COLLECT_STEPS
            for _ in range(UPDATES):
                algorithm.update(buffer=buffer, sample_size=64)
    train_seconds = time.process_time() - start
    policy = learner.policy
    policy.eval()

    def act(obs, mask):
        batch = Batch(obs=Batch(obs=obs[None], mask=mask[None].astype(bool)), info=Batch())
        with torch.no_grad():
            return int(policy(batch).act[0])

    report(args, "Tianshou DQN (PettingZooEnv + CreditOnTurn)", act, train_seconds, seat=0)


if __name__ == "__main__":
    main()
