"""The RGB back end (``render_mode="rgb_array"``): a seat's view as a uint8 picture drawn with
Pillow (:func:`view_to_rgb`): players with hand sizes, scores and revealed hands, stock and discard
pile (or I Doubt It's face-down pile and claim), melds by owner, the seat's hand, the legal moves
and the last events. A view with a ``board`` (Ginny-O) is drawn by :mod:`rummy_env.render.board`."""
from __future__ import annotations

from typing import Iterable

import numpy as np
from PIL import Image, ImageDraw

from ..games.i_doubt_it.view import pile_lines
from .board import board_to_rgb
from .common import (BLACK, JOKER_COLOUR, RED, card_face, clip, draw_suit, font, is_red, meld_groups, number,
                     owner_text, seat_label, status_line)

FELT = (22, 96, 58)
FELT_DARK = (14, 70, 42)
TEXT_LIGHT = (245, 245, 240)
BACK_BLUE = (40, 70, 160)

WIDTH = 960
"""Width of every RGB frame, in pixels."""
MIN_HEIGHT = 560
"""Frames are at least this tall (taller only when the table does not fit)."""
CARD_W, CARD_H = 46, 64
GAP = 4
MARGIN = 16


def _draw_card(draw: ImageDraw.ImageDraw, x: int, y: int, text: str, w: int = CARD_W,
               h: int = CARD_H, highlight: bool = False) -> None:
    label, suit, joker, stands = card_face(text)
    if suit is None and not joker:
        _draw_back(draw, x, y, w, h, label if label not in ("", "?", "??") else "")
        return
    outline = (230, 170, 20) if highlight else (120, 120, 120)
    draw.rounded_rectangle([x, y, x + w, y + h], radius=5, fill=(252, 252, 248), outline=outline,
                           width=2 if highlight else 1)
    if joker:
        draw.text((x + 5, y + 3), "JK", fill=JOKER_COLOUR, font=font(15))
        draw.text((x + w / 2, y + h / 2 - 2), "*", fill=JOKER_COLOUR, font=font(24), anchor="mm")
        if stands:
            s_label, s_suit, _, _ = card_face(stands)
            colour = RED if is_red(s_suit) else BLACK
            draw.text((x + 5, y + h - 19), "=" + s_label, fill=colour, font=font(13))
            draw_suit(draw, s_suit, x + w - 11, y + h - 12, 5.5, colour)
        return
    colour = RED if is_red(suit) else BLACK
    draw.text((x + 4, y + 3), label, fill=colour, font=font(16))
    draw_suit(draw, suit, x + 10, y + 30, 5, colour)
    draw_suit(draw, suit, x + w / 2 + 5, y + h / 2 + 12, 10, colour)


def _draw_back(draw: ImageDraw.ImageDraw, x: int, y: int, w: int, h: int, label: str = "") -> None:
    draw.rounded_rectangle([x, y, x + w, y + h], radius=5, fill=BACK_BLUE, outline=(230, 230, 230), width=2)
    draw.rounded_rectangle([x + 5, y + 5, x + w - 5, y + h - 5], radius=3, outline=(120, 150, 220), width=1)
    if label:
        draw.text((x + w / 2, y + h / 2), label, fill=TEXT_LIGHT, font=font(14), anchor="mm")


def _card_row(draw, x0: int, y: int, cards: list[str], max_x: int, step: int = CARD_W + GAP,
              highlight: Iterable[int] = ()) -> tuple[int, int]:
    """Draw ``cards`` left to right from (x0, y), wrapping at ``max_x``; returns (end x, bottom y)."""
    x = x0
    marked = set(highlight)
    for i, c in enumerate(cards):
        if x + CARD_W > max_x and x > x0:
            x = x0
            y += CARD_H + GAP
        _draw_card(draw, x, y, c, highlight=i in marked)
        x += step
    return x, y + CARD_H


class _Canvas:
    """A tall scratch image drawn top to bottom, cropped to what was used."""

    def __init__(self, height: int = 4000):
        self.image = Image.new("RGB", (WIDTH, height), FELT)
        self.draw = ImageDraw.Draw(self.image)
        self.y = 0

    def label(self, text: str, size: int = 15, colour=TEXT_LIGHT, x: int = MARGIN) -> None:
        self.draw.text((x, self.y), text, fill=colour, font=font(size))
        self.y += size + 6

    def finish(self) -> np.ndarray:
        height = max(MIN_HEIGHT, self.y + MARGIN)
        return np.asarray(self.image.crop((0, 0, WIDTH, height)), dtype=np.uint8).copy()


