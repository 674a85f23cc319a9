"""Picture of a Ginny-O position (``view`` of ``GinnyOGame``) as an RGB array, drawn with Pillow.

Premium squares in their colours (GO-2: yellow tile x2, green tile x3, red start square meld x2,
blue meld x3, the centre H8), tiles with rank and suit (hearts and diamonds red), jokers with
their declared card, this turn's placements outlined, scores, and the seat's rack.
"""
from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw, ImageFont

CELL = 40
MARGIN = 26
PANEL = 120
SQUARE_COLOURS = {".": (222, 214, 190), "Y": (240, 205, 70), "G": (110, 180, 110), "R": (215, 80, 70),
                  "B": (90, 130, 210), "C": (215, 80, 70)}
SQUARE_LABELS = {"Y": "2T", "G": "3T", "R": "2M", "B": "3M", "C": "*"}
SUIT_SYMBOL = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}
TILE = (250, 247, 238)
JOKER_TILE = (235, 225, 250)


def _font(size: int):
    for name in ("DejaVuSans-Bold.ttf", "DejaVuSans.ttf"):
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    return ImageFont.load_default()


def _card_colour(card: str) -> tuple[int, int, int]:
    return (200, 20, 20) if card[-1] in "HD" else (20, 20, 20)


def _draw_card(draw: ImageDraw.ImageDraw, x: int, y: int, text: str, font, small) -> None:
    """A tile at (x, y) of size CELL: ``7H`` or ``JK=7H`` (the declared card under 'JK')."""
    joker = text.startswith("JK")
    draw.rounded_rectangle([x + 2, y + 2, x + CELL - 3, y + CELL - 3], radius=5,
                           fill=JOKER_TILE if joker else TILE, outline=(90, 80, 60))
    if joker and "=" not in text:
        draw.text((x + CELL // 2, y + CELL // 2), "JK", fill=(120, 40, 160), font=font, anchor="mm")
        return
    card = text[3:] if joker else text
    label = ("10" if card[0] == "T" else card[0]) + SUIT_SYMBOL[card[1]]
    if joker:
        draw.text((x + CELL // 2, y + 11), "JK", fill=(120, 40, 160), font=small, anchor="mm")
        draw.text((x + CELL // 2, y + 27), label, fill=_card_colour(card), font=small, anchor="mm")
    else:
        draw.text((x + CELL // 2, y + CELL // 2), label, fill=_card_colour(card), font=font, anchor="mm")


def board_to_rgb(view: dict) -> np.ndarray:
    """uint8 H x W x 3 picture of a Ginny-O view (board, scores, the viewing seat's rack)."""
    size = len(view["board"])
    width = 2 * MARGIN + size * CELL
    height = 2 * MARGIN + size * CELL + PANEL
    img = Image.new("RGB", (width, height), (245, 240, 228))
    draw = ImageDraw.Draw(img)
    font, small, label = _font(15), _font(11), _font(10)
    placed = {p.split()[0] for p in view.get("placed", [])}
    cols = "ABCDEFGHIJKLMNO"
    for c in range(size):
        draw.text((MARGIN + c * CELL + CELL // 2, MARGIN // 2), cols[c], fill=(60, 60, 60), font=small, anchor="mm")
    for r in range(size):
        draw.text((MARGIN // 2, MARGIN + r * CELL + CELL // 2), str(r + 1), fill=(60, 60, 60), font=small,
                  anchor="mm")
        for c in range(size):
            x, y = MARGIN + c * CELL, MARGIN + r * CELL
            prem = view["premium"][r][c]
            draw.rectangle([x, y, x + CELL - 1, y + CELL - 1], fill=SQUARE_COLOURS[prem], outline=(160, 150, 130))
            text = view["board"][r][c]
            if text:
                _draw_card(draw, x, y, text, font, small)
                if f"{cols[c]}{r + 1}" in placed:
                    draw.rectangle([x + 1, y + 1, x + CELL - 2, y + CELL - 2], outline=(20, 120, 230), width=3)
            elif prem in SQUARE_LABELS:
                draw.text((x + CELL // 2, y + CELL // 2), SQUARE_LABELS[prem], fill=(255, 255, 255), font=label,
                          anchor="mm")
    y0 = 2 * MARGIN + size * CELL - MARGIN // 2
    scores = "   ".join(f"P{s}: {v}" for s, v in enumerate(view["scores"]))
    state = "game over" if view["done"] else f"to play: P{view['to_play']} ({view['phase']})"
    draw.text((MARGIN, y0), f"{scores}     box: {view['stock_size']}     {state}", fill=(30, 30, 30), font=small)
    draw.text((MARGIN, y0 + 20), f"P{view['seat']} rack:", fill=(30, 30, 30), font=small)
    for i, t in enumerate(view["hand"]):
        _draw_card(draw, MARGIN + 70 + i * (CELL + 4), y0 + 14, t, font, small)
    if view.get("events"):
        draw.text((MARGIN, y0 + 66), view["events"][-1][:90], fill=(80, 80, 80), font=small)
    return np.asarray(img, dtype=np.uint8)
