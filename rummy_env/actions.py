"""Action ids and action text, the parts every game shares (shared contract 2 and 4).

One rule for the text of all five games: words are separated by ASCII whitespace (any run of it;
leading and trailing whitespace is ignored), keywords and cards are case-insensitive, numbers are
ASCII digits without leading zeros. Anything else, a non-ASCII or non-printable character
included, is refused with a ``ValueError`` naming the text (:func:`action_text_error`).

Each game declares its actions once, as a :class:`Catalogue` of :class:`Segment` s laid end to
end; the catalogue gives the ids, the texts, the one parser and the segment starts::

    ACTIONS = Catalogue([
        Segment("draw stock"),                                       # id 0
        Segment("discard <card>", card=CARD),                        # 1 + card id
        Segment("meld <meld>", meld=Combination("<cards>", MELDS, CARD, "the cards form no meld")),
        Segment("layoff <card> <slot>", card=CARD, slot=slot_word(17)),          # card-major
        Segment("swap <card> <slot>", card=CARD, slot=slot_word(8), id_order=("slot", "card")),
    ])
    LAYOFF0 = ACTIONS.start("layoff")        # module-level ints for the hot paths
    NUM_ACTIONS = ACTIONS.size
    ACTIONS.action_to_text(LAYOFF0 + 17 * 32 + 3)   # 'layoff 7H @3' (checks the id)
    ACTIONS.text_to_action(" LAYOFF 7h  @3")        # the same id; ValueError naming a bad text
    ACTIONS.action_id("layoff", card=32, slot=3)    # the same id, by argument values
    ACTIONS.decode(LAYOFF0 + 17 * 32 + 3)           # ('layoff', {'card': 32, 'slot': 3})
    ACTIONS.texts                                   # every text by id (built on first use)

Argument kinds: a :class:`Word` is one word (:data:`CARD`, :data:`PIECE`, :data:`RANK`,
:func:`card_word`, :func:`slot_word`, :func:`number_word`; a game makes its own, e.g. a square,
as ``Word(hint, texts, parse)``); a :class:`Combination` is the rest of the text, a catalogue
entry written element by element and read in any order (a meld, a play of ranks). A segment's
size is the product of its arguments' sizes; nothing in a catalogue is tabulated per id except
``texts`` (built on first use, and only up to ``TEXT_TABLE_LIMIT`` ids by ``action_to_text``), so
a catalogue costs next to nothing to build.
"""
from __future__ import annotations

import bisect
import functools
import re

import numpy as np

from .cards import CARD_TEXT, NUM_CARDS, RANKS, parse_card, parse_rank
from .melds import parse_piece, piece_text

_INTEGER_TYPES = (np.integer, int)
_NOT_ALLOWED = re.compile(r"[^\x20-\x7e\t\n\r\x0b\x0c]")
"""A character outside printable ASCII and ASCII whitespace."""


def action_text_error(text: str, reason: str) -> ValueError:
    """The ``ValueError`` for a text that is no action of the game, naming the text and why."""
    return ValueError(f"unknown action text {text!r}: {reason}")


def split_words(text: str) -> list[str]:
    """The lower-case words of an action text; ``ValueError`` for a non-string, an empty text or a
    character other than printable ASCII and ASCII whitespace."""
    if not isinstance(text, str):
        raise ValueError(f"unknown action text {text!r}: action texts are strings")
    bad = _NOT_ALLOWED.search(text)
    if bad:
        raise action_text_error(text, f"character {bad.group()!r} is not allowed (printable ASCII words "
                                      "separated by spaces)")
    words = text.lower().split()
    if not words:
        raise action_text_error(text, "it is empty")
    return words


def parse_index(word: str, what: str, lo: int, hi: int) -> int:
    """The number ``lo..hi`` written in ``word``: ASCII digits, no leading zero; ``ValueError``
    naming ``what`` otherwise."""
    if (not (word.isascii() and word.isdigit()) or (len(word) > 1 and word[0] == "0")
            or len(word) > len(str(hi)) or not lo <= int(word) <= hi):
        raise ValueError(f"{what} must be a number {lo}..{hi} in decimal digits without leading zeros, "
                         f"got {word!r}")
    return int(word)


