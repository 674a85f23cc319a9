"""Pictures of a seat's view: an RGB array (``render_mode="rgb_array"``) and HTML (Jupyter), and
its one text table (:func:`view_text`: ``render_mode="ansi"``/``"human"``, the terminal player of
``rummy-env play`` and ``rummy-env replay``, with colours or without).

All three work on the structured view every game gives (``Game.view`` in :mod:`rummy_env.base`), so
they draw any of the five games: the seat's hand, the melds on the table grouped by owner, the
discard pile and the stock (in I Doubt It the face-down pile and the claim instead), every seat's
hand size and score; the pictures also ``revealed_hands`` when the rules make hands public and the
last public events, the text the game's state in words. A view with a ``board`` (Ginny-O) is
drawn as its board of coloured squares (:func:`board_to_rgb`, :func:`board_html`) or of letters
(:func:`board_text`).

Nothing here reads engine state: the pictures and the text show exactly what the seat may know.
"""
from __future__ import annotations

import html
import os
import re
import sys
from functools import lru_cache
from typing import Any, Iterable, Sequence, TextIO

import numpy as np
from PIL import Image, ImageColor, ImageDraw, ImageFont

from .cards import CARD_TEXT, JOKER, RANK_OF, SUIT_OF, SUITS
from .melds import parse_piece

SUIT_SYMBOL = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}
RED = (196, 30, 45)
BLACK = (25, 25, 25)
JOKER_COLOUR = (120, 40, 160)
FELT = (22, 96, 58)
FELT_DARK = (14, 70, 42)
PANEL = (236, 240, 236)
TEXT_LIGHT = (245, 245, 240)
BACK_BLUE = (40, 70, 160)

WIDTH = 960
"""Width of every RGB frame, in pixels."""
MIN_HEIGHT = 560
"""Frames are at least this tall (taller only when the table does not fit)."""
CARD_W, CARD_H = 46, 64
GAP = 4
MARGIN = 16


# ---------------------------------------------------------------------------------------------
# card texts
# ---------------------------------------------------------------------------------------------
def card_face(text: str) -> tuple[str, str | None, bool, str | None]:
    """``(rank label, suit letter or None, is joker, the card a joker stands for or None)``.

    Accepts the shared card texts: ``7H``, ``TH`` / ``10H``, ``JK``, ``JK=7H``. Any other text
    (a face-down card, say) gives ``(text, None, False, None)`` and is drawn as a card back.
    """
    t = str(text).strip()
    if t.upper() == "JK":
        return "JK", None, True, None
    try:
        piece = parse_piece(t)
    except ValueError:
        return t, None, False, None
    if piece >= JOKER:
        return "JK", None, True, CARD_TEXT[piece - JOKER]
    rank = RANK_OF[piece]
    label = "10" if rank == 10 else CARD_TEXT[piece][0]
    return label, SUITS[SUIT_OF[piece]], False, None


def is_red(suit: str | None) -> bool:
    return suit in ("D", "H")


def _seat_name(i: int) -> str:
    return f"player_{i}"


# ---------------------------------------------------------------------------------------------
# Text: render_mode="ansi" and "human", the terminal player and the replay
# ---------------------------------------------------------------------------------------------
TEXT_WIDTH = 80
"""Width of the terminal the text table and the move columns are laid out for."""
MAX_LISTED = 30
"""Moves listed in columns; a longer list is summed up by its first words."""
ANSI_CODE = re.compile(r"\033\[[0-9;]*m")
GAME_TITLES = {"rummy": "Rummy", "tongits": "Tongits", "i_doubt_it": "I Doubt It",
               "contract_rummy": "Contract Rummy", "ginny_o": "Ginny-O"}
NUMBER_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five"}
RANK_NAMES = {"A": "aces", "2": "twos", "3": "threes", "4": "fours", "5": "fives", "6": "sixes",
              "7": "sevens", "8": "eights", "9": "nines", "T": "tens", "J": "jacks", "Q": "queens",
              "K": "kings"}
RANK_NAME = {"A": "ace", "2": "two", "3": "three", "4": "four", "5": "five", "6": "six", "7": "seven",
             "8": "eight", "9": "nine", "T": "ten", "J": "jack", "Q": "queen", "K": "king"}
RANK_ORDER = "A23456789TJQK"
SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
PREMIUM_LEGEND = "premium squares: y/g tile x2/x3, r/b meld x2/x3, r/c start; 8D* = joker as 8D"
"""Ginny-O's premium squares (GO-2, GO-3) as the text board shows them."""


class TextStyle:
    """ANSI colours (red hearts and diamonds, purple jokers, bold, dim), or none."""

    def __init__(self, colour: bool):
        self.colour = colour

    def _wrap(self, code: str, text: str) -> str:
        return f"\033[{code}m{text}\033[0m" if self.colour else text

    def card(self, text: str) -> str:
        t = text.strip().upper()
        if t.startswith("JK"):
            return self._wrap("35", text)
        return self._wrap("31", text) if t[-1:] in ("D", "H") else text

    def cards(self, texts: Sequence[str]) -> str:
        return " ".join(self.card(t) for t in texts)

    def bold(self, text: str) -> str:
        return self._wrap("1", text)

    def dim(self, text: str) -> str:
        return self._wrap("2", text)


