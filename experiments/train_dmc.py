"""Deep Monte-Carlo over the rule-based agent, CleanRL style: one file, read top to bottom.

    .venv/bin/python -m rummy_env.experiments.train_dmc --game rummy --option max_rounds=1 \\
        --total-timesteps 200000 --run-dir runs/rummy_dmc_s1

The method is DouZero's Deep Monte-Carlo (Zha et al. 2021, arXiv:2106.06135): a network scores a
state and a move, Q(s, a), and is fitted by mean-squared error to the Monte-Carlo return that
followed the move; the players act epsilon-greedily on Q. Two choices make it start from, and never
fall below by construction, the game's rule-based agent:

* **Gated moves.** The network is a residual :class:`~rummy_env.agents.policy_net.PolicyNet`:
  Q(s, a) = V(s) + A(s, a), its value head's output plus its policy head's (a dueling network,
  Wang et al. 2016), and its prior bonus is a fixed *gate* ``--gate`` (in return units, after
  ``--reward-scale``): the greedy move is ``argmax_a Q(s, a) + gate * [a = rule]``, so
  the agent leaves the rule-based move only where the network values another move more than the
  gate above it. The policy head starts with every output 0 (:func:`start_at_zero`), so untrained
  it is exactly the rule-based agent; V learns the returns' mean from every move, so a move seldom
  tried keeps Q(s, a) near V(s), the rule-based move's value, instead of near 0. With
  ``--prior-candidates K`` the moves are the rule-based agent's K best (its ranking), otherwise every
  legal move.
* **Exploration around the gated policy.** A learner decision is the greedy gated move, or with
  probability ``--epsilon`` another of the candidates, uniformly. The behaviour policy stays near the
  rule-based agent, whose values Q then estimates: acting greedily on them is a policy-improvement
  step (the Monte-Carlo counterpart of one step of policy iteration), repeated as the gate opens.

**Targets.** The learner's return from the move to the end of its return (the episode, or with
``--return-per-deal`` the deal, round or hand; :class:`~rummy_env.experiments.arena.Arena`'s
``learner_reward``), undiscounted, times ``--reward-scale``. Decisions wait in their game until the
return ends; each update then fits the finished ones (``--epochs`` passes of ``--batch-size``).

**Games**: ``--num-envs`` engines (:class:`~rummy_env.experiments.arena.Arena`), the learner's seat
drawn per episode, the others played by ``--opponents``. **Evaluation**: every ``--eval-every``
updates the greedy gated policy plays ``--eval-episodes`` games against each ``--eval-opponents``.

**Output** in ``--run-dir`` as ``train_ppo``'s: ``train.csv``, ``eval.csv``, ``learning_curve.png``,
``checkpoint.pt`` (model, optimizer, games in flight with their pending decisions, generators,
counters, rows; written atomically every ``--save-every`` updates: a killed run started again with
the same command continues exactly) and ``policy.pt``, which the ``ppo`` agent loads
(``ppo:RUN_DIR/policy.pt``: greedy, gated). ``summary.json`` when the run ends.
"""
from __future__ import annotations

import dataclasses
import os
import pickle
import sys
import time
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import torch

from rummy_env.experiments.arena import Arena, eval_opponents, greedy_eval_rows, opponent_mix
from rummy_env.experiments.checkpoints import (load_run, plot_curves, policy_record, print_outcome, random_states,
                                               restore_random_states, save_run, seed_globals, start_network,
                                               write_logs, write_summary)
from rummy_env.experiments.dataclass_args import SelfPlayArgs, dataclass_parser, parse_dataclass
from rummy_env.experiments.options import parse_env_options
from rummy_env.registry import game_key


