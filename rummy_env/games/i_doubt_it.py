"""I Doubt It (Cheat, Bluff): the rules engine (``docs/rules/i_doubt_it.md``, DI-1..DI-29).

Plain Python + numpy. One state class, :class:`IDoubtItGame`, and its :class:`Options`.

Representation. Suits never matter (DI-5), so a hand is kept as 13 rank counts plus the real
cards as 52 card counts (two decks hold two copies of a card, DI-1), used for logs and reveals.
The pile is a list of card ids, bottom first, with the seat that put each card there (-1 for a
scenario's initial pile). A play names only the ranks of the cards put down (DI-11); the cards
moved are the lowest suits first (C, D, H, S; DI-5).

Action ids (DI rules file, "Action ids"): 0 ``doubt``, 1 ``pass``, then every rank multiset of
1 .. ``max_cards_per_play`` cards, by size and then lexicographically by rank index (A=0 .. K=12);
``misclaim`` last when ``wrong_rank_claims``. The multiset table is built once per
``max_cards_per_play`` (:func:`play_table`) and the mask is an AND over the 13 ranks of
precomputed bit sets "needs at most c of rank r" -- no loop over actions.

Observation (per seat, float32, ``74 + 29 n`` values) is described slice by slice in
``rummy_env/i_doubt_it_v0.py``. It is a gather of one absolute state vector kept up to date by
:meth:`IDoubtItGame.step`; seat-relative order (index 0 = the observing seat).

Where to find what:

- actions: :class:`PlayTable` (the plays of ``max_cards_per_play`` and their catalogues),
  ``IDoubtItGame.actions`` (the catalogue of the options: texts, parser), ``DOUBT``, ``PASS``, ``FIRST_PLAY``;
- options: :class:`Options`; scenario deals: ``IDoubtItGame.new`` (keys ``DEAL_KEYS``);
- observation: ``OWN_PARTS`` / ``PUBLIC_PARTS`` / ``SEAT_FEATURES`` (named parts, documented in
  ``i_doubt_it_v0``), ``gather_index`` (the absolute vector), ``_rebuild`` / ``observation``;
- rules: legality ``legal_mask`` / ``illegal_reason``; moves ``step``, ``_play``, doubts ``_resolve``,
  the end ``_finish``;
- copies and serialisation: ``clone``, ``determinize``, ``to_dict`` / ``from_dict``; view and event texts.
"""
from __future__ import annotations

import itertools
import math
from collections import deque
from dataclasses import asdict, dataclass

import numpy as np

from ..actions import RANK, Catalogue, Combination, Segment
from ..cards import CARD_TEXT, NUM_CARDS, RANKS, make_pack, parse_rank
from ..layout import ObservationLayout
from ..rng import copy_rng, fresh_rng
from ..validate import OptionRule, PackTally, check_deal_keys, check_option_rules, check_int, check_list

GAME_NAME = "i_doubt_it_v0"
DOUBT, PASS, FIRST_PLAY = 0, 1, 2
PLAY_PHASE, DOUBT_PHASE, OVER_PHASE = 0, 1, 2
PHASES = ("play", "doubt", "over")
REWARD_MODES = ("winner", "rank")
AFTER_PICKUP = ("next", "taker")
MAX_EVENTS = 20
_CARD_IDS = range(NUM_CARDS)
_RANK_OF = tuple(c % 13 for c in _CARD_IDS)
"""The rank index of every card id (DI-5: suits never matter), for :meth:`IDoubtItGame.determinize`."""

# ---------------------------------------------------------------------------------------------
# Observation layout (documented part by part in ``i_doubt_it_v0``). The engine keeps one absolute
# state vector: the public parts (offsets G_*), then the per-seat features as [feature][seat]
# (feature numbers F_*), then per-seat 13-rank blocks: public known cards, hand, own cards in the pile.
OWN_PARTS = [
    ("hand", 13, "0..inf", "my hand: cards per rank (A, 2, ..., K)"),
    ("own_pile", 13, "0..inf", "my cards in the current pile, per rank"),
]
PUBLIC_PARTS = [
    ("rank", 13, "{0,1}", "required rank of the next play, one-hot (DI-14)"),
    ("pile_size", 1, "0..inf", "pile size (face-down cards)"),
    ("phase", 3, "{0,1}", "phase one-hot: play, doubt, over"),
    ("plays", 1, "0..inf", "plays made so far (DI-28)"),
    ("plays_left", 1, "0..inf", "plays left before the cap max_plays"),
    ("claim_count", 1, "0..8", "pending claim: number of cards (0 outside a doubt window)"),
    ("claim_rank", 13, "{0,1}", "pending claim's rank, one-hot"),
    ("revealed", 13, "0..8", "last revealed play: cards per rank (DI-20)"),
    ("revealed_true", 1, "{0,1}", "last revealed play was true"),
    ("revealed_false", 1, "{0,1}", "last revealed play was false"),
]
SEAT_FEATURES = [  # (name, range, description), n values each: one per relative seat
    ("hand_sizes", "0..inf", "hand size of each seat"),
    ("out", "{0,1}", "seat is out (DI-24..DI-26)"),
    ("place", "0..11", "place (1 = first; 0 while unplaced)"),
    ("to_act", "{0,1}", "seat to act, one-hot"),
    ("pending", "{0,1}", "seat whose play is pending in the window, one-hot"),
    ("passed", "{0,1}", "seat has passed in the current window"),
    ("revealed_player", "{0,1}", "player of the last revealed play, one-hot"),
    ("revealed_taker", "{0,1}", "seat that took the pile after the last reveal, one-hot"),
    ("unknown_cards", "0..inf", "cards of the seat not publicly known"),
    ("plays_made", "0..inf", "plays made by the seat"),
    ("cards_played", "0..inf", "cards the seat has played"),
    ("doubts", "0..inf", "doubts the seat has called"),
    ("passes", "0..inf", "passes the seat has made in windows"),
    ("pickups", "0..inf", "piles the seat has taken"),
    ("cards_picked_up", "0..inf", "cards the seat has taken with piles"),
    ("caught_lying", "0..inf", "plays of the seat revealed false"),
]


