"""Ginny-O's action catalogue (GO-40..GO-44): 23,509 ids, their texts and the text parser.

0 ``draw``, 1 ``pass``, 2 ``commit``; 3-55 ``return <t>``; 56-108 ``exchange <t>`` (t: the 52
cards in id order, then JK); from 109, ``place <piece> at <square>`` = 109 + 225 x piece + square
(a joker piece is ``52 + c``, written ``JK=<c>``).
"""
from __future__ import annotations

from ...actions import action_text_error, split_words
from ...cards import CARD_TEXT, NUM_CARDS, parse_card
from ...melds import parse_piece, piece_text
from .board import NSQ, SQUARE_TEXT, square_of

DRAW, PASS, COMMIT = 0, 1, 2
RETURN0 = 3
EXCHANGE0 = 56
PLACE0 = 109
NUM_ACTIONS = PLACE0 + NSQ * 2 * NUM_CARDS  # 23509


def place_action(square: int, piece: int) -> int:
    """Action id of ``place <piece> at <square>`` (a joker piece is ``52 + c``)."""
    return PLACE0 + NSQ * piece + square


ACTION_TEXT: tuple[str, ...] = tuple(
    ["draw", "pass", "commit"]
    + [f"return {CARD_TEXT[t]}" for t in range(NUM_CARDS + 1)]
    + [f"exchange {CARD_TEXT[t]}" for t in range(NUM_CARDS + 1)]
    + [f"place {piece_text(p)} at {SQUARE_TEXT[q]}" for p in range(2 * NUM_CARDS) for q in range(NSQ)]
)


def text_to_action(text: str) -> int:
    """Action id of a text (``draw``, ``return 7H``, ``exchange JK``, ``place JK=6H at H8``, ...; grammar
    of ``rummy_env.actions``); ``ValueError`` naming an unknown or malformed text."""
    words = split_words(text)
    verb = words[0]
    try:
        if len(words) == 1 and verb in ("draw", "pass", "commit"):
            return ("draw", "pass", "commit").index(verb)
        if len(words) == 2 and verb in ("return", "exchange"):
            tile = parse_card(words[1], allow_joker=True)
            return (RETURN0 if verb == "return" else EXCHANGE0) + tile
        if len(words) == 4 and verb == "place" and words[2] == "at":
            return place_action(square_of(words[3]), parse_piece(words[1]))
    except ValueError as err:
        raise action_text_error(text, str(err)) from None
    raise action_text_error(text, "expected draw, pass, commit, return <t>, exchange <t> or place <c> at <sq>")
