"""Contract Rummy rules engine (``docs/rules/contract_rummy.md``, rules CR-1..CR-34).

Plain Python + numpy. One explicit state class, :class:`ContractRummyGame`, and the validated
:class:`Options`. Hands are count arrays of length 53 (index 52 = jokers; 1-3 decks). A meld on
the table is a list of pieces (natural ``c`` or ``52 + c`` = ``JK=<card>``) with its
:class:`rummy_env.melds.Meld` shape. A whole match (every deal of ``deals``) is one episode.

Legality is exact: CR-16 ("the rest of the contract can still be laid"), CR-12 (deep takes) and
CR-28 (no dead ends) are decided by a depth-first search over the catalogue melds whose natural
cards are in hand (:meth:`ContractRummyGame._first`, :meth:`~ContractRummyGame._complete`; at most
three melds deep, memoised per remaining hand), with an exact-cover search for contract 7 laid all
at once (CR-17, :meth:`~ContractRummyGame._cover7`). Cheap necessary conditions prune first
(:meth:`~ContractRummyGame._may_lay`, :func:`coverable`, :func:`_segments`, :func:`_duplicates`);
where only the existence of a contract matters, the search uses the minimal melds alone (see
:meth:`~ContractRummyGame._cands`). Candidate melds come from lookup tables of the shared
catalogue (:func:`catalogue`, built by :func:`rummy_env.melds.joker_catalogue`).

Speed: the legal mask is built in a ``bytearray``; each seat's observation is a buffer brought
up to date only where versions of its slices changed, written through memoryviews.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import melds as ml
from ..actions import action_text_error, check_action_id, parse_index, split_words
from ..cards import BIT, CARD_TEXT, JOKER, NUM_CARDS, RANK_OF, SUIT_OF, parse_card, sort_key
from ..layout import ObservationLayout
from ..rng import copy_rng, fresh_rng

CONTRACTS = {1: (10, 2, 0), 2: (10, 1, 1), 3: (10, 0, 2), 4: (10, 3, 0),
             5: (12, 2, 1), 6: (12, 1, 2), 7: (12, 0, 3)}
"""CR-7: contract -> (hand size, sets, runs)."""
PENALTY = tuple(15 if RANK_OF[c] == 1 else min(RANK_OF[c], 10) for c in range(NUM_CARDS)) + (15,)
"""CR-30 penalty points per card id (joker last)."""
PHASES = ("draw", "contract", "place", "play")
DRAW, CONTRACT, PLACE, PLAY = range(4)
TOP_CARDS = 8
"""Pile cards shown in order in the observation (deep takes, CR-11)."""


@dataclass(frozen=True)
class Options:
    """Game options (rules file, "Options"); a bad value raises ``ValueError`` naming it."""

    num_players: int = 4
    num_decks: int = 0
    num_jokers: int = -1
    deals: tuple = (1, 2, 3, 4, 5, 6, 7)
    deal7_all_at_once: bool = True
    deep_discard: bool = True
    joker_swap: bool = True
    contract_runs_distinct_suits: bool = False
    min_run_length: int = 3
    max_turns_per_deal: int = 300
    reward_mode: str = "points"

    def __post_init__(self):
        def is_int(v):
            return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))

        if not is_int(self.num_players) or not 3 <= self.num_players <= 8:
            raise ValueError(f"num_players must be an int in 3..8, got {self.num_players!r}")
        if not is_int(self.num_decks) or not 0 <= self.num_decks <= 3:
            raise ValueError(f"num_decks must be 0 (auto) or 1..3, got {self.num_decks!r}")
        if not is_int(self.num_jokers) or not -1 <= self.num_jokers <= 2:
            raise ValueError(f"num_jokers must be -1 (auto) or 0..2, got {self.num_jokers!r}")
        try:
            deals = tuple(self.deals)
        except TypeError:
            raise ValueError(f"deals must be a non-empty sequence of contracts 1..7, got {self.deals!r}") from None
        if not deals or not all(is_int(d) and 1 <= d <= 7 for d in deals):
            raise ValueError(f"deals must be a non-empty sequence of contracts 1..7, got {self.deals!r}")
        object.__setattr__(self, "deals", tuple(int(d) for d in deals))
        for name in ("deal7_all_at_once", "deep_discard", "joker_swap", "contract_runs_distinct_suits"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be a bool, got {getattr(self, name)!r}")
        if not is_int(self.min_run_length) or self.min_run_length not in (3, 4):
            raise ValueError(f"min_run_length must be 3 or 4, got {self.min_run_length!r}")
        if not is_int(self.max_turns_per_deal) or self.max_turns_per_deal < 1:
            raise ValueError(f"max_turns_per_deal must be an int >= 1, got {self.max_turns_per_deal!r}")
        if self.reward_mode not in ("points", "win_loss"):
            raise ValueError(f"reward_mode must be 'points' or 'win_loss', got {self.reward_mode!r}")
        need = max(self.num_players * CONTRACTS[d][0] + 1 for d in self.deals)
        if self.pack_size < need:
            raise ValueError(f"num_decks/num_jokers: a pack of {self.pack_size} cards is too small for "
                             f"{self.num_players} players (a deal needs {need}, CR-2)")

    @property
    def decks(self) -> int:
        """CR-2: 1 deck for 3-4 seats, 2 for 5-8, unless set."""
        return self.num_decks or (1 if self.num_players <= 4 else 2)

    @property
    def jokers(self) -> int:
        """CR-2: one joker per deck, at most 2, unless set."""
        return self.num_jokers if self.num_jokers >= 0 else min(self.decks, 2)

    @property
    def pack_size(self) -> int:
        return 52 * self.decks + self.jokers

    def to_dict(self) -> dict:
        return {k: (list(v) if k == "deals" else v) for k, v in self.__dict__.items()}


class _Catalogue:
    """The meld catalogue of one (num_jokers, min_run) with lookup tables for the search."""

    def __init__(self, jokers: int, min_run: int):
        self.jokers = jokers
        self.pieces = ml.joker_catalogue(jokers, min_run)
        self.size = len(self.pieces)
        self.index = {tuple(sorted(p)): i for i, p in enumerate(self.pieces)}
        self.shape = [ml.classify(p, True, min_run) for p in self.pieces]
        self.text = [" ".join(ml.piece_text(q) for q in p) for p in self.pieces]
        self.is_set = [s.kind == ml.SET for s in self.shape]
        self.num_sets = sum(self.is_set)
        self.nat = [tuple(q for q in p if q < NUM_CARDS) for p in self.pieces]
        self.natmask = [sum(BIT[c] for c in set(n)) for n in self.nat]
        self.njk = [sum(q >= NUM_CARDS for q in p) for p in self.pieces]
        self.length = [len(p) for p in self.pieces]
        self.run_key = [(s.suit, s.lo, s.hi) for s in self.shape]
        # sets: (rank index, natural suit mask, jokers) -> entries
        self.set_table = [() for _ in range(13 * 16 * 3)]
        for r in range(13):
            for suits in range(16):
                for j in range(3):
                    self.set_table[(r * 16 + suits) * 3 + j] = tuple(
                        i for i in range(self.num_sets)
                        if RANK_OF[self.pieces[i][0] % 52] == r + 1 and self.njk[i] <= j
                        and all(suits >> SUIT_OF[c] & 1 for c in self.nat[i]))
        # runs: per suit, (entry, 13-bit natural rank mask, needs two natural aces, jokers)
        rows = [[] for _ in range(4)]
        for i in range(self.num_sets, self.size):
            ranks = 0
            for c in self.nat[i]:
                ranks |= 1 << (RANK_OF[c] - 1)
            dbl = len(self.nat[i]) != len(set(self.nat[i]))
            rows[self.shape[i].suit].append((i, ranks, dbl, self.njk[i]))
        self.suit_runs = [tuple(np.array(col, dtype=np.int64) for col in zip(*r)) for r in rows]
        self.suit_runs_small = [tuple(np.array(col, dtype=np.int64) for col in zip(*(e for e in r
                                                                                   if self.length[e[0]] == min_run)))
                                for r in rows]
        self.min_run = min_run
        self.set_table3 = [tuple(i for i in e if self.length[i] == 3) for e in self.set_table]
        """``set_table`` with the 3-piece sets only (the minimal sets, see ``ContractRummyGame._cands``)."""
        self.run_cache: dict[int, tuple[int, ...]] = {}
        self.with_cache: dict[int, tuple[int, ...]] = {}

    def runs_with(self, c: int, ranks: int, dbl: int, j: int, small: int = 0) -> tuple[int, ...]:
        """``runs_for`` of card ``c``'s suit, only the runs holding a natural ``c``."""
        key = (small << 22) | (c << 16) | (dbl << 15) | (j << 13) | ranks
        got = self.with_cache.get(key)
        if got is None:
            got = tuple(i for i in self.runs_for(SUIT_OF[c], ranks, dbl, j, small) if c in self.nat[i])
            if len(self.with_cache) > 100_000:
                self.with_cache.clear()
            self.with_cache[key] = got
        return got

    def runs_for(self, suit: int, ranks: int, dbl: int, j: int, small: int = 0) -> tuple[int, ...]:
        """Runs of ``suit`` whose natural ranks are in ``ranks`` with at most ``j`` jokers (``dbl``:
        two natural aces held); ``small``: only the runs of ``min_run`` pieces."""
        key = (small << 18) | (suit << 16) | (dbl << 15) | (j << 13) | ranks
        got = self.run_cache.get(key)
        if got is None:
            idx, rk, d, nj = (self.suit_runs_small if small else self.suit_runs)[suit]
            ok = (nj <= j) & ((rk & ~ranks) == 0)
            if not dbl:
                ok &= d == 0
            got = tuple(idx[ok].tolist())
            if len(self.run_cache) > 100_000:
                self.run_cache.clear()
            self.run_cache[key] = got
        return got


