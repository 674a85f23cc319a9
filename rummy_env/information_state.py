"""One seat's information state at one decision: all that a search may read of a game (the model is
OpenSpiel's information state and its resampling of histories).

:class:`InformationState` exposes the seat's observation, action mask, view and legal action texts,
the action catalogue's text conversions, the rules (``options``, ``num_seats``) and
:meth:`InformationState.determinize`: a full game copy consistent with what the seat knows (the
engine's ``determinize``: everything the seat cannot see dealt again). The game itself sits in a
private slot, which no agent reads (tests/test_layering.py forbids reaching another object's
private names in ``agents/``), so an agent given this object decides from the seat's information
alone. ``raw_env.information_state(agent)`` builds it for the seat of an environment;
``InformationState(game, seat, options)`` for a tool that holds an engine and the options it was
built with (e.g. a copy with other options).
"""
from __future__ import annotations

import numpy as np


class InformationState:
    """What ``seat`` may know of ``game`` (an engine built with the rules ``options``) now (module
    docstring); ``ValueError`` for a seat that is not one of the game's."""

    __slots__ = ("_game", "seat", "options")

    def __init__(self, game, seat: int, options) -> None:
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < game.num_players:
            raise ValueError(f"no seat {seat!r}: the seats are 0..{game.num_players - 1}")
        self._game = game
        self.seat = int(seat)
        self.options = options
        """The rules the game is played by (the env's options dataclass): public, as the rules are."""

    @property
    def num_seats(self) -> int:
        """The number of seats at the table."""
        return self._game.num_players

    def observation(self) -> np.ndarray:
        """The seat's observation vector (the engine's, before any env clipping)."""
        return self._game.observation(self.seat)

    def action_mask(self) -> np.ndarray:
        """The seat's legal actions (int8, a copy): all zeros when it is not to act or the game is over."""
        game = self._game
        if game.done or game.current_player != self.seat:
            return np.zeros(game.num_actions, dtype=np.int8)
        return game.legal_mask().copy()

    def view(self) -> dict:
        """The seat's structured view (``Game.view``: hand, table, events, legal action texts)."""
        return self._game.view(self.seat)

    def legal_actions(self) -> list[str]:
        """The texts of the legal actions, aligned with ``np.flatnonzero(action_mask())``."""
        return [self._game.action_to_text(int(a)) for a in np.flatnonzero(self.action_mask())]

    def action_to_text(self, action: int) -> str:
        """The action catalogue's text of an action id (the same in every state of the game)."""
        return self._game.action_to_text(action)

    def text_to_action(self, text: str) -> int:
        """The action catalogue's id of an action text; ``ValueError`` for a text that is no action."""
        return self._game.text_to_action(text)

    def determinize(self, seed, **options):
        """A full game copy in which everything the seat cannot see is dealt again uniformly among
        the deals consistent with what it has seen (the engine's ``determinize``, with its keyword
        ``options``, e.g. I Doubt It's ``truthful_claim``). ``seed``: an int or a numpy
        ``Generator`` (a search passes its own, so each call gives a new world); the same int gives
        the same world."""
        return self._game.determinize(self.seat, np.random.default_rng(seed), **options)
