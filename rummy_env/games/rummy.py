"""Rummy (basic "Rum") rules engine: ``docs/rules/rummy.md``, rules RM-1..RM-32.

Plain Python + numpy. :class:`RummyGame` holds one match (an episode, RM-29) and implements the
``Game`` protocol of :mod:`rummy_env.base`; :class:`Options` holds the rules options.

Where to find what:

- actions: ``ACTIONS`` (the catalogue: segments, texts, parser), ``DRAW_STOCK`` .. ``LAYOFF0`` its starts;
- options: :class:`Options`; scenario deals: ``RummyGame._setup`` (keys ``DEAL_KEYS``);
- observation: ``_observation_layout`` (named parts, documented in ``rummy_v0``), ``BufferLayout``
  (the engine's absolute buffer), ``RummyGame._rebuild_buf`` / ``observation``;
- rules: legality ``legal_mask`` / ``_play_bytes`` / ``illegal_reason``; moves ``step`` .. ``_layoff``;
  round and match end ``_go_out`` .. ``_end_match``;
- copies and serialisation: ``clone``, ``determinize``, ``to_dict`` / ``from_dict``; view and event texts.

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

Speed: the legal mask is built once per state from precomputed tables (per-rank set ids,
per-suit run ids cached by 13-bit suit pattern, per-meld lay-off masks) and cached; the
observation is kept in an absolute float32 buffer updated incrementally by every move and
returned seat-relative by one precomputed gather (:class:`BufferLayout`).
"""
from __future__ import annotations

import dataclasses
import functools
from collections import deque

import numpy as np

from ..actions import CARD, Catalogue, Combination, Segment, slot_word
from ..cards import (ACE_FIFTEEN_POINTS, BIT, CARD_TEXT, FULL_DECK, NUM_CARDS, POINTS, cards_of, cards_text,
                     hand_points, make_pack, mask_of, mask_texts, masks_to_planes, parse_card)
from ..layout import ObservationLayout
from ..melds import (RUN, SET_SUIT_CHOICES, Meld, canonical_order, catalogue_masks, classify, extend,
                     layoff_cards, standard_catalogue)
from ..rng import copy_rng, fresh_rng
from ..validate import (OptionRule, PackTally, check_deal_keys, check_option_rules, check_int, check_list,
                        check_record, int_list)

# -- action catalogue (rummy.md "Action ids") ----------------------------------------------------
NUM_MELD_SLOTS = 17

HAND_SIZE = {2: 10, 3: 7, 4: 7, 5: 6, 6: 6}
"""k by number of players (RM-3)."""

CATALOGUE = standard_catalogue(ace_high=True)
"""The 369 melds of the action layout, each in canonical card order."""
CAT_MASK = catalogue_masks(CATALOGUE)
CAT_SHAPE = [classify(m, ace_high=True) for m in CATALOGUE]
NUM_MELDS = len(CATALOGUE)

ACTIONS = Catalogue([
    Segment("draw stock"),
    Segment("take discard"),
    Segment("discard <card>", card=CARD),
    Segment("meld <meld>", meld=Combination("<cards>", CATALOGUE, CARD, "the cards form no meld (RM-10..RM-12)")),
    Segment("layoff <card> <slot>", card=CARD, slot=slot_word(NUM_MELD_SLOTS)),
])
"""Rummy's 1307 actions (RM-6..RM-15): texts, parser and segment starts."""
DRAW_STOCK = ACTIONS.start("draw stock")
TAKE_DISCARD = ACTIONS.start("take discard")
DISCARD0 = ACTIONS.start("discard")
MELD0 = ACTIONS.start("meld")
LAYOFF0 = ACTIONS.start("layoff")
NUM_ACTIONS = ACTIONS.size
ACTION_TEXT = ACTIONS.texts

# Sets of rank index r0 (= rank - 1) contained in a 4-bit suit pattern (RM-10).
_SET_IDS = [[tuple(5 * r0 + j for j, suits in enumerate(SET_SUIT_CHOICES) if all(pat >> s & 1 for s in suits))
             for pat in range(16)] for r0 in range(13)]