def check_action_id(action, num_actions: int) -> int:
    """``action`` as an ``int`` if it is an action id ``0..num_actions-1`` (a Python or numpy
    integer, not a bool); ``ValueError`` for anything else (floats, NaN, strings, ``None``)."""
    if type(action) is not int:
        if type(action) is bool or not isinstance(action, _INTEGER_TYPES):
            raise ValueError(f"action {action!r} is not an action id: ids are integers 0..{num_actions - 1}")
        action = int(action)
    if not 0 <= action < num_actions:
        raise ValueError(f"action {action!r} is outside the action space 0..{num_actions - 1}")
    return action


# -- action catalogues ----------------------------------------------------------------------------

class Word:
    """An argument written as one word: value ``i`` (``0..size-1``) is written ``texts[i]`` and
    read by ``parse(word) -> i`` (which raises ``ValueError`` with the reason for a bad word).

    ``optional``: value 0 is written as no word at all, and a missing last word reads as 0
    (Contract Rummy's ``take discard [K]``). Only the last argument of a segment may be optional."""

    def __init__(self, hint: str, texts, parse, optional: bool = False):
        """``parse``: a module-level function (or a ``functools.partial`` of one), so that games
        holding a catalogue pickle."""
        self.hint = hint
        self.texts = tuple(texts)
        self.size = len(self.texts)
        self.parse = parse
        self.optional = optional

    def text(self, i: int) -> str:
        return self.texts[i]


class Combination:
    """An argument written as the rest of the text: entry ``i`` of ``entries`` (a tuple of
    ``element`` values: the cards of a meld, the ranks of a play) is written as its elements'
    texts in the entry's order, and read in any order (the sorted elements name the entry).
    ``missing``: the reason given for elements that name no entry, e.g. "the cards form no meld
    (RM-10..RM-12)"."""

    def __init__(self, hint: str, entries, element: Word, missing: str):
        self.hint = hint
        self.entries = entries
        self.size = len(entries)
        self.element = element
        self.missing = missing
        self.optional = False
        self._index: dict | None = None

    def text(self, i: int) -> str:
        texts = self.element.texts
        return " ".join(texts[e] for e in self.entries[i])

    def parse_words(self, words: list[str]) -> int:
        index = self._index
        if index is None:
            index = self._index = {tuple(sorted(entry)): i for i, entry in enumerate(self.entries)}
        i = index.get(tuple(sorted(self.element.parse(w) for w in words)))
        if i is None:
            raise ValueError(self.missing)
        return i


def card_word(allow_joker: bool = False) -> Word:
    """A card, ``7H`` (and ``JK`` with ``allow_joker``; value = card id, cards.py)."""
    return Word("<card>", CARD_TEXT if allow_joker else CARD_TEXT[:NUM_CARDS],
                functools.partial(parse_card, allow_joker=allow_joker))


def _rank_index(word: str) -> int:
    return parse_rank(word) - 1


def _slot_index(count: int, word: str) -> int:
    if not word.startswith("@"):
        raise ValueError(f"expected a meld index '@k', got {word!r}")
    return parse_index(word[1:], "the meld index k of '@k'", 0, count - 1)


def _number_index(lo: int, hi: int, what: str, word: str) -> int:
    return parse_index(word, what, lo, hi) - lo


CARD = card_word()
"""A card ``7H`` of one deck without jokers: value = card id 0..51."""
PIECE = Word("<card>", (piece_text(p) for p in range(2 * NUM_CARDS)), parse_piece)
"""A card or a joker standing for one, ``7H`` or ``JK=7H``: value = the piece (melds.py)."""
RANK = Word("<rank>", RANKS, _rank_index)
"""A rank ``A 2..9 T J Q K`` (``10`` reads as T): value = rank - 1."""