def use_colour(stream: TextIO) -> bool:
    """Whether text written to ``stream`` gets ANSI colours: only on a terminal, and never
    with the ``NO_COLOR`` environment variable set."""
    return hasattr(stream, "isatty") and stream.isatty() and "NO_COLOR" not in os.environ


def plural(count: int, word: str) -> str:
    """``1 card``, ``2 cards``."""
    return f"{count} {word if count == 1 else word + 's'}"


def seat_name(i: int, seat: int) -> str:
    """``you`` for the view's own seat, else ``player_i``."""
    return "you" if i == seat else f"player_{i}"


def number(value: Any) -> str:
    """A score as a person writes it: 3, not 3.0; ``-`` for none."""
    if value is None:
        return "-"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def title(view: dict) -> str:
    """The game's name as people write it: ``Contract Rummy``."""
    key = str(view.get("game", "")).removesuffix("_v0")
    return GAME_TITLES.get(key, key)


def wrap(items: Sequence[str], indent: str = "  ", sep: str = "   ", width: int = TEXT_WIDTH) -> list[str]:
    """``items`` joined by ``sep`` into lines of at most ``width`` visible characters."""
    lines, line = [], indent
    for item in items:
        if line.strip() and len(ANSI_CODE.sub("", line + sep + item)) > width:
            lines.append(line)
            line = indent
        line += (sep if line.strip() else "") + item
    if line.strip():
        lines.append(line)
    return lines


def group_by_suit(hand: Sequence[str]) -> list[tuple[str, list[str]]]:
    """The hand grouped by suit in C D H S order, jokers (and anything else) last; each group keeps
    the view's order (the view sorts by suit then rank)."""
    groups: dict[str, list[str]] = {s: [] for s in "CDHS"}
    other: list[str] = []
    for t in hand:
        suit = t.strip().upper()[-1:]
        (groups[suit] if suit in groups and not t.upper().startswith("JK") else other).append(t)
    out = [(SUIT_SYMBOL[s] + " " + SUIT_NAMES[s], cards) for s, cards in groups.items() if cards]
    if other:
        out.append(("jokers", other))
    return out


def hand_by_rank(hand: Sequence[str]) -> list[tuple[str, list[str]]]:
    """I Doubt It's hand, where only ranks matter (DI-5): (rank, cards) groups, ace first."""
    groups: dict[str, list[str]] = {}
    for t in hand:
        groups.setdefault(t[:-1], []).append(t)
    return sorted(groups.items(), key=lambda kv: RANK_ORDER.index(kv[0]) if kv[0] in RANK_ORDER else 99)


def contract_words(needs: dict) -> str:
    """Contract Rummy's contract (CR-7) in words: ``two sets of 3``, ``one set of 3 and two runs``."""
    parts = []
    for key, one, many in (("sets", "set of 3", "sets of 3"), ("runs", "run", "runs")):
        k = int(needs.get(key, 0))
        if k:
            parts.append(f"{NUMBER_WORDS.get(k, k)} {one if k == 1 else many}")
    return " and ".join(parts)


def status_lines(view: dict) -> list[str]:
    """The game's own state in words (the round, the dealer, the duties of this turn)."""
    game, seat = view.get("game", ""), view.get("seat", 0)
    me = view.get("to_play") == seat
    lines = []
    if game.startswith("rummy"):
        options = view.get("options") or {}
        target = options.get("target_score", 0)
        goal = (f"first to {target} points wins" if target else
                f"{plural(options.get('max_rounds', 1), 'round')}, the highest total wins")
        if view.get("done"):
            lines.append(f"the match is over after {plural(view.get('rounds_played', 0), 'round')}")
        else:
            lines.append(f"round {view.get('rounds_played', 0) + 1} ({goal}), "
                         f"dealer {seat_name(view.get('dealer', 0), seat)}")
        if me and view.get("rummy_possible") and view.get("phase") == "play":
            lines.append("going out this turn would be rummy: double points")
        if view.get("turnovers"):
            lines.append(f"the stock has been turned over {plural(view['turnovers'], 'time')}")
        if me and view.get("taken_card"):
            lines.append(f"you took {view['taken_card']} from the discard pile: you may not discard it this turn")
    elif game.startswith("tongits"):
        if not view.get("done"):
            lines.append(f"hand {view.get('hand_index', 0) + 1} of {view.get('hands_per_match', 1)}, "
                         f"dealer {seat_name(view.get('dealer', 0), seat)}; most chips after "
                         f"{plural(view.get('hands_per_match', 1), 'hand')} wins")
        blocked = [seat_name(i, seat) for i, b in enumerate(view.get("blocked", [])) if b]
        if blocked:
            lines.append(f"may not call a draw this turn (someone laid off on their meld): {', '.join(blocked)}")
        if view.get("caller", -1) >= 0:
            lines.append(f"{seat_name(view['caller'], seat)} called a draw: challenge (show hands, lowest "
                         "points wins) or fold")
            if me and view.get("legal_actions") == ["fold"]:
                lines.append("you may only fold: a challenger needs a meld, a secret or four of a kind")
        secrets = [f"{seat_name(i, seat)} {plural(k, 'secret meld')}"
                   for i, k in enumerate(view.get("secrets", [])) if k]
        if secrets:
            lines.append("face-down (secret) melds: " + ", ".join(secrets))
        if me and view.get("taken"):
            lines.append(f"you took {view['taken']}: meld it now")
    elif game.startswith("contract_rummy"):
        lines.append(f"deal {view.get('deal_index', 0) + 1} of {view.get('num_deals', 1)}, "
                     f"contract {view.get('contract')}: {contract_words(view.get('contract_needs', {}))}; "
                     f"dealer {seat_name(view.get('dealer', 0), seat)}; lowest total wins")
        down = [seat_name(i, seat) for i, d in enumerate(view.get("down", [])) if d]
        if down:
            lines.append("down (contract laid): " + ", ".join(down))
        if me and view.get("must_use"):
            lines.append(f"you must put {view['must_use']} on the table this turn")
        if me and view.get("banned"):
            lines.append(f"you may not discard {view['banned']} this turn")
    elif game.startswith("ginny_o"):
        limit, stall = view.get("stall_limit", 0), view.get("stall", 0)
        lines.append(f"box: {plural(view.get('stock_size', 0), 'tile')}; turns without a play: {stall} "
                     f"(the game ends at {limit})")
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


