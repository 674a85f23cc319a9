"""``rummy-env serve``: the web table (lobby, tables, replays) on Starlette and uvicorn.

Routes:

- ``GET /``: the lobby, or with ``--game`` a new table of that game with the person in seat 0;
  ``GET /lobby``: the lobby.
- ``POST /api/tables``: JSON ``{"game", "options": ["KEY=VALUE", ...], "people": [0, ...],
  "opponents": "heuristic", "seed"}`` -> the table's links, one per person seat with its secret
  token and one for spectators.
- ``GET /t/{table}/{seat}?token=T`` (``seat`` a number or ``watch``): that seat's page;
  ``GET /api/tables/{table}/state?seat=S&token=T``: the same update the live connection sends.
- ``WS /ws/{table}?seat=S&token=T``: updates as JSON (``{"type": "state", "version", "to_play",
  "legal_actions", "html", ...}``); the browser sends ``{"move": "<text>"}`` and gets
  ``{"type": "error", "status", "error"}`` for a refused move.
- ``POST /api/tables/{table}/move``: JSON ``{"seat", "token", "move"}``, the same move over HTTP.
- ``GET /replay``: the replay viewer; ``POST /api/replay`` JSON ``{"record", "seat", "step"}``;
  ``GET /api/games``: the games this server logged.

A missing or wrong token answers 403, an unknown table 404, a move out of turn or after the end
409, move text that does not parse or is not legal and any malformed request 400; none changes
anything. Every page a seat gets is drawn from ``view(seat)``.

Why Starlette: HTTP routes, WebSockets and static files are all this server needs, and Starlette
(the toolkit FastAPI is built on) gives them without FastAPI's validation layer; uvicorn serves it,
with the ``websockets`` package for the live connections.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Sequence

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from rummy_env.agents.registry import AGENT_SPECS

from ..io import read_jsonl
from ..options import add_option_argument, parse_env_options
from ..usage import OneLineParser
from .pages import links_message, lobby_page, replay_page, state_message, table_page
from .replays import EVERY_CARD, replay_frame
from .tables import SPECTATOR, TableError, Tables

STATIC = Path(__file__).parent / "static"
BOT_THREADS = 4
"""Threads the bots of all tables decide on."""


def error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def json_body(request: Request) -> dict:
    """The request's JSON object, or a 400 :class:`TableError`."""
    try:
        body = json.loads(await request.body())
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise TableError(400, "the request body is not valid JSON") from None
    if not isinstance(body, dict):
        raise TableError(400, "the request body must be a JSON object")
    return body


def seat_number(text: str | None) -> int:
    """A seat from a URL: a number, or ``watch`` for the spectators' view (400 otherwise)."""
    if text == "watch":
        return SPECTATOR
    if text is None or not text.isdigit():
        raise TableError(400, f"seat must be a seat number or 'watch', got {text!r}")
    return int(text)


