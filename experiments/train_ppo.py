"""PPO self-play for rummy_env games, CleanRL style: one file, read top to bottom.

    .venv/bin/python -m rummy_env.experiments.train_ppo --game rummy --option reward_mode=win_loss --option max_rounds=1 \\
        --total-timesteps 100000 --run-dir runs/rummy_ppo

* **Games** (:class:`Arena`): ``num_envs`` engines side by side (:class:`rummy_env.vector.VectorGames`).
  In each the learner holds one seat (``--seat``: a seat or ``random``, drawn per episode) and an
  opponent drawn per episode from ``--opponents`` holds the others (``pool`` = a past snapshot of
  the policy, ``heuristic`` = the game's rule-based agent, ``random``). The opponents play between
  two learner turns; the learner's transition reward is its rewards summed over that stretch, so the
  rollout is CleanRL's (num_steps, num_envs) grid (:mod:`rummy_env.experiments.rollout`; with
  ``--rollout-workers W`` the games are W shards collected at once by W processes, a core each,
  the update staying here). An episode end (normal or by a cap) is terminal;
  with ``--return-per-deal`` every deal's (round's, hand's) end is too, so in a game of several
  deals an action's return is its own deal's. ``--learner-reward`` pays the learner its reward
  minus the others' mean (``relative``) or a win/loss per deal (``deal_win_loss``).
* **Policy**: :class:`rummy_env.agents.policy_net.PolicyNet` (an MLP; a small conv net over board
  planes when the game exposes ``OBS_BOARD_SHAPE``). The rollout samples with
  :meth:`~rummy_env.agents.policy_net.PolicyNet.choose` (the legal logits only, Gumbel-max) from the
  distribution the update scores with :func:`rummy_env.agents.policy_net.masked_distribution`; the
  stored log-probability equals the recomputed one at the start of every update (``logp_err0``, tested).
  With ``--prior heuristic`` the network is a residual policy over the rule-based agent (its
  action, computed for every policy decision by :meth:`Arena.policy_inputs`, gets a learned logit
  bonus): it starts as that agent and learns where to leave it; ``--prior-candidates K`` keeps it
  to that agent's K best moves, so it explores only among them.
* **Update**: CleanRL's clipped PPO with GAE, plus dual-clip (``--dual-clip``).
* **Opponent pool**: every ``--snapshot-every`` updates the policy joins it (``--pool-size`` slots,
  oldest replaced; it starts with the initial policy).
* **Evaluation**: before the first update and every ``--eval-every`` updates the greedy policy plays
  ``--eval-episodes`` games against each ``--eval-opponents``, its seat rotating. Win share:
  :func:`rummy_env.agents.base.win_credit` (1 for a sole best return, 1/k for a k-way tie).
* **Output** in ``--run-dir``: ``train.csv`` (a row per update), ``eval.csv``, ``learning_curve.png``,
  ``checkpoint.pt`` (everything needed to resume: model, optimizer, games in flight with their
  generators, opponents, pool, RNG states, counters, log rows) and ``policy.pt`` (the network, for
  :func:`rummy_env.agents.registry.load_ppo_agent`), written atomically every ``--save-every``
  updates (:mod:`rummy_env.experiments.checkpoints`). A killed run started again with the same
  command continues exactly as if it had not stopped; the CSVs are rewritten from the checkpoint's
  rows. ``--no-resume`` starts over. A finished run writes ``summary.json``.

``--benchmark SECONDS`` times self-play instead (every seat by the untrained policy, batched): env
steps per second including policy inference. ``--eval-only`` evaluates a network. ``--out`` keeps
either result as JSON with :func:`rummy_env.experiments.io.provenance` (commit, dirty flag, command).
Both are in :mod:`rummy_env.experiments.measure_policy`; the opponents and the greedy evaluation in
:mod:`rummy_env.experiments.arena`; the flags every training tool shares in
:class:`rummy_env.experiments.dataclass_args.RunArgs`.

Seeding: ``--seed`` seeds torch, the games, episode set-up and minibatch order, so two runs with the
same arguments give the same parameters (on one thread: ``--torch-threads 1``, the default).
"""
from __future__ import annotations

