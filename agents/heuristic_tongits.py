"""A rule-based Tongits player (``docs/rules/tongits.md``).

It decides only from the seat's structured view (``env.unwrapped.view(agent)``) and the action
mask, never from engine state, and is deterministic (ties go to the lowest action id), so it
chooses the same action whatever the hidden cards are.

Strategy:

- **Best arrangement.** An exact search splits the hand into disjoint melds plus the
  deadwood of least points (the same search as ``count_hand_melds=False``).
- **Response phase.** ``challenge`` whenever it is legal: a losing challenger pays nothing
  (TG-33), so folding is never better; ``fold`` when it is the only answer (not qualified, TG-20).
- **Draw phase.** ``call draw`` when no opponent can challenge, or when the hand's points are
  low against an estimate of each qualified opponent's hand (its hand size times the mean
  point value of the unseen cards, shaded down because players keep low cards). Otherwise
  ``take discard`` when it is legal and the meld it forces lowers the deadwood; else
  ``draw stock``.
- **Pickup phase.** The meld with the taken card that leaves the least deadwood.
- **Meld phase.** Anything that empties the hand (Tongits) first; then face-down secrets
  (they earn 3 chips and cannot be laid off on, TG-13, TG-31); then the melds of the best
  arrangement; then lay off deadwood cards (on opponents' melds this also blocks their Draw
  call, TG-16); finally discard the deadwood card with the best score: high points, few
  chances to complete a meld later (partners in hand whose completing cards are unseen),
  and little danger of feeding the next player (the probability that it holds two cards
  that meld with it; cards it is known to hold count fully; dead cards are safe).
"""
from __future__ import annotations

import numpy as np

from rummy_env.cards import BIT, POINTS, RANK_OF, SUIT_OF, parse_card
from rummy_env.melds import catalogue_masks, standard_catalogue

from .base import Agent

_CAT = catalogue_masks(standard_catalogue(ace_high=False))
_WITH = tuple(tuple(m for m in _CAT if m & BIT[c]) for c in range(52))


def _mask(texts) -> int:
    m = 0
    for t in texts:
        m |= BIT[parse_card(t)]
    return m


def _cards(mask: int) -> list:
    return [c for c in range(52) if mask >> c & 1]


_MEMO: dict = {}


def arrange(mask: int) -> tuple:
    """(least deadwood points, melds as bitmasks) over disjoint melds of ``mask``."""
    if not mask:
        return 0, ()
    hit = _MEMO.get(mask)
    if hit is not None:
        return hit
    low = mask & -mask
    c = low.bit_length() - 1
    pts, melds = arrange(mask ^ low)
    best = (pts + POINTS[c], melds)
    for m in _WITH[c]:
        if m & mask == m:
            p2, ms = arrange(mask ^ m)
            if p2 < best[0]:
                best = (p2, (m,) + ms)
    if len(_MEMO) > 300_000:
        _MEMO.clear()
    _MEMO[mask] = best
    return best


def _partners(c: int) -> list:
    """Pairs of cards that make a meld with ``c`` (sets and runs, ace low)."""
    r, s = RANK_OF[c], SUIT_OF[c]
    same = [13 * t + r - 1 for t in range(4) if t != s]
    pairs = [(a, b) for i, a in enumerate(same) for b in same[i + 1:]]
    for lo in (r - 2, r - 1, r):
        ranks = [x for x in (lo, lo + 1, lo + 2) if x != r]
        if lo >= 1 and lo + 2 <= 13:
            pairs.append(tuple(13 * s + x - 1 for x in ranks))
    return pairs


_PARTNERS = tuple(_partners(c) for c in range(52))


