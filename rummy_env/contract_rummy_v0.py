"""Contract Rummy as a PettingZoo AEC environment (``docs/rules/contract_rummy.md``).

``env(**kwargs)`` (order-enforcing wrapper) and ``raw_env(**kwargs)``. The engine is
:class:`rummy_env.games.contract_rummy.ContractRummyGame`. A whole match (every deal of
``deals``, 7 by default) is one episode.

Options (keyword arguments, CR-2 .. CR-34): ``num_players`` 3..8 (4), ``num_decks`` 0 = auto
(CR-2) or 1..3, ``num_jokers`` -1 = auto or 0..2, ``deals`` (contracts 1..7 in order,
default ``(1, 2, 3, 4, 5, 6, 7)``), ``deal7_all_at_once`` (CR-17), ``deep_discard`` (CR-11),
``joker_swap`` (CR-22), ``contract_runs_distinct_suits`` (CR-9), ``min_run_length`` 3 or 4
(CR-14), ``max_turns_per_deal`` (CR-33, 300), ``reward_mode`` ``"points"`` (default) or
``"win_loss"``, plus ``render_mode`` and ``illegal_action_penalty``. A bad value raises
``ValueError`` naming the option.

Actions (N = pack size, M = 3 * num_players, C = catalogue size; 4,584 by default;
``env.action_space(agent).n`` gives the number for the options):

- ``0`` draw stock; ``K`` (1..N) take discard K (K = 1: the top card; K >= 2: the K-th card from
  the top and the K-1 above it, the K-th must be used this turn, CR-11, CR-12);
- ``N + 1 + c`` discard card c; ``N + 53`` discard JK (CR-25 .. CR-27);
- ``N + 54 + i`` meld catalogue entry i (CR-15, CR-16; catalogue in the rules file, sizes 2605 /
  9707 / 373 / 2413 for (jokers, min run) = (1, 3) / (2, 3) / (0, 3) / (1, 4));
- ``L + 104 k + p`` layoff piece p @k, L = N + 54 + C, p = c or 52 + c for ``JK=c`` (CR-18, CR-19);
- ``L + 104 M + 52 k + c`` swap natural c into run @k for its joker (CR-22, CR-23).

Text forms: ``draw stock``, ``take discard``, ``take discard 3``, ``meld 7H 8H JK=9H``,
``layoff TH @0``, ``layoff JK=4S @2``, ``swap 9H @1``, ``discard KS``, ``discard JK``
(``env.unwrapped.action_to_text`` / ``text_to_action``).

Observation (float32; seat-relative: "relative seat" r = (seat - me) mod n, r = 0 is me;
n = num_players, M = 3n, D = len(deals)); slices in order (length 1,691 by default). Ranges:
``{0,1}`` binary, ``a..b`` integers (``inf``: no bound), ``[a, b]`` reals.
``env.unwrapped.observation_layout()`` gives this table as named parts with their offsets and
shapes, and ``tests/test_observation_ranges.py`` checks the table and random play against it:

=============  ===========  ============  ========================================================
slice          length       range         content
=============  ===========  ============  ========================================================
hand           53           ``0..6``      my card counts (index c = 13*suit + rank-1, 52 = jokers;
                                          up to num_decks copies, 2 jokers per deck)
pile_counts    53           ``0..6``      counts of every card in the discard pile (public, CR-6)
pile_top       8 x 53       ``{0,1}``     one-hot of the pile's top 8 cards, top first (deep
                                          takes)
table_cards    53           ``0..6``      counts of pieces on the table (natural cards; 52 =
                                          jokers)
table_jokers   52           ``0..3``      per card: how many swappable jokers (in runs) stand for
                                          it (CR-22)
melds          M x (54 + n)  ``[0, 6]``    per meld slot @k: present, is set, is run, rank one-hot
                                          13 (sets), suit one-hot 4 (runs), lo one-hot 14, hi one-
                                          hot 14 (run positions 1..14), suits present 4 (sets,
                                          dead jokers' suits included, CR-24), all {0,1}; jokers
                                          in it (a count, 0..6); size / 14 (in [0, 1]); owner
                                          (relative seat one-hot n)
picked_up      n x 53       ``0..6``      per relative seat, per card (52 = jokers): how many of
                                          that card the seat is publicly known to hold. It rises
                                          by one for each card the seat takes from the pile
                                          (CR-11, CR-12, deep takes included) and, at index 52,
                                          for each joker it frees with ``swap`` (CR-22, CR-23); it
                                          falls by one (not below 0) whenever the seat discards,
                                          melds or lays off a card of that identity (any joker for
                                          index 52); it restarts at 0 every deal
must_use       53           ``{0,1}``     one-hot of the must-use card (CR-12)
banned         53           ``{0,1}``     one-hot of the banned text (CR-26)
deal_index     D            ``{0,1}``     one-hot of the deal being played
contract       7            ``{0,1}``     one-hot of its contract 1..7 (CR-7)
phase          4            ``{0,1}``     draw, contract, place, play (all 0 once the match is
                                          over)
pile_size      1            ``0..inf``    cards in the pile
stock_size     1            ``0..inf``    cards in the stock
down           n            ``{0,1}``     seat is down (relative seats)
hand_sizes     n            ``0..inf``    cards in each hand
scores         n            ``[0, 50]``   penalty totals / 100, at most 50 (5,000 points; CR-31)
dealer         n            ``{0,1}``     dealer one-hot (relative)
contract_laid  2            ``0..3``      sets and runs of the contract laid this turn (CR-15)
flags          3            ``{0,1}``     freed joker in hand (CR-23), went down this turn
                                          (CR-22), my turn
turns          1            ``[0, 1]``    turns completed this deal / max_turns_per_deal (CR-33)
=============  ===========  ============  ========================================================

Rewards (CR-30, CR-31): ``"points"``: on the step that ends a deal every seat gets minus its
penalty points for that deal (0 for the seat that went out); the return is minus the match
total. ``"win_loss"``: 0 except at the match end: the sole lowest total +1, every other seat -1;
a shared lowest total gives those seats 0. Every agent terminates after the last deal.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .base import CardGameEnv, wrap
from .games.contract_rummy import ContractRummyGame, Options, action_catalogue, observation_layout
from .layout import ObservationLayout


class raw_env(CardGameEnv):
    metadata = {"name": "contract_rummy_v0", "render_modes": ["ansi", "human", "rgb_array"],
                "is_parallelizable": False, "render_fps": 1}
    options_class = Options
    reward_modes = ("points", "win_loss")

    def observation_layout(self) -> ObservationLayout:
        """The observation's named parts (the table above; ``layout.split(obs)`` names them)."""
        return observation_layout(self.options)

    def _sizes(self) -> tuple[int, int]:
        return observation_layout(self.options).size, action_catalogue(self.options).size

    def _new_game(self, rng: np.random.Generator, deal: dict | None) -> ContractRummyGame:
        return ContractRummyGame.new(self.options, rng, deal)

    def _range_caps(self) -> dict[str, tuple[float, float]]:
        """Card counts are at most the pack (the game caps penalty totals at 50 itself)."""
        pack = float(self.options.pack_size)
        return {"pile_size": (0.0, pack), "stock_size": (0.0, pack), "hand_sizes": (0.0, pack)}


def env(**kwargs: Any):
    return wrap(raw_env(**kwargs))
