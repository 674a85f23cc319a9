"""Melds: validity, lay-off fit, canonical order and the catalogue of meld shapes.

One module for all five games. A meld is a sequence of **pieces**: a natural card id ``c``
(0..51) or a joker standing for card ``c``, written ``JK=<card>`` and encoded ``52 + c``.
Validity looks only at the cards the pieces stand for (``piece % 52``).

- A **set** is 3 or 4 pieces of one rank in distinct suits (with one deck suits are distinct
  anyway; with two decks this is CR-13's rule "not two fives of diamonds").
- A **run** is ``min_run`` or more pieces of one suit in consecutive **positions**: 1 = low ace,
  2..13 = 2..K, 14 = high ace (only where the game allows ``ace_high``). A run never turns the
  corner (K-A-2); with ``ace_high`` it may reach from ace to ace (14 pieces, two decks or jokers).

A valid meld is summarised by its :class:`Meld` shape, which is what lay-off checks need.
"""
from __future__ import annotations

from typing import Iterable, NamedTuple, Sequence

from .cards import BIT, CARD_TEXT, JOKER, NUM_CARDS, RANK_OF, SUIT_OF, card, parse_card

SET = "set"
RUN = "run"
SET_SUIT_CHOICES = ((0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3), (0, 1, 2, 3))
"""Suit subsets of a set in catalogue order: CDH, CDS, CHS, DHS, CDHS."""


class Meld(NamedTuple):
    """Shape of a valid meld. Sets: ``rank`` and ``suits`` (4-bit mask); runs: ``suit``,
    ``lo`` and ``hi`` positions (1..14). ``size`` is the number of pieces."""

    kind: str
    rank: int
    suit: int
    lo: int
    hi: int
    suits: int
    size: int


def piece_card(piece: int) -> int:
    """The card a piece stands for (itself, or a joker's declared card)."""
    return piece - NUM_CARDS if piece >= NUM_CARDS else piece


def is_joker_piece(piece: int) -> bool:
    return piece >= NUM_CARDS


def piece_text(piece: int) -> str:
    """``7H`` for a natural card, ``JK=7H`` for a joker standing for 7H."""
    return "JK=" + CARD_TEXT[piece - NUM_CARDS] if piece >= NUM_CARDS else CARD_TEXT[piece]


def parse_piece(text: str, allow_joker: bool = True) -> int:
    """Piece from ``7H`` or ``JK=7H`` (any case, ``10`` for T); ``ValueError`` otherwise."""
    t = text.strip().upper()
    if t.startswith("JK="):
        if not allow_joker:
            raise ValueError(f"bad card {text!r}: this game has no jokers")
        return NUM_CARDS + parse_card(t[3:])
    c = parse_card(t)
    if c == JOKER:  # pragma: no cover - parse_card refuses a bare JK here
        raise ValueError(f"bad piece {text!r}")
    return c


def position(c: int, high_ace: bool = False) -> int:
    """Run position of card ``c``: its rank, or 14 for an ace placed high."""
    r = RANK_OF[c]
    return 14 if (high_ace and r == 1) else r


def position_card(pos: int, suit: int) -> int:
    """The card at run position ``pos`` (1..14, 14 = the high ace) of ``suit``."""
    return card(1 if pos == 14 else pos, suit)


def classify(pieces: Sequence[int], ace_high: bool = False, min_run: int = 3) -> Meld | None:
    """The shape of ``pieces`` as a meld, or ``None`` if they form none.

    ``ace_high`` allows an ace at position 14 (Q-K-A); a run of 13 or 14 pieces with aces
    is placed with a low ace if it can be.
    """
    n = len(pieces)
    if n < 3:
        return None
    cards = [p - NUM_CARDS if p >= NUM_CARDS else p for p in pieces]
    rank0 = RANK_OF[cards[0]]
    if all(RANK_OF[c] == rank0 for c in cards):
        suits = _set_suits(cards)
        return None if suits < 0 else Meld(SET, rank0, -1, 0, 0, suits, n)
    suit0 = SUIT_OF[cards[0]]
    if n < min_run or any(SUIT_OF[c] != suit0 for c in cards):
        return None
    ranks = sorted(RANK_OF[c] for c in cards)
    if _consecutive(ranks):
        return Meld(RUN, 0, suit0, ranks[0], ranks[-1], 0, n)
    if ace_high and ranks[0] == 1:
        high = sorted(ranks[1:] + [14])
        if _consecutive(high):
            return Meld(RUN, 0, suit0, high[0], high[-1], 0, n)
    return None


