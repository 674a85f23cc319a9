"""A rule-based Ginny-O player that sees only its view (public board, own rack) and the mask.

Strategy:
- **Play phase**: rebuild the public board in a scratch engine, enumerate every legal play of
  the own rack (the same exact enumeration the environment uses, GO-20..GO-27) and take the one
  with the highest value = score (``score_play``: premium squares, crossings) + 2 per tile
  placed (tiles left on the rack cost points at the end, GO-37) - 8 per joker spent (a joker
  is worth more kept for a big play) + 1000 if it empties the rack with the box empty. The chosen
  play is then placed tile by tile in reading order and committed.
- **No play after a draw**: return the least useful tile (fewest partners on the rack: same
  rank, or same suit within two ranks; ties to the highest rack value), never a joker if
  another tile exists.
- **Start of turn**: draw, unless the rack has no legal play while the box holds 10+ tiles and
  either at most two tiles have a partner or the board is still empty (no first meld yet):
  then exchange every tile without a partner (jokers kept). If the board is empty and this turn
  is its last before the stall rule ends the game, exchange the costly tiles (9 or more, GO-37).
- **Box empty**: play the best play, else pass.
Ties are broken by action id, so the choice is a function of the view alone (hidden tiles never
change it).
"""
from __future__ import annotations

import heapq

import numpy as np

from rummy_env.cards import JOKER, NUM_CARDS, RANK_OF, SUIT_OF, parse_card
from rummy_env.games.ginny_o import (EXCHANGE0, NSQ, PLACE0, RACK_VALUE, RETURN0, GinnyOGame, Options,
                                     PlaySearch, score_play)
from rummy_env.melds import parse_piece

from .base import Agent


def _rack_counts(hand: list[str]) -> list[int]:
    cnt = [0] * 53
    for t in hand:
        cnt[parse_card(t, allow_joker=True)] += 1
    return cnt


def _partners(cnt: list[int], t: int) -> int:
    """How many other rack tiles could share a meld with tile ``t`` (a joker partners all)."""
    if t == JOKER:
        return 99
    n = cnt[JOKER]
    for u in range(NUM_CARDS):
        if not cnt[u]:
            continue
        k = cnt[u] - (u == t)
        if k <= 0:
            continue
        if RANK_OF[u] == RANK_OF[t] and SUIT_OF[u] != SUIT_OF[t]:
            n += k
        elif SUIT_OF[u] == SUIT_OF[t] and 0 < abs(RANK_OF[u] - RANK_OF[t]) <= 2:
            n += k
    return n


def _play_actions(valued_play: tuple) -> list[int]:
    """The action ids of a play from :meth:`GinnyOHeuristic._valued_plays`: placements, then commit."""
    return [-negated for negated in valued_play[1]] + [2]


SCORE_SCALE = 30.0
"""Points of lead that make ``position_value`` tanh(1) = 0.76."""


def position_value(game, seat: int) -> float:
    """An estimate of ``seat``'s return under ``reward_mode="rank"`` (+1 / -1 in two players, GO-38)
    from the scores and racks of ``game``: ``tanh(lead / SCORE_SCALE)``, where the lead is the
    seat's total minus the best total of another seat; a total is the score, 2 points off for every
    tile on the rack and 10 back for every joker on it: close to the play value of
    :class:`GinnyOHeuristic`, which adds 2 for every tile placed and takes 8 off for a joker placed
    (so a joker kept is worth 8 here, 6 there). Used by ``pimc value=score`` at a rollout's cut-off."""
    totals = [score - 2 * sum(rack) + 10 * rack[JOKER] for score, rack in zip(game.scores, game.racks)]
    lead = totals[seat] - max(total for s, total in enumerate(totals) if s != seat)
    return float(np.tanh(lead / SCORE_SCALE))


