"""Ginny-O's wording (to move into ``rummy_env/games/ginny_o/view.py``)."""
from __future__ import annotations

from ..words import plural

TITLE = "Ginny-O"
PREMIUM_LEGEND = "premium squares: y/g tile x2/x3, r/b meld x2/x3, r/c start; 8D* = joker as 8D"
"""Ginny-O's premium squares (GO-2, GO-3) as the text board shows them."""


def status_lines(view: dict) -> list[str]:
    """The box, the turns without a play and the limit that ends the game; this turn's placements."""
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
