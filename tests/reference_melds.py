"""An independent reading of the meld rules of Rummy (RM-10..RM-12), Tongits (TG-10..TG-12) and
Contract Rummy (CR-1, CR-13, CR-14, CR-20, CR-21, CR-24), for the games' legality references.

It shares no code or table with the engines (no ``rummy_env.melds``, no meld catalogue): a piece is
a card text (``7H``) or a joker piece (``JK=7H``, a joker laid as that card, CR-20), read from its
characters. The references call it as ``reference_melds.shape(...)``, an attribute looked up at
each call, so that a mutation test can put a wrong reading in its place and see the comparison with
the engine fail (tests/test_meld_references.py).
"""
from __future__ import annotations

import itertools
from typing import Iterable, NamedTuple

RANKS = "A23456789TJQK"
"""Ranks 1 (ace) to 13 (king), as written in a card text (RM-1, TG-1, CR-1)."""
SUITS = "CDHS"
JOKER_PIECE = "JK="


class Shape(NamedTuple):
    """A valid meld: a ``"set"`` of rank ``lo == hi``, or a ``"run"`` of ``suit`` over the
    positions ``lo..hi`` (an ace is position 1, or 14 above a king)."""
    kind: str
    suit: str
    lo: int
    hi: int


def rank_suit(piece: str) -> tuple[int, str]:
    """(rank 1..13, suit letter) of a card text or of the card a joker piece is laid as."""
    text = piece.removeprefix(JOKER_PIECE)
    return RANKS.index(text[0]) + 1, text[1]


def shape(pieces: Iterable[str], ace_high: bool, min_run: int = 3) -> Shape | None:
    """The meld ``pieces`` form, or None.

    A set is three or four pieces of one rank, no suit twice (RM-10, TG-10, CR-13: with two decks
    never two fives of diamonds, and a joker counts as the suit it is laid as, CR-24). A run is at
    least ``min_run`` (3, CR-14's option) pieces of one suit on consecutive positions, each taken
    once: an ace sits at 1, or with ``ace_high`` (Rummy's option, always in Contract Rummy, never
    in Tongits) at 14, so a run never goes round the corner (RM-11, RM-12, TG-12, CR-14). Of two
    placements of an ace the low one is reported.
    """
    cards = [rank_suit(p) for p in pieces]
    if len(cards) < 3:
        return None
    ranks = {r for r, _ in cards}
    suits = [s for _, s in cards]
    if len(ranks) == 1:
        rank = cards[0][0]
        return Shape("set", "", rank, rank) if len(cards) <= 4 and len(set(suits)) == len(suits) else None
    if len(set(suits)) > 1 or len(cards) < min_run:
        return None
    for placed in itertools.product(*(((1, 14) if r == 1 and ace_high else (r,)) for r, _ in cards)):
        lo, hi = min(placed), max(placed)
        if len(set(placed)) == len(placed) and hi - lo + 1 == len(placed):
            return Shape("run", suits[0], lo, hi)
    return None


def hand_melds(hand: Iterable[str], ace_high: bool) -> set[frozenset[str]]:
    """Every meld (as a set of card texts) that the cards ``hand`` (one deck: no text twice) can
    lay, by :func:`shape`. The candidates are looser than any reading of the rules, so that a
    looser ``shape`` shows: every two or more cards of one rank, and every stretch of two or more
    cards of one suit in rank order, going on from K to A (round the corner)."""
    hand = set(hand)
    by_rank: dict[int, list[str]] = {}
    for c in sorted(hand):
        by_rank.setdefault(rank_suit(c)[0], []).append(c)
    candidates = [frozenset(group) for cards in by_rank.values()
                  for k in range(2, len(cards) + 1) for group in itertools.combinations(cards, k)]
    for suit in SUITS:
        for start in range(13):
            stretch: list[str] = []
            for step in range(13):
                card = RANKS[(start + step) % 13] + suit
                if card not in hand:
                    break
                stretch.append(card)
                if len(stretch) >= 2:
                    candidates.append(frozenset(stretch))
    return {m for m in candidates if shape(m, ace_high) is not None}
