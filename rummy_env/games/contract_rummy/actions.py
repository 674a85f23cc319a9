"""The action catalogue of the options (``contract_rummy.md`` "Action ids", CR-10 .. CR-27),
built on the segments of :mod:`rummy_env.actions`, and the ``discard`` ids by rank mask."""
from __future__ import annotations

from functools import cache

from ...actions import PIECE, Catalogue, Combination, Segment, card_word, number_word, slot_word
from ...cards import suit_mask_items
from .tables import catalogue


@cache
def discard_ids(first: int) -> tuple:
    """Per suit, per 13-bit rank mask: the ``discard`` action ids of its cards, ``first`` being the
    id of ``discard AC`` (CR-25)."""
    return tuple(suit_mask_items(range(first + 13 * s, first + 13 * s + 13)) for s in range(4))


@cache
def action_catalogue(options) -> Catalogue:
    """The actions under ``options`` (:class:`~rummy_env.games.contract_rummy.options.Options`;
    CR-10 .. CR-27): ``draw stock``, ``take discard [K]`` (K = 1 is written without the number),
    ``discard C`` (a card or JK), ``meld`` (an entry of the meld catalogue, its pieces in any
    order), ``layoff P @k`` and ``swap C @k`` (slot-major), for 3 meld slots per seat."""
    melds = catalogue(options.jokers, options.min_run_length)
    meld_slots = 3 * options.num_players
    return Catalogue([
        Segment("draw stock"),
        Segment("take discard <count>", count=number_word(1, options.pack_size, "K", optional=True)),
        Segment("discard <card>", card=card_word(allow_joker=True)),
        Segment("meld <meld>", meld=Combination("<cards>", melds.pieces, PIECE,
                                                "not a meld of the catalogue (CR-13, CR-14)")),
        Segment("layoff <piece> <slot>", piece=PIECE, slot=slot_word(meld_slots), id_order=("slot", "piece")),
        Segment("swap <card> <slot>", card=card_word(), slot=slot_word(meld_slots), id_order=("slot", "card")),
    ])
