"""Tournaments between agents in any rummy_env game: duplicate deals, confidence intervals, ratings.

Design (issue 7):

- **Duplicate deals with seat rotation.** With n seats and k agents (k <= n) the agents sit
  cyclically (seat s gets agent s mod k) and that seating is rotated through all n shifts, each
  shift replaying the *same* deal seed. Every agent therefore plays every seat on every deal seed,
  which cancels the luck of the cards and of the seat. With k > n every n-agent subset is a
  lineup, each rotated the same way. ``--games G`` plays ceil(G / seatings) deal seeds.
- **Win credit.** The seat with the highest episode return wins the game; a tie for highest splits
  the credit equally. An agent's *win share* is its win credit per seat it played, so an agent no
  better than the others scores 1/n.
- **Confidence intervals (95%).** Percentile bootstrap over deal seeds (2,000 resamples): all the
  games of one deal seed (every rotation) are resampled together, because they share the cards and
  are not independent. Used for both mean reward and win share.
- **Rating.** openskill's Plackett-Luce model, updated game by game in game-index order, every
  seat its own team, ranked by episode return (ties share a rank). An agent sitting several seats
  of one game gets the mean of its seats' updated ratings.
- **Reproducibility.** Every game's environment seed, options, seating, agent seeds, action texts
  and returns go to a JSON-lines log as games finish (``rummy_env.experiments.replay`` replays any of them);
  results go to JSON and CSV (atomic writes) and a PNG plot of win shares with their CIs.

Games run in parallel on a process pool (chunks of deal seeds), or with ``backend="ray"`` as Ray
tasks on a local Ray or a cluster (:mod:`rummy_env.experiments.ray_backend`); every worker builds its own
environment and agents from the specs, so nothing unpicklable crosses a process boundary, and the
results do not depend on the backend.

**Workers and stalls (issue 46).** The pool's workers are *spawned* (a fresh interpreter each), never
forked: a parent that has run torch holds live OpenMP/MKL thread pools, and a forked child inherits
their locks without the threads that would release them (a ``value=ppo`` search agent hung in
``torch.nn.init``). Each worker limits torch to one thread once its agents are built. Every worker
reports each game it finishes; a chunk with no finished game for ``stall_timeout`` seconds, or a
worker that dies, ends the tournament with a :class:`TournamentError` naming the chunk and the game
it was playing, after the games of the finished chunks are appended to the replay log.
"""
from __future__ import annotations

import json
import math
import multiprocessing
import os
import re
import sys
import time
import warnings
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any, Callable

import numpy as np

from rummy_env.agents.base import win_credit
from rummy_env.agents.presets import resolve_spec
from rummy_env.agents.registry import agent_labels, check_agent_spec, make_agent
from rummy_env.registry import game_key, make_raw_env
from rummy_env.render import plural

from . import io

BOOTSTRAP_RESAMPLES = 2000
CI_METHOD = (f"95% percentile bootstrap over deal seeds ({BOOTSTRAP_RESAMPLES} resamples; "
             "all seat rotations of a deal seed resampled together)")
WIN_RULE = "a seat wins when it has the highest episode return; ties for highest split the win"
RATING_METHOD = ("openskill PlackettLuce, one team per seat ranked by episode return, "
                 "updated in game-index order")


class TournamentError(RuntimeError):
    """A game could not be played (e.g. an agent chose an illegal action)."""


@dataclass(frozen=True)
class TournamentConfig:
    """What to play. ``games`` is a minimum: whole deal seeds (all rotations) are played."""

    game: str
    agents: tuple[str, ...]
    games: int = 1000
    seed: int = 0
    options: dict[str, Any] = field(default_factory=dict)
    workers: int = 1
    backend: str = "process"
    """``process`` (a local process pool) or ``ray`` (Ray tasks, :mod:`rummy_env.experiments.ray_backend`)."""
    address: str | None = None
    """With the ray backend: the address of a running Ray cluster to join (None: a local Ray)."""
    stall_timeout: float = 600.0
    """Process backend with 2+ workers: seconds a chunk may go without finishing a game before the
    tournament fails naming it (0: wait forever)."""


BACKENDS = ("process", "ray")


# -- seating and seeds ------------------------------------------------------------------------------
def seatings(num_agents: int, num_seats: int) -> list[tuple[int, ...]]:
    """Agent index per seat for every game of one deal seed (see the module docstring)."""
    if num_agents < 1:
        raise ValueError("a tournament needs at least one agent")
    if num_agents <= num_seats:
        lineups = [tuple(s % num_agents for s in range(num_seats))]
    else:
        lineups = list(combinations(range(num_agents), num_seats))
    return [tuple(lineup[(s + r) % num_seats] for s in range(num_seats))
            for lineup in lineups for r in range(num_seats)]


