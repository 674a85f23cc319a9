"""Random-play throughput of the rummy_env games and their nearest peers, side by side in one run.

Every target runs in its own subprocess (so peak memory is that process's own) for the same
wall-clock budget, playing complete games with uniformly random legal actions:

- ours: the full PettingZoo AEC loop of ``<game>_v0.env()``: ``agent_iter``, ``last`` (which
  builds the observation and mask), ``step``;
- ``pz126:gin_rummy_v4``: PettingZoo 1.26.1's gin rummy (removed in 1.27), same loop, run from a
  separate virtual environment (``.venv-pz126``; made by ``make bench``) if it exists;
- ``rlcard:gin-rummy``: RLCard's environment stepped directly (it builds the state every step);
- ``open_spiel:gin_rummy``: OpenSpiel's C++ game, reading ``observation_tensor`` every decision.

The random agent picks uniformly among ``np.flatnonzero(mask)``, reading an int8 mask as bool
(numpy's fast path; the same for every AEC target). Reported: env steps/s (decisions), games/s, steps per game, median milliseconds per game,
microseconds per step spent in ``step`` and in observe (``last()`` / ``observation_tensor`` /
state extraction), peak RSS; for Ginny-O (at least 200 games) also the time spent in the exact
legal-play search behind its placement mask.

Copies for search (``clone+determinize <env>``; ``--only clone`` runs just these): calls per second
of ``env.unwrapped.clone()`` and ``env.unwrapped.determinize(agent, seed)`` in mid-game positions,
beside OpenSpiel's gin_rummy ``state.clone()`` (``open_spiel:gin_rummy state.clone()``, and timed
in between in each of ours, for ratios that hold when the machine's load changes).
Prints the tables and writes JSON (atomically; the copy rates under ``"copies"``).
Run: ``python -m rummy_env.experiments.benchmark``.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

OURS = {
    "rummy_v0 (2p)": ("rummy", {}),
    "tongits_v0 (3p)": ("tongits", {}),
    "i_doubt_it_v0 (4p)": ("i_doubt_it", {"num_players": 4}),
    "i_doubt_it_v0 (8p)": ("i_doubt_it", {"num_players": 8}),
    "contract_rummy_v0 (4p)": ("contract_rummy", {"num_players": 4}),
    "contract_rummy_v0 (6p, 2 decks)": ("contract_rummy", {"num_players": 6, "num_decks": 2}),
    "ginny_o_v0 (2p)": ("ginny_o", {"num_players": 2}),
    "ginny_o_v0 (4p)": ("ginny_o", {"num_players": 4}),
}
PEERS = ["pz126:gin_rummy_v4", "rlcard:gin-rummy", "open_spiel:gin_rummy"]
COPY_PREFIX = "clone+determinize "
COPIES = [COPY_PREFIX + name for name in OURS] + ["open_spiel:gin_rummy state.clone()"]
"""Copy-rate targets: ``env.unwrapped.clone()`` and ``env.unwrapped.determinize(agent, seed)``
per second in mid-game positions, beside OpenSpiel's gin_rummy ``state.clone()``."""
COPY_POSITIONS = 20
PZ126_PYTHON = os.path.join(ROOT, ".venv-pz126", "bin", "python")


def _peak_rss_mb() -> float:
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _totals(steps: int, games: int, seconds: float, step_s: float, observe_s: float,
            game_ms: list[float], **extra) -> dict:
    """One target's raw numbers, the same keys for every target."""
    return {"steps": steps, "games": games, "seconds": seconds, "step_s": step_s, "observe_s": observe_s,
            "median_ms_per_game": statistics.median(game_ms), **extra}


def _aec_loop(env, seconds: float, seed: int, min_games: int = 0) -> dict:
    """Play complete games through the AEC API until ``seconds`` have passed and at least
    ``min_games`` games are done; records each game's wall time."""
    import random

    import numpy as np

    rng = random.Random(seed)
    flatnonzero = np.flatnonzero
    perf = time.perf_counter
    steps = games = 0
    t_step = t_obs = 0.0
    game_ms = []
    episode_seed = seed
    start = perf()
    while perf() - start < seconds or games < min_games:
        t_game = perf()
        env.reset(seed=episode_seed)
        episode_seed += 1
        for _agent in env.agent_iter():
            t0 = perf()
            obs, _reward, term, trunc, _info = env.last()
            t1 = perf()
            if term or trunc:
                env.step(None)
                continue
            mask = obs["action_mask"]
            legal = flatnonzero(mask.view(np.bool_) if mask.dtype == np.int8 else mask)
            action = int(legal[int(rng.random() * len(legal))])
            t2 = perf()
            env.step(action)
            t_step += perf() - t2
            t_obs += t1 - t0
            steps += 1
        games += 1
        game_ms.append(1000 * (perf() - t_game))
    return _totals(steps, games, perf() - start, t_step, t_obs, game_ms)


