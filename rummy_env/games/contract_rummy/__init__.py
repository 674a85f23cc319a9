"""Contract Rummy rules engine (``docs/rules/contract_rummy.md``, rules CR-1..CR-34).

Plain Python + numpy. One explicit state class, :class:`ContractRummyGame`, and the validated
:class:`Options`. Hands are count arrays of length 53 (index 52 = jokers; 1-3 decks). A meld on
the table is a list of pieces (natural ``c`` or ``52 + c`` = ``JK=<card>``) with its
:class:`rummy_env.melds.Meld` shape. A whole match (every deal of ``deals``) is one episode.

Where to find what:

=====================  =========================================================================
module                 contents
=====================  =========================================================================
``options.py``         :class:`Options`, ``CONTRACTS`` (CR-7), the phases of a turn, the pack
                       (CR-2) and the scenario set-up from ``options["deal"]`` (``set_up_deal``)
``actions.py``         the action catalogue (:func:`action_catalogue`, ``rummy_env.actions``
                       segments; CR-10 .. CR-27) and the ``discard`` ids by rank mask
``tables.py``          the meld catalogue of (jokers, ``min_run_length``) with its lookup tables
                       and memos (:func:`catalogue`, CR-13, CR-14), per-suit rank-mask facts
``moves.py``           the legal-move search (CR-11, CR-12, CR-16, CR-17, CR-22 .. CR-28): melds
                       that keep the contract layable, deep takes, lay-offs, joker swaps; the
                       legal actions and mask
``game.py``            :class:`ContractRummyGame`: dealing (CR-4), ``step``, turn flow, scoring
                       (CR-29 .. CR-34), illegal-action reasons
``observation.py``     :func:`observation_layout` (the named slices) and each seat's buffer,
                       brought up to date slice by slice through memoryviews
``view.py``            the structured per-seat view (CR-6), its event texts and the game's
                       words that ``rummy_env.render`` shows (contract, who is down, duties)
``determinize.py``     ``clone`` and ``determinize`` (the re-deal for search, CR-6)
``serialisation.py``   ``to_dict`` / ``from_dict`` (pickling goes through them)
=====================  =========================================================================

A hand is one count list per seat (53 entries, index 52 = jokers): with 2-3 decks a card may be
held more than once, so the bitmasks of the other engines cannot hold it; the presence bitmask
and the float32 arrays the game keeps beside it are indexes of it for the search and the
observation, not another representation.

Speed: the legal mask is built in a ``bytearray``; each seat's observation is a buffer brought
up to date only where versions of its slices changed.
"""
from .actions import action_catalogue
from .game import PENALTY, ContractRummyGame
from .observation import TOP_CARDS, observation_layout
from .options import CONTRACTS, PHASES, Options, ml_pack
from .tables import MeldCatalogue, catalogue

__all__ = ["CONTRACTS", "PENALTY", "PHASES", "TOP_CARDS", "ContractRummyGame", "MeldCatalogue", "Options",
           "action_catalogue", "catalogue", "ml_pack", "observation_layout"]
