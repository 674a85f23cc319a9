"""Tongits rules engine (``docs/rules/tongits.md``, rules TG-1..TG-38).

Plain Python + numpy. One match of ``hands_per_match`` hands is one episode (TG-35); the next
hand is dealt automatically by the previous winner (TG-38).

Action ids (1283, tongits.md "Action text"):

- ``0`` ``draw stock``, ``1`` ``take discard``, ``2`` ``call draw``, ``3`` ``challenge``,
  ``4`` ``fold`` (the 5 fixed texts, in this order);
- ``5 + c`` ``discard <card c>`` (52, card id ``c = 13*suit + rank-1``);
- ``57 + i`` ``meld <catalogue meld i>`` (329, ``melds.standard_catalogue(ace_high=False)``:
  65 sets rank A..K x suits CDH CDS CHS DHS CDHS, then 66 runs per suit C D H S by lowest
  rank, then length);
- ``386 + r - 1`` ``secret`` of the four cards of rank r (13, A..K);
- ``399 + 17*c + k`` ``layoff <card c> @k`` (884, card-major: 52 cards x 17 meld numbers).

Phases: ``draw`` (TG-6), ``pickup`` (TG-7), ``meld`` (TG-8), ``response`` (TG-20).
Card sets are int bitmasks.

Where to find what:

- actions: ``ACTIONS`` (the catalogue: segments, texts, parser), ``A_DRAW`` .. ``LAYOFF0`` its starts;
- options: :class:`Options`; scenario deals: ``TongitsGame._setup`` (keys ``DEAL_KEYS``);
- observation: ``OBSERVATION_LAYOUT`` (named parts, documented in ``tongits_v0``), the ``O_*`` / ``S_*``
  offsets into it, ``TongitsGame._rebuild`` / ``observation``;
- rules: meld tables (``SET_IDS``, ``RUN_IDS``, ``TAKE_PAIRS``, ``least_deadwood``); legality ``legal_mask`` /
  ``illegal_reason``; moves ``step``; hand end and chips ``_end_hand``;
- copies and serialisation: ``clone``, ``determinize``, ``to_dict`` / ``from_dict``; view and event texts.
"""
from __future__ import annotations

import copy
import functools
from dataclasses import asdict, dataclass
from typing import NamedTuple

import numpy as np

from ..actions import CARD, Catalogue, Combination, Segment, slot_word
from ..cards import (BIT, CARD_TEXT, NUM_CARDS, POINTS, RANK_OF, SUIT_OF, cards_of, cards_text, make_pack, mask_of,
                     mask_points, mask_texts)
from ..layout import ObservationLayout
from ..melds import SET_SUIT_CHOICES, classify, standard_catalogue, catalogue_masks
from ..rng import copy_rng, fresh_rng
from ..validate import (OptionRule, PackTally, check_bool, check_deal_keys, check_option_rules, check_int,
                        check_list, check_record, int_list)

NUM_PLAYERS = 3
MAX_MELDS = 17
CATALOGUE = standard_catalogue(ace_high=False)
CAT_MASK = catalogue_masks(CATALOGUE)
FOURS = tuple(tuple(13 * s + r for s in range(4)) for r in range(13))
"""The four cards of each rank A..K, suits C D H S: the cards of a ``secret`` (TG-13)."""

ACTIONS = Catalogue([
    Segment("draw stock"),
    Segment("take discard"),
    Segment("call draw"),
    Segment("challenge"),
    Segment("fold"),
    Segment("discard <card>", card=CARD),
    Segment("meld <meld>", meld=Combination("<cards>", CATALOGUE, CARD, "not a valid set or run (TG-10..TG-12)")),
    Segment("secret <four>", four=Combination("<cards>", FOURS, CARD,
                                              "a secret is the four cards of one rank (TG-13)")),
    Segment("layoff <card> <slot>", card=CARD, slot=slot_word(MAX_MELDS)),
])
"""Tongits' 1283 actions (tongits.md "Action text"): texts, parser and segment starts."""
A_DRAW, A_TAKE, A_CALL, A_CHALLENGE, A_FOLD = (ACTIONS.start(name) for name in (
    "draw stock", "take discard", "call draw", "challenge", "fold"))
DISCARD0 = ACTIONS.start("discard")
MELD0 = ACTIONS.start("meld")
SECRET0 = ACTIONS.start("secret")
LAYOFF0 = ACTIONS.start("layoff")
NUM_ACTIONS = ACTIONS.size
ACTION_TEXT = ACTIONS.texts

PHASES = ("draw", "pickup", "meld", "response")
DRAW, PICKUP, MELD, RESPONSE = 0, 1, 2, 3
TURN_CAP = 100
"""Turns per hand after which ``discard_take_must_meld=False`` settles the hand (TG-25)."""