# Runs of each suit: catalogue ids, ace-low ones first (66 per suit), then the 10 ace-high ones.
_SUIT_RUNS = [tuple(65 + 76 * s + i for i in range(76)) for s in range(4)]
_RUN_PATTERN = {m: (CAT_MASK[m] >> (13 * s)) & 0x1FFF for s in range(4) for m in _SUIT_RUNS[s]}
_RUN_CACHE: dict[int, tuple[int, ...]] = {}
_ACE_HIGH_ONLY = frozenset(m for m in range(NUM_MELDS) if CAT_SHAPE[m].kind == RUN and CAT_SHAPE[m].hi == 14)


def _runs_in(suit: int, pattern: int, ace_high: bool) -> tuple[int, ...]:
    """Catalogue ids of the runs of ``suit`` inside a 13-bit rank pattern (cached)."""
    key = (pattern << 3) | (suit << 1) | ace_high
    found = _RUN_CACHE.get(key)
    if found is None:
        runs = _SUIT_RUNS[suit] if ace_high else _SUIT_RUNS[suit][:66]
        found = _RUN_CACHE[key] = tuple(m for m in runs if not _RUN_PATTERN[m] & ~pattern)
    return found


def fit_mask(shape: Meld, meld_mask: int, ace_high: bool) -> int:
    """Mask of the cards that may be laid off on a meld now (RM-14, RM-15)."""
    out = 0
    for c in layoff_cards(shape, ace_high):
        out |= BIT[c]
    return out & ~meld_mask


_CAT_FIT = [[fit_mask(CAT_SHAPE[m], CAT_MASK[m], high) for m in range(NUM_MELDS)] for high in (False, True)]

DRAW, PLAY = 0, 1
PHASE_NAMES = ("draw", "play")
REWARD_MODES = ("points", "zero_sum", "win_loss")
_DRAW_MASK = np.zeros(NUM_ACTIONS, np.int8)
_DRAW_MASK[[DRAW_STOCK, TAKE_DISCARD]] = 1
_DRAW_MASK.flags.writeable = False
_NO_MASK = np.zeros(NUM_ACTIONS, np.int8)
_NO_MASK.flags.writeable = False
DEAL_KEYS = frozenset({"dealer", "hands", "stock", "discard", "melds", "to_play", "scores", "rounds_played",
                       "turnovers", "turns"})


@dataclasses.dataclass(frozen=True)
class Options:
    """Rummy options (rummy.md "Options"); a bad value raises ``ValueError`` naming it."""

    num_players: int = 2
    ace_high: bool = False
    must_discard_to_go_out: bool = False
    target_score: int = 150
    max_rounds: int = 100
    max_turnovers: int = 3
    max_turns: int = 300
    shuffle_turnover: bool = False
    reward_mode: str = "points"

    RULES = {
        "num_players": OptionRule("RM-3", ints=(2, 6)),
        "ace_high": OptionRule("RM-12, RM-22", boolean=True),
        "must_discard_to_go_out": OptionRule("RM-20", boolean=True),
        "target_score": OptionRule("RM-28", ints=(0, None)),
        "max_rounds": OptionRule("RM-28, RM-29", ints=(1, None)),
        "max_turnovers": OptionRule("RM-26a", ints=(0, None)),
        "max_turns": OptionRule("RM-26b", ints=(1, None)),
        "shuffle_turnover": OptionRule("RM-24", boolean=True),
        "reward_mode": OptionRule("Rewards", choices=REWARD_MODES),
    }
    """Each option's allowed values and rule ids (rummy.md)."""

    def __post_init__(self) -> None:
        check_option_rules(self)


