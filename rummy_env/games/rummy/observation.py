"""Rummy's observation: :func:`observation_layout` (the named parts, documented in
``rummy_v0``), the engine's absolute buffer (:class:`BufferLayout`) and each seat's
seat-relative gather of it (RM-32: what a seat may know)."""
from __future__ import annotations

import numpy as np

from ...cards import masks_to_planes
from ...layout import ObservationLayout
from .actions import NUM_MELD_SLOTS
from .options import HAND_SIZE, Options


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


BUFFER_LAYOUTS = {n: BufferLayout(n) for n in HAND_SIZE}


def rebuild_buf(game) -> None:
    """Write the game's absolute observation buffer from its state (used at deals and loads; the
    moves keep it up to date incrementally, which the tests compare against this)."""
    L, n, buf, opts = game.layout, game.num_players, game._buf, game.options
    buf[:] = 0.0
    buf[L.hands:L.hands + 52 * n] = masks_to_planes(game.hands)
    buf[L.front:L.front + 52 * n] = masks_to_planes(game.front)
    buf[L.known:L.known + 52 * n] = masks_to_planes(game.known)
    buf[L.pile:L.pile + 52] = masks_to_planes([game.pile_mask])
    if game.meld_mask:
        buf[L.melds:L.melds + 52 * len(game.meld_mask)] = masks_to_planes(game.meld_mask)
    for k, owner in enumerate(game.meld_owner):
        buf[L.owner + k * n + owner] = 1.0
    for p in range(n):
        buf[L.hand_size + p] = game.hands[p].bit_count() / game.k
        buf[L.scores + p] = game.scores[p] / game._score_scale
    if game.discard:
        buf[L.top + game.discard[-1]] = 1.0
    if game.taken >= 0:
        buf[L.taken + game.taken] = 1.0
    if not game.done:
        buf[L.phase + game.phase] = 1.0
    buf[L.dealer + game.dealer] = 1.0
    buf[L.stock] = len(game.stock) / 52
    buf[L.turnovers] = game.turnovers / max(1, opts.max_turnovers)
    buf[L.turns] = game.turns / opts.max_turns
    buf[L.rounds] = game.rounds_played / opts.max_rounds


def observation(game, seat: int) -> np.ndarray:
    """float32 seat-relative observation (layout in ``rummy_v0``'s docstring)."""
    return game._buf[game.layout.perm[seat]]
