"""Contract Rummy's wording (to move into ``rummy_env/games/contract_rummy/view.py``)."""
from __future__ import annotations

from ..words import NUMBER_WORDS, seat_name

TITLE = "Contract Rummy"


def contract_words(needs: dict) -> str:
    """Contract Rummy's contract (CR-7) in words: ``two sets of 3``, ``one set of 3 and two runs``."""
    parts = []
    for key, one, many in (("sets", "set of 3", "sets of 3"), ("runs", "run", "runs")):
        k = int(needs.get(key, 0))
        if k:
            parts.append(f"{NUMBER_WORDS.get(k, k)} {one if k == 1 else many}")
    return " and ".join(parts)


def status_lines(view: dict) -> list[str]:
    """The deal, its contract (CR-7) and the dealer; who is down (CR-13); this turn's duties: the
    card to put on the table and the card not to discard."""
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