def deal_seed(seed: int, deal: int) -> int:
    """Environment seed of deal number ``deal`` in a tournament with base ``seed``."""
    return int(np.random.SeedSequence([seed, deal]).generate_state(1)[0])


def agent_seed(seed: int, deal: int, rotation: int, seat: int) -> int:
    """Seed handed to ``Agent.reset`` for one seat of one game."""
    return int(np.random.SeedSequence([seed, deal, rotation, seat, 1]).generate_state(1)[0])


def num_deals(config: TournamentConfig, num_seats: int) -> int:
    return math.ceil(config.games / len(seatings(len(config.agents), num_seats)))


# -- configuration checks -------------------------------------------------------------------------
def check_config(config: TournamentConfig) -> int:
    """Raise ``ValueError`` (one-line message) for anything wrong; return the number of seats."""
    key = game_key(config.game)
    if "render_mode" in config.options:
        raise ValueError("render_mode is not a tournament option (games are not rendered; "
                         "`rummy-env replay` shows any logged game)")
    try:
        env = make_raw_env(key, **config.options)
    except (TypeError, ValueError) as e:
        raise ValueError(f"bad option for {key}: {e}") from None
    if not config.agents:
        raise ValueError("give at least one agent, e.g. --agents random,heuristic")
    for spec in config.agents:
        check_agent_spec(spec, key)
    if config.games < 1:
        raise ValueError(f"--games must be at least 1, got {config.games}")
    if config.workers < 1:
        raise ValueError(f"--workers must be at least 1, got {config.workers}")
    if config.seed < 0:
        raise ValueError(f"--seed must be >= 0, got {config.seed}")
    if config.backend not in BACKENDS:
        raise ValueError(f"unknown backend {config.backend!r}: choose one of {', '.join(BACKENDS)}")
    if not config.stall_timeout >= 0:
        raise ValueError(f"--stall-timeout must be >= 0 seconds (0: wait forever), got {config.stall_timeout}")
    if config.address is not None and config.backend != "ray":
        raise ValueError("--address joins a Ray cluster: it needs --backend ray")
    try:
        json.dumps(config.options)
    except TypeError as e:
        raise ValueError(f"options must be JSON values (they are recorded for replays): {e}") from None
    return len(env.possible_agents)


# -- playing --------------------------------------------------------------------------------------
def play_game(env, seat_agents: list, env_seed: int, agent_seeds: list[int]) -> dict:
    """One episode on a raw ``CardGameEnv``; each seat's agent acts from its observation, mask and
    view only. Returns the action texts, per-seat returns, steps and whether it was truncated.

    An agent with ``uses_view = False`` (e.g. ``random``, which reads only the mask) is handed
    ``{}`` instead of the view, which saves building the view every step. An agent with
    ``uses_information_state`` (the search agents, the language-model agent) is given the seat's
    information state instead (``agent.act_on(env.information_state(seat))``)."""
    env.reset(seed=env_seed)
    for seat, agent in enumerate(seat_agents):
        agent.reset(seat, agent_seeds[seat])
    names = env.possible_agents
    mapping = env.agent_name_mapping
    returns = [0.0] * len(names)
    actions: list[str] = []
    while True:
        name = env.agent_selection
        if env.terminations[name] or env.truncations[name]:
            break
        action = agent_move(seat_agents[mapping[name]], env, mapping[name])
        text = env.action_to_text(action)
        env.step(action)
        actions.append(text)
        rewards = env.rewards
        for i, n in enumerate(names):
            returns[i] += rewards[n]
    return {"actions": actions, "returns": returns, "steps": len(actions),
            "truncated": bool(any(env.truncations.values()))}


def agent_move(agent, env, seat: int) -> int:
    """``agent``'s move for ``seat`` (the seat to act) of the raw env ``env``: from the seat's
    information state for an agent with ``uses_information_state``, else from the seat's
    observation, mask and view (``{}`` for an agent with ``uses_view = False``)."""
    if agent.uses_information_state:
        return int(agent.act_on(env.information_state(seat)))
    obs = env.observe(env.possible_agents[seat])
    return int(agent.act(obs["observation"], obs["action_mask"], env.view(seat) if agent.uses_view else {}))


