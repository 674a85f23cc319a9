"""A rule-based Rummy player (``docs/rules/rummy.md``) that decides from the public view only.

Strategy (:class:`RummyHeuristic`):

- **Draw** (RM-6): take the discard pile's top card only when it completes a meld with cards in
  hand (RM-10); otherwise draw from the stock.
- **Play** (RM-7): first lay down the largest legal meld (ties: the most points), one meld per
  decision, so all melds go down; then lay off (RM-14), highest card first. Going out (RM-19)
  follows naturally, since melds and lay-offs empty the hand.
- **Discard**: among the legal discards, throw the card with the highest score
  ``points - 4 * usefulness - 15 * feeds_table - 8 * feeds_known``: points is the deadwood value
  (RM-21, RM-22); usefulness counts the hand cards that could join it in a future meld (same
  rank, or same suit within two ranks); feeds_table is 1 if it could be laid off on a table meld
  by the next player; feeds_known counts the cards an opponent is publicly known to hold (taken
  from the discard pile, RM-32) that it would help (same rank, or same suit within two ranks).
  Ties go to the higher card id.

Every input is in ``view`` (own hand, table, discard pile, known cards, legal action texts), so
the choice never depends on hidden cards. The agent is deterministic.
"""
from __future__ import annotations

import numpy as np

from rummy_env.cards import ACE_FIFTEEN_POINTS, BIT, NUM_CARDS, POINTS, RANK_OF, SUIT_OF, mask_of, parse_card
from rummy_env.melds import catalogue_masks, classify, standard_catalogue

from .base import Agent


def _legal_meld_masks(ace_high: bool) -> frozenset[int]:
    """Bitmasks of every legal meld (RM-10) under ``ace_high``."""
    return frozenset(catalogue_masks([m for m in standard_catalogue(ace_high=True)
                                      if classify(list(m), ace_high) is not None]))


_LEGAL_MELDS = {ace_high: _legal_meld_masks(ace_high) for ace_high in (False, True)}
_MELDS_WITH = {ace_high: tuple(tuple(m for m in melds if m & BIT[c]) for c in range(NUM_CARDS))
               for ace_high, melds in _LEGAL_MELDS.items()}
"""For each card, the bitmasks of the legal melds that hold it."""


def _near(a: int, b: int, ace_high: bool) -> bool:
    """Same rank, or same suit within two ranks (so they may share a run)."""
    if RANK_OF[a] == RANK_OF[b]:
        return True
    if SUIT_OF[a] != SUIT_OF[b]:
        return False
    ra, rb = RANK_OF[a], RANK_OF[b]
    if abs(ra - rb) <= 2:
        return True
    return ace_high and (ra == 1 or rb == 1) and abs((ra if ra != 1 else 14) - (rb if rb != 1 else 14)) <= 2


class RummyHeuristic(Agent):
    """Melds and lays off whenever it can, keeps deadwood low, discards safely (module docstring)."""

    name = "heuristic_rummy"

    def __init__(self) -> None:
        self.reset(0, None)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, view: dict) -> int:
        texts = view["legal_actions"]
        ids = np.flatnonzero(action_mask)
        choice = self.choose(view)
        return int(ids[texts.index(choice)])

    def ranked_actions(self, observation: np.ndarray, action_mask: np.ndarray, view: dict) -> np.ndarray:
        """Every legal action id, the agent's choice first, then in its order of preference
        (:meth:`ranked`): the candidates a residual policy may explore
        (``PolicyNet(prior_candidates=K)``; an agent may also rank only some of its legal moves)."""
        ids = np.flatnonzero(action_mask)
        position = {text: i for i, text in enumerate(view["legal_actions"])}
        return ids[[position[text] for text in self.ranked(view)]]

    def choose(self, view: dict) -> str:
        """The chosen legal action text."""
        return self.ranked(view, best_only=True)[0]

    def ranked(self, view: dict, best_only: bool = False) -> list[str]:
        """The legal action texts best first: in the draw phase the chosen draw, then the other; in
        the play phase the melds (largest, then most points), the lay-offs (highest card), then the
        discards (highest score), so the first is the module docstring's choice. ``best_only``:
        that first one alone, without ranking the rest."""
        texts = view["legal_actions"]
        ace_high = bool(view.get("options", {}).get("ace_high", False))
        hand = [parse_card(t) for t in view["hand"]]
        if view["phase"] == "draw":
            top = parse_card(view["discard"][-1])
            with_top = mask_of(hand) | BIT[top]
            makes_meld = any(not meld & ~with_top for meld in _MELDS_WITH[ace_high][top])
            choice = "take discard" if makes_meld and "take discard" in texts else "draw stock"
            return [choice] + [t for t in texts if t != choice]
        points = ACE_FIFTEEN_POINTS if ace_high else POINTS
        melds = [t for t in texts if t.startswith("meld ")]
        layoffs = [t for t in texts if t.startswith("layoff ")]

        def meld_key(t: str) -> tuple:
            return len(t.split()), sum(points[parse_card(w)] for w in t.split()[1:]), t

        def layoff_key(t: str) -> tuple:
            return points[parse_card(t.split()[1])], t

        if best_only and (melds or layoffs):
            return [max(melds, key=meld_key) if melds else max(layoffs, key=layoff_key)]
        table = [mask_of(parse_card(c) for c in md["cards"]) for md in view["melds"]]
        legal_melds = _LEGAL_MELDS[ace_high]
        known = [parse_card(c) for q, cards in enumerate(view.get("known_cards", [])) if q != view["seat"]
                 for c in cards]

        def discard_key(text: str) -> tuple:
            c = parse_card(text.split()[1])
            useful = sum(1 for o in hand if o != c and _near(c, o, ace_high))
            feeds_table = any(meld | BIT[c] in legal_melds for meld in table)
            feeds_known = sum(1 for o in known if _near(c, o, ace_high))
            return (points[c] - 4 * useful - 15 * feeds_table - 8 * feeds_known, c)

        discards = [t for t in texts if t.startswith("discard ")]
        if best_only:
            return [max(discards, key=discard_key)]
        return (sorted(melds, key=meld_key, reverse=True) + sorted(layoffs, key=layoff_key, reverse=True)
                + sorted(discards, key=discard_key, reverse=True))
