"""The structured per-seat view of a Contract Rummy match (CR-6), the event texts it carries and
the words ``rummy_env.render`` shows for the game: the deal, its contract, who is down and this
turn's duties."""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from ... import melds as ml
from ...cards import CARD_TEXT
from ...words import NUMBER_WORDS, seat_name
from .options import PHASES

TITLE = "Contract Rummy"
"""The game's name as people write it."""


def view(g, seat: int) -> dict:
    """``seat``'s structured view of the match (drawn by ``rummy_env.render``): what it may know (CR-6)."""
    n = g.num_players
    hand = g.hands[seat]
    legal = []
    if seat == g.current_player and not g.done:
        texts = g.actions.texts
        legal = [texts[a] for a in np.flatnonzero(g.legal_mask())]
    events = []
    for e in g.events[-20:]:
        if isinstance(e, str):
            events.append(e)
        else:
            seat_of_move, a, taken = e
            events.append(_move_event_text(seat_of_move, g.actions.texts[a], tuple(taken or ())))
    return {
        "game": "contract_rummy_v0",
        "seat": seat,
        "num_players": n,
        "to_play": -1 if g.done else g.current_player,
        "phase": "over" if g.done else PHASES[g.phase],
        "done": g.done,
        "hand": [CARD_TEXT[c] for c in range(53) for _ in range(hand[c])],   # id order = display order
        "hand_sizes": list(g.hsize),
        "scores": list(g.scores),
        "legal_actions": legal,
        "melds": [{"index": k, "owner": m[2],
                   "cards": list(_meld_texts(tuple(m[0]), m[1]))}
                  for k, m in enumerate(g.melds)],
        "discard": [CARD_TEXT[c] for c in g.pile],
        "stock_size": len(g.stock),
        "events": events,
        "deal_index": g.deal_idx,
        "num_deals": len(g.opts.deals),
        "contract": g.contract,
        "contract_needs": {"sets": g.need_sets, "runs": g.need_runs},
        "dealer": g.dealer,
        "down": list(g.down),
        "turns": g.turns,
        "must_use": CARD_TEXT[g.must] if g.must >= 0 else None,
        "banned": CARD_TEXT[g.banned] if g.banned >= 0 else None,
        "freed_joker": g.freed,
        "went_down_this_turn": g.went_down,
        "contract_laid_this_turn": list(g.laid),
        "picked_up": [[CARD_TEXT[c] for c in range(53) for _ in range(k[c])] for k in g.known],
        "last_deal": _last_deal_view(g),
    }


def _last_deal_view(g) -> dict | None:
    """The previous deal's end (CR-29, CR-30, CR-33): ``deal`` (1-based), ``contract``, ``out``
    (the seat that went out, -1 for a dead deal), ``penalties`` and the ``scores`` after it."""
    d = g.last_deal
    if d is None:
        return None
    return {**d, "penalties": list(d["penalties"]), "scores": list(d["scores"])}


@lru_cache(maxsize=1 << 16)
def _meld_texts(pieces: tuple[int, ...], meld: ml.Meld) -> tuple[str, ...]:
    """A table meld's piece texts in canonical order (memoised: every view shows every meld)."""
    return tuple(ml.piece_text(p) for p in ml.canonical_order(pieces, meld))


@lru_cache(maxsize=1 << 16)
def _move_event_text(seat: int, action_text: str, taken: tuple[int, ...]) -> str:
    """A move as a public event in words: ``player_1 takes 9C TD TS from the pile`` (memoised:
    every view shows the last 20)."""
    words = action_text.split()
    who = f"player_{seat}"
    if words[0] == "draw":
        return f"{who} draws from the stock"
    if words[0] == "take":
        return f"{who} takes {' '.join(CARD_TEXT[c] for c in taken)} from the pile"
    verb = {"discard": "discards", "meld": "melds", "layoff": "lays off", "swap": "swaps"}[words[0]]
    if words[0] == "swap":
        return f"{who} swaps {words[1]} for the joker in {words[2]}"
    return f"{who} {verb} {' '.join(words[1:])}".replace(" @", " on @")


def contract_words(needs: dict) -> str:
    """A contract (CR-7) in words: ``two sets of 3``, ``one set of 3 and two runs``."""
    parts = []
    for key, one, many in (("sets", "set of 3", "sets of 3"), ("runs", "run", "runs")):
        k = int(needs.get(key, 0))
        if k:
            parts.append(f"{NUMBER_WORDS.get(k, k)} {one if k == 1 else many}")
    return " and ".join(parts)


def status_lines(view: dict) -> list[str]:
    """The deal, its contract (CR-7) and the dealer; who is down; this turn's duties: the
    must-use card to put on the table (CR-12) and the banned text not to discard (CR-26)."""
    seat = view.get("seat", 0)
    me = view.get("to_play") == seat
    lines = [f"deal {view.get('deal_index', 0) + 1} of {view.get('num_deals', 1)}, "
             f"contract {view.get('contract')}: {contract_words(view.get('contract_needs', {}))}; "
             f"dealer {seat_name(view.get('dealer', 0), seat)}; lowest total wins"]
    down = [seat_name(i, seat) for i, d in enumerate(view.get("down", [])) if d]
    if down:
        lines.append("down (contract laid): " + ", ".join(down))
    if me and view.get("must_use"):
        lines.append(f"you must put {view['must_use']} on the table this turn")
    if me and view.get("banned"):
        lines.append(f"you may not discard {view['banned']} this turn")
    return lines
