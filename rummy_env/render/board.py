"""The Ginny-O board back end: a view's board of coloured premium squares (GO-2) with its tiles,
as an RGB picture (:func:`board_to_rgb`, with the scores, the box and the seat's rack under it) and
as an HTML table (:func:`board_html`); both read the board in every form a view may give it
(:func:`board_tiles`)."""
from __future__ import annotations

import html
from typing import Any

import numpy as np
from PIL import Image, ImageColor, ImageDraw

from ..games.ginny_o import LAYOUTS, SIZE, square_of
from .common import BLACK, JOKER_COLOUR, RED, SUIT_SYMBOL, card_face, clip, draw_suit, font, is_red, number

BOARD_CELL = 40
"""Side of a board square (and of a tile), in pixels."""
BOARD_MARGIN = 26
BOARD_PANEL = 120
"""Height of the panel under the board: scores, the box, the seat's rack, the last event."""
SQUARE_LABELS = {"Y": "2T", "G": "3T", "R": "2M", "B": "3M", "C": "*"}
TILE_FACE = (250, 247, 238)
JOKER_FACE = (235, 225, 250)
PLACED_OUTLINE = (20, 120, 230)
PREMIUM_COLOURS = {
    "C": ("#d23c3c", "centre (start)"),
    "R": ("#e0645a", "red: meld x2, start"),
    "B": ("#4a78d0", "blue: meld x3"),
    "G": ("#56a85a", "green: tile x3"),
    "Y": ("#e6c84a", "yellow: tile x2"),
    ".": ("#e8e4d4", "plain"),
}
"""Premium letter -> (HTML colour, words) of the squares (GO-2)."""


def _square_rc(square: str) -> tuple[int, int]:
    """(row, column), 0-based, of a square text such as ``H8`` (column letter, then row)."""
    return divmod(square_of(square), SIZE)


def board_tiles(board: Any) -> dict[tuple[int, int], str]:
    """``{(row, col): tile text}`` from a view's ``board``.

    Accepts the forms a board may take: a list of ``"<sq> <tile>"`` strings (the deal format of
    ``ginny_o.md``), a dict ``{sq: tile}``, a list of ``{"square", "tile"}`` dicts, or a grid
    (list of rows, empty cells ``None``/``""``/``"."``).
    """
    tiles: dict[tuple[int, int], str] = {}
    if isinstance(board, dict):
        for sq, tile in board.items():
            tiles[_square_rc(sq)] = str(tile)
        return tiles
    for r, item in enumerate(board or []):
        if isinstance(item, str):
            sq, tile = item.split(None, 1)
            tiles[_square_rc(sq)] = tile.strip()
        elif isinstance(item, dict):
            sq = item.get("square", item.get("sq"))
            tiles[_square_rc(sq)] = str(item.get("tile", item.get("card")))
        else:
            for c, cell in enumerate(item):
                if cell not in (None, "", ".", 0):
                    tiles[(r, c)] = str(cell)
    return tiles


def board_premiums(view: dict) -> list[str] | None:
    """The premium layout as rows of letters (``C R B G Y .``): the view's ``premium`` rows, else
    its ``board_layout`` (a name in ``rummy_env.games.ginny_o.LAYOUTS``), else ``"standard"``."""
    layout = view.get("premium") or view.get("board_layout", "standard")
    if isinstance(layout, str):
        flat = LAYOUTS.get(layout)
        if flat is None:
            return None
        return ["".join(flat[r * SIZE:(r + 1) * SIZE]) for r in range(SIZE)]
    return ["".join(row) for row in layout]


def _draw_tile(draw: ImageDraw.ImageDraw, x: int, y: int, text: str) -> None:
    """A board tile in the square at (x, y): rank and suit, or ``JK`` over a joker's declared card."""
    label, suit, joker, stands = card_face(text)
    size = BOARD_CELL
    draw.rounded_rectangle([x + 2, y + 2, x + size - 3, y + size - 3], radius=5,
                           fill=JOKER_FACE if joker else TILE_FACE, outline=(90, 80, 60))
    if not joker:
        _draw_rank_and_suit(draw, x + size / 2, y + size / 2, label, suit, 15)
    elif stands:
        draw.text((x + size / 2, y + 11), "JK", fill=JOKER_COLOUR, font=font(12), anchor="mm")
        label, suit, _, _ = card_face(stands)
        _draw_rank_and_suit(draw, x + size / 2, y + 27, label, suit, 12)
    else:
        draw.text((x + size / 2, y + size / 2), "JK", fill=JOKER_COLOUR, font=font(15), anchor="mm")


def _draw_rank_and_suit(draw: ImageDraw.ImageDraw, cx: float, cy: float, label: str, suit: str | None,
                        size: int) -> None:
    """``7`` and the suit symbol side by side, centred at (cx, cy), red for hearts and diamonds."""
    if suit is None:  # not a card text: the text itself
        draw.text((cx, cy), label, fill=BLACK, font=font(size), anchor="mm")
        return
    colour = RED if is_red(suit) else BLACK
    draw.text((cx - size / 3, cy), label, fill=colour, font=font(size), anchor="rm")
    draw_suit(draw, suit, cx + size / 3, cy, size * 0.4, colour)


