"""Rummy (basic "Rum") as a PettingZoo AEC environment: ``docs/rules/rummy.md``, RM-1..RM-32.

``env(**options)`` (with PettingZoo's order-enforcing wrapper) or ``raw_env(**options)``.
Agents ``player_0 .. player_{n-1}``; only the seat to act has a non-zero action mask.

Options (keyword arguments, rummy.md "Options"; a bad value raises ``ValueError`` naming it):
``num_players`` 2..6 (2; fixes the hand size k = 10, 7, 7, 6, 6, RM-3), ``ace_high`` (False;
RM-12, RM-22), ``must_discard_to_go_out`` (False; RM-20), ``target_score`` (150, 0 = none;
RM-28), ``max_rounds`` (100; RM-28, RM-29), ``max_turnovers`` (3; RM-26a), ``max_turns`` (300;
RM-26b), ``shuffle_turnover`` (False; RM-24), ``reward_mode`` (``"points"``, ``"zero_sum"``,
``"win_loss"``), plus the common ``render_mode`` and ``illegal_action_penalty``.

An episode is one match (RM-29): rounds are dealt by the environment until a total reaches
``target_score`` (terminations) or ``max_rounds`` rounds are played (terminations when
``target_score = 0``, else truncations, RM-30).

Actions (1307 ids, rummy.md "Action ids"; ``action_to_text`` / ``text_to_action``):

- 0 ``draw stock``, 1 ``take discard`` (draw phase, RM-6);
- 2 + c ``discard C`` (c = 13 * suit + rank - 1, suits C D H S; RM-7, RM-17);
- 54 + m ``meld ...``, m = 0..368 indexes ``melds.standard_catalogue(ace_high=True)``: 65 sets,
  then per suit 66 ace-low runs and 10 ace-high runs (RM-10..RM-12);
- 423 + 17 * c + k ``layoff C @k`` (RM-14), k = 0..16 the meld's table index (RM-13).

Observation (float32, length ``1098 + 124 * n``; seat-relative: relative seat j is absolute
seat ``(me + j) % n``, so 0 is "me"; every card block is 52 entries in card-id order). Ranges:
``{0,1}`` binary, ``[a, b]`` reals (``inf``: no bound). ``env.unwrapped.observation_layout()`` gives
this table as named parts (each row starts with its part's name), and
``tests/test_observation_ranges.py`` checks the table and random play against it:

============  ========  ============  ========================================================
offset        size      range         content
============  ========  ============  ========================================================
0             52        ``{0,1}``     hand: my hand
52            52        ``{0,1}``     pile: discard pile contents (every card in it, RM-32)
104           52        ``{0,1}``     top: discard pile top card (one-hot; all 0 if the pile
                                      is empty)
156           52        ``{0,1}``     taken: the card the seat to act took from the discard
                                      pile this turn (RM-17; public: every seat sees it, the
                                      taker included)
208           17 * 52   ``{0,1}``     melds: table melds @0..@16: the cards of meld @k at
                                      208 + 52k
1092          17 * n    ``{0,1}``     owner: owner of meld @k, one-hot over relative seats, at
                                      1092 + n*k
1092 + 17n    n * 52    ``{0,1}``     front: table cards in front of each relative seat (its
                                      melds and lay-offs, RM-16); all 0 = it may still go rummy
1092 + 69n    n * 52    ``{0,1}``     known: cards each relative seat is publicly known to hold
                                      (taken from the discard pile, not yet played, RM-32)
1092 + 121n   n         ``[0, 1.2]``  hand_sizes: hand sizes / k (k + 1 cards after a draw)
1092 + 122n   n         ``[0, inf]``  scores: match totals / target_score (/ 100 if target is
                                      0); above 1 once a total passes the target
1092 + 123n   2         ``{0,1}``     phase: phase one-hot: draw, play (all 0 once the match
                                      is over)
1094 + 123n   n         ``{0,1}``     dealer: dealer, one-hot over relative seats
1094 + 124n   4         ``[0, 1]``    progress: stock size / 52, turnovers / max(1,
                                      max_turnovers), completed turns / max_turns, rounds
                                      played / max_rounds
============  ========  ============  ========================================================

Nothing else about other hands or the stock order is included (RM-32).

Rewards (on the step that ends a round or the match, else 0; rummy.md "Rewards"):
``"points"`` the round's scorer gets its score (RM-21..RM-23); ``"zero_sum"`` the scorer gets
its score and every other seat minus its own hand's value (doubled for rummy); ``"win_loss"``
+1 to the sole winner and -1 to the others at the match end (0 to each of several tied
winners, -1 to the rest).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .base import CardGameEnv, wrap
from .games.rummy import NUM_ACTIONS, REWARD_MODES, Options, RummyGame, observation_layout
from .layout import ObservationLayout

__all__ = ["env", "raw_env", "Options", "RummyGame"]



class raw_env(CardGameEnv):
    """Rummy AEC environment (see the module docstring)."""

    metadata = {"name": "rummy_v0", "render_modes": ["ansi", "human", "rgb_array"], "is_parallelizable": False,
                "render_fps": 1}
    options_class = Options
    reward_modes = REWARD_MODES

    def observation_layout(self) -> ObservationLayout:
        """The observation's named parts (the table above; ``layout.split(obs)`` names them)."""
        return observation_layout(self.options)

    def _sizes(self) -> tuple[int, int]:
        return observation_layout(self.options).size, NUM_ACTIONS

    def _new_game(self, rng: np.random.Generator, deal: dict | None) -> RummyGame:
        return RummyGame.new(self.options, rng, deal)

    clipped_parts = ("scores",)

    def _range_caps(self) -> dict[str, tuple[float, float]]:
        """Scores are capped at 10 (ten times the target, or 1,000 points with no target) and clipped."""
        return {"scores": (0.0, 10.0)}


def env(**kwargs: Any):
    """The wrapped environment (PettingZoo classic's ``env()``)."""
    return wrap(raw_env(**kwargs))
