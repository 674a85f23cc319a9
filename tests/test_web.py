"""The web table (rummy_env.experiments.web): the lobby, tables, moves, tokens, every bad request,
what each seat is sent, the games log and the replay viewer, through Starlette's test client."""
from __future__ import annotations

import contextlib
import json
import re
import subprocess
import sys
import urllib.request
import warnings

import numpy as np
import pytest

pytest.importorskip("starlette")
with warnings.catch_warnings():  # starlette's test client would rather have httpx2 than httpx
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402
from starlette.websockets import WebSocketDisconnect  # noqa: E402

from rummy_env.experiments.bench_web import wait_for_port  # noqa: E402
from rummy_env.experiments.cli import main as cli_main  # noqa: E402
from rummy_env.experiments.io import read_jsonl  # noqa: E402
from rummy_env.experiments.options import parse_env_options  # noqa: E402
from rummy_env.experiments.replay import replay_game  # noqa: E402
from rummy_env.experiments.web.browser import free_port  # noqa: E402
from rummy_env.experiments.web.pages import table_fragment  # noqa: E402
from rummy_env.experiments.web.server import create_app  # noqa: E402
from rummy_env.experiments.web.tables import SPECTATOR, Tables  # noqa: E402
from rummy_env.cards import CARD_TEXT  # noqa: E402
from rummy_env.registry import GAMES, make_raw_env  # noqa: E402

SHORT_OPTIONS = {
    "rummy": ["max_rounds=1", "max_turns=12"],
    "tongits": ["hands_per_match=1"],
    "i_doubt_it": ["num_players=3", "max_plays=25"],
    "contract_rummy": ["num_players=3", "deals=[1]", "max_turns_per_deal=10"],
    "ginny_o": ["max_turns=6"],
}
CARD = re.compile(r"(?<![A-Za-z0-9])(?:10|[2-9TJQKA])[CDHS](?![A-Za-z0-9])")


DECK = {card for card in CARD_TEXT if card != "JK"}


def cards_in(text: str) -> set[str]:
    return {c.replace("10", "T") for c in CARD.findall(text)}


@pytest.fixture
def served(tmp_path):
    tables = Tables(bot_delay=0.0, log_path=tmp_path / "games.jsonl")
    with TestClient(create_app(tables)) as client:
        yield tables, client


def new_table(client, **body) -> dict:
    response = client.post("/api/tables", json={"game": "rummy", "opponents": "random", **body})
    assert response.status_code == 200, response.text
    return response.json()


def seat_query(links: dict, seat: int) -> str:
    """``seat=S&token=T`` of a person seat's link."""
    return f"seat={seat}&" + links["seats"][str(seat)].split("?", 1)[1]


def wait_for_turn(ws, seat: int) -> dict:
    """Read updates until ``seat`` may move or the game is over."""
    while True:
        message = ws.receive_json()
        if message["type"] == "state" and (message["done"] or (message["to_play"] == seat and message["legal_actions"])):
            return message


def test_lobby_has_the_start_control_and_every_game(served):
    _, client = served
    for path in ("/", "/lobby"):
        page = client.get(path).text
        assert 'data-testid="start"' in page
        assert all(f'value="{game}"' in page for game in GAMES)


def test_serve_with_a_game_opens_a_table_at_root(tmp_path):
    tables = Tables(log_path=None)
    app = create_app(tables, {"game": "ginny_o", "options": {}, "opponents": "random", "seed": 3})
    with TestClient(app) as client:
        page = client.get("/").text
    (table,) = tables.tables.values()
    assert "Ginny-O: player_0" in page and table.tokens[0] in page and table.seed == 3


def test_new_table_gives_a_link_per_person_and_one_to_watch(served):
    tables, client = served
    links = new_table(client, game="tongits", people=[0, 2], seed=5)
    table = tables.get(links["table"])
    assert sorted(links["seats"]) == ["0", "2"] and table.specs == ["human", "random", "human"]
    assert f"token={table.tokens[2]}" in links["seats"]["2"] and table.watch_token in links["watch"]
    assert client.get(links["seats"]["2"]).status_code == 200
    assert client.get(links["watch"]).status_code == 200


