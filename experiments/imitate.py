"""Behaviour cloning: a policy network learns to play like the game's rule-based agent.

    .venv/bin/python -m rummy_env.experiments.imitate --game rummy --option reward_mode=win_loss --option max_rounds=1 \\
        --decisions 300000 --run-dir runs/rummy_bc

The warm start of a PPO run (``experiments/train_ppo.py --init-from runs/rummy_bc/policy.pt``):

1. **Collect.** ``num_envs`` games (:class:`rummy_env.vector.VectorGames`) with every seat played by
   ``agents/heuristic_<game>.py``, which reads each seat's public view only. Every decision of every
   seat is a sample: the acting seat's observation, its action mask and the agent's action, plus
   the value target, the seat's discounted return from that decision on (its rewards summed
   between its own decisions, discounted by ``--gamma`` per decision: the return PPO's value head
   estimates with the same ``--gamma``; rewards are multiplied by ``--reward-scale`` as in PPO).
   Only finished episodes are kept.
2. **Fit.** A :class:`rummy_env.agents.policy_net.PolicyNet` (the network PPO trains) minimises the masked
   cross-entropy of the agent's action (:func:`rummy_env.agents.policy_net.masked_distribution`, the same
   masking as PPO) plus ``--vf-coef`` times the value error, with Adam over ``--epochs`` passes.
   ``--val-fraction`` of the episodes are held out (none: those columns are NaN): ``bc.csv`` logs, per epoch, the training loss
   and on the held-out decisions the cross-entropy, the agreement of the arg-max action with the
   agent's (accuracy) and the value error.
3. **DAgger** (``--dagger-rounds R``, optional): R times, collect ``--dagger-decisions`` more
   decisions with one seat per episode played by the network itself (sampling from its masked
   policy) while every decision is still labelled with the rule-based agent's choice, then fit
   ``--dagger-epochs`` more passes over everything collected so far. Plain cloning learns only the
   states the rule-based agent reaches; a clone's own mistakes lead it elsewhere, and DAgger adds
   those states with the right answers.
4. **Write** ``policy.pt`` (the format :func:`rummy_env.agents.registry.load_ppo_agent` and ``--init-from``
   read) and ``bc.csv``, atomically, and print a JSON summary (also ``summary.json``, with the
   git commit, dirty flag and command line of :func:`rummy_env.experiments.io.provenance`).

Observations are stored as float16 and masks as packed bits, so a million Rummy decisions take
about 2.8 GB. Seeding: ``--seed`` fixes the deals, the agents, the held-out split and torch.
"""
from __future__ import annotations

import dataclasses
import functools
import json
import os
import sys
import time
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import torch

from rummy_env.agents.policy_net import masked_distribution, masked_logits
from rummy_env.agents.registry import make_agent, policy_for_game
from rummy_env.registry import game_key
from rummy_env.vector import VectorGames
from rummy_env.experiments import io
from rummy_env.experiments.checkpoints import atomic_torch_save, policy_record
from rummy_env.experiments.dataclass_args import FitArgs, dataclass_parser, parse_dataclass
from rummy_env.experiments.options import parse_env_options


@dataclass
class Args(FitArgs):
    RUN_KIND: ClassVar[str] = "bc"
    POSITIVE: ClassVar[tuple[str, ...]] = FitArgs.POSITIVE + ("decisions", "num_envs")
    seed: int = 1
    """seed of the deals, the agents, the held-out split and torch"""
    run_dir: str = ""
    """output folder; none means runs/<game>_bc_s<seed>"""
    decisions: int = 200_000
    """decisions to collect (whole episodes: collection stops at the first episode end past this)"""
    num_envs: int = 64
    """games played side by side while collecting"""
    gamma: float = 0.99
    """discount per decision of the value targets"""
    dagger_rounds: int = 0
    """after the first fit: rounds of DAgger (collect with the network in one seat, refit on everything)"""
    dagger_decisions: int = 100_000
    """decisions collected per DAgger round"""
    dagger_epochs: int = 2
    """epochs over all decisions so far after each DAgger round"""


def build_parser():
    """The parser of ``rummy-env imitate`` / ``python -m rummy_env.experiments.imitate``."""
    return dataclass_parser(Args, __doc__)


def parse_args(argv: list[str] | None = None) -> Args:
    return parse_dataclass(Args, argv, __doc__)