_CATALOGUES: dict[tuple[int, int], _Catalogue] = {}
_DISC_TABS: dict[int, tuple] = {}


def catalogue(jokers: int, min_run: int) -> _Catalogue:
    """The shared (cached) catalogue for ``num_jokers`` and ``min_run_length``."""
    key = (jokers, min_run)
    if key not in _CATALOGUES:
        _CATALOGUES[key] = _Catalogue(jokers, min_run)
    return _CATALOGUES[key]


def _lay_all(shapes: list, c: int, k: int) -> bool:
    """CR-28: can ``k`` pieces of card ``c`` (``JOKER``: jokers, any declaration) be laid off
    one after another on ``shapes``?"""
    if k == 0:
        return True
    for idx, sh in enumerate(shapes):
        xs = ml.layoff_cards(sh, True) if c == JOKER else ([c] if ml.fits(sh, c, True) else [])
        for x in xs:
            rest = shapes[:idx] + [ml.extend(sh, x, True)] + shapes[idx + 1:]
            if _lay_all(rest, c, k - 1):
                return True
    return False


def _at_least(vs: list, k: int) -> int:
    """Bitwise "at least ``k`` of the bit-vectors ``vs`` are set" (len(vs) is 3 or 4)."""
    if k <= 1:
        out = 0
        for v in vs:
            out |= v
        return out
    if k > len(vs):
        return 0
    if len(vs) == 3:
        a, b, c = vs
        return a & b & c if k == 3 else (a & b) | (a & c) | (b & c)
    a, b, c, d = vs
    if k == 4:
        return a & b & c & d
    if k == 3:
        return (a & b & (c | d)) | (c & d & (a | b))
    return (a & (b | c | d)) | (b & (c | d)) | (c & d)


def coverable(pm: int, jokers: int, min_run: int) -> int:
    """Natural cards of ``pm`` that lie in a window of ``min_run`` run positions of their suit
    holding at least ``min_run - jokers`` cards of ``pm`` (a necessary condition for being in
    a run, CR-14). Per suit from a lookup cache (:func:`_cover_suit`)."""
    out = 0
    base = (jokers << 3 | min_run) << 13
    for s in (0, 13, 26, 39):
        x = (pm >> s) & 0x1FFF
        if x:
            got = _COVER.get(base | x)
            if got is None:
                got = _COVER[base | x] = _cover_suit(x, jokers, min_run)
            out |= got << s
    return out


_COVER: dict = {}


def _cover_suit(x: int, jokers: int, min_run: int) -> int:
    """:func:`coverable` for one suit's 13-bit rank mask ``x``."""
    starts = (1 << (15 - min_run)) - 1
    x14 = x | ((x & 1) << 13)
    w = _at_least([x14 >> i for i in range(min_run)], min_run - jokers) & starts
    cov = 0
    for i in range(min_run):
        cov |= w << i
    return ((cov & 0x1FFF) | (cov >> 13 & 1)) & x


def _duplicates(cnt: list) -> int:
    """Copies of a natural card beyond the first (beyond the second for an ace) in ``cnt``: the
    runs of one contract never share a position (CR-9; an ace may be low in one, high in
    another), so under CR-17 all of them but one spare card cannot be laid."""
    out = 0
    for c in range(NUM_CARDS):
        k = cnt[c] - (2 if c % 13 == 0 else 1)
        if k > 0:
            out += k
    return out


_NAT_RUNS: dict = {}


def _nat_runs(x: int, min_run: int) -> int:
    """At least the number of disjoint joker-free runs that one deck's cards of a suit (13-bit
    rank mask ``x``) can form: maximal gap-free stretches of positions 1..14, the ace counted at
    both ends, each holding ``len // min_run`` runs (an upper bound, CR-14)."""
    key = x << 3 | min_run
    got = _NAT_RUNS.get(key)
    if got is None:
        x14 = x | ((x & 1) << 13)
        got = size = 0
        for p in range(15):
            if x14 >> p & 1:
                size += 1
            else:
                got += size // min_run
                size = 0
        _NAT_RUNS[key] = got
    return got


_SEGMENTS: dict = {}


def _segments(ranks: int, jokers: int) -> tuple:
    """(runs needed at least, has a one-card group) for one suit's 13-bit rank mask: groups of
    cards whose gaps ``jokers`` jokers cannot bridge need separate runs (the ace placed low or
    high, whichever needs fewer)."""
    key = (ranks << 2) | jokers
    got = _SEGMENTS.get(key)
    if got is None:
        best = None
        for high in (False, True):
            pos = sorted((14 if high and r == 0 else r + 1) for r in range(13) if ranks >> r & 1)
            groups, single, size, prev = 0, False, 0, None
            for p in pos:
                if prev is None or p - prev - 1 > jokers:
                    single = single or size == 1
                    groups += 1
                    size = 0
                size += 1
                prev = p
            single = single or size == 1
            if best is None or groups < best[0]:
                best = (groups, single)
        got = _SEGMENTS[key] = best
    return got


def _runs_needed(pm: int, jokers: int) -> tuple[int, bool]:
    """Over the four suits of card bitmask ``pm``: how many runs are needed at least to hold every
    card (``_segments`` per suit), and whether some suit has a lone-card segment."""
    need, single = 0, False
    for s in range(4):
        x = (pm >> (13 * s)) & 0x1FFF
        if x:
            g, one = _segments(x, jokers)
            need += g
            single = single or one
    return need, single


