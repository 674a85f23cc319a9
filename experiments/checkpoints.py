"""Run files of the training tools (``train_ppo``, ``imitate``): checkpoints, CSV logs, curves.

* :func:`policy_record`: the network export (``policy.pt``) that
  :func:`rummy_env.agents.registry.load_ppo_agent` reads: format, game, the env options and the
  observation layout it was trained on, the network's config and weights.
* :func:`save_run` / :func:`load_run`: ``checkpoint.pt`` (the export plus everything a resumed run
  needs) and ``policy.pt``, each written atomically (a temporary file moved into place with
  ``os.replace``), so a kill at any moment leaves the previous files whole; :func:`load_run`
  refuses a checkpoint written with other arguments than the resumed run's.
* :func:`seed_globals`, :func:`random_states` / :func:`restore_random_states`: the global torch,
  numpy and Python generators, so a resumed run draws what an uninterrupted one would.
* :func:`save_trainer` / :func:`resume_trainer`: all of a ``train_ppo`` run's state (network,
  optimizer, games in flight, opponents, pool, generators, counters, log rows; with several
  rollout workers each one's games and generators) to and from them.
* :func:`start_network`: a new network, or the one of ``--init-from``, checked against the run.
* :func:`write_csv`, :func:`write_logs` and :func:`plot_curves`: ``train.csv`` / ``eval.csv`` and
  ``learning_curve.png``.
* :func:`export_fp16`: a run's ``policy.pt`` as the float16 policy file the
  repository commits (``policy_fp16.pt``; loaded back into float32):
  ``python -m rummy_env.experiments.checkpoints RUN_DIR/policy.pt RUN_DIR/policy_fp16.pt``.
"""
from __future__ import annotations

import dataclasses
import os
import pickle
import random
import warnings

import numpy as np
import torch

from rummy_env.agents.policy_checkpoint import CHECKPOINT_FORMAT, check_options, layout_record, load_checkpoint, policy_from_checkpoint
from rummy_env.agents.registry import policy_for_game
from rummy_env.experiments import io
from rummy_env.registry import make_raw_env


def atomic_torch_save(obj, path: str) -> None:
    """Write ``obj`` to ``path`` so that ``path`` always holds a complete file."""
    io.atomic_write(path, lambda f: torch.save(obj, f), binary=True)


def policy_record(net, game: str, options: dict, **extra) -> dict:
    """The export of ``net`` trained on ``game`` with env ``options`` (and so on that env's
    observation layout); ``extra`` keys are added as they are."""
    layout = make_raw_env(game, **options).observation_layout()
    return {"format": CHECKPOINT_FORMAT, "game": game, "options": options,
            "observation_layout": layout_record(layout), "model_config": net.config,
            "model": net.state_dict(), **extra}


def export_fp16(source: str, target: str, gate: float | None = None) -> None:
    """Write the policy export ``source`` (a run's ``policy.pt``) to ``target`` with its
    floating-point weights in float16; ``gate``: set a ``train_dmc`` policy's gate (its prior bonus,
    ``ValueError`` for a policy of another method)."""
    try:
        data = torch.load(source, map_location="cpu", weights_only=True)
    except Exception as e:  # torch.load raises many kinds, with pages of advice, on a file that is not a policy export
        raise ValueError(f"{source} is not a rummy_env policy file (torch.load: {type(e).__name__})") from None
    if not isinstance(data, dict) or data.get("format") != CHECKPOINT_FORMAT:
        raise ValueError(f"{source} is not a rummy_env policy file (no format {CHECKPOINT_FORMAT!r})")
    half = {name: w.half() if w.is_floating_point() else w for name, w in data["model"].items()}
    if gate is not None:
        if data.get("method") != "dmc" or gate < 0:
            raise ValueError(f"--gate {gate}: only a train_dmc policy has a gate, and it is >= 0 ({source} is "
                             f"{'a ' + data['method'] if data.get('method') else 'a PPO'} policy)")
        half["prior_logit"] = torch.tensor(gate).half()
        data = {**data, "gate": gate}
    atomic_torch_save({**data, "model": half}, target)


def save_run(run_dir: str, policy: dict, state: dict) -> None:
    """``run_dir/checkpoint.pt`` (``policy`` and ``state``) and ``run_dir/policy.pt`` (``policy``)."""
    atomic_torch_save({**policy, **state}, os.path.join(run_dir, "checkpoint.pt"))
    atomic_torch_save(policy, os.path.join(run_dir, "policy.pt"))


def load_run(path: str, args: dict, free: tuple[str, ...]) -> dict:
    """The checkpoint at ``path``; ``ValueError`` if its ``"args"`` differ from ``args`` in a key
    outside ``free`` (the arguments a resumed run may change)."""
    data = torch.load(path, map_location="cpu", weights_only=False)
    saved = {k: v for k, v in data["args"].items() if k not in free}
    differ = sorted(k for k in saved if saved[k] != args.get(k))
    if differ:
        raise ValueError(f"{path} was written with other arguments ({', '.join(differ)}); "
                         f"use another --run-dir or --no-resume")
    return data


