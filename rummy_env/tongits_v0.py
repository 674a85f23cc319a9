"""Tongits as a PettingZoo AEC environment (``docs/rules/tongits.md``, TG-1..TG-38).

Three seats ``player_0..player_2``. One episode is a match of ``hands_per_match`` hands (TG-35);
each next hand is dealt automatically by the previous hand's winner (TG-38), so the agent to act
after a hand ends is the new dealer, opening in the meld phase (TG-5).

Actions (``Discrete(1283)``; ``env.unwrapped.action_to_text`` / ``text_to_action``):

=============  =========================================================================
ids            text
=============  =========================================================================
0              ``draw stock`` (draw phase, TG-6)
1              ``take discard`` (draw phase, TG-7; then the pickup phase)
2              ``call draw`` (draw phase, exposed and not blocked, TG-18, TG-16)
3              ``challenge`` (response phase, TG-20)
4              ``fold`` (response phase, TG-20: both other seats answer in turn from the
               caller's left; for one that is not qualified ``fold`` is the only legal answer)
5 + c          ``discard <card c>`` (meld phase, TG-8), ``c = 13*suit + rank - 1``
57 + i         ``meld <cards>``: catalogue meld i of ``melds.standard_catalogue(False)``
               (65 sets, then 66 runs per suit; TG-10..TG-12)
386 + r - 1    ``secret`` of the four cards of rank r (TG-13)
399 + 17c + k  ``layoff <card c> @k`` (TG-14, TG-15)
=============  =========================================================================

Observation (``float32[1319]``), **seat-relative**: "rel seats" are listed in the order own
seat, the next seat (left, plays next), the seat after that. Counts and chips are raw numbers
(not scaled). Ranges: ``{0,1}`` binary, ``a..b`` integers (``inf``: no bound);
``env.unwrapped.observation_layout()`` gives the same list as named parts (each row names its
part), and ``tests/test_observation_ranges.py`` checks this list and random play against it.
Offsets:

- ``[0:52)`` ``{0,1}`` hand: own hand (card ids ``c = 13*suit + rank - 1``).
- ``[52:104)`` ``{0,1}`` taken: the card this seat took from the discard pile this turn (TG-7; with
  ``discard_take_must_meld=False`` it may not be discarded this turn).
- ``[104:208)`` ``{0,1}`` known: cards publicly known to be in the hand of rel seat 1, then rel seat 2
  (taken from the discard pile and not yet played).
- ``[208:293)`` ``{0,1}`` meld_info: per meld number k (0..16, TG-14), 5 values at ``208 + 5k``: present,
  owner rel seat (one-hot, 3), face-down secret.
- ``[293:345)`` ``{0,1}`` pile: cards in the discard pile.
- ``[345:397)`` ``{0,1}`` top: the top discard (one-hot).
- ``[397:1281)`` ``{0,1}`` meld_cards: meld k's cards at ``397 + 52k + c``. A face-down secret shows its
  cards only to its owner; for the other seats its row is empty until the hand ends (TG-13,
  TG-29).
- ``[1281:1284)`` ``0..14`` hand_sizes: hand sizes, one per rel seat (the next four rows too).
- ``[1284:1287)`` ``0..17`` faceup_melds: face-up melds owned.
- ``[1287:1290)`` ``0..3`` secrets: face-down secrets owned.
- ``[1290:1293)`` ``-inf..inf`` chips: chip totals (negative once a seat has paid more than it won).
- ``[1293:1311)`` ``{0,1}`` seat_flags: six blocks of 3: blocked (TG-16), dealer (one-hot), seat whose
  turn it is (one-hot; the caller during responses, when the seat to answer is the first
  after the caller that has not answered), Draw caller (one-hot, response phase
  only), answered ``challenge``, answered ``fold`` (TG-20).
- ``[1311:1315)`` ``{0,1}`` phase: phase one-hot: draw, pickup, meld, response (all 0 once the match
  is over).
- ``[1315]`` ``0..15`` stock:stock size.
- ``[1316]`` ``0..inf`` hand_index:hand index (0-based, below ``hands_per_match``).
- ``[1317]`` ``1..inf`` hands_per_match:hands per match.
- ``[1318]`` ``0..inf`` turns:completed turns in this hand (the 100-turn cap of
  ``discard_take_must_meld=False``).

Rewards: ``reward_mode="chips"`` (default): when a hand ends, each seat's chip change
(TG-31..TG-34), else 0. ``"win_loss"``: at the match end +1 to the single chip leader, 0 to
leaders sharing the lead, -1 to the others (TG-36); 0 before.

Options (keyword arguments): ``discard_take_must_meld=True``, ``count_hand_melds=True``,
``require_meld_to_contest=True``, ``hands_per_match=3``, ``chip_mode="bank"`` (or ``"pay"``),
``reward_mode``, ``illegal_action_penalty=False``, ``render_mode``.

``env.unwrapped.view(agent)`` gives the structured view (base.py keys plus ``dealer``,
``blocked``, ``exposed``, ``secrets``, ``caller``, ``responses``, ``known_cards``,
``last_hand`` with the revealed hands of the previous hand, TG-29).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .base import CardGameEnv, wrap
from .games.tongits import NUM_ACTIONS, Options, TongitsGame, observation_layout
from .layout import ObservationLayout


class raw_env(CardGameEnv):
    metadata = {"name": "tongits_v0", "render_modes": ["ansi", "human", "rgb_array"],
                "is_parallelizable": False, "render_fps": 1}
    options_class = Options
    reward_modes = ("chips", "win_loss")

    def observation_layout(self) -> ObservationLayout:
        """The observation's named parts (the list above; ``layout.split(obs)`` names them)."""
        return observation_layout(self.options)

    def _sizes(self) -> tuple[int, int]:
        return observation_layout(self.options).size, NUM_ACTIONS

    def _new_game(self, rng: np.random.Generator, deal: dict | None) -> TongitsGame:
        return TongitsGame.new(self.options, rng, deal)

    clipped_parts = ("chips", "turns")

    def _range_caps(self) -> dict[str, tuple[float, float]]:
        """Chip totals are capped at +-50 per hand of the match and completed turns at 100 (the
        turn cap of ``discard_take_must_meld=False``), both clipped; the hand index is at most
        ``hands_per_match`` (the value once the match is over), and hands per match, a constant, lies
        in [1, max(hands_per_match, 2)] so that no entry has a zero-width range."""
        hands = self.options.hands_per_match
        return {"chips": (-50.0 * hands, 50.0 * hands), "hand_index": (0.0, hands),
                "hands_per_match": (1.0, max(hands, 2.0)), "turns": (0.0, 100.0)}


def env(**kwargs: Any):
    return wrap(raw_env(**kwargs))