SUIT_BITS = 0x1FFF
RANK_MASK = (0,) + tuple(mask_of(four) for four in FOURS)  # index 1..13
ACES = RANK_MASK[1]
MELDS_WITH_CARD = tuple(tuple(m for m in CAT_MASK if m & BIT[c]) for c in range(52))
POINTS_OF_BIT = {BIT[c]: POINTS[c] for c in range(52)}

# SET_IDS[r][suitmask] -> meld action ids of the sets of rank r (1..13) inside suitmask.
SET_IDS = [[()] * 16] + [
    [tuple(MELD0 + 5 * (r - 1) + j for j, ss in enumerate(SET_SUIT_CHOICES)
           if all(sm >> s & 1 for s in ss)) for sm in range(16)]
    for r in range(1, 14)]
_RUN_INDEX = {}
for _i, _m in enumerate(CATALOGUE):
    if _i >= 65:
        _RUN_INDEX[(SUIT_OF[_m[0]], RANK_OF[_m[0]], RANK_OF[_m[-1]])] = MELD0 + _i


def _segment_runs(sm: int) -> list:
    """(lo, hi) rank pairs of every run of 3+ consecutive ranks inside the 13-bit mask ``sm``."""
    out = []
    r = 1
    while r <= 13:
        if sm >> (r - 1) & 1:
            e = r
            while e < 13 and sm >> e & 1:
                e += 1
            out.extend((lo, hi) for lo in range(r, e - 1) for hi in range(lo + 2, e + 1))
            r = e + 1
        else:
            r += 1
    return out


_SEGMENTS = [_segment_runs(sm) if sm & (sm >> 1) & (sm >> 2) else [] for sm in range(1 << 13)]
RUN_IDS = tuple(tuple(tuple(sorted(_RUN_INDEX[(s, lo, hi)] for lo, hi in seg)) if seg else () for seg in _SEGMENTS)
                for s in range(4))
"""RUN_IDS[suit][13-bit rank mask] -> meld action ids of the runs inside it."""
del _SEGMENTS


def _take_pairs(t: int) -> tuple:
    """Masks of the card pairs that make a meld with card ``t`` (TG-7, TG-10..TG-12)."""
    r, s = RANK_OF[t], SUIT_OF[t]
    same = [BIT[13 * u + r - 1] for u in range(4) if u != s]
    pairs = [same[0] | same[1], same[0] | same[2], same[1] | same[2]]
    for lo in (r - 2, r - 1, r):
        if lo >= 1 and lo + 2 <= 13:
            pairs.append(sum(BIT[13 * s + x - 1] for x in (lo, lo + 1, lo + 2) if x != r))
    return tuple(pairs)


TAKE_PAIRS = tuple(_take_pairs(t) for t in range(52))


@functools.lru_cache(maxsize=1 << 18)
def least_deadwood(mask: int) -> int:
    """Least sum of points of the cards of ``mask`` left over when disjoint valid melds are
    taken out (``count_hand_melds=False``, TG-30): exact search, memoised."""
    if not mask:
        return 0
    low = mask & -mask
    best = POINTS_OF_BIT[low] + least_deadwood(mask ^ low)
    for m in MELDS_WITH_CARD[low.bit_length() - 1]:
        if m & mask == m:
            v = least_deadwood(mask ^ m)
            if v < best:
                best = v
    return best


def four_ranks(mask: int) -> int:
    """13-bit mask of the ranks of which ``mask`` holds all four cards."""
    return mask & (mask >> 13) & (mask >> 26) & (mask >> 39) & SUIT_BITS


@functools.lru_cache(maxsize=1 << 16)
def event_text(e: tuple) -> str:
    """Text of an event tuple (hand_index, seat, what, arg) (memoised: events repeat from view to view)."""
    _, seat, what, arg = e
    return f"player_{seat} {what}" + (f" {arg}" if arg else "")


@functools.lru_cache(maxsize=1 << 16)
def meld_card_texts(mask: int, kind: int) -> tuple[str, ...]:
    """Card texts of a meld: a set by suit, a run by rank (memoised)."""
    return tuple(CARD_TEXT[c] for c in sorted(cards_of(mask), key=(SUIT_OF if kind == 0 else RANK_OF).__getitem__))