def seed_globals(seed: int) -> None:
    """Seed the global torch, Python and numpy generators."""
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def random_states() -> dict:
    """The global torch, Python and numpy generator states (for a checkpoint)."""
    return {"torch_rng": torch.get_rng_state(), "py_random": pickle.dumps(random.getstate()),
            "np_global": pickle.dumps(np.random.get_state())}


def restore_random_states(data: dict) -> None:
    """Set the global generators to the states :func:`random_states` put in ``data``."""
    torch.set_rng_state(data["torch_rng"])
    random.setstate(pickle.loads(data["py_random"]))
    np.random.set_state(pickle.loads(data["np_global"]))


def start_network(game: str, options: dict, obs_size: int, num_actions: int, hidden: str, conv_channels: int,
                  init_from: str = "", head: str = "flat", factor_dim: int = 32, prior: str = "",
                  prior_weight: float = 5.0, prior_candidates: int = 0):
    """The network of :func:`rummy_env.agents.registry.policy_for_game`; with ``init_from`` (a
    checkpoint or policy file) its weights, after checking the file's game, options, layout and sizes."""
    net = policy_for_game(game, obs_size, num_actions, hidden, conv_channels, head, factor_dim, prior, prior_weight,
                          prior_candidates)
    if init_from:
        data = load_checkpoint(init_from, game)
        if data.get("model_config", {}).get("obs_size") != obs_size:
            data = widen_input(init_from, data, make_raw_env(game, **options).observation_layout())
        start = policy_from_checkpoint(data)
        check_options(init_from, data, game, options)
        if start.config != net.config:
            raise ValueError(f"--init-from {init_from}: network {start.config} does not match {net.config}")
        net.load_state_dict(start.state_dict())
    return net


def widen_input(path: str, data: dict, layout) -> dict:
    """Checkpoint ``data`` (from ``path``) remapped onto the observation ``layout`` of a longer game
    whose parts have the same names and order but some larger shapes (Contract Rummy's
    ``deal_index`` has one entry per deal: 1 for ``deals=[1]``, 7 for the full game). The first
    layer's weight columns move with their parts; the entries a part gains get zero weight, so the
    network computes the same function wherever those entries are zero, as they always were in the
    games it was trained on. ``ValueError`` when the parts differ in name or order, a part shrinks,
    or the network reads a board through convolutions; a one-line ``UserWarning`` names the
    widened parts."""
    old_parts, new_parts = data.get("observation_layout"), layout_record(layout)
    cfg = data["model_config"]
    if (old_parts is None or [p["name"] for p in old_parts] != [p["name"] for p in new_parts]
            or cfg["board_shape"] is not None):
        raise ValueError(f"--init-from {path}: its observation ({cfg['obs_size']} entries) cannot be mapped "
                         f"onto this env's ({layout.size}): only an MLP policy whose recorded layout has the "
                         f"same parts, some of them larger, can be widened")
    first = data["model"]["trunk.0.weight"]
    rows = first.shape[0]
    widened = torch.zeros(rows, layout.size, dtype=first.dtype)
    grown = []
    for old, new in zip(old_parts, new_parts):
        if len(old["shape"]) != len(new["shape"]) or any(o > n for o, n in zip(old["shape"], new["shape"])):
            raise ValueError(f"--init-from {path}: part {old['name']!r} has shape {old['shape']} there and "
                             f"{new['shape']} here; only growing parts can be widened")
        if old["shape"] != new["shape"]:
            grown.append(f"{old['name']} {old['shape']} -> {new['shape']}")
        part = torch.zeros(rows, *new["shape"], dtype=first.dtype)
        part[(slice(None), *(slice(0, o) for o in old["shape"]))] = \
            first[:, old["start"]:old["stop"]].reshape(rows, *old["shape"])
        widened[:, new["start"]:new["stop"]] = part.flatten(1)
    warnings.warn(f"--init-from {path}: observation widened ({', '.join(grown)}); the new entries "
                  f"start with zero weight", stacklevel=3)
    return {**data, "observation_layout": new_parts, "model": {**data["model"], "trunk.0.weight": widened},
            "model_config": {**cfg, "obs_size": layout.size}}


FREE_ARGS = ("total_timesteps", "progress", "resume", "eval_every", "save_every", "torch_threads", "benchmark",
             "eval_only", "out", "stall_timeout")
"""``train_ppo`` arguments a resumed run may change."""


def save_trainer(trainer) -> None:
    """``checkpoint.pt`` and ``policy.pt`` of a ``train_ppo`` :class:`Trainer` (see :func:`save_run`)."""
    policy = policy_record(trainer.net, trainer.key, trainer.options, update=trainer.update,
                           global_step=trainer.global_step)
    save_run(trainer.run_dir, policy, {
        "args": dataclasses.asdict(trainer.args), "optimizer": trainer.optimizer.state_dict(), "pool": trainer.pool,
        "arena": pickle.dumps(trainer.arena), "shards": trainer.workers.states(), "rng": pickle.dumps(trainer.rng),
        **random_states(),
        "elapsed": trainer.elapsed, "train_rows": trainer.train_rows, "eval_rows": trainer.eval_rows})