@pytest.mark.parametrize("body,words", [
    ({"game": "poker"}, "unknown game"),
    ({"options": ["max_rounds=x"]}, "max_rounds"),
    ({"options": ["nonsense"]}, "KEY=VALUE"),
    ({"options": ["colour=red"]}, "unknown option"),
    ({"opponents": "genius"}, "unknown agent"),
    ({"people": [2]}, "people must be distinct seats"),
    ({"people": [0, 0]}, "people must be distinct seats"),
    ({"people": "0"}, "people must be a list"),
    ({"opponents": "random,random"}, "opponents lists 2 specs"),
    ({"seed": -1}, "seed must be"),
    ({"options": "max_rounds=1"}, "options must be a list"),
])
def test_bad_new_table_requests_answer_400(served, body, words):
    tables, client = served
    response = client.post("/api/tables", json={"game": "rummy", "opponents": "random", **body})
    assert response.status_code == 400 and words in response.json()["error"]
    assert not tables.tables


@pytest.mark.parametrize("content", [b"{not json", b"[1, 2]", b"\xff\xfe"])
def test_malformed_bodies_answer_400(served, content):
    _, client = served
    links = new_table(client, people=[0, 1])
    for path in ("/api/tables", f"/api/tables/{links['table']}/move", "/api/replay"):
        response = client.post(path, content=content)
        assert response.status_code == 400 and "JSON" in response.json()["error"]


def test_tokens_guard_every_seat(served):
    tables, client = served
    links = new_table(client, people=[0])
    table = tables.get(links["table"])
    base = f"/t/{table.id}"
    assert client.get(f"{base}/0?token={table.tokens[0]}").status_code == 200
    for url in (f"{base}/0", f"{base}/0?token=wrong", f"{base}/0?token={table.watch_token}",
                f"{base}/1?token={table.tokens[0]}", f"{base}/watch?token={table.tokens[0]}", f"{base}/watch"):
        assert client.get(url).status_code == 403, url
    assert client.get(f"/api/tables/{table.id}/state?seat=0&token=wrong").status_code == 403
    assert client.get(f"{base}/7?token=x").status_code == 404
    assert client.get(f"{base}/me?token=x").status_code == 400
    assert client.get(f"/t/nosuch/0?token={table.tokens[0]}").status_code == 404
    assert client.get("/api/tables/nosuch/state?seat=0&token=x").status_code == 404
    with pytest.raises(WebSocketDisconnect):
        with client.websocket_connect(f"/ws/{table.id}?seat=0&token=wrong") as ws:
            ws.receive_json()
    with pytest.raises(WebSocketDisconnect):
        with client.websocket_connect(f"/ws/nosuch?seat=0&token={table.tokens[0]}") as ws:
            ws.receive_json()


def test_refused_moves_answer_4xx_and_change_nothing(served):
    tables, client = served
    links = new_table(client, people=[0, 1], seed=4)
    table = tables.get(links["table"])
    mover = table.to_play
    other = 1 - mover
    legal = table.view(mover)["legal_actions"]
    url = f"/api/tables/{table.id}/move"
    before = (json.dumps(table.env.game.to_dict(), default=str), table.version, list(table.actions))
    refusals = [
        ({"seat": other, "token": table.tokens[other], "move": legal[0]}, 409, "not your turn"),
        ({"seat": mover, "token": table.tokens[other], "move": legal[0]}, 403, "token"),
        ({"seat": mover, "move": legal[0]}, 403, "token"),
        ({"seat": mover, "token": table.tokens[mover], "move": "fly away"}, 400, "fly away"),
        ({"seat": mover, "token": table.tokens[mover], "move": "discard 2C"}, 400, "illegal"),
        ({"seat": mover, "token": table.tokens[mover], "move": 3}, 400, "a move is a text"),
        ({"seat": "0", "token": table.tokens[mover], "move": legal[0]}, 400, "seat must be"),
        ({"seat": 9, "token": table.tokens[mover], "move": legal[0]}, 404, "seats 0..1"),
    ]
    for body, status, words in refusals:
        response = client.post(url, json=body)
        assert response.status_code == status and words in response.json()["error"], (body, response.text)
    assert client.post("/api/tables/nosuch/move", json={"seat": 0, "token": "x", "move": "x"}).status_code == 404
    assert (json.dumps(table.env.game.to_dict(), default=str), table.version, table.actions) == before
    response = client.post(url, json={"seat": mover, "token": table.tokens[mover], "move": legal[0].upper()})
    assert response.status_code == 200 and response.json()["played"] == legal[0]
    assert table.version == 1 and table.actions == [legal[0]]