def create_app(tables: Tables, start: dict | None = None) -> Starlette:
    """The web app over ``tables``; ``start`` (``game``, ``options``, ``opponents``, ``seed``)
    opens ``/`` straight to a new table of that game, the person in seat 0."""
    front = None
    if start is not None:
        front = tables.create(start["game"], start.get("options", {}), [0], start.get("opponents", "heuristic"),
                              seed=start.get("seed"))

    async def home(request: Request) -> Response:
        if front is None:
            return HTMLResponse(lobby_page())
        front.ensure_bots()
        return HTMLResponse(table_page(front, 0, front.tokens[0]))

    async def lobby(request: Request) -> Response:
        return HTMLResponse(lobby_page())

    async def new_table(request: Request) -> Response:
        body = await json_body(request)
        options, people, opponents, seed = (body.get("options", []), body.get("people", [0]),
                                            body.get("opponents", "heuristic"), body.get("seed"))
        if not isinstance(options, list) or not all(isinstance(o, str) for o in options):
            raise TableError(400, "options must be a list of KEY=VALUE texts")
        if not isinstance(people, list) or not all(isinstance(p, int) and not isinstance(p, bool) for p in people):
            raise TableError(400, "people must be a list of seat numbers")
        if not isinstance(opponents, str) or not isinstance(body.get("game"), str):
            raise TableError(400, f"game and opponents must be texts (agent specs: {', '.join(AGENT_SPECS)})")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
            raise TableError(400, f"seed must be a whole number >= 0, got {seed!r}")
        try:
            table = tables.create(body["game"], parse_env_options(options), people, opponents, seed=seed)
        except (TypeError, ValueError) as e:
            raise TableError(400, str(e)) from None
        table.ensure_bots()
        return JSONResponse(links_message(table, str(request.base_url).rstrip("/")))

    async def seat_page(request: Request) -> Response:
        table = tables.get(request.path_params["table"])
        seat = seat_number(request.path_params["seat"])
        token = request.query_params.get("token")
        table.check_token(seat, token)
        table.ensure_bots()
        return HTMLResponse(table_page(table, seat, token))

    async def state(request: Request) -> Response:
        table = tables.get(request.path_params["table"])
        seat = seat_number(request.query_params.get("seat"))
        table.check_token(seat, request.query_params.get("token"))
        return JSONResponse(state_message(table, seat))

    async def move(request: Request) -> Response:
        table = tables.get(request.path_params["table"])
        body = await json_body(request)
        seat = body.get("seat")
        if isinstance(seat, bool) or not isinstance(seat, int):
            raise TableError(400, f"seat must be a seat number, got {seat!r}")
        played = table.move(seat, body.get("token"), body.get("move"))
        table.ensure_bots()
        return JSONResponse({"played": played, **state_message(table, seat)})

    async def live(websocket: WebSocket) -> None:
        try:
            table = tables.get(websocket.path_params["table"])
            seat = seat_number(websocket.query_params.get("seat"))
            token = websocket.query_params.get("token")
            table.check_token(seat, token)
        except TableError as e:
            await websocket.close(code=4000 + e.status, reason=str(e))
            return
        await websocket.accept()
        wake = asyncio.Event()
        table.listeners.add(wake)
        table.ensure_bots()
        sender = asyncio.create_task(send_updates(websocket, table, seat, wake))
        try:
            while True:
                text = await websocket.receive_text()
                try:
                    message = json.loads(text)
                    if not isinstance(message, dict) or "move" not in message:
                        raise TableError(400, 'send {"move": "<move text>"}')
                    table.move(seat, token, message["move"])
                    table.ensure_bots()
                except json.JSONDecodeError:
                    await websocket.send_json({"type": "error", "status": 400, "error": "not valid JSON"})
                except TableError as e:
                    await websocket.send_json({"type": "error", "status": e.status, "error": str(e)})
        except WebSocketDisconnect:
            pass
        finally:
            table.listeners.discard(wake)
            sender.cancel()

    async def replay(request: Request) -> Response:
        return HTMLResponse(replay_page())

    async def replay_step(request: Request) -> Response:
        body = await json_body(request)
        try:
            frame = replay_frame(body.get("record"), body.get("seat", EVERY_CARD), body.get("step", 0))
        except ValueError as e:
            raise TableError(400, str(e)) from None
        return JSONResponse(frame)

    async def games(request: Request) -> Response:
        path = tables.log_path
        return JSONResponse(read_jsonl(path) if path is not None and Path(path).exists() else [])

    async def refused(request: Request, exc: TableError) -> Response:
        return error(exc.status, str(exc))

    routes = [
        Route("/", home), Route("/lobby", lobby), Route("/replay", replay),
        Route("/api/tables", new_table, methods=["POST"]),
        Route("/api/tables/{table}/state", state), Route("/api/tables/{table}/move", move, methods=["POST"]),
        Route("/api/replay", replay_step, methods=["POST"]), Route("/api/games", games),
        Route("/t/{table}/{seat}", seat_page), WebSocketRoute("/ws/{table}", live),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    return Starlette(routes=routes, exception_handlers={TableError: refused})


async def send_updates(websocket: WebSocket, table, seat: int, wake: asyncio.Event) -> None:
    """Send the seat's table now and after every change (changes in between are sent once)."""
    await websocket.send_json(state_message(table, seat))
    while True:
        await wake.wait()
        wake.clear()
        await websocket.send_json(state_message(table, seat))


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``rummy-env serve`` / ``python -m rummy_env.experiments.web.server``."""
    parser = OneLineParser(prog="rummy-env serve", description="Serve the web card table: a lobby, "
                                     "tables with people and bots, replays of games.jsonl.")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1, this "
                        "machine only; 0.0.0.0 lets other machines join)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument("--game", default=None, help="open / straight to a new table of this game, you in seat 0 (default: / is the lobby)")
    parser.add_argument("--opponents", default="heuristic",
                        help=f"with --game: the bots' spec, one for all or one per bot ({', '.join(AGENT_SPECS)}; "
                        "default heuristic)")
    parser.add_argument("--seed", type=int, default=None, help="with --game: the deal's seed (default: random)")
    add_option_argument(parser)
    parser.add_argument("--bot-delay", type=float, default=1.0,
                        help="seconds a bot waits before it moves, so people can follow (default 1.0)")
    parser.add_argument("--log", default="runs/web/games.jsonl",
                        help="finished games are appended here (default runs/web/games.jsonl)")
    return parser


def build(ns: argparse.Namespace) -> Starlette:
    """The app for parsed ``serve`` arguments (``ValueError`` naming a bad game, option or spec)."""
    if ns.bot_delay < 0:
        raise ValueError(f"--bot-delay must be >= 0, got {ns.bot_delay}")
    tables = Tables(bot_delay=ns.bot_delay, log_path=ns.log, executor=ThreadPoolExecutor(BOT_THREADS))
    start = None
    if ns.game is not None:
        start = {"game": ns.game, "options": parse_env_options(ns.option), "opponents": ns.opponents,
                 "seed": ns.seed}
    return create_app(tables, start)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    ns = parser.parse_args(argv)
    try:
        app = build(ns)
    except (TypeError, ValueError) as e:  # a bad game, option value or agent spec
        parser.error(str(e))
    import uvicorn

    print(f"rummy-env serve: http://{ns.host}:{ns.port}/ (finished games go to {ns.log})", file=sys.stderr)
    uvicorn.run(app, host=ns.host, port=ns.port, log_level="warning")
    return 0


if __name__ == "__main__":  # runs as `rummy-env serve`
    from rummy_env.experiments.cli import run_as_command
    sys.exit(run_as_command("serve"))
