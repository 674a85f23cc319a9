"""The text back end: a seat's view as one text table (:func:`view_text`), the layout of
``render_mode="ansi"``/``"human"``, of the terminal player (``rummy-env play``) and of the replay
(``rummy-env replay``), with ANSI colours or without; and the legal moves in numbered columns."""
from __future__ import annotations

import os
import re
import sys
from typing import Sequence, TextIO

from ..cards import RANKS
from ..games.ginny_o.view import board_text
from ..games.i_doubt_it.view import known_text, table_lines
from ..words import plural
from .common import SUIT_SYMBOL, meld_groups, number, owner_text, status_lines, title

TEXT_WIDTH = 80
"""Width of the terminal the text table and the move columns are laid out for."""
MAX_LISTED = 30
"""Moves listed in columns; a longer list is summed up by its first words."""
ANSI_CODE = re.compile(r"\033\[[0-9;]*m")
SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}


class TextStyle:
    """ANSI colours (red hearts and diamonds, purple jokers, bold, dim), or none."""

    def __init__(self, colour: bool):
        self.colour = colour

    def _wrap(self, code: str, text: str) -> str:
        return f"\033[{code}m{text}\033[0m" if self.colour else text

    def card(self, text: str) -> str:
        t = text.strip().upper()
        if t.startswith("JK"):
            return self._wrap("35", text)
        return self._wrap("31", text) if t[-1:] in ("D", "H") else text

    def cards(self, texts: Sequence[str]) -> str:
        return " ".join(self.card(t) for t in texts)

    def bold(self, text: str) -> str:
        return self._wrap("1", text)

    def dim(self, text: str) -> str:
        return self._wrap("2", text)


def use_colour(stream: TextIO) -> bool:
    """Whether text written to ``stream`` gets ANSI colours: only on a terminal, and never
    with the ``NO_COLOR`` environment variable set."""
    return hasattr(stream, "isatty") and stream.isatty() and "NO_COLOR" not in os.environ


def wrap(items: Sequence[str], indent: str = "  ", sep: str = "   ", width: int = TEXT_WIDTH) -> list[str]:
    """``items`` joined by ``sep`` into lines of at most ``width`` visible characters."""
    lines, line = [], indent
    for item in items:
        if line.strip() and len(ANSI_CODE.sub("", line + sep + item)) > width:
            lines.append(line)
            line = indent
        line += (sep if line.strip() else "") + item
    if line.strip():
        lines.append(line)
    return lines


def group_by_suit(hand: Sequence[str]) -> list[tuple[str, list[str]]]:
    """The hand grouped by suit in C D H S order, jokers (and anything else) last; each group keeps
    the view's order (the view sorts by suit then rank)."""
    groups: dict[str, list[str]] = {s: [] for s in "CDHS"}
    other: list[str] = []
    for t in hand:
        suit = t.strip().upper()[-1:]
        (groups[suit] if suit in groups and not t.upper().startswith("JK") else other).append(t)
    out = [(SUIT_SYMBOL[s] + " " + SUIT_NAMES[s], cards) for s, cards in groups.items() if cards]
    if other:
        out.append(("jokers", other))
    return out


def hand_by_rank(hand: Sequence[str]) -> list[tuple[str, list[str]]]:
    """I Doubt It's hand, where only ranks matter (DI-5): (rank, cards) groups, ace first."""
    groups: dict[str, list[str]] = {}
    for t in hand:
        groups.setdefault(t[:-1], []).append(t)
    return sorted(groups.items(), key=lambda kv: RANKS.index(kv[0]) if kv[0] in RANKS else 99)


def pile_table(view: dict, style: TextStyle, width: int) -> list[str]:
    """I Doubt It's table: hand sizes, the face-down pile, the claim being doubted, the rank due
    next and the cards known to be in other hands (DI-9, DI-14, DI-20); no stock or discard pile."""
    seat, to_play = view.get("seat", 0), view.get("to_play", -1)
    task = "doubt or pass" if view.get("claim") else "play"
    state = "game over" if view.get("done") else (
        f"your turn: {task}" if to_play == seat else f"player_{to_play} to {task}")
    lines = [style.bold(f"=== {title(view)} | you are player_{seat} | {state} ===")]
    known = view.get("known") or []
    places, out = view.get("places") or [], view.get("out") or []
    for i, size in enumerate(view.get("hand_sizes", [])):
        who = f"player_{i}" + (" (you)" if i == seat else "")
        turn = "  <- to play" if i == to_play and not view.get("done") else ""
        place = places[i] if i < len(places) else 0
        note = f"   {'out, ' if i < len(out) and out[i] else ''}place {place}" if place else ""
        held = known[i] if i < len(known) and i != seat else {}
        if held:
            note += "   " + known_text(held)
        lines.append(f"  {who:<16} {plural(size, 'card'):>9}{note}{turn}")
    lines.extend(table_lines(view))
    hand = list(view.get("hand", []) or [])
    lines.append(style.bold(f"your hand ({plural(len(hand), 'card')}), by rank:"))
    lines.extend(wrap([f"{rank}: {style.cards(cards)}" for rank, cards in hand_by_rank(hand)], width=width))
    return lines