def test_websocket_refusals_are_messages_and_change_nothing(served):
    tables, client = served
    links = new_table(client, people=[0, 1], seed=4)
    table = tables.get(links["table"])
    other = 1 - table.to_play
    with client.websocket_connect(f"/ws/{table.id}?{seat_query(links, other)}") as ws:
        assert ws.receive_json()["type"] == "state"
        for message, status in (({"move": table.view(table.to_play)["legal_actions"][0]}, 409),
                                ({"say": "hi"}, 400), ("[]", 400), ("{oops", 400)):
            if isinstance(message, dict):
                ws.send_json(message)
            else:
                ws.send_text(message)
            answer = ws.receive_json()
            assert answer["type"] == "error" and answer["status"] == status
    assert table.version == 0


def play_to_the_end(client, links: dict, seat: int, seed: int) -> dict:
    """Play seat ``seat`` with random legal moves over the websocket until the game ends."""
    rng = np.random.default_rng(seed)
    with client.websocket_connect(f"/ws/{links['table']}?{seat_query(links, seat)}") as ws:
        while True:
            message = wait_for_turn(ws, seat)
            if message["done"]:
                return message
            legal = message["legal_actions"]
            ws.send_json({"move": legal[rng.integers(len(legal))]})


def test_a_game_against_bots_ends_with_a_result_and_is_logged(served, tmp_path):
    tables, client = served
    links = new_table(client, options=["max_rounds=1"], seed=11)
    final = play_to_the_end(client, links, 0, seed=1)
    assert 'data-testid="result"' in final["html"] and "Round 1: " in final["html"]
    (record,) = read_jsonl(tmp_path / "games.jsonl")
    table = tables.get(links["table"])
    assert record["seating"] == ["human", "random"] and record["actions"] == table.actions
    assert record["options"] == {"max_rounds": 1} and record["seed"] == 11
    assert replay_game(record).ok
    assert client.get("/api/games").json() == [record]


def test_a_thinking_bot_is_shown():
    tables = Tables()
    table = tables.create("rummy", {}, [0], "random", seed=1)
    table.thinking = 1
    assert 'data-testid="thinking"' in table_fragment(table, 0) and "player_1 is thinking" in table_fragment(table, 0)


def scenario(game: str, options: dict, seed: int) -> dict:
    """A scenario deal (shared contract 1): the hands of a seeded deal, the stock left to the table's seed."""
    env = make_raw_env(game, **options)
    env.reset(seed=seed)
    view = env.view(0)
    deal = {"hands": [env.view(s)["hand"] for s in range(len(env.possible_agents))]}
    if game == "ginny_o":
        deal["first"] = view["to_play"]
    elif "dealer" in view:
        deal["dealer"] = view["dealer"]
    return deal


