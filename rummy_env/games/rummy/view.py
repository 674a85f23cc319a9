"""Rummy's structured per-seat view (RM-32, :meth:`rummy_env.base.Game.view`) and the texts it
carries: events, meld cards and the reason a round ended dead (RM-26)."""
from __future__ import annotations

import functools

import numpy as np

from ...cards import CARD_TEXT, cards_of, cards_text, mask_texts
from ...melds import Meld, canonical_order
from ...words import plural, seat_name
from .actions import ACTION_TEXT
from .options import PHASE_NAMES
from .tables import CATALOGUE

TITLE = "Rummy"
"""The game's name as people write it."""

DEAD_ROUND_REASON = {"max_turns": "the turn limit was reached",
                     "max_turnovers": "the stock ran out after the last allowed turnover"}
"""Words for the cap that ended a dead round (RM-26), keyed by ``last_round["cap"]``."""


def view(game, seat: int) -> dict:
    """What ``seat`` may know (RM-32), per :meth:`rummy_env.base.Game.view`. Built from the
    state directly with memoised texts, so it costs the same early and late in a match."""
    n = game.num_players
    to_play = -1 if game.done else game.current_player
    front = game.front
    melds = []
    for k, mask in enumerate(game.meld_mask):
        owner = game.meld_owner[k]
        shape = game.meld_shape[k]
        cards = meld_card_texts(mask, shape)
        layoffs = {}
        for q in range(n):
            x = front[q] & mask
            if x and q != owner:
                for t in mask_texts(x):
                    layoffs[t] = q
        melds.append({"index": k, "owner": owner, "cards": list(cards), "layoffs": layoffs})
    legal = [ACTION_TEXT[a] for a in game.legal_mask().view(np.bool_).nonzero()[0].tolist()] if seat == to_play else []
    events = list(map(format_event, game.events))
    return {
        "game": "rummy_v0", "seat": seat, "num_players": n, "to_play": to_play,
        "phase": "over" if game.done else PHASE_NAMES[game.phase], "done": game.done,
        "hand": list(mask_texts(game.hands[seat])),
        "hand_sizes": [h.bit_count() for h in game.hands], "scores": list(game.scores),
        "legal_actions": legal, "melds": melds, "discard": [CARD_TEXT[c] for c in game.discard],
        "stock_size": len(game.stock), "events": events,
        "dealer": game.dealer, "taken_card": CARD_TEXT[game.taken] if game.taken >= 0 else None,
        "known_cards": [list(mask_texts(m)) for m in game.known],
        "table_cards": [list(mask_texts(m)) for m in front],
        "turnovers": game.turnovers, "turns": game.turns, "rounds_played": game.rounds_played,
        "rummy_possible": bool(not game.done and game.clean_start),
        "last_round": dict(game.last_round) if game.last_round else None,
        "options": dict(game.options.__dict__),
    }


@functools.lru_cache(maxsize=1 << 16)
def meld_card_texts(mask: int, shape: Meld) -> tuple[str, ...]:
    """Card texts of a meld in canonical order (memoised: melds repeat from view to view)."""
    return tuple(CARD_TEXT[c] for c in canonical_order(cards_of(mask), shape))


@functools.lru_cache(maxsize=1 << 16)
def format_event(e: tuple) -> str:
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


def status_lines(view: dict) -> list[str]:
    """The round, the match's goal (RM-28) and the dealer, or the match's end; this turn's chance
    of rummy (RM-23), the turnovers so far (RM-24) and the card taken that may not be discarded
    (RM-17)."""
    seat = view.get("seat", 0)
    me = view.get("to_play") == seat
    lines = []
    options = view.get("options") or {}
    target = options.get("target_score", 0)
    goal = (f"first to {target} points wins" if target else
            f"{plural(options.get('max_rounds', 1), 'round')}, the highest total wins")
    if view.get("done"):
        lines.append(f"the match is over after {plural(view.get('rounds_played', 0), 'round')}")
    else:
        lines.append(f"round {view.get('rounds_played', 0) + 1} ({goal}), "
                     f"dealer {seat_name(view.get('dealer', 0), seat)}")
    if me and view.get("rummy_possible") and view.get("phase") == "play":
        lines.append("going out this turn would be rummy: double points")
    if view.get("turnovers"):
        lines.append(f"the stock has been turned over {plural(view['turnovers'], 'time')}")
    if me and view.get("taken_card"):
        lines.append(f"you took {view['taken_card']} from the discard pile: you may not discard it this turn")
    return lines
