"""I Doubt It's wording (to move into ``rummy_env/games/i_doubt_it/view.py``)."""
from __future__ import annotations

from ..cards import RANKS
from ..words import NUMBER_WORDS, plural, seat_name

TITLE = "I Doubt It"
RANK_NAMES = {"A": "aces", "2": "twos", "3": "threes", "4": "fours", "5": "fives", "6": "sixes",
              "7": "sevens", "8": "eights", "9": "nines", "T": "tens", "J": "jacks", "Q": "queens",
              "K": "kings"}
RANK_NAME = {"A": "ace", "2": "two", "3": "three", "4": "four", "5": "five", "6": "six", "7": "seven",
             "8": "eight", "9": "nine", "T": "ten", "J": "jack", "Q": "queen", "K": "king"}


def status_lines(view: dict) -> list[str]:
    """None: I Doubt It's state in words is its pile, claim and next rank (:func:`table_lines`,
    :func:`pile_lines`), which the table and the pictures show in place of stock and discard pile."""
    return []


def known_text(held: dict) -> str:
    """The ranks another seat is known to hold (DI-20), ace first: ``known to hold: A A 7``."""
    return "known to hold: " + " ".join(" ".join([r] * k) for r, k in sorted(held.items(),
                                                                             key=lambda kv: RANKS.index(kv[0])))


def table_lines(view: dict) -> list[str]:
    """The text table's pile, the claim being doubted (DI-9), the rank due next and what the
    seat holds of it (DI-14), the last doubt's cards and who took the pile (DI-13)."""
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
    """What the pictures show instead of stock and discard pile: the pile's size, the pending
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
