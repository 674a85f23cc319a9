"""The I Doubt It game state, :class:`IDoubtItGame`: dealing, ``step``, turn flow, the end and
its rewards, and the reasons an action is illegal (``docs/rules/i_doubt_it.md``, DI-1..DI-29).

A hand is kept as 13 rank counts (``hand_ranks``, what the rules use: suits never matter, DI-5)
beside its 52 card counts (``hand_cards``, the real cards shown by a reveal, DI-20; two decks
hold two copies of a card, DI-1). The pile is a list of card ids, bottom first, with the seat that
put each card there (-1 for a scenario's initial pile). The cards a play moves are the lowest
suits first (C, D, H, S; DI-5).
"""
from __future__ import annotations

from collections import deque
from dataclasses import asdict

import numpy as np

from ...cards import NUM_CARDS, RANKS
from . import determinize as copies
from . import serialisation
from .actions import DOUBT, FIRST_PLAY, PASS, play_table
from .moves import legal_mask, play_masks
from .observation import (F_CAUGHT, F_CARDS, F_DOUBTS, F_OUT, F_PASSED, F_PASSES, F_PENDING, F_PICKED, F_PICKUPS,
                          F_PLACE, F_PLAYS, F_REV_PLAYER, F_REV_TAKER, F_SIZE, F_TO_ACT, F_UNKNOWN, G_CLAIM_N,
                          G_CLAIM_R, G_LEFT, G_PHASE, G_PILE, G_PLAYS, G_RANK, G_REV, G_REV_FALSE, G_REV_TRUE, NF,
                          NG, ST_CARDS, ST_CAUGHT, ST_DOUBTS, ST_PASSES, ST_PICKED, ST_PICKUPS, ST_PLAYS, STAT_FIELDS,
                          absolute_vector, gather_index, observation_size)
from .options import DOUBT_PHASE, MAX_EVENTS, OVER_PHASE, PLAY_PHASE, Options, read_deal
from .view import view