@pytest.mark.parametrize("game", list(GAMES))
def test_no_seat_is_sent_a_card_it_may_not_see(served, game):
    """Through a whole game with every seat a person: every update over the websocket, every page
    and every state answer for seat s names only cards that view(s) has shown so far (a spectator:
    that every seat's view has shown); so never a card of another seat's hidden hand nor of the
    stock, nor the stock's order. Scenario deals set the hands."""
    tables, client = served
    options = parse_env_options(SHORT_OPTIONS[game])
    num_seats = len(make_raw_env(game, **options).possible_agents)
    table = tables.create(game, options, list(range(num_seats)), "random", seed=8,
                          deal=scenario(game, options, seed=21))
    seats = [*range(num_seats), SPECTATOR]
    tokens = {**table.tokens, SPECTATOR: table.watch_token}
    rng = np.random.default_rng(0)
    seen = {seat: set() for seat in seats}

    def check(seat: int, sent: str) -> None:
        """A seat may know what its env views so far showed (the event log outlives the view's
        last 20 events); a spectator only what every seat's views showed."""
        env = table.env
        seen[seat] |= (set.intersection(*(cards_in(json.dumps(env.view(s))) for s in range(num_seats)))
                       if seat == SPECTATOR else cards_in(json.dumps(env.view(seat))))
        leaked = cards_in(sent) & (DECK - seen[seat])
        assert not leaked, f"seat {seat} was sent {sorted(leaked)} at move {table.version}"

    with contextlib.ExitStack() as stack:
        sockets = {s: stack.enter_context(client.websocket_connect(
            f"/ws/{table.id}?seat={'watch' if s == SPECTATOR else s}&token={tokens[s]}")) for s in seats}
        while True:
            for seat, ws in sockets.items():
                check(seat, json.dumps(ws.receive_json()))
                path = f"/t/{table.id}/{'watch' if seat == SPECTATOR else seat}?token={tokens[seat]}"
                check(seat, client.get(path).text)
                check(seat, client.get(f"/api/tables/{table.id}/state", params={
                    "seat": "watch" if seat == SPECTATOR else seat, "token": tokens[seat]}).text)
            if table.done:
                break
            legal = table.view(table.to_play)["legal_actions"]
            sockets[table.to_play].send_json({"move": legal[rng.integers(len(legal))]})
    assert table.done and table.version > 5


def test_replay_steps_through_a_logged_game(served, tmp_path):
    _, client = served
    links = new_table(client, options=["max_rounds=1"], seed=12)
    play_to_the_end(client, links, 0, seed=2)
    (record,) = read_jsonl(tmp_path / "games.jsonl")
    assert 'type="file"' in client.get("/replay").text
    last = len(record["actions"])
    first = client.post("/api/replay", json={"record": record, "seat": "all", "step": 0}).json()
    assert first["steps"] == last and "next: player_" in first["html"]
    end = client.post("/api/replay", json={"record": record, "seat": 1, "step": last}).json()
    assert "the end" in end["html"]
    own = client.post("/api/replay", json={"record": record, "seat": 0, "step": 0}).json()["html"]
    env = make_raw_env("rummy", max_rounds=1)
    env.reset(seed=12)
    actor = env.game.current_player
    assert (f"plays {record['actions'][0]}" in own) == (actor == 0)
    bad = [({"record": record, "seat": 5, "step": 0}, "seat must be"),
           ({"record": record, "seat": 0, "step": last + 1}, "step must be"),
           ({"record": {"game": "rummy"}, "seat": 0, "step": 0}, "lacks seed, actions"),
           ({"record": dict(record, actions=["fly"] + record["actions"]), "seat": 0, "step": 3}, "was refused"),
           ({"record": dict(record, game="poker"), "seat": 0, "step": 0}, "cannot rebuild")]
    for body, words in bad:
        response = client.post("/api/replay", json=body)
        assert response.status_code == 400 and words in response.json()["error"], response.text


@pytest.mark.parametrize("argv,words", [
    (["serve", "--game", "poker"], "unknown game"),
    (["serve", "--game", "rummy", "--opponents", "genius"], "unknown agent"),
    (["serve", "--game", "rummy", "--option", "max_rounds"], "KEY=VALUE"),
    (["serve", "--bot-delay", "-1"], "--bot-delay"),
])
def test_serve_refuses_bad_arguments_with_a_usage_error(capsys, argv, words):
    assert cli_main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("rummy-env serve: error: ") and words in err and "Traceback" not in err


def test_rummy_env_serve_answers_on_its_port(tmp_path):
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "rummy_env.experiments.cli", "serve", "--port", str(port),
                               "--game", "tongits", "--opponents", "random", "--log", str(tmp_path / "g.jsonl")],
                              stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port, server)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30) as response:
            assert "Tongits: player_0" in response.read().decode()
    finally:
        server.terminate()
        server.wait(timeout=30)
