"""Tongits' structured per-seat view (:meth:`rummy_env.base.Game.view`; others' secrets hidden,
TG-13, TG-29) and the texts it carries: events, meld cards and the way a hand ended."""
from __future__ import annotations

import functools

import numpy as np

from ...cards import CARD_TEXT, RANK_OF, SUIT_OF, cards_of, mask_texts
from ...words import plural, seat_name
from .actions import ACTION_TEXT
from .options import PHASES, RESPONSE

TITLE = "Tongits"
"""The game's name as people write it."""

HAND_END_TEXT = {
    "tongits": "Tongits, an empty hand",
    "draw": "called a draw and nobody challenged",
    "draw_challenged": "called a draw and had the lowest points in the showdown",
    "challenge": "lowest points in the showdown after challenging the draw",
    "stock": "lowest points when the stock ran out",
    "turn_cap": "lowest points when the turn limit was reached",
}
"""Words for ``last_hand["how"]``, the way a hand ended (TG-17, TG-21, TG-22, TG-25, TG-28)."""


@functools.lru_cache(maxsize=1 << 16)
def event_text(e: tuple) -> str:
    """Text of an event tuple (hand_index, seat, what, arg) (memoised: events repeat from view to view)."""
    _, seat, what, arg = e
    return f"player_{seat} {what}" + (f" {arg}" if arg else "")


@functools.lru_cache(maxsize=1 << 16)
def meld_card_texts(mask: int, kind: int) -> tuple[str, ...]:
    """Card texts of a meld: a set by suit, a run by rank (memoised)."""
    return tuple(CARD_TEXT[c] for c in sorted(cards_of(mask), key=(SUIT_OF if kind == 0 else RANK_OF).__getitem__))


def view(game, seat: int) -> dict:
    """Structured view of what ``seat`` may know (base.py ``Game.view``); others' secrets
    show as ``??`` until the hand ends (TG-13, TG-29). Built from the state directly with
    memoised texts, so its cost does not grow with the match."""
    done = game.done
    to_play = -1 if done else game.current_player
    legal = [ACTION_TEXT[a] for a in game.legal_mask().view(np.bool_).nonzero()[0].tolist()] if seat == to_play else []
    melds = []
    for k, m in enumerate(game.melds):
        hidden = m[2] and m[0] != seat
        melds.append({"index": k, "owner": m[0], "secret": m[2],
                      "cards": ["??"] * 4 if hidden else list(meld_card_texts(m[1], m[3]))})
    events = list(map(event_text, game.events))
    known = game.known
    last_hand = last_hand_view(game.last_hand)
    v = {
        "game": "tongits_v0", "seat": seat, "num_players": 3, "to_play": to_play,
        "phase": "over" if done else PHASES[game.phase], "done": done,
        "hand": list(mask_texts(game.hands[seat])),
        "hand_sizes": list(game.sizes), "scores": list(game.chips), "legal_actions": legal,
        "melds": melds, "discard": [CARD_TEXT[c] for c in game.discard], "stock_size": len(game.stock),
        "events": events,
        "dealer": game.dealer, "turn": game.turn, "hand_index": game.hand_index,
        "hands_per_match": game.options.hands_per_match, "blocked": list(game.blocked),
        "exposed": [f > 0 for f in game.faceup], "secrets": list(game.secrets),
        "caller": game.caller if game.phase == RESPONSE and not done else -1,
        "responses": [("", "challenge", "fold")[r] for r in game.responses],
        "taken": CARD_TEXT[game.taken] if game.taken >= 0 else None,
        "known_cards": [list(mask_texts(known[s])) if s != seat else [] for s in range(3)],
        "turns_done": game.turns_done, "last_hand": last_hand,
    }
    if done and last_hand is not None:
        v["revealed_hands"] = [list(h) for h in last_hand["hands"]]
    return v


_LAST_HAND_TEXTS: dict[int, tuple[dict, dict]] = {}
"""id of a ``last_hand`` record -> (the record, its texts): a record is built once per hand and
shared by the game's copies, so its texts are worked out once."""


def last_hand_view(lh: dict | None) -> dict | None:
    """The previous hand's result ``lh`` with every hand and secret revealed (TG-29), as texts:
    built once per record, then copied."""
    if lh is None:
        return None
    cached = _LAST_HAND_TEXTS.get(id(lh))
    if cached is None or cached[0] is not lh:
        if len(_LAST_HAND_TEXTS) >= 256:
            _LAST_HAND_TEXTS.clear()
        v = {k: (tuple(x) if isinstance(x, list) else x) for k, x in lh.items() if k not in ("hands", "melds")}
        v["hands"] = tuple(mask_texts(h) for h in lh["hands"])
        v["melds"] = tuple((k, m[0], meld_card_texts(m[1], m[3]), m[2]) for k, m in enumerate(lh["melds"]))
        cached = _LAST_HAND_TEXTS[id(lh)] = (lh, v)
    v = {k: (list(x) if isinstance(x, tuple) else x) for k, x in cached[1].items()}
    v["hands"] = [list(h) for h in v["hands"]]
    v["melds"] = [{"index": k, "owner": o, "cards": list(c), "secret": s} for k, o, c, s in v["melds"]]
    return v


def status_lines(view: dict) -> list[str]:
    """The hand of the match and the dealer; who is blocked from calling Draw (TG-16); a Draw
    called and the answers open to the others (TG-20, TG-22); the secret melds on the table
    (TG-13); the card taken from the discard pile that must be melded now (TG-7)."""
    seat = view.get("seat", 0)
    me = view.get("to_play") == seat
    lines = []
    if not view.get("done"):
        lines.append(f"hand {view.get('hand_index', 0) + 1} of {view.get('hands_per_match', 1)}, "
                     f"dealer {seat_name(view.get('dealer', 0), seat)}; most chips after "
                     f"{plural(view.get('hands_per_match', 1), 'hand')} wins")
    blocked = [seat_name(i, seat) for i, b in enumerate(view.get("blocked", [])) if b]
    if blocked:
        lines.append(f"may not call a draw this turn (someone laid off on their meld): {', '.join(blocked)}")
    if view.get("caller", -1) >= 0:
        lines.append(f"{seat_name(view['caller'], seat)} called a draw: challenge (show hands, lowest "
                     "points wins) or fold")
        if me and view.get("legal_actions") == ["fold"]:
            lines.append("you may only fold: a challenger needs a meld, a secret or four of a kind")
    secrets = [f"{seat_name(i, seat)} {plural(k, 'secret meld')}"
               for i, k in enumerate(view.get("secrets", [])) if k]
    if secrets:
        lines.append("face-down (secret) melds: " + ", ".join(secrets))
    if me and view.get("taken"):
        lines.append(f"you took {view['taken']}: meld it now")
    return lines
