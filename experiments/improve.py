"""Rollout policy improvement: a residual policy learns where the rule-based agent's own next-best
moves do better than its choice, from paired rollouts in copies of the real game (issue 17's
"search as a teacher", in its cheapest form: one rollout per candidate).

    rummy-env improve --game rummy --option reward_mode=zero_sum --decisions 600000 --reward-scale 0.02 \\
        --run-dir runs/rummy_improve_s1

1. **Collect.** Games with the rule-based agent in every seat (deal seeds ``DEAL_SEED_BASE`` +
   ``--seed`` x 2^20 + the game's number, worker w's games numbered w x 2^14 + 0, 1, 2, ...: apart
   for every ``--seed`` and worker, and from every tournament's). At a decision where the acting seat's agent ranks two or more moves (``ranked_actions``:
   its choice first; the ``--candidates`` K best are kept), taken with probability ``--sample``,
   each candidate is played in a copy of the real game (``game.clone()``: the true hands and stock,
   which the policy never sees) and the rule-based agents play on until the engine next scores
   (the end of the deal, round or hand); the candidate's value Q is the seat's reward there, times
   ``--reward-scale``. The agents are deterministic and the copy fixes the stock, so the candidates
   of one decision differ only through the move: each Q is the rule-based continuation's exact
   value of that move in that true position. The real game then goes on with the agent's choice.
   **With a teacher** (``--teacher``, an ``ismcts`` spec; Rummy): the search decides instead, from
   the seat's information only, in a copy whose match ends with the round (so its rollouts stop
   where the engine next scores), and each candidate's Q is its share of the search's root visits.
   The fit below then learns, from one forward pass, which candidate the search would visit most
   (expert iteration's distillation step: the search as a teacher); ``--collect-seconds`` bounds
   the collecting time, as a search costs a fraction of a second per decision.
2. **Fit.** The network of ``train_ppo --prior heuristic --prior-candidates K`` (input: the
   observation and the K candidate ids; the bonus ``prior_logit`` on the agent's choice) regresses
   each candidate's logit minus the choice's on Q(candidate) - Q(choice); its value head regresses
   Q(choice). The regression's minimiser is the *expected* difference given what the seat sees
   (the hidden cards averaged as they fall in the rule-based agents' games), so the greedy policy
   plays the candidate with the highest expected value under the rule-based continuation: one
   step of policy improvement over the rule-based agent (Bertsekas' rollout algorithm), learned so
   that a decision costs one forward pass instead of rollouts. ``ppo:PATH`` plays it (greedy).
3. **Held out.** ``--val-fraction`` of the games. Per epoch ``improve.csv`` logs there the
   regression error, against ``gap_variance`` (the variance of the real differences: the error of
   the best constant guess), with ``gap_correlation`` (predicted against real differences); how
   often the greedy policy leaves the agent's choice (``deviation_rate``); and the **realized
   gain**: the mean of Q(greedy choice) - Q(agent's choice), 0 where it keeps the choice, with its
   standard error, in the game's reward units: what the learned departures are worth in those
   positions when the rule-based agents play on. ``gain_margin_<m>`` is the same for departing only
   where the predicted gain exceeds m; ``hindsight_gain``, the mean of max Q - Q(choice), is what a
   player who saw the hidden cards would gain. ``pick_best_rate`` and ``choice_best_rate``: how
   often the greedy pick, and the agent's choice, has the decision's highest Q.
4. **Write** ``policy.pt`` (the format ``ppo:PATH`` and ``train_ppo --init-from`` read),
   ``improve.csv``, ``summary.json`` (with the git commit and command line) and ``labels.npz`` (the
   labels, which ``--labels`` fits again without collecting), atomically.

The games whose rule-based agent ranks its moves: Rummy (every legal move) and Contract Rummy (draws
and discards). A rollout costs a deal's rest: about a millisecond in a two-player Rummy round, a
third of a second in a Contract Rummy deal.
"""
from __future__ import annotations

import dataclasses
import functools
import json
import math
import multiprocessing
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import torch

