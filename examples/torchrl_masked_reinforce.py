"""TorchRL: a masked actor at seat player_0 and random masked actors at the other seats, driven by a
``Collector`` over TorchRL's ``PettingZooWrapper(use_mask=True)``, trained by REINFORCE.

    python examples/torchrl_masked_reinforce.py --game tongits --steps 30000 --eval-games 400

TorchRL's default random policy samples from the action spec, not from the mask, and plays
illegal moves; the actors here sample from ``MaskedCategorical`` over each group's
``action_mask``. Every seat is its own group (``player_0``, ...). The learner's return-to-go sums
all of its rewards, those paid on other seats' moves included, so nothing needs re-crediting.
"""
from __future__ import annotations

import time

import torch
from tensordict.nn import TensorDictModule, TensorDictSequential
from torch import nn
from torchrl.collectors import Collector
from torchrl.envs.libs.pettingzoo import PettingZooWrapper
from torchrl.modules import MaskedCategorical, ProbabilisticActor

from common import OPTIONS, parse_args, report
from rummy_env.registry import make_env

LEARNER = "player_0"
FRAMES_PER_BATCH = 250
"""Env steps (all seats) per policy update."""
ENTROPY_BONUS = 0.01


class UniformLogits(nn.Module):
    """Zero logits over the actions: uniform among the legal ones once masked."""

    def forward(self, mask: torch.Tensor) -> torch.Tensor:
        return torch.zeros(mask.shape)


def masked_actor(group: str, logits: nn.Module, in_key) -> ProbabilisticActor:
    """Samples ``(group, "action")`` from ``MaskedCategorical(logits, mask=(group, "action_mask"))``."""
    return ProbabilisticActor(
        TensorDictModule(logits, in_keys=[in_key], out_keys=[(group, "logits")]),
        in_keys={"logits": (group, "logits"), "mask": (group, "action_mask")},
        out_keys=[(group, "action")], distribution_class=MaskedCategorical, return_log_prob=False)


def returns_to_go(reward: torch.Tensor, done: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Undiscounted return-to-go of each step within its episode, and which steps have their
    episode's end inside the batch (the others' returns are unknown)."""
    to_go = torch.zeros_like(reward)
    known = torch.zeros_like(done)
    running, seen_end = 0.0, False
    for t in range(reward.shape[0] - 1, -1, -1):
        if done[t]:
            running, seen_end = 0.0, True
        running += float(reward[t])
        to_go[t], known[t] = running, seen_end
    return to_go, known


def main() -> None:
    args = parse_args(__doc__.splitlines()[0], steps=30_000)
    torch.manual_seed(args.seed)

    def make():
        return PettingZooWrapper(make_env(args.game, **OPTIONS[args.game]), use_mask=True, seed=args.seed)

    probe = make()
    obs_size = probe.observation_spec[LEARNER, "observation", "observation"].shape[-1]
    num_actions = probe.full_action_spec[LEARNER, "action"].space.n
    net = nn.Sequential(nn.Linear(obs_size, 256), nn.Tanh(), nn.Linear(256, 256), nn.Tanh(),
                        nn.Linear(256, num_actions))
    learner = masked_actor(LEARNER, net, (LEARNER, "observation", "observation"))
    opponents = [masked_actor(g, UniformLogits(), (g, "action_mask")) for g in probe.group_map if g != LEARNER]
    policy = TensorDictSequential(learner, *opponents)
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    collector = Collector(make, policy, frames_per_batch=FRAMES_PER_BATCH, total_frames=args.steps,
                                  auto_register_policy_transforms=False)
    start = time.process_time()
    for batch in collector:
        reward = batch["next", LEARNER, "reward"].reshape(-1)
        to_go, known = returns_to_go(reward, batch["next", "done"].reshape(-1))
        acting = batch[LEARNER, "mask"].reshape(-1) & known
        if acting.sum() < 2:
            continue
        steps = batch[acting]
        dist = MaskedCategorical(logits=net(steps[LEARNER, "observation", "observation"].squeeze(1)),
                                 mask=steps[LEARNER, "action_mask"].squeeze(1))
        advantage = to_go[acting] - to_go[acting].mean()
        advantage = advantage / (advantage.std() + 1e-8)
        log_prob = dist.log_prob(steps[LEARNER, "action"].reshape(-1))
        loss = -(log_prob * advantage).mean() - ENTROPY_BONUS * dist.entropy().mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        collector.update_policy_weights_()
    collector.shutdown()
    train_seconds = time.process_time() - start

    def act(obs, mask):
        with torch.no_grad():
            logits = net(torch.as_tensor(obs)).masked_fill(~torch.as_tensor(mask, dtype=torch.bool), -torch.inf)
        return int(logits.argmax())

    report(args, "TorchRL masked actor + Collector (REINFORCE)", act, train_seconds, seat=0)


if __name__ == "__main__":
    main()