import copy
import os
import pickle
import sys
import time
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import torch
from torch import nn

from rummy_env.agents.policy_net import masked_distribution
from rummy_env.experiments.arena import Arena, eval_opponents, greedy_eval_rows, opponent_mix
from rummy_env.experiments.checkpoints import (plot_curves, print_outcome, resume_trainer, save_trainer,
                                               seed_globals, start_network, write_logs, write_summary)
from rummy_env.experiments.dataclass_args import SelfPlayArgs, dataclass_parser, parse_dataclass
from rummy_env.experiments.measure_policy import measure
from rummy_env.experiments.options import parse_env_options
from rummy_env.experiments.rollout import SHARD_SEED_STRIDE, RolloutWorkers, collect_rollout
from rummy_env.registry import game_key


@dataclass
class Args(SelfPlayArgs):
    RUN_KIND: ClassVar[str] = "ppo"
    POSITIVE: ClassVar[tuple[str, ...]] = SelfPlayArgs.POSITIVE + ("rollout_workers", "num_minibatches", "update_epochs")
    seed: int = 1
    """seed of torch, the games, episode set-up and minibatch order"""
    run_dir: str = ""
    """output folder; none means runs/<game>_ppo_s<seed>"""
    rollout_workers: int = 1
    """processes that collect the rollout, the games split evenly among them (this one and W-1 others: a core each)"""
    stall_timeout: float = 600.0
    """seconds a rollout worker may take to answer before the run stops naming it (0: no limit)"""
    learning_rate: float = 2.5e-4
    """Adam learning rate"""
    anneal_lr: bool = True
    """decay the learning rate linearly to 0 over the run"""
    gamma: float = 0.99
    """discount factor"""
    gae_lambda: float = 0.95
    """lambda of generalized advantage estimation"""
    num_minibatches: int = 4
    """minibatches per epoch of an update"""
    update_epochs: int = 4
    """epochs over the rollout per update"""
    norm_adv: bool = True
    """normalize advantages per minibatch"""
    clip_coef: float = 0.2
    """PPO clipping of the probability ratio (and of the value, with --clip-vloss)"""
    dual_clip: float = 3.0
    """dual-clip PPO (Ye et al. 2020): for a negative advantage A the loss is at most this times |A| (0: off)"""
    clip_vloss: bool = True
    """clip the value loss as in CleanRL"""
    ent_coef: float = 0.01
    """weight of the entropy bonus"""
    vf_coef: float = 0.5
    """weight of the value loss"""
    max_grad_norm: float = 0.5
    """gradient norm clipping"""
    target_kl: float = 0.0
    """stop an update's epochs early above this approximate KL (0: never)"""
    prior: str = ""
    """'heuristic': a residual policy over the rule-based agent, whose action gets a learned logit bonus (PolicyNet)"""
    prior_weight: float = 5.0
    """initial logit bonus of the prior's action"""
    prior_candidates: int = 0
    """K > 0: the residual policy plays only the prior's K best moves (its ranking; Rummy's rule-based agent has one)"""
    init_from: str = ""
    """start from the network of this checkpoint or policy file (same game and sizes; a layout whose
    parts grew, as Contract Rummy's deal_index from one deal to seven, is widened with zero weights)"""
    opponents: str = "pool:1,heuristic:1,random:1"
    """opponent kinds and weights; kinds that do not exist for the game are dropped"""
    pool_size: int = 5
    """past snapshots of the policy kept as opponents"""
    snapshot_every: int = 10
    """updates between two snapshots joining the pool"""
    eval_opponents: str = ""
    """comma-separated agent specs; none means heuristic if it exists, and random"""
    benchmark: float = 0.0
    """instead of training: time self-play (every seat by the untrained policy) for this many seconds"""
    eval_only: bool = False
    """instead of training: evaluate the --init-from network (untrained without it), print win shares with 95% CIs"""
    out: str = ""
    """with --benchmark or --eval-only: also write the result, with git commit and command line, to this JSON file"""