def pile_table(view: dict, style: TextStyle, width: int) -> list[str]:
    """I Doubt It's table: hand sizes, the face-down pile, the claim being doubted, the rank due
    next and the cards known to be in other hands (DI-9, DI-14, DI-20); no stock or discard pile."""
    seat, to_play = view.get("seat", 0), view.get("to_play", -1)
    task = "doubt or pass" if view.get("claim") else "play"
    state = "game over" if view.get("done") else (
        f"your turn: {task}" if to_play == seat else f"player_{to_play} to {task}")
    lines = [style.bold(f"=== {title(view)} | you are player_{seat} | {state} ===")]
    known = view.get("known") or []
    places, out = view.get("places") or [], view.get("out") or []
    for i, size in enumerate(view.get("hand_sizes", [])):
        who = f"player_{i}" + (" (you)" if i == seat else "")
        turn = "  <- to play" if i == to_play and not view.get("done") else ""
        place = places[i] if i < len(places) else 0
        note = f"   {'out, ' if i < len(out) and out[i] else ''}place {place}" if place else ""
        held = known[i] if i < len(known) and i != seat else {}
        if held:
            note += "   known to hold: " + " ".join(
                " ".join([r] * k) for r, k in sorted(held.items(), key=lambda kv: RANK_ORDER.index(kv[0])))
        lines.append(f"  {who:<16} {plural(size, 'card'):>9}{note}{turn}")
    own = view.get("own_pile") or []
    lines.append(f"pile: {plural(int(view.get('pile_size', 0)), 'card')} face down"
                 + (f" (yours among them: {' '.join(own)})" if own else ""))
    claim = view.get("claim")
    if claim:
        count, rank = int(claim["count"]), claim["rank"]
        said = f"{NUMBER_WORDS.get(count, count)} {RANK_NAMES[rank] if count > 1 else RANK_NAME[rank]}"
        lines.append(f"claim: {seat_name(claim['seat'], seat)} played {plural(count, 'card')} saying "
                     f"\"{said}\" - doubt it or pass")
    if not view.get("done"):
        rank = view.get("rank")
        held = sum(1 for t in view.get("hand", []) if t[:-1] == rank)
        lines.append(f"next play must claim: {RANK_NAMES.get(rank, rank)} (you hold {held})")
    reveal = view.get("last_reveal")
    if reveal:
        lines.append(f"last doubt: {seat_name(reveal['seat'], seat)} showed {' '.join(reveal['cards'])} "
                     f"({'true' if reveal['true'] else 'a lie'}); {seat_name(reveal['taker'], seat)} took the pile")
    hand = list(view.get("hand", []) or [])
    lines.append(style.bold(f"your hand ({plural(len(hand), 'card')}), by rank:"))
    lines.extend(wrap([f"{rank}: {style.cards(cards)}" for rank, cards in hand_by_rank(hand)], width=width))
    return lines


