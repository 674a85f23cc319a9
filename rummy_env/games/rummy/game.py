"""Rummy's game state, :class:`RummyGame` (RM-1..RM-32): dealing, ``step`` and the moves, the turn
flow, round and match scoring, and the reasons an action is illegal. The legal mask, the
observation, the view, the copies for search and serialisation live in their own modules and
are bound here as the game's methods.

State (card sets are 52-bit ``int`` masks, ``c = 13 * suit + rank - 1``):

- ``hands[p]``; ``stock`` (list, **top card last**); ``discard`` (list, bottom first, top last)
  and ``pile_mask``;
- the table (RM-13): ``meld_owner[k]``, ``meld_mask[k]``, ``meld_shape[k]`` (a
  :class:`rummy_env.melds.Meld`), ``meld_fit[k]`` (mask of the cards that may be laid off on it,
  RM-14); ``front[p]``: the table cards lying in front of seat p (its melds and lay-offs, RM-16);
- ``known[p]``: cards p took from the discard pile and still holds (public, RM-32);
- ``taken``: the card taken from the discard pile this turn or -1 (RM-17);
- ``clean_start``: the current turn began with none of the player's cards on the table (RM-23);
- ``turned``: the card mask of each packet turned over this round (RM-24), public, for
  :meth:`RummyGame.determinize`.
"""
from __future__ import annotations

from collections import deque

import numpy as np

from ...cards import ACE_FIFTEEN_POINTS, BIT, CARD_TEXT, NUM_CARDS, POINTS, cards_of, cards_text, hand_points, mask_texts
from ...melds import Meld, extend
from . import determinize as copies, moves, observation as buffers, serialisation, view as views
from .actions import ACTIONS, DISCARD0, DRAW_STOCK, LAYOFF0, MELD0, NUM_ACTIONS, NUM_MELD_SLOTS, TAKE_DISCARD
from .options import DRAW, HAND_SIZE, PLAY, Options, set_up_deal
from .tables import ACE_HIGH_ONLY, CAT_FIT, CAT_MASK, CAT_SHAPE, CATALOGUE, fit_mask


