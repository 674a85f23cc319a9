"""I Doubt It's observation: named parts (documented part by part in ``rummy_env.i_doubt_it_v0``)
and each seat's buffer (per seat, float32, ``74 + 29 n`` values; DI-5, DI-14, DI-20, DI-21, DI-28).

The game keeps one absolute state vector up to date on every step: the public parts (offsets
``G_*``), then the per-seat features as [feature][seat] (feature numbers ``F_*``), then per-seat
13-rank blocks: public known cards, hand, own cards in the pile. A seat's observation is a gather
of it in seat-relative order (index 0 = the observing seat, :func:`gather_index`).
"""
from __future__ import annotations

import numpy as np

from ...layout import ObservationLayout
from .options import DOUBT_PHASE

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
STAT_FIELDS = ("plays", "cards_played", "doubts", "passes", "pickups", "cards_picked_up", "caught_lying")
"""Each seat's counters (``game.stats[seat]``), observed as the features from ``plays_made`` on."""
ST_PLAYS, ST_CARDS, ST_DOUBTS, ST_PASSES, ST_PICKUPS, ST_PICKED, ST_CAUGHT = range(len(STAT_FIELDS))


def _observation_layout(n: int) -> ObservationLayout:
    return ObservationLayout(OWN_PARTS + PUBLIC_PARTS + [(name, n, rng, text) for name, rng, text in SEAT_FEATURES]
                             + [("known", (n, 13), "0..inf", "per seat, per rank: cards publicly known held")])


OBSERVATION_LAYOUTS = {n: _observation_layout(n) for n in range(3, 12)}


def observation_layout(options) -> ObservationLayout:
    """The observation's named parts for ``options.num_players``."""
    return OBSERVATION_LAYOUTS[options.num_players]


_PUBLIC = ObservationLayout(PUBLIC_PARTS)
G_RANK, G_PILE, G_PHASE, G_PLAYS, G_LEFT, G_CLAIM_N, G_CLAIM_R, G_REV, G_REV_TRUE, G_REV_FALSE = (
    part.start for part in _PUBLIC)
NG = _PUBLIC.size
(F_SIZE, F_OUT, F_PLACE, F_TO_ACT, F_PENDING, F_PASSED, F_REV_PLAYER, F_REV_TAKER, F_UNKNOWN,
 F_PLAYS, F_CARDS, F_DOUBTS, F_PASSES, F_PICKUPS, F_PICKED, F_CAUGHT) = range(len(SEAT_FEATURES))
NF = len(SEAT_FEATURES)
assert F_CAUGHT - F_PLAYS == ST_CAUGHT - ST_PLAYS


def observation_size(n: int) -> int:
    """Length of one seat's observation for ``n`` players."""
    return OBSERVATION_LAYOUTS[n].size


def seat_cell(n: int, f: int, s: int) -> int:
    """Offset of feature ``f`` of seat ``s`` in the absolute vector of ``n`` players."""
    return NG + f * n + s


def known_start(n: int) -> int:
    """Offset of the per-seat known-cards blocks (13 ranks each)."""
    return NG + NF * n


def hand_start(n: int) -> int:
    """Offset of the per-seat hand blocks (13 ranks each)."""
    return NG + (NF + 13) * n


def own_start(n: int) -> int:
    """Offset of the per-seat own-pile blocks (13 ranks each)."""
    return NG + (NF + 26) * n


_GATHERS: dict[int, np.ndarray] = {}


def gather_index(n: int) -> np.ndarray:
    """(n, observation_size) indices into the absolute vector: row ``seat`` is its observation."""
    g = _GATHERS.get(n)
    if g is None:
        rows = []
        for seat in range(n):
            rel = [seat + i - n if seat + i >= n else seat + i for i in range(n)]
            idx = [hand_start(n) + 13 * seat + r for r in range(13)] + [own_start(n) + 13 * seat + r for r in range(13)]
            idx += list(range(NG))
            for f in range(NF):
                idx += [seat_cell(n, f, s) for s in rel]
            for s in rel:
                idx += [known_start(n) + 13 * s + r for r in range(13)]
            rows.append(idx)
        g = _GATHERS[n] = np.array(rows, dtype=np.intp)
        g.flags.writeable = False
    return g


def absolute_vector(game) -> np.ndarray:
    """The absolute state vector of ``game`` written afresh from its Python state (the game's
    ``step`` then keeps it up to date)."""
    n = game.num_players
    v = np.zeros(NG + (NF + 39) * n, dtype=np.float32)
    v[G_RANK + game.rank] = 1
    v[G_PILE] = len(game.pile)
    v[G_PHASE + game.phase] = 1
    v[G_PLAYS] = game.plays_made
    v[G_LEFT] = game.options.max_plays - game.plays_made
    if game.phase == DOUBT_PHASE:
        v[G_CLAIM_N] = game.pending_k
        v[G_CLAIM_R + game.claim_rank] = 1
        v[seat_cell(n, F_PENDING, game.pending)] = 1
        for s in game.window[:game.window_pos]:
            v[seat_cell(n, F_PASSED, s)] = 1
    if game.last_reveal is not None:
        p, cards, truthful, taker = game.last_reveal
        for c in cards:
            v[G_REV + c % 13] += 1
        v[G_REV_TRUE if truthful else G_REV_FALSE] = 1
        v[seat_cell(n, F_REV_PLAYER, p)] = 1
        v[seat_cell(n, F_REV_TAKER, taker)] = 1
    if not game.done:
        v[seat_cell(n, F_TO_ACT, game.current_player)] = 1
    for s in range(n):
        v[seat_cell(n, F_SIZE, s)] = game.hand_size[s]
        v[seat_cell(n, F_OUT, s)] = game.out[s]
        v[seat_cell(n, F_PLACE, s)] = game.places[s]
        v[seat_cell(n, F_UNKNOWN, s)] = game.hand_size[s] - game.known_total[s]
        for i in range(len(STAT_FIELDS)):
            v[seat_cell(n, F_PLAYS + i, s)] = game.stats[s][i]
        v[known_start(n) + 13 * s:known_start(n) + 13 * s + 13] = game.known[s]
        v[hand_start(n) + 13 * s:hand_start(n) + 13 * s + 13] = game.hand_ranks[s]
        v[own_start(n) + 13 * s:own_start(n) + 13 * s + 13] = game.own_pile[s]
    return v
