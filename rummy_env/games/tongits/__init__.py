"""Tongits rules engine (``docs/rules/tongits.md``, rules TG-1..TG-38).

Plain Python + numpy. One match of ``hands_per_match`` hands is one episode (TG-35); the next
hand is dealt automatically by the previous winner (TG-38). Phases: ``draw`` (TG-6), ``pickup``
(TG-7), ``meld`` (TG-8), ``response`` (TG-20). One representation of a hand: a 52-bit ``int``
mask (``c = 13 * suit + rank - 1``).

Where to find what:

====================  ==========================================================================
module                contents
====================  ==========================================================================
``options.py``        :class:`Options` (TG-7, TG-20, TG-26, TG-30, TG-31, TG-35), the phases,
                      the turn cap (TG-25) and the scenario set-up from a ``deal``
                      (``set_up_deal``, keys ``DEAL_KEYS``)
``tables.py``         the meld catalogue, rank masks, the pairs that meld with a card (TG-7)
                      and the memoised least-deadwood search (TG-30)
``actions.py``        ``ACTIONS`` (the 1283 actions on ``rummy_env.actions`` segments, their ids
                      listed there) and the starts ``A_DRAW`` .. ``LAYOFF0``
``moves.py``          the legal mask (TG-6..TG-8, TG-10..TG-20), the set and run ids it is built
                      from, lay-off masks (TG-15)
``game.py``           :class:`TongitsGame`: dealing, ``step`` and the turn flow, the Draw call
                      and its showdown (TG-18..TG-23), hand end and chips (TG-24..TG-35),
                      illegal-action reasons
``observation.py``    ``OBSERVATION_LAYOUT`` (documented in ``tongits_v0``), the offsets into it
                      and the per-seat arrays the engine keeps it in
``view.py``           the structured view of a seat (TG-13, TG-29) and its event and result texts
``determinize.py``    ``clone`` and ``determinize`` (the re-deal keeping what a seat knows)
``serialisation.py``  ``to_dict`` / ``from_dict`` and pickling
====================  ==========================================================================
"""
from .actions import (A_CALL, A_CHALLENGE, A_DRAW, A_FOLD, A_TAKE, ACTION_TEXT, ACTIONS, DISCARD0, LAYOFF0, MAX_MELDS,
                      MELD0, NUM_ACTIONS, SECRET0)
from .game import TongitsGame
from .observation import OBS_SIZE, OBSERVATION_LAYOUT, observation_layout
from .options import DEAL_KEYS, DRAW, MELD, NUM_PLAYERS, PHASES, PICKUP, RESPONSE, TURN_CAP, Options
from .tables import least_deadwood

__all__ = ["ACTIONS", "ACTION_TEXT", "A_CALL", "A_CHALLENGE", "A_DRAW", "A_FOLD", "A_TAKE", "DEAL_KEYS", "DISCARD0",
           "DRAW", "LAYOFF0", "MAX_MELDS", "MELD", "MELD0", "NUM_ACTIONS", "NUM_PLAYERS", "OBSERVATION_LAYOUT",
           "OBS_SIZE", "Options", "PHASES", "PICKUP", "RESPONSE", "SECRET0", "TURN_CAP", "TongitsGame",
           "least_deadwood", "observation_layout"]