from rummy_env.agents.base import rule_based_agents
from rummy_env.agents.policy_net import with_prior
from rummy_env.agents.registry import check_agent_spec, heuristic_class, make_agent, policy_for_game
from rummy_env.information_state import InformationState
from rummy_env.registry import game_key, make_raw_env
from rummy_env.experiments import io
from rummy_env.experiments.checkpoints import atomic_torch_save, policy_record
from rummy_env.experiments.dataclass_args import FitArgs, dataclass_parser, parse_dataclass
from rummy_env.experiments.options import parse_env_options


DEAL_SEED_BASE = 1 << 40
"""The first deal seed of ``--seed`` 0; ``--seed`` s plays deal seeds DEAL_SEED_BASE + s * 2^20 + game."""


@dataclass
class Args(FitArgs):
    RUN_KIND: ClassVar[str] = "improve"
    POSITIVE: ClassVar[tuple[str, ...]] = FitArgs.POSITIVE + ("decisions", "workers")
    decisions: int = 200_000
    """labelled decisions to collect"""
    candidates: int = 3
    """K: the rule-based agent's best-ranked moves compared at each decision (its choice first)"""
    sample: float = 1.0
    """chance that a decision with two or more candidates is labelled"""
    prior_weight: float = 0.0
    """initial logit bonus of the agent's choice, learned by the fit (0: no gap to unlearn at the start)"""
    workers: int = 1
    """processes collecting labels (each plays its own deals)"""
    labels: str = ""
    """fit on these saved labels (comma-separated labels.npz files of earlier runs) instead of collecting"""
    teacher: str = ""
    """label each decision with this ismcts search's root visits (its share per candidate) instead of rollouts; Rummy only"""
    collect_seconds: float = 0.0
    """stop each worker's collecting after this many seconds (0: only at --decisions)"""


def build_parser():
    """The parser of ``rummy-env improve`` / ``python -m rummy_env.experiments.improve``."""
    return dataclass_parser(Args, __doc__)


def parse_args(argv: list[str] | None = None) -> Args:
    args = parse_dataclass(Args, argv, __doc__)
    if args.candidates < 2:
        raise ValueError(f"--candidates must be at least 2 (the choice and an alternative), got {args.candidates}")
    if not 1 <= args.workers <= 64:
        raise ValueError(f"--workers must lie in 1..64 (each numbers its games from worker x 2^14), got {args.workers}")
    if not 0 <= args.seed < 1 << 20:
        raise ValueError(f"--seed must lie in [0, 2^20) (it picks the deal seeds), got {args.seed}")
    if not 0.0 < args.sample <= 1.0:
        raise ValueError(f"--sample must lie in (0, 1], got {args.sample}")
    if args.collect_seconds < 0:
        raise ValueError(f"--collect-seconds must be at least 0, got {args.collect_seconds}")
    if args.teacher:
        if game_key(args.game) != "rummy":
            raise ValueError(f"--teacher searches to the end of the round, which improve sets up in Rummy only, not {args.game}")
        if not args.teacher.startswith("ismcts:"):
            raise ValueError(f"--teacher must be an ismcts spec (its root visits are the labels), got {args.teacher!r}")
        check_agent_spec(args.teacher, args.game)
    return args


@dataclass
class Labels:
    """One row per labelled decision; ``game`` numbers the games they came from."""

    obs: np.ndarray         # (D, obs_size) float16
    candidates: np.ndarray  # (D, K) int64 action ids, the agent's choice first, padded with -1
    q: np.ndarray           # (D, K) float32 value of each candidate, NaN for padding
    game: np.ndarray        # (D,) int64


def concatenated(parts: list[Labels]) -> Labels:
    """The rows of ``parts``, in order."""
    return Labels(*(np.concatenate([getattr(p, f.name) for p in parts]) for f in dataclasses.fields(Labels)))


def rollout_value(game, action: int, seat: int, agents: list) -> float:
    """``seat``'s reward at the next scoring step after ``action`` in ``game`` (a copy: it is
    played on), with ``agents`` (one rule-based agent per seat) choosing every move after it."""
    for agent in agents:   # a plan made in another copy does not hold in this one
        agent.forget_plan()
    rewards = game.step(action)
    while rewards is None and not game.done:
        s = game.current_player
        rewards = game.step(int(agents[s].act(game.observation(s), game.legal_mask().copy(), game.view(s))))
    return 0.0 if rewards is None else float(rewards[seat])