def slot_word(count: int) -> Word:
    """A table meld's index ``@k``, k in ``0..count-1``: value = k."""
    return Word("@<k>", (f"@{k}" for k in range(count)), functools.partial(_slot_index, count))


def number_word(lo: int, hi: int, what: str, optional: bool = False) -> Word:
    """A decimal number ``lo..hi`` (``what`` names it in errors): value = number - lo. With
    ``optional``, ``lo`` is written as no word (and still read from its digits)."""
    return Word(f"[<{what}>]" if optional else f"<{what}>",
                ("" if optional else str(lo),) + tuple(str(v) for v in range(lo + 1, hi + 1)),
                functools.partial(_number_index, lo, hi, what), optional)


class Segment:
    """A run of consecutive action ids sharing one text pattern, e.g. ``"layoff <card> <slot>"``
    with ``card=CARD, slot=slot_word(17)``: the leading literal words are the verb, each
    ``<name>`` is an argument of the given kind (:class:`Word` or, last, :class:`Combination`),
    other (lower-case) words are literal (Ginny-O's ``place <piece> at <square>``).

    The id is ``start + `` the arguments as a mixed-radix number, the first name of ``id_order``
    (default: the pattern's order) most significant: ``layoff <card> <slot>`` is card-major
    (``start + 17 * card + k``); ``id_order=("slot", "piece")`` makes it slot-major. ``name``
    (default: the verb) is how the catalogue's :meth:`Catalogue.start` finds the segment."""

    def __init__(self, pattern: str, name: str | None = None, id_order: tuple[str, ...] | None = None,
                 **kinds):
        self.pattern = pattern
        self.args = [w[1:-1] for w in pattern.split() if w.startswith("<")]
        if sorted(self.args) != sorted(kinds) or sorted(id_order or self.args) != sorted(self.args):
            raise ValueError(f"segment {pattern!r}: the arguments {sorted(kinds)} and id_order {id_order} "
                             f"must name the pattern's <arguments>")
        if any(not isinstance(kinds[a], Word) or kinds[a].optional for a in self.args[:-1]):
            raise ValueError(f"segment {pattern!r}: only the last argument may be optional or a Combination")
        self.parts = [kinds[w[1:-1]] if w.startswith("<") else w for w in pattern.split()]
        self.verb = []
        for part in self.parts:
            if not isinstance(part, str):
                break
            self.verb.append(part)
        self.name = name or " ".join(self.verb)
        self.kinds = kinds
        self.id_order = tuple(id_order or self.args)
        self.size = 1
        for arg in self.args:
            self.size *= kinds[arg].size
        self.hint = " ".join(part if isinstance(part, str) else part.hint for part in self.parts)
        rest = kinds[self.args[-1]] if self.args else None
        self._min_words = len(self.parts) - (rest is not None and rest.optional)
        self._any_length = isinstance(rest, Combination)

    def fits(self, num_words: int) -> bool:
        """Whether a text of ``num_words`` words (the verb's included) may be of this segment."""
        return self._min_words <= num_words and (self._any_length or num_words <= len(self.parts))

    def values(self, i: int) -> dict[str, int]:
        """The argument values of the segment's ``i``-th id (``0..size-1``)."""
        out = {}
        for arg in reversed(self.id_order):
            i, out[arg] = divmod(i, self.kinds[arg].size)
        return {arg: out[arg] for arg in self.args}

    def index(self, values: dict[str, int]) -> int:
        """The position ``0..size-1`` of the id with these argument values (inverse of :meth:`values`)."""
        i = 0
        for arg in self.id_order:
            i = i * self.kinds[arg].size + values[arg]
        return i

    def text(self, i: int) -> str:
        """The text of the segment's ``i``-th id."""
        values = self.values(i)
        args = iter(self.args)
        words = []
        for part in self.parts:
            if isinstance(part, str):
                words.append(part)
                continue
            word = part.text(values[next(args)])
            if word:
                words.append(word)
        return " ".join(words)

    def read(self, words: list[str]) -> int:
        """The position of the id written ``words`` (the verb's included, :meth:`fits` checked);
        ``ValueError`` with the reason otherwise."""
        values = {}
        args = iter(self.args)
        for j, part in enumerate(self.parts):
            if isinstance(part, str):
                if words[j] != part:
                    raise ValueError(f"expected {self.hint!r}")
                continue
            arg = next(args)
            if isinstance(part, Combination):
                values[arg] = part.parse_words(words[j:])
            else:
                values[arg] = part.parse(words[j]) if j < len(words) else 0
        return self.index(values)