def _observation_layout(n: int) -> ObservationLayout:
    """The seat-relative observation for ``n`` seats (documented part by part in ``rummy_v0``)."""
    return ObservationLayout([
        ("hand", 52, "{0,1}", "my hand"),
        ("pile", 52, "{0,1}", "discard pile contents (RM-32)"),
        ("top", 52, "{0,1}", "discard pile top card, one-hot"),
        ("taken", 52, "{0,1}", "the card the seat to act took from the discard pile this turn (RM-17)"),
        ("melds", (NUM_MELD_SLOTS, 52), "{0,1}", "table melds @0..@16 (RM-13)"),
        ("owner", (NUM_MELD_SLOTS, n), "{0,1}", "owner of meld @k, one-hot over relative seats"),
        ("front", (n, 52), "{0,1}", "table cards in front of each relative seat (RM-16)"),
        ("known", (n, 52), "{0,1}", "cards each relative seat is publicly known to hold (RM-32)"),
        ("hand_sizes", n, "[0, 1.2]", "hand sizes / k"),
        ("scores", n, "[0, inf]", "match totals / target_score (/ 100 if target is 0)"),
        ("phase", 2, "{0,1}", "phase one-hot: draw, play"),
        ("dealer", n, "{0,1}", "dealer, one-hot over relative seats"),
        ("progress", 4, "[0, 1]", "stock size / 52, turnovers / max(1, max_turnovers), completed turns / "
                                  "max_turns, rounds played / max_rounds"),
    ])


OBSERVATION_LAYOUTS = {n: _observation_layout(n) for n in HAND_SIZE}


def observation_layout(options: Options) -> ObservationLayout:
    """The observation's named parts for ``options.num_players``."""
    return OBSERVATION_LAYOUTS[options.num_players]


class BufferLayout:
    """Offsets into the engine's absolute buffer for ``n`` seats, read from the observation layout.

    The buffer is the observation with every seat's hand (``n * 52``) where the observation has one,
    and the per-seat parts in absolute seat order. ``perm[seat]`` gathers it into ``seat``'s
    seat-relative observation (relative seat j = absolute seat ``(seat + j) % n``).
    """

    def __init__(self, n: int):
        obs = OBSERVATION_LAYOUTS[n]
        shift = 52 * (n - 1)
        self.n = n
        self.hands = obs.start("hand")
        self.pile = obs.start("pile") + shift
        self.top = obs.start("top") + shift
        self.taken = obs.start("taken") + shift
        self.melds = obs.start("melds") + shift
        self.owner = obs.start("owner") + shift
        self.front = obs.start("front") + shift
        self.known = obs.start("known") + shift
        self.hand_size = obs.start("hand_sizes") + shift
        self.scores = obs.start("scores") + shift
        self.phase = obs.start("phase") + shift
        self.dealer = obs.start("dealer") + shift
        self.stock, self.turnovers, self.turns, self.rounds = range(obs.start("progress") + shift,
                                                                    obs["progress"].stop + shift)
        self.abs_size = obs.size + shift
        self.obs_size = obs.size
        perms = []
        for seat in range(n):
            rel = [(seat + j) % n for j in range(n)]
            idx = list(range(self.hands + 52 * seat, self.hands + 52 * seat + 52))
            idx += list(range(self.pile, self.owner))
            idx += [self.owner + k * n + q for k in range(NUM_MELD_SLOTS) for q in rel]
            for base in (self.front, self.known):
                idx += [base + 52 * q + c for q in rel for c in range(52)]
            for base in (self.hand_size, self.scores):
                idx += [base + q for q in rel]
            idx += [self.phase, self.phase + 1]
            idx += [self.dealer + q for q in rel]
            idx += [self.stock, self.turnovers, self.turns, self.rounds]
            assert len(idx) == self.obs_size
            perms.append(np.array(idx, dtype=np.intp))
        self.perm = perms


