"""Pictures and text of a seat's view, one module per back end:

==================  ==========================================================================
module              contents
==================  ==========================================================================
``text.py``         :func:`view_text`, the one text table (``render_mode="ansi"``/``"human"``,
                    the terminal player of ``rummy-env play``, ``rummy-env replay``), with
                    colours or without, and the legal moves in columns
``image.py``        :func:`view_to_rgb`, the RGB picture (``render_mode="rgb_array"``)
``html.py``         :func:`view_to_html`, the HTML fragment (Jupyter, the web tables)
``board.py``        Ginny-O's board as a picture and as HTML (:func:`board_to_rgb`,
                    :func:`board_html`)
``common.py``       what they share: card faces and colours, seat and meld labels, and
                    :data:`GAME_VIEWS`, the table through which they find each game's wording
==================  ==========================================================================

All work on the structured view every game gives (``Game.view`` in :mod:`rummy_env.base`), so
they draw any of the five games: the seat's hand, the melds on the table grouped by owner, the
discard pile and the stock (in I Doubt It the face-down pile and the claim instead), every seat's
hand size and score; the pictures also ``revealed_hands`` when the rules make hands public and the
last public events, the text the game's state in words. A view with a ``board`` (Ginny-O) is
drawn as its board of coloured squares or of letters. The words of each game (its title, its
state in words, I Doubt It's claims, Ginny-O's text board) live in the game's ``view.py``.

Nothing here reads engine state: the pictures and the text show exactly what the seat may know.
"""
from __future__ import annotations

from ..words import plural, seat_name
from .board import (BOARD_CELL, BOARD_MARGIN, BOARD_PANEL, JOKER_FACE, PLACED_OUTLINE, PREMIUM_COLOURS, TILE_FACE,
                    board_html, board_premiums, board_tiles, board_to_rgb)
from .common import GAME_TITLES, GAME_VIEWS, RED, SUIT_SYMBOL, card_face, number, status_lines, title
from .html import card_html, cards_html, view_to_html
from .image import MIN_HEIGHT, WIDTH, view_to_rgb
from ..games.ginny_o.view import board_text
from .text import (ANSI_CODE, MAX_LISTED, TEXT_WIDTH, TextStyle, group_by_suit, move_lines, render_as_text,
                   use_colour, view_text)

__all__ = ["ANSI_CODE", "BOARD_CELL", "BOARD_MARGIN", "BOARD_PANEL", "GAME_TITLES", "GAME_VIEWS", "JOKER_FACE",
           "MAX_LISTED", "MIN_HEIGHT", "PLACED_OUTLINE", "PREMIUM_COLOURS", "RED", "SUIT_SYMBOL", "TEXT_WIDTH",
           "TILE_FACE", "WIDTH", "TextStyle", "board_html", "board_premiums", "board_text", "board_tiles",
           "board_to_rgb", "card_face", "card_html", "cards_html", "group_by_suit", "move_lines", "number",
           "plural", "render_as_text", "seat_name", "status_lines", "title", "use_colour", "view_text",
           "view_to_html", "view_to_rgb"]