_WORKER: dict[str, Any] = {}
_PROGRESS: list = []
"""In a pool worker: the queue its progress events go to (:func:`_start_pool_worker`)."""


def _start_pool_worker(progress) -> None:
    """Initializer of a pool worker: keep the driver's ``progress`` queue and send this worker's
    warnings there too (the driver shows each once, not once per worker)."""
    _PROGRESS.append(progress)
    warnings.showwarning = lambda message, *args, **kwargs: progress.put(("warning", str(message)))


def _report(first_index: int, done: int) -> None:
    """Tell the driver (from a pool worker) that the chunk starting at game ``first_index`` has
    finished ``done`` games."""
    if _PROGRESS:
        _PROGRESS[0].put(("progress", (first_index, done, os.getpid())))


def _worker_state(game: str, options: dict, specs: tuple[str, ...]) -> dict:
    """The env and agents of this process, built once per configuration."""
    key = (game, json.dumps(options, sort_keys=True), specs)
    if _WORKER.get("key") != key:
        _release_worker()
        _WORKER.update(key=key, env=make_raw_env(game, **options), agents={})
    return _WORKER


def _limit_torch_threads() -> None:
    """Once an agent has imported torch (``ppo``, ``value=ppo``), limit it to one intra-op thread
    while the tournament plays (the previous count is kept in ``torch_threads`` and restored by
    :func:`_release_worker`): an agent acts on one observation at a time, where more threads only
    add overhead and oversubscribe the cores of parallel workers (a Ginny-O policy played 5.4 times
    slower with torch's default two threads on a 2-core machine)."""
    torch = sys.modules.get("torch")
    if torch is not None and "torch_threads" not in _WORKER:
        _WORKER["torch_threads"] = torch.get_num_threads()
        torch.set_num_threads(1)


def _release_worker() -> None:
    """Forget this process's env and agents; give torch back its thread count."""
    threads = _WORKER.get("torch_threads")
    if threads is not None:
        import torch
        torch.set_num_threads(threads)
    _WORKER.clear()


def _play_chunk(game: str, options: dict, specs: tuple[str, ...], labels: list[str], seed: int,
                tasks: list[tuple[int, int, int, tuple[int, ...]]]) -> list[dict]:
    """Play ``tasks`` (game index, deal, rotation, seating) and return their log records."""
    _report(tasks[0][0], 0)
    state = _worker_state(game, options, specs)
    env, agents = state["env"], state["agents"]
    records = []
    for index, deal, rotation, seating in tasks:
        seat_agents = []
        for seat, a in enumerate(seating):
            if (a, seat) not in agents:
                agents[(a, seat)] = make_agent(specs[a], game, options)
            seat_agents.append(agents[(a, seat)])
        _limit_torch_threads()
        env_seed = deal_seed(seed, deal)
        seeds = [agent_seed(seed, deal, rotation, s) for s in range(len(seating))]
        try:
            result = play_game(env, seat_agents, env_seed, seeds)
        except Exception as e:  # name the game so it can be reproduced; the cause's type too
            cause = "" if isinstance(e, ValueError) else f"{type(e).__name__}: "
            # the games played so far are returned with it, so the log keeps them (collect raises)
            records.append({"index": index, "failure": f"{game} game {index} (env seed {env_seed}, seats "
                                                       f"{[labels[a] for a in seating]}): {cause}{e}"})
            return records
        decisions = [d for agent in seat_agents if hasattr(agent, "pop_decisions") for d in agent.pop_decisions()]
        if decisions:  # language-model agents (rummy_env.agents.llm): prompts, replies, tokens, latency
            result["decisions"] = decisions
        records.append({
            "index": index, "game": game, "env": f"{game}_v0", "options": options,
            "seed": env_seed, "deal": deal, "rotation": rotation,
            "seating": [labels[a] for a in seating], "agent_index": list(seating),
            "agent_specs": [specs[a] for a in seating], "agent_seeds": seeds, **result,
        })
        _report(tasks[0][0], len(records))
    return records


def _chunks(tasks: list, per_chunk: int) -> list[list]:
    return [tasks[i:i + per_chunk] for i in range(0, len(tasks), per_chunk)]


POLL_S = 0.25
"""How often the pool's driver looks at its workers' progress (seconds)."""