def _observation_layout(n: int) -> ObservationLayout:
    return ObservationLayout(OWN_PARTS + PUBLIC_PARTS + [(name, n, rng, text) for name, rng, text in SEAT_FEATURES]
                             + [("known", (n, 13), "0..inf", "per seat, per rank: cards publicly known held")])


OBSERVATION_LAYOUTS = {n: _observation_layout(n) for n in range(3, 12)}


def observation_layout(options: "Options") -> ObservationLayout:
    """The observation's named parts for ``options.num_players``."""
    return OBSERVATION_LAYOUTS[options.num_players]


_PUBLIC = ObservationLayout(PUBLIC_PARTS)
G_RANK, G_PILE, G_PHASE, G_PLAYS, G_LEFT, G_CLAIM_N, G_CLAIM_R, G_REV, G_REV_TRUE, G_REV_FALSE = (
    part.start for part in _PUBLIC)
NG = _PUBLIC.size
(F_SIZE, F_OUT, F_PLACE, F_TO_ACT, F_PENDING, F_PASSED, F_REV_PLAYER, F_REV_TAKER, F_UNKNOWN,
 F_PLAYS, F_CARDS, F_DOUBTS, F_PASSES, F_PICKUPS, F_PICKED, F_CAUGHT) = range(len(SEAT_FEATURES))
NF = len(SEAT_FEATURES)
STAT_FIELDS = ("plays", "cards_played", "doubts", "passes", "pickups", "cards_picked_up", "caught_lying")
ST_PLAYS, ST_CARDS, ST_DOUBTS, ST_PASSES, ST_PICKUPS, ST_PICKED, ST_CAUGHT = range(7)


def observation_size(n: int) -> int:
    """Length of one seat's observation for ``n`` players."""
    return OBSERVATION_LAYOUTS[n].size


def num_plays(m: int) -> int:
    """Number of ``play`` actions for ``max_cards_per_play = m``: C(13+m, m) - 1."""
    return math.comb(13 + m, m) - 1


class PlayTable:
    """Every rank multiset of 1..m cards in action-id order (action ``2 + i`` is row ``i``).

    ``ranks[i]``: sorted tuple of rank indices; ``counts``: int8 array (num_plays, 13) of cards
    per rank; ``sizes``: int8 array of cards per play; ``ok[r][c]``: int bit set over action ids
    of the plays needing at most ``c`` cards of rank ``r`` (c < m); ``play_bits``: bit set of all
    play ids; ``catalogues``: the action catalogue without and with ``misclaim`` (DI-13).
    """

    def __init__(self, m: int):
        self.m = m
        self.ranks = [t for k in range(1, m + 1) for t in itertools.combinations_with_replacement(range(13), k)]
        p = len(self.ranks)
        assert p == num_plays(m)
        self.sizes = np.fromiter((len(t) for t in self.ranks), dtype=np.int8, count=p)
        flat = np.fromiter(itertools.chain.from_iterable(self.ranks), dtype=np.int64)
        rows = np.repeat(np.arange(p, dtype=np.int64), self.sizes.astype(np.int64))
        self.counts = np.bincount(rows * 13 + flat, minlength=p * 13).reshape(p, 13).astype(np.int8)
        self.counts.flags.writeable = False
        self.sizes.flags.writeable = False
        plays = Combination("<rank> ...", self.ranks, RANK, f"a play has at most max_cards_per_play={m} cards (DI-8)")
        self.catalogues = tuple(Catalogue([Segment("doubt"), Segment("pass"), Segment("play <ranks>", ranks=plays)]
                                          + [Segment("misclaim")] * misclaim) for misclaim in (False, True))
        assert [self.catalogues[True].start(name) for name in ("doubt", "pass", "play", "misclaim")] == [
            DOUBT, PASS, FIRST_PLAY, FIRST_PLAY + p]
        self.play_bits = ((1 << p) - 1) << FIRST_PLAY
        self.ok = [[_bits(self.counts[:, r] <= c) for c in range(m)] for r in range(13)]
        self.mask_caches = ({}, {})
        """Play-phase masks by hand (13 rank counts), without and with ``misclaim``; shared by the
        games using this table, bounded by ``MASK_CACHE_BYTES``."""


