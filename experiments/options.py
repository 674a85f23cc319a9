"""Environment options on the command line: ``--option KEY=VALUE``, one parser for every tool.

A value is read as a bool (``true``/``false``), ``None`` (``none``/``null``), an int, a float, a
JSON list, object or string (``deals=[1,2]``), a comma-separated list of such scalars
(``deals=1,2``), or else kept as a text (``reward_mode=win_loss``).
"""
from __future__ import annotations

import argparse
import json
from typing import Any

OPTION_HELP = ("environment option KEY=VALUE, repeatable; values: true/false, none, numbers, text, "
               "lists as deals=1,2 or JSON deals=[1,2] (e.g. --option num_players=3 --option deals=1,2)")


def _scalar(text: str) -> Any:
    """One value: bool, None, int, float or the text itself."""
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("none", "null"):
        return None
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def parse_option(text: str) -> tuple[str, Any]:
    """``"key=value"`` -> ``(key, value)``; ``ValueError`` naming the problem for bad input."""
    key, sep, value = text.partition("=")
    key = key.strip()
    if not sep or not key.isidentifier():
        raise ValueError(f"bad --option {text!r}: expected KEY=VALUE, e.g. num_players=3")
    value = value.strip()
    if value.startswith(("[", "{", '"')):
        try:
            return key, json.loads(value)
        except json.JSONDecodeError as e:
            raise ValueError(f"bad --option {text!r}: not valid JSON ({e})") from None
    if "," in value:
        items = [item.strip() for item in value.split(",")]
        if not all(items):
            raise ValueError(f"bad --option {text!r}: empty item in a comma-separated list")
        return key, [_scalar(item) for item in items]
    return key, _scalar(value)


def parse_env_options(items: list[str]) -> dict[str, Any]:
    """``["num_players=3", "deals=1,2"]`` -> ``{"num_players": 3, "deals": [1, 2]}``;
    ``ValueError`` for a malformed item or a key given twice."""
    options: dict[str, Any] = {}
    for text in items:
        key, value = parse_option(text)
        if key in options:
            raise ValueError(f"--option {key} given twice")
        options[key] = value
    return options


def checked_text(check) -> Any:
    """An argparse ``type`` that runs ``check(text)`` (which raises ``ValueError``) early, as a usage
    error naming the problem, and keeps the text."""
    def argument(text: str) -> str:
        try:
            check(text)
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e)) from None
        return text
    return argument


option_argument = checked_text(parse_option)
"""argparse ``type`` for ``--option``: its syntax is checked early, the text kept."""


def add_option_argument(parser: argparse.ArgumentParser, dest: str = "option") -> None:
    """``--option KEY=VALUE`` (repeatable; ``--opt`` is a hidden alias) as a list of texts in ``dest``;
    turn it into keyword options with :func:`parse_env_options`."""
    parser.add_argument("--option", dest=dest, action="append", default=[], type=option_argument,
                        metavar="KEY=VALUE", help=OPTION_HELP + " (default: none, the game's defaults)")
    parser.add_argument("--opt", dest=dest, action="append", type=option_argument, help=argparse.SUPPRESS)
