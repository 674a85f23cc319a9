"""RLlib PPO (new API stack) on a rummy_env game, rollouts spread over a Ray cluster.

    rummy-env train-rllib --game rummy --iterations 20 --env-runners 1 --option max_rounds=1
    rummy-env train-rllib --game tongits --iterations 200 --env-runners 30 --address auto

(the options are those of ``rummy-env train-rllib --help``, :func:`rummy_env.experiments.cli.build_parser`).

One shared ``learner`` module (:class:`rummy_env.experiments.rllib_env.ActionMaskingPPOModule`) plays every
seat the rule-based agent does not (self-play), and the rule-based agent plays the others as the
non-trainable ``rule_based`` module (:mod:`rummy_env.experiments.rllib_env`: each seat is rule-based with
probability ``--rule-based-share`` per episode). ``--env-runners K`` remote env runners sample in
parallel (one CPU each); the learner updates in this process. Without ``--address`` a local Ray
with K + 1 CPUs is started; with it, the cluster is joined.

Every iteration's numbers (env steps sampled, its wall time, env steps/s, the learner's mean
episode return, its losses) go to ``--out`` (JSON, default
``runs/rllib_<game>_s<seed>.json``) with the arguments and :func:`rummy_env.experiments.io.provenance`.
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import ray
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec

from rummy_env.experiments import io
from rummy_env.experiments.options import parse_env_options
from rummy_env.experiments.rllib_env import (LEARNER, RULE_BASED, ActionMaskingPPOModule, CardGameMultiAgentEnv,
                                   RuleBasedRLModule, card_game_spaces, policy_mapping)
from rummy_env.registry import game_key


def ppo_config(game: str, options: dict, env_runners: int, rule_based_share: float = 0.5, seed: int = 0,
               batch_size: int = 4000, minibatch_size: int = 500, epochs: int = 4, lr: float = 3e-4,
               hidden: tuple[int, ...] = (256, 256)) -> PPOConfig:
    """PPO on :class:`CardGameMultiAgentEnv` with the learner and rule-based modules."""
    learner_space, rule_based_space, action_space = card_game_spaces(game, options)
    modules = MultiRLModuleSpec(rl_module_specs={
        LEARNER: RLModuleSpec(module_class=ActionMaskingPPOModule, observation_space=learner_space,
                              action_space=action_space, model_config={"fcnet_hiddens": list(hidden),
                                                                        "vf_share_layers": False}),
        RULE_BASED: RLModuleSpec(module_class=RuleBasedRLModule, observation_space=rule_based_space,
                                 action_space=action_space),
    })
    return (
        PPOConfig()
        .environment(CardGameMultiAgentEnv, env_config={"game": game, "options": options,
                                                        "rule_based_share": rule_based_share, "seed": seed},
                     # RLlib's check steps a random, unmasked action, which the env refuses
                     disable_env_checking=True)
        .env_runners(num_env_runners=env_runners, num_envs_per_env_runner=1, num_cpus_per_env_runner=1)
        .learners(num_learners=0)
        .multi_agent(policies={LEARNER, RULE_BASED}, policy_mapping_fn=policy_mapping,
                     policies_to_train=[LEARNER])
        .rl_module(rl_module_spec=modules)
        .training(train_batch_size_per_learner=batch_size, minibatch_size=minibatch_size,
                  num_epochs=epochs, lr=lr)
        .debugging(seed=seed)
    )


def iteration_stats(result: dict, seconds: float) -> dict:
    """The numbers this tool records of one ``Algorithm.train()`` result that took ``seconds``."""
    runners = result.get("env_runners", {})
    learner = result.get("learners", {}).get(LEARNER, {})
    steps = int(runners.get("num_env_steps_sampled", 0))
    return {
        "env_steps": steps,
        "seconds": seconds,
        "env_steps_per_s": steps / seconds,
        "episodes": int(runners.get("num_episodes", 0)),
        "learner_return_mean": float(runners.get("module_episode_return_mean", {}).get(LEARNER, math.nan)),
        "policy_loss": float(learner.get("policy_loss", math.nan)),
        "vf_loss": float(learner.get("vf_loss", math.nan)),
        "entropy": float(learner.get("entropy", math.nan)),
        "total_loss": float(learner.get("total_loss", math.nan)),
    }


def sampling_rate(algo, steps_per_runner: int) -> dict:
    """Env steps/s of the remote env runners sampling ``steps_per_runner`` env steps each, all at
    once, with the current policy (rollouts alone, no update)."""
    start = time.perf_counter()
    counts = algo.env_runner_group.foreach_env_runner(
        lambda runner: sum(len(e) for e in runner.sample(num_timesteps=steps_per_runner)), local_env_runner=False)
    seconds = time.perf_counter() - start
    return {"env_steps": int(sum(counts)), "seconds": seconds, "env_steps_per_s": sum(counts) / seconds}


def train(game: str, options: dict, iterations: int, env_runners: int, address: str | None = None,
          sample_steps: int = 0, **config_kwargs) -> dict:
    """Run ``iterations`` PPO iterations; return the per-iteration stats and the run's totals (env
    steps/s over whole iterations: sampling and update). With ``sample_steps``, the env runners
    then sample that many env steps each and ``sampling`` holds their env steps/s alone.

    Starts a local Ray with ``env_runners + 1`` CPUs (or joins ``address``) unless Ray is already
    initialised, and shuts down only a Ray it started."""
    start = time.perf_counter()
    started_ray = not ray.is_initialized()
    if started_ray:
        if address is None:
            ray.init(address="local", num_cpus=env_runners + 1, include_dashboard=False, log_to_driver=False)
        else:
            ray.init(address=address, log_to_driver=False)
    try:
        algo = ppo_config(game, options, env_runners, **config_kwargs).build_algo()
        startup_s = time.perf_counter() - start
        stats = []
        for _ in range(iterations):
            iteration_start = time.perf_counter()
            result = algo.train()
            stats.append(iteration_stats(result, time.perf_counter() - iteration_start))
        sampling = sampling_rate(algo, sample_steps) if sample_steps > 0 else None
        algo.stop()
    finally:
        if started_ray:
            ray.shutdown()
    steps = sum(s["env_steps"] for s in stats)
    train_s = sum(s["seconds"] for s in stats)
    return {"game": game, "options": options, "iterations": iterations, "env_runners": env_runners,
            "startup_s": startup_s, "train_s": train_s, "env_steps": steps, "env_steps_per_s": steps / train_s,
            "sampling": sampling, "per_iteration": stats}


def learner_return_text(iteration: dict) -> str:
    """An iteration's mean learner return, or why it has none: RLlib averages the returns of the
    episodes that ended in the iteration only."""
    if not math.isnan(iteration["learner_return_mean"]):
        return f"{iteration['learner_return_mean']:.3g}"
    if iteration["episodes"] == 0:
        return "n/a (no episode ended in this iteration; a larger --batch-size spans whole games)"
    return "n/a (RLlib reported no learner return for the episodes that ended)"


def main(args: argparse.Namespace) -> int:
    """Train (the arguments of ``rummy-env train-rllib``), print one line per iteration, write ``--out``."""
    game = game_key(args.game)
    options = parse_env_options(args.option)
    result = train(game, options, args.iterations, args.env_runners, args.address,
                   rule_based_share=args.rule_based_share, seed=args.seed, batch_size=args.batch_size,
                   minibatch_size=args.minibatch_size, epochs=args.epochs)
    for i, s in enumerate(result["per_iteration"], 1):
        print(f"iteration {i}: {s['env_steps']} env steps in {s['seconds']:.1f} s "
              f"({s['env_steps_per_s']:.0f}/s), learner return mean {learner_return_text(s)}, "
              f"policy loss {s['policy_loss']:.3g}, vf loss {s['vf_loss']:.3g}")
    out = Path(args.out or f"runs/rllib_{game}_s{args.seed}.json")
    io.write_json(out, {**result, "arguments": {k: v for k, v in vars(args).items() if k != "func"}, **io.provenance()})
    print(f"{result['env_steps']} env steps with {args.env_runners} env runner(s): "
          f"{result['env_steps_per_s']:.0f} env steps/s (sampling and updates); Ray start-up {result['startup_s']:.1f} s; "
          f"wrote {out}")
    return 0


if __name__ == "__main__":  # runs as `rummy-env train-rllib`
    from rummy_env.experiments.cli import run_as_command
    sys.exit(run_as_command("train-rllib"))