def _run_ours(game: str, options: dict, seconds: float, seed: int) -> dict:
    sys.path.insert(0, ROOT)
    from rummy_env.registry import make_env
    if game != "ginny_o":
        return _aec_loop(make_env(game, **options), seconds, seed)
    # Ginny-O: at least 200 games for the median game time (issue target), and the time spent
    # in the exact legal-play search behind its placement mask (GO-43), measured separately.
    from rummy_env.games.ginny_o import PlaySearch
    search = PlaySearch._search
    spent = [0.0]

    def timed_search(self, *args, **kwargs):
        t0 = time.perf_counter()
        try:
            return search(self, *args, **kwargs)
        finally:
            spent[0] += time.perf_counter() - t0

    PlaySearch._search = timed_search
    result = _aec_loop(make_env(game, **options), seconds, seed, min_games=200)
    result["enumerate_s"] = spent[0]
    return result


def _run_pz126(seconds: float, seed: int) -> dict:
    from pettingzoo.classic import gin_rummy_v4
    return _aec_loop(gin_rummy_v4.env(), seconds, seed)


def _run_rlcard(seconds: float, seed: int) -> dict:
    import random

    import rlcard

    rng = random.Random(seed)
    env = rlcard.make("gin-rummy", config={"seed": seed})
    perf = time.perf_counter
    steps = games = 0
    t_step = 0.0
    start = perf()
    game_ms = []
    while perf() - start < seconds:
        t_game = perf()
        state, _player = env.reset()
        while not env.is_over():
            legal = list(state["legal_actions"].keys())
            action = legal[int(rng.random() * len(legal))]
            t0 = perf()
            state, _player = env.step(action)  # builds the next state (observation) too
            t_step += perf() - t0
            steps += 1
        games += 1
        game_ms.append(1000 * (perf() - t_game))
    return _totals(steps, games, perf() - start, t_step, 0.0, game_ms, note="observation built inside step")


def _run_open_spiel(seconds: float, seed: int) -> dict:
    import random

    import pyspiel

    rng = random.Random(seed)
    game = pyspiel.load_game("gin_rummy")
    perf = time.perf_counter
    steps = games = 0
    t_step = t_obs = 0.0
    start = perf()
    game_ms = []
    while perf() - start < seconds:
        t_game = perf()
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[int(rng.random() * len(outcomes))][0])
                continue
            t0 = perf()
            state.observation_tensor(state.current_player())
            legal = state.legal_actions()
            t1 = perf()
            state.apply_action(legal[int(rng.random() * len(legal))])
            t_step += perf() - t1
            t_obs += t1 - t0
            steps += 1
        games += 1
        game_ms.append(1000 * (perf() - t_game))
    return _totals(steps, games, perf() - start, t_step, t_obs, game_ms,
                   note="chance nodes (deals) applied outside the step count")


def _calls_per_s(call, seconds: float) -> tuple[int, float]:
    """Calls of ``call()`` made in about ``seconds`` (the clock read every 50 calls)."""
    perf = time.perf_counter
    calls = 0
    start = perf()
    while perf() - start < seconds:
        for _ in range(50):
            call()
        calls += 50
    return calls, perf() - start


def _open_spiel_positions(seed: int) -> list:
    """:data:`COPY_POSITIONS` mid-game OpenSpiel gin_rummy states (10..60 random decisions)."""
    import random

    import pyspiel

    rng = random.Random(seed)
    game = pyspiel.load_game("gin_rummy")
    states = []
    for _ in range(COPY_POSITIONS):
        state = game.new_initial_state()
        decisions = rng.randrange(10, 61)
        while not state.is_terminal() and decisions:
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[int(rng.random() * len(outcomes))][0])
                continue
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.random() * len(legal))])
            decisions -= 1
        states.append(state)
    return states