def _where(args: tuple, chunks: list[list], first: int, done: int) -> str:
    """The chunk starting at game ``first`` and its game number ``done`` (the one in play), in words."""
    number, chunk = next((n, c) for n, c in enumerate(chunks, start=1) if c[0][0] == first)
    seed, labels = args[4], args[3]
    index, deal, _, seating = chunk[min(done, len(chunk) - 1)]
    return (f"chunk {number} of {len(chunks)} (games {chunk[0][0]}-{chunk[-1][0]}, deals {chunk[0][1]}-"
            f"{chunk[-1][1]}) at game {index} (deal {deal}, env seed {deal_seed(seed, deal)}, seats "
            f"{[labels[a] for a in seating]})")


def _exit_text(process) -> str:
    """`` (exit code N)`` of a pool worker that has ended, or nothing where it is not known."""
    if process is None:
        return ""
    process.join(timeout=1)
    return "" if process.exitcode is None else f" (exit code {process.exitcode})"


def _play_on_pool(workers: int, args: tuple, chunks: list[list], stall_timeout: float,
                  collect: Callable[[list[dict]], None]) -> None:
    """Play ``chunks`` on ``workers`` spawned processes, handing each chunk's records to ``collect``
    as it finishes (module docstring, "Workers and stalls"). A chunk without a finished game for
    ``stall_timeout`` seconds (0: no limit), no progress at all for that long, or a worker that
    dies raises :class:`TournamentError`; the workers are then killed."""
    context = multiprocessing.get_context("spawn")
    progress = context.Queue()
    others = {p.pid for p in multiprocessing.active_children()}
    ours: dict[int, Any] = {}  # pid -> this pool's worker process
    playing: dict[int, tuple[int, int, float]] = {}  # a started chunk's first game -> (games done, pid, when)
    collected: set[int] = set()  # first games of the chunks whose records are in (their late reports are stale)
    last_progress = time.monotonic()
    pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_start_pool_worker, initargs=(progress,))
    try:
        pending = {pool.submit(_play_chunk, *args, chunk) for chunk in chunks}
        while pending:
            finished, pending = wait(pending, timeout=POLL_S, return_when=FIRST_COMPLETED)
            now = time.monotonic()
            ours.update((p.pid, p) for p in multiprocessing.active_children() if p.pid not in others)
            while not progress.empty():
                kind, event = progress.get()
                if kind == "warning":
                    warnings.warn(event, stacklevel=1)  # the same text from several workers is shown once
                else:
                    first, done, pid = event
                    if first not in collected:  # a report can arrive after its chunk's result
                        playing[first] = (done, pid, now)
                    last_progress = now
            for fut in finished:
                if isinstance(fut.exception(), BrokenProcessPool):
                    lost = "; ".join(f"worker process {pid}{_exit_text(ours.get(pid))} in "
                                     f"{_where(args, chunks, first, done)}" for first, (done, pid, _) in playing.items())
                    raise TournamentError(f"a worker process died (killed, or out of memory?); chunks in play: "
                                          f"{lost or 'none reported yet'}")
                records = fut.result()
                collected.add(records[0]["index"])
                playing.pop(records[0]["index"], None)
                last_progress = now
                collect(records)
            stalled = [(first, done, pid) for first, (done, pid, when) in playing.items()
                       if stall_timeout and now - when > stall_timeout]
            if stalled:
                first, done, pid = stalled[0]
                raise TournamentError(f"no game finished for {stall_timeout:g} s (--stall-timeout) in worker "
                                      f"process {pid}: {_where(args, chunks, first, done)}")
            if stall_timeout and now - last_progress > stall_timeout:
                raise TournamentError(f"no worker reported progress for {stall_timeout:g} s (--stall-timeout); "
                                      f"{plural(len(pending), 'chunk')} unfinished")
    except BaseException:
        for process in multiprocessing.active_children():
            if process.pid not in others:
                process.kill()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


