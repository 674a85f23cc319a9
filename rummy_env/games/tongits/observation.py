"""Tongits' observation: :data:`OBSERVATION_LAYOUT` (the named parts, documented in
``tongits_v0``), the offsets into it, and the arrays the engine keeps it in: per seat the
private part, one public part, and the per-seat values by absolute seat (gathered seat-relative
by ``PERM``)."""
from __future__ import annotations

import numpy as np

from ...cards import cards_of
from ...layout import ObservationLayout
from .actions import MAX_MELDS
from .moves import fit
from .options import NUM_PLAYERS, Options

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


def observation_layout(options: Options) -> ObservationLayout:
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


def rebuild(game, hand_cards: list | None = None) -> None:
    """Recompute the derived state (arrays, fits, counters) from the canonical state.
    ``hand_cards`` (the three hands as card lists) saves decoding the masks after a deal."""
    priv = game.__dict__.get("priv")
    if priv is None:
        game.priv = priv = np.zeros((NUM_PLAYERS, O_PRIVATE_END), dtype=np.float32)
        game.hand_arr = priv[:, O_HAND:O_TAKEN]
        game.ext = priv[:, O_TAKEN:O_MELD_INFO]
        game.meld_info = priv[:, O_MELD_INFO:O_PRIVATE_END]
        game.pub = np.zeros(O_SEATS - O_PILE, dtype=np.float32)
        game.sa = np.zeros(OBS_SIZE - O_SEATS, dtype=np.float32)
    else:
        priv.fill(0.0)
        game.pub.fill(0.0)
        game.sa.fill(0.0)
    if hand_cards is None:
        hand_cards = [cards_of(h) for h in game.hands]
    ha = game.hand_arr
    ha[0, hand_cards[0]] = 1.0
    ha[1, hand_cards[1]] = 1.0
    ha[2, hand_cards[2]] = 1.0
    sizes = game.sizes = [len(hand_cards[0]), len(hand_cards[1]), len(hand_cards[2])]
    if game.discard:
        game.pub[game.discard] = 1.0
        game.pub[52 + game.discard[-1]] = 1.0
    game.fits = []
    game.faceup = [0, 0, 0]
    game.secrets = [0, 0, 0]
    for k, m in enumerate(game.melds):
        index_meld(game, k, m)
    sa = game.sa
    chips, blocked, resp = game.chips, game.blocked, game.responses
    sa[S_SIZES:S_SIZES + 3] = sizes
    sa[S_CHIPS:S_CHIPS + 3] = chips
    if blocked[0] or blocked[1] or blocked[2]:
        sa[S_BLOCKED:S_BLOCKED + 3] = blocked
    if game.caller >= 0:
        sa[S_CALLER + game.caller] = 1.0
        sa[S_CHALL:S_CHALL + 3] = [r == 1 for r in resp]
        sa[S_FOLD:S_FOLD + 3] = [r == 2 for r in resp]
    sa[S_DEALER + game.dealer] = 1.0
    sa[S_TURN + game.turn] = 1.0
    if not game.done:
        sa[S_PHASE + game.phase] = 1.0
    sa[S_STOCK:S_TURNS + 1] = (len(game.stock), game.hand_index, game.options.hands_per_match, game.turns_done)
    if game.taken >= 0:
        game.ext[game.turn, game.taken] = 1.0
    for q in range(NUM_PLAYERS):
        if game.known[q]:
            for c in cards_of(game.known[q]):
                for o in range(NUM_PLAYERS):
                    if o != q:
                        game.ext[o, 52 * ((q - o) % 3) + c] = 1.0
    game._mask = None


def index_meld(game, k: int, m: list) -> None:
    """Enter table meld ``m`` as meld number ``k`` in the arrays and counters (TG-13, TG-15)."""
    owner, mask, secret = m[0], m[1], m[2]
    base = 5 * k
    for q in range(NUM_PLAYERS):
        game.meld_info[q, base] = 1.0
        game.meld_info[q, base + 1 + (owner - q) % 3] = 1.0
        game.meld_info[q, base + 4] = 1.0 if secret else 0.0
    if secret:
        game.secrets[owner] += 1
        game.sa[S_SECRETS + owner] = game.secrets[owner]
        game.fits.append(0)
    else:
        game.faceup[owner] += 1
        game.sa[S_FACEUP + owner] = game.faceup[owner]
        row = 104 + 52 * k
        for c in cards_of(mask):
            game.pub[row + c] = 1.0
        game.fits.append(fit(m))


def observation(game, seat: int) -> np.ndarray:
    """What ``seat`` may know, laid out as in the ``tongits_v0`` docstring."""
    o = np.empty(OBS_SIZE, dtype=np.float32)
    o[:O_PRIVATE_END] = game.priv[seat]
    o[O_PILE:O_SEATS] = game.pub
    o[O_SEATS:] = game.sa[PERM[seat]]
    if game.secrets[seat]:
        for k, m in enumerate(game.melds):
            if m[2] and m[0] == seat:
                for c in cards_of(m[1]):
                    o[O_MELD_CARDS + 52 * k + c] = 1.0
    return o