def teacher_shares(teacher, env, seat: int, ranked: list[int]) -> list[float]:
    """Each of ``ranked``'s share of the root visits of ``teacher`` (an ISMCTS agent) searching
    ``env.game`` for ``seat`` to the end of the round (a copy whose ``max_rounds`` option ends the
    match there), from the seat's information only."""
    game = env.game
    world = game.clone()
    world.options = dataclasses.replace(game.options, max_rounds=game.rounds_played + 1)
    teacher.act_on(InformationState(world, seat, world.options))
    visits = teacher.last_visits
    total = sum(visits.values())
    return [visits.get(a, 0) / total for a in ranked]


def collect(key: str, options: dict, args: Args, worker: int = 0) -> Labels:
    """Rule-based games until worker ``worker``'s share of ``args.decisions`` is labelled (module
    docstring, step 1); its games are numbered ``worker`` x 2^14 + 0, 1, ..."""
    env = make_raw_env(key, **options)
    rule = heuristic_class(key)
    if not hasattr(rule, "ranked_actions"):
        raise ValueError(f"improve needs a rule-based agent that ranks its moves; {key}'s does not")
    rng = np.random.default_rng([args.seed, worker, 4242])
    rollout_agents = rule_based_agents(rule, len(env.possible_agents), rng)
    teacher = make_agent(args.teacher, key) if args.teacher else None
    k = args.candidates
    wanted = args.decisions // args.workers + (worker < args.decisions % args.workers)
    deadline = time.perf_counter() + args.collect_seconds if args.collect_seconds else math.inf
    obs_l, cand_l, q_l, game_l = [], [], [], []
    game_id = worker << 14

    def collecting() -> bool:
        return len(q_l) < wanted and time.perf_counter() < deadline

    while collecting():
        env.reset(seed=DEAL_SEED_BASE + (args.seed << 20) + game_id)
        game = env.game
        agents = rule_based_agents(rule, len(env.possible_agents), rng)
        while not game.done and collecting():
            seat = game.current_player
            obs = game.observation(seat)
            ranked = [int(a) for a in agents[seat].ranked_actions(obs, game.legal_mask().copy(), game.view(seat))[:k]]
            if len(ranked) > 1 and rng.random() < args.sample:
                if teacher is None:
                    q = [rollout_value(game.clone(), a, seat, rollout_agents) * args.reward_scale for a in ranked]
                else:
                    teacher.reset(seat, seed=int(rng.integers(1 << 62)))
                    q = teacher_shares(teacher, env, seat, ranked)
                obs_l.append(obs.astype(np.float16))
                cand_l.append(ranked + [-1] * (k - len(ranked)))
                q_l.append(q + [math.nan] * (k - len(q)))
                game_l.append(game_id)
            game.step(ranked[0])
        game_id += 1
    if not q_l:
        raise ValueError(f"worker {worker} labelled no decision within --collect-seconds {args.collect_seconds}")
    return Labels(np.stack(obs_l), np.array(cand_l, np.int64), np.array(q_l, np.float32), np.array(game_l, np.int64))


def collect_all(key: str, options: dict, args: Args) -> Labels:
    """Every worker's labels (``--workers`` processes), in worker order."""
    if args.workers == 1:
        return collect(key, options, args)
    # Spawned, not forked (a fork of a process that has run torch can hang, issue 46); one torch thread each.
    with ProcessPoolExecutor(args.workers, mp_context=multiprocessing.get_context("spawn"),
                             initializer=torch.set_num_threads, initargs=(1,)) as pool:
        parts = list(pool.map(collect, *zip(*[(key, options, args, w) for w in range(args.workers)])))
    return concatenated(parts)


def save_labels(path: str, labels: Labels) -> None:
    """``labels`` as an uncompressed ``.npz``, atomically."""
    io.atomic_write(path, lambda f: np.savez(f, **dataclasses.asdict(labels)), binary=True)


