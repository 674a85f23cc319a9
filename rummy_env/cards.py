"""Cards: ids, text, points, packs and card sets, shared by all five games.

A card id is ``c = 13 * suit + (rank - 1)``: suits C 0, D 1, H 2, S 3; ranks A 1 .. K 13
(``docs/rules/README.md``; the action layouts of every rules file use it). The joker is
id 52 (``JOKER``). A card set of one deck is an ``int`` bitmask (bit ``c`` set = card held);
a multi-deck hand is a count array of length 53 (index 52 = jokers).
"""
from __future__ import annotations

from itertools import compress
from typing import Iterable, Sequence

import numpy as np

RANKS = "A23456789TJQK"
SUITS = "CDHS"
NUM_CARDS = 52
JOKER = 52

RANK_OF = tuple(c % 13 + 1 for c in range(NUM_CARDS))
"""Rank 1..13 (A=1) of each card id."""
SUIT_OF = tuple(c // 13 for c in range(NUM_CARDS))
"""Suit 0..3 (C D H S) of each card id."""
CARD_TEXT = tuple(RANKS[c % 13] + SUITS[c // 13] for c in range(NUM_CARDS)) + ("JK",)
"""Canonical text of each card id, ``"JK"`` for the joker."""
BIT = tuple(1 << c for c in range(NUM_CARDS))
CARD_OF_TEXT = {t: c for c, t in enumerate(CARD_TEXT[:NUM_CARDS])}
"""Card id of each canonical text (``"7H"`` -> 32): the fast path of :func:`parse_card`."""
FULL_DECK = (1 << NUM_CARDS) - 1

POINTS = tuple(min(RANK_OF[c], 10) for c in range(NUM_CARDS))
"""Standard point values (shared README): ace 1, 2-10 face value, J Q K 10."""
ACE_FIFTEEN_POINTS = tuple(15 if RANK_OF[c] == 1 else POINTS[c] for c in range(NUM_CARDS))
"""Point values with the ace worth 15, 2-10 face value, J Q K 10 (Rummy's ace_high RM-22, the
Contract Rummy and Ginny-O penalties)."""


def card(rank: int, suit: int) -> int:
    """The id of the card of ``rank`` (1..13) and ``suit`` (0..3)."""
    return 13 * suit + rank - 1


def parse_rank(text: str) -> int:
    """Rank 1..13 from ``A 2..9 T J Q K`` or ``10``, any case; ``ValueError`` otherwise."""
    t = text.strip().upper()
    if t == "10":
        t = "T"
    if len(t) != 1 or t not in RANKS:
        raise ValueError(f"bad rank {text!r}: expected one of A 2-9 T (or 10) J Q K")
    return RANKS.index(t) + 1


def parse_card(text: str, allow_joker: bool = False) -> int:
    """Card id from its text (``7H``, ``10h``, ``TH``; ``JK`` if ``allow_joker``).

    Raises ``ValueError`` naming the text for anything else.
    """
    canonical = CARD_OF_TEXT.get(text) if isinstance(text, str) else None
    if canonical is not None:
        return canonical
    if not isinstance(text, str):
        raise ValueError(f"bad card {text!r}: card texts are strings such as '7H'")
    t = text.strip().upper()
    if not text.isascii():
        raise ValueError(f"bad card {text!r}: card texts are ASCII, e.g. '7H', 'TS', '10D'")
    if t == "JK":
        if allow_joker:
            return JOKER
        raise ValueError(f"bad card {text!r}: this game has no jokers")
    if len(t) < 2 or t[-1] not in SUITS:
        raise ValueError(f"bad card {text!r}: expected rank then suit, e.g. '7H', 'TS', '10D'")
    try:
        rank = parse_rank(t[:-1])
    except ValueError:
        raise ValueError(f"bad card {text!r}: expected rank then suit, e.g. '7H', 'TS', '10D'") from None
    return card(rank, SUITS.index(t[-1]))


def parse_cards(texts: str | Iterable[str], allow_joker: bool = False) -> list[int]:
    """Card ids from ``"7H 8H 9H"`` or ``["7H", "8H", "9H"]``."""
    if isinstance(texts, str):
        texts = texts.split()
    return [parse_card(t, allow_joker) for t in texts]


def card_text(c: int) -> str:
    """Canonical text of card id ``c``."""
    return CARD_TEXT[c]


def cards_text(cards: Iterable[int]) -> str:
    """``"7H 8H 9H"`` for the given ids, in the given order."""
    return " ".join(CARD_TEXT[c] for c in cards)


def mask_of(cards: Iterable[int]) -> int:
    """Bitmask of a collection of distinct card ids (one deck)."""
    m = 0
    for c in cards:
        m |= BIT[c]
    return m


def mask_of_counts(counts: Sequence[int]) -> int:
    """Bitmask of the natural cards with a nonzero count in a count array (length 52 or 53)."""
    return sum(map(BIT.__getitem__, compress(range(NUM_CARDS), counts)))


def cards_of(mask: int) -> list[int]:
    """Card ids in a bitmask, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


_BYTE_BITS = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little").astype(np.float32)


def mask_to_array(mask: int, out: np.ndarray | None = None) -> np.ndarray:
    """A bitmask of 52 cards as a float32 0/1 vector of length 52 (into ``out`` if given)."""
    v = _BYTE_BITS[np.frombuffer(mask.to_bytes(7, "little"), dtype=np.uint8)].reshape(-1)[:NUM_CARDS]
    if out is None:
        return v.copy()
    out[:] = v
    return out


def masks_to_planes(masks: Sequence[int]) -> np.ndarray:
    """Bitmasks of 52 cards as consecutive 0/1 planes of 52 entries (uint8), in one numpy call."""
    raw = np.frombuffer(b"".join(m.to_bytes(7, "little") for m in masks), np.uint8)
    return np.unpackbits(raw, bitorder="little").reshape(len(masks), 56)[:, :NUM_CARDS].ravel()


def suit_mask_items(items: Sequence) -> tuple:
    """For every 13-bit rank mask of one suit (bit r = rank r + 1): the tuple of ``items[r]`` of its
    set bits, ascending; a lookup table that turns a suit's cards into ids or texts without a loop."""
    out = [()]
    for m in range(1, 1 << 13):
        high = m.bit_length() - 1
        out.append(out[m ^ (1 << high)] + (items[high],))
    return tuple(out)


_SUIT_TEXTS = tuple(suit_mask_items(CARD_TEXT[13 * s:13 * s + 13]) for s in range(4))


def mask_texts(mask: int) -> tuple:
    """Texts of the cards of a 52-bit mask in ascending id order (suit, then rank), by table lookup."""
    t0, t1, t2, t3 = _SUIT_TEXTS
    return t0[mask & 0x1FFF] + t1[mask >> 13 & 0x1FFF] + t2[mask >> 26 & 0x1FFF] + t3[mask >> 39 & 0x1FFF]


def hand_points(mask: int, points: Sequence[int] = POINTS) -> int:
    """Sum of the point values of the cards in a bitmask."""
    return sum(points[c] for c in cards_of(mask))


_SUIT_POINTS = tuple(map(sum, suit_mask_items(POINTS[:13])))
"""Points of the cards of each 13-bit rank mask of one suit."""


def mask_points(mask: int) -> int:
    """:func:`hand_points` with the standard ``POINTS``, by four table lookups (no loop over cards)."""
    return (_SUIT_POINTS[mask & 0x1FFF] + _SUIT_POINTS[mask >> 13 & 0x1FFF]
            + _SUIT_POINTS[mask >> 26 & 0x1FFF] + _SUIT_POINTS[mask >> 39 & 0x1FFF])


def make_pack(num_decks: int = 1, num_jokers: int = 0) -> list[int]:
    """The card ids of a pack: ``num_decks`` copies of the 52 cards, then the jokers."""
    return [c for _ in range(num_decks) for c in range(NUM_CARDS)] + [JOKER] * num_jokers


def counts_of(cards: Iterable[int]) -> np.ndarray:
    """Count array (length 53, index 52 = jokers) of a multiset of card ids."""
    counts = np.zeros(NUM_CARDS + 1, dtype=np.int16)
    for c in cards:
        counts[c] += 1
    return counts