def card_table(view: dict, style: TextStyle) -> list[str]:
    """The table of the games with a stock: players, the game's state in words, stock and discard
    pile, melds by owner (numbered ``@k`` as in the action text), the hand by suit; Ginny-O's board
    with its legend and the rack on one line instead of pile, melds and hand."""
    seat, to_play = view.get("seat", 0), view.get("to_play", -1)
    phase = view.get("phase")
    state = "game over" if view.get("done") else (
        f"your turn ({phase})" if to_play == seat else f"player_{to_play} to play ({phase})")
    lines = [style.bold(f"=== {title(view)} | you are player_{seat} | {state} ===")]
    on_board = "board" in view
    if on_board:
        lines.extend(board_text(view))
    sizes, scores = view.get("hand_sizes", []), view.get("scores", [])
    unit = "tile" if on_board else "card"
    for i in range(int(view.get("num_players", len(sizes)))):
        who = f"player_{i}" + (" (you)" if i == seat else "")
        turn = "  <- to play" if i == to_play and not view.get("done") else ""
        size = plural(sizes[i], unit) if i < len(sizes) else "-"
        score = number(scores[i]) if i < len(scores) else "-"
        lines.append(f"  {who:<18} {size:>9}   score {score}{turn}")
    lines.extend("  " + line for line in status_lines(view))
    hand = list(view.get("hand", []) or [])
    if on_board:  # the rack on one line, so that the board and the moves fit the screen
        lines.append(style.bold(f"your rack ({plural(len(hand), unit)}): ") + style.cards(hand))
        return lines
    discard = list(view.get("discard", []) or [])
    pile = style.cards(discard[-12:]) if discard else "(empty)"
    more = f"... {len(discard) - 12} more below, " if len(discard) > 12 else ""
    lines.append(f"stock: {plural(view.get('stock_size', 0), 'card')}   "
                 f"discard pile ({more}top card last): {pile}")
    groups = _meld_groups(view)
    if groups:
        lines.append("melds on the table:")
    for owner, melds in groups:
        parts = [f"@{m.get('index')}{' (secret)' if m.get('secret') else ''}: {style.cards(m.get('cards', []))}"
                 for m in melds]
        lines.append(f"  {_owner_text(owner):<10} " + "   ".join(parts))
    lines.append(style.bold(f"your hand ({plural(len(hand), unit)}):"))
    for label, cards in group_by_suit(hand):
        lines.append(f"  {label:<11} {style.cards(cards)}")
    return lines


def move_lines(rows: Sequence[tuple[int, str]], width: int = TEXT_WIDTH, limit: int | None = None) -> list[str]:
    """Numbered moves ``(number, text)`` in columns; more than ``limit`` are summed up by their
    first word (small groups listed, large ones counted with examples)."""
    if limit is None or len(rows) <= limit:
        return _columns(rows, width, len(str(rows[-1][0])))
    groups: dict[str, list[tuple[int, str]]] = {}
    for row in rows:
        groups.setdefault(row[1].split()[0], []).append(row)
    small = [row for group in groups.values() if len(group) <= 4 for row in group]
    lines = _columns(small, width, len(str(rows[-1][0]))) if small else []
    for verb, group in groups.items():
        if len(group) > 4:
            examples = ", ".join(t for _, t in group[:3])
            lines.append(f"  {verb} ...: {plural(len(group), 'move')} (e.g. {examples})")
    return lines