@dataclass
class Demonstrations:
    """One row per decision; ``episode`` numbers the finished episodes in the order they ended."""

    obs: np.ndarray       # (D, obs_size) float16
    mask_bits: np.ndarray  # (D, ceil(num_actions / 8)) uint8, np.packbits of the mask
    action: np.ndarray    # (D,) int64
    value: np.ndarray     # (D,) float32 discounted return of the acting seat from this decision
    episode: np.ndarray   # (D,) int64
    num_actions: int

    def mask(self, rows: np.ndarray) -> torch.Tensor:
        bits = np.unpackbits(self.mask_bits[rows], axis=1, count=self.num_actions)
        return torch.from_numpy(bits.view(np.bool_))

    def __add__(self, other: "Demonstrations") -> "Demonstrations":
        """Both sets of decisions; ``other``'s episodes are numbered after this one's."""
        return Demonstrations(np.concatenate([self.obs, other.obs]), np.concatenate([self.mask_bits, other.mask_bits]),
                              np.concatenate([self.action, other.action]), np.concatenate([self.value, other.value]),
                              np.concatenate([self.episode, other.episode + int(self.episode.max()) + 1]),
                              self.num_actions)


def collect(game: str, options: dict, decisions: int, num_envs: int, seed: int, gamma: float,
            reward_scale: float, policy=None) -> Demonstrations:
    """Rule-based self-play until ``decisions`` decisions of finished episodes are recorded.

    With ``policy`` (``policy(obs, mask) -> actions``, batched numpy) one seat per episode, drawn
    at random, plays the policy's actions instead (DAgger): its decisions are still labelled with
    the rule-based agent's choice, so the data covers the states the policy itself reaches."""
    vg = VectorGames(game, num_envs, seed, **options)
    n = vg.num_players
    seeds = np.random.default_rng([seed, 31337])
    agents = [[make_agent("heuristic", game) for _ in range(n)] for _ in range(num_envs)]
    played = np.full(num_envs, -1)
    # Per game, the running episode: its decisions (observation, packed mask, action, seat) in order;
    # per seat the reward received after each of its decisions (rewards before its first go to the first).
    running: list[list[tuple]] = [[] for _ in range(num_envs)]
    seat_rewards: list[list[list[float]]] = [[] for _ in range(num_envs)]
    early = np.zeros((num_envs, n))

    def new_episode(i: int) -> None:
        for s, agent in enumerate(agents[i]):
            agent.reset(s, int(seeds.integers(2**63 - 1)))
        if policy is not None:
            played[i] = int(seeds.integers(n))
        running[i] = []
        seat_rewards[i] = [[] for _ in range(n)]
        early[i] = 0.0

    for i in range(num_envs):
        new_episode(i)
    obs_l, bits_l, act_l, val_l, ep_l = [], [], [], [], []
    episodes = 0
    while len(act_l) < decisions:
        obs, mask, seat = vg.observe()
        seats = seat.tolist()
        labels = np.array([agents[i][s].act(obs[i], mask[i], vg.games[i].view(s))
                           for i, s in enumerate(seats)], np.int64)
        for i, s in enumerate(seats):
            running[i].append((obs[i].astype(np.float16), np.packbits(mask[i].view(np.bool_)), labels[i], s))
            seat_rewards[i][s].append(0.0)
        actions = labels
        if policy is not None:
            mine = np.flatnonzero(seat == played)
            if mine.size:
                actions = labels.copy()
                actions[mine] = policy(obs[mine], mask[mine])
        result = vg.step(actions)
        for i in range(num_envs):
            for s in range(n):
                r = float(result.rewards[i, s]) * reward_scale
                if seat_rewards[i][s]:
                    seat_rewards[i][s][-1] += r
                else:
                    early[i, s] += r
            if not result.done[i]:
                continue
            returns = []  # per seat, its discounted returns in decision order
            for s in range(n):
                rewards = seat_rewards[i][s]
                if rewards:
                    rewards[0] += early[i, s]
                ret, out = 0.0, []
                for r in reversed(rewards):
                    ret = r + gamma * ret
                    out.append(ret)
                returns.append(out[::-1])
            nth = [0] * n
            for o, bits, a, s in running[i]:
                obs_l.append(o)
                bits_l.append(bits)
                act_l.append(a)
                val_l.append(returns[s][nth[s]])
                ep_l.append(episodes)
                nth[s] += 1
            episodes += 1
            new_episode(i)
    return Demonstrations(np.stack(obs_l), np.stack(bits_l), np.array(act_l, np.int64),
                          np.array(val_l, np.float32), np.array(ep_l, np.int64), vg.num_actions)