# -- statistics -----------------------------------------------------------------------------------
def bootstrap_ratio_ci(numer: np.ndarray, denom: np.ndarray, resamples: int = BOOTSTRAP_RESAMPLES,
                       seed: int = 0, level: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap CI of ``sum(numer) / sum(denom)`` resampling clusters (deal seeds).

    ``numer[d]`` and ``denom[d]`` are one cluster's totals (e.g. win credit and seats played on deal
    seed d). Resamples are drawn in batches to bound memory.
    """
    numer = np.asarray(numer, dtype=np.float64)
    denom = np.asarray(denom, dtype=np.float64)
    n = len(numer)
    if n == 0 or denom.sum() == 0:
        return (math.nan, math.nan)
    rng = np.random.default_rng(seed)
    batch = max(1, 4_000_000 // n)
    stats = []
    done = 0
    while done < resamples:
        m = min(batch, resamples - done)
        idx = rng.integers(0, n, size=(m, n))
        with np.errstate(invalid="ignore", divide="ignore"):
            stats.append(numer[idx].sum(axis=1) / denom[idx].sum(axis=1))
        done += m
    values = np.concatenate(stats)
    values = values[np.isfinite(values)]
    alpha = (1.0 - level) / 2.0
    lo, hi = np.quantile(values, [alpha, 1.0 - alpha])
    return (float(lo), float(hi))


def openskill_ratings(records: list[dict], num_agents: int) -> list[dict]:
    """Plackett-Luce ratings of every agent after all ``records`` (sorted by game index)."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = [model.rating() for _ in range(num_agents)]
    for rec in sorted(records, key=lambda r: r["index"]):
        seating = rec["agent_index"]
        teams = [[model.rating(mu=ratings[a].mu, sigma=ratings[a].sigma)] for a in seating]
        new = model.rate(teams, scores=list(rec["returns"]))
        updates: dict[int, list] = {}
        for a, team in zip(seating, new):
            updates.setdefault(a, []).append(team[0])
        for a, rs in updates.items():
            ratings[a] = model.rating(mu=sum(r.mu for r in rs) / len(rs),
                                      sigma=sum(r.sigma for r in rs) / len(rs))
    return [{"mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal()} for r in ratings]


def summarize(records: list[dict], labels: list[str], specs: list[str], num_seats: int,
              ci_seed: int = 0) -> list[dict]:
    """Per-agent mean reward and win share with bootstrap CIs, per-seat win shares and ratings."""
    k = len(labels)
    deals = sorted({r["deal"] for r in records})
    col = {d: i for i, d in enumerate(deals)}
    wins = np.zeros((k, len(deals)))
    seats = np.zeros((k, len(deals)))
    rets = np.zeros((k, len(deals)))
    seat_wins = np.zeros((k, num_seats))
    seat_games = np.zeros((k, num_seats))
    for rec in records:
        j = col[rec["deal"]]
        for s, (a, c, ret) in enumerate(zip(rec["agent_index"], win_credit(rec["returns"]), rec["returns"])):
            wins[a, j] += c
            seats[a, j] += 1
            rets[a, j] += ret
            seat_wins[a, s] += c
            seat_games[a, s] += 1
    ratings = openskill_ratings(records, k)
    out = []
    for a in range(k):
        played = seats[a].sum()
        with np.errstate(invalid="ignore", divide="ignore"):
            by_seat = seat_wins[a] / seat_games[a]
        out.append({
            "agent": labels[a], "spec": specs[a], "seat_games": int(played),
            "mean_reward": float(rets[a].sum() / played) if played else math.nan,
            "mean_reward_ci": list(bootstrap_ratio_ci(rets[a], seats[a], seed=ci_seed)),
            "win_share": float(wins[a].sum() / played) if played else math.nan,
            "win_share_ci": list(bootstrap_ratio_ci(wins[a], seats[a], seed=ci_seed)),
            "equal_share": 1.0 / num_seats,
            "win_share_by_seat": [None if math.isnan(x) else float(x) for x in by_seat],
            "rating_mu": ratings[a]["mu"], "rating_sigma": ratings[a]["sigma"],
            "rating_ordinal": ratings[a]["ordinal"],
        })
    return out


LLM_COUNTS = ("decisions", "invalid_replies", "fallbacks", "prompt_tokens", "completion_tokens", "latency_s")
"""What the summary sums per language-model agent (:func:`add_llm_usage`)."""


def llm_usage(record: dict) -> list[list[float] | None]:
    """Per seat of a logged game, the :data:`LLM_COUNTS` of its language-model decisions (None for a
    seat without any)."""
    usage: list[list[float] | None] = [None] * len(record["seating"])
    for d in record["decisions"]:
        counts = usage[d["seat"]] or [0] * len(LLM_COUNTS)
        usage[d["seat"]] = [c + x for c, x in zip(counts, (1, d["invalid_replies"], int(d["fallback"]),
                                                          d["prompt_tokens"], d["completion_tokens"],
                                                          d["latency_s"]))]
    return usage


def add_llm_usage(summary: list[dict], records: list[dict]) -> None:
    """Add ``llm`` (the :data:`LLM_COUNTS` summed over its seats, and the mean latency per decision)
    to the summary row of every agent that made language-model decisions."""
    totals: dict[int, list[float]] = {}
    for rec in records:
        for a, counts in zip(rec["agent_index"], rec.get("llm_usage") or []):
            if counts is not None:
                totals[a] = [t + c for t, c in zip(totals.get(a, [0] * len(LLM_COUNTS)), counts)]
    for a, counts in totals.items():
        usage = dict(zip(LLM_COUNTS, counts))
        usage["mean_latency_s"] = usage["latency_s"] / usage["decisions"]
        summary[a]["llm"] = usage


def llm_lines(summary: list[dict]) -> list[str]:
    """One line per language-model agent: decisions, invalid replies, fallbacks, tokens, latency."""
    return [f"{s['agent']}: {u['decisions']} decisions, {u['invalid_replies']} invalid replies, "
            f"{u['fallbacks']} fallback moves, {u['prompt_tokens']} prompt + {u['completion_tokens']} "
            f"completion tokens, {u['mean_latency_s']:.2f} s per decision"
            for s in summary if (u := s.get("llm"))]


# -- output ---------------------------------------------------------------------------------------
CSV_FIELDS = ["game", "agent", "spec", "seat_games", "mean_reward", "mean_reward_lo", "mean_reward_hi",
              "win_share", "win_share_lo", "win_share_hi", "equal_share", "rating_mu", "rating_sigma",
              "rating_ordinal"]


def format_table(summary: list[dict], with_game: bool = False) -> str:
    """A fixed-width text table of ``summarize`` rows (one line per agent); ``with_game`` adds a
    first column from each row's ``"game"``."""
    head = (["game"] if with_game else []) + ["agent", "seat-games", "mean reward [95% CI]",
                                               "win share [95% CI]", "equal", "rating mu±sigma"]
    rows = []
    for s in summary:
        lo, hi = s["mean_reward_ci"]
        wlo, whi = s["win_share_ci"]
        rows.append(([s["game"]] if with_game else []) + [
            s["agent"], str(s["seat_games"]),
            f"{s['mean_reward']:.3g} [{lo:.3g}, {hi:.3g}]",
            f"{s['win_share']:.3f} [{wlo:.3f}, {whi:.3f}]", f"{s['equal_share']:.3f}",
            f"{s['rating_mu']:.1f}±{s['rating_sigma']:.1f}",
        ])
    widths = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in [head] + rows)


def plot_win_shares(summary: list[dict], title: str, path: str | os.PathLike) -> Path:
    """PNG bar chart of win shares with 95% CIs and the equal-strength share (Agg, no pyplot)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(1.6 + 1.3 * len(summary), 3.6), dpi=110)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    x = np.arange(len(summary))
    share = np.array([s["win_share"] for s in summary])
    lo = np.array([s["win_share_ci"][0] for s in summary])
    hi = np.array([s["win_share_ci"][1] for s in summary])
    ax.bar(x, share, color="#4C72B0", width=0.6)
    ax.errorbar(x, share, yerr=[share - lo, hi - share], fmt="none", ecolor="black", capsize=5)
    ax.axhline(summary[0]["equal_share"], color="gray", linestyle="--", linewidth=1, label="equal strength")
    for xi, value, top in zip(x, share, hi):
        ax.annotate(f"{value:.3f}", (xi, top), xytext=(0, 3), textcoords="offset points", ha="center", fontsize=8)
    ax.set_xticks(x, [s["agent"] for s in summary])
    ax.set_ylabel("win share per seat (95% CI)")
    ax.set_ylim(0, 1.22)
    ax.set_yticks(np.linspace(0, 1, 6))
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8, loc="upper center", ncol=1, frameon=False)
    fig.tight_layout()
    return io.save_figure(path, fig)


def default_out_dir(config: TournamentConfig) -> Path:
    """``runs/tournament_<game>_<labels>_seed<S>``, every character but letters, digits, ``.``, ``_``
    and ``-`` of the agent labels (``:``, ``/``, ``#``) replaced by ``-``."""
    names = "_vs_".join(re.sub(r"[^\w.-]+", "-", a, flags=re.ASCII) for a in agent_labels(list(config.agents)))
    return Path("runs") / f"tournament_{game_key(config.game)}_{names}_seed{config.seed}"


def _play_all(args: tuple, chunks: list[list], total: int, workers: int, stall_timeout: float, ray_runner,
              progress: bool, collect: Callable[[list[dict]], None]) -> None:
    """Play every chunk on the chosen backend, handing each chunk's records to ``collect``."""
    from tqdm import tqdm

    with tqdm(total=total, unit="game", desc=args[0], disable=not progress, leave=False) as bar:
        def collect_and_show(records: list[dict]) -> None:
            collect(records)
            bar.update(len(records))
        if ray_runner is not None:
            try:
                for records in ray_runner.play(_play_chunk, args, chunks):
                    collect_and_show(records)
            finally:
                ray_runner.close()
        elif workers == 1:
            try:
                for chunk in chunks:
                    collect_and_show(_play_chunk(*args, chunk))
            finally:
                _release_worker()  # in-process run: do not keep its env and agents for the next one
        else:
            _play_on_pool(workers, args, chunks, stall_timeout, collect_and_show)


# -- driver ---------------------------------------------------------------------------------------
def run_tournament(config: TournamentConfig, out_dir: str | os.PathLike | None = None,
                   progress: bool = True, log_games: bool = True,
                   on_records: Callable[[list[dict]], None] | None = None) -> dict:
    """Play the tournament and return its results (also written under ``out_dir`` if given).

    Files in ``out_dir``: ``results.json``, ``results.csv``, ``win_shares.png`` and (with
    ``log_games``) ``games.jsonl``, the replay log in game-index order, appended as games finish
    (a chunk that finishes early waits for the chunks before it). ``out_dir`` is created when the
    first games are logged, so a tournament that fails at once leaves no empty folder.

    With ``backend="ray"``, ``wall_s`` and the rates leave out Ray's start-up, reported as
    ``ray_startup_s`` (None on the process backend, whose pool starts inside ``wall_s``).
    ``recipes`` writes each spec out in full (a bare ``ismcts`` as the game's preset,
    :func:`rummy_env.agents.presets.resolve_spec`).
    """
    game = game_key(config.game)
    num_seats = check_config(config)
    specs = tuple(config.agents)
    labels = agent_labels(list(specs))
    options = dict(config.options)
    lineup = seatings(len(specs), num_seats)
    deals = num_deals(config, num_seats)
    tasks = [(d * len(lineup) + r, d, r, seating)
             for d in range(deals) for r, seating in enumerate(lineup)]
    total = len(tasks)
    ray_runner = None
    if config.backend == "ray":  # started before the clock: its start-up is reported apart
        from .ray_backend import RayChunkRunner
        ray_runner = RayChunkRunner(config.workers, config.address, game, options)
    workers = min(config.workers if ray_runner is None else ray_runner.workers, max(1, deals))
    per_chunk = len(lineup) * max(1, math.ceil(deals / (workers * 16)))
    chunks = _chunks(tasks, per_chunk)

    out = Path(out_dir) if out_dir is not None else None
    log_path = out / "games.jsonl" if (out is not None and log_games) else None

    kept: list[dict] = []
    steps = 0
    waiting: dict[int, list[dict]] = {}  # finished chunks by first game index, not yet logged
    next_index = 0  # game index of the next record to log

    log_started = False

    def log(ready: list[dict]) -> None:
        nonlocal log_started
        if log_path is not None and ready:
            if not log_started:
                io.write_text(log_path, "")  # a fresh log (replacing a previous run's)
                log_started = True
            io.append_jsonl(log_path, ready)

    def collect(records: list[dict]) -> None:
        nonlocal steps, next_index
        waiting[records[0]["index"]] = records
        while next_index in waiting:
            ready = waiting.pop(next_index)
            played = [r for r in ready if "failure" not in r]
            log(played)
            if len(played) < len(ready):  # a failed game: log every game played, then stop
                for first in sorted(waiting):
                    log([r for r in waiting[first] if "failure" not in r])
                logged = f"; the games played are in {log_path}" if log_started else ""
                raise TournamentError(ready[-1]["failure"] + logged)
            if on_records is not None:
                on_records(ready)
            next_index += len(ready)
        for r in records:
            if "failure" not in r:
                steps += r["steps"]
                kept.append({k: v for k, v in r.items() if k not in ("actions", "decisions")})
                if "decisions" in r:
                    kept[-1]["llm_usage"] = llm_usage(r)

    def keep_finished() -> str:
        """Append the finished chunks still waiting for an earlier one to the log; say where they are."""
        if not kept:
            return "no game had finished"
        if log_path is None:
            return f"{plural(len(kept), 'game')} had finished (not logged: --no-log)"
        if waiting:
            if next_index == 0:
                io.write_text(log_path, "")
            io.append_jsonl(log_path, [r for first in sorted(waiting) for r in waiting[first]])
        return f"the finished games ({len(kept)}) are in {log_path}"

    start = time.perf_counter()
    args = (game, options, specs, labels, config.seed)
    try:
        _play_all(args, chunks, total, workers, config.stall_timeout, ray_runner, progress, collect)
    except TournamentError as error:
        raise TournamentError(f"{error}; {keep_finished()}") from error
    wall = time.perf_counter() - start

    summary = summarize(kept, labels, list(specs), num_seats, ci_seed=config.seed)
    add_llm_usage(summary, kept)
    results = {
        "game": game, "env": f"{game}_v0", "options": options, "agents": list(specs), "labels": labels,
        "recipes": [resolve_spec(spec, game) for spec in specs], "seed": config.seed,
        "num_seats": num_seats,
        "seatings": [[labels[a] for a in s] for s in lineup],
        "deals": deals, "games": total, "games_requested": config.games, "workers": workers,
        "chunks": len(chunks), "backend": config.backend,
        "ray_startup_s": None if ray_runner is None else ray_runner.startup_s,
        "wall_s": wall, "games_per_s": total / wall if wall > 0 else math.inf,
        "steps": steps, "steps_per_s": steps / wall if wall > 0 else math.inf,
        "truncated_games": sum(1 for r in kept if r["truncated"]),
        "win_rule": WIN_RULE, "ci_method": CI_METHOD, "rating_method": RATING_METHOD,
        "config": asdict(config), "summary": summary,
    }
    if out is not None:
        results["files"] = {"results_json": str(out / "results.json"), "results_csv": str(out / "results.csv"),
                            "plot": str(out / "win_shares.png")}
        if log_path is not None:
            results["files"]["games_log"] = str(log_path)
        write_results(results, out)
    return results


def write_results(results: dict, out: Path) -> None:
    """results.json (with :func:`rummy_env.experiments.io.provenance`: git commit, dirty flag, command line),
    results.csv (shares to 4 decimals, rewards to 3, ratings to 2) and win_shares.png under ``out``
    (each written atomically)."""
    io.write_json(out / "results.json", {**results, **io.provenance()})
    rows = []
    for s in results["summary"]:
        rows.append({
            "game": results["game"], "agent": s["agent"], "spec": s["spec"], "seat_games": s["seat_games"],
            "mean_reward": round(s["mean_reward"], 3), "mean_reward_lo": round(s["mean_reward_ci"][0], 3),
            "mean_reward_hi": round(s["mean_reward_ci"][1], 3), "win_share": round(s["win_share"], 4),
            "win_share_lo": round(s["win_share_ci"][0], 4), "win_share_hi": round(s["win_share_ci"][1], 4),
            "equal_share": round(s["equal_share"], 4), "rating_mu": round(s["rating_mu"], 2),
            "rating_sigma": round(s["rating_sigma"], 2), "rating_ordinal": round(s["rating_ordinal"], 2),
        })
    io.write_csv(out / "results.csv", rows, CSV_FIELDS)
    options = f" {json.dumps(results['options'])}" if results["options"] else ""
    title = f"{results['env']}{options}\n{games_played(results, ' (')})"
    plot_win_shares(results["summary"], title, out / "win_shares.png")


def games_played(results: dict, joint: str = " = ") -> str:
    """``8 games = 2 deal seeds x 4 seatings`` (singular where one), ``joint`` between the parts."""
    return (f"{plural(results['games'], 'game')}{joint}{plural(results['deals'], 'deal seed')} x "
            f"{plural(len(results['seatings']), 'seating')}")


def describe(results: dict) -> str:
    """Readable report: the table plus run facts."""
    lines = [
        f"{results['env']} options={json.dumps(results['options'])}: {games_played(results)}, "
        f"{plural(results['workers'], 'worker')} ({results['backend']}), {results['wall_s']:.1f} s "
        f"({results['games_per_s']:.1f} games/s, {results['steps_per_s']:.0f} steps/s)",
        format_table(results["summary"]),
        *llm_lines(results["summary"]),
        *([f"Ray start-up {results['ray_startup_s']:.1f} s (not in the games/s)"]
          if results["ray_startup_s"] is not None else []),
        f"win share: {WIN_RULE}; equal strength = {results['summary'][0]['equal_share']:.3f}",
        f"CIs: {CI_METHOD}",
        f"rating: {RATING_METHOD}",
    ]
    if results["truncated_games"]:
        lines.append(f"{plural(results['truncated_games'], 'game')} ended by a cap (truncated)")
    if "files" in results:
        lines.append("wrote " + ", ".join(results["files"].values()))
    return "\n".join(lines)


if __name__ == "__main__":  # runs as `rummy-env tournament`
    from rummy_env.experiments.cli import run_as_command
    sys.exit(run_as_command("tournament"))