_BUFFER_LAYOUTS = {n: BufferLayout(n) for n in HAND_SIZE}


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
            g._setup(deal)
        return g

    def _init_common(self, options: Options, rng: np.random.Generator) -> None:
        self.options = options
        self.rng = rng
        self.num_players = n = options.num_players
        self.k = HAND_SIZE[n]
        self.layout = _BUFFER_LAYOUTS[n]
        self._buf = np.zeros(self.layout.abs_size, np.float32)
        self._mv = memoryview(self._buf)  # fast scalar writes into _buf
        self._points = ACE_FIFTEEN_POINTS if options.ace_high else POINTS  # RM-22
        self._cat_fit = _CAT_FIT[options.ace_high]
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

    def _setup(self, deal: dict) -> None:
        """A scenario position from ``deal`` (rummy.md "Scenario set-up"); ``ValueError`` on any problem."""
        opts, n, k = self.options, self.num_players, self.k
        check_deal_keys(deal, DEAL_KEYS)
        tally = PackTally(make_pack())

        def seat(value, name: str) -> int:
            return check_int(f"deal: {name}", value, 0, n - 1, what="a seat")

        self._new_round_state()
        hands_in = check_list("deal: 'hands' (one hand per seat)", deal.get("hands"), n)
        hand_cards = [tally.take(f"hand {p}", h) for p, h in enumerate(hands_in)]
        for p, h in enumerate(hand_cards):
            if not h:
                raise ValueError(f"deal: hand {p} is empty")
            if len(h) > k:
                raise ValueError(f"deal: hand {p} has {len(h)} cards, more than k = {k} (RM-3)")
        melds_in = check_list("deal: 'melds'", deal.get("melds", []))
        front = [0] * n
        for i, md in enumerate(melds_in):
            check_record(f"deal: meld {i}", md, ("owner", "cards", "layoffs"), required=("cards",))
            owner = seat(md.get("owner"), f"meld {i} owner")
            mc = tally.take(f"meld {i}", md["cards"])
            shape = classify(mc, opts.ace_high)
            if shape is None:
                raise ValueError(f"deal: meld {i} ({cards_text(mc)}) is not a valid meld under the options")
            mask = mask_of(mc)
            layoffs = md.get("layoffs", {})
            if not isinstance(layoffs, dict):
                raise ValueError(f"deal: meld {i} 'layoffs' must be a dict card -> seat, got {layoffs!r}")
            own = mask
            for text, q in layoffs.items():
                c = parse_card(text)
                if not mask & BIT[c]:
                    raise ValueError(f"deal: meld {i} layoff {text!r} is not a card of the meld")
                q = seat(q, f"meld {i} layoff seat of {text}")
                if q == owner:
                    raise ValueError(f"deal: meld {i} layoff {text!r} names the meld's own owner {q}")
                own &= ~BIT[c]
                front[q] |= BIT[c]
            front[owner] |= own
            self.meld_owner.append(owner)
            self.meld_mask.append(mask)
            self.meld_shape.append(shape)
            self.meld_fit.append(fit_mask(shape, mask, opts.ace_high))
        if len(self.meld_owner) > NUM_MELD_SLOTS:
            raise ValueError(f"deal: at most {NUM_MELD_SLOTS} melds fit the table")
        table = sum(m.bit_count() for m in self.meld_mask)
        if sum(len(h) for h in hand_cards) + table != n * k:
            raise ValueError(f"deal: hand sizes plus table cards must be n*k = {n * k}, got "
                             f"{sum(len(h) for h in hand_cards)} + {table}")
        for p in range(n):
            if front[p].bit_count() != k - len(hand_cards[p]):
                raise ValueError(f"deal: seat {p} has {front[p].bit_count()} table cards but "
                                 f"k - hand size = {k - len(hand_cards[p])}")
        discard = tally.take("discard pile", deal["discard"]) if "discard" in deal else None
        if discard is not None and not discard:
            raise ValueError("deal: the discard pile is empty")
        if "stock" in deal:
            stock_top_first = tally.take("stock", deal["stock"])
            tally.check_all_listed("'stock' is given")
        if "dealer" in deal:
            self.dealer = seat(deal["dealer"], "dealer")
        else:
            self.dealer = int(self.rng.integers(n))
        if "stock" not in deal:
            rest = tally.unlisted()
            stock_top_first = [rest[i] for i in self.rng.permutation(len(rest))]
        if discard is None:
            if not stock_top_first:
                raise ValueError("deal: the discard pile is empty (no stock card to turn up)")
            discard = [stock_top_first.pop(0)]
        scores = int_list("deal: 'scores'", deal.get("scores", [0] * n), n, lo=0)
        if opts.target_score > 0 and max(scores) >= opts.target_score:
            raise ValueError(f"deal: a total {max(scores)} already reaches target_score {opts.target_score}")
        rounds = check_int("deal: 'rounds_played'", deal.get("rounds_played", 0), 0, opts.max_rounds - 1)
        turnovers = check_int("deal: 'turnovers'", deal.get("turnovers", 0), 0, opts.max_turnovers)
        turns = check_int("deal: 'turns'", deal.get("turns", 0), 0, opts.max_turns - 1)
        if not stock_top_first and turnovers == opts.max_turnovers:
            raise ValueError("deal: the stock is empty and turnovers = max_turnovers (RM-26)")
        self.current_player = seat(deal["to_play"], "to_play") if "to_play" in deal else (self.dealer + 1) % n
        self.hands = [mask_of(h) for h in hand_cards]
        self.front = front
        self.discard = discard
        self.pile_mask = mask_of(discard)
        self.stock = stock_top_first[::-1]
        self.scores = scores
        self.rounds_played = rounds
        self.turnovers = turnovers
        self.turns = turns
        self.clean_start = front[self.current_player] == 0
        self.events.append(("deal", self.rounds_played + 1, self.dealer))
        self._rebuild_buf()

    # -- observation buffer ----------------------------------------------------------------------
    def _rebuild_buf(self) -> None:
        """Write the absolute observation buffer from the state (used at deals and loads; the
        moves keep it up to date incrementally, which the tests compare against this)."""
        L, n, buf, opts = self.layout, self.num_players, self._buf, self.options
        buf[:] = 0.0
        buf[L.hands:L.hands + 52 * n] = masks_to_planes(self.hands)
        buf[L.front:L.front + 52 * n] = masks_to_planes(self.front)
        buf[L.known:L.known + 52 * n] = masks_to_planes(self.known)
        buf[L.pile:L.pile + 52] = masks_to_planes([self.pile_mask])
        if self.meld_mask:
            buf[L.melds:L.melds + 52 * len(self.meld_mask)] = masks_to_planes(self.meld_mask)
        for k, owner in enumerate(self.meld_owner):
            buf[L.owner + k * n + owner] = 1.0
        for p in range(n):
            buf[L.hand_size + p] = self.hands[p].bit_count() / self.k
            buf[L.scores + p] = self.scores[p] / self._score_scale
        if self.discard:
            buf[L.top + self.discard[-1]] = 1.0
        if self.taken >= 0:
            buf[L.taken + self.taken] = 1.0
        if not self.done:
            buf[L.phase + self.phase] = 1.0
        buf[L.dealer + self.dealer] = 1.0
        buf[L.stock] = len(self.stock) / 52
        buf[L.turnovers] = self.turnovers / max(1, opts.max_turnovers)
        buf[L.turns] = self.turns / opts.max_turns
        buf[L.rounds] = self.rounds_played / opts.max_rounds

    def observation(self, seat: int) -> np.ndarray:
        """float32 seat-relative observation (layout in ``rummy_v0``'s docstring)."""
        return self._buf[self.layout.perm[seat]]

    # -- legality --------------------------------------------------------------------------------
    @property
    def current_taken_bit(self) -> int:
        t = self.taken
        return BIT[t] & self.hands[self.current_player] if t >= 0 else 0

    def legal_mask(self) -> np.ndarray:
        """int8 mask over the 1307 actions for ``current_player`` (cached, read-only)."""
        m = self._mask
        if m is None:
            if self.done:
                m = _NO_MASK
            elif self.phase == DRAW:
                m = _DRAW_MASK
            else:
                m = np.frombuffer(self._play_bytes(), np.int8)
                m.flags.writeable = False
            self._mask = m
        return m

    def legal_actions(self) -> list[int]:
        return np.flatnonzero(self.legal_mask()).tolist()

    def _meld_candidates(self, hand: int) -> list[int]:
        """Catalogue ids of every meld inside ``hand`` under the options (RM-10..RM-12)."""
        a = hand & 0x1FFF
        b = (hand >> 13) & 0x1FFF
        c = (hand >> 26) & 0x1FFF
        d = hand >> 39
        out: list[int] = []
        three = (a & b & (c | d)) | (c & d & (a | b))
        while three:
            low = three & -three
            r0 = low.bit_length() - 1
            out += _SET_IDS[r0][(a >> r0 & 1) | (b >> r0 & 1) << 1 | (c >> r0 & 1) << 2 | (d >> r0 & 1) << 3]
            three ^= low
        high = self.options.ace_high
        for s, x in enumerate((a, b, c, d)):
            y = x | (x & 1) << 13 if high else x
            if y & (y >> 1) & (y >> 2):
                out += _runs_in(s, x, high)
        return out

    def _stranding_ok(self, rest: int, tbit: int, new_fit: int, skip: int) -> bool:
        """RM-18/RM-20 for a meld or lay-off leaving ``rest`` (at most one card) in hand.

        ``new_fit``: lay-off mask of the meld the move lays or extends; ``skip``: its index
        among the table melds (-1 for a new meld)."""
        if self.options.must_discard_to_go_out:
            return rest != 0 and rest != tbit
        if rest == 0 or rest != tbit:
            return True
        if rest & new_fit:
            return True
        fit = self.meld_fit
        return any(rest & fit[j] for j in range(len(fit)) if j != skip)

    def _play_bytes(self) -> bytearray:
        """The play-phase mask (RM-7, RM-14, RM-17, RM-18, RM-20) as bytes."""
        b = bytearray(NUM_ACTIONS)
        p = self.current_player
        hand = self.hands[p]
        tbit = self.current_taken_bit
        h = hand ^ tbit
        while h:  # discards: every card but the taken one (RM-17)
            low = h & -h
            b[low.bit_length() + 1] = 1  # DISCARD0 + card
            h ^= low
        for m in self._meld_candidates(hand):
            rest = hand ^ CAT_MASK[m]
            if rest & (rest - 1) == 0 and not self._stranding_ok(rest, tbit, self._cat_fit[m], -1):
                continue
            b[MELD0 + m] = 1
        for k, fit in enumerate(self.meld_fit):  # lay-offs (RM-14, RM-15)
            f = hand & fit
            while f:
                low = f & -f
                f ^= low
                c = low.bit_length() - 1
                rest = hand ^ low
                if rest & (rest - 1) == 0:
                    shape = extend(self.meld_shape[k], c, self.options.ace_high)
                    new_fit = fit_mask(shape, self.meld_mask[k] | low, self.options.ace_high)
                    if not self._stranding_ok(rest, tbit, new_fit, k):
                        continue
                b[LAYOFF0 + 17 * c + k] = 1
        return b

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
            if m in _ACE_HIGH_ONLY and not self.options.ace_high:
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

    def view(self, seat: int) -> dict:
        """What ``seat`` may know (RM-32), per :meth:`rummy_env.base.Game.view`. Built from the
        state directly with memoised texts, so it costs the same early and late in a match."""
        n = self.num_players
        to_play = -1 if self.done else self.current_player
        front = self.front
        melds = []
        for k, mask in enumerate(self.meld_mask):
            owner = self.meld_owner[k]
            shape = self.meld_shape[k]
            cards = _meld_card_texts(mask, shape)
            layoffs = {}
            for q in range(n):
                x = front[q] & mask
                if x and q != owner:
                    for t in mask_texts(x):
                        layoffs[t] = q
            melds.append({"index": k, "owner": owner, "cards": list(cards), "layoffs": layoffs})
        legal = [ACTION_TEXT[a] for a in self.legal_mask().view(np.bool_).nonzero()[0].tolist()] if seat == to_play else []
        events = list(map(_format_event, self.events))
        return {
            "game": "rummy_v0", "seat": seat, "num_players": n, "to_play": to_play,
            "phase": "over" if self.done else PHASE_NAMES[self.phase], "done": self.done,
            "hand": list(mask_texts(self.hands[seat])),
            "hand_sizes": [h.bit_count() for h in self.hands], "scores": list(self.scores),
            "legal_actions": legal, "melds": melds, "discard": [CARD_TEXT[c] for c in self.discard],
            "stock_size": len(self.stock), "events": events,
            "dealer": self.dealer, "taken_card": CARD_TEXT[self.taken] if self.taken >= 0 else None,
            "known_cards": [list(mask_texts(m)) for m in self.known],
            "table_cards": [list(mask_texts(m)) for m in front],
            "turnovers": self.turnovers, "turns": self.turns, "rounds_played": self.rounds_played,
            "rummy_possible": bool(not self.done and self.clean_start),
            "last_round": dict(self.last_round) if self.last_round else None,
            "options": dict(self.options.__dict__),
        }

    # -- copies ------------------------------------------------------------------------------------
    def clone(self) -> "RummyGame":
        g = object.__new__(RummyGame)
        g.__dict__.update(self.__dict__)
        for name in ("hands", "stock", "discard", "meld_owner", "meld_mask", "meld_shape", "meld_fit", "front",
                     "known", "scores", "turned"):
            setattr(g, name, list(getattr(self, name)))
        g.events = deque(self.events, maxlen=20)
        g._buf = self._buf.copy()
        g._mv = memoryview(g._buf)
        g.rng = copy_rng(self.rng)
        return g

    def determinize(self, seat: int, rng: np.random.Generator) -> "RummyGame":
        """An independent copy in which every card ``seat`` cannot see (RM-32) is dealt again
        uniformly among the deals consistent with what it has seen. Cards taken from the discard
        pile stay with their taker. Without a turnover this round, the other hands' other cards
        and the stock are shuffled over the same slots. A turnover (RM-24) splits the unseen cards
        by the last packet each was turned over in (none: dealt or drawn before any turnover):
        the stock holds only cards of the last packet, and each hand holds a public number of
        cards of each packet (every draw since is counted, every card that leaves a hand is
        seen). Unshuffled, the stock's order and so every card drawn from it is public: those
        stay, and only never-turned cards are shuffled among the other hands. Shuffled, each
        packet's unseen cards are shuffled over its own slots (the stock and its count in each
        hand). The copy's generator for later shuffles is drawn from ``rng``."""
        g = self.clone()
        g.rng = fresh_rng(rng)
        others = [q for q in range(self.num_players) if q != seat]
        hidden = {q: self.hands[q] & ~self.known[q] for q in others}
        classes = []   # (mask of the cards whose last packet it is, whether the stock is among its slots)
        later = 0
        for i in range(len(self.turned) - 1, -1, -1):
            classes.append((self.turned[i] & ~later, i == len(self.turned) - 1))
            later |= self.turned[i]
        classes.append((FULL_DECK & ~later, not self.turned))
        hands = dict.fromkeys(others, 0)
        public_stock = not self.options.shuffle_turnover
        for k, (mask, with_stock) in enumerate(classes):
            if public_stock and k < len(classes) - 1:
                for q in others:
                    hands[q] |= hidden[q] & mask   # drawn from a public stock: seen
                continue
            pool = cards_of(sum(hidden[q] & mask for q in others))
            if with_stock:
                pool += self.stock
            pool.sort()   # a deal that depends only on what the seat has seen, not on where the cards are
            order = rng.permutation(len(pool)).tolist()
            pos = 0
            for q in others:
                size = (hidden[q] & mask).bit_count()
                for i in order[pos:pos + size]:
                    hands[q] |= BIT[pool[i]]
                pos += size
            if with_stock:
                g.stock = [pool[i] for i in order[pos:]]
        L, buf = self.layout, g._buf
        for q in others:
            hand = g.hands[q] = self.known[q] | hands[q]
            buf[L.hands + 52 * q:L.hands + 52 * q + 52] = masks_to_planes([hand])
        g._mask = None
        return g

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        del state["_mv"]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._mv = memoryview(self._buf)

    def to_dict(self) -> dict:
        """JSON-serialisable state; :meth:`from_dict` restores it exactly."""
        return {
            "options": dict(vars(self.options)), "rng": self.rng.bit_generator.state,
            "dealer": self.dealer, "current_player": self.current_player, "phase": self.phase,
            "done": self.done, "truncated": self.truncated,
            "hands": [cards_of(h) for h in self.hands], "stock_top_last": list(self.stock),
            "discard": list(self.discard),
            "melds": [{"owner": self.meld_owner[k], "cards": cards_of(self.meld_mask[k]),
                       "shape": list(self.meld_shape[k])} for k in range(len(self.meld_mask))],
            "front": [cards_of(m) for m in self.front], "known": [cards_of(m) for m in self.known],
            "taken": self.taken, "clean_start": self.clean_start, "scores": list(self.scores),
            "rounds_played": self.rounds_played, "turnovers": self.turnovers, "turns": self.turns,
            "turned": [cards_of(m) for m in self.turned],
            "events": [list(e) for e in self.events], "last_round": self.last_round,
        }

    @classmethod
    def from_dict(cls, d: dict) -> "RummyGame":
        state = d["rng"]
        rng = np.random.Generator(getattr(np.random, state["bit_generator"])())
        rng.bit_generator.state = state
        g = cls.__new__(cls)
        g._init_common(Options(**d["options"]), rng)
        g.dealer, g.current_player, g.phase = d["dealer"], d["current_player"], d["phase"]
        g.done, g.truncated = d["done"], d["truncated"]
        g.hands = [mask_of(h) for h in d["hands"]]
        g.stock = list(d["stock_top_last"])
        g.discard = list(d["discard"])
        g.pile_mask = mask_of(g.discard)
        g.meld_owner = [md["owner"] for md in d["melds"]]
        g.meld_mask = [mask_of(md["cards"]) for md in d["melds"]]
        g.meld_shape = [Meld(*md["shape"]) for md in d["melds"]]
        g.meld_fit = [fit_mask(s, m, g.options.ace_high) for s, m in zip(g.meld_shape, g.meld_mask)]
        g.front = [mask_of(f) for f in d["front"]]
        g.known = [mask_of(f) for f in d["known"]]
        g.taken, g.clean_start = d["taken"], d["clean_start"]
        g.scores = list(d["scores"])
        g.rounds_played, g.turnovers, g.turns = d["rounds_played"], d["turnovers"], d["turns"]
        g.turned = [mask_of(cards) for cards in d.get("turned", [])]
        g.events.extend(tuple(e) for e in d["events"])
        g.last_round = d["last_round"]
        g._rebuild_buf()
        return g


