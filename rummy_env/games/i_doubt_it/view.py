"""I Doubt It's structured per-seat view, the texts of its events (DI-9, DI-13, DI-20..DI-26) and
the words ``rummy_env.render`` shows for it: the pile, the claim and the rank due next."""
from __future__ import annotations

import numpy as np

from ...cards import CARD_TEXT, NUM_CARDS, RANKS
from ...words import NUMBER_WORDS, plural, seat_name
from .observation import STAT_FIELDS
from .options import DOUBT_PHASE, GAME_NAME, PHASES

RANK_WORDS = ("ace", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "jack", "queen", "king")
COUNT_WORDS = ("one", "two", "three", "four", "five", "six", "seven", "eight")
TITLE = "I Doubt It"
"""The game's name as people write it."""
RANK_NAME = dict(zip(RANKS, RANK_WORDS))
"""Rank letter -> its name: ``6`` -> ``six``."""
RANK_NAMES = {r: w + ("es" if w == "six" else "s") for r, w in RANK_NAME.items()}
"""Rank letter -> its name in the plural: ``6`` -> ``sixes``."""


def claim_words(count: int, rank: int) -> str:
    """A claim as said at the table (DI-9): ``"one ace"``, ``"three sixes"``."""
    word = RANK_WORDS[rank] if count == 1 else RANK_WORDS[rank] + ("es" if RANK_WORDS[rank] == "six" else "s")
    return f'"{COUNT_WORDS[count - 1] if count <= len(COUNT_WORDS) else count} {word}"'


def event_text(e: tuple) -> str:
    """The text of one event of ``game.events``."""
    kind = e[0]
    if kind == "play":
        return f"player_{e[1]} plays {plural(e[2], 'card')} saying {claim_words(e[2], e[3])}"
    if kind == "pass":
        return f"player_{e[1]} passes"
    if kind == "doubt":
        return f"player_{e[1]} doubts"
    if kind == "auto":
        return f"final play: player_{e[1]} doubts automatically"
    if kind == "reveal":
        return f"player_{e[1]} shows {' '.join(CARD_TEXT[c] for c in e[2])}: {'true' if e[3] else 'a lie'}"
    if kind == "take":
        return f"player_{e[1]} takes the pile ({plural(e[2], 'card')})"
    if kind == "misclaim":
        return f"player_{e[1]} misclaims and takes the pile back ({plural(e[2], 'card')})"
    if kind == "out":
        return f"player_{e[1]} goes out, place {e[2]}"
    return "game over (cap)" if e[1] else "game over"


def view(game, seat: int) -> dict:
    """Structured view of what ``seat`` may know (base.py keys plus ``pile_size``, ``rank``,
    ``claim``, ``window``, ``out``, ``places``, ``known``, ``own_pile``, ``last_reveal``,
    ``stats``, ``plays_made``, ``max_plays``)."""
    n = game.num_players
    hand = [c for c in range(NUM_CARDS) for _ in range(game.hand_cards[seat][c])]  # id order: by suit, then rank
    to_play = -1 if game.done else game.current_player
    legal = []
    if seat == to_play:
        legal = [game.action_to_text(int(a)) for a in np.flatnonzero(game.legal_mask())]
    claim = None
    window = None
    if game.phase == DOUBT_PHASE:
        claim = {"seat": game.pending, "count": game.pending_k, "rank": RANKS[game.claim_rank]}
        window = {"asked": list(game.window), "passed": list(game.window[:game.window_pos])}
    reveal = None
    if game.last_reveal is not None:
        p, cards, truthful, taker = game.last_reveal
        reveal = {"seat": p, "cards": [CARD_TEXT[c] for c in cards], "true": bool(truthful), "taker": taker}
    return {
        "game": GAME_NAME, "seat": seat, "num_players": n, "to_play": to_play,
        "phase": PHASES[game.phase], "done": game.done,
        "hand": [CARD_TEXT[c] for c in hand], "hand_sizes": list(game.hand_size),
        "scores": list(game.final_rewards) if game.final_rewards is not None else [0.0] * n,
        "legal_actions": legal, "melds": [], "discard": [], "stock_size": 0,
        "events": [event_text(e) for e in game.events],
        "pile_size": len(game.pile), "rank": RANKS[game.rank], "claim": claim, "window": window,
        "out": list(game.out), "places": list(game.places),
        "known": [{RANKS[r]: x for r, x in enumerate(kn) if x} for kn in game.known],
        "own_pile": [CARD_TEXT[c] for c, o in zip(game.pile, game.pile_owner) if o == seat],
        "last_reveal": reveal,
        "stats": [dict(zip(STAT_FIELDS, st)) for st in game.stats],
        "plays_made": game.plays_made, "max_plays": game.options.max_plays,
    }


def status_lines(view: dict) -> list[str]:
    """None: I Doubt It's state in words is its pile, claim and rank due next (:func:`table_lines`,
    :func:`pile_lines`), which the table and the pictures show in place of stock and discard pile."""
    return []


def known_text(held: dict) -> str:
    """The ranks another seat is known to hold (DI-20), ace first: ``known to hold: A A 7``."""
    return "known to hold: " + " ".join(" ".join([r] * k) for r, k in sorted(held.items(),
                                                                             key=lambda kv: RANKS.index(kv[0])))


def table_lines(view: dict) -> list[str]:
    """The text table's pile (with the seat's own cards in it), the claim to doubt or pass (DI-9),
    the rank due next and how many of it the seat holds (DI-14), the last doubt's cards and who
    took the pile (DI-13)."""
    seat = view.get("seat", 0)
    own = view.get("own_pile") or []
    lines = [f"pile: {plural(int(view.get('pile_size', 0)), 'card')} face down"
             + (f" (yours among them: {' '.join(own)})" if own else "")]
    claim = view.get("claim")
    if claim:
        count, rank = int(claim["count"]), claim["rank"]
        said = f"{NUMBER_WORDS.get(count, count)} {RANK_NAMES[rank] if count > 1 else RANK_NAME[rank]}"
        lines.append(f"claim: {seat_name(claim['seat'], seat)} played {plural(count, 'card')} saying "
                     f"\"{said}\" - doubt it or pass")
    if not view.get("done"):
        rank = view.get("rank")
        held = sum(1 for t in view.get("hand", []) if t[:-1] == rank)
        lines.append(f"next play must claim: {RANK_NAMES.get(rank, rank)} (you hold {held})")
    reveal = view.get("last_reveal")
    if reveal:
        lines.append(f"last doubt: {seat_name(reveal['seat'], seat)} showed {' '.join(reveal['cards'])} "
                     f"({'true' if reveal['true'] else 'a lie'}); {seat_name(reveal['taker'], seat)} took the pile")
    return lines


def pile_lines(view: dict) -> list[str]:
    """What the pictures show in place of stock and discard pile: the pile's size, the pending
    claim (DI-9) and the rank due next (DI-14)."""
    lines = [f"pile: {plural(int(view.get('pile_size', 0)), 'card')} face down"]
    claim = view.get("claim")
    if claim:
        count, rank = int(claim["count"]), claim["rank"]
        lines.append(f"claim: player_{claim['seat']} played {plural(count, 'card')} as "
                     f"{RANK_NAMES.get(rank, rank) if count > 1 else rank}")
    if not view.get("done") and view.get("rank"):
        lines.append(f"next claim: {RANK_NAMES.get(view['rank'], view['rank'])}")
    return lines
