"""The rollout of ``train_ppo``: learner decisions in the :class:`~rummy_env.experiments.arena.Arena`
games, with GAE (:func:`collect_rollout`), in this process or split over several
(:class:`RolloutWorkers`, ``--rollout-workers``).

With W rollout workers the run's ``num_envs`` games are W shards of ``num_envs / W``; the trainer's
process plays the first, and each other one lives in a process of its own with a copy of the
network, the opponent pool and its own torch generator. Every update the trainer sends the
current weights (and the pool after a snapshot), all shards collect at once, and the batches are
joined; the PPO update stays in the trainer. So a run uses W cores for its rollouts, and with a
given W it is as reproducible, and resumes as exactly, as with one (the shards' games and
generators travel in the checkpoint).

The shard processes are spawned, never forked (a fork of a process that has run torch inherits
the locks of its thread pools without their threads, issue 46), and each sets torch to one
thread. A shard that dies, or sends nothing for ``--stall-timeout`` seconds, stops the run with a
:class:`RolloutWorkerError` naming it.
"""
from __future__ import annotations

import copy
import multiprocessing
import pickle

import numpy as np
import torch

from rummy_env.experiments.arena import Arena
from rummy_env.experiments.checkpoints import random_states, restore_random_states, seed_globals

SHARD_SEED_STRIDE = 1_000_000_007
"""The games of shard w of a run with seed s come from seed ``s + w * SHARD_SEED_STRIDE``."""


def compute_gae(rewards, ended, values, next_value, gamma, lam):
    """Advantages and returns over a (T, N) rollout; ``ended[t]``: the episode ended after step t."""
    T = rewards.shape[0]
    advantages = torch.zeros_like(rewards)
    lastgae = torch.zeros_like(next_value)
    for t in reversed(range(T)):
        nxt = next_value if t == T - 1 else values[t + 1]
        nonterminal = 1.0 - ended[t]
        delta = rewards[t] + gamma * nxt * nonterminal - values[t]
        lastgae = delta + gamma * lam * nonterminal * lastgae
        advantages[t] = lastgae
    return advantages, advantages + values


def collect_rollout(arena: Arena, net, pool_act, args) -> dict:
    """One rollout of ``args.num_steps`` learner decisions in every game of ``arena``, as flat
    tensors with GAE; ``pool_act(slot, obs, mask)`` plays the pool snapshots' seats."""
    vg = arena.vg
    T, N = args.num_steps, vg.num_envs
    everyone = np.arange(N)
    obs_b = torch.zeros((T, N, vg.obs_size + net.prior_width))
    mask_b = torch.zeros((T, N, vg.num_actions), dtype=torch.bool)
    act_b = torch.zeros((T, N), dtype=torch.long)
    logp_b, val_b, rew_b, end_b = (torch.zeros((T, N)) for _ in range(4))
    # Fresh deals may start with an opponent to act (a no-op once every game waits for the learner).
    arena.advance(everyone, np.zeros(N), np.ones(N, bool), pool_act)
    for t in range(T):
        obs, mask, seat = vg.observe()
        obs_t, mask_t = torch.from_numpy(arena.policy_inputs(everyone, obs, mask, seat)), torch.from_numpy(mask).bool()
        with torch.no_grad():
            action, logp, value = net.choose(obs_t, mask_t)
        obs_b[t], mask_b[t], act_b[t], logp_b[t], val_b[t] = obs_t, mask_t, action, logp, value
        carry, arena.carry = arena.carry, np.zeros(N)
        reward, ended = arena.step(everyone, action.numpy())
        reward = reward + carry
        arena.advance(everyone, reward, ended, pool_act)
        rew_b[t] = torch.from_numpy(reward * args.reward_scale).float()
        end_b[t] = torch.from_numpy(ended.astype(np.float32))
    with torch.no_grad():
        next_value = net.value(torch.from_numpy(vg.observe()[0]))
    adv, ret = compute_gae(rew_b, end_b, val_b, next_value, args.gamma, args.gae_lambda)
    return {"obs": obs_b.reshape(T * N, -1), "mask": mask_b.reshape(T * N, -1),
            "actions": act_b.reshape(-1), "logp": logp_b.reshape(-1), "values": val_b.reshape(-1),
            "advantages": adv.reshape(-1), "returns": ret.reshape(-1)}


def as_numpy(tensors: dict) -> dict:
    """A state dict or batch as numpy arrays, the form they travel between processes in."""
    return {k: v.numpy() for k, v in tensors.items()}


def as_torch(arrays: dict) -> dict:
    """The arrays of :func:`as_numpy` back as tensors."""
    return {k: torch.from_numpy(v) for k, v in arrays.items()}


