"""Tongits' game state, :class:`TongitsGame` (TG-1..TG-38): dealing (TG-2, TG-3, TG-38), ``step``
and the turn flow (TG-5..TG-22), hand end and chips (TG-24..TG-35), the queries the rules ask
(exposed, qualified, hand points) and the reasons an action is illegal. The legal mask, the
observation, the view, the copies for search and serialisation live in their own modules and
are bound here as the game's methods.

A table meld is a list ``[owner, mask, secret, kind (0 set / 1 run), rank | suit, lo, hi]``.
"""
from __future__ import annotations

import numpy as np

from ...cards import BIT, CARD_TEXT, NUM_CARDS, RANK_OF, SUIT_OF, cards_of, mask_of, mask_points
from . import determinize as copies, moves, observation as buffers, serialisation, view as views
from .actions import (A_CALL, A_CHALLENGE, A_DRAW, A_FOLD, A_TAKE, ACTIONS, DISCARD0, LAYOFF0, MELD0, NUM_ACTIONS,
                      SECRET0)
from .moves import fit
from .observation import OBS_SIZE, S_BLOCKED, S_CALLER, S_CHALL, S_FOLD, S_PHASE, S_SIZES, S_STOCK, S_TURN, S_TURNS
from .options import DRAW, MELD, NUM_PLAYERS, PHASES, PICKUP, RESPONSE, TURN_CAP, Options, set_up_deal
from .tables import ACES, CAT_MASK, RANK_MASK, four_ranks, least_deadwood
from .view import HAND_END_TEXT


