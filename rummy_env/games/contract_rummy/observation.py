"""The observation: its named layout (:func:`observation_layout`) and each seat's buffer, brought
up to date slice by slice."""
from __future__ import annotations

from array import array
from struct import Struct

import numpy as np

from ... import melds as ml
from ...cards import NUM_CARDS, mask_of_counts
from ...layout import ObservationLayout
from .options import Options

TOP_CARDS = 8
"""Pile cards shown in order in the observation (deep takes, CR-11)."""
SCORES_CAP = 50.0
"""The most the observation shows of a penalty total / 100 (5,000 points), so it stays in its box."""


def observation_layout(opts: Options) -> ObservationLayout:
    """The observation's named parts for ``opts`` (documented in ``contract_rummy_v0``)."""
    n = opts.num_players
    return ObservationLayout([
        ("hand", 53, "0..6", "my card counts (52 = jokers)"),
        ("pile_counts", 53, "0..6", "counts of every card in the discard pile (CR-6)"),
        ("pile_top", (TOP_CARDS, 53), "{0,1}", "one-hot of the pile's top cards, top first"),
        ("table_cards", 53, "0..6", "counts of pieces on the table"),
        ("table_jokers", 52, "0..3", "per card: how many swappable jokers stand for it (CR-22)"),
        ("melds", (3 * n, MELD_FEATURES + n), "[0, 6]",
         "per meld slot: features, then the owner (relative seat one-hot)"),
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
        ("scores", n, "[0, 50]", "penalty totals / 100, at most 50 (5,000 points; CR-31)"),
        ("dealer", n, "{0,1}", "dealer one-hot (relative)"),
        ("contract_laid", 2, "0..3", "sets and runs of the contract laid this turn (CR-15)"),
        ("flags", 3, "{0,1}", "freed joker in hand (CR-23), went down this turn (CR-22), my turn"),
        ("turns", 1, "[0, 1]", "turns completed this deal / max_turns_per_deal (CR-33)"),
    ])


MELD_FEATURES = 1 + 2 + 13 + 4 + 14 + 14 + 4 + 1 + 1
"""Per meld slot before the owner one-hot: present, set/run, rank (sets), suit (runs), lo and hi
one-hot (runs, positions 1..14), suits present (sets), jokers, size/14."""


def _move_one_hot(o, seen: list, k: int, i: int) -> None:
    """Move the single 1.0 that ``seen[k]`` remembers to index ``i`` of ``o`` (-1 = none)."""
    if seen[k] >= 0:
        o[seen[k]] = 0.0
    if i >= 0:
        o[i] = 1.0
    seen[k] = i


def init_observation(g, layout: ObservationLayout) -> None:
    """The layout and the offsets of the slices written one by one."""
    g.layout = layout
    g.obs_size = layout.size
    start = {part.name: part.start for part in layout}
    g._zeros = memoryview(np.zeros(g.obs_size, dtype=np.float32))
    """Zeros to clear observation slices with (memoryview slice copies)."""
    g._offsets = tuple(start[k] for k in ("pile_counts", "table_cards", "picked_up", "must_use",
                                             "banned", "deal_index", "contract", "phase", "pile_size",
                                             "down", "contract_laid", "melds"))
    g._table_offsets = (start["table_cards"], start["table_jokers"], start["melds"])
    size = np.dtype(np.float32).itemsize
    g._packers = (Struct(f"={g.num_players}f").pack_into, size * start["hand_sizes"],
                  Struct("=6f").pack_into, size * start["contract_laid"])
    """Writers of the hand sizes and of the contract laid, flags and turns (each one slice, in
    that order in the layout), and their byte offsets."""


def rebuild_buffers(g) -> None:
    """Rebuild the float32 mirrors of hands, pick-ups, pile and table (for observations),
    the presence bitmask of each hand, and every seat's observation buffer."""
    n = g.num_players
    g.present = [mask_of_counts(h) for h in g.hands]
    g.hand_np = np.array(g.hands, dtype=np.float32)
    g.known_np = np.array(g.known, dtype=np.float32)
    g.pile_np = np.zeros(53, dtype=np.float32)
    for c in g.pile:
        g.pile_np[c] += 1
    g.public_obs = np.zeros(g.obs_size, dtype=np.float32)
    g._public_view = memoryview(g.public_obs)
    """Seat-independent slices of the observation (pile and table; the owner slots of the
    melds stay 0 here)."""
    g._hand_views = [memoryview(h) for h in g.hand_np]
    g._known_views = [memoryview(k) for k in g.known_np]
    g._pile_view = memoryview(g.pile_np)
    """memoryviews of the arrays above: item and slice writes through them are cheaper."""
    new_seat_buffers(g)
    g._hand_version = [0] * n
    g._pile_version = g._known_version = g._seldom_version = g._table_version = 0
    g._public_pile_version = -1
    write_table(g)