@dataclass
class Args(SelfPlayArgs):
    RUN_KIND: ClassVar[str] = "dmc"
    POSITIVE: ClassVar[tuple[str, ...]] = SelfPlayArgs.POSITIVE + ("epochs", "batch_size", "save_every")
    total_timesteps: int = 100_000
    num_envs: int = 32
    num_steps: int = 32
    save_every: int = 5
    learning_rate: float = 3e-4
    """Adam learning rate"""
    epochs: int = 2
    """passes over an update's finished decisions"""
    batch_size: int = 512
    """decisions per minibatch"""
    epsilon: float = 0.1
    """probability that a learner decision is another candidate than the greedy gated move, uniformly"""
    gate: float = 0.1
    """how much more (in return units, after --reward-scale) Q must value a move than the rule-based one to play it"""
    prior_candidates: int = 0
    """K > 0: the moves are the rule-based agent's K best (its ranking); 0: every legal move"""
    opponents: str = "heuristic:1"
    """opponent kinds and weights (agent specs, e.g. heuristic:3,random:1)"""
    eval_opponents: str = "heuristic"
    """comma-separated agent specs"""


FREE_ARGS = ("total_timesteps", "progress", "resume", "eval_every", "save_every", "torch_threads")
"""Arguments a resumed run may change."""


def build_parser():
    """The parser of ``rummy-env train-dmc`` / ``python -m rummy_env.experiments.train_dmc``."""
    return dataclass_parser(Args, __doc__)


# -------------------------------------------------------------------------------------------------
# Deep Monte-Carlo