def load_labels(paths: str) -> Labels:
    """The labels of the comma-separated ``.npz`` files ``paths`` (as :func:`save_labels` writes
    them), concatenated; each file's game numbers are shifted past the previous files'."""
    parts, shift = [], 0
    for path in paths.split(","):
        with np.load(path) as data:
            part = Labels(**{f.name: data[f.name] for f in dataclasses.fields(Labels)})
        part.game = part.game + shift
        shift = int(part.game.max()) + 1
        parts.append(part)
    return concatenated(parts)


def fit(net, labels: Labels, args: Args, log) -> list[dict]:
    """Regress the candidates' logit differences on their Q differences and the value on the
    choice's Q, ``args.epochs`` passes; one row of held-out figures per epoch (module docstring)."""
    rng = np.random.default_rng([args.seed, 271828])
    held_out = rng.random(int(labels.game.max()) + 1) < args.val_fraction
    val_rows = np.flatnonzero(held_out[labels.game])
    train_rows = np.flatnonzero(~held_out[labels.game])
    optimizer = torch.optim.Adam(net.parameters(), lr=args.learning_rate)
    q_all = torch.from_numpy(labels.q)

    def forward(rows: np.ndarray):
        """(candidate logits minus the choice's (B, K-1), value (B,), Q (B, K)) of ``rows``."""
        candidates = torch.from_numpy(labels.candidates[rows])
        logits, value = net(torch.from_numpy(with_prior(labels.obs[rows].astype(np.float32), labels.candidates[rows])))
        chosen = logits.gather(1, net.candidate_columns(candidates))
        return chosen[:, 1:] - chosen[:, :1], value, q_all[rows]

    def losses(gap: torch.Tensor, value: torch.Tensor, q: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        target = q[:, 1:] - q[:, :1]
        real = ~torch.isnan(target)
        return ((gap - target.nan_to_num()) ** 2)[real].mean(), 0.5 * ((value - q[:, 0]) ** 2).mean()

    history = []
    for epoch in range(1, args.epochs + 1):
        start = time.perf_counter()
        order = rng.permutation(train_rows)
        batches = [order[j:j + args.batch_size] for j in range(0, len(order), args.batch_size)]
        total = 0.0
        for b, rows in enumerate(batches):
            optimizer.param_groups[0]["lr"] = args.learning_rate * (1.0 - ((epoch - 1) * len(batches) + b)
                                                                    / (args.epochs * len(batches)))
            gap_loss, value_loss = losses(*forward(rows))
            loss = gap_loss + args.vf_coef * value_loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(rows)
        row = {"epoch": epoch, "decisions": len(labels.q), "train_loss": round(total / len(train_rows), 6),
               **held_out_figures(forward, losses, val_rows), "seconds": round(time.perf_counter() - start, 1)}
        history.append(row)
        log(json.dumps(row))
    return history


MARGINS = (0.01, 0.03, 0.1)
"""Margins m of the held-out ``gain_margin_<m>``: the realized gain of departing only where the
predicted gain exceeds m (a more cautious greedy policy)."""
HELD_OUT_FIGURES = ("val_gap_loss", "val_value_loss", "gap_variance", "gap_correlation", "deviation_rate",
                    "realized_gain", "realized_gain_se", "hindsight_gain", *(f"gain_margin_{m}" for m in MARGINS),
                    "pick_best_rate", "choice_best_rate")


def held_out_figures(forward, losses, rows: np.ndarray) -> dict:
    """Over the held-out ``rows`` (NaN without any): the regression and value errors; the variance
    of the real differences Q(candidate) - Q(choice) (the error of the best constant guess) and
    their correlation with the predicted ones; how often the greedy policy departs; its realized
    gain with its standard error; the hindsight gain (module docstring)."""
    if not len(rows):
        return dict.fromkeys(HELD_OUT_FIGURES, math.nan)
    sums, gaps, qs = np.zeros(2), [], []
    with torch.no_grad():
        for j in range(0, len(rows), 4096):
            gap, value, q = forward(rows[j:j + 4096])
            sums += [loss.item() * len(gap) for loss in losses(gap, value, q)]
            gaps.append(gap.numpy())
            qs.append(q.numpy())
    gap, q = np.concatenate(gaps), np.concatenate(qs)
    real = q[:, 1:] - q[:, :1]
    pairs = ~np.isnan(real)

    def greedy_pick(margin: float) -> np.ndarray:
        """Per row: the column of the greedy pick, departing only for a predicted gain > margin."""
        return np.concatenate([np.full((len(q), 1), margin), np.where(pairs, gap, -np.inf)], 1).argmax(1)

    def realized(margin: float) -> np.ndarray:
        """Per row: Q of the greedy pick minus Q(choice)."""
        return q[np.arange(len(q)), greedy_pick(margin)] - q[:, 0]

    gain = realized(0.0)
    best = np.nanmax(q, 1)
    return {"val_gap_loss": round(sums[0] / len(rows), 6), "val_value_loss": round(sums[1] / len(rows), 6),
            "gap_variance": round(float(real[pairs].var()), 6),
            "gap_correlation": round(float(np.corrcoef(gap[pairs], real[pairs])[0, 1]), 5),
            "deviation_rate": round(float(np.mean(np.max(np.where(pairs, gap, -np.inf), 1) > 0)), 5),
            "realized_gain": round(float(gain.mean()), 6),
            "realized_gain_se": round(float(gain.std(ddof=1) / math.sqrt(len(gain))), 6) if len(gain) > 1 else math.nan,
            "hindsight_gain": round(float(np.mean(best - q[:, 0])), 6),
            **{f"gain_margin_{m}": round(float(realized(m).mean()), 6) for m in MARGINS},
            "pick_best_rate": round(float(np.mean(q[np.arange(len(q)), greedy_pick(0.0)] == best)), 5),
            "choice_best_rate": round(float(np.mean(q[:, 0] == best)), 5)}


def improve(args: Args) -> dict:
    """Collect, fit and write (module docstring); returns the summary."""
    torch.set_num_threads(args.torch_threads)
    torch.manual_seed(args.seed)
    key = game_key(args.game)
    run_dir = args.output_dir()
    options = parse_env_options(args.opt)
    log = functools.partial(print, flush=True)
    start = time.perf_counter()
    if args.labels:
        labels = load_labels(args.labels)
    else:
        labels = collect_all(key, options, args)
        save_labels(os.path.join(run_dir, "labels.npz"), labels)
    collect_s = time.perf_counter() - start
    games = len(np.unique(labels.game))
    log(json.dumps({"decisions": len(labels.q), "games": games, "collect_s": round(collect_s, 1)}))
    env = make_raw_env(key, **options)
    net = policy_for_game(key, labels.obs.shape[1], env.action_space(env.possible_agents[0]).n, args.hidden,
                          args.conv_channels, args.head, args.factor_dim, prior="heuristic",
                          prior_weight=args.prior_weight, prior_candidates=args.candidates)
    net.name = f"{key} improvement run {run_dir}"
    history = fit(net, labels, args, log)
    fit_s = time.perf_counter() - start - collect_s
    atomic_torch_save(policy_record(net.eval(), key, options, update=0, global_step=0, improve=dataclasses.asdict(args)),
                      os.path.join(run_dir, "policy.pt"))
    io.write_csv(os.path.join(run_dir, "improve.csv"), history, list(history[0]))
    summary = {"game": key, "options": options, "decisions": len(labels.q), "games": games,
               "collect_s": round(collect_s, 1), "fit_s": round(fit_s, 1),
               **{k: v for k, v in history[-1].items() if k not in ("epoch", "decisions", "seconds")},
               "args": dataclasses.asdict(args), **io.provenance()}
    io.write_json(os.path.join(run_dir, "summary.json"), summary)
    print(json.dumps({k: v for k, v in summary.items() if k not in ("args", "command")}))
    return summary


def main(argv: list[str] | None = None) -> None:
    improve(parse_args(argv))


if __name__ == "__main__":  # runs as `rummy-env improve`
    from rummy_env.experiments.cli import run_as_command
    sys.exit(run_as_command("improve"))