def fit(net, demos: Demonstrations, args: Args, epochs: int, round_: int, log) -> list[dict]:
    """Masked cross-entropy + value regression on all but the held-out episodes, ``epochs`` passes
    with the learning rate decaying linearly to 0; one row per epoch."""
    rng = np.random.default_rng([args.seed, 271828])
    num_episodes = int(demos.episode.max()) + 1
    held_out = rng.random(num_episodes) < args.val_fraction
    val_rows = np.flatnonzero(held_out[demos.episode])
    train_rows = np.flatnonzero(~held_out[demos.episode])
    optimizer = torch.optim.Adam(net.parameters(), lr=args.learning_rate)
    obs = torch.from_numpy(demos.obs)
    actions = torch.from_numpy(demos.action)
    values = torch.from_numpy(demos.value)

    def losses(rows: np.ndarray):
        logits, value = net(obs[rows].float())
        mask = demos.mask(rows)
        policy_loss = -masked_distribution(logits, mask).log_prob(actions[rows]).mean()
        value_loss = 0.5 * ((value - values[rows]) ** 2).mean()
        return policy_loss, value_loss, logits, mask

    history = []
    for epoch in range(1, epochs + 1):
        start = time.perf_counter()
        order = rng.permutation(train_rows)
        batches = [order[j:j + args.batch_size] for j in range(0, len(order), args.batch_size)]
        total = 0.0
        for b, rows in enumerate(batches):
            done = ((epoch - 1) * len(batches) + b) / (epochs * len(batches))
            optimizer.param_groups[0]["lr"] = args.learning_rate * (1.0 - done)
            policy_loss, value_loss, _, _ = losses(rows)
            loss = policy_loss + args.vf_coef * value_loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(rows)
        with torch.no_grad():
            stats = np.zeros(4)
            for j in range(0, len(val_rows), 4096):
                rows = val_rows[j:j + 4096]
                policy_loss, value_loss, logits, mask = losses(rows)
                agree = masked_logits(logits, mask).argmax(1) == actions[rows]
                stats += [policy_loss.item() * len(rows), value_loss.item() * len(rows),
                          agree.float().sum().item(), len(rows)]
        row = {"round": round_, "epoch": epoch, "decisions": len(demos.action), "train_loss": round(total / len(train_rows), 5),
               **dict(zip(("val_cross_entropy", "val_value_loss", "val_accuracy"),
                          np.round(stats[:3] / stats[3], 5).tolist() if stats[3] else [float("nan")] * 3)),
               "seconds": round(time.perf_counter() - start, 1)}
        history.append(row)
        log(json.dumps(row))
    return history


def imitate(args: Args) -> dict:
    """Collect, fit and write (module docstring); returns the summary."""
    torch.set_num_threads(args.torch_threads)
    torch.manual_seed(args.seed)
    key = game_key(args.game)
    run_dir = args.output_dir()
    options = parse_env_options(args.opt)
    start = time.perf_counter()
    demos = collect(key, options, args.decisions, args.num_envs, args.seed, args.gamma, args.reward_scale)
    collect_s = time.perf_counter() - start
    log = functools.partial(print, flush=True)
    log(json.dumps({"round": 0, "decisions": len(demos.action), "episodes": int(demos.episode.max()) + 1,
                    "collect_s": round(collect_s, 1)}))
    net = policy_for_game(key, demos.obs.shape[1], demos.num_actions, args.hidden, args.conv_channels, args.head,
                          args.factor_dim)
    net.name = f"{key} imitation run {run_dir}"
    history = fit(net, demos, args, args.epochs, 0, log)
    generator = torch.Generator().manual_seed(args.seed)
    for r in range(1, args.dagger_rounds + 1):
        t = time.perf_counter()
        demos = demos + collect(key, options, args.dagger_decisions, args.num_envs, args.seed + 7919 * r, args.gamma,
                                args.reward_scale, policy=lambda o, m: net.act(o, m, generator=generator))
        collect_s += time.perf_counter() - t
        log(json.dumps({"round": r, "decisions": len(demos.action), "collect_s": round(collect_s, 1)}))
        history += fit(net, demos, args, args.dagger_epochs, r, log)
    fit_s = time.perf_counter() - start - collect_s
    atomic_torch_save(policy_record(net, key, options, update=0, global_step=0, imitation=dataclasses.asdict(args)),
                      os.path.join(run_dir, "policy.pt"))
    io.write_csv(os.path.join(run_dir, "bc.csv"), history, list(history[0]))
    summary = {"game": key, "options": options, "decisions": len(demos.action),
               "episodes": int(demos.episode.max()) + 1, "collect_s": round(collect_s, 1),
               "fit_s": round(fit_s, 1), **{k: v for k, v in history[-1].items() if k.startswith("val_")},
               "args": dataclasses.asdict(args), **io.provenance()}
    io.write_json(os.path.join(run_dir, "summary.json"), summary)
    print(json.dumps({k: v for k, v in summary.items() if k not in ("args", "command")}))
    return summary


def main(argv: list[str] | None = None) -> None:
    imitate(parse_args(argv))


if __name__ == "__main__":  # runs as `rummy-env imitate`
    from rummy_env.experiments.cli import run_as_command
    sys.exit(run_as_command("imitate"))