def _run_copies(game: str, options: dict, seconds: float, seed: int) -> dict:
    """Clone and determinize rates of the raw env in :data:`COPY_POSITIONS` mid-game positions
    (random play of 10..60 steps from seeded deals), a third of the budget each; the last third
    times OpenSpiel's ``state.clone()`` in between (when installed), so that the ratios hold on
    a machine whose load changes during the run."""
    import random

    import numpy as np

    sys.path.insert(0, ROOT)
    from rummy_env.registry import make_raw_env

    rng = random.Random(seed)
    env = make_raw_env(game, **options)
    totals = {"clones": 0, "clone_s": 0.0, "determinizations": 0, "determinize_s": 0.0}
    try:
        reference = _open_spiel_positions(seed)
        totals.update(reference_clones=0, reference_s=0.0)
    except ImportError:
        reference = None
    share = seconds / (3 * COPY_POSITIONS)
    for position in range(COPY_POSITIONS):
        env.reset(seed=seed + position)
        for _ in range(rng.randrange(10, 61)):
            if env.game.done:
                break
            legal = np.flatnonzero(env.game.legal_mask())
            env.step(int(legal[int(rng.random() * len(legal))]))
        if env.game.done:
            env.reset(seed=seed + position)
        agent = env.agent_selection
        calls, spent = _calls_per_s(env.clone, share)
        totals["clones"] += calls
        totals["clone_s"] += spent
        seeds = iter(range(1 << 62))
        calls, spent = _calls_per_s(lambda: env.determinize(agent, next(seeds)), share)
        totals["determinizations"] += calls
        totals["determinize_s"] += spent
        if reference:
            calls, spent = _calls_per_s(reference[position].clone, share)
            totals["reference_clones"] += calls
            totals["reference_s"] += spent
    return totals


def _run_open_spiel_clone(seconds: float, seed: int) -> dict:
    """OpenSpiel's gin_rummy ``state.clone()`` rate in mid-game positions, as :func:`_run_copies`."""
    totals = {"clones": 0, "clone_s": 0.0}
    for state in _open_spiel_positions(seed):
        calls, spent = _calls_per_s(state.clone, seconds / COPY_POSITIONS)
        totals["clones"] += calls
        totals["clone_s"] += spent
    return totals


def _worker(target: str, seconds: float, seed: int) -> dict:
    if target.startswith(COPY_PREFIX):
        game, options = OURS[target[len(COPY_PREFIX):]]
        result = _run_copies(game, options, seconds, seed)
    elif target == "open_spiel:gin_rummy state.clone()":
        result = _run_open_spiel_clone(seconds, seed)
    elif target in OURS:
        game, options = OURS[target]
        result = _run_ours(game, options, seconds, seed)
    elif target == "pz126:gin_rummy_v4":
        result = _run_pz126(seconds, seed)
    elif target == "rlcard:gin-rummy":
        result = _run_rlcard(seconds, seed)
    elif target == "open_spiel:gin_rummy":
        result = _run_open_spiel(seconds, seed)
    else:
        raise ValueError(f"unknown target {target!r}")
    result["peak_rss_mb"] = _peak_rss_mb()
    return result


def measure(target: str, seconds: float, seed: int) -> dict:
    """Run one target in a fresh subprocess; returns its numbers or ``{"error": ...}``."""
    python = sys.executable
    if target.startswith("pz126:"):
        if not os.path.exists(PZ126_PYTHON):
            return {"error": "no .venv-pz126 (python -m venv .venv-pz126 && .venv-pz126/bin/pip install "
                             "'pettingzoo[classic]==1.26.1')"}
        python = PZ126_PYTHON
    cmd = [python, os.path.abspath(__file__), "--worker", target, "--seconds", str(seconds), "--seed", str(seed)]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["failed"])[-1]
        return {"error": last}
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    if target in COPIES:
        result["clones_per_s"] = result["clones"] / result["clone_s"]
        if "determinizations" in result:
            result["determinizations_per_s"] = result["determinizations"] / result["determinize_s"]
        if "reference_clones" in result:
            result["open_spiel_clones_per_s"] = result["reference_clones"] / result["reference_s"]
        return result
    steps = max(result["steps"], 1)
    result.update({
        "steps_per_s": result["steps"] / result["seconds"],
        "games_per_s": result["games"] / result["seconds"],
        "steps_per_game": result["steps"] / max(result["games"], 1),
        "us_step": 1e6 * result["step_s"] / steps,
        "us_observe": 1e6 * result["observe_s"] / steps,
    })
    if "enumerate_s" in result:
        result["us_enumerate"] = 1e6 * result["enumerate_s"] / steps
    return result