class ContractRummyGame:
    """State of one Contract Rummy match (all deals of ``options.deals``)."""

    def __init__(self, options: Options, rng: np.random.Generator):
        self.opts = options
        self.rng = rng
        n = self.num_players = options.num_players
        self.N = options.pack_size
        self.M = 3 * n
        self.J = options.jokers
        self.cat = catalogue(self.J, options.min_run_length)
        self.multi = options.decks > 1
        self.A_DISC = self.N + 1
        self._disc_tabs = _DISC_TABS.setdefault(self.A_DISC, ({}, {}, {}, {}))
        """Per suit: 13-bit rank mask -> its ``discard`` action ids (shared by equal packs)."""
        self.A_MELD = self.N + 54
        self.A_LAY = self.A_MELD + self.cat.size
        self.A_SWAP = self.A_LAY + 104 * self.M
        self.num_actions = self.A_SWAP + 52 * self.M
        self.deal7_all = options.deal7_all_at_once
        self.all7 = False
        """Contract 7 under ``deal7_all_at_once`` (CR-17) in the deal being played."""
        self.layout = observation_layout(options)
        self.obs_size = self.layout.size
        off = {part.name: part.start for part in self.layout}
        self._zeros = memoryview(np.zeros(self.obs_size, dtype=np.float32))
        """Zeros to clear observation slices with (memoryview slice copies)."""
        self._offs = tuple(off[k] for k in ("pile_counts", "table_cards", "picked_up", "must_use", "banned",
                                            "deal_index", "contract", "phase", "pile_size", "down",
                                            "contract_laid", "melds"))
        self._table_offs = (off["table_cards"], off["table_jokers"], off["melds"])
        self._mask = None

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
            g._setup(deal)
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
        self.all7 = self.contract == 7 and self.deal7_all
        hs, self.need_sets, self.need_runs = CONTRACTS[self.contract]
        pack = ml_pack(self.opts)
        order = self.rng.permutation(len(pack))
        cards = [pack[i] for i in order]
        self.hands = [[0] * 53 for _ in range(n)]
        for i in range(n * hs):
            self.hands[(dealer + 1 + i) % n][cards[i]] += 1
        self.hsize = [hs] * n
        self.pile = [cards[n * hs]]
        self.stock = cards[:n * hs:-1]  # top = last
        self.melds = []
        self.down = [False] * n
        self.known = [[0] * 53 for _ in range(n)]
        self.turns = 0
        self.current_player = (dealer + 1) % n
        self._reset_turn()
        self._sync_np()
        self._touch()

    def _setup(self, deal: dict) -> None:
        """Scenario set-up from ``options["deal"]`` (rules file, "Scenario set-up")."""
        if not isinstance(deal, dict):
            raise ValueError(f"deal must be a dict, got {type(deal).__name__}")
        allowed = {"dealer", "hands", "stock", "discard", "deal_index", "melds", "to_play", "scores", "turns"}
        unknown = set(deal) - allowed
        if unknown:
            raise ValueError(f"unknown deal key(s) {sorted(unknown)}; allowed: {sorted(allowed)}")
        n = self.num_players

        def seat(key, default):
            v = deal.get(key, default)
            if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or not 0 <= v < n:
                raise ValueError(f"deal {key!r} must be a seat 0..{n - 1}, got {v!r}")
            return int(v)

        di = deal.get("deal_index", 0)
        if not isinstance(di, int) or isinstance(di, bool) or not 0 <= di < len(self.opts.deals):
            raise ValueError(f"deal 'deal_index' must be 0..{len(self.opts.deals) - 1}, got {di!r}")
        self.deal_idx = di
        self.dealer = seat("dealer", int(self.rng.integers(n)))
        self.contract = self.opts.deals[di]
        self.all7 = self.contract == 7 and self.deal7_all
        hs, self.need_sets, self.need_runs = CONTRACTS[self.contract]
        if "hands" not in deal:
            raise ValueError("deal needs 'hands'")
        hands = deal["hands"]
        if not isinstance(hands, (list, tuple)) or len(hands) != n:
            raise ValueError(f"deal 'hands' must hold {n} hands, got "
                             f"{len(hands) if isinstance(hands, (list, tuple)) else hands!r}")
        self.hands = []
        for s, h in enumerate(hands):
            cnt = [0] * 53
            for c in (parse_card(t, allow_joker=True) for t in _texts(h, f"'hands' of seat {s}")):
                cnt[c] += 1
            self.hands.append(cnt)
        self.hsize = [sum(h) for h in self.hands]
        used = [0] * 53
        for h in self.hands:
            for c in range(53):
                used[c] += h[c]
        self.melds = []
        self.down = [False] * n
        owned = [[0, 0] for _ in range(n)]
        melds = deal.get("melds", [])
        if not isinstance(melds, (list, tuple)):
            raise ValueError(f"deal 'melds' must be a list of melds, got {melds!r}")
        for m in melds:
            if not isinstance(m, dict) or "owner" not in m or "cards" not in m:
                raise ValueError(f"deal meld {m!r} needs 'owner' and 'cards'")
            owner = m["owner"]
            if not isinstance(owner, int) or isinstance(owner, bool) or not 0 <= owner < n:
                raise ValueError(f"deal meld owner must be a seat 0..{n - 1}, got {owner!r}")
            texts = _texts(m["cards"], "meld 'cards'")
            pieces = [ml.parse_piece(t) for t in texts]
            shape = ml.classify(pieces, True, self.opts.min_run_length)
            if shape is None:
                raise ValueError(f"deal meld {' '.join(texts)} is not a valid meld (CR-13, CR-14)")
            if len(self.melds) >= self.M:
                raise ValueError(f"deal has more than {self.M} melds")
            for p in pieces:
                used[JOKER if p >= NUM_CARDS else p] += 1
            owned[owner][0 if shape.kind == ml.SET else 1] += 1
            self.down[owner] = True
            self._add_meld(pieces, shape, owner)
        for s in range(n):
            if self.down[s] and owned[s] != [self.need_sets, self.need_runs]:
                raise ValueError(f"deal melds of seat {s} are {owned[s][0]} set(s) and {owned[s][1]} run(s), "
                                 f"not contract {self.contract} (CR-8)")
        if self.melds and self.contract == 7 and self.deal7_all:
            raise ValueError("deal melds are impossible in deal 7 under deal7_all_at_once (CR-17)")
        for s in range(n):
            if self.hsize[s] == 0:
                raise ValueError(f"deal hand of seat {s} is empty")
            if not self.down[s] and self.hsize[s] != hs:
                raise ValueError(f"deal hand of seat {s} has {self.hsize[s]} cards; contract {self.contract} "
                                 f"deals {hs} (CR-7)")
        pile = None
        if "discard" in deal:
            pile = [parse_card(t, allow_joker=True) for t in _texts(deal["discard"], "'discard'")]
            if not pile:
                raise ValueError("deal 'discard' is empty: leave the key out to turn up the stock's top card")
            for c in pile:
                used[c] += 1
        full = [self.opts.decks] * 52 + [self.J]
        if "stock" in deal:
            stock_top_first = [parse_card(t, allow_joker=True) for t in _texts(deal["stock"], "'stock'")]
            for c in stock_top_first:
                used[c] += 1
            if used != full:
                raise ValueError("deal cards (hands, stock, discard, meld pieces) are not exactly the pack: "
                                 + _pack_diff(used, full))
            stock = stock_top_first[::-1]
        else:
            if any(u > f for u, f in zip(used, full)):
                raise ValueError("deal cards are not a part of the pack: " + _pack_diff(used, full))
            rest = [c for c in range(53) for _ in range(full[c] - used[c])]
            stock = [rest[i] for i in self.rng.permutation(len(rest))]
        if pile is None:
            if not stock:
                raise ValueError("deal has no discard and an empty stock")
            pile = [stock.pop()]
        if not stock and len(pile) == 1:
            raise ValueError("deal has an empty stock and a one-card discard pile (CR-33)")
        self.pile = pile
        self.stock = stock
        self.current_player = seat("to_play", (self.dealer + 1) % n)
        scores = deal.get("scores", [0] * n)
        if not isinstance(scores, (list, tuple)) or len(scores) != n or not all(
                isinstance(x, int) and not isinstance(x, bool) for x in scores):
            raise ValueError(f"deal 'scores' must be {n} ints, got {scores!r}")
        self.scores = list(scores)
        turns = deal.get("turns", 0)
        if not isinstance(turns, int) or isinstance(turns, bool) or not 0 <= turns < self.opts.max_turns_per_deal:
            raise ValueError(f"deal 'turns' must be 0..{self.opts.max_turns_per_deal - 1}, got {turns!r}")
        self.turns = turns
        self.known = [[0] * 53 for _ in range(n)]
        self._reset_turn()
        self._sync_np()
        self._touch()

    def _add_meld(self, pieces: list, shape, owner: int) -> None:
        self.melds.append([list(pieces), shape, owner, tuple(ml.layoff_cards(shape, True)),
                           [p - NUM_CARDS for p in pieces if p >= NUM_CARDS] if shape.kind == ml.RUN else []])

    def _sync_np(self) -> None:
        """Rebuild the float32 mirrors of hands, pick-ups, pile and table (for observations),
        the presence bitmask of each hand, and every seat's observation buffer."""
        n = self.num_players
        self.pms = [self._presence(h) for h in self.hands]
        self.hand_np = np.array(self.hands, dtype=np.float32)
        self.known_np = np.array(self.known, dtype=np.float32)
        self.pile_np = np.zeros(53, dtype=np.float32)
        for c in self.pile:
            self.pile_np[c] += 1
        self.pub = np.zeros(self.obs_size, dtype=np.float32)
        self._pubmv = memoryview(self.pub)
        """Seat-independent slices of the observation (pile and table; the owner slots of the
        melds stay 0 here)."""
        self._obs = np.zeros((n, self.obs_size), dtype=np.float32)
        """Each seat's observation, brought up to date slice by slice when it is asked for."""
        self._orows = list(self._obs)
        self._omv = [memoryview(o) for o in self._obs]
        self._hmv = [memoryview(h) for h in self.hand_np]
        self._kmv = [memoryview(k) for k in self.known_np]
        self._pmv = memoryview(self.pile_np)
        """memoryviews of the arrays above: item and slice writes through them are cheaper."""
        self._seen = [[-1] * 8 for _ in range(n)]
        """Per seat: the versions (hand, pile, table, pick-ups, seldom) its buffer shows, then the
        indices of its must-use, banned and phase ones (-1: none)."""
        self._vh = [0] * n
        self._vp = self._vk = self._vd = self._vt = 0
        self._pub_vp = -1
        self._table_np()

    def _table_np(self) -> None:
        """Table part of the observation (in ``pub``): piece counts, swappable jokers, one row
        per meld."""
        table = [0] * 53
        jk = [0] * 52
        feats = np.zeros((self.M, _SLOT), dtype=np.float32)
        for k, m in enumerate(self.melds):
            row = [0.0] * _SLOT
            row[0] = 1.0
            nj = 0
            for p in m[0]:
                if p >= NUM_CARDS:
                    table[52] += 1
                    nj += 1
                else:
                    table[p] += 1
            for x in m[4]:
                jk[x] = 1
            sh = m[1]
            if sh.kind == ml.SET:
                row[1] = 1.0
                row[3 + sh.rank - 1] = 1.0
                for s in range(4):
                    if sh.suits >> s & 1:
                        row[48 + s] = 1.0
            else:
                row[2] = 1.0
                row[16 + sh.suit] = 1.0
                row[20 + sh.lo - 1] = 1.0
                row[34 + sh.hi - 1] = 1.0
            row[52] = nj
            row[53] = sh.size / 14.0
            feats[k] = row
        o_table, o_jokers, o_melds = self._table_offs
        pub = self.pub
        pub[o_table:o_table + 53] = table
        pub[o_jokers:o_jokers + 52] = jk
        slot = _SLOT + self.num_players
        pub[o_melds:o_melds + self.M * slot].reshape(self.M, slot)[:, :_SLOT] = feats
        self._vt += 1

    def _touch(self) -> None:
        self._mask = None

    # ------------------------------------------------------------------ search (CR-16, CR-28)
    @staticmethod
    def _presence(cnt: list) -> int:
        """Bitmask of the natural cards with a nonzero count."""
        pm = 0
        for c in range(52):
            if cnt[c]:
                pm |= BIT[c]
        return pm

    def _cands(self, cnt: list, pm: int, sets: bool, runs: bool, small: int = 0) -> list:
        """Catalogue melds whose natural cards and jokers are in ``cnt`` (``pm``: its presence).

        ``small``: only the minimal melds (3-piece sets, ``min_run_length``-piece runs). Every
        meld holds a minimal one holding any given piece of it, with a smaller run extent (CR-9),
        so where only the existence of a whole contract matters (no banned card, CR-28, and not
        contract 7 laid all at once, CR-17) the minimal melds decide it exactly."""
        cat = self.cat
        j = cnt[52] if cnt[52] < self.J else self.J
        out: list = []
        if sets:
            tab = cat.set_table3 if small else cat.set_table
            a = pm & 0x1FFF
            b = pm >> 13 & 0x1FFF
            c = pm >> 26 & 0x1FFF
            d = pm >> 39
            if j == 0:  # ranks with 3+ suits
                ok = (a & b & (c | d)) | (c & d & (a | b))
            elif j == 1:  # 2+ suits
                ok = (a & (b | c | d)) | (b & (c | d)) | (c & d)
            else:
                ok = a | b | c | d
            while ok:
                low = ok & -ok
                ok ^= low
                r = low.bit_length() - 1
                out.extend(tab[(r * 16 + ((a >> r & 1) | (b >> r & 1) << 1 | (c >> r & 1) << 2 | (d >> r & 1) << 3))
                               * 3 + j])
        if runs:
            mr = self.opts.min_run_length
            need = mr - j
            for s in range(4):
                rk = (pm >> (13 * s)) & 0x1FFF
                if rk and rk.bit_count() >= need:
                    # only cards in a window of min_run positions with enough of them can be in a run:
                    # keying the cache on those alone makes it hit far more often
                    key = ((j << 3 | mr) << 13) | rk
                    rk = _COVER.get(key)
                    if rk is None:
                        rk = _COVER[key] = _cover_suit(key & 0x1FFF, j, mr)
                    if rk:
                        out.extend(cat.runs_for(s, rk, 1 if cnt[13 * s] >= 2 else 0, j, small))
        return out

    def _cands_with(self, cnt: list, pm: int, c: int, sets: bool, runs: bool, small: int = 0) -> list:
        """The candidates (:meth:`_cands`) holding a natural ``c`` (``JOKER``: a joker)."""
        cat = self.cat
        if c == JOKER:
            return [i for i in self._cands(cnt, pm, sets, runs, small) if cat.njk[i]]
        j = cnt[52] if cnt[52] < self.J else self.J
        out: list = []
        r = RANK_OF[c] - 1
        if sets:
            x = pm >> r
            tab = cat.set_table3 if small else cat.set_table
            suits = (x & 1) | (x >> 12 & 2) | (x >> 24 & 4) | (x >> 36 & 8)
            out.extend(i for i in tab[(r * 16 + suits) * 3 + j] if c in cat.nat[i])
        if runs:
            s = SUIT_OF[c]
            rk = (pm >> (13 * s)) & 0x1FFF
            mr = self.opts.min_run_length
            if rk.bit_count() >= mr - j:
                key = ((j << 3 | mr) << 13) | rk
                rk = _COVER.get(key)
                if rk is None:
                    rk = _COVER[key] = _cover_suit(key & 0x1FFF, j, mr)
                if rk >> r & 1:
                    out.extend(cat.runs_with(c, rk, 1 if cnt[13 * s] >= 2 else 0, j, small))
        return out

    def _may_lay(self, cnt: list, pm: int, a: int, b: int) -> bool:
        """Cheap necessary condition for laying ``a`` sets and ``b`` runs from ``cnt`` (``pm``: its
        presence): joker-free sets come from ranks with 3+ suits, joker-free runs from stretches
        of ``min_run_length`` present positions, and every other meld holds a joker of its own."""
        need = 0
        if a:
            w = pm & 0x1FFF
            x = pm >> 13 & 0x1FFF
            y = pm >> 26 & 0x1FFF
            z = pm >> 39
            ok = (w & x & (y | z)) | (y & z & (w | x))
            if self.multi:
                sets = 0
                while ok:
                    low = ok & -ok
                    ok ^= low
                    r = low.bit_length() - 1
                    sets += (cnt[r] + cnt[13 + r] + cnt[26 + r] + cnt[39 + r]) // 3
            else:
                sets = ok.bit_count()
            if a > sets:
                need = a - sets
                if need > cnt[52]:
                    return False
        if b:
            mr = self.opts.min_run_length
            runs = 0
            for s in (0, 13, 26, 39):
                x = (pm >> s) & 0x1FFF
                if x:
                    if self.multi:
                        cov = coverable(x, 0, mr)
                        k = 0
                        while cov:
                            low = cov & -cov
                            cov ^= low
                            k += cnt[s + low.bit_length() - 1]
                        runs += k // mr
                    else:
                        got = _NAT_RUNS.get(x << 3 | mr)
                        runs += _nat_runs(x, mr) if got is None else got
            if b > runs:
                need += b - runs
        return need <= cnt[52]

    def _runs_ok(self, i: int, runs: list) -> bool:
        """CR-9 between run ``i`` and the contract's other runs."""
        s, lo, hi = self.cat.run_key[i]
        for s2, lo2, hi2 in runs:
            if s2 == s and (self.opts.contract_runs_distinct_suits or not (hi < lo2 - 1 or hi2 < lo - 1)):
                return False
        return True

    def _take(self, cnt: list, pm: int, i: int) -> int:
        """Remove meld ``i``'s pieces from ``cnt``; returns the new presence mask."""
        cat = self.cat
        nat = cat.nat[i]
        for c in nat:
            cnt[c] -= 1
        cnt[52] -= cat.njk[i]
        pm &= ~cat.natmask[i]
        if self.N > 53:
            for c in nat:
                if cnt[c]:
                    pm |= BIT[c]
        return pm

    def _put(self, cnt: list, i: int) -> None:
        cat = self.cat
        for c in cat.nat[i]:
            cnt[c] += 1
        cnt[52] += cat.njk[i]

    def _cover_ok(self, cands: list, pm: int) -> bool:
        """CR-17 prune: three runs taking all cards but one need every card but one in some run."""
        cover = 0
        natmask = self.cat.natmask
        for i in cands:
            cover |= natmask[i]
        return (pm & ~cover).bit_count() <= 1

    def _leaf(self, cnt: list, total: int, new: list, banned: int) -> bool:
        """Whether the hand left after the whole contract is no dead end (CR-17, CR-28)."""
        if self.all7:
            return total == 0 or (total == 1 and (banned < 0 or cnt[banned] == 0))
        if total == 0 or banned < 0 or cnt[banned] != total:
            return True
        shapes = [m[1] for m in self.melds] + [self.cat.shape[i] for i in new]
        return _lay_all(shapes, banned, total)

    def _complete(self, cnt: list, pm: int, total: int, a: int, b: int, runs: list, new: list,
                  banned: int, memo: dict) -> bool:
        """Can ``a`` more sets and ``b`` more runs be laid from ``cnt`` (CR-9, CR-16, CR-17,
        CR-28)? Sets are chosen first, then runs; ``memo`` keeps the answer per remaining state
        (cards, melds still needed, the contract's runs; the new melds where the leaf needs them)."""
        if self.all7:
            return self._cover7(cnt, pm, total, b, runs, banned, True, memo)
        if a == 0 and b == 0:
            return self._leaf(cnt, total, new, banned)
        key = (bytes(cnt), a, b, tuple(sorted(runs)), tuple(sorted(new)) if banned >= 0 else None)
        got = memo.get(key)
        if got is not None:
            return got
        cat = self.cat
        ok = False
        for i in self._cands(cnt, pm, a > 0, a == 0, banned < 0):
            if a == 0 and not self._runs_ok(i, runs):
                continue
            pm2 = self._take(cnt, pm, i)
            new.append(i)
            if a:
                ok = self._complete(cnt, pm2, total - cat.length[i], a - 1, b, runs, new, banned, memo)
            else:
                ok = self._complete(cnt, pm2, total - cat.length[i], 0, b - 1, runs + [cat.run_key[i]], new,
                                    banned, memo)
            new.pop()
            self._put(cnt, i)
            if ok:
                break
        memo[key] = ok
        return ok

    def _cover7(self, cnt: list, pm: int, total: int, b: int, runs: list, banned: int, spare: bool,
                memo: dict) -> bool:
        """CR-17: can ``b`` runs take every card left but, if ``spare``, one discardable card?
        Exact cover: the lowest natural card left is in the next run or is the spare card."""
        if b == 0:
            return total == 0 or (spare and total == 1 and (banned < 0 or cnt[banned] == 0))
        if not pm or total > 14 * b + spare:
            return False
        key = (bytes(cnt), b, tuple(sorted(runs)), spare)
        got = memo.get(key)
        if got is not None:
            return got
        j = cnt[52] if cnt[52] < self.J else self.J
        need, single = _runs_needed(pm, j)
        if need - (1 if spare and single else 0) > b:
            memo[key] = False
            return False
        cat = self.cat
        c = (pm & -pm).bit_length() - 1
        ok = False
        for i in self._cands_with(cnt, pm, c, False, True):
            if not self._runs_ok(i, runs):
                continue
            pm2 = self._take(cnt, pm, i)
            ok = self._cover7(cnt, pm2, total - cat.length[i], b - 1, runs + [cat.run_key[i]], banned, spare, memo)
            self._put(cnt, i)
            if ok:
                break
        if not ok and spare and c != banned:
            cnt[c] -= 1
            ok = self._cover7(cnt, pm if cnt[c] else pm & ~BIT[c], total - 1, b, runs, banned, False, memo)
            cnt[c] += 1
        memo[key] = ok
        return ok

    def _has(self, i: int, must: int) -> bool:
        """Whether catalogue meld ``i`` puts a card of the must-use text on the table (CR-12)."""
        return must in self.cat.nat[i] if must < JOKER else self.cat.njk[i] > 0

    def _first(self, cnt: list, pm: int, total: int, a: int, b: int, runs: list, must: int, banned: int,
               only: bool, new: list, memo: dict | None = None) -> list:
        """The melds ``i`` that can be laid next with the rest of the contract still layable after
        them (with the ``must`` card in one of the melds, CR-12). ``only``: stop at the first.

        Candidates differing only in joker places leave the same cards: a relaxed search (without
        their own CR-9 extent and with the banned card ignored, so it finds a superset) is run once
        per remainder (``memo``), and the exact one only where the relaxed one succeeds."""
        if memo is None:
            memo = {}
        cat = self.cat
        if self.all7:
            if self.multi and _duplicates(cnt) > 1:
                return []
            j = cnt[52] if cnt[52] < self.J else self.J
            if (pm & ~coverable(pm, j, self.opts.min_run_length)).bit_count() > 1:
                return []
        if self.all7:
            cands = self._cands(cnt, pm, a > 0, b > 0)
            if not self._cover_ok(cands, pm):
                return []
        if only and must >= 0:  # existence: the meld with the must-use card may come first
            cands = self._cands_with(cnt, pm, must, a > 0, b > 0, banned < 0 and not self.all7)
        elif not self.all7:
            cands = self._cands(cnt, pm, a > 0, b > 0)
        out = []
        for i in cands:
            if cat.is_set[i]:
                if not a:
                    continue
                na, nb, nruns = a - 1, b, runs
            else:
                if not b or not self._runs_ok(i, runs):
                    continue
                na, nb, nruns = a, b - 1, runs + [cat.run_key[i]]
            m2 = -1 if must >= 0 and self._has(i, must) else must
            if m2 >= 0 and only:
                continue
            pm2 = self._take(cnt, pm, i)
            t2 = total - cat.length[i]
            key = (bytes(cnt), na, nb, m2, len(runs))
            ok = memo.get(key)
            if ok is None:
                if m2 < 0:
                    ok = self._complete(cnt, pm2, t2, na, nb, runs, [], -1, memo)
                else:
                    ok = bool(self._first(cnt, pm2, t2, na, nb, runs, m2, -1, True, [], {}))
                memo[key] = ok
            if ok and (nruns is not runs or banned >= 0):
                new.append(i)
                if m2 < 0:
                    ok = self._complete(cnt, pm2, t2, na, nb, nruns, new, banned, memo)
                else:
                    ok = bool(self._first(cnt, pm2, t2, na, nb, nruns, m2, banned, True, new, {}))
                new.pop()
            self._put(cnt, i)
            if ok:
                out.append(i)
                if only:
                    return out
        return out

    def _legal_melds(self) -> list:
        """CR-15/CR-16: every ``meld`` that keeps the rest of the contract layable."""
        seat = self.current_player
        if self.laid:
            runs = [(sh.suit, sh.lo, sh.hi) for sh in (self.melds[k][1] for k in self.laid) if sh.kind == ml.RUN]
            a = self.need_sets - (len(self.laid) - len(runs))
            b = self.need_runs - len(runs)
        else:
            runs = []
            a, b = self.need_sets, self.need_runs
        if not self._may_lay(self.hands[seat], self.pms[seat], a, b):
            return []
        cnt = list(self.hands[seat])
        return self._first(cnt, self.pms[seat], self.hsize[seat], a, b, runs, self.must, self.banned, False,
                           [])

    # ------------------------------------------------------------------ CR-28 helpers
    def _dead_after(self, cnt_banned: int, total: int, shapes: list) -> bool:
        """CR-28: the hand left (``total`` cards, ``cnt_banned`` of the banned text) is a dead end."""
        b = self.banned
        return b >= 0 and total > 0 and cnt_banned == total and not _lay_all(shapes, b, total)

    def _layoff_ok(self, k: int, piece: int, hand: list, total: int, shapes: list) -> bool:
        """CR-28 for ``layoff piece @k`` (the piece fits and is held)."""
        b = self.banned
        if b < 0:
            return True
        card_ = JOKER if piece >= NUM_CARDS else piece
        nb = hand[b] - (1 if card_ == b else 0)
        if total - 1 == 0 or nb != total - 1:
            return True
        sh = list(shapes)
        sh[k] = ml.extend(sh[k], piece % NUM_CARDS, True)
        return _lay_all(sh, b, total - 1)

    def _swap_ok(self, k: int, c: int, hand: list, total: int) -> bool:
        """CR-22/CR-23/CR-28: ``swap c @k`` leaves a legal lay-off of the freed joker."""
        shapes = [m[1] for m in self.melds]
        h = list(hand)
        h[c] -= 1
        h[52] += 1
        b = self.banned
        if b >= 0 and self._dead_after(h[b], total, shapes):
            return False
        for k2, m in enumerate(self.melds):
            for x in m[3]:
                if self._layoff_ok(k2, NUM_CARDS + x, h, total, shapes):
                    return True
        return False

    def _can_place(self, c: int, hand: list, total: int) -> bool:
        """CR-12 for a down seat: natural ``c`` can be laid off or swapped in as the table stands."""
        for k, m in enumerate(self.melds):
            if c in m[3]:
                return True
        if c == JOKER:
            return any(m[3] for m in self.melds)
        if self.opts.joker_swap:
            for k, m in enumerate(self.melds):
                if c in m[4] and self._swap_ok(k, c, hand, total):
                    return True
        return False

    # ------------------------------------------------------------------ legal actions
    def legal_actions(self) -> list:
        """Legal action ids of ``current_player`` (unsorted)."""
        if self.done:
            return []
        seat = self.current_player
        hand = self.hands[seat]
        total = self.hsize[seat]
        out = []
        if self.phase == DRAW:
            pile = self.pile
            if self.stock or len(pile) >= 2:
                out.append(0)
            b = pile[-1]
            if not self.down[seat] or hand[b] + 1 != total + 1 or \
                    _lay_all([m[1] for m in self.melds], b, total + 1):
                out.append(1)
            if self.opts.deep_discard and len(pile) >= 2:
                out.extend(self._deep_takes(seat))
            return out
        if self.phase == CONTRACT:
            return [self.A_MELD + i for i in self._legal_melds()]
        shapes = [m[1] for m in self.melds]
        b = self.banned
        free = b < 0 or hand[b] < total - 1  # no lay-off can leave only banned cards (CR-28)
        if self.phase == PLACE:
            A_LAY = self.A_LAY
            c = self.must
            if self.freed or c == JOKER:
                for k, m in enumerate(self.melds):
                    for x in m[3]:
                        if self._layoff_ok(k, NUM_CARDS + x, hand, total, shapes):
                            out.append(A_LAY + 104 * k + NUM_CARDS + x)
                return out
            for k, m in enumerate(self.melds):
                if c in m[3] and self._layoff_ok(k, c, hand, total, shapes):
                    out.append(A_LAY + 104 * k + c)
            if self.opts.joker_swap:
                for k, m in enumerate(self.melds):
                    if c in m[4] and self._swap_ok(k, c, hand, total):
                        out.append(self.A_SWAP + 52 * k + c)
            return out
        # PLAY
        if self.down[seat]:
            if not (self.went_down and self.all7):
                A_LAY = self.A_LAY
                jk = hand[52] > 0
                for k, m in enumerate(self.melds):
                    for x in m[3]:
                        if hand[x] and (free or self._layoff_ok(k, x, hand, total, shapes)):
                            out.append(A_LAY + 104 * k + x)
                        if jk and (free or self._layoff_ok(k, NUM_CARDS + x, hand, total, shapes)):
                            out.append(A_LAY + 104 * k + NUM_CARDS + x)
                if self.opts.joker_swap and not self.went_down:
                    for k, m in enumerate(self.melds):
                        for x in m[4]:
                            if hand[x] and self._swap_ok(k, x, hand, total):
                                out.append(self.A_SWAP + 52 * k + x)
        else:
            melds = self._legal_melds()
            if melds:
                out.extend(self.A_MELD + i for i in melds)
        pm = self.pms[seat]
        if 0 <= self.banned < NUM_CARDS:
            pm &= ~BIT[self.banned]
        tabs = self._disc_tabs
        for s in range(4):
            x = (pm >> (13 * s)) & 0x1FFF
            if x:
                got = tabs[s].get(x)
                if got is None:
                    got = tabs[s][x] = tuple(self.A_DISC + 13 * s + r for r in range(13) if x >> r & 1)
                out.extend(got)
        if hand[JOKER] and self.banned != JOKER:
            out.append(self.A_DISC + JOKER)
        return out

    def _deep_takes(self, seat: int) -> list:
        """CR-11/CR-12: the legal ``take discard K``, K >= 2."""
        hand = self.hands[seat]
        total = self.hsize[seat]
        pile = self.pile
        out = []
        if self.down[seat]:
            h = list(hand)
            h[pile[-1]] += 1
            for K in range(2, len(pile) + 1):
                c = pile[-K]
                h[c] += 1
                if self._can_place(c, h, total + K):
                    out.append(K)
            return out
        mr = self.opts.min_run_length
        if self.all7:  # CR-17: all but one card of the hand must fit runs, even with the whole pile
            pm_all = self.pms[seat]
            for c in pile:
                if c < NUM_CARDS:
                    pm_all |= BIT[c]
            j = min(hand[52] + pile.count(JOKER), self.J)
            if (self.pms[seat] & ~coverable(pm_all, j, mr)).bit_count() > 1:
                return out
        cnt = list(hand)
        cnt[pile[-1]] += 1
        a, b = self.need_sets, self.need_runs
        pm = self.pms[seat] | (BIT[pile[-1]] if pile[-1] < NUM_CARDS else 0)
        dup = _duplicates(cnt) if self.all7 and self.multi else 0
        for K in range(2, len(pile) + 1):
            if self.all7 and total + K > 43:  # CR-17: three runs hold at most 42 cards
                break
            c = pile[-K]
            cnt[c] += 1
            if self.multi and c < NUM_CARDS and cnt[c] > (2 if c % 13 == 0 else 1):
                dup += 1
                if self.all7 and dup > 1:  # CR-9, CR-17: and taking more only adds copies
                    break
            if c == JOKER:
                if self._may_lay(cnt, pm, a, b) and self._first(cnt, pm, total + K, a, b, [], c, -1, True, []):
                    out.append(K)
                continue
            pm |= BIT[c]
            j = cnt[52] if cnt[52] < self.J else self.J
            if self.all7:
                # every card but one goes into a run (CR-17): the taken ones too
                if (pm & ~coverable(pm, j, mr)).bit_count() > 1:
                    continue
                need, single = _runs_needed(pm, j)
                if need - single > b:
                    continue
            r = RANK_OF[c] - 1
            possible = False
            if a:  # a set holding c: 3 suits of its rank, jokers included
                x = pm >> r
                possible = (x & 1) + (x >> 13 & 1) + (x >> 26 & 1) + (x >> 39 & 1) + j >= 3
            if b and not possible:  # a run holding c: a window of min_run positions around it
                sh = 13 * SUIT_OF[c]
                key = ((j << 3 | mr) << 13) | ((pm >> sh) & 0x1FFF)
                cov = _COVER.get(key)
                if cov is None:
                    cov = _COVER[key] = _cover_suit(key & 0x1FFF, j, mr)
                possible = cov >> r & 1
            if possible and self._may_lay(cnt, pm, a, b) and self._first(cnt, pm, total + K, a, b, [], c, -1,
                                                                          True, []):
                out.append(K)
        return out

    def legal_mask(self) -> np.ndarray:
        """int8 mask over all actions for ``current_player`` (cached until the next step)."""
        if self._mask is None:
            buf = bytearray(self.num_actions)
            if not self.done:
                for a in self.legal_actions():
                    buf[a] = 1
            self._mask = np.frombuffer(buf, dtype=np.int8)
        return self._mask

    # ------------------------------------------------------------------ stepping
    def step(self, a: int):
        """Apply legal action ``a``. Returns per-seat float32 rewards, or None."""
        seat = self.current_player
        hand = self.hands[seat]
        known = self.known[seat]
        N = self.N
        self._mask = None
        if a == 0:  # draw stock (CR-11, CR-32)
            if not self.stock:
                top = self.pile.pop()
                rest = self.pile
                self.stock = [rest[i] for i in self.rng.permutation(len(rest))]
                self.pile = [top]
                self.pile_np[:] = 0
                self.pile_np[top] = 1
                self._vp += 1
                self.events.append(f"the pile is shuffled into a new stock ({len(self.stock)} "
                                   + ("card)" if len(self.stock) == 1 else "cards)"))
            c = self.stock.pop()
            hand[c] += 1
            if c < NUM_CARDS:
                self.pms[seat] |= BIT[c]
            self._hmv[seat][c] = hand[c]
            self._vh[seat] += 1
            self.hsize[seat] += 1
            self.phase = PLAY
            self.events.append((seat, a, None))
            return None
        if a <= N:  # take discard K (CR-11, CR-12)
            taken = self.pile[-a:]
            del self.pile[-a:]
            hn, kn, pn = self._hmv[seat], self._kmv[seat], self._pmv
            pms = self.pms[seat]
            for c in taken:
                hand[c] += 1
                known[c] += 1
                if c < NUM_CARDS:
                    pms |= BIT[c]
                hn[c] = hand[c]
                kn[c] = known[c]
                pn[c] -= 1
            self.pms[seat] = pms
            self._vp += 1
            self._vk += 1
            self._vh[seat] += 1
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
                self.pms[seat] &= ~BIT[c]
            self._hmv[seat][c] = hand[c]
            self._vh[seat] += 1
            if known[c]:
                known[c] -= 1
                self._kmv[seat][c] = known[c]
                self._vk += 1
            self.hsize[seat] -= 1
            self.pile.append(c)
            self._pmv[c] += 1
            self._vp += 1
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
            self.pms[seat] = self._presence(hand)
            self.hand_np[seat] = hand
            self.known_np[seat] = known
            self._vh[seat] += 1
            self._vk += 1
            self._vd += 1
            self._table_np()
        return rewards

    def _table_step(self, a: int, seat: int, hand: list, known: list):
        """``meld``, ``layoff`` and ``swap`` (the hand and the table change)."""
        if a < self.A_LAY:  # meld (CR-15, CR-16)
            i = a - self.A_MELD
            cat = self.cat
            for c in cat.nat[i]:
                hand[c] -= 1
                if known[c]:
                    known[c] -= 1
            nj = cat.njk[i]
            if nj:
                hand[52] -= nj
                known[52] = max(0, known[52] - nj)
            self.hsize[seat] -= cat.length[i]
            self.laid.append(len(self.melds))
            self._add_meld(list(cat.pieces[i]), cat.shape[i], seat)
            if self.must >= 0 and self._has(i, self.must):
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
            k, p = divmod(a - self.A_LAY, 104)
            c = p - NUM_CARDS if p >= NUM_CARDS else p
            if p >= NUM_CARDS:
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
            m = self.melds[k]
            m[0].append(p)
            m[1] = ml.extend(m[1], c, True)
            m[3] = tuple(ml.layoff_cards(m[1], True))
            if p >= NUM_CARDS and m[1].kind == ml.RUN:
                m[4].append(c)
            self.phase = PLAY
            if self.hsize[seat] == 0:
                return self._end_deal(seat)
            return None
        # swap (CR-22, CR-23)
        k, c = divmod(a - self.A_SWAP, 52)
        m = self.melds[k]
        m[0][m[0].index(NUM_CARDS + c)] = c
        m[4].remove(c)
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
        pts = [0 if s == out_seat else sum(PENALTY[c] * k for c, k in enumerate(self.hands[s]) if k)
               for s in range(n)]
        for s in range(n):
            self.scores[s] += pts[s]
        self.last_deal = {"deal": self.deal_idx + 1, "contract": self.contract, "out": out_seat,
                          "penalties": pts, "scores": list(self.scores)}
        self.events.append(f"deal {self.deal_idx + 1} (contract {self.contract}) ends: "
                           + (f"player_{out_seat} goes out" if out_seat >= 0 else "dead deal")
                           + "; penalties " + " ".join(str(p) for p in pts))
        if self.opts.reward_mode == "points":
            rewards = np.array([-p for p in pts], dtype=np.float32)
        else:
            rewards = np.zeros(n, dtype=np.float32)
        if self.deal_idx + 1 < len(self.opts.deals):
            self.deal_idx += 1
            self._start_deal((self.dealer + 1) % n)
        else:
            self.done = True
            self.phase = DRAW
            self._sync_np()
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
            h = self.hands[seat]
            need = {}
            for c in self.cat.nat[i]:
                need[c] = need.get(c, 0) + 1
            if any(h[c] < k for c, k in need.items()) or h[52] < self.cat.njk[i]:
                return "the meld's cards are not in hand (CR-16)"
            return "the rest of the contract could not be laid after it, or it is not in the contract (CR-8, CR-9, CR-16, CR-17, CR-28)"
        if not self.down[seat]:
            return "only a seat that is down may lay off or swap (CR-15, CR-18)"
        if a < self.A_SWAP:
            k, p = divmod(a - self.A_LAY, 104)
            if k >= len(self.melds):
                return f"there is no meld @{k}"
            if self.went_down and self.all7:
                return "after laying contract 7 only the discard is left (CR-17)"
            h = self.hands[seat]
            if (h[52] if p >= NUM_CARDS else h[p]) == 0:
                return f"{ml.piece_text(p)} is not in hand"
            if p % 52 not in self.melds[k][3] and not (p >= NUM_CARDS and p - NUM_CARDS in self.melds[k][3]):
                return f"{ml.piece_text(p)} does not fit @{k} (CR-18, CR-19, CR-24)"
            return "it would leave only cards of the banned text (CR-28)"
        k, c = divmod(a - self.A_SWAP, 52)
        if not self.opts.joker_swap:
            return "joker_swap is off (CR-22)"
        if self.went_down:
            return "a seat may swap only if it was down before this turn (CR-22)"
        if k >= len(self.melds) or c not in self.melds[k][4]:
            return f"@{k} holds no swappable JK={CARD_TEXT[c]} (CR-22, CR-24)"
        if not self.hands[seat][c]:
            return f"{CARD_TEXT[c]} is not in hand"
        return "the freed joker could not then be laid off (CR-23, CR-28)"

    # ------------------------------------------------------------------ text
    def action_to_text(self, a: int) -> str:
        """Canonical text of action id ``a``; ``ValueError`` for anything but an id ``0..num_actions-1``."""
        a = check_action_id(a, self.num_actions)
        N = self.N
        if a == 0:
            return "draw stock"
        if a == 1:
            return "take discard"
        if a <= N:
            return f"take discard {a}"
        if a < self.A_MELD:
            return "discard " + CARD_TEXT[a - self.A_DISC]
        if a < self.A_LAY:
            return "meld " + self.cat.text[a - self.A_MELD]
        if a < self.A_SWAP:
            k, p = divmod(a - self.A_LAY, 104)
            return f"layoff {ml.piece_text(p)} @{k}"
        k, c = divmod(a - self.A_SWAP, 52)
        return f"swap {CARD_TEXT[c]} @{k}"

    def text_to_action(self, text: str) -> int:
        """Action id of an action text (rules file "Action text", grammar of ``rummy_env.actions``);
        ``ValueError`` naming an unknown or malformed text."""
        w = split_words(text)
        try:
            if w == ["draw", "stock"]:
                return 0
            if w[:2] == ["take", "discard"] and len(w) in (2, 3):
                return 1 if len(w) == 2 else parse_index(w[2], "K of 'take discard K'", 1, self.N)
            if w[0] == "discard" and len(w) == 2:
                return self.A_DISC + parse_card(w[1], allow_joker=True)
            if w[0] == "meld" and len(w) >= 2:
                pieces = [ml.parse_piece(x) for x in w[1:]]
                i = self.cat.index.get(tuple(sorted(pieces)))
                if i is None:
                    raise ValueError("not a meld of the catalogue (CR-13, CR-14)")
                return self.A_MELD + i
            if w[0] in ("layoff", "swap") and len(w) == 3 and w[2].startswith("@"):
                k = parse_index(w[2][1:], "the meld index k of '@k'", 0, self.M - 1)
                if w[0] == "layoff":
                    return self.A_LAY + 104 * k + ml.parse_piece(w[1])
                return self.A_SWAP + 52 * k + parse_card(w[1])
        except ValueError as err:
            raise action_text_error(text, str(err)) from None
        raise action_text_error(text, "expected draw stock, take discard [K], meld ..., layoff P @k, swap C @k "
                                      "or discard C")

    # ------------------------------------------------------------------ observation / view
    def observation(self, seat: int) -> np.ndarray:
        """float32 vector (layout in ``contract_rummy_v0``) of what ``seat`` may know."""
        _observe(self, seat)
        return self._orows[seat].copy()

    def view(self, seat: int) -> dict:
        n = self.num_players
        hand = self.hands[seat]
        legal = []
        if seat == self.current_player and not self.done:
            legal = [self.action_to_text(int(a)) for a in np.flatnonzero(self.legal_mask())]
        events = []
        for e in self.events[-20:]:
            if isinstance(e, str):
                events.append(e)
            else:
                events.append(self._move_event_text(*e))
        return {
            "game": "contract_rummy_v0",
            "seat": seat,
            "num_players": n,
            "to_play": -1 if self.done else self.current_player,
            "phase": "over" if self.done else PHASES[self.phase],
            "done": self.done,
            "hand": [CARD_TEXT[c] for c in sorted((c for c in range(53) for _ in range(hand[c])), key=sort_key)],
            "hand_sizes": list(self.hsize),
            "scores": list(self.scores),
            "legal_actions": legal,
            "melds": [{"index": k, "owner": m[2],
                       "cards": [ml.piece_text(p) for p in ml.canonical_order(m[0], m[1])]}
                      for k, m in enumerate(self.melds)],
            "discard": [CARD_TEXT[c] for c in self.pile],
            "stock_size": len(self.stock),
            "events": events,
            "deal_index": self.deal_idx,
            "num_deals": len(self.opts.deals),
            "contract": self.contract,
            "contract_needs": {"sets": self.need_sets, "runs": self.need_runs},
            "dealer": self.dealer,
            "down": list(self.down),
            "turns": self.turns,
            "must_use": CARD_TEXT[self.must] if self.must >= 0 else None,
            "banned": CARD_TEXT[self.banned] if self.banned >= 0 else None,
            "freed_joker": self.freed,
            "went_down_this_turn": self.went_down,
            "contract_laid_this_turn": list(self.laid),
            "picked_up": [[CARD_TEXT[c] for c in range(53) for _ in range(k[c])] for k in self.known],
            "last_deal": self._last_deal_view(),
        }

    def _move_event_text(self, seat: int, a: int, taken) -> str:
        """A move as a public event in words: ``player_1 takes 9C TD TS from the pile``."""
        words = self.action_to_text(a).split()
        who = f"player_{seat}"
        if words[0] == "draw":
            return f"{who} draws from the stock"
        if words[0] == "take":
            return f"{who} takes {' '.join(CARD_TEXT[c] for c in taken or ())} from the pile"
        verb = {"discard": "discards", "meld": "melds", "layoff": "lays off", "swap": "swaps"}[words[0]]
        if words[0] == "swap":
            return f"{who} swaps {words[1]} for the joker in {words[2]}"
        return f"{who} {verb} {' '.join(words[1:])}".replace(" @", " on @")

    def _last_deal_view(self) -> dict | None:
        """The previous deal's end (CR-29, CR-30, CR-33): ``deal`` (1-based), ``contract``, ``out``
        (the seat that went out, -1 for a dead deal), ``penalties`` and the ``scores`` after it."""
        d = self.last_deal
        if d is None:
            return None
        return {**d, "penalties": list(d["penalties"]), "scores": list(d["scores"])}

    def render_text(self, seat: int) -> str:
        v = self.view(seat)
        lines = [f"Contract Rummy - deal {v['deal_index'] + 1}/{v['num_deals']}, contract {v['contract']} "
                 f"({v['contract_needs']['sets']} set(s), {v['contract_needs']['runs']} run(s)); "
                 f"dealer player_{v['dealer']}; phase {v['phase']}; to play "
                 + ("-" if v["to_play"] < 0 else f"player_{v['to_play']}"),
                 "scores: " + " ".join(f"p{i}={x}" for i, x in enumerate(v["scores"])),
                 "hand sizes: " + " ".join(f"p{i}={x}{'*' if d else ''}" for i, (x, d) in
                                           enumerate(zip(v["hand_sizes"], v["down"]))) + "  (* = down)",
                 f"stock: {v['stock_size']}  pile (bottom..top): {' '.join(v['discard'])}"]
        for m in v["melds"]:
            lines.append(f"  @{m['index']} (player_{m['owner']}): {' '.join(m['cards'])}")
        lines.append(f"player_{seat} hand: {' '.join(v['hand'])}")
        if v["must_use"]:
            lines.append(f"must use: {v['must_use']}")
        if v["legal_actions"]:
            lines.append("legal: " + ", ".join(v["legal_actions"]))
        return "\n".join(lines)

    # ------------------------------------------------------------------ copies
    def clone(self) -> "ContractRummyGame":
        """An independent copy in the same state, copied directly (the catalogue and its search
        caches, which depend on no hand, are shared)."""
        g = object.__new__(ContractRummyGame)
        g.__dict__.update(self.__dict__)
        g.rng = copy_rng(self.rng)
        for name in ("scores", "events", "hsize", "pile", "stock", "down", "laid", "pms", "_vh"):
            setattr(g, name, getattr(self, name)[:])
        for name in ("hands", "known", "_seen"):
            setattr(g, name, [row[:] for row in getattr(self, name)])
        g.melds = [[m[0][:], m[1], m[2], m[3], m[4][:]] for m in self.melds]
        g.hand_np = self.hand_np.copy()
        g.known_np = self.known_np.copy()
        g.pile_np = self.pile_np.copy()
        g.pub = self.pub.copy()
        g._pubmv = memoryview(g.pub)
        g._obs = self._obs.copy()
        g._orows = list(g._obs)
        g._omv = [memoryview(o) for o in g._obs]
        g._hmv = [memoryview(h) for h in g.hand_np]
        g._kmv = [memoryview(k) for k in g.known_np]
        g._pmv = memoryview(g.pile_np)
        return g

    def determinize(self, seat: int, rng: np.random.Generator) -> "ContractRummyGame":
        """An independent copy in which everything ``seat`` cannot see (CR-6) is dealt again
        uniformly at random: the other hands' cards not publicly picked up from the pile and the
        stock are shuffled over the same slots, keeping every hand size and the cards each seat
        is known to hold. When another seat is to act with a must-use card or a freed joker to
        place (CR-12, CR-23), which its take or swap showed it can, deals in which it has no legal
        action are rejected and drawn again. Not kept apart: after the pile is shuffled into a new stock (CR-4), its
        cards are public as a set, but the engine does not track which of them are still in the
        stock. The copy's generator is drawn from ``rng``."""
        g = self.clone()
        g.rng = fresh_rng(rng)
        others = [s for s in range(self.num_players) if s != seat]
        pool = list(self.stock)
        for s in others:
            hand, known = self.hands[s], self.known[s]
            for c in range(53):
                if hand[c] > known[c]:
                    pool += [c] * (hand[c] - known[c])
        duty = self.current_player != seat and (self.must >= 0 or self.freed)
        while True:
            pool.sort()   # a deal that depends only on what the seat has seen, not on where the cards are
            order = rng.permutation(len(pool)).tolist()
            pos = 0
            for s in others:
                hand = self.known[s][:]
                size = self.hsize[s] - sum(hand)
                for i in order[pos:pos + size]:
                    hand[pool[i]] += 1
                pos += size
                g.hands[s] = hand
                g.pms[s] = self._presence(hand)
                g.hand_np[s] = hand
                g._vh[s] += 1
            g._touch()
            if not duty or g.legal_mask().any():
                break
        g.stock = [pool[i] for i in order[pos:]]
        return g

    def to_dict(self) -> dict:
        return {
            "options": self.opts.to_dict(),
            "rng": self.rng.bit_generator.state,
            "deal_idx": self.deal_idx, "dealer": self.dealer, "scores": list(self.scores),
            "hands": [list(h) for h in self.hands], "stock": list(self.stock), "pile": list(self.pile),
            "melds": [[list(m[0]), m[2], m[1].lo] for m in self.melds],
            "down": list(self.down), "known": [list(k) for k in self.known], "turns": self.turns,
            "current_player": self.current_player, "phase": self.phase, "must": self.must,
            "banned": self.banned, "freed": self.freed, "went_down": self.went_down, "laid": list(self.laid),
            "done": self.done, "truncated": self.truncated,
            "events": [e if isinstance(e, str) else [e[0], e[1], list(e[2]) if e[2] else None]
                       for e in self.events[-20:]],
            "last_deal": self.last_deal,
        }

    @classmethod
    def from_dict(cls, d: dict) -> "ContractRummyGame":
        o = dict(d["options"])
        o["deals"] = tuple(o["deals"])
        rng = np.random.default_rng()
        rng.bit_generator.state = d["rng"]
        g = cls(Options(**o), rng)
        g.deal_idx = d["deal_idx"]
        g.dealer = d["dealer"]
        g.scores = list(d["scores"])
        g.contract = g.opts.deals[g.deal_idx]
        g.all7 = g.contract == 7 and g.deal7_all
        _, g.need_sets, g.need_runs = CONTRACTS[g.contract]
        g.hands = [list(h) for h in d["hands"]]
        g.hsize = [sum(h) for h in g.hands]
        g.stock = list(d["stock"])
        g.pile = list(d["pile"])
        g.melds = []
        for entry in d["melds"]:
            pieces, owner = entry[0], entry[1]
            shape = ml.classify(pieces, True, g.opts.min_run_length)
            if len(entry) > 2 and shape.kind == ml.RUN and shape.lo != entry[2]:
                # a 13-piece run with one ace (CR-19): keep the end its ace was laid at
                shape = shape._replace(lo=entry[2], hi=entry[2] + shape.size - 1)
            g._add_meld(pieces, shape, owner)
        g.down = list(d["down"])
        g.known = [list(k) for k in d["known"]]
        for key in ("turns", "current_player", "phase", "must", "banned", "freed", "went_down", "done", "truncated"):
            setattr(g, key, d[key])
        g.laid = list(d["laid"])
        g.events = [e if isinstance(e, str) else (e[0], e[1], e[2]) for e in d["events"]]
        g.last_deal = d.get("last_deal")
        g._sync_np()
        return g

    def __getstate__(self):
        return self.to_dict()

    def __setstate__(self, d):
        self.__dict__.update(ContractRummyGame.from_dict(d).__dict__)