def build_parser():
    """The parser of ``rummy-env train`` / ``python -m rummy_env.experiments.train_ppo``."""
    return dataclass_parser(Args, __doc__)


def parse_args(argv: list[str] | None = None) -> Args:
    return parse_dataclass(Args, argv, __doc__)


# -------------------------------------------------------------------------------------------------
# PPO
# -------------------------------------------------------------------------------------------------
def clipped_policy_loss(ratio: torch.Tensor, adv: torch.Tensor, clip_coef: float, dual_clip: float) -> torch.Tensor:
    """Per-sample PPO policy loss: CleanRL's clipped surrogate, and with ``dual_clip`` c > 1 the
    dual clip of Ye et al. 2020 (arXiv:1912.09729): where the advantage is negative the loss is at
    most ``-c * adv``, so an action the old policy made near impossible (a huge ratio) cannot give
    an unbounded loss or gradient."""
    loss = torch.max(-adv * ratio, -adv * torch.clamp(ratio, 1 - clip_coef, 1 + clip_coef))
    if dual_clip:
        loss = torch.where(adv < 0, torch.min(loss, -dual_clip * adv), loss)
    return loss


def ppo_update(net, optimizer: torch.optim.Optimizer, b: dict, args: Args, rng: np.random.Generator) -> dict:
    """CleanRL's PPO update (with :func:`clipped_policy_loss`) over the flattened batch ``b``;
    returns the logged statistics."""
    batch_size = b["obs"].shape[0]
    minibatch_size = max(1, batch_size // args.num_minibatches)
    with torch.no_grad():
        logits, _ = net(b["obs"])
        logp_err0 = (masked_distribution(logits, b["mask"]).log_prob(b["actions"]) - b["logp"]).abs().max().item()
    clipfracs, approx_kl = [], torch.zeros(())
    pg_loss = v_loss = entropy_loss = torch.zeros(())
    for _ in range(args.update_epochs):
        order = rng.permutation(batch_size)
        for start in range(0, batch_size, minibatch_size):
            mb = torch.as_tensor(order[start:start + minibatch_size])
            logits, newvalue = net(b["obs"][mb])
            dist = masked_distribution(logits, b["mask"][mb])
            logratio = dist.log_prob(b["actions"][mb]) - b["logp"][mb]
            ratio = logratio.exp()
            with torch.no_grad():
                approx_kl = ((ratio - 1) - logratio).mean()
                clipfracs.append(((ratio - 1.0).abs() > args.clip_coef).float().mean().item())
            adv = b["advantages"][mb]
            if args.norm_adv and len(mb) > 1:
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            pg_loss = clipped_policy_loss(ratio, adv, args.clip_coef, args.dual_clip).mean()
            if args.clip_vloss:
                v_unclipped = (newvalue - b["returns"][mb]) ** 2
                v_clipped = b["values"][mb] + torch.clamp(newvalue - b["values"][mb], -args.clip_coef, args.clip_coef)
                v_loss = 0.5 * torch.max(v_unclipped, (v_clipped - b["returns"][mb]) ** 2).mean()
            else:
                v_loss = 0.5 * ((newvalue - b["returns"][mb]) ** 2).mean()
            entropy_loss = dist.entropy().mean()
            loss = pg_loss - args.ent_coef * entropy_loss + v_loss * args.vf_coef
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), args.max_grad_norm)
            optimizer.step()
        if args.target_kl and approx_kl.item() > args.target_kl:
            break
    y_pred, y_true = b["values"].numpy(), b["returns"].numpy()
    var_y = np.var(y_true)
    return {"policy_loss": pg_loss.item(), "value_loss": v_loss.item(), "entropy": entropy_loss.item(),
            "approx_kl": approx_kl.item(), "clipfrac": float(np.mean(clipfracs)),
            "explained_var": float("nan") if var_y == 0 else float(1 - np.var(y_true - y_pred) / var_y),
            "logp_err0": logp_err0}


