"""I Doubt It (Cheat, Bluff) rules engine (``docs/rules/i_doubt_it.md``, DI-1..DI-29).

Plain Python + numpy; ``rummy_env.i_doubt_it_v0`` wraps it as an environment. Suits never matter
(DI-5), so a hand is 13 rank counts; the game also keeps each hand's 52 card counts, because a
doubt reveals the real cards (DI-20) and two decks hold two copies of a card (DI-1).

| Module | What it holds |
|---|---|
| ``options.py`` | ``Options`` (DI-1, DI-8, DI-13, DI-16, DI-22..DI-28), the phases, reading a scenario ``deal`` (``read_deal``, DI-1..DI-4, DI-27) |
| ``actions.py`` | the action catalogue: ``doubt``, ``pass``, every rank multiset of 1..``max_cards_per_play`` cards, ``misclaim`` (``PlayTable``, ``play_table``; DI-8, DI-11, DI-13) |
| ``moves.py`` | the legal mask (``PlayMasks``: per-rank bit sets and the per-hand cache; DI-6..DI-8, DI-13, DI-19) |
| ``game.py`` | ``IDoubtItGame``: dealing, ``step``, plays, doubt windows and reveals, going out, the end and rewards (DI-9..DI-29), illegal-action reasons |
| ``observation.py`` | ``observation_layout`` (named parts), the absolute state vector and each seat's gather of it |
| ``view.py`` | the structured per-seat view, the event texts (claims said as at the table, DI-9) and the words the render back ends show (pile, claim, rank due next) |
| ``determinize.py`` | ``clone`` and ``determinize``: the re-deal keeping what a seat knows (DI-20, DI-21) |
| ``serialisation.py`` | ``to_dict`` / ``from_dict`` and pickling |
"""
from .actions import DOUBT, FIRST_PLAY, PASS, PlayTable, num_plays, play_table
from .game import IDoubtItGame
from .observation import OBSERVATION_LAYOUTS, observation_layout, observation_size
from .options import DEAL_KEYS, PHASES, REWARD_MODES, Options

__all__ = ["DEAL_KEYS", "DOUBT", "FIRST_PLAY", "OBSERVATION_LAYOUTS", "PASS", "PHASES", "REWARD_MODES", "IDoubtItGame",
           "Options", "PlayTable", "num_plays", "observation_layout", "observation_size", "play_table"]