def _columns(rows: Sequence[tuple[int, str]], width: int, digits: int) -> list[str]:
    cells = [f"{i:>{digits}}. {t}" for i, t in rows]
    cell = max(len(c) for c in cells) + 3
    per_line = max(1, (width - 2) // cell)
    return ["  " + "".join(c.ljust(cell) for c in cells[k:k + per_line]).rstrip()
            for k in range(0, len(cells), per_line)]


def view_text(view: dict, colour: bool = False, width: int = TEXT_WIDTH, moves: bool = False) -> str:
    """The seat's view as a text table, the one layout of ``render_mode="ansi"``/``"human"``, the
    terminal player and the replay: I Doubt It's pile and claim (a view with ``pile_size``), or
    the table of the games with a stock (with Ginny-O's board). ``colour`` adds ANSI colours;
    ``width`` is the screen's; ``moves`` appends the view's legal moves, numbered as in the
    terminal player, summed up when there are more than :data:`MAX_LISTED`."""
    style = TextStyle(colour)
    lines = pile_table(view, style, width) if "pile_size" in view else card_table(view, style)
    legal = view.get("legal_actions") or []
    if moves and legal:
        lines.append(f"legal moves ({len(legal)}):")
        lines.extend(move_lines(list(enumerate(legal, 1)), width, MAX_LISTED))
    return "\n".join(lines)


def render_as_text(view: dict, render_mode: str) -> str | None:
    """What ``render()`` gives in a text mode: ``"ansi"`` the view's table with its legal moves,
    without colours; ``"human"`` the same printed (coloured on a terminal), returning None."""
    if render_mode == "human":
        print(view_text(view, use_colour(sys.stdout), moves=True))
        return None
    return view_text(view, moves=True)


# ---------------------------------------------------------------------------------------------
# RGB (Pillow)
# ---------------------------------------------------------------------------------------------
@lru_cache(maxsize=None)
def _font(size: int) -> ImageFont.ImageFont:
    try:
        return ImageFont.load_default(size=size)
    except (TypeError, OSError, ImportError):  # Pillow without FreeType: the fixed bitmap font
        return ImageFont.load_default()


def _text_width(draw: ImageDraw.ImageDraw, text: str, size: int) -> int:
    box = draw.textbbox((0, 0), text, font=_font(size))
    return box[2] - box[0]


def _draw_suit(draw: ImageDraw.ImageDraw, suit: str, cx: float, cy: float, s: float,
               colour: tuple[int, int, int]) -> None:
    """A suit symbol drawn as shapes (no font needs the glyphs), centred at (cx, cy), half-size s."""
    if suit == "D":
        draw.polygon([(cx, cy - s), (cx + 0.72 * s, cy), (cx, cy + s), (cx - 0.72 * s, cy)], fill=colour)
        return
    r = 0.5 * s
    if suit == "H":
        for dx in (-r, r):
            draw.ellipse([cx + dx - r, cy - 0.45 * s - r, cx + dx + r, cy - 0.45 * s + r], fill=colour)
        draw.polygon([(cx - 0.98 * s, cy - 0.3 * s), (cx + 0.98 * s, cy - 0.3 * s), (cx, cy + s)], fill=colour)
        return
    if suit == "S":
        for dx in (-r, r):
            draw.ellipse([cx + dx - r, cy + 0.15 * s - r, cx + dx + r, cy + 0.15 * s + r], fill=colour)
        draw.polygon([(cx - 0.98 * s, cy + 0.05 * s), (cx + 0.98 * s, cy + 0.05 * s), (cx, cy - s)], fill=colour)
    else:  # clubs
        rc = 0.42 * s
        for dx, dy in ((0, -0.5 * s), (-0.5 * s, 0.12 * s), (0.5 * s, 0.12 * s)):
            draw.ellipse([cx + dx - rc, cy + dy - rc, cx + dx + rc, cy + dy + rc], fill=colour)
    draw.polygon([(cx, cy), (cx - 0.35 * s, cy + s), (cx + 0.35 * s, cy + s)], fill=colour)


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
        draw.text((x + 5, y + 3), "JK", fill=JOKER_COLOUR, font=_font(15))
        draw.text((x + w / 2, y + h / 2 - 2), "*", fill=JOKER_COLOUR, font=_font(24), anchor="mm")
        if stands:
            s_label, s_suit, _, _ = card_face(stands)
            colour = RED if is_red(s_suit) else BLACK
            draw.text((x + 5, y + h - 19), "=" + s_label, fill=colour, font=_font(13))
            _draw_suit(draw, s_suit, x + w - 11, y + h - 12, 5.5, colour)
        return
    colour = RED if is_red(suit) else BLACK
    draw.text((x + 4, y + 3), label, fill=colour, font=_font(16))
    _draw_suit(draw, suit, x + 10, y + 30, 5, colour)
    _draw_suit(draw, suit, x + w / 2 + 5, y + h / 2 + 12, 10, colour)


def _draw_back(draw: ImageDraw.ImageDraw, x: int, y: int, w: int, h: int, label: str = "") -> None:
    draw.rounded_rectangle([x, y, x + w, y + h], radius=5, fill=BACK_BLUE, outline=(230, 230, 230), width=2)
    draw.rounded_rectangle([x + 5, y + 5, x + w - 5, y + h - 5], radius=3, outline=(120, 150, 220), width=1)
    if label:
        draw.text((x + w / 2, y + h / 2), label, fill=TEXT_LIGHT, font=_font(14), anchor="mm")


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
        self.draw.text((x, self.y), text, fill=colour, font=_font(size))
        self.y += size + 6

    def finish(self) -> np.ndarray:
        height = max(MIN_HEIGHT, self.y + MARGIN)
        return np.asarray(self.image.crop((0, 0, WIDTH, height)), dtype=np.uint8).copy()


def _status_line(view: dict, name: str) -> str:
    game = view.get("game", name) or name
    seat = view.get("seat", 0)
    if view.get("done"):
        state = "game over"
    else:
        to_play = view.get("to_play", -1)
        state = f"phase {view.get('phase', '?')}, {_seat_name(to_play)} to play" if to_play >= 0 else \
            f"phase {view.get('phase', '?')}"
    return f"{game}  |  view of {_seat_name(seat)}  |  {state}"


def pile_lines(view: dict) -> list[str]:
    """What a face-down pile game (I Doubt It: a ``pile_size`` in the view) shows instead of stock
    and discard pile: the pile's size, the pending claim (DI-9) and the rank due next (DI-14)."""
    lines = [f"pile: {plural(int(view.get('pile_size', 0)), 'card')} face down"]
    claim = view.get("claim")
    if claim:
        count, rank = int(claim["count"]), claim["rank"]
        lines.append(f"claim: {_seat_name(claim['seat'])} played {plural(count, 'card')} as "
                     f"{RANK_NAMES.get(rank, rank) if count > 1 else rank}")
    if not view.get("done") and view.get("rank"):
        lines.append(f"next claim: {RANK_NAMES.get(view['rank'], view['rank'])}")
    return lines


def _meld_groups(view: dict) -> list[tuple[Any, list[dict]]]:
    """Melds grouped by owner, in seat order, melds without owner last."""
    groups: dict[Any, list[dict]] = {}
    for m in view.get("melds", []) or []:
        groups.setdefault(m.get("owner"), []).append(m)
    keyed = sorted(groups.items(), key=lambda kv: (not isinstance(kv[0], int), kv[0] if isinstance(kv[0], int) else 0))
    return keyed


def _owner_text(owner: Any) -> str:
    if isinstance(owner, int) and owner >= 0:
        return _seat_name(owner)
    return "table" if owner is None or owner == -1 else str(owner)


def view_to_rgb(view: dict, name: str = "") -> np.ndarray:
    """The view as an ``H x W x 3`` uint8 image (W = :data:`WIDTH`, H >= :data:`MIN_HEIGHT`).

    A view with a ``board`` key (Ginny-O) is drawn by :func:`board_to_rgb`.
    """
    if "board" in view:
        return board_to_rgb(view)
    cv = _Canvas()
    d = cv.draw
    # header
    d.rectangle([0, 0, WIDTH, 34], fill=FELT_DARK)
    d.text((MARGIN, 9), _status_line(view, name), fill=TEXT_LIGHT, font=_font(16))
    cv.y = 44
    # players: hand size, score, revealed hand
    n = int(view.get("num_players", len(view.get("hand_sizes", []))))
    sizes = list(view.get("hand_sizes", [])) + [None] * n
    scores = list(view.get("scores", [])) + [None] * n
    revealed = view.get("revealed_hands") or None
    seat, to_play = view.get("seat", -1), view.get("to_play", -1)
    for i in range(n):
        tags = (" (you)" if i == seat else "") + (" <- to play" if i == to_play and not view.get("done") else "")
        line = f"{_seat_name(i)}{tags}"
        d.text((MARGIN, cv.y), line, fill=(255, 230, 120) if i == to_play else TEXT_LIGHT, font=_font(15))
        d.text((260, cv.y), f"cards {sizes[i] if sizes[i] is not None else '-'}", fill=TEXT_LIGHT, font=_font(15))
        d.text((360, cv.y), f"score {number(scores[i])}", fill=TEXT_LIGHT, font=_font(15))
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
            d.text((MARGIN + CARD_W + 16, top + 4 + 20 * k), line, fill=TEXT_LIGHT, font=_font(15))
        cv.y = top + CARD_H + 10
    else:
        d.text((MARGIN, top), f"stock {view.get('stock_size', 0)}", fill=TEXT_LIGHT, font=_font(14))
        if view.get("stock_size", 0):
            _draw_back(d, MARGIN, top + 20, CARD_W, CARD_H)
        discard = list(view.get("discard", []) or [])
        d.text((110, top), f"discard pile {len(discard)} (top card right)", fill=TEXT_LIGHT, font=_font(14))
        shown = discard[-22:]
        x = 110
        for i, c in enumerate(shown):
            _draw_card(d, x, top + 20, c, highlight=i == len(shown) - 1)
            x += 24 if i < len(shown) - 1 else CARD_W
        cv.y = top + 20 + CARD_H + 10
    # melds grouped by owner
    groups = _meld_groups(view)
    if groups:
        d.line([0, cv.y, WIDTH, cv.y], fill=FELT_DARK, width=2)
        cv.y += 8
        for owner, melds in groups:
            cv.label(f"melds of {_owner_text(owner)}", size=14)
            x, y = MARGIN, cv.y
            for m in melds:
                cards = list(m.get("cards", []))
                width = (len(cards) - 1) * 24 + CARD_W + 14
                if x + width > WIDTH - MARGIN and x > MARGIN:
                    x, y = MARGIN, y + CARD_H + 22
                d.text((x, y), f"@{m.get('index', '?')}", fill=(200, 220, 200), font=_font(12))
                for j, c in enumerate(cards):
                    _draw_card(d, x + 24 * j, y + 15, c)
                x += width
            cv.y = y + 15 + CARD_H + 8
    # own hand
    d.line([0, cv.y, WIDTH, cv.y], fill=FELT_DARK, width=2)
    cv.y += 8
    hand = list(view.get("hand", []) or [])
    cv.label(f"hand of {_seat_name(seat)} ({len(hand)} cards)", size=15, colour=(255, 230, 120))
    _, bottom = _card_row(d, MARGIN, cv.y, hand, WIDTH - MARGIN)
    cv.y = bottom + 10
    # legal moves and events
    legal = view.get("legal_actions", []) or []
    if legal:
        cv.label(f"{len(legal)} legal actions: " + _clip(", ".join(legal), 110), size=13)
    events = list(view.get("events", []) or [])[-6:]
    if events:
        cv.label("recent events:", size=13, colour=(200, 220, 200))
        for e in events:
            cv.label("  " + _clip(str(e), 120), size=13, colour=(220, 230, 220))
    return cv.finish()


def _clip(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 3] + "..."


# ---------------------------------------------------------------------------------------------
# Ginny-O board as RGB
# ---------------------------------------------------------------------------------------------
BOARD_CELL = 40
"""Side of a board square (and of a tile), in pixels."""
BOARD_MARGIN = 26
BOARD_PANEL = 120
"""Height of the panel under the board: scores, the box, the seat's rack, the last event."""
SQUARE_LABELS = {"Y": "2T", "G": "3T", "R": "2M", "B": "3M", "C": "*"}
TILE_FACE = (250, 247, 238)
JOKER_FACE = (235, 225, 250)
PLACED_OUTLINE = (20, 120, 230)


def _draw_tile(draw: ImageDraw.ImageDraw, x: int, y: int, text: str) -> None:
    """A board tile in the square at (x, y): rank and suit, or ``JK`` over a joker's declared card."""
    label, suit, joker, stands = card_face(text)
    size = BOARD_CELL
    draw.rounded_rectangle([x + 2, y + 2, x + size - 3, y + size - 3], radius=5,
                           fill=JOKER_FACE if joker else TILE_FACE, outline=(90, 80, 60))
    if not joker:
        _draw_rank_and_suit(draw, x + size / 2, y + size / 2, label, suit, 15)
    elif stands:
        draw.text((x + size / 2, y + 11), "JK", fill=JOKER_COLOUR, font=_font(12), anchor="mm")
        label, suit, _, _ = card_face(stands)
        _draw_rank_and_suit(draw, x + size / 2, y + 27, label, suit, 12)
    else:
        draw.text((x + size / 2, y + size / 2), "JK", fill=JOKER_COLOUR, font=_font(15), anchor="mm")


def _draw_rank_and_suit(draw: ImageDraw.ImageDraw, cx: float, cy: float, label: str, suit: str | None,
                        size: int) -> None:
    """``7`` and the suit symbol side by side, centred at (cx, cy), red for hearts and diamonds."""
    if suit is None:  # not a card text: the text itself
        draw.text((cx, cy), label, fill=BLACK, font=_font(size), anchor="mm")
        return
    colour = RED if is_red(suit) else BLACK
    draw.text((cx - size / 3, cy), label, fill=colour, font=_font(size), anchor="rm")
    _draw_suit(draw, suit, cx + size / 3, cy, size * 0.4, colour)


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
                  fill=(60, 60, 60), font=_font(11), anchor="mm")
    for r in range(size):
        draw.text((BOARD_MARGIN // 2, BOARD_MARGIN + r * BOARD_CELL + BOARD_CELL // 2), str(r + 1),
                  fill=(60, 60, 60), font=_font(11), anchor="mm")
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
                          font=_font(10), anchor="mm")
    top = 2 * BOARD_MARGIN + size * BOARD_CELL - BOARD_MARGIN // 2
    scores = "   ".join(f"P{s}: {number(v)}" for s, v in enumerate(view.get("scores", [])))
    state = "game over" if view.get("done") else f"to play: P{view.get('to_play')} ({view.get('phase')})"
    draw.text((BOARD_MARGIN, top), f"{scores}     box: {view.get('stock_size', 0)}     {state}", fill=(30, 30, 30),
              font=_font(11))
    draw.text((BOARD_MARGIN, top + 20), f"P{view.get('seat', 0)} rack:", fill=(30, 30, 30), font=_font(11))
    for i, tile in enumerate(view.get("hand", [])):
        _draw_tile(draw, BOARD_MARGIN + 70 + i * (BOARD_CELL + 4), top + 14, tile)
    if view.get("events"):
        draw.text((BOARD_MARGIN, top + 66), _clip(str(view["events"][-1]), 90), fill=(80, 80, 80), font=_font(11))
    return np.asarray(image, dtype=np.uint8)


