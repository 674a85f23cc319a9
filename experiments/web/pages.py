"""The HTML of the web table: the lobby, a seat's table (drawn from that seat's view only), the
replay viewer. Cards, melds, the Ginny-O board, the discard pile, hand sizes and scores are drawn by
:func:`rummy_env.render.view_to_html`; this module adds the legal moves as controls, the events with
the hand results in words, the end-of-game panel and the page around them.

Stable hooks for tests and scripts: every legal-move control carries
``data-action="<canonical move text>"``, the end-of-game panel ``data-testid="result"``, the
lobby's start control ``data-testid="start"``.
"""
from __future__ import annotations

import json
from html import escape

from rummy_env.agents.registry import AGENT_SPECS
from rummy_env.registry import GAMES
from rummy_env.render import GAME_TITLES, number, status_lines, title, view_to_html

from .tables import SPECTATOR, Table

OPEN_GROUP = 40
"""Moves of one kind shown open; a larger group (I Doubt It's plays) is folded until opened."""


def seat_label(seat: int, own: int) -> str:
    return "you" if seat == own else f"player_{seat}"


def move_controls(legal: list[str]) -> str:
    """The legal moves as buttons grouped by their first word, each with ``data-action``."""
    groups: dict[str, list[str]] = {}
    for text in legal:
        groups.setdefault(text.split()[0], []).append(text)
    out = ['<div id="moves">']
    for word, texts in groups.items():
        buttons = "".join(f'<button class="move" data-action="{escape(t)}">{escape(t)}</button>' for t in texts)
        if len(texts) > OPEN_GROUP:
            out.append(f'<details class="group"><summary>{escape(word)} ({len(texts)} moves)</summary>'
                       f'{buttons}</details>')
        else:
            out.append(f'<div class="group">{buttons}</div>')
    out.append("</div>")
    return "".join(out)


def result_panel(table: Table, seat: int) -> str:
    """The end-of-game panel: the returns of every seat and who won."""
    returns = table.returns
    best = max(returns)
    winners = [s for s, r in enumerate(returns) if r == best]
    who = " and ".join(seat_label(s, seat) for s in winners)
    rows = "".join(f"<li>{seat_label(s, seat)} ({escape(table.specs[s])}): {escape(number(r))}</li>"
                   for s, r in enumerate(returns))
    verb = "win" if seat in winners or len(winners) > 1 else "wins"
    return (f'<div id="result" data-testid="result"><b>Game over: {escape(who)} {verb}.</b>'
            f"<ul>{rows}</ul><span>returns (the sum of each seat's rewards)</span></div>")


def table_fragment(table: Table, seat: int) -> str:
    """What seat ``seat`` (or :data:`SPECTATOR`) sees of the table now, from its view only."""
    view = table.view(seat)
    legal = list(view.get("legal_actions") or [])
    drawn = dict(view, legal_actions=[], events=[])
    who = "spectator" if seat == SPECTATOR else f"player_{seat}"
    if table.done:
        state = "game over"
    elif table.thinking is not None:
        state = f'<span data-testid="thinking" class="thinking">player_{table.thinking} is thinking...</span>'
    elif table.to_play == seat:
        state = "<b>your turn</b>"
    else:
        state = f"player_{table.to_play} ({escape(table.specs[table.to_play])}) to play"
    out = [f'<div class="head" data-version="{table.version}">{escape(title(view))}, table {escape(table.id)}: '
           f"you are {who} &middot; {state}</div>"]
    lines = status_lines(view) if seat != SPECTATOR else []
    if lines:
        out.append('<div class="status">' + "<br>".join(escape(line) for line in lines) + "</div>")
    out.append(view_to_html(drawn, view.get("game", "")))
    if table.done:
        out.append(result_panel(table, seat))
    elif legal and table.thinking is None:
        out.append(move_controls(legal))
    log = table.logs[seat][-40:]
    out.append('<div id="events"><b>events</b><ol>' + "".join(f"<li>{escape(line)}</li>" for line in log)
               + "</ol></div>")
    return "".join(out)


