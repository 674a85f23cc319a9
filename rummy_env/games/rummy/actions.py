"""Rummy's action catalogue (rummy.md "Action ids", RM-6..RM-15), built on the shared
:mod:`rummy_env.actions` segments."""
from __future__ import annotations

from ...actions import CARD, Catalogue, Combination, Segment, slot_word
from .tables import CATALOGUE

NUM_MELD_SLOTS = 17

ACTIONS = Catalogue([
    Segment("draw stock"),
    Segment("take discard"),
    Segment("discard <card>", card=CARD),
    Segment("meld <meld>", meld=Combination("<cards>", CATALOGUE, CARD, "the cards form no meld (RM-10..RM-12)")),
    Segment("layoff <card> <slot>", card=CARD, slot=slot_word(NUM_MELD_SLOTS)),
])
"""Rummy's 1307 actions (RM-6..RM-15): texts, parser and segment starts."""
DRAW_STOCK = ACTIONS.start("draw stock")
TAKE_DISCARD = ACTIONS.start("take discard")
DISCARD0 = ACTIONS.start("discard")
MELD0 = ACTIONS.start("meld")
LAYOFF0 = ACTIONS.start("layoff")
NUM_ACTIONS = ACTIONS.size
ACTION_TEXT = ACTIONS.texts
