"""State and rules of a Contract Rummy match: dealing, ``step``, turn flow, scoring (CR-29 ..
CR-34) and illegal-action reasons; the legal moves, observation, view, copies and serialisation
live in their own modules, and the methods of that name here delegate to them."""
from __future__ import annotations

import numpy as np

from ... import melds as ml
from ...cards import ACE_FIFTEEN_POINTS, BIT, CARD_TEXT, JOKER, NUM_CARDS, mask_of, mask_of_counts
from . import determinize, moves, observation, serialisation, view
from .actions import action_catalogue, discard_ids
from .options import CONTRACT, CONTRACTS, DRAW, PHASES, PLACE, PLAY, Options, ml_pack, set_up_deal
from .tables import catalogue

PENALTY = ACE_FIFTEEN_POINTS + (15,)
"""CR-30 penalty points per card id (joker last)."""


class ContractRummyGame:
    """State of one Contract Rummy match (all deals of ``options.deals``).

    Action ids (``contract_rummy_v0``): ``N`` is the pack size, ``M`` the meld slots (3 per seat);
    ``A_DISC``, ``A_MELD``, ``A_LAY`` and ``A_SWAP`` are the first ids of ``discard``, ``meld``,
    ``layoff`` and ``swap``. A meld on the table is a list ``[pieces, shape, owner, cards that fit
    it, cards its swappable jokers stand for, the bitmask of the cards that fit it]``
    (:meth:`_add_meld`).

    State: ``hands`` and ``known`` (per seat, card counts held and publicly picked up, CR-6),
    ``hsize``, ``stock`` (top last), ``pile`` (top last), ``melds``, ``down``, ``scores``; the turn:
    ``phase``, ``must`` (must-use card, CR-12), ``banned`` (CR-26), ``freed`` (CR-23), ``went_down``,
    ``laid`` (this turn's contract melds); ``from_new_stock``: after the pile was shuffled into a
    new stock this deal, per seat the counts of the cards it drew from that stock and still holds
    hidden (else None; for :meth:`determinize`).

    A hand is one count list (53 entries, index 52 = jokers): with 2-3 decks a card may be held
    twice or more, so a bitmask cannot hold it. ``present`` (per seat, the bitmask of the natural
    cards held) and the float32 mirrors ``hand_np`` / ``known_np`` / ``pile_np`` are indexes of
    those lists kept in step with them, for the legal-move search and the observation."""

    def __init__(self, options: Options, rng: np.random.Generator):
        self.opts = options
        self.rng = rng
        self.num_players = options.num_players
        self.N = options.pack_size
        self.M = 3 * self.num_players
        self.num_jokers = options.jokers
        self.catalogue = catalogue(self.num_jokers, options.min_run_length)
        self.multi_deck = options.decks > 1
        self.actions = action_catalogue(options)
        self.A_DISC = self.actions.start("discard")
        self.A_MELD = self.actions.start("meld")
        self.A_LAY = self.actions.start("layoff")
        self.A_SWAP = self.actions.start("swap")
        self.num_actions = self.actions.size
        self._discard_ids = discard_ids(self.A_DISC)
        self.contract7_at_once = False
        """Contract 7 under ``deal7_all_at_once`` (CR-17) in the deal being played."""
        observation.init_observation(self, observation.observation_layout(options))
        self._mask = None
        """The legal mask while the state stays (:meth:`legal_mask`)."""
        self.state_version = 0
        """Counts the changes of the state (by :meth:`step` or :meth:`_state_changed`)."""

    # ------------------------------------------------------------------ set-up
    @classmethod
    def new(cls, options: Options, rng: np.random.Generator, deal: dict | None = None) -> "ContractRummyGame":
        g = cls(options, np.random.default_rng(int(rng.integers(2 ** 63))))
        g.scores = [0] * g.num_players
        g.done = False
        g.truncated = False
        g.events = []
        g.last_deal = None
        if deal is None:
            g.deal_idx = 0
            g._start_deal(int(g.rng.integers(g.num_players)))
        else:
            set_up_deal(g, deal)
        return g

    def _reset_turn(self) -> None:
        self.phase = DRAW
        self.must = -1
        self.banned = -1
        self.freed = False
        self.went_down = False
        self.laid = []

    def _start_deal(self, dealer: int) -> None:
        """CR-4: shuffle the whole pack, deal from the dealer's left, turn one card up."""
        n = self.num_players
        self.dealer = dealer
        self.contract = self.opts.deals[self.deal_idx]
        self.contract7_at_once = self.contract == 7 and self.opts.deal7_all_at_once
        hand_size, self.need_sets, self.need_runs = CONTRACTS[self.contract]
        pack = ml_pack(self.opts)
        order = self.rng.permutation(len(pack))
        cards = [pack[i] for i in order]
        self.hands = [[0] * 53 for _ in range(n)]
        for i in range(n * hand_size):
            self.hands[(dealer + 1 + i) % n][cards[i]] += 1
        self.hsize = [hand_size] * n
        self.pile = [cards[n * hand_size]]
        self.stock = cards[:n * hand_size:-1]  # top = last
        self.melds = []
        self.down = [False] * n
        self.known = [[0] * 53 for _ in range(n)]
        self.from_new_stock = None
        self.turns = 0
        self.current_player = (dealer + 1) % n
        self._reset_turn()
        self._rebuild_buffers()
        self._state_changed()

    def _add_meld(self, pieces: list, shape, owner: int) -> None:
        """Put a meld on the table (CR-15): its pieces, shape, owner, the cards that may be laid off
        on it (CR-18, CR-19) and, for a run, the cards its jokers stand for (swappable, CR-22)."""
        fits = tuple(ml.layoff_cards(shape, True))
        self.melds.append([list(pieces), shape, owner, fits,
                           [p - NUM_CARDS for p in pieces if p >= NUM_CARDS] if shape.kind == ml.RUN else [],
                           mask_of(fits)])

    def _state_changed(self) -> None:
        """The state changed other than by :meth:`step`: the legal mask is found again when asked for."""
        self._mask = None
        self.state_version += 1

    def _rebuild_buffers(self) -> None:
        """The observation's mirrors and buffers written again from the state
        (:func:`~rummy_env.games.contract_rummy.observation.rebuild_buffers`)."""
        observation.rebuild_buffers(self)

    # ------------------------------------------------------------------ stepping
    def step(self, a: int):
        """Apply legal action ``a``. Returns per-seat float32 rewards, or None."""
        seat = self.current_player
        hand = self.hands[seat]
        known = self.known[seat]
        N = self.N
        self._mask = None
        self.state_version += 1
        if a == 0:  # draw stock (CR-11, CR-32)
            if not self.stock:
                top = self.pile.pop()
                rest = self.pile
                self.stock = [rest[i] for i in self.rng.permutation(len(rest))]
                self.pile = [top]
                self.pile_np[:] = 0
                self.pile_np[top] = 1
                self._pile_version += 1
                self.from_new_stock = [[0] * 53 for _ in range(self.num_players)]
                self.events.append(f"the pile is shuffled into a new stock ({len(self.stock)} "
                                   + ("card)" if len(self.stock) == 1 else "cards)"))
            c = self.stock.pop()
            if self.from_new_stock is not None:
                self.from_new_stock[seat][c] += 1
            hand[c] += 1
            if c < NUM_CARDS:
                self.present[seat] |= BIT[c]
            self._hand_views[seat][c] = hand[c]
            self._hand_version[seat] += 1
            self.hsize[seat] += 1
            self.phase = PLAY
            self.events.append((seat, a, None))
            return None
        if a <= N:  # take discard K (CR-11, CR-12)
            taken = self.pile[-a:]
            del self.pile[-a:]
            hand_view, known_view, pile_view = self._hand_views[seat], self._known_views[seat], self._pile_view
            present = self.present[seat]
            for c in taken:
                hand[c] += 1
                known[c] += 1
                if c < NUM_CARDS:
                    present |= BIT[c]
                hand_view[c] = hand[c]
                known_view[c] = known[c]
                pile_view[c] -= 1
            self.present[seat] = present
            self._pile_version += 1
            self._known_version += 1
            self._hand_version[seat] += 1
            self.hsize[seat] += a
            self.events.append((seat, a, taken))
            if a == 1:
                self.banned = taken[0]
                self.phase = PLAY
            else:
                self.must = taken[0]
                self.phase = PLACE if self.down[seat] else CONTRACT
            return None
        if a < self.A_MELD:  # discard (CR-25)
            c = a - self.A_DISC
            hand[c] -= 1
            if c < NUM_CARDS and not hand[c]:
                self.present[seat] &= ~BIT[c]
            self._hand_views[seat][c] = hand[c]
            self._hand_version[seat] += 1
            if known[c]:
                known[c] -= 1
                self._known_views[seat][c] = known[c]
                self._known_version += 1
            if self.from_new_stock is not None and self.from_new_stock[seat][c] > hand[c] - known[c]:
                self.from_new_stock[seat][c] -= 1
            self.hsize[seat] -= 1
            self.pile.append(c)
            self._pile_view[c] += 1
            self._pile_version += 1
            self.events.append((seat, a, None))
            if self.hsize[seat] == 0:
                return self._end_deal(seat)
            if len(self.events) > 200:
                del self.events[:-20]
            self.turns += 1
            if self.turns >= self.opts.max_turns_per_deal:
                return self._end_deal(-1)
            self.current_player = seat + 1 if seat + 1 < self.num_players else 0
            self.phase = DRAW
            self.must = self.banned = -1
            self.freed = self.went_down = False
            if self.laid:
                self.laid = []
            if not self.stock and len(self.pile) == 1:
                return self._end_deal(-1)
            return None
        self.events.append((seat, a, None))
        rewards = self._table_step(a, seat, hand, known)
        if rewards is None:
            if self.from_new_stock is not None:
                self._keep_new_stock_cards_hidden(seat)
            self.present[seat] = mask_of_counts(hand)
            self.hand_np[seat] = hand
            self.known_np[seat] = known
            self._hand_version[seat] += 1
            self._known_version += 1
            self._seldom_version += 1
            observation.write_table(self)
        return rewards

    def _keep_new_stock_cards_hidden(self, seat: int) -> None:
        """After cards left ``seat``'s hand: its cards from the new stock are among its hidden ones
        (a card it plays counts as one it held before the reshuffle while it has such a copy)."""
        hand, known, fresh = self.hands[seat], self.known[seat], self.from_new_stock[seat]
        for c in range(53):
            if fresh[c] > hand[c] - known[c]:
                fresh[c] = hand[c] - known[c]

    def _table_step(self, a: int, seat: int, hand: list, known: list):
        """``meld``, ``layoff`` and ``swap`` (the hand and the table change)."""
        if a < self.A_LAY:  # meld (CR-15, CR-16)
            i = a - self.A_MELD
            cat = self.catalogue
            for c in cat.naturals[i]:
                hand[c] -= 1
                if known[c]:
                    known[c] -= 1
            jokers = cat.jokers_in[i]
            if jokers:
                hand[52] -= jokers
                known[52] = max(0, known[52] - jokers)
            self.hsize[seat] -= cat.length[i]
            self.laid.append(len(self.melds))
            self._add_meld(list(cat.pieces[i]), cat.shape[i], seat)
            if self.must >= 0 and moves.meld_uses(self, i, self.must):
                self.must = -1
            if len(self.laid) == self.need_sets + self.need_runs:
                self.down[seat] = True
                self.went_down = True
                self.phase = PLAY
                if self.hsize[seat] == 0:
                    return self._end_deal(seat)
            else:
                self.phase = CONTRACT
            return None
        if a < self.A_SWAP:  # layoff (CR-18, CR-19)
            slot, piece = divmod(a - self.A_LAY, 104)
            c = piece - NUM_CARDS if piece >= NUM_CARDS else piece
            if piece >= NUM_CARDS:
                hand[52] -= 1
                if known[52]:
                    known[52] -= 1
                self.freed = False
                if self.must == JOKER:
                    self.must = -1
            else:
                hand[c] -= 1
                if known[c]:
                    known[c] -= 1
                if c == self.must:
                    self.must = -1
            self.hsize[seat] -= 1
            meld = self.melds[slot]
            meld[0].append(piece)
            meld[1] = ml.extend(meld[1], c, True)
            meld[3] = tuple(ml.layoff_cards(meld[1], True))
            meld[5] = mask_of(meld[3])
            if piece >= NUM_CARDS and meld[1].kind == ml.RUN:
                meld[4].append(c)
            self.phase = PLAY
            if self.hsize[seat] == 0:
                return self._end_deal(seat)
            return None
        # swap (CR-22, CR-23)
        slot, c = divmod(a - self.A_SWAP, 52)
        meld = self.melds[slot]
        meld[0][meld[0].index(NUM_CARDS + c)] = c
        meld[4].remove(c)
        hand[c] -= 1
        if known[c]:
            known[c] -= 1
        hand[52] += 1
        known[52] += 1
        if c == self.must:
            self.must = -1
        self.freed = True
        self.phase = PLACE
        return None

    def _end_deal(self, out_seat: int):
        """CR-29/CR-30/CR-33/CR-34: score the deal, then deal the next or end the match."""
        n = self.num_players
        penalties = [0 if s == out_seat else sum(PENALTY[c] * k for c, k in enumerate(self.hands[s]) if k)
                     for s in range(n)]
        for s in range(n):
            self.scores[s] += penalties[s]
        self.last_deal = {"deal": self.deal_idx + 1, "contract": self.contract, "out": out_seat,
                          "penalties": penalties, "scores": list(self.scores)}
        self.events.append(f"deal {self.deal_idx + 1} (contract {self.contract}) ends: "
                           + (f"player_{out_seat} goes out" if out_seat >= 0 else "dead deal")
                           + "; penalties " + " ".join(str(p) for p in penalties))
        if self.opts.reward_mode == "points":
            rewards = np.array([-p for p in penalties], dtype=np.float32)
        else:
            rewards = np.zeros(n, dtype=np.float32)
        if self.deal_idx + 1 < len(self.opts.deals):
            self.deal_idx += 1
            self._start_deal((self.dealer + 1) % n)
        else:
            self.done = True
            self.phase = DRAW
            self._rebuild_buffers()
            if self.opts.reward_mode == "win_loss":
                best = min(self.scores)
                sole = self.scores.count(best) == 1
                rewards = np.array([(1.0 if sole else 0.0) if x == best else -1.0 for x in self.scores],
                                   dtype=np.float32)
        self.events = self.events[-20:]
        return rewards

    # ------------------------------------------------------------------ illegal actions
    def illegal_reason(self, a: int) -> str:
        """Why ``a`` is not legal now (called for masked-out actions)."""
        if self.done:
            return "the match is over"
        N = self.N
        phase = PHASES[self.phase]
        seat = self.current_player
        if a <= N:
            if self.phase != DRAW:
                return f"the draw is over this turn (phase {phase}; CR-10)"
            if a == 0:
                return "the stock is empty and the pile has one card (CR-32)"
            if a > len(self.pile):
                return f"the pile has only {len(self.pile)} card(s) (CR-11)"
            if a >= 2 and not self.opts.deep_discard:
                return "deep_discard is off: only the top card may be taken (CR-11)"
            if a >= 2:
                return (f"the must-use card {CARD_TEXT[self.pile[-a]]} could not be put on the table this "
                        "turn (CR-12, CR-16, CR-28)")
            return "it would leave only cards of the banned text that cannot all be laid off (CR-28)"
        if self.phase == DRAW:
            return "the turn starts with a draw (CR-10)"
        if self.phase == CONTRACT and not self.A_MELD <= a < self.A_LAY:
            return "the contract is being laid: only meld is legal until it is complete (CR-15, CR-27)"
        if self.phase == PLACE:
            what = "the freed joker" if self.freed else f"the must-use card {CARD_TEXT[self.must]}"
            return f"{what} must be placed first (CR-12, CR-23)"
        if a < self.A_MELD:
            c = a - self.A_DISC
            if not self.hands[seat][c]:
                return f"{CARD_TEXT[c]} is not in hand"
            if c == self.banned:
                return f"{CARD_TEXT[c]} was taken from the pile this turn (CR-26)"
            return "no discard now (CR-17)"
        if a < self.A_LAY:
            if self.down[seat]:
                return "a seat that is down never melds again this deal (CR-15)"
            i = a - self.A_MELD
            hand = self.hands[seat]
            need = {}
            for c in self.catalogue.naturals[i]:
                need[c] = need.get(c, 0) + 1
            if any(hand[c] < copies for c, copies in need.items()) or hand[52] < self.catalogue.jokers_in[i]:
                return "the meld's cards are not in hand (CR-16)"
            return ("the rest of the contract could not be laid after it, or it is not in the contract "
                    "(CR-8, CR-9, CR-16, CR-17, CR-28)")
        if not self.down[seat]:
            return "only a seat that is down may lay off or swap (CR-15, CR-18)"
        if a < self.A_SWAP:
            slot, piece = divmod(a - self.A_LAY, 104)
            if slot >= len(self.melds):
                return f"there is no meld @{slot}"
            if self.went_down and self.contract7_at_once:
                return "after laying contract 7 only the discard is left (CR-17)"
            hand = self.hands[seat]
            if (hand[52] if piece >= NUM_CARDS else hand[piece]) == 0:
                return f"{ml.piece_text(piece)} is not in hand"
            if piece % NUM_CARDS not in self.melds[slot][3]:   # the card the piece is or stands for
                return f"{ml.piece_text(piece)} does not fit @{slot} (CR-18, CR-19, CR-24)"
            return "it would leave only cards of the banned text (CR-28)"
        slot, c = divmod(a - self.A_SWAP, 52)
        if not self.opts.joker_swap:
            return "joker_swap is off (CR-22)"
        if self.went_down:
            return "a seat may swap only if it was down before this turn (CR-22)"
        if slot >= len(self.melds) or c not in self.melds[slot][4]:
            return f"@{slot} holds no swappable JK={CARD_TEXT[c]} (CR-22, CR-24)"
        if not self.hands[seat][c]:
            return f"{CARD_TEXT[c]} is not in hand"
        return "the freed joker could not then be laid off (CR-23, CR-28)"

    # ------------------------------------------------------------------ text
    def action_to_text(self, a: int) -> str:
        """Canonical text of action id ``a``; ``ValueError`` for anything but an id ``0..num_actions-1``."""
        return self.actions.action_to_text(a)

    def text_to_action(self, text: str) -> int:
        """Action id of an action text (rules file "Action text", grammar of ``rummy_env.actions``);
        ``ValueError`` naming an unknown or malformed text."""
        return self.actions.text_to_action(text)

    # ------------------------------------------------------------------ delegations
    def legal_actions(self) -> list:
        """Legal action ids of ``current_player`` (unsorted; :func:`moves.legal_actions`)."""
        return moves.legal_actions(self)

    def legal_mask(self) -> np.ndarray:
        """int8 mask over all actions for ``current_player`` (kept until the state changes)."""
        if self._mask is None:
            self._mask = moves.legal_mask(self)
        return self._mask

    def observation(self, seat: int) -> np.ndarray:
        """float32 vector (layout in ``contract_rummy_v0``) of what ``seat`` may know."""
        return observation.observation(self, seat)

    def view(self, seat: int) -> dict:
        """``seat``'s structured view (:func:`view.view`)."""
        return view.view(self, seat)

    def clone(self) -> "ContractRummyGame":
        """An independent copy in the same state (:func:`determinize.clone`)."""
        return determinize.clone(self)

    def determinize(self, seat: int, rng: np.random.Generator) -> "ContractRummyGame":
        """A copy with what ``seat`` cannot see dealt again (:func:`determinize.determinize`)."""
        return determinize.determinize(self, seat, rng)

    def to_dict(self) -> dict:
        return serialisation.to_dict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "ContractRummyGame":
        return serialisation.from_dict(cls, d)

    def __getstate__(self):
        return self.to_dict()

    def __setstate__(self, d):
        self.__dict__.update(type(self).from_dict(d).__dict__)