def ml_pack(opts: Options) -> list:
    """The pack of ``opts`` (CR-2): ``decks`` x 52 cards, then the jokers."""
    return [c for _ in range(opts.decks) for c in range(NUM_CARDS)] + [JOKER] * opts.jokers


def _texts(v, where: str) -> list:
    """Card or piece texts of a deal value: a list of strings, or one string of words."""
    if isinstance(v, str):
        return v.split()
    if not isinstance(v, (list, tuple)) or not all(isinstance(t, str) for t in v):
        raise ValueError(f"deal {where} must be a list of card texts, got {v!r}")
    return list(v)


def _pack_diff(used: list, full: list) -> str:
    extra = [f"{CARD_TEXT[c]} x{u - f}" for c, (u, f) in enumerate(zip(used, full)) if u > f]
    missing = [f"{CARD_TEXT[c]} x{f - u}" for c, (u, f) in enumerate(zip(used, full)) if u < f]
    return f"too many: {' '.join(extra) or '-'}; missing: {' '.join(missing) or '-'}"


# ---------------------------------------------------------------------- observation layout
def observation_layout(opts: Options) -> ObservationLayout:
    """The observation's named parts for ``opts`` (documented in ``contract_rummy_v0``)."""
    n = opts.num_players
    return ObservationLayout([
        ("hand", 53, "0..6", "my card counts (52 = jokers)"),
        ("pile_counts", 53, "0..6", "counts of every card in the discard pile (CR-6)"),
        ("pile_top", (TOP_CARDS, 53), "{0,1}", "one-hot of the pile's top cards, top first"),
        ("table_cards", 53, "0..6", "counts of pieces on the table"),
        ("table_jokers", 52, "0..3", "per card: how many swappable jokers stand for it (CR-22)"),
        ("melds", (3 * n, _SLOT + n), "[0, 6]", "per meld slot: features, then the owner (relative seat one-hot)"),
        ("picked_up", (n, 53), "0..6", "per relative seat, per card: how many it is publicly known to hold"),
        ("must_use", 53, "{0,1}", "one-hot of the must-use card (CR-12)"),
        ("banned", 53, "{0,1}", "one-hot of the banned text (CR-26)"),
        ("deal_index", len(opts.deals), "{0,1}", "one-hot of the deal being played"),
        ("contract", 7, "{0,1}", "one-hot of its contract 1..7 (CR-7)"),
        ("phase", 4, "{0,1}", "draw, contract, place, play"),
        ("pile_size", 1, "0..inf", "cards in the pile"),
        ("stock_size", 1, "0..inf", "cards in the stock"),
        ("down", n, "{0,1}", "seat is down (relative seats)"),
        ("hand_sizes", n, "0..inf", "cards in each hand"),
        ("scores", n, "[0, inf]", "penalty totals / 100 (CR-31)"),
        ("dealer", n, "{0,1}", "dealer one-hot (relative)"),
        ("contract_laid", 2, "0..3", "sets and runs of the contract laid this turn (CR-15)"),
        ("flags", 3, "{0,1}", "freed joker in hand (CR-23), went down this turn (CR-22), my turn"),
        ("turns", 1, "[0, 1]", "turns completed this deal / max_turns_per_deal (CR-33)"),
    ])