class IDoubtItGame:
    """State of one game of I Doubt It. Start with :meth:`new` or :meth:`from_dict`.

    Public attributes: ``current_player``, ``done``, ``truncated``, ``num_players``,
    ``num_actions``, ``phase`` (0 play, 1 doubt, 2 over), ``rank`` (rank index the next play
    must claim), ``hand_ranks`` / ``hand_cards`` / ``hand_size`` per seat, ``pile`` and
    ``pile_owner``, ``known`` (per seat, per rank: public lower bound of cards held),
    ``out`` / ``places``, ``plays_made``.
    """

    def __init__(self, options: Options):
        self.options = options
        self.options_dict = asdict(options)
        n = self.num_players = options.num_players
        self._table = play_table(options.max_cards_per_play)
        self.actions = self._table.catalogues[options.wrong_rank_claims]
        """The action catalogue (DI rules file, "Action ids"): texts, parser, segment starts."""
        self.misclaim_action = self.actions.start("misclaim") if options.wrong_rank_claims else -1
        self.num_actions = self.actions.size
        self.observation_size = observation_size(n)
        self._masks = play_masks(options.max_cards_per_play, options.wrong_rank_claims)
        self._gather = gather_index(n)
        self._order = [tuple((s + i) % n for i in range(1, n)) for s in range(n)]
        self._max_plays = options.max_plays
        self._taker_next = options.after_pickup == "taker"

    # ---------------------------------------------------------------------------------------
    # set-up
    @classmethod
    def new(cls, options: Options, rng: np.random.Generator, deal: dict | None = None) -> "IDoubtItGame":
        """Deal a new game (DI-1..DI-4), or set up the scenario ``deal`` (rules file keys)."""
        g = cls(options)
        g.rng = rng
        g.set_up(*read_deal(options, rng, deal))
        return g

    def set_up(self, dealer: int, hands: list[list[int]], discard: list[int], rank: int, to_play: int) -> None:
        """The starting position: ``hands`` of card ids, the initial pile ``discard``, the
        required ``rank`` index and the seat ``to_play``."""
        n = self.num_players
        self.dealer = dealer
        self.rank = rank
        self.phase = PLAY_PHASE
        self.current_player = to_play
        self.done = False
        self.truncated = False
        self.hand_cards = [[0] * NUM_CARDS for _ in range(n)]
        self.hand_ranks = [[0] * 13 for _ in range(n)]
        for s, h in enumerate(hands):
            for c in h:
                self.hand_cards[s][c] += 1
                self.hand_ranks[s][c % 13] += 1
        self.hand_size = [len(h) for h in hands]
        self.pile = list(discard)
        self.pile_owner = [-1] * len(discard)
        self.pending = -1
        self.pending_k = 0
        self.claim_rank = -1
        self.pending_known: list[int] | None = None
        self.window: list[int] = []
        self.window_pos = 0
        self.out = [False] * n
        self.places = [0] * n
        self.out_order: list[int] = []
        self.known = [[0] * 13 for _ in range(n)]
        self.stats = [[0] * len(STAT_FIELDS) for _ in range(n)]
        self.last_reveal: list | None = None
        self.plays_made = 0
        self.events: deque = deque(maxlen=MAX_EVENTS)
        self.final_rewards: list[float] | None = None
        self.rebuild()

    def rebuild(self) -> None:
        """Derived state from the Python state: own-pile counts, known totals, the absolute
        vector and the legal mask."""
        self.own_pile = [[0] * 13 for _ in range(self.num_players)]
        self.known_total = [sum(k) for k in self.known]
        for c, s in zip(self.pile, self.pile_owner):
            if s >= 0:
                self.own_pile[s][c % 13] += 1
        self._vec = absolute_vector(self)
        self._mv = memoryview(self._vec)   # fast element writes for step (float32 buffer of the vector)
        self._mask = legal_mask(self)

    # ---------------------------------------------------------------------------------------
    # legality
    def legal_mask(self) -> np.ndarray:
        """Read-only int8 mask for ``current_player`` (:mod:`.moves`). Play phase: every multiset of
        held ranks of 1..max_cards_per_play cards (DI-6..DI-8), ``misclaim`` when enabled
        (DI-13); doubt phase: ``doubt`` and ``pass`` (DI-19)."""
        return self._mask

    def illegal_reason(self, action: int) -> str:
        """Why ``action`` is not legal now."""
        if not 0 <= action < self.num_actions:
            return f"action ids run from 0 to {self.num_actions - 1}"
        if self.done:
            return "the game is over"
        seat = f"player_{self.current_player}"
        if self.phase == DOUBT_PHASE:
            return (f"{seat} is asked in the doubt window of player_{self.pending}'s play: "
                    f"only 'doubt' or 'pass' (DI-19)")
        if action in (DOUBT, PASS):
            return f"it is {seat}'s turn to play: a turn plays at least one card, no passing or doubting (DI-7, DI-19)"
        need = self._table.counts[action - FIRST_PLAY]
        held = self.hand_ranks[self.current_player]
        for r in range(13):
            if need[r] > held[r]:
                return f"{seat} holds {held[r]} card(s) of rank {RANKS[r]}, the play needs {need[r]} (DI-6)"
        return "not a legal action now"

    # ---------------------------------------------------------------------------------------
    # stepping
    def step(self, action: int) -> np.ndarray | None:
        """Apply a legal action (``ValueError`` for an illegal one, state unchanged); the legal
        mask of the new position is worked out here, once."""
        if not 0 <= action < self.num_actions or not self._mask[action]:
            text = self.action_to_text(action) if 0 <= action < self.num_actions else str(action)
            raise ValueError(f"illegal action {action} '{text}': {self.illegal_reason(action)}")
        if self.phase == PLAY_PHASE:
            result = self._misclaim() if action == self.misclaim_action else self._play(action)
        elif action == DOUBT:
            result = self._doubt()
        else:
            result = self._pass()
        self._mask = legal_mask(self)
        return result

    def _doubt(self):
        """DI-19, DI-20: the asked seat doubts the pending play."""
        s = self.current_player
        st = self.stats[s]
        st[ST_DOUBTS] += 1
        self._mv[NG + F_DOUBTS * self.num_players + s] = st[ST_DOUBTS]
        self.events.append(("doubt", s))
        return self._resolve(s)

    def _pass(self):
        """DI-19: the asked seat passes; the next seat of the window is asked, or the play stands."""
        s = self.current_player
        n = self.num_players
        v = self._mv
        st = self.stats[s]
        st[ST_PASSES] += 1
        v[NG + F_PASSES * n + s] = st[ST_PASSES]
        v[NG + F_PASSED * n + s] = 1.0
        self.events.append(("pass", s))
        self.window_pos += 1
        if self.window_pos == len(self.window):
            return self._resolve(None)
        self._set_to_act(self.window[self.window_pos])
        return None

    def _set_to_act(self, s: int) -> None:
        v = self._mv
        base = NG + F_TO_ACT * self.num_players
        v[base + self.current_player] = 0.0
        v[base + s] = 1.0
        self.current_player = s

    def _next_in_game(self, s: int) -> int:
        out = self.out
        for t in self._order[s]:
            if not out[t]:
                return t
        return s

    def _play(self, action: int):
        """DI-6, DI-9..DI-11, DI-14, DI-15: cards down, claim made, then the window or DI-22."""
        p = self.current_player
        n = self.num_players
        ranks = self._table.ranks[action - FIRST_PLAY]
        k = len(ranks)
        hc = self.hand_cards[p]
        hr = self.hand_ranks[p]
        own = self.own_pile[p]
        v = self._mv
        h0 = NG + (NF + 13) * n + 13 * p
        o0 = NG + (NF + 26) * n + 13 * p
        pile = self.pile
        owner = self.pile_owner
        for r in ranks:
            c = r
            while not hc[c]:   # DI-5: lowest suit first
                c += 13
            hc[c] -= 1
            hr[r] -= 1
            own[r] += 1
            v[h0 + r] = hr[r]
            v[o0 + r] = own[r]
            pile.append(c)
            owner.append(p)
        size = self.hand_size[p] - k
        self.hand_size[p] = size
        claim = self._count_play(v)
        v[G_PILE] = len(pile)
        v[NG + F_SIZE * n + p] = size
        st = self.stats[p]
        st[ST_PLAYS] += 1
        st[ST_CARDS] += k
        v[NG + F_PLAYS * n + p] = st[ST_PLAYS]
        v[NG + F_CARDS * n + p] = st[ST_CARDS]
        kn = self.known[p]
        self.pending_known = kn[:]
        if self.known_total[p]:   # a face-down play of k cards: each known count drops by k
            k0 = NG + NF * n + 13 * p
            tot = 0
            for r in range(13):
                x = kn[r]
                if x:
                    x = x - k if x > k else 0
                    kn[r] = x
                    v[k0 + r] = x
                    tot += x
            self.known_total[p] = tot
        v[NG + F_UNKNOWN * n + p] = size - self.known_total[p]
        self.pending = p
        self.pending_k = k
        self.claim_rank = claim
        self.events.append(("play", p, k, claim))
        if size == 0 and self.options.auto_doubt_last:   # DI-22
            d = self._next_in_game(p)
            self.events.append(("auto", d))
            return self._resolve(d)
        out = self.out
        self.window = [t for t in self._order[p] if not out[t]] if self.out_order else list(self._order[p])
        self.window_pos = 0
        self.phase = DOUBT_PHASE
        v[G_PHASE + PLAY_PHASE] = 0.0
        v[G_PHASE + DOUBT_PHASE] = 1.0
        v[G_CLAIM_N] = k
        v[G_CLAIM_R + claim] = 1.0
        v[NG + F_PENDING * n + p] = 1.0
        self._set_to_act(self.window[0])
        return None

    def _resolve(self, doubter: int | None):
        """End of a play's window: DI-20 reveal and pickup, DI-24 going out, DI-16 next seat."""
        p = self.pending
        k = self.pending_k
        claim = self.claim_rank
        n = self.num_players
        v = self._mv
        if self.phase == DOUBT_PHASE:
            pb = NG + F_PASSED * n
            for s in self.window[:self.window_pos]:
                v[pb + s] = 0.0
            v[G_CLAIM_N] = 0.0
            v[G_CLAIM_R + claim] = 0.0
            v[NG + F_PENDING * n + p] = 0.0
            v[G_PHASE + DOUBT_PHASE] = 0.0
            v[G_PHASE + PLAY_PHASE] = 1.0
            self.phase = PLAY_PHASE
        taker = -1
        if doubter is not None:
            pile = self.pile
            cards = pile[-k:]
            truthful = True
            for c in cards:
                if c % 13 != claim:
                    truthful = False
                    break
            taker = doubter if truthful else p
            lr = self.last_reveal
            if lr is not None:
                for c in lr[1]:
                    v[G_REV + c % 13] = 0.0
                v[NG + F_REV_PLAYER * n + lr[0]] = 0.0
                v[NG + F_REV_TAKER * n + lr[3]] = 0.0
            rv = [0] * 13
            for c in cards:
                r = c % 13
                rv[r] += 1
                v[G_REV + r] = rv[r]
            v[G_REV_TRUE] = 1.0 if truthful else 0.0
            v[G_REV_FALSE] = 0.0 if truthful else 1.0
            v[NG + F_REV_PLAYER * n + p] = 1.0
            v[NG + F_REV_TAKER * n + taker] = 1.0
            self.last_reveal = [p, cards, truthful, taker]
            self.events.append(("reveal", p, tuple(cards), truthful))
            kb = self.pending_known
            if any(kb):   # DI-20: exactly these cards left the hand (public lower bound)
                kn = self.known[p]
                k0 = NG + NF * n + 13 * p
                tot = 0
                for r in range(13):
                    x = kb[r] - rv[r]
                    if x < 0:
                        x = 0
                    kn[r] = x
                    v[k0 + r] = x
                    tot += x
                self.known_total[p] = tot
                v[NG + F_UNKNOWN * n + p] = self.hand_size[p] - tot
            if not truthful:
                st = self.stats[p]
                st[ST_CAUGHT] += 1
                v[NG + F_CAUGHT * n + p] = st[ST_CAUGHT]
            self._take_pile(taker, cards)
        self.pending = -1
        self.pending_k = 0
        self.claim_rank = -1
        self.pending_known = None
        self.window = []
        self.window_pos = 0
        if self.hand_size[p] == 0:   # DI-24, DI-25, DI-26
            self.out[p] = True
            self.out_order.append(p)
            place = len(self.out_order)
            self.places[p] = place
            v[NG + F_OUT * n + p] = 1.0
            v[NG + F_PLACE * n + p] = place
            self.events.append(("out", p, place))
            if not self.options.play_to_end or place == n - 1:
                return self._finish(False)
        if self.plays_made >= self._max_plays:   # DI-28
            return self._finish(True)
        if taker >= 0 and self._taker_next:
            self._set_to_act(taker)
        else:
            self._set_to_act(self._next_in_game(p))
        return None

    def _count_play(self, v) -> int:
        """Count a play and move the required rank on (DI-14, DI-15: A, K, Q, ..., 2, A whatever
        happens to the play); returns the rank the play claimed."""
        claim = self.rank
        nr = claim - 1 if claim else 12
        self.rank = nr
        v[G_RANK + claim] = 0.0
        v[G_RANK + nr] = 1.0
        self.plays_made += 1
        v[G_PLAYS] = self.plays_made
        v[G_LEFT] = self._max_plays - self.plays_made
        return claim

    def _take_pile(self, t: int, revealed: list[int] | None) -> None:
        """Seat ``t`` takes the whole pile into hand; ``revealed``: the shown cards it publicly
        gets (None for a misclaim, DI-13, where nothing is shown)."""
        n = self.num_players
        v = self._mv
        hc = self.hand_cards[t]
        hr = self.hand_ranks[t]
        h0 = NG + (NF + 13) * n + 13 * t
        o0 = NG + (NF + 26) * n
        own_pile = self.own_pile
        pile = self.pile
        for c, s in zip(pile, self.pile_owner):
            r = c % 13
            hc[c] += 1
            hr[r] += 1
            v[h0 + r] = hr[r]
            if s >= 0:
                own_pile[s][r] = 0
                v[o0 + 13 * s + r] = 0.0
        cnt = len(pile)
        size = self.hand_size[t] + cnt
        self.hand_size[t] = size
        v[NG + F_SIZE * n + t] = size
        pile.clear()
        self.pile_owner.clear()
        v[G_PILE] = 0.0
        st = self.stats[t]
        st[ST_PICKUPS] += 1
        st[ST_PICKED] += cnt
        v[NG + F_PICKUPS * n + t] = st[ST_PICKUPS]
        v[NG + F_PICKED * n + t] = st[ST_PICKED]
        if revealed is not None:
            kn = self.known[t]
            k0 = NG + NF * n + 13 * t
            for c in revealed:
                r = c % 13
                kn[r] += 1
                v[k0 + r] = kn[r]
            self.known_total[t] += len(revealed)
            self.events.append(("take", t, cnt))
        v[NG + F_UNKNOWN * n + t] = size - self.known_total[t]

    def _misclaim(self):
        """DI-12, DI-13: cards go down and the whole pile comes back; no window; a play."""
        p = self.current_player
        n = self.num_players
        v = self._mv
        taken = len(self.pile)
        self.events.append(("misclaim", p, taken))
        st = self.stats[p]
        st[ST_PLAYS] += 1
        v[NG + F_PLAYS * n + p] = st[ST_PLAYS]
        if taken:
            self._take_pile(p, None)
        self._count_play(v)
        if self.plays_made >= self._max_plays:
            return self._finish(True)
        self._set_to_act(self._next_in_game(p))
        return None

    def _finish(self, truncated: bool) -> np.ndarray:
        """Game end: DI-25/DI-26 places, DI-29 for seats still holding cards, rewards."""
        n = self.num_players
        v = self._vec
        self.done = True
        self.truncated = truncated
        v[G_PHASE:G_PHASE + 3] = 0
        v[G_PHASE + OVER_PHASE] = 1
        v[NG + F_TO_ACT * n:NG + (F_TO_ACT + 1) * n] = 0
        self.phase = OVER_PHASE
        values = [1.0 - 2.0 * i / (n - 1) for i in range(n)]
        rewards = [0.0] * n
        pos = len(self.out_order)
        for i, s in enumerate(self.out_order):
            rewards[s] = values[i]
        rest = sorted((s for s in range(n) if not self.out[s]), key=lambda s: self.hand_size[s])
        i = 0
        while i < len(rest):
            j = i
            while j < len(rest) and self.hand_size[rest[j]] == self.hand_size[rest[i]]:
                j += 1
            share = sum(values[pos + i:pos + j]) / (j - i)
            for s in rest[i:j]:
                rewards[s] = share
                self.places[s] = pos + i + 1
                v[NG + F_PLACE * n + s] = pos + i + 1
            i = j
        if self.options.reward_mode == "winner":
            first = self.out_order[0] if self.out_order else -1
            rewards = [0.0 if first < 0 else (1.0 if s == first else -1.0) for s in range(n)]
        self.final_rewards = rewards
        self.events.append(("end", int(truncated)))
        return np.array(rewards, dtype=np.float32)

    # ---------------------------------------------------------------------------------------
    # observation, view, text
    def observation(self, seat: int) -> np.ndarray:
        """float32 vector of ``observation_size`` values, seat-relative (:mod:`.observation`)."""
        return self._vec[self._gather[seat]]

    def view(self, seat: int) -> dict:
        """Structured view of what ``seat`` may know (:func:`.view.view`)."""
        return view(self, seat)

    def action_to_text(self, action: int) -> str:
        """Canonical text: ``doubt``, ``pass``, ``play 7 7 K``, ``misclaim``; ``ValueError`` for
        anything but an id ``0..num_actions-1``."""
        return self.actions.action_to_text(action)

    def text_to_action(self, text: str) -> int:
        """Parse an action text (ranks in any order, ``10`` for T); ``ValueError`` naming a bad text."""
        return self.actions.text_to_action(text)

    # ---------------------------------------------------------------------------------------
    # copies (:mod:`.determinize`) and serialisation (:mod:`.serialisation`)
    def clone(self) -> "IDoubtItGame":
        """An independent copy in the same state (:func:`.determinize.clone`)."""
        return copies.clone(self)

    def determinize(self, seat: int, rng: np.random.Generator, truthful_claim: bool = False) -> "IDoubtItGame":
        """A copy with what ``seat`` cannot see dealt again, this game unchanged
        (:func:`.determinize.determinize`; ``truthful_claim``: from the belief that a pending claim
        is true when it can be)."""
        return copies.determinize(self, seat, rng, truthful_claim)

    def to_dict(self) -> dict:
        """JSON-serialisable exact state (:func:`.serialisation.to_dict`)."""
        return serialisation.to_dict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "IDoubtItGame":
        """The game in the state ``d`` written by :meth:`to_dict`."""
        return serialisation.from_dict(cls, d)

    def __getstate__(self) -> dict:
        return serialisation.to_dict(self)

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(serialisation.from_dict(IDoubtItGame, state).__dict__)