class GinnyOHeuristic(Agent):
    """Greedy premium-square player with rack management (see the module docstring)."""

    name = "heuristic_ginny_o"

    position_value = staticmethod(position_value)
    """The estimate a search's ``value=score`` scores a cut-off rollout with (:mod:`.cutoff_value`)."""

    def __init__(self) -> None:
        self.reset(0, None)

    def reset(self, seat: int, seed: int | None = None) -> None:
        super().reset(seat, seed)
        self._plan: list[int] = []
        self._plays: list[tuple] = []
        """Every legal play of the last decision that began one: (value, negated placement ids)."""
        self._search: PlaySearch | None = None

    def forget_plan(self) -> None:
        """Drop the rest of a multi-step play or exchange planned in the last position."""
        self._plan = []

    def _scratch(self, view: dict) -> GinnyOGame:
        """A game holding the view's committed board; its play search (and caches) kept by the agent."""
        options = Options(board_layout=view["board_layout"], descending_runs=view["descending_runs"],
                          num_sets=2 if view["num_players"] > 2 else 1)
        if self._search is None or (self._search.board_layout, self._search.descending_runs) != (
                options.board_layout, options.descending_runs):
            self._search = PlaySearch(options.board_layout, options.descending_runs)
        g = GinnyOGame(options, self._search)
        placed = {p.split()[0] for p in view["placed"]}
        cols = "ABCDEFGHIJKLMNO"
        board = [-1] * NSQ
        for r, row in enumerate(view["board"]):
            for c, text in enumerate(row):
                if text and f"{cols[c]}{r + 1}" not in placed:
                    board[r * 15 + c] = parse_piece(text)
        g.set_board(board)
        return g

    def _valued_plays(self, view: dict, cnt: list[int]) -> list[tuple]:
        """Every legal play of the rack as (value, its placement ids negated); the largest tuple is
        the best play (module docstring; ties to the smaller action ids)."""
        g = self._scratch(view)
        rack_total = sum(cnt)
        keyed = []
        for play in g.plays_for(cnt):
            value = score_play(g.board, play, view["board_layout"], view["descending_runs"])
            jokers = sum(1 for _, p in play if p >= NUM_CARDS)
            value += 2 * len(play) - 8 * jokers
            if view["stock_size"] == 0 and len(play) == rack_total:
                value += 1000
            keyed.append((value, [-(PLACE0 + NSQ * p + q) for q, p in play]))
        return keyed

    def candidate_plans(self, count: int) -> list[list[int]] | None:
        """The ``count`` best plays when the last decision began one (the first is the one begun)."""
        return [_play_actions(key) for key in heapq.nlargest(count, self._plays)] or None

    def act(self, observation: np.ndarray, action_mask: np.ndarray, view: dict) -> int:
        legal = np.flatnonzero(action_mask)
        self._plays = []
        if self._plan:
            a = self._plan.pop(0)
            if action_mask[a]:
                return int(a)
            self._plan = []
        cnt = _rack_counts(view["hand"])
        phase = view["phase"]
        if phase == "exchange":
            return 2  # the plan ran out: commit
        if phase == "start":
            if view["stock_size"] >= 10 and not self._scratch(view).has_play(cnt):
                bad = [t for t in range(53) for _ in range(cnt[t]) if t != JOKER and _partners(cnt, t) == 0]
                good = sum(cnt) - len(bad)
                board_empty = not any(any(row) for row in view["board"])
                if board_empty and view["stall"] + view["num_players"] >= view["stall_limit"]:
                    # my last turn before the stall end: swap costly tiles for average ones (GO-37)
                    bad = [t for t in range(53) for _ in range(cnt[t]) if RACK_VALUE[t] >= 9]
                if bad and (good <= 2 or board_empty):
                    self._plan = [EXCHANGE0 + t for t in bad[1:]] + [2]
                    return EXCHANGE0 + bad[0]
            return 0
        if not view["placed"]:
            self._plays = self._valued_plays(view, cnt)
            if self._plays:
                best = _play_actions(max(self._plays))
                self._plan = best[1:]
                return best[0]
            if action_mask[1]:
                return 1
            tiles = [t for t in range(53) if cnt[t] and action_mask[RETURN0 + t]]
            non_jokers = [t for t in tiles if t != JOKER] or tiles
            worst = min(non_jokers, key=lambda t: (_partners(cnt, t), -RACK_VALUE[t], t))
            return RETURN0 + worst
        return int(legal[0])
