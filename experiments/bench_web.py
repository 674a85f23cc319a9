"""Load on the web table, measured: many tables at once, a simulated person at each, bots in the
other seats.

The server runs as its own process (``rummy-env serve``, bots moving without delay on its thread
pool). This process starts ``--tables`` tables through ``POST /api/tables`` and plays the person's
seat of each over the WebSocket the browser uses: once it is the person's turn it waits ``--think``
seconds, sends a random legal move, and times how long the table's next update (the first one with
a higher move count) takes to arrive. A finished game is followed by a new table. After
``--seconds`` the latencies' median and 99th percentile are written with the run's provenance.

    python -m rummy_env.experiments.bench_web --out docs/results/web/load_50_tables.json
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
import urllib.request

import numpy as np
import websockets

from . import io
from .options import add_option_argument
from .web.browser import free_port


def post_json(url: str, body: dict) -> dict:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


async def person(base: str, body: dict, think: float, until: float, rng: np.random.Generator,
                 latencies: list[float], games: list[int]) -> None:
    """One simulated person: tables one after another until ``until`` (monotonic seconds)."""
    while time.monotonic() < until:
        links = await asyncio.to_thread(post_json, f"{base}/api/tables", body)
        token = links["seats"]["0"].split("token=", 1)[1]
        url = f"ws{base[4:]}/ws/{links['table']}?seat=0&token={token}"
        async with websockets.connect(url, max_size=None) as ws:
            message = json.loads(await ws.recv())
            while time.monotonic() < until and not message["done"]:
                if message["to_play"] != 0 or not message["legal_actions"]:
                    message = json.loads(await ws.recv())
                    continue
                await asyncio.sleep(think)
                legal = message["legal_actions"]
                sent = time.perf_counter()
                await ws.send(json.dumps({"move": legal[rng.integers(len(legal))]}))
                update = json.loads(await ws.recv())
                while update.get("version", -1) <= message["version"]:
                    if update.get("type") == "error":
                        raise RuntimeError(f"the server refused a legal move: {update['error']}")
                    update = json.loads(await ws.recv())
                latencies.append(time.perf_counter() - sent)
                message = update
            games.append(int(message["done"]))


async def run_people(base: str, args: argparse.Namespace) -> tuple[list[float], int]:
    latencies: list[float] = []
    games: list[int] = []
    until = time.monotonic() + args.seconds
    body = {"game": args.game, "options": args.option, "people": [0], "opponents": args.opponents}
    rngs = [np.random.default_rng([args.seed, k]) for k in range(args.tables)]
    await asyncio.gather(*(person(base, body, args.think, until, rng, latencies, games) for rng in rngs))
    return latencies, sum(games)


def wait_for_port(port: int, server: subprocess.Popen, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the server exited with status {server.returncode}")
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/lobby", timeout=2).close()
            return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("the server did not answer within a minute")


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``python -m rummy_env.experiments.bench_web``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=50, help="tables played at once (default 50)")
    parser.add_argument("--seconds", type=float, default=120.0, help="how long to measure (default 120)")
    parser.add_argument("--think", type=float, default=1.0, help="a person's seconds before each move (default 1.0)")
    parser.add_argument("--game", default="rummy", help="the game (default rummy)")
    parser.add_argument("--opponents", default="heuristic", help="the bots' spec (default heuristic)")
    add_option_argument(parser)
    parser.add_argument("--seed", type=int, default=0, help="seed of the people's moves (default 0)")
    parser.add_argument("--out", default=None, help="result JSON (default: print only)")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    port = free_port()
    log = f"runs/bench_web/games_{port}.jsonl"
    server = subprocess.Popen([sys.executable, "-m", "rummy_env.experiments.web.server", "--port", str(port),
                               "--bot-delay", "0", "--log", log])
    try:
        wait_for_port(port, server)
        started = time.perf_counter()
        latencies, games = asyncio.run(run_people(f"http://127.0.0.1:{port}", args))
        elapsed = time.perf_counter() - started
    finally:
        server.terminate()
        server.wait(timeout=30)
    ms = np.asarray(latencies) * 1000.0
    result = {
        "what": "time from a simulated person's move (sent over the table's WebSocket) to the table's next "
                "update arriving, with every table played at once; the server is one process, its bots "
                "move without delay",
        "tables": args.tables, "game": args.game, "options": args.option, "opponents": args.opponents,
        "think_s": args.think, "seconds": round(elapsed, 1), "moves_timed": int(ms.size), "games_finished": games,
        "latency_ms": {"median": round(float(np.median(ms)), 2), "p99": round(float(np.percentile(ms, 99)), 2),
                       "mean": round(float(ms.mean()), 2), "max": round(float(ms.max()), 2)},
        "cpus": os.cpu_count(), "provenance": io.provenance(),
    }
    print(json.dumps(result, indent=2))
    if args.out:
        io.write_json(args.out, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