def board_to_rgb(view: dict) -> np.ndarray:
    """A Ginny-O view as a uint8 ``H x W x 3`` picture: the board with its premium squares (GO-2:
    yellow tile x2, green tile x3, red start square meld x2, blue meld x3, the centre H8), the
    tiles (this turn's placements outlined), the scores and the box, the seat's rack."""
    premium = board_premiums(view) or board_premiums({})
    size = len(premium)
    width = 2 * BOARD_MARGIN + size * BOARD_CELL
    height = 2 * BOARD_MARGIN + size * BOARD_CELL + BOARD_PANEL
    image = Image.new("RGB", (width, height), (245, 240, 228))
    draw = ImageDraw.Draw(image)
    tiles = board_tiles(view.get("board"))
    placed = {_square_rc(p.split()[0]) for p in view.get("placed", [])}
    for c in range(size):
        draw.text((BOARD_MARGIN + c * BOARD_CELL + BOARD_CELL // 2, BOARD_MARGIN // 2), chr(65 + c),
                  fill=(60, 60, 60), font=font(11), anchor="mm")
    for r in range(size):
        draw.text((BOARD_MARGIN // 2, BOARD_MARGIN + r * BOARD_CELL + BOARD_CELL // 2), str(r + 1),
                  fill=(60, 60, 60), font=font(11), anchor="mm")
        for c in range(size):
            x, y = BOARD_MARGIN + c * BOARD_CELL, BOARD_MARGIN + r * BOARD_CELL
            letter = premium[r][c]
            draw.rectangle([x, y, x + BOARD_CELL - 1, y + BOARD_CELL - 1],
                           fill=ImageColor.getrgb(PREMIUM_COLOURS.get(letter, PREMIUM_COLOURS["."])[0]),
                           outline=(160, 150, 130))
            tile = tiles.get((r, c))
            if tile:
                _draw_tile(draw, x, y, tile)
                if (r, c) in placed:
                    draw.rectangle([x + 1, y + 1, x + BOARD_CELL - 2, y + BOARD_CELL - 2], outline=PLACED_OUTLINE,
                                   width=3)
            elif letter in SQUARE_LABELS:
                draw.text((x + BOARD_CELL // 2, y + BOARD_CELL // 2), SQUARE_LABELS[letter], fill=(255, 255, 255),
                          font=font(10), anchor="mm")
    top = 2 * BOARD_MARGIN + size * BOARD_CELL - BOARD_MARGIN // 2
    scores = "   ".join(f"P{s}: {number(v)}" for s, v in enumerate(view.get("scores", [])))
    state = "game over" if view.get("done") else f"to play: P{view.get('to_play')} ({view.get('phase')})"
    draw.text((BOARD_MARGIN, top), f"{scores}     box: {view.get('stock_size', 0)}     {state}", fill=(30, 30, 30),
              font=font(11))
    draw.text((BOARD_MARGIN, top + 20), f"P{view.get('seat', 0)} rack:", fill=(30, 30, 30), font=font(11))
    for i, tile in enumerate(view.get("hand", [])):
        _draw_tile(draw, BOARD_MARGIN + 70 + i * (BOARD_CELL + 4), top + 14, tile)
    if view.get("events"):
        draw.text((BOARD_MARGIN, top + 66), clip(str(view["events"][-1]), 90), fill=(80, 80, 80), font=font(11))
    return np.asarray(image, dtype=np.uint8)


def board_html(view: dict) -> str:
    """The Ginny-O board as an HTML table, squares coloured by premium, tiles as small cards."""
    tiles = board_tiles(view.get("board"))
    layout = board_premiums(view)
    size = len(layout) if layout else max([15] + [max(r, c) + 1 for r, c in tiles])
    rows = ['<table style="border-collapse:collapse;margin:6px 0;font:11px sans-serif;color:#222">',
            '<tr><td></td>' + "".join(f'<td style="text-align:center;color:#f5f5f0">{chr(65 + c)}</td>'
                                      for c in range(size)) + "</tr>"]
    for r in range(size):
        cells = [f'<td style="color:#f5f5f0;padding-right:3px;text-align:right">{r + 1}</td>']
        for c in range(size):
            kind = layout[r][c] if layout and c < len(layout[r]) else "."
            colour = PREMIUM_COLOURS.get(kind, PREMIUM_COLOURS["."])[0]
            tile = tiles.get((r, c))
            inner = _tile_html(tile) if tile else ""
            cells.append(f'<td style="width:26px;height:26px;padding:0;border:1px solid #9a9680;'
                         f'background:{colour};text-align:center">{inner}</td>')
        rows.append("<tr>" + "".join(cells) + "</tr>")
    rows.append("</table>")
    legend = " ".join(f'<span style="background:{col};color:#222;padding:0 4px;margin-right:4px">{what}</span>'
                      for k, (col, what) in PREMIUM_COLOURS.items() if k != "." and (layout is None or
                                                                           any(k in row for row in layout)))
    return "".join(rows) + f"<div>{legend}</div>"


def _tile_html(text: str) -> str:
    label, suit, joker, stands = card_face(text)
    if joker:
        inner = "JK" if not stands else "J=" + html.escape(card_face(stands)[0]) + SUIT_SYMBOL[card_face(stands)[1]]
        colour = "#7828a0"
    elif suit is None:
        inner, colour = html.escape(label), "#222"
    else:
        inner, colour = label + SUIT_SYMBOL[suit], "#c41e2d" if is_red(suit) else "#191919"
    return (f'<div style="background:#fcfcf8;color:{colour};border-radius:3px;font-weight:bold;'
            f'line-height:24px;font-size:11px" title="{html.escape(text)}">{inner}</div>')