def _set_suits(cards: list[int]) -> int:
    """4-bit suit mask of same-rank cards forming a set (at most 4, distinct suits), else -1."""
    if len(cards) > 4:
        return -1
    suits = 0
    for c in cards:
        bit = 1 << SUIT_OF[c]
        if suits & bit:
            return -1
        suits |= bit
    return suits


def _consecutive(ranks: list[int]) -> bool:
    return all(b == a + 1 for a, b in zip(ranks, ranks[1:]))


def fit_position(meld: Meld, c: int, ace_high: bool = False) -> int:
    """Where card ``c`` (or a joker standing for it) would lie if laid off on ``meld``.

    Returns the run position it takes, ``0`` for a set, or ``-1`` if it does not fit.
    An ace that fits both ends of a 2..K run goes high (CR-19).
    """
    if meld.kind == SET:
        if meld.size < 4 and RANK_OF[c] == meld.rank and not meld.suits & (1 << SUIT_OF[c]):
            return 0
        return -1
    if SUIT_OF[c] != meld.suit:
        return -1
    r = RANK_OF[c]
    if r == 1 and ace_high and meld.hi == 13:
        return 14
    if r == meld.hi + 1 or r == meld.lo - 1:
        return r
    return -1


def fits(meld: Meld, c: int, ace_high: bool = False) -> bool:
    """Whether card ``c`` may be laid off on ``meld`` (one end of a run, or a set's missing suit)."""
    return fit_position(meld, c, ace_high) >= 0


def extend(meld: Meld, c: int, ace_high: bool = False) -> Meld:
    """The shape after laying off card ``c`` (which must fit)."""
    pos = fit_position(meld, c, ace_high)
    if pos < 0:
        raise ValueError(f"{CARD_TEXT[c]} does not fit the meld")
    if meld.kind == SET:
        return meld._replace(suits=meld.suits | (1 << SUIT_OF[c]), size=meld.size + 1)
    return meld._replace(lo=min(meld.lo, pos), hi=max(meld.hi, pos), size=meld.size + 1)


def layoff_cards(meld: Meld, ace_high: bool = False) -> list[int]:
    """Every card that fits ``meld`` now (at most 2 for a run, 1 for a 3-set)."""
    if meld.kind == SET:
        if meld.size >= 4:
            return []
        return [card(meld.rank, s) for s in range(4) if not meld.suits & (1 << s)]
    out = []
    if meld.lo > 1:
        out.append(card(meld.lo - 1, meld.suit))
    if meld.hi < 13 or (meld.hi == 13 and ace_high and meld.lo != 2):
        out.append(card(1 if meld.hi == 13 else meld.hi + 1, meld.suit))
    return out


def canonical_order(pieces: Iterable[int], meld: Meld) -> list[int]:
    """Pieces in canonical text order: a set by suit C D H S, a run by rising position, a
    low ace first and a high ace last (in an ace-to-ace run a joker ace is the low one)."""
    if meld.kind == SET:
        return sorted(pieces, key=lambda p: SUIT_OF[piece_card(p)])
    ordered = sorted(pieces, key=lambda p: (RANK_OF[piece_card(p)], -p))
    if meld.hi != 14:
        return ordered
    aces = [p for p in ordered if RANK_OF[piece_card(p)] == 1]
    rest = ordered[len(aces):]
    if meld.lo == 1:
        return aces[:1] + rest + aces[1:]
    return rest + aces


def meld_text(pieces: Iterable[int], meld: Meld | None = None, ace_high: bool = True) -> str:
    """Space-separated canonical text of a meld's pieces."""
    pieces = list(pieces)
    meld = meld or classify(pieces, ace_high=ace_high)
    if meld is None:
        raise ValueError(f"not a meld: {' '.join(piece_text(p) for p in pieces)}")
    return " ".join(piece_text(p) for p in canonical_order(pieces, meld))