def rollout_worker(conn, net, pool: list[dict], arena_state: bytes, random_state: dict | None, seed: int,
                   args) -> None:
    """A shard's process: its games (``arena_state``, a pickled :class:`Arena`), a copy of the
    network ``net`` and of the opponent ``pool``, its torch generator (seeded with ``seed``, or set
    to ``random_state`` on resume). Requests on ``conn``, each answered ``("ok", value)`` or
    ``("error", exception)``: ``("collect", (weights, pool or None))`` answers the batch, the
    finished episodes and the env step count; ``("state", None)`` the pickled arena and the
    generator states; ``("close", None)`` ends it."""
    torch.set_num_threads(1)
    if random_state:
        restore_random_states(random_state)
    else:
        seed_globals(seed)
    arena = pickle.loads(arena_state)

    def snapshot(weights: dict):
        # A copy, not a new network as Trainer.frozen builds: building one would draw initial
        # weights from this shard's torch generator and change the games it samples.
        frozen = copy.deepcopy(net)
        frozen.load_state_dict(as_torch(weights))
        return frozen.eval()

    pool_nets, arena.pool_len = [snapshot(w) for w in pool], len(pool)
    conn.send(("ok", arena.env_steps))
    while True:
        request, payload = conn.recv()
        if request == "close":
            return
        try:
            if request == "state":
                reply = pickle.dumps(arena), random_states()
            else:
                weights, new_pool = payload
                net.load_state_dict(as_torch(weights))
                if new_pool is not None:
                    pool_nets, arena.pool_len = [snapshot(w) for w in new_pool], len(new_pool)
                batch = collect_rollout(arena, net, lambda slot, obs, mask: pool_nets[slot].act(obs, mask), args)
                reply = as_numpy(batch), arena.take_episodes(), arena.env_steps
        except Exception as error:  # sent to the trainer, which raises it
            conn.send(("error", error))
            continue
        conn.send(("ok", reply))


class RolloutWorkerError(RuntimeError):
    """A shard's process died or stalled."""


class RolloutWorkers:
    """The processes of a run's shards past the first (none with one rollout worker).
    ``shards``: each one's pickled :class:`Arena` and generator states (None: seed afresh), as
    :meth:`states` gives them for the checkpoint; ``stall_timeout``: the seconds a shard may take
    to answer (0: no limit)."""

    def __init__(self, shards: list[tuple[bytes, dict | None]], stall_timeout: float = 0.0):
        self.shards = shards
        self.stall_timeout = stall_timeout
        self.connections: list = []
        self.processes: list = []
        self.env_steps = [0] * len(shards)
        """each remote shard's env steps so far"""

    def start(self, net, pool: list[dict], seed: int, args) -> None:
        """Start a process per shard with ``net`` and the opponent ``pool`` (state dicts)."""
        context = multiprocessing.get_context("spawn")
        weights = [as_numpy(p) for p in pool]
        for w, (arena_state, random_state) in enumerate(self.shards, start=1):
            mine, theirs = context.Pipe()
            process = context.Process(target=rollout_worker, daemon=True, args=(
                theirs, net, weights, arena_state, random_state, seed + w * SHARD_SEED_STRIDE, args))
            process.start()
            self.connections.append(mine)
            self.processes.append(process)
            self.env_steps[w - 1] = self.receive(w - 1)

    def receive(self, index: int):
        """The answer of the shard process ``index`` (its error raised; :class:`RolloutWorkerError`
        when it has died or sends nothing within ``stall_timeout``)."""
        conn, process = self.connections[index], self.processes[index]
        where = f"rollout worker {index + 1} (shard {index + 1}, process {process.pid})"
        if self.stall_timeout and not conn.poll(self.stall_timeout):
            raise RolloutWorkerError(f"{where} sent nothing for {self.stall_timeout:g} s (--stall-timeout)")
        try:
            status, value = conn.recv()
        except EOFError:
            process.join(timeout=1)
            raise RolloutWorkerError(f"{where} died (exit code {process.exitcode})") from None
        if status == "error":
            raise value
        return value

    def send_collect(self, weights: dict, pool: list[dict] | None) -> None:
        """Every shard starts a rollout with the network ``weights`` (and the new ``pool``)."""
        payload = as_numpy(weights), None if pool is None else [as_numpy(p) for p in pool]
        for conn in self.connections:
            conn.send(("collect", payload))

    def receive_collect(self) -> tuple[list[dict], list]:
        """The shards' batches (as tensors) and finished episodes, once each is done."""
        batches, episodes = [], []
        for w in range(len(self.connections)):
            batch, finished, self.env_steps[w] = self.receive(w)
            batches.append(as_torch(batch))
            episodes.extend(finished)
        return batches, episodes

    def states(self) -> list[tuple[bytes, dict | None]]:
        """Each shard's pickled games and generator states (from the processes once started)."""
        for conn in self.connections:
            conn.send(("state", None))
        return [self.receive(w) for w in range(len(self.connections))] if self.connections else self.shards

    def close(self) -> None:
        """End the processes. One still sending a rollout nobody will read (the trainer failed
        during its own shard's), or stalled, is terminated: it holds nothing the checkpoint lacks."""
        for conn, process in zip(self.connections, self.processes):
            if process.is_alive():
                conn.send(("close", None))
                process.join(timeout=2)
            if process.is_alive():
                process.terminate()
                process.join()
        self.connections, self.processes = [], []