def state_message(table: Table, seat: int) -> dict:
    """One update for a seat's browser: the table's HTML and, for scripts, the seat's legal moves."""
    view = table.view(seat)
    return {"type": "state", "table": table.id, "version": table.version, "seat": seat,
            "to_play": table.to_play, "done": table.done, "thinking": table.thinking,
            "legal_actions": [] if table.thinking is not None else list(view.get("legal_actions") or []),
            "html": table_fragment(table, seat)}


def page(heading: str, body: str, script: str | None = None, config: dict | None = None) -> str:
    """A whole HTML page around ``body``."""
    cfg = ("<script id=\"config\" type=\"application/json\">"
           + json.dumps(config).replace("</", "<\\/") + "</script>") if config is not None else ""
    js = f'<script src="/static/{script}"></script>' if script else ""
    return ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{escape(heading)}</title><link rel=\"stylesheet\" href=\"/static/web.css\"></head>"
            f'<body><nav><a href="/lobby">lobby</a> <a href="/replay">replays</a></nav>'
            f"<h1>{escape(heading)}</h1>{body}{cfg}{js}</body></html>")


def table_page(table: Table, seat: int, token: str) -> str:
    """The page of one seat: the table, a box for move text, the live connection's settings."""
    who = "spectator" if seat == SPECTATOR else f"player_{seat}"
    body = (f'<div id="table">{table_fragment(table, seat)}</div>'
            '<form id="say"><input id="move-text" name="move" autocomplete="off" '
            'placeholder="type a move, e.g. discard 7h"> <button type="submit">play</button></form>'
            '<div id="error" role="alert"></div>')
    heading = f"{GAME_TITLES[table.game]}: {who}"
    return page(heading, body, "table.js", {"table": table.id, "seat": seat, "token": token})


def lobby_page() -> str:
    """Pick a game, its options, the seats that are people and the bots' specs; start a table."""
    games = "".join(f'<option value="{g}">{escape(GAME_TITLES[g])}</option>' for g in GAMES)
    body = ('<form id="lobby">'
            f'<label>game <select name="game">{games}</select></label>'
            '<label>options, one KEY=VALUE a line (as --option on the command line)'
            '<textarea name="options" rows="3" placeholder="target_score=50"></textarea></label>'
            '<label>seats that are people (comma-separated) <input name="people" value="0"></label>'
            f'<label>bots: one agent spec for every bot seat, or one per bot ({escape(", ".join(AGENT_SPECS))})'
            '<input name="opponents" value="heuristic"></label>'
            '<label>seed (empty: a fresh deal) <input name="seed"></label>'
            '<button type="submit" data-testid="start">start a table</button></form>'
            '<div id="error" role="alert"></div><div id="links"></div>')
    return page("rummy_env: new table", body, "lobby.js")


def replay_page() -> str:
    """Open a ``games.jsonl``, choose a game and a seat's view (or every card), step through it."""
    body = ('<div id="pick"><label>games.jsonl <input type="file" id="file" accept=".jsonl,.json"></label> '
            '<button id="server-log" type="button">games of this server</button></div>'
            '<div id="choose"><label>game <select id="game"></select></label> '
            '<label>view <select id="seat"></select></label></div>'
            '<div id="steps"><button id="first" type="button">|&lt;</button> '
            '<button id="back" type="button" data-testid="back">&lt; back</button> '
            '<button id="forward" type="button" data-testid="forward">forward &gt;</button> '
            '<button id="last" type="button">&gt;|</button> <span id="where"></span></div>'
            '<div id="error" role="alert"></div><div id="frame"></div>')
    return page("rummy_env: replays", body, "replay.js")


def links_message(table: Table, base: str) -> dict:
    """The links of a new table: one per person seat (with its token) and one for spectators."""
    seats = {seat: f"{base}/t/{table.id}/{seat}?token={token}" for seat, token in table.tokens.items()}
    return {"table": table.id, "seats": seats, "watch": f"{base}/t/{table.id}/watch?token={table.watch_token}",
            "specs": table.specs}