# ---- observation layout (documented in tongits_v0's docstring) ------------------------------
OBSERVATION_LAYOUT = ObservationLayout([
    ("hand", 52, "{0,1}", "own hand"),
    ("taken", 52, "{0,1}", "the card this seat took from the discard pile this turn (TG-7)"),
    ("known", (2, 52), "{0,1}", "cards publicly known to be in the hand of rel seat 1, then rel seat 2"),
    ("meld_info", (MAX_MELDS, 5), "{0,1}", "per meld number k: present, owner rel seat one-hot (3), secret"),
    ("pile", 52, "{0,1}", "cards in the discard pile"),
    ("top", 52, "{0,1}", "the top discard (one-hot)"),
    ("meld_cards", (MAX_MELDS, 52), "{0,1}", "meld k's cards (a secret's only for its owner until the hand ends)"),
    ("hand_sizes", 3, "0..14", "hand sizes per rel seat"),
    ("faceup_melds", 3, "0..17", "face-up melds owned per rel seat"),
    ("secrets", 3, "0..3", "face-down secrets owned per rel seat (TG-13)"),
    ("chips", 3, "-inf..inf", "chip totals per rel seat"),
    ("seat_flags", (6, 3), "{0,1}", "per rel seat: blocked (TG-16), dealer, turn, Draw caller, answered "
                                    "challenge, answered fold (TG-20)"),
    ("phase", 4, "{0,1}", "phase one-hot: draw, pickup, meld, response"),
    ("stock", 1, "0..15", "stock size"),
    ("hand_index", 1, "0..inf", "hand index (0-based)"),
    ("hands_per_match", 1, "1..inf", "hands per match"),
    ("turns", 1, "0..inf", "completed turns in this hand"),
])


def observation_layout(options: "Options") -> ObservationLayout:
    """The observation's named parts (three seats; the same for all options)."""
    return OBSERVATION_LAYOUT


O_HAND = OBSERVATION_LAYOUT.start("hand")
O_TAKEN = OBSERVATION_LAYOUT.start("taken")
O_MELD_INFO = OBSERVATION_LAYOUT.start("meld_info")
O_PRIVATE_END = OBSERVATION_LAYOUT.start("pile")          # [0:O_PRIVATE_END) is kept per seat
O_PILE = OBSERVATION_LAYOUT.start("pile")
O_MELD_CARDS = OBSERVATION_LAYOUT.start("meld_cards")
O_SEATS = OBSERVATION_LAYOUT.start("hand_sizes")           # the per-seat values and the scalars after them
OBS_SIZE = OBSERVATION_LAYOUT.size

# Offsets of the values after O_SEATS; the engine keeps them by absolute seat (``sa``).
S_SIZES, S_FACEUP, S_SECRETS, S_CHIPS, S_BLOCKED, S_PHASE, S_STOCK, S_HAND_INDEX, S_HPM, S_TURNS = (
    OBSERVATION_LAYOUT.start(name) - O_SEATS for name in (
        "hand_sizes", "faceup_melds", "secrets", "chips", "seat_flags", "phase", "stock", "hand_index",
        "hands_per_match", "turns"))