class RummyGame:
    """One Rummy match (RM-1..RM-32). Create with :meth:`new`; seats are ``0..n-1``."""

    num_actions = NUM_ACTIONS

    # -- creation ------------------------------------------------------------------------------
    @classmethod
    def new(cls, options: Options, rng: np.random.Generator, deal: dict | None = None) -> "RummyGame":
        """Start a match: a seeded deal (RM-2..RM-5), or the scenario ``deal`` (rummy.md keys)."""
        g = cls.__new__(cls)
        g._init_common(options, rng)
        g.scores = [0] * g.num_players
        g.rounds_played = 0
        if deal is None:
            g.dealer = int(rng.integers(g.num_players))
            g._deal_round()
        else:
            g._new_round_state()
            set_up_deal(g, deal)
            g._rebuild_buf()
        return g

    def _init_common(self, options: Options, rng: np.random.Generator) -> None:
        self.options = options
        self.rng = rng
        self.num_players = n = options.num_players
        self.k = HAND_SIZE[n]
        self.layout = buffers.BUFFER_LAYOUTS[n]
        self._buf = np.zeros(self.layout.abs_size, np.float32)
        self._mv = memoryview(self._buf)  # fast scalar writes into _buf
        self._points = ACE_FIFTEEN_POINTS if options.ace_high else POINTS  # RM-22
        self._cat_fit = CAT_FIT[options.ace_high]
        self._score_scale = float(options.target_score or 100)
        self.done = False
        self.truncated = False
        self.events: deque = deque(maxlen=20)
        self.last_round: dict | None = None
        self._mask = None

    def _new_round_state(self) -> None:
        n = self.num_players
        self.meld_owner: list[int] = []
        self.meld_mask: list[int] = []
        self.meld_shape: list[Meld] = []
        self.meld_fit: list[int] = []
        self.front = [0] * n
        self.known = [0] * n
        self.taken = -1
        self.turnovers = 0
        self.turned: list[int] = []
        self.turns = 0
        self.phase = DRAW

    def _deal_round(self) -> None:
        """Shuffle and deal one round (RM-2..RM-5)."""
        n, k = self.num_players, self.k
        self._new_round_state()
        deck = self.rng.permutation(NUM_CARDS).tolist()
        hands = [0] * n
        first = self.dealer + 1
        for i in range(n * k):
            hands[(first + i) % n] |= BIT[deck[i]]
        self.hands = hands
        self.discard = [deck[n * k]]
        self.pile_mask = BIT[deck[n * k]]
        self.stock = deck[n * k + 1:][::-1]
        self.current_player = first % n
        self.clean_start = True
        self.events.append(("deal", self.rounds_played + 1, self.dealer))
        self._mask = None
        self._rebuild_buf()

    # -- the methods of the other modules: observation (observation.py), legal moves (moves.py), the view
    # (view.py), copies (determinize.py) and serialisation (serialisation.py)
    observation = buffers.observation
    _rebuild_buf = buffers.rebuild_buf
    legal_mask = moves.legal_mask
    view = views.view
    clone = copies.clone
    determinize = copies.determinize
    to_dict = serialisation.to_dict
    __getstate__ = serialisation.getstate
    __setstate__ = serialisation.setstate

    @classmethod
    def from_dict(cls, d: dict) -> "RummyGame":
        """The game :meth:`to_dict` wrote, restored exactly."""
        g = cls.__new__(cls)
        g._init_common(Options(**d["options"]), serialisation.rng_of(d))
        serialisation.load_state(g, d)
        return g

    # -- legality --------------------------------------------------------------------------------
    @property
    def current_taken_bit(self) -> int:
        t = self.taken
        return BIT[t] & self.hands[self.current_player] if t >= 0 else 0

    def legal_actions(self) -> list[int]:
        return np.flatnonzero(self.legal_mask()).tolist()

    def illegal_reason(self, action: int) -> str:
        """Why ``action`` is not legal now."""
        if self.done:
            return "the match is over"
        if not 0 <= action < NUM_ACTIONS:
            return f"action ids are 0..{NUM_ACTIONS - 1}"
        if self.legal_mask()[action]:
            return "it is legal"
        hand = self.hands[self.current_player]
        if action < DISCARD0:
            return "the draw is done this turn; meld, lay off or discard (RM-6, RM-7, RM-9)"
        if self.phase == DRAW:
            return "draw first: 'draw stock' or 'take discard' (RM-6)"
        mdgo = "must_discard_to_go_out: the last card must be discarded (RM-20)"
        strand = "it would leave only the taken card in hand with nowhere to lay it off (RM-17, RM-18)"
        if action < MELD0:
            c = action - DISCARD0
            if not hand & BIT[c]:
                return f"{CARD_TEXT[c]} is not in your hand"
            return f"{CARD_TEXT[c]} was taken from the discard pile this turn (RM-17)"
        if action < LAYOFF0:
            m = action - MELD0
            missing = CAT_MASK[m] & ~hand
            if missing:
                return f"not in your hand: {cards_text(cards_of(missing))}"
            if m in ACE_HIGH_ONLY and not self.options.ace_high:
                return "an ace ranks high only with the ace_high option (RM-11, RM-12)"
            return mdgo if hand == CAT_MASK[m] and self.options.must_discard_to_go_out else strand
        c, k = divmod(action - LAYOFF0, NUM_MELD_SLOTS)
        if k >= len(self.meld_mask):
            return f"there is no meld @{k}: the table holds {len(self.meld_mask)} meld(s) (RM-13)"
        if not hand & BIT[c]:
            return f"{CARD_TEXT[c]} is not in your hand"
        if not self.meld_fit[k] & BIT[c]:
            return f"{CARD_TEXT[c]} does not fit meld @{k} (RM-13, RM-14)"
        return mdgo if hand == BIT[c] and self.options.must_discard_to_go_out else strand

    # -- moves -----------------------------------------------------------------------------------
    def step(self, action: int) -> np.ndarray | None:
        """Apply a legal action; returns per-seat float32 rewards on a round's last step, else None."""
        if self.done or not self.legal_mask()[action]:
            raise ValueError(f"illegal action {action} '{self.action_to_text(action)}': "
                             f"{self.illegal_reason(action)}")
        self._mask = None
        p = self.current_player
        if action == DRAW_STOCK:
            self._draw_stock(p)
            return None
        if action == TAKE_DISCARD:
            self._take_discard(p)
            return None
        if action < MELD0:
            return self._discard(p, action - DISCARD0)
        if action < LAYOFF0:
            return self._meld(p, action - MELD0)
        c, k = divmod(action - LAYOFF0, NUM_MELD_SLOTS)
        return self._layoff(p, c, k)

    def _enter_play(self, p: int, c: int) -> None:
        L, buf = self.layout, self._mv
        self.hands[p] |= BIT[c]
        self.phase = PLAY
        buf[L.hands + 52 * p + c] = 1.0
        buf[L.hand_size + p] = self.hands[p].bit_count() / self.k
        buf[L.phase] = 0.0
        buf[L.phase + 1] = 1.0

    def _draw_stock(self, p: int) -> None:
        """Draw the stock's top card, turning the discard pile over first if it is empty (RM-6, RM-24)."""
        if not self.stock:
            self._turnover()
        c = self.stock.pop()
        self._enter_play(p, c)
        self._mv[self.layout.stock] = len(self.stock) / 52
        self.events.append(("draw", p))

    def _turnover(self) -> None:
        """RM-24: all but the top discard become the stock, bottom card on top (or shuffled)."""
        L, buf = self.layout, self._buf
        top = self.discard[-1]
        packet = self.discard[:-1]
        self.turned.append(self.pile_mask & ~BIT[top])
        if self.options.shuffle_turnover:
            self.stock = [packet[i] for i in self.rng.permutation(len(packet))]
        else:
            self.stock = packet[::-1]
        self.discard = [top]
        self.pile_mask = BIT[top]
        self.turnovers += 1
        buf[L.pile:L.pile + 52] = 0.0
        buf[L.pile + top] = 1.0
        buf[L.turnovers] = self.turnovers / max(1, self.options.max_turnovers)
        self.events.append(("turnover", self.turnovers))

    def _take_discard(self, p: int) -> None:
        """Take the discard pile's top card (RM-6); it becomes the taken card (RM-17) and public (RM-32)."""
        L, buf = self.layout, self._mv
        c = self.discard.pop()
        self.pile_mask ^= BIT[c]
        self.known[p] |= BIT[c]
        self.taken = c
        buf[L.pile + c] = 0.0
        buf[L.top + c] = 0.0
        if self.discard:
            buf[L.top + self.discard[-1]] = 1.0
        buf[L.taken + c] = 1.0
        buf[L.known + 52 * p + c] = 1.0
        self._enter_play(p, c)
        self.events.append(("take", p, c))

    def _leave_hand(self, p: int, mask: int, cards) -> None:
        L, buf = self.layout, self._mv
        self.hands[p] &= ~mask
        hands = L.hands + 52 * p
        for c in cards:
            buf[hands + c] = 0.0
        if self.known[p] & mask:
            self.known[p] &= ~mask
            known = L.known + 52 * p
            for c in cards:
                buf[known + c] = 0.0
        buf[L.hand_size + p] = self.hands[p].bit_count() / self.k

    def _discard(self, p: int, c: int) -> np.ndarray | None:
        """Discard ends the turn (RM-7); an empty hand goes out (RM-19); caps end the round (RM-26)."""
        L, buf = self.layout, self._mv
        self._leave_hand(p, BIT[c], (c,))
        if self.discard:
            buf[L.top + self.discard[-1]] = 0.0
        self.discard.append(c)
        self.pile_mask |= BIT[c]
        buf[L.pile + c] = 1.0
        buf[L.top + c] = 1.0
        if self.taken >= 0:
            buf[L.taken + self.taken] = 0.0
            self.taken = -1
        self.events.append(("discard", p, c))
        if not self.hands[p]:
            return self._go_out(p)
        self.turns += 1
        if self.turns >= self.options.max_turns:
            return self._dead_round("max_turns")
        if not self.stock and self.turnovers >= self.options.max_turnovers:
            return self._dead_round("max_turnovers")
        nxt = (p + 1) % self.num_players
        self.current_player = nxt
        self.clean_start = not self.front[nxt]
        self.phase = DRAW
        buf[L.phase] = 1.0
        buf[L.phase + 1] = 0.0
        buf[L.turns] = self.turns / self.options.max_turns
        return None

    def _meld(self, p: int, m: int) -> np.ndarray | None:
        """Lay meld ``m`` from hand as the next table meld @k (RM-10, RM-13)."""
        L, buf, n = self.layout, self._mv, self.num_players
        mask = CAT_MASK[m]
        cards = CATALOGUE[m]
        k = len(self.meld_mask)
        self._leave_hand(p, mask, cards)
        self.front[p] |= mask
        self.meld_owner.append(p)
        self.meld_mask.append(mask)
        self.meld_shape.append(CAT_SHAPE[m])
        self.meld_fit.append(self._cat_fit[m])
        front, slot = L.front + 52 * p, L.melds + 52 * k
        for c in cards:
            buf[front + c] = 1.0
            buf[slot + c] = 1.0
        buf[L.owner + k * n + p] = 1.0
        self.events.append(("meld", p, m, k))
        return None if self.hands[p] else self._go_out(p)

    def _layoff(self, p: int, c: int, k: int) -> np.ndarray | None:
        """Lay card ``c`` off on meld @k (RM-14..RM-16)."""
        L, buf, high = self.layout, self._mv, self.options.ace_high
        bit = BIT[c]
        self._leave_hand(p, bit, (c,))
        self.front[p] |= bit
        shape = self.meld_shape[k] = extend(self.meld_shape[k], c, high)
        mask = self.meld_mask[k] = self.meld_mask[k] | bit
        self.meld_fit[k] = fit_mask(shape, mask, high)
        buf[L.front + 52 * p + c] = 1.0
        buf[L.melds + 52 * k + c] = 1.0
        self.events.append(("layoff", p, c, k))
        return None if self.hands[p] else self._go_out(p)

    # -- round and match end -----------------------------------------------------------------------
    def _go_out(self, p: int) -> np.ndarray:
        """Score a round won by ``p`` (RM-19, RM-21..RM-23)."""
        n, pts = self.num_players, self._points
        values = [hand_points(h, pts) for h in self.hands]
        factor = 2 if self.clean_start else 1
        score = factor * sum(values)
        self.scores[p] += score
        rewards = np.zeros(n, np.float32)
        mode = self.options.reward_mode
        if mode == "points":
            rewards[p] = score
        elif mode == "zero_sum":
            for q in range(n):
                rewards[q] = score if q == p else -factor * values[q]
        self.last_round = {"round": self.rounds_played + 1, "winner": p, "points": score,
                           "rummy": bool(self.clean_start), "dead": False,
                           "hands": [list(mask_texts(h)) for h in self.hands], "hand_points": values}
        self.events.append(("out", p, score, int(self.clean_start)))
        return self._finish_round(rewards)

    def _dead_round(self, cap: str) -> np.ndarray:
        """RM-26: the round ends with no score."""
        self.last_round = {"round": self.rounds_played + 1, "winner": -1, "points": 0, "rummy": False,
                           "dead": True, "cap": cap}
        self.events.append(("dead", cap))
        return self._finish_round(np.zeros(self.num_players, np.float32))

    def _finish_round(self, rewards: np.ndarray) -> np.ndarray:
        """Match end (RM-27..RM-30) or the next deal with the deal passed left (RM-31)."""
        opts = self.options
        self.rounds_played += 1
        self.taken = -1
        target = opts.target_score
        if target > 0 and max(self.scores) >= target:
            self._end_match(truncated=False, rewards=rewards)
        elif self.rounds_played >= opts.max_rounds:
            self._end_match(truncated=target > 0, rewards=rewards)
        else:
            self.dealer = (self.dealer + 1) % self.num_players
            self._deal_round()
        return rewards

    def _end_match(self, truncated: bool, rewards: np.ndarray) -> None:
        self.done = True
        self.truncated = truncated
        best = max(self.scores)
        winners = [q for q, s in enumerate(self.scores) if s == best]
        if self.options.reward_mode == "win_loss":
            for q in range(self.num_players):
                rewards[q] += (1.0 if len(winners) == 1 else 0.0) if q in winners else -1.0
        self.events.append(("end", int(truncated), *winners))
        self._rebuild_buf()

    def winners(self) -> list[int]:
        """Seats with the highest total (the match's winners once ``done``, RM-28)."""
        best = max(self.scores)
        return [q for q, s in enumerate(self.scores) if s == best]

    # -- text --------------------------------------------------------------------------------------
    def action_to_text(self, action: int) -> str:
        """Canonical text of action id ``action``; ``ValueError`` for anything but an id 0..1306."""
        return ACTIONS.action_to_text(action)

    def text_to_action(self, text: str) -> int:
        """Action id of an action text (rummy.md "Action text"); ``ValueError`` naming a bad text."""
        return ACTIONS.text_to_action(text)