def _bits(plays_ok: np.ndarray) -> int:
    """Bit set over action ids from a boolean vector over plays."""
    packed = np.packbits(np.concatenate([np.zeros(FIRST_PLAY, bool), plays_ok]), bitorder="little")
    return int.from_bytes(packed.tobytes(), "little")


_TABLES: dict[int, PlayTable] = {}
_GATHERS: dict[int, np.ndarray] = {}
MASK_CACHE_BYTES = 16 << 20
"""Play-phase masks are cached by hand (13 rank counts) per layout, up to about this many bytes."""


def play_table(m: int) -> PlayTable:
    """The cached :class:`PlayTable` for ``max_cards_per_play = m``."""
    table = _TABLES.get(m)
    if table is None:
        table = _TABLES[m] = PlayTable(m)
    return table


def _sc(n: int, f: int, s: int) -> int:
    return NG + f * n + s


def _known0(n: int) -> int:
    return NG + NF * n


def _hand0(n: int) -> int:
    return NG + (NF + 13) * n


def _own0(n: int) -> int:
    return NG + (NF + 26) * n


def gather_index(n: int) -> np.ndarray:
    """(n, observation_size) indices into the absolute vector: row ``seat`` is its observation."""
    g = _GATHERS.get(n)
    if g is None:
        rows = []
        for seat in range(n):
            rel = [seat + i - n if seat + i >= n else seat + i for i in range(n)]
            idx = [_hand0(n) + 13 * seat + r for r in range(13)] + [_own0(n) + 13 * seat + r for r in range(13)]
            idx += list(range(NG))
            for f in range(NF):
                idx += [_sc(n, f, s) for s in rel]
            for s in rel:
                idx += [_known0(n) + 13 * s + r for r in range(13)]
            rows.append(idx)
        g = _GATHERS[n] = np.array(rows, dtype=np.intp)
        g.flags.writeable = False
    return g


@dataclass(frozen=True)
class Options:
    """Options of I Doubt It (rules file, "Options"); a bad value raises ``ValueError`` naming it."""

    num_players: int = 4
    num_decks: int | None = None
    max_cards_per_play: int = 4
    wrong_rank_claims: bool = False
    after_pickup: str = "next"
    auto_doubt_last: bool = True
    play_to_end: bool = False
    reward_mode: str = "winner"
    max_plays: int = 1000

    RULES = {
        "num_players": OptionRule("DI-1", ints=(3, 11)),
        "num_decks": OptionRule("DI-1", words="None (1 deck for 3-5 players, 2 for 6-11), 1 or 2"),
        "max_cards_per_play": OptionRule("DI-8", words="1 .. 4 x num_decks"),
        "wrong_rank_claims": OptionRule("DI-13", boolean=True),
        "after_pickup": OptionRule("DI-16", choices=AFTER_PICKUP),
        "auto_doubt_last": OptionRule("DI-22, DI-23", boolean=True),
        "play_to_end": OptionRule("DI-25, DI-26", boolean=True),
        "reward_mode": OptionRule("Rewards", choices=REWARD_MODES),
        "max_plays": OptionRule("DI-28", ints=(1, None)),
    }
    """Each option's allowed values and rule ids (i_doubt_it.md)."""

    def __post_init__(self):
        check_option_rules(self)
        if self.num_decks is None:
            decks = 1 if self.num_players <= 5 else 2   # DI-1
        else:
            decks = check_int("num_decks (None for the default)", self.num_decks, 1, 2)
        object.__setattr__(self, "num_decks", decks)
        object.__setattr__(self, "max_cards_per_play", check_int(
            f"max_cards_per_play (with {decks} deck(s))", self.max_cards_per_play, 1, 4 * decks))



DEAL_KEYS = ("dealer", "hands", "discard", "rank", "to_play", "stock")


def _cards(count: int) -> str:
    """``1 card``, ``3 cards`` (event texts)."""
    return f"{count} card" if count == 1 else f"{count} cards"


RANK_WORDS = ("ace", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "jack", "queen", "king")
COUNT_WORDS = ("one", "two", "three", "four", "five", "six", "seven", "eight")


def _claim_words(count: int, rank: int) -> str:
    """A claim as said at the table (DI-9): ``"one ace"``, ``"three sixes"``."""
    word = RANK_WORDS[rank] if count == 1 else RANK_WORDS[rank] + ("es" if RANK_WORDS[rank] == "six" else "s")
    return f'"{COUNT_WORDS[count - 1] if count <= len(COUNT_WORDS) else count} {word}"'


