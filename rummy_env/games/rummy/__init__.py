"""Rummy (basic "Rum") rules engine (``docs/rules/rummy.md``, rules RM-1..RM-32).

Plain Python + numpy. :class:`RummyGame` holds one match (an episode, RM-29) and implements the
``Game`` protocol of :mod:`rummy_env.base`; :class:`Options` holds the rules options. One
representation of a hand: a 52-bit ``int`` mask (``c = 13 * suit + rank - 1``).

Where to find what:

====================  ==========================================================================
module                contents
====================  ==========================================================================
``options.py``        :class:`Options` (RM-3, RM-12, RM-20, RM-22, RM-24, RM-26, RM-28), hand
                      size ``HAND_SIZE`` (RM-3), the phases of a turn (RM-6, RM-7) and the
                      scenario set-up from a ``deal`` (``set_up_deal``, keys ``DEAL_KEYS``)
``tables.py``         the meld catalogue of the action layout and its lookups: per-rank set
                      ids, per-suit run ids (cached by suit pattern), lay-off masks (RM-10..RM-15)
``actions.py``        ``ACTIONS`` (the 1307 actions on ``rummy_env.actions`` segments) and the
                      starts ``DRAW_STOCK`` .. ``LAYOFF0``
``moves.py``          the legal mask (RM-6, RM-7, RM-10..RM-20), built once per state
``game.py``           :class:`RummyGame`: dealing (RM-2..RM-5), ``step`` and the moves, turnovers
                      (RM-24), round and match end (RM-19..RM-31), illegal-action reasons
``observation.py``    :func:`observation_layout` (documented in ``rummy_v0``), the engine's
                      absolute buffer (:class:`~.observation.BufferLayout`) and its per-seat gather
``view.py``           the structured view of a seat (RM-32) and its event texts
``determinize.py``    ``clone`` and ``determinize`` (the re-deal keeping what a seat knows, RM-32)
``serialisation.py``  ``to_dict`` / ``from_dict`` and pickling
====================  ==========================================================================

Speed: the legal mask is built once per state from the precomputed tables and cached; the
observation is kept in an absolute float32 buffer updated incrementally by every move and
returned seat-relative by one precomputed gather.
"""
from .actions import (ACTION_TEXT, ACTIONS, DISCARD0, DRAW_STOCK, LAYOFF0, MELD0, NUM_ACTIONS, NUM_MELD_SLOTS,
                      TAKE_DISCARD)
from .game import RummyGame
from .observation import observation_layout
from .options import DEAL_KEYS, HAND_SIZE, REWARD_MODES, Options

__all__ = ["ACTIONS", "ACTION_TEXT", "DEAL_KEYS", "DISCARD0", "DRAW_STOCK", "HAND_SIZE", "LAYOFF0", "MELD0",
           "NUM_ACTIONS", "NUM_MELD_SLOTS", "REWARD_MODES", "TAKE_DISCARD", "Options", "RummyGame",
           "observation_layout"]