def q_values(net, inputs: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
    """Q(s, a) = V(s) + A(s, a) for each row of the network's ``inputs`` and its move ``actions``:
    the value head's output plus the policy head's for that move (only those outputs of the head
    are computed). The gated greedy move compares moves of one state, so it reads A alone."""
    obs, _ = net.split_prior(inputs)
    x, board_map = net.encode(obs)
    taken = torch.zeros(len(actions), net.config["num_actions"], dtype=torch.bool)
    taken[torch.arange(len(actions)), actions] = True
    rows, _, advantage = net.legal_logits(x, board_map, taken)
    return net.value_head(x).squeeze(-1) + advantage[np.argsort(rows, kind="stable")]


def start_at_zero(net) -> None:
    """Set the head's output to exactly 0 for every move (the untrained network is then the rule-based
    agent for any gate above 0): the flat head's layer, or the factored head's piece and other-move
    layers and its square keys (the square embeddings start at 0), so every output is 0 while each
    zeroed weight still has a gradient."""
    with torch.no_grad():
        for layer in (net.policy_head, getattr(net, "piece_logit", None), getattr(net, "square_key", None)):
            if layer is not None:
                layer.weight.zero_()
                layer.bias.zero_()


def candidates(net, inputs: np.ndarray, mask: np.ndarray) -> list[np.ndarray]:
    """Each row's moves: the prior's K best (its input columns) or every legal one."""
    if net.prior_candidates:
        return [c[c >= 0].astype(np.int64) for c in inputs[:, -net.prior_width:]]
    return [np.flatnonzero(m) for m in mask]


class Trainer:
    """The run's state (what ``checkpoint.pt`` holds) and its steps."""

    def __init__(self, args: Args):
        self.args = args
        self.key = game_key(args.game)
        self.options = parse_env_options(args.opt)
        self.run_dir = args.output_dir()
        self.checkpoint_path = os.path.join(self.run_dir, "checkpoint.pt")
        self.num_updates = max(1, args.total_timesteps // (args.num_envs * args.num_steps))
        if args.gate < 0 or not 0 <= args.epsilon <= 1:
            raise ValueError(f"--gate must be >= 0 and --epsilon in [0, 1], got {args.gate} and {args.epsilon}")
        kinds, weights = opponent_mix(self.key, args.opponents)
        self.eval_specs = eval_opponents(self.key, args.eval_opponents)
        seed_globals(args.seed)
        self.arena = Arena(self.key, args.num_envs, args.seed, self.options, kinds, weights, args.seat,
                           prior="heuristic", prior_candidates=args.prior_candidates,
                           return_per_deal=args.return_per_deal, learner_reward=args.learner_reward)
        vg = self.arena.vg
        self.net = start_network(self.key, self.options, vg.obs_size, vg.num_actions, args.hidden,
                                 args.conv_channels, head=args.head, factor_dim=args.factor_dim, prior="heuristic",
                                 prior_weight=args.gate, prior_candidates=args.prior_candidates)
        start_at_zero(self.net)
        self.net.prior_logit.requires_grad_(False)  # the gate is fixed: Q is the head's output alone
        self.net.name = f"{self.key} DMC run {self.run_dir}"
        self.optimizer = torch.optim.Adam([p for p in self.net.parameters() if p.requires_grad],
                                          lr=args.learning_rate)
        self.rng = np.random.default_rng([args.seed, 7741])
        self.pending: list[list[tuple[np.ndarray, int]]] = [[] for _ in range(args.num_envs)]
        """per game, the learner's decisions whose return has not ended: (inputs, move)"""
        self.pending_rewards: list[list[float]] = [[] for _ in range(args.num_envs)]
        """per game, the learner's reward after each pending decision, until its next one"""
        self.update = self.global_step = 0
        self.elapsed = 0.0
        self.train_rows: list[dict] = []
        self.eval_rows: list[dict] = []

    def behaviour(self, inputs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The greedy gated moves, each replaced with probability epsilon by another candidate."""
        greedy = self.net.act(inputs, mask, greedy=True)
        for row, moves in enumerate(candidates(self.net, inputs, mask)):
            others = moves[moves != greedy[row]]
            if len(others) and self.rng.random() < self.args.epsilon:
                greedy[row] = others[self.rng.integers(len(others))]
        return greedy

    def collect(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``num_steps`` learner decisions in every game; the decisions whose return ended, as
        (inputs, moves, Monte-Carlo returns)."""
        arena, n = self.arena, self.args.num_envs
        everyone = np.arange(n)
        done_inputs, done_moves, done_returns = [], [], []
        arena.advance(everyone, np.zeros(n), np.ones(n, bool), None)
        for _ in range(self.args.num_steps):
            obs, mask, seat = arena.vg.observe()
            inputs = arena.policy_inputs(everyone, obs, mask, seat)
            moves = self.behaviour(inputs, mask)
            carry, arena.carry = arena.carry, np.zeros(n)
            reward, ended = arena.step(everyone, moves)
            reward = reward + carry
            arena.advance(everyone, reward, ended, None)
            for i in everyone:
                self.pending[i].append((inputs[i], int(moves[i])))
                self.pending_rewards[i].append(float(reward[i]) * self.args.reward_scale)
                if ended[i]:
                    returns = np.cumsum(self.pending_rewards[i][::-1])[::-1]  # undiscounted reward-to-go
                    for (x, a), g in zip(self.pending[i], returns):
                        done_inputs.append(x)
                        done_moves.append(a)
                        done_returns.append(g)
                    self.pending[i], self.pending_rewards[i] = [], []
        self.global_step += n * self.args.num_steps
        if not done_inputs:
            return np.zeros((0, self.net.config["obs_size"] + self.net.prior_width), np.float32), \
                np.zeros(0, np.int64), np.zeros(0, np.float32)
        return np.stack(done_inputs), np.asarray(done_moves, np.int64), np.asarray(done_returns, np.float32)

    def fit(self, inputs: np.ndarray, moves: np.ndarray, returns: np.ndarray) -> float:
        """``epochs`` passes of minibatch MSE between Q(s, a) and the returns; the mean loss."""
        losses = []
        x, a, g = torch.from_numpy(inputs), torch.from_numpy(moves), torch.from_numpy(returns)
        for _ in range(self.args.epochs):
            order = torch.from_numpy(self.rng.permutation(len(g)))
            for batch in order.split(self.args.batch_size):
                loss = torch.nn.functional.mse_loss(q_values(self.net, x[batch], a[batch]), g[batch])
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                losses.append(loss.item())
        return float(np.mean(losses)) if losses else float("nan")

    @property
    def env_steps(self) -> int:
        return self.arena.env_steps

    def train_one_update(self) -> dict:
        start = time.perf_counter()
        inputs, moves, returns = self.collect()
        loss = self.fit(inputs, moves, returns)
        self.update += 1
        self.elapsed += time.perf_counter() - start
        episodes = self.arena.take_episodes()
        row = {"update": self.update, "global_step": self.global_step, "env_steps": self.arena.env_steps,
               "time_s": round(self.elapsed, 2), "fitted": len(returns), "loss": loss,
               "mean_target": float(returns.mean()) if len(returns) else float("nan"),
               "episodes": len(episodes),
               "win_share": float(np.mean([e[2] for e in episodes])) if episodes else float("nan"),
               "ep_return": float(np.mean([e[1] for e in episodes])) if episodes else float("nan")}
        self.train_rows.append(row)
        return row

    def evaluate(self) -> list[dict]:
        """Greedy gated policy vs each eval opponent, ``eval_episodes`` games each, seats rotating."""
        rows = greedy_eval_rows(self.net, self.key, self.options, self.eval_specs, self.args.eval_episodes,
                                self.args.seed, self.update, self.global_step)
        self.eval_rows.extend(rows)
        return rows

    # -- checkpoint -----------------------------------------------------------------------------
    def save(self) -> None:
        policy = policy_record(self.net, self.key, self.options, method="dmc", gate=self.args.gate,
                               update=self.update, global_step=self.global_step)
        save_run(self.run_dir, policy, {
            "args": dataclasses.asdict(self.args), "optimizer": self.optimizer.state_dict(),
            "arena": pickle.dumps(self.arena), "pending": pickle.dumps((self.pending, self.pending_rewards)), "rng": pickle.dumps(self.rng),
            **random_states(), "elapsed": self.elapsed, "train_rows": self.train_rows, "eval_rows": self.eval_rows})

    def resume(self) -> None:
        data = load_run(self.checkpoint_path, dataclasses.asdict(self.args), FREE_ARGS)
        self.net.load_state_dict(data["model"])
        self.optimizer.load_state_dict(data["optimizer"])
        self.arena = pickle.loads(data["arena"])
        self.pending, self.pending_rewards = pickle.loads(data["pending"])
        self.rng = pickle.loads(data["rng"])
        restore_random_states(data)
        self.update, self.global_step, self.elapsed = data["update"], data["global_step"], data["elapsed"]
        self.train_rows, self.eval_rows = data["train_rows"], data["eval_rows"]


def train(args: Args) -> Trainer:
    torch.set_num_threads(args.torch_threads)
    trainer = Trainer(args)
    os.makedirs(trainer.run_dir, exist_ok=True)
    if args.resume and os.path.exists(trainer.checkpoint_path):
        trainer.resume()
    from tqdm import tqdm
    title = f"DMC {trainer.key} {' '.join(args.opt)} seed {args.seed}"
    bar = tqdm(total=trainer.num_updates, initial=trainer.update, disable=not args.progress,
               desc=f"dmc {trainer.key}", unit="update", file=sys.stderr)
    if args.eval_every and trainer.update == 0 and not trainer.eval_rows:
        trainer.evaluate()  # the untrained network: the rule-based agent itself
    while trainer.update < trainer.num_updates:
        row = trainer.train_one_update()
        last = trainer.update == trainer.num_updates
        evals = trainer.evaluate() if args.eval_every and (trainer.update % args.eval_every == 0 or last) else []
        if trainer.update % args.save_every == 0 or last:
            trainer.save()
            write_logs(trainer.run_dir, trainer.train_rows, trainer.eval_rows)
        bar.update(1)
        bar.set_postfix({"loss": f"{row['loss']:.3f}", **{f"eval_{e['opponent']}": f"{e['win_share']:.2f}"
                                                         for e in evals}})
    bar.close()
    plot_curves(trainer.run_dir, trainer.train_rows, trainer.eval_rows, title)
    write_summary(trainer, args)
    return trainer


def main(argv: list[str] | None = None) -> None:
    trainer = train(parse_dataclass(Args, argv, __doc__))
    print_outcome(trainer)


if __name__ == "__main__":  # runs as `rummy-env train-dmc`
    from rummy_env.experiments.cli import run_as_command
    sys.exit(run_as_command("train-dmc"))
