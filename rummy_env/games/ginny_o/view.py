"""Ginny-O's structured view (``rummy_env.base.Game.view``), drawn by ``rummy_env.render`` as a
picture and as text, and the words it shows for the game: the state of the box and the stall
count, this turn's placements and the board in letters."""
from __future__ import annotations

import numpy as np

from ...cards import CARD_TEXT
from ...melds import piece_text
from ...words import plural
from .board import LAYOUTS, SIZE, SQUARE_TEXT, board_lines
from .actions import ACTIONS

TITLE = "Ginny-O"
"""The game's name as people write it."""
PREMIUM_LEGEND = "premium squares: y/g tile x2/x3, r/b meld x2/x3, r/c start; 8D* = joker as 8D"
"""Ginny-O's premium squares (GO-2, GO-3) as the text board shows them."""

PREMIUM_ROWS = {name: tuple("".join(layout[r * SIZE:(r + 1) * SIZE]) for r in range(SIZE))
                for name, layout in LAYOUTS.items()}
"""The premium letters of each layout, row by row (the view's ``premium``)."""


def committed_view(game) -> tuple:
    """The parts of the view that change only when a play is committed: the committed board's
    piece texts by row, its lines (melds) and its groups."""
    board = game.board
    rows = tuple(tuple(piece_text(board[r * SIZE + c]) if board[r * SIZE + c] >= 0 else "" for c in range(SIZE))
                 for r in range(SIZE))
    lines = tuple((tuple(piece_text(board[q]) for q in line), tuple(SQUARE_TEXT[q] for q in line))
                  for line in board_lines(board))
    groups = tuple((SQUARE_TEXT[start], game.group.count(g)) for g, start in enumerate(game.group_start))
    return rows, lines, groups


def view(game, seat: int, committed: tuple) -> dict:
    """The view of ``seat``: the shared keys plus ``board``, ``premium``, ``placed``, ``groups`` and
    turn details; ``committed`` is :func:`committed_view` of the game."""
    options = game.options
    rack = game.racks[seat]
    hand = [CARD_TEXT[t] for t in range(53) for _ in range(rack[t])]
    acting = seat == game.current_player and not game.done
    if acting:
        texts = ACTIONS.texts
        legal = [texts[a] for a in game.legal_mask().view(np.bool_).nonzero()[0].tolist()]
    else:
        legal = []
    rows, lines, groups = committed
    board = [list(row) for row in rows]
    for q, piece in game.placed:
        board[q // SIZE][q % SIZE] = piece_text(piece)
    return {
        "game": "ginny_o_v0",
        "seat": seat,
        "num_players": game.num_players,
        "to_play": -1 if game.done else game.current_player,
        "phase": game.phase,
        "done": game.done,
        "hand": hand,
        "hand_sizes": [sum(r) for r in game.racks],
        "scores": list(game.final_scores if game.done else game.scores),
        "running_scores": list(game.scores),
        "final_scores": list(game.final_scores) if game.done else None,
        "legal_actions": legal,
        "melds": [{"index": i, "owner": None, "cards": list(cards), "squares": list(squares)}
                  for i, (cards, squares) in enumerate(lines)],
        "discard": [],
        "stock_size": len(game.box),
        "events": list(game.events),
        "board": board,
        "premium": list(PREMIUM_ROWS[options.board_layout]),
        "board_layout": options.board_layout,
        "descending_runs": options.descending_runs,
        "placed": [f"{SQUARE_TEXT[q]} {piece_text(p)}" for q, p in game.placed],
        "groups": [{"start": start, "size": size} for start, size in groups],
        "exchange_count": len(game.chosen),
        "exchange_chosen": [CARD_TEXT[t] for t in game.chosen] if acting else [],
        "drawn": CARD_TEXT[game.drew] if acting and game.drew >= 0 else None,
        "box_empty_at_turn_start": game.box_empty_start,
        "stall": game.stall,
        "stall_limit": options.stall_rounds * game.num_players if game.box else game.num_players,
        "turns": game.turns,
        "history": game.history[-20:],
    }


def status_lines(view: dict) -> list[str]:
    """The tiles left in the box, the turns without a play and the count that ends the game
    (GO-36), this turn's placements."""
    limit, stall = view.get("stall_limit", 0), view.get("stall", 0)
    lines = [f"box: {plural(view.get('stock_size', 0), 'tile')}; turns without a play: {stall} "
             f"(the game ends at {limit})"]
    if view.get("placed"):
        lines.append("placed this turn: " + ", ".join(view["placed"]))
    return lines


def board_text(view: dict) -> list[str]:
    """Ginny-O's board, 4 characters a square so that a joker (``8D*``) keeps the grid aligned;
    empty premium squares in lower case (GO-2), with a legend."""
    cols = "ABCDEFGHIJKLMNO"
    board, premium = view.get("board") or [], view.get("premium") or []
    lines = ["   " + "".join(f"{c:>4}" for c in cols[:len(board[0]) if board else 15])]
    for r, row in enumerate(board):
        cells = []
        for c, tile in enumerate(row):
            if tile:
                text = tile[3:] + "*" if tile.startswith("JK=") else tile
            else:
                square = premium[r][c] if r < len(premium) and c < len(premium[r]) else "."
                text = square.lower()
            cells.append(f"{text:>4}")
        lines.append(f"{r + 1:>3}" + "".join(cells))
    lines.append(PREMIUM_LEGEND)
    return lines