# ---------------------------------------------------------------------------------------------
# HTML
# ---------------------------------------------------------------------------------------------
_CARD_STYLE = ("display:inline-block;width:30px;height:42px;margin:1px;border:1px solid #888;"
               "border-radius:4px;background:#fcfcf8;text-align:center;vertical-align:top;"
               "font:bold 13px/17px sans-serif;box-shadow:1px 1px 1px rgba(0,0,0,.25);")
_BACK_STYLE = ("display:inline-block;width:30px;height:42px;margin:1px;border:2px solid #ddd;"
               "border-radius:4px;background:#2846a0;color:#eee;text-align:center;vertical-align:top;"
               "font:11px/42px sans-serif;")


def card_html(text: str, highlight: bool = False) -> str:
    """One card as an inline-block ``<span>``: rank over suit symbol, red hearts and diamonds."""
    label, suit, joker, stands = card_face(text)
    if suit is None and not joker:
        return f'<span style="{_BACK_STYLE}" title="{html.escape(label)}">{html.escape(label)}</span>'
    extra = "outline:2px solid #e6aa14;" if highlight else ""
    title = html.escape(str(text))
    if joker:
        below = "&#9733;"
        if stands:
            s_label, s_suit, _, _ = card_face(stands)
            colour = "#c41e2d" if is_red(s_suit) else "#191919"
            below = f'<span style="color:{colour};font-size:11px">={s_label}{SUIT_SYMBOL[s_suit]}</span>'
        return f'<span style="{_CARD_STYLE}{extra}color:#7828a0" title="{title}">JK<br>{below}</span>'
    colour = "#c41e2d" if is_red(suit) else "#191919"
    return (f'<span style="{_CARD_STYLE}{extra}color:{colour}" title="{title}">{label}<br>'
            f'<span style="font-size:17px">{SUIT_SYMBOL[suit]}</span></span>')