def view_to_rgb(view: dict, name: str = "") -> np.ndarray:
    """The view as an ``H x W x 3`` uint8 image (W = :data:`WIDTH`, H >= :data:`MIN_HEIGHT`).

    A view with a ``board`` key (Ginny-O) is drawn by :func:`~rummy_env.render.board.board_to_rgb`.
    """
    if "board" in view:
        return board_to_rgb(view)
    cv = _Canvas()
    d = cv.draw
    # header
    d.rectangle([0, 0, WIDTH, 34], fill=FELT_DARK)
    d.text((MARGIN, 9), status_line(view, name), fill=TEXT_LIGHT, font=font(16))
    cv.y = 44
    # players: hand size, score, revealed hand
    n = int(view.get("num_players", len(view.get("hand_sizes", []))))
    sizes = list(view.get("hand_sizes", [])) + [None] * n
    scores = list(view.get("scores", [])) + [None] * n
    revealed = view.get("revealed_hands") or None
    seat, to_play = view.get("seat", -1), view.get("to_play", -1)
    for i in range(n):
        tags = (" (you)" if i == seat else "") + (" <- to play" if i == to_play and not view.get("done") else "")
        line = f"{seat_label(i)}{tags}"
        d.text((MARGIN, cv.y), line, fill=(255, 230, 120) if i == to_play else TEXT_LIGHT, font=font(15))
        d.text((260, cv.y), f"cards {sizes[i] if sizes[i] is not None else '-'}", fill=TEXT_LIGHT, font=font(15))
        d.text((360, cv.y), f"score {number(scores[i])}", fill=TEXT_LIGHT, font=font(15))
        cv.y += 22
        if revealed and i < len(revealed) and revealed[i]:
            _, bottom = _card_row(d, MARGIN + 20, cv.y, list(revealed[i]), WIDTH - MARGIN, step=26)
            cv.y = bottom + 6
    cv.y += 6
    d.line([0, cv.y, WIDTH, cv.y], fill=FELT_DARK, width=2)
    cv.y += 8
    top = cv.y
    if "pile_size" in view:  # a face-down pile and a claim instead of stock and discard pile
        if view.get("pile_size"):
            _draw_back(d, MARGIN, top, CARD_W, CARD_H)
        for k, line in enumerate(pile_lines(view)):
            d.text((MARGIN + CARD_W + 16, top + 4 + 20 * k), line, fill=TEXT_LIGHT, font=font(15))
        cv.y = top + CARD_H + 10
    else:
        d.text((MARGIN, top), f"stock {view.get('stock_size', 0)}", fill=TEXT_LIGHT, font=font(14))
        if view.get("stock_size", 0):
            _draw_back(d, MARGIN, top + 20, CARD_W, CARD_H)
        discard = list(view.get("discard", []) or [])
        d.text((110, top), f"discard pile {len(discard)} (top card right)", fill=TEXT_LIGHT, font=font(14))
        shown = discard[-22:]
        x = 110
        for i, c in enumerate(shown):
            _draw_card(d, x, top + 20, c, highlight=i == len(shown) - 1)
            x += 24 if i < len(shown) - 1 else CARD_W
        cv.y = top + 20 + CARD_H + 10
    # melds grouped by owner
    groups = meld_groups(view)
    if groups:
        d.line([0, cv.y, WIDTH, cv.y], fill=FELT_DARK, width=2)
        cv.y += 8
        for owner, melds in groups:
            cv.label(f"melds of {owner_text(owner)}", size=14)
            x, y = MARGIN, cv.y
            for m in melds:
                cards = list(m.get("cards", []))
                width = (len(cards) - 1) * 24 + CARD_W + 14
                if x + width > WIDTH - MARGIN and x > MARGIN:
                    x, y = MARGIN, y + CARD_H + 22
                d.text((x, y), f"@{m.get('index', '?')}", fill=(200, 220, 200), font=font(12))
                for j, c in enumerate(cards):
                    _draw_card(d, x + 24 * j, y + 15, c)
                x += width
            cv.y = y + 15 + CARD_H + 8
    # own hand
    d.line([0, cv.y, WIDTH, cv.y], fill=FELT_DARK, width=2)
    cv.y += 8
    hand = list(view.get("hand", []) or [])
    cv.label(f"hand of {seat_label(seat)} ({len(hand)} cards)", size=15, colour=(255, 230, 120))
    _, bottom = _card_row(d, MARGIN, cv.y, hand, WIDTH - MARGIN)
    cv.y = bottom + 10
    # legal moves and events
    legal = view.get("legal_actions", []) or []
    if legal:
        cv.label(f"{len(legal)} legal actions: " + clip(", ".join(legal), 110), size=13)
    events = list(view.get("events", []) or [])[-6:]
    if events:
        cv.label("recent events:", size=13, colour=(200, 220, 200))
        for e in events:
            cv.label("  " + clip(str(e), 120), size=13, colour=(220, 230, 220))
    return cv.finish()
