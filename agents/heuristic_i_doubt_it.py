"""A rule-based I Doubt It player (``docs/rules/i_doubt_it.md``) that decides from the public
view only.

Strategy (:class:`IDoubtItHeuristic`):

- **Play, truth first** (DI-9, DI-14): when the hand holds cards of the required rank, put all
  of them down (up to ``max_cards_per_play``) and nothing else; a final play (DI-22) is then
  true and wins.
- **Play, a bluff by card counting** when the hand holds none: put down a single card (a lie
  that is caught costs the pile, so risk one card only), of the rank this seat will have to
  claim last: its own future claims are the required rank minus 1*k, 2*k, ... steps for k
  seats in the game (DI-14, DI-16), so the rank whose first such turn is furthest away is the
  least useful (with 3..11 seats in the game every rank is due within 13 turns, so there is
  no tie).
  ``misclaim`` (DI-13) is never chosen.
- **Doubt** (DI-17..DI-20): count the copies of the claimed rank that cannot be in the play:
  its own hand, its own cards in the pile, and the cards every other seat (the player
  included: its known cards stayed in its hand) is publicly known to hold. If fewer copies
  remain than the claim, the claim is impossible: doubt. Otherwise estimate the chance the
  claim is true as the hypergeometric chance that the player's unknown cards before the play
  held at least that many of the remaining copies, all cards unknown to this seat being
  equally likely, and doubt when it is below a threshold: 0.3, raised to 0.5 when the
  player is close to going out (2 cards or fewer left) and lowered to 0.15 when the pile is
  large (10 cards or more; being wrong costs the pile). A final play in an ordinary window
  (DI-23) is always doubted: letting it pass loses the game.

Every input is in ``view`` (own hand, own pile cards, public known cards, hand and pile sizes,
pending claim, legal action texts), so the choice never depends on hidden cards. The agent is
deterministic.
"""
from __future__ import annotations

from collections import Counter
from math import comb

import numpy as np

from rummy_env.cards import RANKS

from .base import Agent

TRUTH_THRESHOLD = 0.3
CLOSE_THRESHOLD = 0.5
BIG_PILE_THRESHOLD = 0.15
BIG_PILE = 10
HAND_SCALE = 3.0
"""Cards of hand size that change the odds of going out first by a factor e in ``position_value``."""


def _rank_counts(card_texts) -> Counter:
    return Counter(t[0] for t in card_texts)


def prob_at_least(k: int, population: int, successes: int, draws: int) -> float:
    """P(X >= k) for X hypergeometric: ``draws`` cards from ``population`` holding ``successes``."""
    draws = max(0, min(draws, population))
    if k <= 0:
        return 1.0
    if successes < k or draws < k:
        return 0.0
    total = comb(population, draws)
    hit = sum(comb(successes, x) * comb(population - successes, draws - x)
              for x in range(k, min(successes, draws) + 1))
    return hit / total


def position_value(game, seat: int) -> float:
    """An estimate of ``seat``'s return under ``reward_mode="winner"`` (+1 first out, -1 the
    others; DI-24) from the public hand sizes alone: once a seat is out, +1 for it and -1 for the
    others; before, ``2 p - 1`` where ``p``, the chance to go out first, is the seat's share of
    ``exp(-hand size / HAND_SCALE)`` over all seats. Used by ``pimc value=cards`` at a rollout's
    cut-off."""
    if any(game.out):
        return 1.0 if game.out[seat] else -1.0
    weights = np.exp(-np.asarray(game.hand_size, dtype=float) / HAND_SCALE)
    return 2.0 * weights[seat] / weights.sum() - 1.0


class IDoubtItHeuristic(Agent):
    """Truth when possible, single-card bluffs by card counting, doubts by counting copies."""

    name = "heuristic"

    position_value = staticmethod(position_value)
    """The estimate a search's ``value=cards`` scores a cut-off rollout with (:mod:`.cutoff_value`)."""

    def __init__(self) -> None:
        self.reset(0, None)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, view: dict) -> int:
        legal = np.flatnonzero(action_mask)
        ids = dict(zip(view["legal_actions"], legal.tolist()))
        if view["phase"] == "doubt":
            return ids["doubt"] if self.should_doubt(view) else ids["pass"]
        return ids[self.choose_play(view, ids)]

    # -- play -------------------------------------------------------------------------------
    def choose_play(self, view: dict, ids: dict) -> str:
        """Text of the play to make (see the module docstring)."""
        held = _rank_counts(view["hand"])
        rank = view["rank"]
        for k in range(held[rank], 0, -1):
            text = "play " + " ".join([rank] * k)
            if text in ids:
                return text
        seats_in = sum(1 for out in view["out"] if not out)
        r0 = RANKS.index(rank)
        # the first of my future turns at which each rank will be due
        due = {}
        for j in range(1, 14):
            due.setdefault(RANKS[(r0 - j * seats_in) % 13], j)
        options = [r for r in RANKS if held[r] and f"play {r}" in ids]
        best = max(options, key=lambda r: due[r])
        return f"play {best}"

    # -- doubt ------------------------------------------------------------------------------
    def should_doubt(self, view: dict) -> bool:
        """True to doubt the pending claim (see the module docstring)."""
        claim = view["claim"]
        p, k, rank = claim["seat"], claim["count"], claim["rank"]
        sizes = view["hand_sizes"]
        if sizes[p] == 0:
            return True
        me = view["seat"]
        total = sum(sizes) + view["pile_size"]
        copies = 4 * (1 if total <= 52 else 2)
        mine = _rank_counts(view["hand"])
        own_pile = _rank_counts(view["own_pile"])
        known = view["known"]
        others = [s for s in range(len(sizes)) if s != me]
        accounted = mine[rank] + own_pile[rank] + sum(known[s].get(rank, 0) for s in others)
        remaining = copies - accounted
        if remaining < k:
            return True
        unknown = total - len(view["hand"]) - len(view["own_pile"]) - sum(sum(known[s].values()) for s in others)
        draws = sizes[p] + k - sum(known[p].values())   # the play came from p's unknown cards
        truth = prob_at_least(k, unknown, remaining, draws)
        threshold = TRUTH_THRESHOLD
        if sizes[p] <= 2:
            threshold = CLOSE_THRESHOLD
        elif view["pile_size"] >= BIG_PILE:
            threshold = BIG_PILE_THRESHOLD
        return truth < threshold