BELIEF_TRIES = 64
"""Deals tried by ``determinize(..., truthful_claim=True)`` for one in which the claim can be true."""


def _play_truthfully(cards: list[int], claim: int, played: int) -> list[int]:
    """A pending seat's re-dealt hand and play (``cards``, shuffled; the play is the last
    ``played``) reordered so that the play is ``played`` cards of the claimed rank, chosen at random
    among those it holds, when it holds that many; otherwise unchanged."""
    claimed = [i for i, c in enumerate(cards) if _RANK_OF[c] == claim]
    if len(claimed) < played:
        return cards
    chosen = set(claimed[:played])
    return [c for i, c in enumerate(cards) if i not in chosen] + [cards[i] for i in sorted(chosen)]


class Redeal:
    """What :meth:`IDoubtItGame.determinize` deals again in one position for one seat, which
    depends only on the two (DI-5, DI-20, DI-21): the cards that seat cannot place (``pool``,
    sorted by rank, so that a deal depends only on what the seat has seen and not on where the
    cards are) and the slots a shuffled pool fills, in order: ``slots`` (``NUM_CARDS * seat``
    for each of the first ``dealt`` cards, the pending seat counted as seat ``n``), the pending
    seat's share ``pending_from:pending_to`` (dealt with its own play, see ``determinize``), then
    the pile positions ``loose``. ``kept``: the card counts that stay where they are (the seat's
    own hand and the cards other seats are known to hold), ``NUM_CARDS`` per seat; ``changed``:
    the seats whose cards in the pile are dealt again."""

    __slots__ = ("seat", "pool", "dealt", "slots", "kept", "pending", "pending_keep", "pending_from",
                 "pending_to", "played", "loose", "changed")

    def __init__(self, game: "IDoubtItGame", seat: int):
        n = game.num_players
        pile, owner = game.pile, game.pile_owner
        pending = game.pending if game.phase == DOUBT_PHASE and game.pending != seat else -1
        played = len(pile) - game.pending_k if game.phase == DOUBT_PHASE else len(pile)
        second_copies = game.options.num_decks > 1
        rank_of = _RANK_OF
        pool = []
        self.pending_keep = []   # the pending seat's cards known to stay among its hand and play
        self.pending_from = self.pending_to = 0
        kept = [0] * (n * NUM_CARDS)
        kept[seat * NUM_CARDS:(seat + 1) * NUM_CARDS] = game.hand_cards[seat]
        takers = []   # the seats in the order they take their cards from the shuffled pool
        for s in range(n):
            if s == seat:
                continue
            counts = game.hand_cards[s]
            region = list(itertools.compress(_CARD_IDS, counts))
            if second_copies:
                region += [c for c in region if counts[c] > 1]
            if s == pending:
                region += pile[played:]
            need = (game.pending_known if s == pending else game.known[s])[:]
            taken = len(takers)
            for c in region:
                r = rank_of[c]
                if need[r]:
                    need[r] -= 1
                    if s == pending:
                        self.pending_keep.append(c)
                    else:
                        kept[NUM_CARDS * s + c] += 1
                else:
                    pool.append(c)
                    takers.append(n if s == pending else s)
            if s == pending:
                self.pending_from, self.pending_to = taken, len(takers)
        self.loose = [i for i, s in enumerate(owner[:played]) if s != seat]
        pool += [pile[i] for i in self.loose]
        pool.sort(key=rank_of.__getitem__)
        self.seat = seat
        self.pool = np.array(pool, dtype=np.intp)
        self.dealt = len(takers)
        self.slots = NUM_CARDS * np.array(takers, dtype=np.intp)
        self.kept = np.array(kept, dtype=np.intp)
        self.pending = pending
        self.played = played
        self.changed = sorted({s for s in owner if s >= 0 and s != seat})


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
        self._options_dict = asdict(options)
        n = self.num_players = options.num_players
        self._table = play_table(options.max_cards_per_play)
        self._m = options.max_cards_per_play
        self.actions = self._table.catalogues[options.wrong_rank_claims]
        """The action catalogue (DI rules file, "Action ids"): texts, parser, segment starts."""
        self.misclaim_action = self.actions.start("misclaim") if options.wrong_rank_claims else -1
        self.num_actions = self.actions.size
        self.observation_size = observation_size(n)
        self._nbytes = (self.num_actions + 7) // 8
        self._misclaim_bit = (1 << self.misclaim_action) if options.wrong_rank_claims else 0
        self._doubt_mask = np.zeros(self.num_actions, dtype=np.int8)
        self._doubt_mask[DOUBT] = self._doubt_mask[PASS] = 1
        self._doubt_mask.flags.writeable = False
        self._gather = gather_index(n)
        self._mask_cache = self._table.mask_caches[options.wrong_rank_claims]
        self._mask_cache_max = max(16, MASK_CACHE_BYTES // self.num_actions)
        self._order = [tuple((s + i) % n for i in range(1, n)) for s in range(n)]
        self._mask: np.ndarray | None = None
        self._max_plays = options.max_plays
        self._taker_next = options.after_pickup == "taker"

    # ---------------------------------------------------------------------------------------
    # set-up
    @classmethod
    def new(cls, options: Options, rng: np.random.Generator, deal: dict | None = None) -> "IDoubtItGame":
        """Deal a new game (DI-1..DI-4), or set up the scenario ``deal`` (rules file keys)."""
        g = cls(options)
        g.rng = rng
        n = options.num_players
        decks = options.num_decks
        deal = check_deal_keys({} if deal is None else deal, DEAL_KEYS)
        if "stock" in deal:
            check_list("deal 'stock' (empty or absent: I Doubt It deals every card, DI-2)", deal["stock"], 0)

        def seat_of(key):
            return check_int(f"deal '{key}'", deal[key], 0, n - 1, what="a seat")

        if "dealer" in deal:
            dealer = seat_of("dealer")
        elif "to_play" in deal:
            dealer = (seat_of("to_play") - 1) % n
        else:
            dealer = int(rng.integers(n))
        to_play = seat_of("to_play") if "to_play" in deal else (dealer + 1) % n
        rank_text = deal.get("rank", "A")
        if not isinstance(rank_text, str):
            raise ValueError(f"deal 'rank' must be a rank text such as 'A', '7' or '10', got {rank_text!r}")
        try:
            rank = parse_rank(rank_text) - 1
        except ValueError as err:
            raise ValueError(f"deal 'rank': {err}") from None
        tally = PackTally(make_pack(decks))   # DI-1
        discard = tally.take("'discard'", deal.get("discard", []), allow_string=True)
        if "hands" in deal:
            hands_texts = check_list("deal 'hands' (one hand per seat)", deal["hands"], n)
            hands = [tally.take(f"'hands' of player_{s}", h, allow_string=True) for s, h in enumerate(hands_texts)]
            for s, h in enumerate(hands):
                if not h:
                    raise ValueError(f"deal 'hands': the hand of player_{s} is empty (DI-27)")
        else:
            if discard:
                raise ValueError("deal 'discard' needs 'hands': a full deal gives every card to the players (DI-2)")
            pack = make_pack(decks)
            perm = rng.permutation(len(pack))
            hands = [[] for _ in range(n)]
            for i, j in enumerate(perm):   # DI-3: one at a time, from the dealer's left
                hands[(dealer + 1 + i) % n].append(pack[int(j)])
        g._setup(dealer, hands, discard, rank, to_play)
        return g

    def _setup(self, dealer: int, hands: list[list[int]], discard: list[int], rank: int, to_play: int) -> None:
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
        self._rebuild()

    def _rebuild(self) -> None:
        """Derived state from the Python state: own-pile counts and the absolute vector."""
        n = self.num_players
        self.own_pile = [[0] * 13 for _ in range(n)]
        self.known_total = [sum(k) for k in self.known]
        for c, s in zip(self.pile, self.pile_owner):
            if s >= 0:
                self.own_pile[s][c % 13] += 1
        v = self._vec = np.zeros(NG + (NF + 39) * n, dtype=np.float32)
        v[G_RANK + self.rank] = 1
        v[G_PILE] = len(self.pile)
        v[G_PHASE + self.phase] = 1
        v[G_PLAYS] = self.plays_made
        v[G_LEFT] = self._max_plays - self.plays_made
        if self.phase == DOUBT_PHASE:
            v[G_CLAIM_N] = self.pending_k
            v[G_CLAIM_R + self.claim_rank] = 1
            v[_sc(n, F_PENDING, self.pending)] = 1
            for s in self.window[:self.window_pos]:
                v[_sc(n, F_PASSED, s)] = 1
        if self.last_reveal is not None:
            p, cards, truthful, taker = self.last_reveal
            for c in cards:
                v[G_REV + c % 13] += 1
            v[G_REV_TRUE if truthful else G_REV_FALSE] = 1
            v[_sc(n, F_REV_PLAYER, p)] = 1
            v[_sc(n, F_REV_TAKER, taker)] = 1
        if not self.done:
            v[_sc(n, F_TO_ACT, self.current_player)] = 1
        for s in range(n):
            v[_sc(n, F_SIZE, s)] = self.hand_size[s]
            v[_sc(n, F_OUT, s)] = self.out[s]
            v[_sc(n, F_PLACE, s)] = self.places[s]
            v[_sc(n, F_UNKNOWN, s)] = self.hand_size[s] - self.known_total[s]
            for i in range(len(STAT_FIELDS)):
                v[_sc(n, F_PLAYS + i, s)] = self.stats[s][i]
            v[_known0(n) + 13 * s:_known0(n) + 13 * s + 13] = self.known[s]
            v[_hand0(n) + 13 * s:_hand0(n) + 13 * s + 13] = self.hand_ranks[s]
            v[_own0(n) + 13 * s:_own0(n) + 13 * s + 13] = self.own_pile[s]
        self._mv = memoryview(v)   # fast element writes for step (float32 buffer of v)
        self._mask = None
        self._redeal: Redeal | None = None

    # ---------------------------------------------------------------------------------------
    # legality
    def legal_mask(self) -> np.ndarray:
        """Read-only int8 mask for ``current_player`` (cached). Play phase: every multiset of
        held ranks of 1..max_cards_per_play cards (DI-6..DI-8), ``misclaim`` when enabled
        (DI-13); doubt phase: ``doubt`` and ``pass`` (DI-19). Play masks are an AND over the 13
        ranks of precomputed bit sets, kept per hand in a bounded module-level cache."""
        mask = self._mask
        if mask is None:
            if self.done:
                mask = np.zeros(self.num_actions, dtype=np.int8)
            elif self.phase == DOUBT_PHASE:
                mask = self._doubt_mask
            else:
                hand = self.hand_ranks[self.current_player]
                key = tuple(hand)
                mask = self._mask_cache.get(key)
                if mask is None:
                    bits = self._table.play_bits
                    m = self._m
                    ok = self._table.ok
                    for r, c in enumerate(hand):
                        if c < m:
                            bits &= ok[r][c]
                    bits |= self._misclaim_bit
                    mask = np.unpackbits(np.frombuffer(bits.to_bytes(self._nbytes, "little"), dtype=np.uint8),
                                         count=self.num_actions, bitorder="little").view(np.int8)
                    mask.flags.writeable = False
                    if len(self._mask_cache) >= self._mask_cache_max:
                        self._mask_cache.clear()
                    self._mask_cache[key] = mask
            self._mask = mask
        return mask

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
        """Apply a legal action (``ValueError`` for an illegal one, state unchanged)."""
        if not 0 <= action < self.num_actions or not self.legal_mask()[action]:
            text = self.action_to_text(action) if 0 <= action < self.num_actions else str(action)
            raise ValueError(f"illegal action {action} '{text}': {self.illegal_reason(action)}")
        self._mask = None
        self._redeal = None
        if self.phase == PLAY_PHASE:
            if action == self.misclaim_action:
                return self._misclaim()
            return self._play(action)
        s = self.current_player
        n = self.num_players
        v = self._mv
        if action == DOUBT:
            st = self.stats[s]
            st[ST_DOUBTS] += 1
            v[NG + F_DOUBTS * n + s] = st[ST_DOUBTS]
            self.events.append(("doubt", s))
            return self._resolve(s)
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
        self._mask = self._doubt_mask
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
        self._mask = None
        return np.array(rewards, dtype=np.float32)

    # ---------------------------------------------------------------------------------------
    # observation, view, text
    def observation(self, seat: int) -> np.ndarray:
        """float32 vector of ``observation_size`` values, seat-relative (see the wrapper)."""
        return self._vec[self._gather[seat]]

    def event_text(self, e) -> str:
        kind = e[0]
        if kind == "play":
            return f"player_{e[1]} plays {_cards(e[2])} saying {_claim_words(e[2], e[3])}"
        if kind == "pass":
            return f"player_{e[1]} passes"
        if kind == "doubt":
            return f"player_{e[1]} doubts"
        if kind == "auto":
            return f"final play: player_{e[1]} doubts automatically"
        if kind == "reveal":
            return f"player_{e[1]} shows {' '.join(CARD_TEXT[c] for c in e[2])}: {'true' if e[3] else 'a lie'}"
        if kind == "take":
            return f"player_{e[1]} takes the pile ({_cards(e[2])})"
        if kind == "misclaim":
            return f"player_{e[1]} misclaims and takes the pile back ({_cards(e[2])})"
        if kind == "out":
            return f"player_{e[1]} goes out, place {e[2]}"
        return "game over (cap)" if e[1] else "game over"

    def view(self, seat: int) -> dict:
        """Structured view of what ``seat`` may know (base.py keys plus ``pile_size``, ``rank``,
        ``claim``, ``window``, ``out``, ``places``, ``known``, ``own_pile``, ``last_reveal``,
        ``stats``, ``plays_made``, ``max_plays``)."""
        n = self.num_players
        hand = [c for c in range(NUM_CARDS) for _ in range(self.hand_cards[seat][c])]  # id order: by suit, then rank
        to_play = -1 if self.done else self.current_player
        legal = []
        if seat == to_play:
            legal = [self.action_to_text(int(a)) for a in np.flatnonzero(self.legal_mask())]
        claim = None
        window = None
        if self.phase == DOUBT_PHASE:
            claim = {"seat": self.pending, "count": self.pending_k, "rank": RANKS[self.claim_rank]}
            window = {"asked": list(self.window), "passed": list(self.window[:self.window_pos])}
        reveal = None
        if self.last_reveal is not None:
            p, cards, truthful, taker = self.last_reveal
            reveal = {"seat": p, "cards": [CARD_TEXT[c] for c in cards], "true": bool(truthful), "taker": taker}
        return {
            "game": GAME_NAME, "seat": seat, "num_players": n, "to_play": to_play,
            "phase": PHASES[self.phase], "done": self.done,
            "hand": [CARD_TEXT[c] for c in hand], "hand_sizes": list(self.hand_size),
            "scores": list(self.final_rewards) if self.final_rewards is not None else [0.0] * n,
            "legal_actions": legal, "melds": [], "discard": [], "stock_size": 0,
            "events": [self.event_text(e) for e in self.events],
            "pile_size": len(self.pile), "rank": RANKS[self.rank], "claim": claim, "window": window,
            "out": list(self.out), "places": list(self.places),
            "known": [{RANKS[r]: x for r, x in enumerate(kn) if x} for kn in self.known],
            "own_pile": [CARD_TEXT[c] for c, o in zip(self.pile, self.pile_owner) if o == seat],
            "last_reveal": reveal,
            "stats": [dict(zip(STAT_FIELDS, st)) for st in self.stats],
            "plays_made": self.plays_made, "max_plays": self.options.max_plays,
        }

    def action_to_text(self, action: int) -> str:
        """Canonical text: ``doubt``, ``pass``, ``play 7 7 K``, ``misclaim``; ``ValueError`` for
        anything but an id ``0..num_actions-1``."""
        return self.actions.action_to_text(action)

    def text_to_action(self, text: str) -> int:
        """Parse an action text (ranks in any order, ``10`` for T); ``ValueError`` naming a bad text."""
        return self.actions.text_to_action(text)

    # ---------------------------------------------------------------------------------------
    # copies
    def to_dict(self) -> dict:
        """JSON-serialisable exact state."""
        return {
            "options": dict(self._options_dict),
            "rng": self.rng.bit_generator.state,
            "dealer": self.dealer, "rank": self.rank, "phase": self.phase,
            "current_player": self.current_player, "done": self.done, "truncated": self.truncated,
            "hands": [[c for c, x in enumerate(hc) if x for _ in range(x)] for hc in self.hand_cards],
            "pile": list(self.pile), "pile_owner": list(self.pile_owner),
            "pending": [self.pending, self.pending_k, self.claim_rank],
            "pending_known": None if self.pending_known is None else list(self.pending_known),
            "window": list(self.window), "window_pos": self.window_pos,
            "out": list(self.out), "places": list(self.places), "out_order": list(self.out_order),
            "known": [list(k) for k in self.known], "stats": [list(s) for s in self.stats],
            "last_reveal": None if self.last_reveal is None else [self.last_reveal[0], list(self.last_reveal[1]),
                                                                  bool(self.last_reveal[2]), self.last_reveal[3]],
            "plays_made": self.plays_made,
            "events": [[x if not isinstance(x, tuple) else list(x) for x in e] for e in self.events],
            "final_rewards": None if self.final_rewards is None else list(self.final_rewards),
        }

    @classmethod
    def from_dict(cls, d: dict) -> "IDoubtItGame":
        g = cls(Options(**d["options"]))
        state = d["rng"]
        g.rng = np.random.Generator(getattr(np.random, state["bit_generator"])())
        g.rng.bit_generator.state = state
        g._setup(d["dealer"], d["hands"], d["pile"], d["rank"], d["current_player"])
        g.phase = d["phase"]
        g.done = d["done"]
        g.truncated = d["truncated"]
        g.pile_owner = list(d["pile_owner"])
        g.pending, g.pending_k, g.claim_rank = d["pending"]
        g.pending_known = None if d["pending_known"] is None else list(d["pending_known"])
        g.window = list(d["window"])
        g.window_pos = d["window_pos"]
        g.out = list(d["out"])
        g.places = list(d["places"])
        g.out_order = list(d["out_order"])
        g.known = [list(k) for k in d["known"]]
        g.stats = [list(s) for s in d["stats"]]
        lr = d["last_reveal"]
        g.last_reveal = None if lr is None else [lr[0], list(lr[1]), bool(lr[2]), lr[3]]
        g.plays_made = d["plays_made"]
        g.events = deque((tuple(tuple(x) if isinstance(x, list) else x for x in e) for e in d["events"]),
                         maxlen=MAX_EVENTS)
        g.final_rewards = None if d["final_rewards"] is None else list(d["final_rewards"])
        g._rebuild()
        return g

    def clone(self) -> "IDoubtItGame":
        """An independent copy in the same state, copied directly (tables, masks and the
        replaced-not-changed records ``last_reveal`` and ``final_rewards`` are shared)."""
        g = self._copy()
        g.rng = copy_rng(self.rng)
        g.hand_cards = [row[:] for row in self.hand_cards]
        g.hand_ranks = [row[:] for row in self.hand_ranks]
        g.own_pile = [row[:] for row in self.own_pile]
        return g

    def _copy(self) -> "IDoubtItGame":
        """A copy for :meth:`clone` and :meth:`determinize`, which set its generator and its
        per-seat hands and own-pile counts (shared with this game until then)."""
        g = object.__new__(IDoubtItGame)
        g.__dict__.update(self.__dict__)
        g.known = [row[:] for row in self.known]
        g.stats = [row[:] for row in self.stats]
        g.hand_size = self.hand_size[:]
        g.pile = self.pile[:]
        g.pile_owner = self.pile_owner[:]
        g.window = self.window[:]
        g.out = self.out[:]
        g.places = self.places[:]
        g.out_order = self.out_order[:]
        g.known_total = self.known_total[:]
        if self.pending_known is not None:
            g.pending_known = self.pending_known[:]
        g.events = deque(self.events, maxlen=MAX_EVENTS)
        g._vec = self._vec.copy()
        g._mv = memoryview(g._vec)
        return g

    def determinize(self, seat: int, rng: np.random.Generator, truthful_claim: bool = False) -> "IDoubtItGame":
        """An independent copy in which everything ``seat`` cannot see is dealt again uniformly
        among the deals consistent with what it has seen: the other hands and the face-down pile
        cards it did not play itself (DI-21) are shuffled over the same slots, keeping every hand
        and pile size, each seat's publicly known cards (``known``: cards revealed by a doubt and
        taken, DI-20) and, during a doubt window, the cards the pending player was known to hold
        before its play, which lie anywhere among its hand and the cards just played (so the
        claim's truth is re-dealt too). Not tracked by the engine, and so not kept: which of
        ``seat``'s own pile cards went to the seat that took that pile. The copy's generator is
        drawn from ``rng``. What is dealt again and where (:class:`Redeal`) is worked out once
        per position and seat and kept until the next step, for a search that determinizes one
        position many times.

        ``truthful_claim=True`` deals from a belief instead of uniformly: that the player whose
        claim is pending told the truth when it could (the rule-based agents do). The pool is
        shuffled again, up to ``BELIEF_TRIES`` times, until that player's re-dealt hand and play
        hold enough cards of the claimed rank, and its play is then made of them; when no try
        does (the seat may know that too few copies are left), the last deal stands. The seat's
        own observation is the same either way. ``agents/pimc.py`` uses it with
        ``claims=truthful`` (docs/journal/search.md)."""
        redeal = self._redeal
        if redeal is None or redeal.seat != seat:
            redeal = self._redeal = Redeal(self, seat)
        g = self._copy()
        g._redeal = None
        g.rng = fresh_rng(rng)
        n = self.num_players
        rank_of = _RANK_OF
        shuffled = redeal.pool.copy()
        rng.shuffle(shuffled)
        pending = redeal.pending
        if truthful_claim and pending >= 0:
            kept = sum(rank_of[c] == self.claim_rank for c in redeal.pending_keep)
            missing = len(self.pile) - redeal.played - kept   # claimed cards its re-dealt share must hold
            for _ in range(BELIEF_TRIES - 1):
                share = shuffled[redeal.pending_from:redeal.pending_to]
                if np.count_nonzero(share % 13 == self.claim_rank) >= missing:
                    break
                rng.shuffle(shuffled)
        counts = np.bincount(redeal.slots + shuffled[:redeal.dealt], minlength=(n + 1) * NUM_CARDS)
        counts = counts[:n * NUM_CARDS] + redeal.kept
        ranks = counts.reshape(n, NUM_CARDS // 13, 13).sum(axis=1)   # card id = 13 * suit + rank
        hand_cards = g.hand_cards = counts.reshape(n, NUM_CARDS).tolist()
        own_pile = g.own_pile = [row[:] for row in self.own_pile]
        new_pile = g.pile
        if pending >= 0:   # its hand and its play, shuffled together (sorted by rank, as the pool)
            cards = redeal.pending_keep + shuffled[redeal.pending_from:redeal.pending_to].tolist()
            cards.sort(key=rank_of.__getitem__)
            rng.shuffle(cards)
            size = self.hand_size[pending]
            if truthful_claim:
                cards = _play_truthfully(cards, self.claim_rank, len(cards) - size)
            new_pile[redeal.played:] = cards[size:]
            hand = [0] * NUM_CARDS
            hand_ranks = [0] * 13
            for c in cards[:size]:
                hand[c] += 1
                hand_ranks[rank_of[c]] += 1
            hand_cards[pending] = hand
            ranks[pending] = hand_ranks
        for i, c in zip(redeal.loose, shuffled[redeal.dealt:].tolist()):
            new_pile[i] = c
        v = g._vec
        if redeal.changed:
            own0 = _own0(n)
            for s in redeal.changed:
                own_pile[s] = [0] * 13
            for c, s in zip(new_pile, self.pile_owner):
                if s >= 0 and s != seat:
                    own_pile[s][rank_of[c]] += 1
            for s in redeal.changed:
                v[own0 + 13 * s:own0 + 13 * s + 13] = own_pile[s]
        g.hand_ranks = ranks.tolist()
        hand0 = _hand0(n)
        v[hand0:hand0 + 13 * n] = ranks.ravel()
        g._mask = None
        return g

    def __getstate__(self) -> dict:
        return self.to_dict()

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(IDoubtItGame.from_dict(state).__dict__)
