"""What the back ends of :mod:`rummy_env.render` share: card faces and their colours, the suit
shapes and fonts of the pictures, seat and meld labels, and :data:`GAME_VIEWS`, the one table
through which they find each game's wording (its title and its state in words, in the game's
``view.py``)."""
from __future__ import annotations

from functools import lru_cache
from typing import Any

from PIL import ImageDraw, ImageFont

from ..cards import CARD_TEXT, JOKER, RANK_OF, SUIT_OF, SUITS
from ..games.contract_rummy import view as contract_rummy_view
from ..games.ginny_o import view as ginny_o_view
from ..games.i_doubt_it import view as i_doubt_it_view
from ..games.rummy import view as rummy_view
from ..games.tongits import view as tongits_view
from ..melds import parse_piece

SUIT_SYMBOL = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}
RED = (196, 30, 45)
BLACK = (25, 25, 25)
JOKER_COLOUR = (120, 40, 160)

GAME_VIEWS = {"rummy": rummy_view, "tongits": tongits_view, "i_doubt_it": i_doubt_it_view,
              "contract_rummy": contract_rummy_view, "ginny_o": ginny_o_view}
"""Game name -> the module with the game's wording: its ``TITLE`` and ``status_lines(view)``."""
GAME_TITLES = {name: module.TITLE for name, module in GAME_VIEWS.items()}
"""Game name -> the game's name as people write it: ``Contract Rummy``."""


def game_key(view: dict) -> str:
    """The game's name in :data:`GAME_VIEWS` of a view (its ``game`` without ``_v0``)."""
    return str(view.get("game", "")).removesuffix("_v0")


def title(view: dict) -> str:
    """The game's name as people write it: ``Contract Rummy``."""
    key = game_key(view)
    return GAME_TITLES.get(key, key)


def status_lines(view: dict) -> list[str]:
    """The game's own state in words (the round, the dealer, the duties of this turn), in the
    wording of the game's view module; none for a view of no known game."""
    module = GAME_VIEWS.get(game_key(view))
    return module.status_lines(view) if module else []


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


def seat_label(i: int) -> str:
    """``player_i``, as the pictures name every seat."""
    return f"player_{i}"


def number(value: Any) -> str:
    """A score as a person writes it: 3, not 3.0; ``-`` for none."""
    if value is None:
        return "-"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def clip(text: str, n: int) -> str:
    """``text`` cut to ``n`` characters, ending in ``...`` when cut."""
    return text if len(text) <= n else text[: n - 3] + "..."


def meld_groups(view: dict) -> list[tuple[Any, list[dict]]]:
    """Melds grouped by owner, in seat order, melds without owner last."""
    groups: dict[Any, list[dict]] = {}
    for m in view.get("melds", []) or []:
        groups.setdefault(m.get("owner"), []).append(m)
    keyed = sorted(groups.items(), key=lambda kv: (not isinstance(kv[0], int), kv[0] if isinstance(kv[0], int) else 0))
    return keyed


def owner_text(owner: Any) -> str:
    """Who owns a meld: ``player_i``, or ``table`` for a meld of nobody's."""
    if isinstance(owner, int) and owner >= 0:
        return seat_label(owner)
    return "table" if owner is None or owner == -1 else str(owner)


def status_line(view: dict, name: str) -> str:
    """The heading of the pictures: the game, the seat viewing, the phase and who is to play."""
    game = view.get("game", name) or name
    seat = view.get("seat", 0)
    if view.get("done"):
        state = "game over"
    else:
        to_play = view.get("to_play", -1)
        state = f"phase {view.get('phase', '?')}, {seat_label(to_play)} to play" if to_play >= 0 else \
            f"phase {view.get('phase', '?')}"
    return f"{game}  |  view of {seat_label(seat)}  |  {state}"


@lru_cache(maxsize=None)
def font(size: int) -> ImageFont.ImageFont:
    """Pillow's default font at ``size`` (the fixed bitmap font where Pillow has no FreeType)."""
    try:
        return ImageFont.load_default(size=size)
    except (TypeError, OSError, ImportError):  # Pillow without FreeType: the fixed bitmap font
        return ImageFont.load_default()


def draw_suit(draw: ImageDraw.ImageDraw, suit: str, cx: float, cy: float, s: float,
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
