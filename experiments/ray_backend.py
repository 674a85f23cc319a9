"""Tournaments on Ray: chunks of deal seeds as Ray tasks (``rummy-env tournament --backend ray``).

:class:`RayChunkRunner` starts a local Ray with ``workers`` CPUs, or joins the cluster at
``address`` (``ray start --head`` on one machine, ``ray start --address=HEAD:6379`` on the
others), or uses the Ray this process has already initialised. Each chunk of games (whole deal
seeds, all their seatings) is one task calling :func:`rummy_env.experiments.tournament._play_chunk`, so the
env and the agents are built inside the task from their specs, exactly as on the process pool,
and a chunk's records depend only on its seeds: the same seeds give the same results on either
backend.

A task whose worker process dies (killed, out of memory, a lost node) is run again by Ray, up to
``MAX_RETRIES`` times; a chunk returns its records only when all its games are played, so a retry
neither loses nor duplicates a game. An exception raised by a game (e.g. an illegal action) is not
retried: it ends the tournament, as on the process pool.

Ray's start-up (``ray.init`` and the first import of the game in every worker) is timed apart from
the games, in :attr:`RayChunkRunner.startup_s`.
"""
from __future__ import annotations

import time
from typing import Callable, Iterator

import ray

MAX_RETRIES = 3
"""Times Ray reruns a chunk whose worker process died."""


def _warm_up(game: str, options: dict) -> int:
    """Import the game (and build its env) in a worker, so start-up is not counted as play."""
    from rummy_env.registry import make_raw_env

    make_raw_env(game, **options)
    return 0


class RayChunkRunner:
    """Runs tournament chunks as Ray tasks on a local Ray or a cluster (see the module docstring)."""

    def __init__(self, workers: int, address: str | None, game: str, options: dict) -> None:
        start = time.perf_counter()
        self.started_ray = not ray.is_initialized()
        if self.started_ray:
            if address is None:  # a fresh local Ray with one CPU per worker
                ray.init(address="local", num_cpus=workers, include_dashboard=False, log_to_driver=False)
            else:
                ray.init(address=address, log_to_driver=False)
        try:
            self.cpus = int(ray.cluster_resources().get("CPU", 0))
            if self.cpus < 1:
                raise ValueError(f"the Ray cluster at {address or 'this process'} has no CPUs for tournament tasks")
            self.workers = workers if address is None and self.started_ray else self.cpus
            ray.get([ray.remote(num_cpus=1)(_warm_up).remote(game, options) for _ in range(self.workers)])
        except BaseException:
            self.close()
            raise
        self.startup_s = time.perf_counter() - start

    def play(self, play_chunk: Callable, args: tuple, chunks: list[list]) -> Iterator[list[dict]]:
        """Submit every chunk as a task; yield each chunk's records as it finishes (any order)."""
        task = ray.remote(num_cpus=1, max_retries=MAX_RETRIES, retry_exceptions=False)(play_chunk)
        pending = [task.remote(*args, chunk) for chunk in chunks]
        try:
            while pending:
                finished, pending = ray.wait(pending, num_returns=1)
                try:
                    records = ray.get(finished[0])
                except ray.exceptions.RayTaskError as e:  # the game's own error, not Ray's wrapper
                    raise e.cause from None
                yield records
        finally:
            for ref in pending:
                ray.cancel(ref, force=True)

    def close(self) -> None:
        """Shut down the Ray this runner started (a joined cluster or an outer Ray is left running)."""
        if self.started_ray:
            ray.shutdown()