def format_table(results: dict[str, dict], reference: str | None) -> str:
    head = f"| {'environment':34} | {'steps/s':>9} | {'games/s':>8} | {'steps/game':>10} | {'median ms/game':>14} | " \
           f"{'us step':>7} | {'us observe':>10} | {'peak MB':>7} | {'vs ' + (reference or '-'):>26} |"
    lines = [head, "|" + "|".join("-" * (len(c)) for c in head.split("|")[1:-1]) + "|"]
    ref = results.get(reference, {}).get("steps_per_s") if reference else None
    for name, r in results.items():
        if "error" in r:
            lines.append(f"| {name:34} | not measured: {r['error'][:90]}")
            continue
        ratio = f"{r['steps_per_s'] / ref:.1f}x" if ref else "-"
        lines.append(f"| {name:34} | {r['steps_per_s']:9,.0f} | {r['games_per_s']:8.2f} | {r['steps_per_game']:10.1f} | "
                     f"{r['median_ms_per_game']:14.1f} | {r['us_step']:7.1f} | {r['us_observe']:10.1f} | "
                     f"{r['peak_rss_mb']:7.0f} | {ratio:>26} |")
    notes = [f"{name}: legal-play search {r['us_enumerate']:.1f} us/step "
             f"({100 * r['enumerate_s'] / r['seconds']:.0f}% of the run)"
             for name, r in results.items() if "enumerate_s" in r]
    return "\n".join(lines + ([""] + notes if notes else []))


def format_copy_table(results: dict[str, dict]) -> str:
    """Clone and determinize rates beside OpenSpiel's ``state.clone()``: the ratios are to the
    OpenSpiel clones timed in between in the same process (else to its own row)."""
    own_row = results.get("open_spiel:gin_rummy state.clone()", {}).get("clones_per_s")
    head = (f"| {'environment (mid-game)':50} | {'clone/s':>9} | {'determinize/s':>13} | "
            f"{'open_spiel clone/s':>18} | {'clone vs open_spiel':>19} | {'determinize vs open_spiel':>25} |")
    lines = [head, "|" + "|".join("-" * len(c) for c in head.split("|")[1:-1]) + "|"]
    for name, r in results.items():
        if "error" in r:
            lines.append(f"| {name:50} | not measured: {r['error'][:90]}")
            continue
        reference = r.get("open_spiel_clones_per_s", own_row)
        det = r.get("determinizations_per_s")
        ratios = [f"{rate / reference:.2f}x" if reference and rate else "-" for rate in (r["clones_per_s"], det)]
        lines.append(f"| {name:50} | {r['clones_per_s']:9,.0f} | {det or 0:13,.0f} | {reference or 0:18,.0f} | "
                     f"{ratios[0]:>19} | {ratios[1]:>25} |")
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``rummy-env bench`` / ``python -m rummy_env.experiments.benchmark``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="wall-clock budget per target (default 5)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the games and the random players (default 0)")
    parser.add_argument("--only", default="", help="comma-separated substrings of target names to run "
                        "(default: none, every target)")
    parser.add_argument("--out", default=os.path.join("results", "benchmark.json"),
                        help="JSON output path (default results/benchmark.json)")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.worker:
        print(json.dumps(_worker(args.worker, args.seconds, args.seed)))
        return 0
    targets = list(OURS) + PEERS + COPIES
    if args.only:
        wanted = [w.strip() for w in args.only.split(",") if w.strip()]
        targets = [t for t in targets if any(w in t for w in wanted)]
    results = {}
    for target in targets:
        print(f"measuring {target} ...", file=sys.stderr, flush=True)
        results[target] = measure(target, args.seconds, args.seed)
    steps = {name: r for name, r in results.items() if name not in COPIES}
    copies = {name: r for name, r in results.items() if name in COPIES}
    reference = "pz126:gin_rummy_v4" if "steps_per_s" in results.get("pz126:gin_rummy_v4", {}) else None
    if steps:
        print(format_table(steps, reference))
    if copies:
        print(("\n" if steps else "") + format_copy_table(copies))
    from rummy_env.experiments.io import provenance, write_json
    write_json(args.out, {**provenance(), "seconds_per_target": args.seconds, "seed": args.seed, "python": sys.version.split()[0],
                          "results": steps, "copies": copies})
    print(f"\nwrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
