"""The text protocol: one self-contained prompt for the seat to act, and the reading of a reply.

The same for all five games (``env.unwrapped.prompt(agent)`` and ``env.unwrapped.parse_reply(agent,
reply)`` in :mod:`rummy_env.base`). A prompt holds, in this order:

1. the game's rules in a few hundred words (:data:`rummy_env.text_rules.RULES`);
2. the seat's situation in plain words, from its view only: the table of
   :func:`rummy_env.render.view_text` (hand, melds, piles, hand sizes, scores, the game's state) and
   the recent public events, oldest first;
3. the legal moves, one per line, ``- <canonical move text>``; I Doubt It's plays, which can run to
   thousands of texts, are one line, and Ginny-O's placements one line per square (:func:`move_lines`);
4. the instruction to answer with one move in square brackets (:data:`INSTRUCTION`).

A reply's move is its last ``[...]``, read as ``text_to_action`` reads (any order, any case), so a
model may think aloud before it answers. Prompts stay under :data:`PROMPT_LIMIT` characters.
"""
from __future__ import annotations

import re
from collections import Counter

from .actions import action_text_error
from .cards import RANKS
from .render import view_text
from .text_rules import RULES

PROMPT_LIMIT = 8000
"""Characters a prompt stays within under the default options (the largest over random play of every
game is measured by ``experiments/measure_prompts.py`` and tested in tests/test_text_protocol.py)."""

INSTRUCTION = ("Answer with exactly one of the legal moves, written in square brackets, e.g. [{example}]. "
               "You may think first; the last [...] in your answer is your move.")

_BRACKETED = re.compile(r"\[([^\[\]]*)\]")
_REPLY_SHOWN = 200
"""Characters of a reply quoted in an error message."""


def game_of(view: dict) -> str:
    """The game key of a view (``"rummy"`` for ``view["game"] == "rummy_v0"``)."""
    return view["game"].removesuffix("_v0")


def grouped_plays(legal: list[str]) -> tuple[list[str], list[str]]:
    """I Doubt It's legal texts split into the ``play`` texts and the others (DI-6, DI-8)."""
    plays = [t for t in legal if t.startswith("play ")]
    return plays, [t for t in legal if not t.startswith("play ")]


def play_line(plays: list[str], hand: list[str]) -> str:
    """The one line that stands for every legal ``play``: how many cards, and the ranks held
    (a play may name a rank as often as the hand holds it, DI-6, DI-8)."""
    most = max(len(t.split()) - 1 for t in plays)
    held = Counter(card[:-1] for card in hand)
    holding = ", ".join(f"{rank} x{held[rank]}" for rank in RANKS if held[rank])
    fewest = min(plays, key=len)
    return (f"- play <ranks>: 1 to {most} cards named by rank in any order, each rank at most as often "
            f"as you hold it (you hold {holding}), e.g. [{fewest}]")


def place_lines(places: list[str]) -> list[str]:
    """Ginny-O's ``place <tile> at <square>`` texts as one line per square listing its tiles (a
    joker with each card it may stand for, GO-17, GO-43), squares in order of first appearance."""
    tiles: dict[str, list[str]] = {}
    for text in places:
        _, tile, _, square = text.split()
        tiles.setdefault(square, []).append(tile)
    return [f"- place <tile> at {square}, <tile> one of: {' '.join(ts)}" for square, ts in tiles.items()]


def move_lines(view: dict) -> list[str]:
    """The legal moves of the seat to act as prompt lines, in action-id order: ``- <text>`` each,
    except I Doubt It's plays, one line from :func:`play_line`, and Ginny-O's placements, a line per
    square from :func:`place_lines` (either can run to hundreds or thousands of texts)."""
    legal = view["legal_actions"]
    game = game_of(view)
    if game == "i_doubt_it":
        plays, others = grouped_plays(legal)
        return [f"- {t}" for t in others] + ([play_line(plays, view["hand"])] if plays else [])
    if game == "ginny_o":
        places = [t for t in legal if t.startswith("place ")]
        return [f"- {t}" for t in legal if not t.startswith("place ")] + place_lines(places)
    return [f"- {t}" for t in legal]


def situation(view: dict) -> str:
    """The seat's situation in words: the view's table and its recent public events."""
    events = view.get("events") or []
    lines = [view_text(view)]
    if events:
        lines.append("Recent events, oldest first:")
        lines.extend(f"  {e}" for e in events)
    return "\n".join(lines)


def turn_text(view: dict) -> str:
    """The prompt after the rules: situation, legal moves and the answer instruction.

    ``ValueError`` when the view's seat is not to act (its move list would be empty)."""
    legal = view.get("legal_actions") or []
    if view.get("done") or view.get("to_play") != view.get("seat") or not legal:
        to_play = "nobody, the game is over" if view.get("done") else f"player_{view.get('to_play')}"
        raise ValueError(f"player_{view.get('seat')} is not to act (to play: {to_play}): "
                         "prompts are for the seat to act")
    return "\n\n".join([
        f"Your situation (you are player_{view['seat']}):\n{situation(view)}",
        f"Legal moves ({len(legal)}):\n" + "\n".join(move_lines(view)),
        INSTRUCTION.format(example=legal[0]),
    ])


def prompt(view: dict) -> str:
    """The whole prompt for the seat to act, from its view (module docstring): the game's rules,
    then :func:`turn_text`."""
    return RULES[game_of(view)] + "\n\n" + turn_text(view)


def parse_reply(reply: str, text_to_action) -> int:
    """The action id of the last ``[...]`` in ``reply``, read by ``text_to_action``; its
    ``ValueError`` unchanged for a bad move text, and one in the same form for a reply that is not a
    string or holds no ``[...]``."""
    if not isinstance(reply, str):
        raise action_text_error(reply, "a reply is a string")
    moves = _BRACKETED.findall(reply)
    if not moves:
        shown = reply if len(reply) <= _REPLY_SHOWN else reply[:_REPLY_SHOWN] + "..."
        raise action_text_error(shown, "the reply has no move in square brackets")
    return text_to_action(moves[-1])