def standard_catalogue(ace_high: bool = True) -> list[tuple[int, ...]]:
    """The one-deck, joker-free meld catalogue in the layout of rummy.md / tongits.md.

    Sets first: rank A..K, suits CDH, CDS, CHS, DHS, CDHS (65). Then per suit C D H S the
    ace-low runs by lowest rank, then length (66), then, if ``ace_high``, the runs ending in
    a high ace Q-K-A .. 3-..-K-A by length (10). Each entry is in canonical card order.
    """
    melds: list[tuple[int, ...]] = []
    for r in range(1, 14):
        for suits in SET_SUIT_CHOICES:
            melds.append(tuple(card(r, s) for s in suits))
    for s in range(4):
        for lo in range(1, 12):
            for length in range(3, 15 - lo):
                melds.append(tuple(card(r, s) for r in range(lo, lo + length)))
        if ace_high:
            for length in range(3, 13):
                melds.append(tuple(card(r, s) for r in range(14 - length + 1, 14)) + (card(1, s),))
    return melds


def catalogue_masks(catalogue: Sequence[Sequence[int]]) -> list[int]:
    """Bitmask of each catalogue meld (natural cards of one deck)."""
    out = []
    for m in catalogue:
        b = 0
        for c in m:
            b |= BIT[c]
        out.append(b)
    return out


def line_meld(pieces: Sequence[int], descending: bool = True) -> str | None:
    """Kind of an *ordered* line of pieces (a crossword line, Ginny-O GO-15/GO-16), or None.

    ``SET``: 3 or 4 pieces of one rank in distinct suits (order free). ``RUN``: 3 to 13 pieces
    of one suit whose run positions rise by one at each step, or (with ``descending``) fall by
    one at each step; an ace is position 1 or 14, never both in one run, and nothing wraps.
    Jokers count as their declared cards (``piece % 52``).
    """
    n = len(pieces)
    if n < 3 or n > 13:
        return None
    cards = [p - NUM_CARDS if p >= NUM_CARDS else p for p in pieces]
    rank0 = RANK_OF[cards[0]]
    if all(RANK_OF[c] == rank0 for c in cards):
        return SET if _set_suits(cards) >= 0 else None
    suit0 = SUIT_OF[cards[0]]
    if any(SUIT_OF[c] != suit0 for c in cards):
        return None
    # the first non-ace card fixes where the run starts; aces must then sit at 1 or 14
    for j, c in enumerate(cards):
        if RANK_OF[c] != 1:
            break
    pos_j = RANK_OF[cards[j]]
    for step in ((1, -1) if descending else (1,)):
        start = pos_j - step * j
        ok = True
        for i, c in enumerate(cards):
            p = start + step * i
            r = RANK_OF[c]
            if not (r == p or (r == 1 and p == 14)) or p < 1 or p > 14:
                ok = False
                break
        if ok:
            return RUN
    return None


def joker_catalogue(num_jokers: int, min_run: int = 3) -> list[tuple[int, ...]]:
    """Meld catalogue with jokers, in the layout of contract_rummy.md (ids of ``meld`` actions).

    Sets by rank A..K, suit subset CDH, CDS, CHS, DHS, CDHS, then joker placement; then runs by
    suit C D H S, lowest position 1..12, length ``min_run``..(15 - lowest), then joker placement.
    Placements: none, then one joker at each place in order, then (``num_jokers`` = 2) two
    jokers in lexicographic order of places; a joker at a place is the piece ``52 + c`` of that
    place's card. An entry whose multiset of pieces equals an earlier entry's is dropped. Each
    entry lists its pieces in canonical order (a run by rising position, a high ace last).
    Sizes: (1, 3) 2605, (2, 3) 9707, (0, 3) 373, (1, 4) 2413.
    """
    out: list[tuple[int, ...]] = []
    seen: set[tuple[int, ...]] = set()

    def add(cards: list[int]) -> None:
        n = len(cards)
        places: list[tuple[int, ...]] = [()]
        if num_jokers >= 1:
            places += [(i,) for i in range(n)]
        if num_jokers >= 2:
            places += [(i, j) for i in range(n) for j in range(i + 1, n)]
        for pl in places:
            pieces = tuple(c + NUM_CARDS if i in pl else c for i, c in enumerate(cards))
            key = tuple(sorted(pieces))
            if key not in seen:
                seen.add(key)
                out.append(pieces)

    for r in range(1, 14):
        for suits in SET_SUIT_CHOICES:
            add([card(r, s) for s in suits])
    for s in range(4):
        for lo in range(1, 13):
            for length in range(min_run, 16 - lo):
                add([card(1 if p == 14 else p, s) for p in range(lo, lo + length)])
    return out