class Trainer:
    """The run's state (what the checkpoint holds: :func:`~rummy_env.experiments.checkpoints.save_trainer`)
    and its steps."""

    def __init__(self, args: Args):
        self.args = args
        self.key = game_key(args.game)
        self.options = parse_env_options(args.opt)
        self.run_dir = args.output_dir()
        self.checkpoint_path = os.path.join(self.run_dir, "checkpoint.pt")
        self.batch_size = args.num_envs * args.num_steps
        self.num_updates = max(1, args.total_timesteps // self.batch_size)
        if 0 < args.dual_clip <= 1 or args.dual_clip < 0:
            raise ValueError(f"--dual-clip must be 0 (off) or above 1, got {args.dual_clip}")
        kinds, weights = opponent_mix(self.key, args.opponents)
        self.eval_specs = eval_opponents(self.key, args.eval_opponents)
        if args.rollout_workers < 1 or args.num_envs % args.rollout_workers:
            raise ValueError(f"--rollout-workers must be at least 1 and divide --num-envs {args.num_envs}, "
                             f"got {args.rollout_workers}")
        seed_globals(args.seed)
        arenas = [Arena(self.key, args.num_envs // args.rollout_workers, args.seed + w * SHARD_SEED_STRIDE,
                        self.options, kinds, weights, args.seat, pool_len=1, prior=args.prior or None,
                        prior_candidates=args.prior_candidates, return_per_deal=args.return_per_deal,
                        learner_reward=args.learner_reward) for w in range(args.rollout_workers)]
        self.arena = arenas[0]
        """the games of this process's shard (all of them with one rollout worker)"""
        if args.stall_timeout < 0:
            raise ValueError(f"--stall-timeout must be >= 0 seconds (0: no limit), got {args.stall_timeout}")
        self.workers = RolloutWorkers([(pickle.dumps(arena), None) for arena in arenas[1:]], args.stall_timeout)
        """the other shards (started by :func:`train`)"""
        vg = self.arena.vg
        self.net = start_network(self.key, self.options, vg.obs_size, vg.num_actions, args.hidden,
                                 args.conv_channels, args.init_from, args.head, args.factor_dim, args.prior,
                                 args.prior_weight, args.prior_candidates)
        self.net.name = f"{self.key} training run {self.run_dir}"
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=args.learning_rate, eps=1e-5)
        self.pool = [copy.deepcopy(self.net.state_dict())]
        self.pool_nets = [self.frozen(self.pool[0])]
        self.pool_sent = True
        """whether the rollout workers hold the current pool"""
        self.rng = np.random.default_rng([args.seed, 104729])
        self.update = self.global_step = 0
        self.elapsed = 0.0
        self.train_rows: list[dict] = []
        self.eval_rows: list[dict] = []

    def frozen(self, state: dict):
        """A network with the snapshot ``state``, for the opponent pool."""
        net = type(self.net)(**self.net.config)
        net.load_state_dict(state)
        net.eval()
        net.name = f"a snapshot in {self.net.name}"
        return net

    def pool_act(self, slot: int, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return self.pool_nets[slot].act(obs, mask)

    def collect(self) -> dict:
        """One rollout of ``num_steps`` learner decisions in every game (every shard's), as flat
        tensors with GAE (:func:`~rummy_env.experiments.rollout.collect_rollout`)."""
        self.workers.send_collect(self.net.state_dict(), None if self.pool_sent else self.pool)
        self.pool_sent = True
        if not self.workers.connections:
            return collect_rollout(self.arena, self.net, self.pool_act, self.args)
        torch.set_num_threads(1)  # while the workers hold the other cores; the update gets --torch-threads
        batch = collect_rollout(self.arena, self.net, self.pool_act, self.args)
        torch.set_num_threads(self.args.torch_threads)
        batches, episodes = self.workers.receive_collect()
        self.arena.episodes.extend(episodes)
        return {k: torch.cat([batch[k], *(b[k] for b in batches)]) for k in batch}

    @property
    def env_steps(self) -> int:
        return self.arena.env_steps + sum(self.workers.env_steps)

    def train_one_update(self) -> dict:
        args = self.args
        start = time.perf_counter()
        env_steps0 = self.env_steps
        if args.anneal_lr:
            self.optimizer.param_groups[0]["lr"] = args.learning_rate * (1.0 - self.update / self.num_updates)
        stats = ppo_update(self.net, self.optimizer, self.collect(), args, self.rng)
        self.update += 1
        self.global_step += self.batch_size
        if self.update % args.snapshot_every == 0:
            slot = (self.update // args.snapshot_every) % args.pool_size
            state = copy.deepcopy(self.net.state_dict())
            if slot < len(self.pool):
                self.pool[slot], self.pool_nets[slot] = state, self.frozen(state)
            else:
                self.pool.append(state)
                self.pool_nets.append(self.frozen(state))
            self.arena.pool_len = len(self.pool)
            self.pool_sent = False
        episodes = self.arena.take_episodes()
        seconds = time.perf_counter() - start
        self.elapsed += seconds
        mean = (lambda k: float(np.mean([e[k] for e in episodes]))) if episodes else (lambda k: float("nan"))
        row = {"update": self.update, "global_step": self.global_step, "env_steps": self.env_steps,
               "episodes": len(episodes), "ep_return": mean(1), "win_share": mean(2), "ep_length": mean(3),
               **stats, "lr": self.optimizer.param_groups[0]["lr"],
               "sps": round((self.env_steps - env_steps0) / seconds, 1), "time_s": round(self.elapsed, 2)}
        self.train_rows.append(row)
        return row

    def evaluate(self) -> list[dict]:
        """Greedy policy vs each eval opponent, ``eval_episodes`` games each, seats rotating."""
        rows = greedy_eval_rows(self.net, self.key, self.options, self.eval_specs, self.args.eval_episodes,
                                self.args.seed, self.update, self.global_step)
        self.eval_rows.extend(rows)
        return rows


def train(args: Args) -> Trainer:
    torch.set_num_threads(args.torch_threads)
    trainer = Trainer(args)
    os.makedirs(trainer.run_dir, exist_ok=True)
    if args.resume and os.path.exists(trainer.checkpoint_path):
        resume_trainer(trainer)
    write_logs(trainer.run_dir, trainer.train_rows, trainer.eval_rows)
    from tqdm import tqdm
    title = f"PPO {trainer.key} {' '.join(args.opt)} seed {args.seed}"
    bar = tqdm(total=trainer.num_updates, initial=trainer.update, disable=not args.progress,
               desc=f"ppo {trainer.key}", unit="update", file=sys.stderr)
    trainer.workers.start(trainer.net, trainer.pool, args.seed, args)
    try:
        if args.eval_every and trainer.update == 0:
            trainer.evaluate()  # the untrained policy: the baseline of the learning curve
        while trainer.update < trainer.num_updates:
            row = trainer.train_one_update()
            last = trainer.update == trainer.num_updates
            evals = trainer.evaluate() if args.eval_every and (trainer.update % args.eval_every == 0 or last) else []
            if trainer.update % args.save_every == 0 or last:
                save_trainer(trainer)
                # The CSVs follow the checkpoint, which holds every row: after a kill they are rewritten
                # from it, so they never hold a row the checkpoint lacks.
                write_logs(trainer.run_dir, trainer.train_rows, trainer.eval_rows)
                if evals:
                    plot_curves(trainer.run_dir, trainer.train_rows, trainer.eval_rows, title)
            bar.update(1)
            bar.set_postfix({"win": f"{row['win_share']:.2f}", "sps": row["sps"],
                             **{f"eval_{e['opponent']}": f"{e['win_share']:.2f}" for e in evals}})
    finally:
        trainer.workers.close()
    bar.close()
    if trainer.train_rows:
        plot_curves(trainer.run_dir, trainer.train_rows, trainer.eval_rows, title)
    write_summary(trainer, args)
    return trainer


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    if args.benchmark or args.eval_only:
        measure(args)
        return
    trainer = train(args)
    print_outcome(trainer)


if __name__ == "__main__":  # runs as `rummy-env train`
    from rummy_env.experiments.cli import run_as_command
    sys.exit(run_as_command("train"))
