"""The five games by name, so tools (tournaments, training, the terminal player) can take a game name."""
from __future__ import annotations

import importlib
from types import ModuleType

GAMES = {
    "rummy": "rummy_env.rummy_v0",
    "tongits": "rummy_env.tongits_v0",
    "i_doubt_it": "rummy_env.i_doubt_it_v0",
    "contract_rummy": "rummy_env.contract_rummy_v0",
    "ginny_o": "rummy_env.ginny_o_v0",
}


def game_key(name: str) -> str:
    """``"rummy"`` for ``"rummy"`` or ``"rummy_v0"``; ``ValueError`` for an unknown game."""
    key = name[:-3] if name.endswith("_v0") else name
    if key not in GAMES:
        raise ValueError(f"unknown game {name!r}: choose one of {', '.join(GAMES)}")
    return key


def game_module(name: str) -> ModuleType:
    """The ``<game>_v0`` module of a game name (``"rummy"`` or ``"rummy_v0"``)."""
    return importlib.import_module(GAMES[game_key(name)])


def make_env(name: str, **options):
    """``<game>_v0.env(**options)`` for a game name."""
    return game_module(name).env(**options)


def make_raw_env(name: str, **options):
    """``<game>_v0.raw_env(**options)`` for a game name."""
    return game_module(name).raw_env(**options)
