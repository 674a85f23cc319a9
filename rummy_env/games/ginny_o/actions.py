"""Ginny-O's action catalogue (GO-40..GO-44): 23,509 ids, their texts and the text parser.

0 ``draw``, 1 ``pass``, 2 ``commit``; 3-55 ``return <t>``; 56-108 ``exchange <t>`` (t: the 52
cards in id order, then JK); from 109, ``place <piece> at <square>`` = 109 + 225 x piece + square
(a joker piece is ``52 + c``, written ``JK=<c>``).
"""
from __future__ import annotations

from ...actions import PIECE, Catalogue, Segment, Word, card_word
from .board import NSQ, SQUARE_TEXT, square_of

SQUARE = Word("<square>", SQUARE_TEXT, square_of)
"""A square ``H8`` (column A-O, row 1-15): value = 15 x (row - 1) + column."""
TILE = card_word(allow_joker=True)
"""A tile ``7H`` or ``JK``: value = card id, 52 for the joker."""

ACTIONS = Catalogue([
    Segment("draw"),
    Segment("pass"),
    Segment("commit"),
    Segment("return <tile>", tile=TILE),
    Segment("exchange <tile>", tile=TILE),
    Segment("place <piece> at <square>", piece=PIECE, square=SQUARE),
])
"""Ginny-O's actions: texts, parser and segment starts."""
DRAW = ACTIONS.start("draw")
PASS = ACTIONS.start("pass")
COMMIT = ACTIONS.start("commit")
RETURN0 = ACTIONS.start("return")
EXCHANGE0 = ACTIONS.start("exchange")
PLACE0 = ACTIONS.start("place")
NUM_ACTIONS = ACTIONS.size  # 23509
ACTION_GRID = (PLACE0, PIECE.size, SQUARE.size)
"""The ``place`` ids as a piece x square grid: id = start + squares x piece + square (the segment is
piece-major; a square is a board square in reading order, as in the board planes of the
observation). A factored policy head (``PolicyNet(head="factored")``) scores them from this."""
text_to_action = ACTIONS.text_to_action


def place_action(square: int, piece: int) -> int:
    """Action id of ``place <piece> at <square>`` (a joker piece is ``52 + c``)."""
    return PLACE0 + NSQ * piece + square