class TongitsGame:
    """State of one Tongits match (TG-1..TG-38); action ids in ``actions.py``."""

    num_players = NUM_PLAYERS
    num_actions = NUM_ACTIONS
    observation_size = OBS_SIZE

    # ---- construction ------------------------------------------------------------------
    @classmethod
    def new(cls, options: Options, rng: np.random.Generator, deal: dict | None = None) -> "TongitsGame":
        g = cls.__new__(cls)
        g.options = options
        g.rng = rng
        g.chips = [0, 0, 0]
        g.hand_index = 0
        g.done = False
        g.truncated = False
        g.last_hand = None
        if deal is None:
            g._deal(int(rng.integers(NUM_PLAYERS)))   # TG-2
        else:
            g._reset_hand_state(dealer=0)
            set_up_deal(g, deal)
            g._rebuild()
        return g

    def _reset_hand_state(self, dealer: int) -> None:
        self.dealer = dealer
        self.turn = dealer
        self.current_player = dealer
        self.phase = MELD                  # TG-5
        self.melds = []                    # [owner, mask, secret, kind(0 set/1 run), rank|suit, lo, hi]
        self.discard = []
        self.blocked = [False, False, False]
        self.taken = -1
        self.known = [0, 0, 0]
        self.caller = -1
        self.responses = [0, 0, 0]         # 1 challenge, 2 fold
        self.turns_done = 0
        self.events = []

    def _deal(self, dealer: int) -> None:
        """TG-3: dealer 13 cards, the others 12, 15 to the stock; the dealer opens (TG-5)."""
        self._reset_hand_state(dealer)
        perm = self.rng.permutation(NUM_CARDS).tolist()
        cards = [None, None, None]
        cards[dealer] = perm[:13]
        cards[(dealer + 1) % 3] = perm[13:25]
        cards[(dealer + 2) % 3] = perm[25:37]
        self.hands = [mask_of(cs) for cs in cards]
        self.stock = perm[37:]             # top card last
        self._rebuild(cards)

    # -- the methods of the other modules: observation (observation.py), legal moves (moves.py), the view
    # (view.py), copies (determinize.py) and serialisation (serialisation.py)
    observation = buffers.observation
    _rebuild = buffers.rebuild
    _index_meld = buffers.index_meld
    legal_mask = moves.legal_mask
    view = views.view
    clone = copies.clone
    determinize = copies.determinize
    to_dict = serialisation.to_dict
    __getstate__ = serialisation.to_dict
    __setstate__ = serialisation.setstate

    @classmethod
    def from_dict(cls, d: dict) -> "TongitsGame":
        """The game :meth:`to_dict` wrote, restored exactly."""
        g = cls.__new__(cls)
        g.options = Options(**d["options"])
        g.rng = serialisation.rng_of(d)
        serialisation.load_state(g, d)
        return g

    # ---- queries -----------------------------------------------------------------------
    def exposed(self, seat: int) -> bool:
        """Owns a face-up meld (TG-13, TG-18)."""
        return self.faceup[seat] > 0

    def qualified(self, seat: int) -> bool:
        """Exposed, owns a face-down secret, or holds four of one rank (tongits.md "Terms")."""
        return self.faceup[seat] > 0 or self.secrets[seat] > 0 or four_ranks(self.hands[seat]) != 0

    def hand_points(self, seat: int) -> int:
        """TG-30 (and option ``count_hand_melds``)."""
        h = self.hands[seat]
        if self.options.count_hand_melds:
            return mask_points(h)
        return least_deadwood(h)

    def illegal_reason(self, a: int) -> str:
        if self.done:
            return "the match is over"
        p = self.current_player
        ph = PHASES[self.phase]
        h = self.hands[p]
        if a < DISCARD0:
            if a in (A_CHALLENGE, A_FOLD):
                if self.phase == RESPONSE:
                    return ("not qualified (no meld, no face-down secret, no four of one rank in hand): "
                            "fold is the only answer (TG-20)")
                return f"only answers a Draw call, and the phase is {ph} (TG-20)"
            if self.phase != DRAW:
                return f"only in the draw phase, and the phase is {ph} (TG-6)"
            if a == A_TAKE:
                if not self.discard:
                    return "the discard pile is empty"
                return "the top discard forms no meld with two cards of the hand (TG-7)"
            if a == A_CALL:
                if not self.faceup[p]:
                    return "only a player with a face-up meld may call Draw (TG-18, TG-19)"
                return "blocked: an opponent laid off on this player's meld (TG-16)"
            return "not legal now"
        if self.phase in (DRAW, RESPONSE):
            return f"the phase is {ph}: {'draw first' if self.phase == DRAW else 'answer the Draw call (TG-20)'}"
        if a < MELD0:
            c = a - DISCARD0
            if self.phase == PICKUP:
                return "the taken discard must be melded first (TG-7)"
            if not h & BIT[c]:
                return f"{CARD_TEXT[c]} is not in the hand"
            return "the card taken from the discard pile cannot be discarded this turn"
        if a < SECRET0:
            mm = CAT_MASK[a - MELD0]
            if mm & ~h:
                return "not all its cards are in the hand"
            return "after taking the discard only a meld holding the taken card is legal (TG-7)"
        if a < LAYOFF0:
            if self.phase == PICKUP:
                return "the taken discard must be melded face up first (TG-7)"
            return "the hand does not hold all four cards of that rank (TG-13)"
        c, k = divmod(a - LAYOFF0, 17)
        if self.phase == PICKUP:
            return "the taken discard must be melded first (TG-7)"
        if not h & BIT[c]:
            return f"{CARD_TEXT[c]} is not in the hand"
        if k >= len(self.melds):
            return f"there is no meld @{k} (TG-14)"
        if self.melds[k][2]:
            return "nothing can be laid off on a face-down secret (TG-13)"
        return f"{CARD_TEXT[c]} does not extend @{k} (TG-15)"

    # ---- step --------------------------------------------------------------------------
    def _remove(self, p: int, c: int) -> None:
        b = BIT[c]
        self.hands[p] ^= b
        self.hand_arr[p, c] = 0.0
        if self.known[p] & b:
            self.known[p] ^= b
            ext = self.ext
            ext[(p + 1) % 3, 104 + c] = 0.0
            ext[(p + 2) % 3, 52 + c] = 0.0

    def _set_phase(self, ph: int) -> None:
        sa = self.sa
        sa[S_PHASE + self.phase] = 0.0
        sa[S_PHASE + ph] = 1.0
        self.phase = ph

    def step(self, a: int):
        """Apply legal action ``a``; returns per-seat rewards when a hand ends, else None."""
        self._mask = None
        p = self.current_player
        sa = self.sa
        if a < DISCARD0:
            if a == A_DRAW:                                               # TG-6
                c = self.stock.pop()
                self.hands[p] |= BIT[c]
                self.hand_arr[p, c] = 1.0
                n = self.sizes[p] = self.sizes[p] + 1
                sa[S_SIZES + p] = n
                sa[S_STOCK] = len(self.stock)
                sa[S_PHASE + DRAW] = 0.0
                sa[S_PHASE + MELD] = 1.0
                self.phase = MELD
                ev = self.events
                ev.append((self.hand_index, p, "draws from the stock", ""))
                if len(ev) > 20:
                    del ev[0]
                return None
            if a == A_TAKE:                                               # TG-7
                c = self.discard.pop()
                pub = self.pub
                pub[c] = 0.0
                pub[52 + c] = 0.0
                if self.discard:
                    pub[52 + self.discard[-1]] = 1.0
                b = BIT[c]
                self.hands[p] |= b
                self.hand_arr[p, c] = 1.0
                n = self.sizes[p] = self.sizes[p] + 1
                sa[S_SIZES + p] = n
                self.known[p] |= b
                ext = self.ext
                ext[p, c] = 1.0
                ext[(p + 1) % 3, 104 + c] = 1.0
                ext[(p + 2) % 3, 52 + c] = 1.0
                self.taken = c
                self._set_phase(PICKUP if self.options.discard_take_must_meld else MELD)
                self._event(p, "takes", CARD_TEXT[c])
                return None
            if a == A_CALL:                                               # TG-18
                self.caller = p
                sa[S_CALLER + p] = 1.0
                self._set_phase(RESPONSE)
                self._event(p, "calls draw")
                return self._next_responder(p)
            if a == A_CHALLENGE:                                          # TG-20
                self.responses[p] = 1
                sa[S_CHALL + p] = 1.0
                self._event(p, "challenges")
            else:
                self.responses[p] = 2
                sa[S_FOLD + p] = 1.0
                self._event(p, "folds")
            return self._next_responder(p)
        if a < MELD0:                                                     # TG-8
            c = a - DISCARD0
            self._remove(p, c)
            n = self.sizes[p] = self.sizes[p] - 1
            sa[S_SIZES + p] = n
            pub = self.pub
            if self.discard:
                pub[52 + self.discard[-1]] = 0.0
            self.discard.append(c)
            pub[c] = 1.0
            pub[52 + c] = 1.0
            self._event(p, "discards", CARD_TEXT[c])
            if not n:
                return self._end_hand(p, "tongits")                       # TG-9, TG-17
            self.turns_done += 1
            sa[S_TURNS] = self.turns_done
            if not self.stock or (self.turns_done >= TURN_CAP and not self.options.discard_take_must_meld):
                return self._settle_exhausted(p)                          # TG-24, TG-25
            if self.blocked[p]:
                self.blocked[p] = False                                   # TG-16
                sa[S_BLOCKED + p] = 0.0
            if self.taken >= 0:
                self.ext[p, self.taken] = 0.0
                self.taken = -1
            sa[S_TURN + p] = 0.0
            p = (p + 1) % 3
            sa[S_TURN + p] = 1.0
            self.turn = self.current_player = p
            sa[S_PHASE + MELD] = 0.0
            sa[S_PHASE + DRAW] = 1.0
            self.phase = DRAW
            return None
        if a < LAYOFF0:                                                   # TG-10..TG-13
            secret = a >= SECRET0
            mm = RANK_MASK[a - SECRET0 + 1] if secret else CAT_MASK[a - MELD0]
            cards = cards_of(mm)
            for c in cards:
                self._remove(p, c)
            n = self.sizes[p] = self.sizes[p] - len(cards)
            sa[S_SIZES + p] = n
            if secret or RANK_OF[cards[0]] == RANK_OF[cards[-1]]:
                meld = [p, mm, secret, 0, RANK_OF[cards[0]], 0, 0]
            else:
                meld = [p, mm, False, 1, SUIT_OF[cards[0]], RANK_OF[cards[0]], RANK_OF[cards[-1]]]
            self.melds.append(meld)
            self._index_meld(len(self.melds) - 1, meld)
            if self.phase != MELD:
                self._set_phase(MELD)
            if secret:
                self._event(p, "lays a secret")
            else:
                self._event(p, "melds", " ".join(CARD_TEXT[c] for c in cards))
            if not n:
                return self._end_hand(p, "tongits")                       # TG-9
            return None
        c, k = divmod(a - LAYOFF0, 17)                                    # TG-15
        self._remove(p, c)
        n = self.sizes[p] = self.sizes[p] - 1
        sa[S_SIZES + p] = n
        m = self.melds[k]
        m[1] |= BIT[c]
        if m[3] == 1:
            r = RANK_OF[c]
            if r < m[5]:
                m[5] = r
            else:
                m[6] = r
        self.fits[k] = fit(m)
        self.pub[104 + 52 * k + c] = 1.0
        owner = m[0]
        if owner != p and not self.blocked[owner]:
            self.blocked[owner] = True                                    # TG-16
            sa[S_BLOCKED + owner] = 1.0
        self._event(p, "lays off", f"{CARD_TEXT[c]} @{k}")
        if not n:
            return self._end_hand(p, "tongits")
        return None

    def _event(self, seat: int, what: str, arg: str = "") -> None:
        ev = self.events
        ev.append((self.hand_index, seat, what, arg))
        if len(ev) > 20:
            del ev[0]

    def _next_responder(self, after: int):
        """TG-20: every other player answers in turn from the caller's left, qualified or not
        (skipping one would tell whether it holds four of one rank); then TG-21, TG-22."""
        s = (after + 1) % 3
        if s == self.caller:
            return self._resolve_draw()
        self.current_player = s
        return None

    def _resolve_draw(self):
        """TG-21..TG-23, TG-28."""
        caller = self.caller
        challengers = [(caller + k) % 3 for k in (1, 2) if self.responses[(caller + k) % 3] == 1]
        if not challengers:
            return self._end_hand(caller, "draw")
        best = self.hand_points(caller)
        winner = caller
        for s in challengers:   # turn order after the caller; strict < keeps the first tied
            pts = self.hand_points(s)
            if pts < best or (winner == caller and pts == best):
                best, winner = pts, s
        if winner == caller:
            return self._end_hand(caller, "draw_challenged")
        return self._end_hand(winner, "challenge", burned=caller)

    def _settle_exhausted(self, last: int):
        """TG-25..TG-27: lowest hand points among qualified players; ties to ``last`` then turn order."""
        order = [last, (last + 1) % 3, (last + 2) % 3]
        cand = order
        if self.options.require_meld_to_contest:
            cand = [s for s in order if self.qualified(s)] or order
        pts = {s: self.hand_points(s) for s in cand}
        best = min(pts.values())
        winner = next(s for s in cand if pts[s] == best)
        return self._end_hand(winner, "stock" if not self.stock else "turn_cap")

    def _end_hand(self, w: int, how: str, burned: int = -1):
        """TG-31..TG-34 chips, TG-29 reveal, TG-35/TG-38 next hand or end of the match."""
        base = 3 if how in ("tongits", "challenge") else 1
        aces = (self.hands[w] & ACES).bit_count()
        for m in self.melds:
            if m[0] == w:
                aces += (m[1] & ACES).bit_count()
        secrets = self.secrets[w] + four_ranks(self.hands[w]).bit_count()
        gain = base + aces + 3 * secrets
        delta = [0, 0, 0]
        if self.options.chip_mode == "bank":
            delta[w] = gain
            if burned >= 0:
                delta[burned] = -1
        else:
            for s in range(3):
                if s != w:
                    delta[s] = -gain
                    delta[w] += gain
            if burned >= 0:
                delta[burned] -= 1
                delta[w] += 1
        for s in range(3):
            self.chips[s] += delta[s]
        self.last_hand = {
            "hand_index": self.hand_index, "dealer": self.dealer, "winner": w, "how": how,
            "burned": burned, "chips_change": delta,
            "points": [self.hand_points(s) for s in range(3)],
            "hands": list(self.hands), "melds": [m[:] for m in self.melds],
        }
        burn_text = f" (player_{burned} is burned)" if burned >= 0 else ""
        self._event(w, "wins the hand:", HAND_END_TEXT[how] + burn_text)
        self.hand_index += 1
        if self.hand_index >= self.options.hands_per_match:
            self.done = True
            self.current_player = w
            self._rebuild()
            if self.options.reward_mode == "win_loss":
                top = max(self.chips)
                n_top = self.chips.count(top)
                return np.array([(1.0 if n_top == 1 else 0.0) if c == top else -1.0 for c in self.chips],
                                dtype=np.float32)
        else:
            ev = self.events
            self._deal(w)                                                 # TG-38
            self.events = ev
        if self.options.reward_mode == "chips":
            return np.array(delta, dtype=np.float32)
        return None

    # ---- action text ---------------------------------------------------------------------
    def action_to_text(self, a: int) -> str:
        """Canonical text of action id ``a``; ``ValueError`` for anything but an id 0..1282."""
        return ACTIONS.action_to_text(a)

    def text_to_action(self, text: str) -> int:
        """Action id of an action text (tongits.md "Action text"); ``ValueError`` naming a bad text."""
        return ACTIONS.text_to_action(text)
