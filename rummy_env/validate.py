"""Option and deal validation shared by the five games: every bad value raises a ``ValueError``
that names the option or deal key and says what was expected.

Options (a frozen dataclass per game) check and normalise their fields in ``__post_init__``::

    def __post_init__(self):
        check_fields(self, ints={"num_players": (2, 6), "target_score": (0, None)},
                     bools=("ace_high",), choices={"reward_mode": REWARD_MODES})

Deals (``reset(options={"deal": ...})``) check their keys with :func:`check_deal_keys`, numbers
with :func:`check_int` (``what="a seat"`` for a seat), lists with :func:`check_list` and
:func:`int_list`, dicts inside them with :func:`check_record`, and cards with a
:class:`PackTally`, which reads card lists and refuses a card listed more often than the pack
holds it::

    tally = PackTally(make_pack())
    hand = tally.take("hands[0]", deal["hands"][0])     # card ids; ValueError naming 'hands[0]'
    tally.check_all_listed("'stock' is given")           # exactly the pack
"""
from __future__ import annotations

import functools
import math
from typing import Iterable, NamedTuple

import numpy as np

from .cards import CARD_TEXT, JOKER, cards_text, parse_card
from .melds import parse_piece


def is_int(value) -> bool:
    """Whether ``value`` is a Python or numpy integer (a bool is not)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def check_int(name: str, value, lo: int | None = None, hi: int | None = None, what: str = "an int") -> int:
    """``value`` as an ``int`` if it is an integer ``lo..hi`` (a bound of None: none that side);
    otherwise ``ValueError``: "``name`` must be ``what`` lo..hi, got ...". """
    if not is_int(value) or (lo is not None and value < lo) or (hi is not None and value > hi):
        bounds = (f" {lo}..{hi}" if hi is not None else f" >= {lo}") if lo is not None else (
            f" <= {hi}" if hi is not None else "")
        raise ValueError(f"{name} must be {what}{bounds}, got {value!r}")
    return int(value)


def check_number(name: str, value, lo: float = 0.0, strict: bool = False) -> float:
    """``value`` as a ``float`` if it is a finite real number ``>= lo`` (``> lo`` when ``strict``);
    otherwise ``ValueError``: "``name`` must be a number >= lo, got ...". """
    real = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))
    if not (real and math.isfinite(value) and (value > lo if strict else value >= lo)):
        raise ValueError(f"{name} must be a number {'>' if strict else '>='} {lo:g}, got {value!r}")
    return float(value)


def check_bool(name: str, value) -> bool:
    """``value`` if it is a ``bool`` (not 0/1, not ``None``); ``ValueError`` naming ``name`` otherwise."""
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be a bool, got {value!r}")
    return value


def check_choice(name: str, value, choices: Iterable):
    """``value`` if it is one of ``choices``; ``ValueError`` naming ``name`` and the choices otherwise."""
    choices = list(choices)
    if isinstance(value, bool) or value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}")
    return value


def check_fields(options, ints: dict | None = None, bools: Iterable[str] = (), choices: dict | None = None) -> None:
    """Check the fields of a frozen options dataclass: ``ints`` name -> (lo, hi or None), each
    stored back as a Python ``int``; ``bools``; ``choices`` name -> allowed values."""
    for name, (lo, hi) in (ints or {}).items():
        object.__setattr__(options, name, check_int(name, getattr(options, name), lo, hi))
    for name in bools:
        check_bool(name, getattr(options, name))
    for name, allowed in (choices or {}).items():
        check_choice(name, getattr(options, name), allowed)


class OptionRule(NamedTuple):
    """One game option's allowed values and the rules it sets (a game's ``Options.RULES``): an int
    in ``ints`` (lo, hi; None: no bound), one of ``choices``, a bool, or, for a value its
    ``__post_init__`` checks by hand, ``words`` saying what it allows."""

    rules: str
    ints: tuple | None = None
    choices: tuple | None = None
    boolean: bool = False
    words: str = ""

    def allowed(self) -> str:
        """The allowed values in words: ``1..8``, ``>= 1``, ``true or false``, ``"a" or "b"``."""
        if self.ints is not None:
            lo, hi = self.ints
            return f">= {lo}" if hi is None else f"{lo}..{hi}"
        if self.choices is not None:
            return " or ".join(f'"{choice}"' for choice in self.choices)
        return "true or false" if self.boolean else self.words


def check_option_rules(options) -> None:
    """:func:`check_fields` for the ints, bools and choices of ``options.RULES``."""
    rules = type(options).RULES
    check_fields(options, ints={name: rule.ints for name, rule in rules.items() if rule.ints is not None},
                 bools=[name for name, rule in rules.items() if rule.boolean],
                 choices={name: rule.choices for name, rule in rules.items() if rule.choices is not None})


def check_deal_keys(deal, keys: Iterable[str]) -> dict:
    """``deal`` if it is a dict whose keys are all among ``keys``; ``ValueError`` otherwise."""
    if not isinstance(deal, dict):
        raise ValueError(f"deal must be a dict, got {type(deal).__name__}")
    unknown = set(deal) - set(keys)
    if unknown:
        raise ValueError(f"unknown deal key(s) {sorted(unknown, key=str)}; known: {sorted(keys)}")
    return deal


def check_list(name: str, value, length: int | None = None, longest: int | None = None) -> list:
    """``value`` as a list if it is a list or tuple (of exactly ``length`` or at most ``longest``
    items where given); ``ValueError`` naming ``name`` otherwise."""
    if (not isinstance(value, (list, tuple)) or (length is not None and len(value) != length)
            or (longest is not None and len(value) > longest)):
        size = f" of {length} items" if length is not None else (
            f" of at most {longest} items" if longest is not None else "")
        raise ValueError(f"{name} must be a list{size}, got {value!r}")
    return list(value)


def int_list(name: str, value, length: int | None = None, lo: int | None = None, hi: int | None = None,
             what: str = "an int") -> list[int]:
    """A list (:func:`check_list`) of integers ``lo..hi`` (:func:`check_int`), as Python ints."""
    return [check_int(f"{name}[{i}]", v, lo, hi, what) for i, v in enumerate(check_list(name, value, length))]


def check_record(name: str, value, keys: Iterable[str], required: Iterable[str] = ()) -> dict:
    """``value`` if it is a dict whose keys are among ``keys`` and include ``required`` (a meld
    of a deal, say); ``ValueError`` naming ``name`` otherwise."""
    keys, required = list(keys), list(required)
    if not isinstance(value, dict) or set(value) - set(keys) or set(required) - set(value):
        raise ValueError(f"{name} must be a dict with keys among {keys}, {' and '.join(map(repr, required))} "
                         f"required, got {value!r}")
    return value


def card_list(name: str, value, allow_joker: bool = False, allow_string: bool = False) -> list[int]:
    """Card ids from a list (or tuple) of card texts such as ``["7H", "10D"]`` (ASCII, each a card
    of the game; ``"7H 8H"`` too with ``allow_string``); ``ValueError`` naming ``name`` otherwise."""
    return _text_list(name, value, functools.partial(parse_card, allow_joker=allow_joker), allow_string)


def piece_list(name: str, value, allow_joker: bool = True, allow_string: bool = False) -> list[int]:
    """Meld pieces (``7H``, or ``JK=7H`` for a joker standing for 7H with ``allow_joker``; melds.py)
    from a list of texts, as :func:`card_list`."""
    return _text_list(name, value, functools.partial(parse_piece, allow_joker=allow_joker), allow_string)


def _text_list(name: str, value, parse, allow_string: bool) -> list[int]:
    if allow_string and isinstance(value, str):
        value = value.split()
    if not isinstance(value, (list, tuple)) or not all(isinstance(t, str) for t in value):
        raise ValueError(f"{name} must be a list of card texts, got {value!r}")
    out = []
    for text in value:
        try:
            out.append(parse(text))
        except ValueError as err:
            raise ValueError(f"{name}: {err}") from None
    return out


class PackTally:
    """The cards a deal lists, counted against the pack (``cards.make_pack``): each card at most
    as often as the pack holds it ("every card exactly once" for one deck)."""

    def __init__(self, pack: Iterable[int]):
        self.left = [0] * (JOKER + 1)
        for c in pack:
            self.left[c] += 1
        self.copies = list(self.left)
        self.where: dict[int, str] = {}

    def take(self, place: str, value, allow_string: bool = False) -> list[int]:
        """The card ids of the card list ``value`` found at deal key ``place`` (:func:`card_list`),
        counted; ``ValueError`` if a card is listed more often than the pack holds it."""
        cards = card_list(f"deal {place}", value, allow_joker=self.copies[JOKER] > 0, allow_string=allow_string)
        self.count(place, cards)
        return cards

    def count(self, place: str, cards: Iterable[int]) -> None:
        """Count card ids listed at ``place`` (for cards read otherwise, e.g. a meld's pieces);
        ``ValueError`` if a card is listed more often than the pack holds it."""
        for c in cards:
            if not self.left[c]:
                listed = "twice" if self.copies[c] == 1 else f"{self.copies[c] + 1} times"
                raise ValueError(f"deal: card {CARD_TEXT[c]} is listed {listed} ({self.where[c]} and {place}); "
                                 f"the pack holds {self.copies[c]}")
            self.left[c] -= 1
            self.where.setdefault(c, place)

    def unlisted(self) -> list[int]:
        """The pack's cards not listed yet (ascending, with their multiplicity)."""
        return [c for c, k in enumerate(self.left) for _ in range(k)]

    def check_all_listed(self, why: str) -> None:
        """``ValueError`` unless every card of the pack is listed (``why``: the reason it must be)."""
        missing = self.unlisted()
        if missing:
            raise ValueError(f"deal: cards listed nowhere although {why}: {cards_text(missing)}")