def cards_html(cards: Iterable[str], highlight_last: bool = False) -> str:
    cards = list(cards)
    return "".join(card_html(c, highlight_last and i == len(cards) - 1) for i, c in enumerate(cards))


def view_to_html(view: dict, name: str = "") -> str:
    """The view as a self-contained HTML fragment (inline styles only), for Jupyter."""
    e = html.escape
    seat, to_play = view.get("seat", -1), view.get("to_play", -1)
    n = int(view.get("num_players", len(view.get("hand_sizes", []))))
    sizes = list(view.get("hand_sizes", [])) + [None] * n
    scores = list(view.get("scores", [])) + [None] * n
    revealed = view.get("revealed_hands") or None
    out = ['<div style="background:#16603a;color:#f5f5f0;padding:8px 10px;border-radius:6px;'
           'font:13px sans-serif;max-width:960px">',
           f'<div style="font-weight:bold;font-size:14px;margin-bottom:6px">{e(_status_line(view, name))}</div>',
           '<table style="border-collapse:collapse;color:#f5f5f0;margin-bottom:6px">',
           '<tr><th style="text-align:left;padding:1px 8px">seat</th><th style="padding:1px 8px">cards</th>'
           '<th style="padding:1px 8px">score</th><th></th></tr>']
    for i in range(n):
        mark = (" (you)" if i == seat else "") + (" &larr; to play" if i == to_play and not view.get("done") else "")
        shown = cards_html(revealed[i]) if revealed and i < len(revealed) and revealed[i] else ""
        out.append(f'<tr><td style="padding:1px 8px">{_seat_name(i)}{mark}</td>'
                   f'<td style="padding:1px 8px;text-align:center">{"-" if sizes[i] is None else sizes[i]}</td>'
                   f'<td style="padding:1px 8px;text-align:center">{e(number(scores[i]))}</td>'
                   f'<td>{shown}</td></tr>')
    out.append("</table>")
    if "board" in view:
        out.append(board_html(view))
    discard = list(view.get("discard", []) or [])
    if "pile_size" in view:
        out.append("<div>" + "<br>".join(e(line) for line in pile_lines(view)) + "</div>")
    else:
        out.append(f'<div>stock: {int(view.get("stock_size", 0))} cards'
                   + (f' &nbsp; discard pile ({len(discard)}, top card last):</div><div>'
                      + cards_html(discard[-20:], highlight_last=True) if discard else "")
                   + "</div>")
    for owner, melds in _meld_groups(view):
        out.append(f'<div style="margin-top:6px">melds of {e(_owner_text(owner))}:</div><div>')
        for m in melds:
            out.append(f'<span style="display:inline-block;margin:0 10px 4px 0" title="meld {m.get("index")}">'
                       f'<span style="font-size:10px;vertical-align:top">@{e(str(m.get("index", "?")))}</span>'
                       f'{cards_html(m.get("cards", []))}</span>')
        out.append("</div>")
    hand = list(view.get("hand", []) or [])
    out.append(f'<div style="margin-top:6px;color:#ffe678">hand of {_seat_name(seat)} ({len(hand)}):</div>'
               f'<div>{cards_html(hand)}</div>')
    legal = view.get("legal_actions", []) or []
    if legal:
        out.append(f'<details style="margin-top:4px"><summary>{len(legal)} legal actions</summary>'
                   f'<div style="font-family:monospace">{e(", ".join(legal))}</div></details>')
    events = list(view.get("events", []) or [])[-6:]
    if events:
        out.append('<div style="margin-top:4px;color:#c8dcc8">' + "<br>".join(e(str(x)) for x in events) + "</div>")
    out.append("</div>")
    return "".join(out)


# ---------------------------------------------------------------------------------------------
# Ginny-O board in HTML
# ---------------------------------------------------------------------------------------------
PREMIUM_COLOURS = {
    "C": ("#d23c3c", "centre (start)"),
    "R": ("#e0645a", "red: meld x2, start"),
    "B": ("#4a78d0", "blue: meld x3"),
    "G": ("#56a85a", "green: tile x3"),
    "Y": ("#e6c84a", "yellow: tile x2"),
    ".": ("#e8e4d4", "plain"),
}


def _square_rc(square: str) -> tuple[int, int]:
    """(row, column), 0-based, of a square text such as ``H8`` (column letter, then row)."""
    from .games.ginny_o import SIZE, square_of
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
        from .games.ginny_o import LAYOUTS, SIZE
        flat = LAYOUTS.get(layout)
        if flat is None:
            return None
        return ["".join(flat[r * SIZE:(r + 1) * SIZE]) for r in range(SIZE)]
    return ["".join(row) for row in layout]


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