TEXT_TABLE_LIMIT = 65_536
"""Catalogues up to this many actions keep every text in a table once one is asked for."""


class Catalogue:
    """A game's action ids: its :class:`Segment` s laid end to end in the given order."""

    def __init__(self, segments):
        self.segments = tuple(segments)
        self.starts = []
        self._by_name = {}
        size = 0
        for segment in self.segments:
            if segment.name in self._by_name:
                raise ValueError(f"two segments are named {segment.name!r}: give one a name=")
            self._by_name[segment.name] = segment
            self.starts.append(size)
            size += segment.size
        self.size = size
        self._alternatives = ", ".join(repr(s.hint) for s in self.segments[:-1]) + (
            " or " if len(self.segments) > 1 else "") + repr(self.segments[-1].hint)

    def start(self, name: str) -> int:
        """The first id of the segment ``name``."""
        return self.starts[self.segments.index(self._by_name[name])]

    def ids(self, name: str) -> range:
        """The ids of the segment ``name``."""
        start = self.start(name)
        return range(start, start + self._by_name[name].size)

    def action_id(self, name: str, **values: int) -> int:
        """The id of segment ``name`` with these argument values, e.g. ``action_id("layoff", card=c, slot=k)``."""
        return self.start(name) + self._by_name[name].index(values)

    def _locate(self, action: int) -> tuple[Segment, int]:
        """The segment of an id ``0..size-1`` and the id's position in it."""
        j = bisect.bisect_right(self.starts, action) - 1
        return self.segments[j], action - self.starts[j]

    def decode(self, action: int) -> tuple[str, dict[str, int]]:
        """The segment name and argument values of an id ``0..size-1``."""
        segment, i = self._locate(action)
        return segment.name, segment.values(i)

    def action_to_text(self, action) -> str:
        """The canonical text of an action id; ``ValueError`` for anything but an id ``0..size-1``.
        Read from :attr:`texts` up to ``TEXT_TABLE_LIMIT`` actions, written from the segment above."""
        action = check_action_id(action, self.size)
        if self.size <= TEXT_TABLE_LIMIT:
            return self.texts[action]
        segment, i = self._locate(action)
        return segment.text(i)

    @functools.cached_property
    def texts(self) -> tuple[str, ...]:
        """Every action's text by id, built on first use (views list legal actions from it)."""
        return tuple(segment.text(i) for segment in self.segments for i in range(segment.size))

    def text_to_action(self, text: str) -> int:
        """The id of an action text (grammar above); ``ValueError`` naming the text and the reason."""
        words = split_words(text)
        same_verb = [j for j, s in enumerate(self.segments) if words[:len(s.verb)] == s.verb]
        for j in same_verb:
            segment = self.segments[j]
            if segment.fits(len(words)):
                try:
                    return self.starts[j] + segment.read(words)
                except ValueError as err:
                    raise action_text_error(text, str(err)) from None
        if same_verb:
            raise action_text_error(text, "wrong number of words for {!r}: expected {}".format(
                " ".join(self.segments[same_verb[0]].verb),
                " or ".join(repr(self.segments[j].hint) for j in same_verb)))
        raise action_text_error(text, f"expected {self._alternatives}")