def write_table(g) -> None:
    """Table part of the observation (in ``public``): piece counts, swappable jokers, one row
    per meld (written through a memoryview into the cleared slots)."""
    table = array("f", bytes(4 * 53))
    swappable = array("f", bytes(4 * 52))
    o_table, o_jokers, o_melds = g._table_offsets
    slot = MELD_FEATURES + g.num_players
    public = g._public_view
    public[o_melds:o_melds + g.M * slot] = g._zeros[:g.M * slot]
    for k, meld in enumerate(g.melds):
        row = o_melds + slot * k
        public[row] = 1.0
        jokers = 0
        for p in meld[0]:
            if p >= NUM_CARDS:
                table[52] += 1
                jokers += 1
            else:
                table[p] += 1
        for x in meld[4]:
            swappable[x] = 1
        shape = meld[1]
        if shape.kind == ml.SET:
            public[row + 1] = 1.0
            public[row + 3 + shape.rank - 1] = 1.0
            for s in range(4):
                if shape.suits >> s & 1:
                    public[row + 48 + s] = 1.0
        else:
            public[row + 2] = 1.0
            public[row + 16 + shape.suit] = 1.0
            public[row + 20 + shape.lo - 1] = 1.0
            public[row + 34 + shape.hi - 1] = 1.0
        public[row + 52] = jokers
        public[row + 53] = shape.size / 14.0
    public[o_table:o_table + 53] = table
    public[o_jokers:o_jokers + 52] = swappable
    g._table_version += 1


def new_seat_buffers(g) -> None:
    """Empty observation buffers of every seat, written whole when first asked for (a copy of
    the game starts without them: search rarely observes its copies)."""
    g._obs = np.zeros((g.num_players, g.obs_size), dtype=np.float32)
    """Each seat's observation, brought up to date slice by slice when it is asked for."""
    g._obs_views = [memoryview(o) for o in g._obs]
    g._seen = [[-1] * 8 for _ in range(g.num_players)]
    """Per seat: the versions (hand, pile, table, pick-ups, seldom) its buffer shows, then the
    indices of its must-use, banned and phase ones (-1: none)."""


def observation(g, seat: int) -> np.ndarray:
    """float32 vector (layout in ``contract_rummy_v0``) of what ``seat`` may know: a copy of its
    buffer, brought up to date where the versions it shows are behind (hand, pile, table,
    pick-ups, seldom-changing slices), the small slices rewritten (through memoryviews: cheaper
    than numpy item writes)."""
    if g._obs is None:
        new_seat_buffers(g)
    (o_pile, o_table, o_picked, o_must, o_banned, o_deal, o_contract, o_phase, o_size, o_down,
     o_laid, o_melds) = g._offsets
    n = g.num_players
    out = g._obs_views[seat]
    seen = g._seen[seat]
    if seen[0] != g._hand_version[seat]:
        seen[0] = g._hand_version[seat]
        out[:53] = g._hand_views[seat]
    if seen[1] != g._pile_version:
        seen[1] = g._pile_version
        public = g._public_view
        pile_end = o_pile + 53 * (TOP_CARDS + 1)
        if g._public_pile_version != g._pile_version:
            g._public_pile_version = g._pile_version
            public[o_pile:o_pile + 53] = g._pile_view
            row_start = o_pile + 53
            public[row_start:pile_end] = g._zeros[:pile_end - row_start]
            for c in g.pile[-1:-TOP_CARDS - 1:-1]:
                public[row_start + c] = 1.0
                row_start += 53
        out[o_pile:pile_end] = public[o_pile:pile_end]
    if seen[2] != g._table_version:
        seen[2] = g._table_version
        out[o_table:o_picked] = g._public_view[o_table:o_picked]
        at = o_melds + MELD_FEATURES - seat
        slot = MELD_FEATURES + n
        for k, meld in enumerate(g.melds):
            out[at + slot * k + (meld[2] if meld[2] >= seat else meld[2] + n)] = 1.0
    if seen[3] != g._known_version:
        seen[3] = g._known_version
        at = o_picked
        for s in range(seat, n):
            out[at:at + 53] = g._known_views[s]
            at += 53
        for s in range(seat):
            out[at:at + 53] = g._known_views[s]
            at += 53
    if seen[4] != g._seldom_version:
        seen[4] = g._seldom_version
        out[o_deal:o_phase] = g._zeros[:o_phase - o_deal]
        out[o_deal + g.deal_idx] = 1.0
        out[o_contract + g.contract - 1] = 1.0
        at = o_down
        for i in range(n):
            s = seat + i if seat + i < n else seat + i - n
            out[at + i] = 1.0 if g.down[s] else 0.0
            score = g.scores[s] / 100.0
            out[at + 2 * n + i] = SCORES_CAP if score > SCORES_CAP else (score if score > 0.0 else 0.0)
            out[at + 3 * n + i] = 1.0 if g.dealer == s else 0.0
    must = o_must + g.must if g.must >= 0 else -1
    if seen[5] != must:
        _move_one_hot(out, seen, 5, must)
    banned = o_banned + g.banned if g.banned >= 0 else -1
    if seen[6] != banned:
        _move_one_hot(out, seen, 6, banned)
    phase = -1 if g.done else o_phase + g.phase
    if seen[7] != phase:
        _move_one_hot(out, seen, 7, phase)
    out[o_size] = len(g.pile)
    out[o_size + 1] = len(g.stock)
    sizes = g.hsize
    pack_sizes, at_sizes, pack_tail, at_tail = g._packers   # the slices packed whole: cheaper
    pack_sizes(out, at_sizes, *sizes[seat:], *sizes[:seat])
    sets_laid = sum(1 for k in g.laid if g.melds[k][1].kind == ml.SET) if g.laid else 0
    pack_tail(out, at_tail, sets_laid, len(g.laid) - sets_laid, g.freed, g.went_down,
              seat == g.current_player and not g.done, g.turns / g.opts.max_turns_per_deal)
    return g._obs[seat].copy()