_SLOT = 1 + 2 + 13 + 4 + 14 + 14 + 4 + 1 + 1
"""Per meld slot before the owner one-hot: present, set/run, rank (sets), suit (runs), lo and hi
one-hot (runs, positions 1..14), suits present (sets), jokers, size/14."""



def _move_one_hot(o, seen: list, k: int, i: int) -> None:
    """Move the single 1.0 that ``seen[k]`` remembers to index ``i`` of ``o`` (-1 = none)."""
    if seen[k] != i:
        if seen[k] >= 0:
            o[seen[k]] = 0.0
        if i >= 0:
            o[i] = 1.0
        seen[k] = i


def _observe(g: ContractRummyGame, seat: int) -> None:
    """``seat``'s observation: its buffer is brought up to date where the versions it shows are
    behind (hand, pile, table, pick-ups, seldom-changing slices); the small slices are rewritten
    (through memoryviews: cheaper than numpy item writes)."""
    (o_pile, o_table, o_picked, o_must, o_banned, o_deal, o_contract, o_phase, o_size, o_down,
     o_laid, o_melds) = g._offs
    n = g.num_players
    o = g._omv[seat]
    seen = g._seen[seat]
    if seen[0] != g._vh[seat]:
        seen[0] = g._vh[seat]
        o[:53] = g._hmv[seat]
    if seen[1] != g._vp:
        seen[1] = g._vp
        pub = g._pubmv
        e = o_pile + 53 * (TOP_CARDS + 1)
        if g._pub_vp != g._vp:
            g._pub_vp = g._vp
            pub[o_pile:o_pile + 53] = g._pmv
            t = o_pile + 53
            pub[t:e] = g._zeros[:e - t]
            for c in g.pile[-1:-TOP_CARDS - 1:-1]:
                pub[t + c] = 1.0
                t += 53
        o[o_pile:e] = pub[o_pile:e]
    if seen[2] != g._vt:
        seen[2] = g._vt
        o[o_table:o_picked] = g._pubmv[o_table:o_picked]
        b = o_melds + _SLOT - seat
        slot = _SLOT + n
        for k, m in enumerate(g.melds):
            o[b + slot * k + (m[2] if m[2] >= seat else m[2] + n)] = 1.0
    if seen[3] != g._vk:
        seen[3] = g._vk
        b = o_picked
        for s in range(seat, n):
            o[b:b + 53] = g._kmv[s]
            b += 53
        for s in range(seat):
            o[b:b + 53] = g._kmv[s]
            b += 53
    if seen[4] != g._vd:
        seen[4] = g._vd
        o[o_deal:o_phase] = g._zeros[:o_phase - o_deal]
        o[o_deal + g.deal_idx] = 1.0
        o[o_contract + g.contract - 1] = 1.0
        b = o_down
        for i in range(n):
            s = seat + i if seat + i < n else seat + i - n
            o[b + i] = 1.0 if g.down[s] else 0.0
            o[b + 2 * n + i] = g.scores[s] / 100.0
            o[b + 3 * n + i] = 1.0 if g.dealer == s else 0.0
    _move_one_hot(o, seen, 5, o_must + g.must if g.must >= 0 else -1)
    _move_one_hot(o, seen, 6, o_banned + g.banned if g.banned >= 0 else -1)
    _move_one_hot(o, seen, 7, -1 if g.done else o_phase + g.phase)
    o[o_size] = len(g.pile)
    o[o_size + 1] = len(g.stock)
    b = o_down + n
    hs = g.hsize
    for i in range(n):
        o[b + i] = hs[seat + i if seat + i < n else seat + i - n]
    b = o_laid
    if g.laid:
        nsets = sum(1 for k in g.laid if g.melds[k][1].kind == ml.SET)
        o[b] = nsets
        o[b + 1] = len(g.laid) - nsets
    else:
        o[b] = o[b + 1] = 0.0
    o[b + 2] = g.freed
    o[b + 3] = g.went_down
    o[b + 4] = seat == g.current_player and not g.done
    o[b + 5] = g.turns / g.opts.max_turns_per_deal

