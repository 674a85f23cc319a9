"""A rule-based Contract Rummy player (``docs/rules/contract_rummy.md``) deciding from the
public view only (own hand, table, pile, contract, legal action texts).

Strategy (:class:`ContractRummyHeuristic`):

- **Draw** (CR-11, CR-12). A seat not down takes the smallest legal deep take ``take discard K``
  (K >= 2): the engine only allows one when the contract can then be laid this turn (CR-12), so
  it means going down now. Otherwise it takes the top card when it is useful to the contract
  (same rank as a hand card for a contract with sets, same suit within two ranks for one with
  runs, or a joker), else draws from the stock. A down seat takes a deep pile only if every
  card of it fits the table as it stands (so the whole take can be laid off), takes the top card
  if it fits the table, and otherwise draws from the stock.
- **Going down** (CR-15, CR-16, CR-17): whenever a ``meld`` is legal it lays one, the meld
  with the most natural cards, then the most penalty points (CR-30); jokers are kept for last
  since they are worth 15. The engine guarantees the rest of the contract stays layable.
- **Placing** (CR-12, CR-23): the must-use card or freed joker goes where the first legal
  lay-off puts it (a natural lay-off before a swap).
- **Once down** (CR-18, CR-22): lay off every card it can, the highest penalty first, then
  jokers; then swap a natural card for a run's joker (the joker must be laid off at once, so
  the swap sheds a card). Going out (CR-29) follows.
- **Discard** (CR-25, CR-26): the legal discard with the highest
  ``penalty - 6 * usefulness + 12 * (fits the table)``, never a joker if anything else is
  legal; usefulness is the same count as for taking. A card that fits a table meld helps only
  seats already down, so it is thrown first when not needed. Ties go to the later card text.

Every input is public to the seat, so re-dealing hidden cards never changes the choice. The
agent is deterministic.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from rummy_env.cards import JOKER, RANK_OF, SUIT_OF, parse_card
from rummy_env.melds import classify, parse_piece

from .base import Agent


def _pen(c: int) -> int:
    if c == JOKER:
        return 15
    r = RANK_OF[c]
    return 15 if r == 1 else min(r, 10)


def _card(t: str) -> int:
    return parse_card(t, allow_joker=True)


@lru_cache(maxsize=1 << 16)
def _meld_pieces(texts: tuple[str, ...]) -> tuple[int, ...]:
    """A table meld's pieces from its card texts (memoised: rollouts ask again every step)."""
    return tuple(parse_piece(t) for t in texts)


@lru_cache(maxsize=1 << 18)
def _fits_meld(pieces: tuple[int, ...], c: int) -> bool:
    """Whether card ``c`` extends the meld ``pieces`` (memoised)."""
    return classify(pieces + (c,), True, 3) is not None


class ContractRummyHeuristic(Agent):
    """Plans toward the contract, goes down as soon as it can, then sheds cards (module docstring)."""

    name = "heuristic_contract_rummy"

    def __init__(self) -> None:
        self._ranked: list[str] = []
        """The legal draws or discards of the last such decision, the chosen one first (empty after
        any other decision)."""
        self._id_of: dict[str, int] = {}
        self.reset(0, None)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, view: dict) -> int:
        texts = view["legal_actions"]
        self._id_of = {t: int(a) for t, a in zip(texts, np.flatnonzero(action_mask))}
        return self._id_of[self.choose(view)]

    def ranked_actions(self, observation: np.ndarray, action_mask: np.ndarray, view: dict) -> np.ndarray:
        """The chosen action id first, then, at a draw or a discard, the other draws in legal order or
        the other discards by the discard score (:meth:`candidate_plans`); elsewhere the choice alone:
        the candidates a residual policy may explore (``PolicyNet(prior_candidates=K)``)."""
        choice = self.act(observation, action_mask, view)
        return np.array([self._id_of[t] for t in self._ranked] or [choice], np.int64)

    def candidate_plans(self, count: int) -> list[list[int]] | None:
        """After a draw or a discard, the ``count`` best of them as one-action moves: the choice
        first, then the other draws in legal order or the other discards by the discard score."""
        return [[self._id_of[t]] for t in self._ranked[:count]] or None

    # -------------------------------------------------------------- helpers
    @staticmethod
    def _table(view: dict) -> list:
        return [_meld_pieces(tuple(m["cards"])) for m in view["melds"]]

    @staticmethod
    def _fits_table(table: list, c: int) -> bool:
        return c != JOKER and any(_fits_meld(m, c) for m in table)

    @staticmethod
    def _usefulness(c: int, hand: list, view: dict) -> int:
        if c == JOKER:
            return 10
        need = view["contract_needs"]
        u = 0
        for h in hand:
            if h == JOKER or h == c:
                continue
            if need["sets"] and RANK_OF[h] == RANK_OF[c]:
                u += 1
            elif need["runs"] and SUIT_OF[h] == SUIT_OF[c]:
                d = abs(RANK_OF[h] - RANK_OF[c])
                if d <= 2 or (13 - d) <= 1:
                    u += 1
        return u

    # -------------------------------------------------------------- decision
    def choose(self, view: dict) -> str:
        """The chosen legal action text."""
        legal = view["legal_actions"]
        seat = view["seat"]
        down = view["down"][seat]
        hand = [_card(t) for t in view["hand"]]
        table = self._table(view)
        phase = view["phase"]

        self._ranked = []
        if phase == "draw":
            choice = self._draw(view, legal, down, hand, table)
            self._ranked = [choice] + [t for t in legal if t != choice]
            return choice

        melds = [t for t in legal if t.startswith("meld ")]
        if melds:
            def key(t):
                pieces = t.split()[1:]
                nat = [p for p in pieces if not p.startswith("JK")]
                return (len(nat), sum(_pen(_card(p)) for p in nat), t)
            return max(melds, key=key)

        layoffs = [t for t in legal if t.startswith("layoff ")]
        natural = [t for t in layoffs if not t.split()[1].startswith("JK")]
        if natural:
            return max(natural, key=lambda t: (_pen(_card(t.split()[1])), t))
        if layoffs:
            return layoffs[0]
        swaps = [t for t in legal if t.startswith("swap ")]
        if swaps:
            return swaps[0]

        discards = [t for t in legal if t.startswith("discard ")]
        if not discards:
            return legal[0]
        non_joker = [t for t in discards if t != "discard JK"] or discards

        def score(t):
            c = _card(t.split()[1])
            fits = 1 if self._fits_table(table, c) else 0
            return (_pen(c) - 6 * self._usefulness(c, hand, view) + 12 * fits, t)
        self._ranked = sorted(non_joker, key=score, reverse=True)
        return self._ranked[0]

    def _draw(self, view: dict, legal: list[str], down: bool, hand: list[int], table: list) -> str:
        """The chosen draw (module docstring, "Draw")."""
        deep = sorted((int(t.split()[2]), t) for t in legal if t.startswith("take discard "))
        pile = [_card(t) for t in view["discard"]]
        if not down and deep:
            return deep[0][1]
        if down:
            for k, t in deep:
                if all(self._fits_table(table, c) for c in pile[-k:]):
                    return t
            if "take discard" in legal and self._fits_table(table, pile[-1]):
                return "take discard"
        elif "take discard" in legal:
            top = pile[-1]
            if top == JOKER or self._usefulness(top, hand, view) >= 1:
                return "take discard"
        return "draw stock" if "draw stock" in legal else legal[0]
