"""I Doubt It (Cheat, Bluff) as a PettingZoo AEC environment: ``i_doubt_it_v0``.

Rules: ``docs/rules/i_doubt_it.md`` (DI-1..DI-29); engine: ``rummy_env/games/i_doubt_it/``.

Agents ``player_0 .. player_{n-1}``. Each turn one seat acts (``agent_selection``):

- **play** phase (DI-6..DI-11): the seat to play puts down 1..``max_cards_per_play`` cards;
  the action names their ranks (``play 7 7 K``) and the environment claims that many cards of
  the required rank (DI-11, DI-14). Passing is not allowed (DI-7).
- **doubt** phase (DI-17..DI-19): the other seats still in the game, clockwise from the
  player's left, are asked one at a time: ``doubt`` or ``pass``. The first ``doubt`` ends the
  window; reveals and pickups (DI-20), the automatic doubt of a final play (DI-22), going out
  (DI-24..DI-26) are done by the environment.

Actions (``Discrete``): 0 ``doubt``, 1 ``pass``, then every rank multiset of 1..m cards
(m = ``max_cards_per_play``) by size then lexicographically by rank index (A=0..K=12):
2 ``play A`` .. 14 ``play K``, 15 ``play A A``, 16 ``play A 2`` ...; ``misclaim`` last with
``wrong_rank_claims`` (DI-13). 2,381 actions by default, 203,491 with m = 8.
``env.unwrapped.action_to_text(a)`` / ``text_to_action(s)`` convert (ranks in any order,
``10`` for ``T``).

Observation ``{"observation": float32[74 + 29 n], "action_mask": int8[num_actions]}``.
Seat-relative: in every n-long block, index i is the seat ``(me + i) % n`` (0 = me). Counts are
raw (not scaled). Ranges: ``{0,1}`` binary, ``a..b`` integers (``inf``: no bound);
``env.unwrapped.observation_layout()`` gives this table as named parts (each row starts with its
part's name), and ``tests/test_observation_ranges.py`` checks the table and random play against it.
Offsets:

==========  ======  ==========  ============================================================
offset      length  range       content
==========  ======  ==========  ============================================================
0           13      ``0..inf``  hand: my hand, cards per rank (A, 2, ..., K; up to 4 per deck)
13          13      ``0..inf``  own_pile: my cards in the current pile, per rank (I put them
                                there)
26          13      ``{0,1}``   rank: required rank of the next play, one-hot (DI-14)
39          1       ``0..inf``  pile_size: pile size (face-down cards)
40          3       ``{0,1}``   phase: phase one-hot: play, doubt, over
43          1       ``0..inf``  plays: plays made so far (DI-28; up to ``max_plays``)
44          1       ``0..inf``  plays_left: plays left before the cap ``max_plays``
45          1       ``0..8``    claim_count: pending claim, number of cards (0 outside a
                                doubt window; up to ``max_cards_per_play``)
46          13      ``{0,1}``   claim_rank: pending claim's rank, one-hot (zeros outside a
                                window)
59          13      ``0..8``    revealed: last revealed play, cards per rank (DI-20; kept
                                until the next reveal)
72          1       ``{0,1}``   revealed_true: last revealed play was true
73          1       ``{0,1}``   revealed_false: last revealed play was false
74          n       ``0..inf``  hand_sizes: hand size of each seat
74 + n      n       ``{0,1}``   out: seat is out (DI-24..DI-26)
74 + 2n     n       ``0..11``   place: place (1 = first; 0 while unplaced; shared places:
                                best place)
74 + 3n     n       ``{0,1}``   to_act: seat to act (one-hot; zeros once over)
74 + 4n     n       ``{0,1}``   pending: seat whose play is pending in the window (one-hot)
74 + 5n     n       ``{0,1}``   passed: seat has passed in the current window
74 + 6n     n       ``{0,1}``   revealed_player: player of the last revealed play (one-hot)
74 + 7n     n       ``{0,1}``   revealed_taker: seat that took the pile after the last
                                reveal (one-hot)
74 + 8n     n       ``0..inf``  unknown_cards: cards of the seat not publicly known (hand
                                size - known)
74 + 9n     n       ``0..inf``  plays_made: plays made by the seat (``misclaim`` included)
74 + 10n    n       ``0..inf``  cards_played: cards the seat has played
74 + 11n    n       ``0..inf``  doubts: doubts the seat has called
74 + 12n    n       ``0..inf``  passes: passes the seat has made in windows
74 + 13n    n       ``0..inf``  pickups: piles the seat has taken
74 + 14n    n       ``0..inf``  cards_picked_up: cards the seat has taken with piles
74 + 15n    n       ``0..inf``  caught_lying: plays of the seat revealed false
74 + 16n    13 n    ``0..inf``  known: per seat, per rank, cards the seat is publicly known
                                to hold
==========  ======  ==========  ============================================================

"Publicly known" is a lower bound computed from public events only: revealed cards go to the
seat that takes the pile; after a face-down play of k cards each count drops by k; after a
revealed play by the revealed cards. The observation never holds unrevealed pile cards of other
seats, nor another hand.

Rewards (at the end only): ``reward_mode="winner"`` (default): the first seat out +1, every
other -1 (all 0 if nobody went out before the cap); ``"rank"``: place p of n gives
1 - 2(p-1)/(n-1), shared places share the average (DI-29). A normal end sets ``terminations``,
the cap ``max_plays`` (DI-28) sets ``truncations``, for every agent.

Options (keyword arguments of ``env``/``raw_env``): ``num_players`` 3..11 (4),
``num_decks`` None/1/2 (None: 1 deck for 3-5 players, 2 for 6-11), ``max_cards_per_play``
1..4*decks (4), ``wrong_rank_claims`` (False), ``after_pickup`` "next"/"taker" ("next"),
``auto_doubt_last`` (True), ``play_to_end`` (False), ``reward_mode``, ``max_plays`` (1000),
plus the shared ``render_mode`` and ``illegal_action_penalty``.

Scenario set-up: ``reset(options={"deal": {"dealer", "hands", "discard", "rank", "to_play"}})``
(rules file, "Scenario set-up"). ``env.unwrapped.view(agent)`` gives the structured view
(``pile_size``, ``rank``, ``claim``, ``events``, ``known``, ``own_pile``, ``last_reveal``...).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .base import CardGameEnv, wrap
from .games.i_doubt_it import FIRST_PLAY, REWARD_MODES, IDoubtItGame, Options, num_plays, observation_layout
from .layout import ObservationLayout

__all__ = ["env", "raw_env", "Options"]


class raw_env(CardGameEnv):
    """I Doubt It, PettingZoo AEC (see the module docstring)."""

    metadata = {"name": "i_doubt_it_v0", "render_modes": ["ansi", "human", "rgb_array"],
                "is_parallelizable": False, "render_fps": 1}
    options_class = Options
    reward_modes = REWARD_MODES

    def observation_layout(self) -> ObservationLayout:
        """The observation's named parts (the table above; ``layout.split(obs)`` names them)."""
        return observation_layout(self.options)

    def _sizes(self) -> tuple[int, int]:
        o = self.options
        return (observation_layout(o).size,
                FIRST_PLAY + num_plays(o.max_cards_per_play) + (1 if o.wrong_rank_claims else 0))

    def _new_game(self, rng: np.random.Generator, deal: dict | None) -> IDoubtItGame:
        return IDoubtItGame.new(self.options, rng, deal)

    def _range_caps(self) -> dict[str, tuple[float, float]]:
        """Exact bounds from the options: 4 cards of a rank per deck, 52 cards per deck, at most
        ``max_plays`` plays (each with one window, so one doubt, pass or pickup per seat), at most
        ``max_cards_per_play`` cards a play; nothing is clipped."""
        o = self.options
        cards, plays = 52.0 * o.num_decks, float(o.max_plays)
        caps = dict.fromkeys(("hand", "own_pile", "known"), (0.0, 4.0 * o.num_decks))
        caps.update(dict.fromkeys(("pile_size", "hand_sizes", "unknown_cards"), (0.0, cards)))
        caps.update(dict.fromkeys(("plays", "plays_left", "plays_made", "doubts", "passes", "pickups",
                                   "caught_lying"), (0.0, plays)))
        caps.update(cards_played=(0.0, plays * o.max_cards_per_play), cards_picked_up=(0.0, plays * cards))
        return caps


def env(**kwargs: Any):
    """``raw_env`` behind PettingZoo's order-enforcing wrapper."""
    return wrap(raw_env(**kwargs))
