"""Tongits' action catalogue (tongits.md "Action text"), built on the shared
:mod:`rummy_env.actions` segments.

Action ids (1283): ``0`` ``draw stock``, ``1`` ``take discard``, ``2`` ``call draw``,
``3`` ``challenge``, ``4`` ``fold`` (the 5 fixed texts, in this order); ``5 + c``
``discard <card c>`` (52, card id ``c = 13*suit + rank-1``); ``57 + i`` ``meld <catalogue meld
i>`` (329, ``melds.standard_catalogue(ace_high=False)``: 65 sets rank A..K x suits CDH CDS CHS
DHS CDHS, then 66 runs per suit C D H S by lowest rank, then length); ``386 + r - 1``
``secret`` of the four cards of rank r (13, A..K); ``399 + 17*c + k`` ``layoff <card c> @k``
(884, card-major: 52 cards x 17 meld numbers).
"""
from __future__ import annotations

from ...actions import CARD, Catalogue, Combination, Segment, slot_word
from .tables import CATALOGUE, FOURS

MAX_MELDS = 17

ACTIONS = Catalogue([
    Segment("draw stock"),
    Segment("take discard"),
    Segment("call draw"),
    Segment("challenge"),
    Segment("fold"),
    Segment("discard <card>", card=CARD),
    Segment("meld <meld>", meld=Combination("<cards>", CATALOGUE, CARD, "not a valid set or run (TG-10..TG-12)")),
    Segment("secret <four>", four=Combination("<cards>", FOURS, CARD,
                                              "a secret is the four cards of one rank (TG-13)")),
    Segment("layoff <card> <slot>", card=CARD, slot=slot_word(MAX_MELDS)),
])
"""Tongits' 1283 actions (tongits.md "Action text"): texts, parser and segment starts."""
A_DRAW, A_TAKE, A_CALL, A_CHALLENGE, A_FOLD = (ACTIONS.start(name) for name in (
    "draw stock", "take discard", "call draw", "challenge", "fold"))
DISCARD0 = ACTIONS.start("discard")
MELD0 = ACTIONS.start("meld")
SECRET0 = ACTIONS.start("secret")
LAYOFF0 = ACTIONS.start("layoff")
NUM_ACTIONS = ACTIONS.size
ACTION_TEXT = ACTIONS.texts