def resume_trainer(trainer) -> None:
    """Put the state :func:`save_trainer` wrote in ``trainer.checkpoint_path`` back into ``trainer``
    (``ValueError`` if it was written with other arguments outside :data:`FREE_ARGS`)."""
    data = load_run(trainer.checkpoint_path, dataclasses.asdict(trainer.args), FREE_ARGS)
    trainer.net.load_state_dict(data["model"])
    trainer.optimizer.load_state_dict(data["optimizer"])
    trainer.pool = data["pool"]
    trainer.pool_nets = [trainer.frozen(state) for state in trainer.pool]
    trainer.arena = pickle.loads(data["arena"])
    shards = data.get("shards", [])
    if len(shards) != len(trainer.workers.shards):
        raise ValueError(f"{trainer.checkpoint_path} was written with {len(shards) + 1} rollout workers, the run asks for "
                         f"--rollout-workers {len(trainer.workers.shards) + 1}; use another --run-dir or --no-resume")
    trainer.workers.shards = shards
    trainer.rng = pickle.loads(data["rng"])
    restore_random_states(data)
    trainer.update, trainer.global_step, trainer.elapsed = data["update"], data["global_step"], data["elapsed"]
    trainer.train_rows, trainer.eval_rows = data["train_rows"], data["eval_rows"]


def write_csv(path: str, rows: list[dict]) -> None:
    """Rewrite ``path`` with ``rows`` (the first row's keys are the header), atomically."""
    io.write_csv(path, rows, list(rows[0]) if rows else [])


def write_logs(run_dir: str, train_rows: list[dict], eval_rows: list[dict]) -> None:
    """``run_dir/train.csv`` and ``run_dir/eval.csv``."""
    write_csv(os.path.join(run_dir, "train.csv"), train_rows)
    write_csv(os.path.join(run_dir, "eval.csv"), eval_rows)


def plot_curves(run_dir: str, train_rows: list[dict], eval_rows: list[dict], title: str) -> None:
    """``run_dir/learning_curve.png``: training win share and return per learner decision (top),
    the greedy evaluation's win share per opponent (bottom)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
    steps = [r["global_step"] for r in train_rows]
    ax1.plot(steps, [r["win_share"] for r in train_rows], lw=0.8, label="win share vs training opponents")
    ax1.plot(steps, [r["ep_return"] for r in train_rows], lw=0.8, label="mean episode return")
    ax1.set_ylabel("training")
    ax1.legend(fontsize=8)
    for opponent in dict.fromkeys(r["opponent"] for r in eval_rows):
        rows = [r for r in eval_rows if r["opponent"] == opponent]
        ax2.plot([r["global_step"] for r in rows], [r["win_share"] for r in rows], marker="o",
                 color={"random": "tab:blue", "heuristic": "tab:red"}.get(opponent), label=f"greedy vs {opponent}")
    ax2.set_ylabel("eval win share")
    ax2.set_xlabel("learner decisions")
    ax2.set_ylim(0, 1)
    if eval_rows:
        ax2.legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    io.save_figure(os.path.join(run_dir, "learning_curve.png"), fig, dpi=90)
    plt.close(fig)


def write_summary(trainer, args) -> None:
    """``summary.json`` of a finished training run: what it trained, how far, its last evaluation,
    its arguments and provenance (``trainer``: a ``train_ppo`` or ``train_dmc`` Trainer)."""
    io.write_json(os.path.join(trainer.run_dir, "summary.json"), {
        "game": trainer.key, "options": trainer.options, "update": trainer.update,
        "global_step": trainer.global_step, "env_steps": trainer.env_steps, "time_s": round(trainer.elapsed, 2),
        "last_eval": last_evals(trainer), "args": dataclasses.asdict(args), **io.provenance()})


def last_evals(trainer) -> list[dict]:
    """The rows of a run's last evaluation, one per opponent."""
    return trainer.eval_rows[-len(trainer.eval_specs):] if trainer.eval_rows else []


def print_outcome(trainer) -> None:
    """The closing lines of a training run: its last evaluation and the files it wrote."""
    for row in last_evals(trainer):
        print(f"update {row['update']} step {row['global_step']}: greedy win share vs {row['opponent']} "
              f"{row['win_share']:.3f} over {row['episodes']} games")
    print(f"wrote {trainer.run_dir}/(checkpoint.pt, policy.pt, train.csv, eval.csv, learning_curve.png, summary.json)")


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``python -m rummy_env.experiments.checkpoints``."""
    import argparse
    parser = argparse.ArgumentParser(description="Export a run's policy as a float16 policy file.")
    parser.add_argument("source", help="the policy.pt of a run")
    parser.add_argument("target", help="the float16 file to write, e.g. RUN_DIR/policy_fp16.pt")
    parser.add_argument("--gate", type=float, default=None,
                        help="a train_dmc policy: how much more Q must value a move than the rule-based one "
                        "to play it (default: the run's)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    export_fp16(args.source, args.target, args.gate)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