class TongitsHeuristic(Agent):
    """Rule-based Tongits agent; see the module docstring for the strategy."""

    name = "heuristic"

    def __init__(self, call_ratio: float = 0.55, call_points: int = 5, danger_weight: float = 8.0) -> None:
        self.call_ratio = call_ratio
        self.call_points = call_points
        self.danger_weight = danger_weight
        self.reset(0, None)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, view: dict) -> int:
        legal_ids = np.flatnonzero(action_mask)
        texts = view["legal_actions"]
        by_text = {t: int(a) for t, a in zip(texts, legal_ids)}
        phase = view["phase"]
        if phase == "response":
            return by_text["challenge"] if "challenge" in by_text else by_text["fold"]
        hand = _mask(view["hand"])
        seat = view["seat"]
        seen = hand | _mask(view["discard"])
        for m in view["melds"]:
            if "??" not in m["cards"]:
                seen |= _mask(m["cards"])
        unseen = ((1 << 52) - 1) & ~seen
        known = [_mask(k) for k in view.get("known_cards", [[], [], []])]
        if phase == "draw":
            return self._draw(view, by_text, hand, unseen, seat)
        if phase == "pickup":
            return min((arrange(hand & ~_mask(t.split()[1:]))[0], a) for t, a in by_text.items())[1]
        return self._meld(view, by_text, hand, unseen, known, seat)

    # ---- draw phase ------------------------------------------------------------------------
    def _draw(self, view, by_text, hand, unseen, seat) -> int:
        mine = sum(POINTS[c] for c in _cards(hand))
        if "call draw" in by_text:
            n_unseen = bin(unseen).count("1")
            mean = sum(POINTS[c] for c in _cards(unseen)) / max(n_unseen, 1)
            rivals = [o for o in range(3) if o != seat and (view["exposed"][o] or view["secrets"][o])]
            estimates = [view["hand_sizes"][o] * mean * 0.8 for o in rivals]
            if not rivals or mine <= self.call_points or mine <= self.call_ratio * min(estimates):
                return by_text["call draw"]
        if "take discard" in by_text and view["discard"]:
            top = parse_card(view["discard"][-1])
            if arrange(hand | BIT[top])[0] <= arrange(hand)[0]:
                return by_text["take discard"]
        return by_text["draw stock"]

    # ---- meld phase -------------------------------------------------------------------------
    def _meld(self, view, by_text, hand, unseen, known, seat) -> int:
        n_hand = bin(hand).count("1")
        # Tongits now: a meld, secret or layoff that empties the hand.
        for t, a in by_text.items():
            words = t.split()
            if words[0] in ("meld", "secret") and len(words) - 1 == n_hand:
                return a
            if words[0] == "layoff" and n_hand == 1:
                return a
        for t, a in by_text.items():
            if t.startswith("secret"):
                return a
        melds = arrange(hand)[1]
        in_melds = 0
        for m in melds:
            in_melds |= m
        for m in melds:
            a = self._meld_action(by_text, m)
            if a is not None:
                return a
        deadwood = hand & ~in_melds
        for t, a in by_text.items():
            if t.startswith("layoff") and deadwood & BIT[parse_card(t.split()[1])]:
                return a
        return self._discard(view, by_text, hand, deadwood, unseen, known, seat)

    @staticmethod
    def _meld_action(by_text, m) -> int | None:
        for t, a in by_text.items():
            if t.startswith("meld ") and _mask(t.split()[1:]) == m:
                return a
        return None

    def _discard(self, view, by_text, hand, deadwood, unseen, known, seat) -> int:
        nxt = (seat + 1) % 3
        n_unseen = max(bin(unseen).count("1"), 1)
        p_next = min(1.0, view["hand_sizes"][nxt] / n_unseen)

        def prob(card):
            if known[nxt] >> card & 1:
                return 1.0
            return p_next if unseen >> card & 1 else 0.0

        best = None
        for t, a in by_text.items():
            if not t.startswith("discard"):
                continue
            c = parse_card(t.split()[1])
            danger = sum(prob(x) * prob(y) for x, y in _PARTNERS[c])
            keep = 0.0
            for x, y in _PARTNERS[c]:
                if hand >> x & 1 and unseen >> y & 1 or hand >> y & 1 and unseen >> x & 1:
                    keep += 1.0
            score = POINTS[c] - self.danger_weight * danger - 1.5 * keep
            if not deadwood & BIT[c]:
                score -= 100.0   # breaking a meld of the best arrangement is the last resort
            if best is None or score > best[0]:
                best = (score, a)
        return best[1]