def card_table(view: dict, style: TextStyle) -> list[str]:
    """The table of the games with a stock: players, the game's state in words, stock and discard
    pile, melds by owner (numbered ``@k`` as in the action text), the hand by suit; Ginny-O's board
    with its legend and the rack on one line instead of pile, melds and hand."""
    seat, to_play = view.get("seat", 0), view.get("to_play", -1)
    phase = view.get("phase")
    state = "game over" if view.get("done") else (
        f"your turn ({phase})" if to_play == seat else f"player_{to_play} to play ({phase})")
    lines = [style.bold(f"=== {title(view)} | you are player_{seat} | {state} ===")]
    on_board = "board" in view
    if on_board:
        lines.extend(board_text(view))
    sizes, scores = view.get("hand_sizes", []), view.get("scores", [])
    unit = "tile" if on_board else "card"
    for i in range(int(view.get("num_players", len(sizes)))):
        who = f"player_{i}" + (" (you)" if i == seat else "")
        turn = "  <- to play" if i == to_play and not view.get("done") else ""
        size = plural(sizes[i], unit) if i < len(sizes) else "-"
        score = number(scores[i]) if i < len(scores) else "-"
        lines.append(f"  {who:<18} {size:>9}   score {score}{turn}")
    lines.extend("  " + line for line in status_lines(view))
    hand = list(view.get("hand", []) or [])
    if on_board:  # the rack on one line, so that the board and the moves fit the screen
        lines.append(style.bold(f"your rack ({plural(len(hand), unit)}): ") + style.cards(hand))
        return lines
    discard = list(view.get("discard", []) or [])
    pile = style.cards(discard[-12:]) if discard else "(empty)"
    more = f"... {len(discard) - 12} more below, " if len(discard) > 12 else ""
    lines.append(f"stock: {plural(view.get('stock_size', 0), 'card')}   "
                 f"discard pile ({more}top card last): {pile}")
    groups = meld_groups(view)
    if groups:
        lines.append("melds on the table:")
    for owner, melds in groups:
        parts = [f"@{m.get('index')}{' (secret)' if m.get('secret') else ''}: {style.cards(m.get('cards', []))}"
                 for m in melds]
        lines.append(f"  {owner_text(owner):<10} " + "   ".join(parts))
    lines.append(style.bold(f"your hand ({plural(len(hand), unit)}):"))
    for label, cards in group_by_suit(hand):
        lines.append(f"  {label:<11} {style.cards(cards)}")
    return lines


def move_lines(rows: Sequence[tuple[int, str]], width: int = TEXT_WIDTH, limit: int | None = None) -> list[str]:
    """Numbered moves ``(number, text)`` in columns; more than ``limit`` are summed up by their
    first word (small groups listed, large ones counted with examples)."""
    if limit is None or len(rows) <= limit:
        return _columns(rows, width, len(str(rows[-1][0])))
    groups: dict[str, list[tuple[int, str]]] = {}
    for row in rows:
        groups.setdefault(row[1].split()[0], []).append(row)
    small = [row for group in groups.values() if len(group) <= 4 for row in group]
    lines = _columns(small, width, len(str(rows[-1][0]))) if small else []
    for verb, group in groups.items():
        if len(group) > 4:
            examples = ", ".join(t for _, t in group[:3])
            lines.append(f"  {verb} ...: {plural(len(group), 'move')} (e.g. {examples})")
    return lines


def _columns(rows: Sequence[tuple[int, str]], width: int, digits: int) -> list[str]:
    cells = [f"{i:>{digits}}. {t}" for i, t in rows]
    cell = max(len(c) for c in cells) + 3
    per_line = max(1, (width - 2) // cell)
    return ["  " + "".join(c.ljust(cell) for c in cells[k:k + per_line]).rstrip()
            for k in range(0, len(cells), per_line)]


def view_text(view: dict, colour: bool = False, width: int = TEXT_WIDTH, moves: bool = False) -> str:
    """The seat's view as a text table, the one layout of ``render_mode="ansi"``/``"human"``, the
    terminal player and the replay: I Doubt It's pile and claim (a view with ``pile_size``), or
    the table of the games with a stock (with Ginny-O's board). ``colour`` adds ANSI colours;
    ``width`` is the screen's; ``moves`` appends the view's legal moves, numbered as in the
    terminal player, summed up when there are more than :data:`MAX_LISTED`."""
    style = TextStyle(colour)
    lines = pile_table(view, style, width) if "pile_size" in view else card_table(view, style)
    legal = view.get("legal_actions") or []
    if moves and legal:
        lines.append(f"legal moves ({len(legal)}):")
        lines.extend(move_lines(list(enumerate(legal, 1)), width, MAX_LISTED))
    return "\n".join(lines)


def render_as_text(view: dict, render_mode: str) -> str | None:
    """What ``render()`` gives in a text mode: ``"ansi"`` the view's table with its legal moves,
    without colours; ``"human"`` the same printed (coloured on a terminal), returning None."""
    if render_mode == "human":
        print(view_text(view, use_colour(sys.stdout), moves=True))
        return None
    return view_text(view, moves=True)
