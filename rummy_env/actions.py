"""Action ids and action text, the parts every game shares (shared contract 2 and 4).

One rule for the text of all five games: words are separated by ASCII whitespace (any run of it;
leading and trailing whitespace is ignored), keywords and cards are case-insensitive, numbers are
ASCII digits without leading zeros. Anything else, a non-ASCII or non-printable character
included, is refused with a ``ValueError`` naming the text (:func:`action_text_error`).
"""
from __future__ import annotations

import re

import numpy as np

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