@functools.lru_cache(maxsize=1 << 16)
def _meld_card_texts(mask: int, shape: Meld) -> tuple[str, ...]:
    """Card texts of a meld in canonical order (memoised: melds repeat from view to view)."""
    return tuple(CARD_TEXT[c] for c in canonical_order(cards_of(mask), shape))


@functools.lru_cache(maxsize=1 << 16)
def _format_event(e: tuple) -> str:
    """Text of one event tuple of ``RummyGame.events`` (memoised: events repeat, so view()
    formats each one once)."""
    kind = e[0]
    if kind == "deal":
        return f"round {e[1]}: player_{e[2]} deals"
    if kind == "draw":
        return f"player_{e[1]} draws from the stock"
    if kind == "take":
        return f"player_{e[1]} takes {CARD_TEXT[e[2]]} from the discard pile"
    if kind == "meld":
        return f"player_{e[1]} melds {cards_text(CATALOGUE[e[2]])} as @{e[3]}"
    if kind == "layoff":
        return f"player_{e[1]} lays off {CARD_TEXT[e[2]]} on @{e[3]}"
    if kind == "discard":
        return f"player_{e[1]} discards {CARD_TEXT[e[2]]}"
    if kind == "turnover":
        return f"the discard pile is turned over as the stock (turnover {e[1]})"
    if kind == "out":
        return f"player_{e[1]} goes out{' with rummy (double points)' if e[3] else ''} and scores {e[2]}"
    if kind == "dead":
        return f"the round ends with no score: {DEAD_ROUND_REASON[e[1]]}"
    winners = " and ".join(f"player_{q}" for q in e[2:])
    return (f"the match ends{' at the round limit' if e[1] else ''}: {winners} "
            + ("wins" if len(e) == 3 else "share the win"))


DEAD_ROUND_REASON = {"max_turns": "the turn limit was reached",
                     "max_turnovers": "the stock ran out after the last allowed turnover"}
"""Words for the cap that ended a dead round (RM-26), keyed by ``last_round["cap"]``."""