S_DEALER, S_TURN, S_CALLER, S_CHALL, S_FOLD = range(S_BLOCKED + 3, S_BLOCKED + 18, 3)
# The engine keeps the values of [O_SEATS:OBS_SIZE) by absolute seat; PERM makes them relative.
PERM = tuple(np.array([3 * b + (seat + k) % 3 for b in range(S_PHASE // 3) for k in range(3)]
                      + list(range(S_PHASE, OBS_SIZE - O_SEATS)))
             for seat in range(3))


def _const_mask(ids) -> np.ndarray:
    m = np.zeros(NUM_ACTIONS, dtype=np.int8)
    m[list(ids)] = 1
    m.flags.writeable = False
    return m


DRAW_MASKS = ((_const_mask([A_DRAW]), _const_mask([A_DRAW, A_CALL])),
              (_const_mask([A_DRAW, A_TAKE]), _const_mask([A_DRAW, A_TAKE, A_CALL])))
RESPONSE_MASK = _const_mask([A_CHALLENGE, A_FOLD])
FOLD_MASK = _const_mask([A_FOLD])
"""TG-20: the only answer of an opponent that is not qualified."""
EMPTY_MASK = _const_mask([])


@dataclass(frozen=True)
class Options:
    """Tongits options (tongits.md "Options"); a bad value raises ``ValueError`` naming it."""

    discard_take_must_meld: bool = True
    count_hand_melds: bool = True
    require_meld_to_contest: bool = True
    hands_per_match: int = 3
    chip_mode: str = "bank"
    reward_mode: str = "chips"

    RULES = {
        "discard_take_must_meld": OptionRule("TG-7", boolean=True),
        "count_hand_melds": OptionRule("TG-30", boolean=True),
        "require_meld_to_contest": OptionRule("TG-20, TG-26", boolean=True),
        "hands_per_match": OptionRule("TG-35", ints=(1, None)),
        "chip_mode": OptionRule("TG-31", choices=("bank", "pay")),
        "reward_mode": OptionRule("Rewards", choices=("chips", "win_loss")),
    }
    """Each option's allowed values and rule ids (tongits.md)."""

    def __post_init__(self):
        check_option_rules(self)

    @property
    def num_players(self) -> int:
        return NUM_PLAYERS


DEAL_KEYS = ("dealer", "hands", "stock", "discard", "melds", "turn", "phase", "blocked", "chips", "hand_index")
"""The keys of a scenario deal (tongits.md "Deal keys")."""

HAND_END_TEXT = {
    "tongits": "Tongits, an empty hand",
    "draw": "called a draw and nobody challenged",
    "draw_challenged": "called a draw and had the lowest points in the showdown",
    "challenge": "lowest points in the showdown after challenging the draw",
    "stock": "lowest points when the stock ran out",
    "turn_cap": "lowest points when the turn limit was reached",
}
"""Words for ``last_hand["how"]``, the way a hand ended (TG-17, TG-21, TG-22, TG-25, TG-28)."""


class Redeal(NamedTuple):
    """What :meth:`TongitsGame.determinize` deals again in one position for one seat: the other
    seats (``others``) and how many hidden cards each holds (``sizes``), the other seats' secret
    melds (indices in ``melds``), the ``unseen`` cards (mask; ``pool``: their list), the ranks a
    secret may have (``free_ranks``), the seats that must hold four of a rank (TG-20) and the
    seat that must meld the discard it took (TG-7, -1 for none)."""

    seat: int
    others: tuple[int, ...]
    sizes: tuple[int, ...]
    secret_melds: tuple[int, ...]
    unseen: int
    pool: list[int]
    free_ranks: list[int]
    must_hold_four: list[int]
    must_meld_taken: int


class TongitsGame:
    """State of one Tongits match (TG-1..TG-38). See the module docstring for action ids."""

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
            g._setup(deal)
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

    def _setup(self, deal: dict) -> None:
        """Scenario set-up from a deal dict (tongits.md "Deal keys")."""
        check_deal_keys(deal, DEAL_KEYS)

        def seat_of(key, v):
            return check_int(f"deal {key}", v, 0, NUM_PLAYERS - 1, what="a seat")

        dealer = seat_of("dealer", deal["dealer"]) if "dealer" in deal else int(self.rng.integers(NUM_PLAYERS))
        has_turn = "turn" in deal
        if "phase" in deal and not has_turn:
            raise ValueError("deal 'phase' needs 'turn'")
        turn = seat_of("turn", deal["turn"]) if has_turn else dealer
        phase = deal.get("phase", "draw" if has_turn else "meld")
        if phase not in ("draw", "meld"):
            raise ValueError(f"deal phase must be 'draw' or 'meld', got {phase!r}")
        tally = PackTally(make_pack())
        if "hands" not in deal:
            extra = sorted(set(deal) & {"stock", "discard", "melds", "turn"})
            if extra:
                raise ValueError(f"deal without 'hands' cannot set {extra}")
            hands_in = None
        else:
            hands_in = check_list("deal hands (three card lists)", deal["hands"], NUM_PLAYERS)
        if hands_in is None:   # a fresh deal (TG-3) by the given dealer
            perm = self.rng.permutation(NUM_CARDS).tolist()
            hands_in = [[], [], []]
            for k in range(NUM_PLAYERS):
                hands_in[(dealer + k) % 3] = [CARD_TEXT[c] for c in perm[12 * k + (k > 0):12 * k + 12 + 1]]
        hand_cards = [tally.take(f"hands[{i}]", h) for i, h in enumerate(hands_in)]
        discard = tally.take("discard", deal.get("discard", []))
        melds = []
        melds_in = check_list("deal melds", deal.get("melds", []), longest=MAX_MELDS)
        for i, m in enumerate(melds_in):
            check_record(f"deal melds[{i}]", m, ("owner", "cards", "secret"), required=("cards",))
            owner = seat_of(f"melds[{i}] owner", m.get("owner"))
            secret = check_bool(f"deal melds[{i}] secret", m.get("secret", False))
            cards = tally.take(f"melds[{i}]", m["cards"])
            shape = classify(cards, ace_high=False)
            if shape is None:
                raise ValueError(f"deal melds[{i}] {cards_text(cards)} is not a valid meld")
            if secret and not (shape.kind == "set" and shape.size == 4):
                raise ValueError(f"deal melds[{i}] secret must be four cards of one rank")
            mask = mask_of(cards)
            if shape.kind == "set":
                melds.append([owner, mask, secret, 0, shape.rank, 0, 0])
            else:
                melds.append([owner, mask, secret, 1, shape.suit, shape.lo, shape.hi])
        if "stock" in deal:
            stock = tally.take("stock", deal["stock"])
            tally.check_all_listed("'stock' is given")
        else:
            rest = tally.unlisted()
            stock = [rest[i] for i in self.rng.permutation(len(rest))]
        sizes = [len(h) for h in hand_cards]
        if not has_turn:
            want = [13 if s == dealer else 12 for s in range(NUM_PLAYERS)]
            if sizes != want:
                raise ValueError(f"deal without 'turn' needs 13 cards for the dealer and 12 for the others, "
                                 f"got {sizes}")
            if len(stock) != 15 or melds or discard:
                raise ValueError("deal without 'turn' needs 15 stock cards, no melds and an empty discard pile")
        else:
            if 0 in sizes:
                raise ValueError(f"deal hands[{sizes.index(0)}] is empty")
            if phase == "draw" and not stock:
                raise ValueError("deal phase 'draw' with an empty stock")
        blocked = int_list("deal blocked", deal.get("blocked", []), lo=0, hi=NUM_PLAYERS - 1, what="a seat")
        chips = int_list("deal chips", deal.get("chips", [0, 0, 0]), NUM_PLAYERS)
        hand_index = check_int("deal hand_index", deal.get("hand_index", 0), 0, self.options.hands_per_match - 1)
        self._reset_hand_state(dealer)
        self.turn = self.current_player = turn
        self.phase = DRAW if phase == "draw" else MELD
        self.hands = [mask_of(h) for h in hand_cards]
        self.stock = stock[::-1]
        self.discard = discard
        self.melds = melds
        for b in blocked:
            self.blocked[b] = True
        self.chips = chips
        self.hand_index = hand_index
        self._rebuild()

    def _rebuild(self, hand_cards: list | None = None) -> None:
        """Recompute the derived state (arrays, fits, counters) from the canonical state.
        ``hand_cards`` (the three hands as card lists) saves decoding the masks after a deal."""
        priv = self.__dict__.get("priv")
        if priv is None:
            self.priv = priv = np.zeros((NUM_PLAYERS, O_PRIVATE_END), dtype=np.float32)
            self.hand_arr = priv[:, O_HAND:O_TAKEN]
            self.ext = priv[:, O_TAKEN:O_MELD_INFO]
            self.meld_info = priv[:, O_MELD_INFO:O_PRIVATE_END]
            self.pub = np.zeros(O_SEATS - O_PILE, dtype=np.float32)
            self.sa = np.zeros(OBS_SIZE - O_SEATS, dtype=np.float32)
        else:
            priv.fill(0.0)
            self.pub.fill(0.0)
            self.sa.fill(0.0)
        if hand_cards is None:
            hand_cards = [cards_of(h) for h in self.hands]
        ha = self.hand_arr
        ha[0, hand_cards[0]] = 1.0
        ha[1, hand_cards[1]] = 1.0
        ha[2, hand_cards[2]] = 1.0
        sizes = self.sizes = [len(hand_cards[0]), len(hand_cards[1]), len(hand_cards[2])]
        if self.discard:
            self.pub[self.discard] = 1.0
            self.pub[52 + self.discard[-1]] = 1.0
        self.fits = []
        self.faceup = [0, 0, 0]
        self.secrets = [0, 0, 0]
        for k, m in enumerate(self.melds):
            self._index_meld(k, m)
        sa = self.sa
        chips, blocked, resp = self.chips, self.blocked, self.responses
        sa[S_SIZES:S_SIZES + 3] = sizes
        sa[S_CHIPS:S_CHIPS + 3] = chips
        if blocked[0] or blocked[1] or blocked[2]:
            sa[S_BLOCKED:S_BLOCKED + 3] = blocked
        if self.caller >= 0:
            sa[S_CALLER + self.caller] = 1.0
            sa[S_CHALL:S_CHALL + 3] = [r == 1 for r in resp]
            sa[S_FOLD:S_FOLD + 3] = [r == 2 for r in resp]
        sa[S_DEALER + self.dealer] = 1.0
        sa[S_TURN + self.turn] = 1.0
        if not self.done:
            sa[S_PHASE + self.phase] = 1.0
        sa[S_STOCK:S_TURNS + 1] = (len(self.stock), self.hand_index, self.options.hands_per_match, self.turns_done)
        if self.taken >= 0:
            self.ext[self.turn, self.taken] = 1.0
        for q in range(NUM_PLAYERS):
            if self.known[q]:
                for c in cards_of(self.known[q]):
                    for o in range(NUM_PLAYERS):
                        if o != q:
                            self.ext[o, 52 * ((q - o) % 3) + c] = 1.0
        self._mask = None
        self._redeal: Redeal | None = None

    def _index_meld(self, k: int, m: list) -> None:
        owner, mask, secret = m[0], m[1], m[2]
        base = 5 * k
        for q in range(NUM_PLAYERS):
            self.meld_info[q, base] = 1.0
            self.meld_info[q, base + 1 + (owner - q) % 3] = 1.0
            self.meld_info[q, base + 4] = 1.0 if secret else 0.0
        if secret:
            self.secrets[owner] += 1
            self.sa[S_SECRETS + owner] = self.secrets[owner]
            self.fits.append(0)
        else:
            self.faceup[owner] += 1
            self.sa[S_FACEUP + owner] = self.faceup[owner]
            row = 104 + 52 * k
            for c in cards_of(mask):
                self.pub[row + c] = 1.0
            self.fits.append(self._fit(m))

    @staticmethod
    def _fit(m: list) -> int:
        """Cards that may be laid off on face-up meld ``m`` (TG-15)."""
        if m[3] == 0:
            return RANK_MASK[m[4]] & ~m[1]   # the missing suit of a 3-card set; 0 for four
        suit, lo, hi = m[4], m[5], m[6]
        f = 0
        if lo > 1:
            f |= BIT[13 * suit + lo - 2]
        if hi < 13:
            f |= BIT[13 * suit + hi]
        return f

    # ---- serialisation -----------------------------------------------------------------
    def to_dict(self) -> dict:
        return {
            "options": asdict(self.options),
            "rng": self.rng.bit_generator.state,
            "chips": list(self.chips), "hand_index": self.hand_index, "done": self.done,
            "dealer": self.dealer, "turn": self.turn, "current_player": self.current_player,
            "phase": self.phase, "hands": list(self.hands), "stock": list(self.stock),
            "discard": list(self.discard), "melds": [list(m) for m in self.melds],
            "blocked": list(self.blocked), "taken": self.taken, "known": list(self.known),
            "caller": self.caller, "responses": list(self.responses), "turns_done": self.turns_done,
            "events": [list(e) for e in self.events], "last_hand": copy.deepcopy(self.last_hand),
        }

    @classmethod
    def from_dict(cls, d: dict) -> "TongitsGame":
        g = cls.__new__(cls)
        g.options = Options(**d["options"])
        bg = getattr(np.random, d["rng"]["bit_generator"])()
        bg.state = d["rng"]
        g.rng = np.random.Generator(bg)
        g.chips = list(d["chips"])
        g.hand_index = d["hand_index"]
        g.done = d["done"]
        g.truncated = False
        for key in ("dealer", "turn", "current_player", "phase", "taken", "caller", "turns_done"):
            setattr(g, key, d[key])
        g.hands = list(d["hands"])
        g.stock = list(d["stock"])
        g.discard = list(d["discard"])
        g.melds = [list(m) for m in d["melds"]]
        g.blocked = list(d["blocked"])
        g.known = list(d["known"])
        g.responses = list(d["responses"])
        g.events = [tuple(e) for e in d["events"]]
        g.last_hand = copy.deepcopy(d["last_hand"])
        g._rebuild()
        return g

    def clone(self) -> "TongitsGame":
        """An independent copy in the same state, copied directly (tables and the read-only
        masks are shared)."""
        g = object.__new__(TongitsGame)
        g.__dict__.update(self.__dict__)
        g.rng = copy_rng(self.rng)
        for name in ("chips", "discard", "blocked", "known", "responses", "events", "hands", "stock", "sizes",
                     "fits", "faceup", "secrets"):
            setattr(g, name, list(getattr(self, name)))
        g.melds = [list(m) for m in self.melds]
        priv = g.priv = self.priv.copy()
        g.hand_arr = priv[:, O_HAND:O_TAKEN]
        g.ext = priv[:, O_TAKEN:O_MELD_INFO]
        g.meld_info = priv[:, O_MELD_INFO:O_PRIVATE_END]
        g.pub = self.pub.copy()
        g.sa = self.sa.copy()
        return g

    def determinize(self, seat: int, rng: np.random.Generator) -> "TongitsGame":
        """An independent copy in which everything ``seat`` cannot see is dealt again uniformly
        among the deals consistent with what it has seen: the other seats' face-down secrets
        (TG-12) get ranks whose four cards ``seat`` has not seen, and the other hands' cards not
        publicly taken from the discard pile (TG-7) and the stock are shuffled over the same slots.
        Every choice of secret ranks leaves the same number of ways to deal the rest, so drawing
        the ranks uniformly (ordered, without repeats) and then shuffling is uniform over the
        consistent deals. Two public facts constrain a hand, and deals breaking them are rejected
        and drawn again: a seat that took the discard and must meld it now (TG-7) holds two cards
        that meld with it, and during a call's responses a seat with no meld on the table that has
        challenged holds four of one rank (TG-20). The copy's generator for later deals is drawn
        from ``rng``. What is dealt again (:class:`Redeal`) is worked out once per position and
        seat and kept until the next step, for a search that determinizes one position many times."""
        redeal = self._redeal
        if redeal is None or redeal.seat != seat:
            redeal = self._redeal = self._redeal_of(seat)
        g = self.clone()
        g._redeal = None
        g.rng = fresh_rng(rng)
        secret_melds = [g.melds[k] for k in redeal.secret_melds]
        must_hold_four, must_meld_taken = redeal.must_hold_four, redeal.must_meld_taken
        while True:
            pool = redeal.pool
            if secret_melds:
                ranks = rng.permutation(redeal.free_ranks)[:len(secret_melds)].tolist()
                rest = redeal.unseen
                for r in ranks:
                    rest &= ~RANK_MASK[r]
                pool = cards_of(rest)
            else:
                ranks = []
            order = rng.permutation(len(pool)).tolist()
            pos = 0
            for q, size in zip(redeal.others, redeal.sizes):
                hand = self.known[q]
                for i in order[pos:pos + size]:
                    hand |= BIT[pool[i]]
                pos += size
                g.hands[q] = hand
            if all(four_ranks(g.hands[q]) for q in must_hold_four) and (
                    must_meld_taken < 0 or any(g.hands[must_meld_taken] & pair == pair
                                               for pair in TAKE_PAIRS[self.taken])):
                break
        for m, r in zip(secret_melds, ranks):
            m[1] = RANK_MASK[r]
            m[4] = r
        g.stock = [pool[i] for i in order[pos:]]
        for q in redeal.others:
            row = g.hand_arr[q]
            row.fill(0.0)
            row[cards_of(g.hands[q])] = 1.0
        g._mask = None
        return g

    def _redeal_of(self, seat: int) -> "Redeal":
        """What :meth:`determinize` deals again for ``seat`` in this position."""
        others = tuple(q for q in range(NUM_PLAYERS) if q != seat)
        hidden = [self.hands[q] & ~self.known[q] for q in others]
        secret_melds = tuple(k for k, m in enumerate(self.melds) if m[2] and m[0] != seat)
        unseen = sum(hidden) | mask_of(self.stock) | sum(self.melds[k][1] for k in secret_melds)
        return Redeal(
            seat=seat, others=others, sizes=tuple(h.bit_count() for h in hidden), secret_melds=secret_melds,
            unseen=unseen, pool=cards_of(unseen),
            free_ranks=[r for r in range(1, 14) if unseen & RANK_MASK[r] == RANK_MASK[r]],
            must_hold_four=[q for q in others if self.phase == RESPONSE and self.responses[q] == 1
                            and self.options.require_meld_to_contest and not self.faceup[q]
                            and not self.secrets[q]],
            must_meld_taken=self.current_player if self.phase == PICKUP and self.current_player != seat else -1)

    def __getstate__(self):
        return self.to_dict()

    def __setstate__(self, d):
        self.__dict__.update(TongitsGame.from_dict(d).__dict__)

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

    def _can_take(self, seat: int) -> bool:
        """TG-7: the top discard and two hand cards form a meld."""
        if not self.discard:
            return False
        if not self.options.discard_take_must_meld:
            return True
        h = self.hands[seat]
        for pair in TAKE_PAIRS[self.discard[-1]]:
            if h & pair == pair:
                return True
        return False

    def _meld_ids(self, h: int) -> list:
        """Meld (and secret) action ids of everything in hand ``h``."""
        s0 = h & SUIT_BITS
        s1 = (h >> 13) & SUIT_BITS
        s2 = (h >> 26) & SUIT_BITS
        s3 = (h >> 39) & SUIT_BITS
        ids = []
        three = (s0 & s1 & (s2 | s3)) | (s2 & s3 & (s0 | s1))
        while three:
            low = three & -three
            i = low.bit_length() - 1
            sm = (s0 >> i & 1) | (s1 >> i & 1) << 1 | (s2 >> i & 1) << 2 | (s3 >> i & 1) << 3
            ids.extend(SET_IDS[i + 1][sm])
            if sm == 15:
                ids.append(SECRET0 + i)
            three ^= low
        ids += RUN_IDS[0][s0]
        ids += RUN_IDS[1][s1]
        ids += RUN_IDS[2][s2]
        ids += RUN_IDS[3][s3]
        return ids

    def legal_mask(self) -> np.ndarray:
        """int8 mask of the legal actions of ``current_player``, cached until the next step.
        Draw- and response-phase masks are shared read-only arrays: copy before changing one."""
        m = self._mask
        if m is not None:
            return m
        ph = self.phase
        p = self.current_player
        if self.done:
            m = EMPTY_MASK
        elif ph == DRAW:
            m = DRAW_MASKS[self._can_take(p)][self.faceup[p] > 0 and not self.blocked[p]]
        elif ph == RESPONSE:                                               # TG-20
            m = RESPONSE_MASK if self.qualified(p) or not self.options.require_meld_to_contest else FOLD_MASK
        elif ph == MELD:
            m = np.zeros(NUM_ACTIONS, dtype=np.int8)
            h = self.hands[p]
            m[DISCARD0:MELD0] = self.hand_arr[p]
            if self.taken >= 0 and self.sizes[p] > 1:
                m[DISCARD0 + self.taken] = 0
            ids = self._meld_ids(h)
            k = 0
            for f in self.fits:
                x = h & f
                while x:
                    low = x & -x
                    ids.append(LAYOFF0 + 17 * (low.bit_length() - 1) + k)
                    x ^= low
                k += 1
            if ids:
                m[ids] = 1
        else:  # PICKUP (TG-7): face-up melds holding the taken card
            m = np.zeros(NUM_ACTIONS, dtype=np.int8)
            tb = BIT[self.taken]
            m[[a for a in self._meld_ids(self.hands[p]) if a < SECRET0 and CAT_MASK[a - MELD0] & tb]] = 1
        self._mask = m
        return m

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
        self._redeal = None
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
        self.fits[k] = self._fit(m)
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

    # ---- observation / view --------------------------------------------------------------
    def observation(self, seat: int) -> np.ndarray:
        """What ``seat`` may know, laid out as in the ``tongits_v0`` docstring."""
        o = np.empty(OBS_SIZE, dtype=np.float32)
        o[:O_PRIVATE_END] = self.priv[seat]
        o[O_PILE:O_SEATS] = self.pub
        o[O_SEATS:] = self.sa[PERM[seat]]
        if self.secrets[seat]:
            for k, m in enumerate(self.melds):
                if m[2] and m[0] == seat:
                    for c in cards_of(m[1]):
                        o[O_MELD_CARDS + 52 * k + c] = 1.0
        return o

    @staticmethod
    def _meld_texts(m: list) -> list:
        return list(meld_card_texts(m[1], m[3]))

    def view(self, seat: int) -> dict:
        """Structured view of what ``seat`` may know (base.py ``Game.view``); others' secrets
        show as ``??`` until the hand ends (TG-13, TG-29). Built from the state directly with
        memoised texts, so its cost does not grow with the match."""
        done = self.done
        to_play = -1 if done else self.current_player
        legal = [ACTION_TEXT[a] for a in self.legal_mask().view(np.bool_).nonzero()[0].tolist()] if seat == to_play else []
        melds = []
        meld_texts = self._meld_texts
        for k, m in enumerate(self.melds):
            hidden = m[2] and m[0] != seat
            melds.append({"index": k, "owner": m[0], "secret": m[2],
                          "cards": ["??"] * 4 if hidden else meld_texts(m)})
        events = list(map(event_text, self.events))
        known = self.known
        last_hand = self._last_hand_view()
        v = {
            "game": "tongits_v0", "seat": seat, "num_players": 3, "to_play": to_play,
            "phase": "over" if done else PHASES[self.phase], "done": done,
            "hand": list(mask_texts(self.hands[seat])),
            "hand_sizes": list(self.sizes), "scores": list(self.chips), "legal_actions": legal,
            "melds": melds, "discard": [CARD_TEXT[c] for c in self.discard], "stock_size": len(self.stock),
            "events": events,
            "dealer": self.dealer, "turn": self.turn, "hand_index": self.hand_index,
            "hands_per_match": self.options.hands_per_match, "blocked": list(self.blocked),
            "exposed": [f > 0 for f in self.faceup], "secrets": list(self.secrets),
            "caller": self.caller if self.phase == RESPONSE and not done else -1,
            "responses": [("", "challenge", "fold")[r] for r in self.responses],
            "taken": CARD_TEXT[self.taken] if self.taken >= 0 else None,
            "known_cards": [list(mask_texts(known[s])) if s != seat else [] for s in range(3)],
            "turns_done": self.turns_done, "last_hand": last_hand,
        }
        if done and last_hand is not None:
            v["revealed_hands"] = [list(h) for h in last_hand["hands"]]
        return v

    def _last_hand_view(self) -> dict | None:
        """The previous hand's result with every hand and secret revealed (TG-29): built once
        per hand, then copied."""
        lh = self.last_hand
        if lh is None:
            return None
        cache = self.__dict__.get("_lh_cache")
        if cache is None or cache[0] is not lh:
            v = {k: (tuple(x) if isinstance(x, list) else x) for k, x in lh.items() if k not in ("hands", "melds")}
            v["hands"] = tuple(mask_texts(h) for h in lh["hands"])
            v["melds"] = tuple((k, m[0], tuple(self._meld_texts(m)), m[2]) for k, m in enumerate(lh["melds"]))
            self._lh_cache = cache = (lh, v)
        v = {k: (list(x) if isinstance(x, tuple) else x) for k, x in cache[1].items()}
        v["hands"] = [list(h) for h in v["hands"]]
        v["melds"] = [{"index": k, "owner": o, "cards": list(c), "secret": s} for k, o, c, s in v["melds"]]
        return v

    # ---- action text ---------------------------------------------------------------------
    def action_to_text(self, a: int) -> str:
        """Canonical text of action id ``a``; ``ValueError`` for anything but an id 0..1282."""
        return ACTIONS.action_to_text(a)

    def text_to_action(self, text: str) -> int:
        """Action id of an action text (tongits.md "Action text"); ``ValueError`` naming a bad text."""
        return ACTIONS.text_to_action(text)
