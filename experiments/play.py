"""Play a game against the bots in the terminal: ``rummy-env play <game> [--seat N] [--opponents SPEC]``.

Each turn shows your view (your cards sorted and grouped by suit, the melds on the table with
their owners and ``@k`` numbers, the discard pile, hand sizes, scores and the game's state in words;
Ginny-O's board with a legend; I Doubt It's pile, pending claim and the rank due) and the legal
moves, numbered and as text, in columns or summed up when there are many. Answer with a number or with the move's text in
any case (``discard 7h``, ``meld 10h jh qh``); ``help``, ``hint`` (what the rule-based agent would
play), ``moves [WORD]`` (list every legal move, or those containing WORD), ``view`` and ``quit`` also
work. A bad answer gets a message and a new prompt. Your own draws are announced to you ("you draw
7H"); the others' draws stay hidden. Every end of a hand, round or deal is explained in words (who
won and how, the hands the rules reveal with their points, the score changes), then the game waits
for Enter before the next hand. Long move lists are summed up; ``moves WORD`` lists them.

Environment options go as ``--option KEY=VALUE`` (e.g. ``--option target_score=50`` for a shorter
Rummy match), read by :mod:`rummy_env.experiments.options` as in every other command.

Opponents are agent specs (``random``, ``heuristic``, ``ppo:PATH``; see :mod:`rummy_env.agents.registry`):
one spec for every opponent, or one per opponent separated by commas.

Only what your seat may know is shown: other seats' moves are reported through the public events of
your own view, never through their action texts (which can name hidden cards).

From Python: ``main(["rummy", "--seat", "0"], input_fn=..., out=...)`` (the tests drive it this way).
"""
from __future__ import annotations

import argparse
import os
import re
import sys
from collections import Counter
from typing import Callable, Sequence, TextIO

import numpy as np

from rummy_env.agents.registry import AGENT_SPECS, make_agent
from rummy_env.experiments.options import add_option_argument, parse_env_options
from rummy_env.registry import GAMES, make_env

MAX_LISTED = 30
"""Moves listed each turn (in columns); longer lists are summed up, ``moves`` lists all of them."""
SCREEN_WIDTH = 80
"""Width of the terminal the move columns are laid out for."""
INTERRUPTED = 130
"""Exit status after Ctrl-C (128 + SIGINT), as shells report it."""

NUMBER_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five"}
RANK_NAMES = {"A": "aces", "2": "twos", "3": "threes", "4": "fours", "5": "fives", "6": "sixes",
              "7": "sevens", "8": "eights", "9": "nines", "T": "tens", "J": "jacks", "Q": "queens",
              "K": "kings"}
RANK_NAME = {"A": "ace", "2": "two", "3": "three", "4": "four", "5": "five", "6": "six", "7": "seven",
             "8": "eight", "9": "nine", "T": "ten", "J": "jack", "Q": "queen", "K": "king"}
RANK_ORDER = "A23456789TJQK"
PREMIUM_LEGEND = "premium squares: y/g tile x2/x3, r/b meld x2/x3, r/c start; 8D* = joker as 8D"
"""Ginny-O's premium squares (GO-2, GO-3) as the board text shows them."""
GAME_TITLES = {"rummy": "Rummy", "tongits": "Tongits", "i_doubt_it": "I Doubt It",
               "contract_rummy": "Contract Rummy", "ginny_o": "Ginny-O"}
HAND_WORD = {"rummy": "round", "tongits": "hand", "contract_rummy": "deal"}
"""What each game calls one deal of the cards (its rules' word)."""
ANSI_CODE = re.compile(r"\033\[[0-9;]*m")
NEW_HAND_EVENT = re.compile(r"^round \d+: ")
"""An event that opens the next round (Rummy's deal): shown after the last round's result."""

SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
SUIT_SYMBOL = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}

HELP = """\
Answer with:
  <number>        the move with that number in the list
  <move text>     the move itself, any case, e.g. 'discard 7h', 'meld 10h jh qh'
  moves [WORD]    list every legal move (or only those containing WORD, e.g. 'moves meld')
  hint            what the rule-based agent would play here
  view            show the table again
  help            this text
  quit            leave the game (Ctrl-C or Ctrl-D also leave)
Melds on the table are numbered @0, @1, ... as in the moves ('layoff 7H @0').
After each hand its result is shown; press Enter to go on."""


class QuitGame(Exception):
    """The person asked to leave (``quit`` or end of input)."""


def add_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The options of ``play`` (used by ``rummy-env play`` and ``python -m rummy_env.experiments.play``)."""
    parser.add_argument("game", help=f"one of: {', '.join(GAMES)}")
    parser.add_argument("--seat", type=int, default=0, help="your seat, 0-based (default 0)")
    parser.add_argument("--opponents", default="heuristic",
                        help=f"agent spec for the other seats ({' | '.join(AGENT_SPECS)}); one spec "
                             "for all, or one per opponent separated by commas (default heuristic)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the deal and the bots")
    parser.add_argument("--players", type=int, default=None,
                        help="number of players, for games that allow several")
    parser.add_argument("--no-color", action="store_true", help="plain text, no ANSI colours")
    add_option_argument(parser)
    return parser


def build_parser() -> argparse.ArgumentParser:
    return add_arguments(argparse.ArgumentParser(
        prog="rummy-env play", description="Play a rummy_env game against bots in the terminal."))


def _namespace(argv_or_namespace: Sequence[str] | argparse.Namespace | None) -> argparse.Namespace:
    if isinstance(argv_or_namespace, argparse.Namespace):
        ns = argv_or_namespace
        for key, default in (("seat", 0), ("opponents", "heuristic"), ("seed", None),
                             ("players", None), ("no_color", False), ("option", [])):
            if not hasattr(ns, key):
                setattr(ns, key, default)
        return ns
    argv = list(sys.argv[1:] if argv_or_namespace is None else argv_or_namespace)
    if argv[:1] == ["play"]:
        argv = argv[1:]
    return build_parser().parse_args(argv)


class Style:
    """ANSI colours, or none."""

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


def plural(count: int, word: str) -> str:
    """``1 card``, ``2 cards``."""
    return f"{count} {word if count == 1 else word + 's'}"


def seat_name(i: int, seat: int) -> str:
    """``you`` for your own seat, else ``player_i``."""
    return "you" if i == seat else f"player_{i}"


def number(value) -> str:
    """A score as a person writes it: 3, not 3.0."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def contract_words(needs: dict) -> str:
    """Contract Rummy's contract (CR-7) in words: ``two sets of 3``, ``one set of 3 and two runs``."""
    parts = []
    for key, one, many in (("sets", "set of 3", "sets of 3"), ("runs", "run", "runs")):
        k = int(needs.get(key, 0))
        if k:
            parts.append(f"{NUMBER_WORDS.get(k, k)} {one if k == 1 else many}")
    return " and ".join(parts)


def status_lines(view: dict) -> list[str]:
    """The game's own state in words (the round, the dealer, duties of this turn)."""
    game, seat = view.get("game", ""), view.get("seat", 0)
    me = view.get("to_play") == seat
    lines = []
    if game.startswith("rummy"):
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
    elif game.startswith("tongits"):
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
    elif game.startswith("contract_rummy"):
        lines.append(f"deal {view.get('deal_index', 0) + 1} of {view.get('num_deals', 1)}, "
                     f"contract {view.get('contract')}: {contract_words(view.get('contract_needs', {}))}; "
                     f"dealer {seat_name(view.get('dealer', 0), seat)}; lowest total wins")
        down = [seat_name(i, seat) for i, d in enumerate(view.get("down", [])) if d]
        if down:
            lines.append("down (contract laid): " + ", ".join(down))
        if me and view.get("must_use"):
            lines.append(f"you must put {view['must_use']} on the table this turn")
        if me and view.get("banned"):
            lines.append(f"you may not discard {view['banned']} this turn")
    elif game.startswith("ginny_o"):
        limit, stall = view.get("stall_limit", 0), view.get("stall", 0)
        lines.append(f"box: {plural(view.get('stock_size', 0), 'tile')}; turns without a play: {stall} "
                     f"(the game ends at {limit})")
        if view.get("placed"):
            lines.append("placed this turn: " + ", ".join(view["placed"]))
    return lines


def hand_by_rank(hand: Sequence[str]) -> list[tuple[str, list[str]]]:
    """I Doubt It's hand, where only ranks matter (DI-5): (rank, cards) groups, ace first."""
    groups: dict[str, list[str]] = {}
    for t in hand:
        groups.setdefault(t[:-1], []).append(t)
    return sorted(groups.items(), key=lambda kv: RANK_ORDER.index(kv[0]) if kv[0] in RANK_ORDER else 99)


def wrap(items: Sequence[str], indent: str = "  ", sep: str = "   ", width: int = SCREEN_WIDTH) -> list[str]:
    """``items`` joined by ``sep`` into lines of at most ``width`` characters."""
    lines, line = [], indent
    for item in items:
        if line.strip() and len(ANSI_CODE.sub("", line + sep + item)) > width:
            lines.append(line)
            line = indent
        line += (sep if line.strip() else "") + item
    if line.strip():
        lines.append(line)
    return lines


def title(view: dict) -> str:
    """The game's name as people write it: ``Contract Rummy``."""
    key = str(view.get("game", "")).removesuffix("_v0")
    return GAME_TITLES.get(key, key)


def format_i_doubt_it(view: dict, style: Style) -> str:
    """I Doubt It's table: hand sizes, the face-down pile, the claim being doubted, the rank due
    next and the cards known to be in other hands (DI-9, DI-14, DI-20); no stock or discard pile."""
    seat, to_play = view.get("seat", 0), view.get("to_play", -1)
    task = "doubt or pass" if view.get("claim") else "play"
    state = "game over" if view.get("done") else (
        f"your turn: {task}" if to_play == seat else f"player_{to_play} to {task}")
    lines = [style.bold(f"=== I Doubt It | you are player_{seat} | {state} ===")]
    known = view.get("known") or []
    places, out = view.get("places") or [], view.get("out") or []
    for i, size in enumerate(view.get("hand_sizes", [])):
        who = f"player_{i}" + (" (you)" if i == seat else "")
        turn = "  <- to play" if i == to_play and not view.get("done") else ""
        place = places[i] if i < len(places) else 0
        note = f"   {'out, ' if i < len(out) and out[i] else ''}place {place}" if place else ""
        held = known[i] if i < len(known) and i != seat else {}
        if held:
            note += "   known to hold: " + " ".join(
                " ".join([r] * k) for r, k in sorted(held.items(), key=lambda kv: RANK_ORDER.index(kv[0])))
        lines.append(f"  {who:<16} {plural(size, 'card'):>9}{note}{turn}")
    pile = int(view.get("pile_size", 0))
    own = view.get("own_pile") or []
    lines.append(f"pile: {plural(pile, 'card')} face down" + (f" (yours among them: {' '.join(own)})" if own else ""))
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
    hand = list(view.get("hand", []) or [])
    lines.append(style.bold(f"your hand ({plural(len(hand), 'card')}), by rank:"))
    lines.extend(wrap([f"{rank}: {style.cards(cards)}" for rank, cards in hand_by_rank(hand)]))
    return "\n".join(lines)


def format_board(view: dict) -> str:
    """Ginny-O's board, 4 characters a square so a joker (``8D*``) keeps the grid aligned; empty
    premium squares in lower case (GO-2), with a legend."""
    cols = "ABCDEFGHIJKLMNO"
    board, premium = view.get("board") or [], view.get("premium") or []
    lines = ["   " + "".join(f"{c:>4}" for c in cols[:len(board[0]) if board else 15])]
    for r, row in enumerate(board):
        cells = []
        for c, tile in enumerate(row):
            if tile:
                text = tile[3:] + "*" if tile.startswith("JK=") else tile
            else:
                square = premium[r][c] if r < len(premium) and c < len(premium[r]) else "."
                text = square.lower()
            cells.append(f"{text:>4}")
        lines.append(f"{r + 1:>3}" + "".join(cells))
    lines.append(PREMIUM_LEGEND)
    return "\n".join(lines)


def format_view(view: dict, style: Style, board_text: str | None = None) -> str:
    """The seat's view as text: players, the game's state in words, stock and discard, melds by
    owner (numbered ``@k`` as in the moves), the hand by suit. I Doubt It has its own table."""
    if str(view.get("game", "")).startswith("i_doubt_it"):
        return format_i_doubt_it(view, style)
    seat, to_play = view.get("seat", 0), view.get("to_play", -1)
    lines = []
    name = title(view)
    state = "game over" if view.get("done") else (
        f"your turn ({view.get('phase')})" if to_play == seat else f"player_{to_play} to play ({view.get('phase')})")
    lines.append(style.bold(f"=== {name} | you are player_{seat} | {state} ==="))
    if board_text:
        lines.append(board_text.rstrip())
    sizes, scores = view.get("hand_sizes", []), view.get("scores", [])
    unit = "tile" if "board" in view else "card"
    for i in range(int(view.get("num_players", len(sizes)))):
        who = f"player_{i}" + (" (you)" if i == seat else "")
        turn = "  <- to play" if i == to_play and not view.get("done") else ""
        size = plural(sizes[i], unit) if i < len(sizes) else "-"
        score = number(scores[i]) if i < len(scores) else "-"
        lines.append(f"  {who:<18} {size:>9}   score {score}{turn}")
    lines.extend("  " + line for line in status_lines(view))
    if "board" not in view:
        discard = list(view.get("discard", []) or [])
        pile = style.cards(discard[-12:]) if discard else "(empty)"
        more = f"... {len(discard) - 12} more below, " if len(discard) > 12 else ""
        lines.append(f"stock: {plural(view.get('stock_size', 0), 'card')}   "
                     f"discard pile ({more}top card last): {pile}")
    melds = list(view.get("melds", []) or [])
    if melds and "board" not in view:
        lines.append("melds on the table:")
        owners: dict = {}
        for m in melds:
            owners.setdefault(m.get("owner"), []).append(m)
        for owner in sorted(owners, key=lambda o: (not isinstance(o, int), o if isinstance(o, int) else 0)):
            who = f"player_{owner}" if isinstance(owner, int) and owner >= 0 else "table"
            parts = [f"@{m.get('index')}: {style.cards(m.get('cards', []))}" for m in owners[owner]]
            lines.append(f"  {who:<10} " + "   ".join(parts))
    hand = list(view.get("hand", []) or [])
    if "board" in view:  # one line, so that the board and the moves fit the screen
        lines.append(style.bold(f"your rack ({plural(len(hand), unit)}): ") + style.cards(hand))
        return "\n".join(lines)
    lines.append(style.bold(f"your hand ({plural(len(hand), unit)}):"))
    for label, cards in group_by_suit(hand):
        lines.append(f"  {label:<11} {style.cards(cards)}")
    return "\n".join(lines)


def hand_mark(view: dict) -> tuple:
    """What changes when a hand, round or deal ends: its counter and ``done``."""
    counter = next((view[k] for k in ("rounds_played", "hand_index", "deal_index") if k in view), 0)
    return counter, bool(view.get("done"))


def score_changes(before: Sequence, after: Sequence, seat: int) -> str:
    """``scores: you 0, player_1 78 (+78)``."""
    parts = []
    for i, (old, new) in enumerate(zip(before, after)):
        delta = new - old
        change = f" ({'+' if delta > 0 else ''}{number(delta)})" if delta else ""
        parts.append(f"{seat_name(i, seat)} {number(new)}{change}")
    return "scores: " + ", ".join(parts)


def hand_result(view: dict, scores_before: Sequence, style: Style) -> list[str]:
    """The end of the hand (round, deal or game) just played, in words: who won and how, the hands
    the rules reveal with their points, and the score changes."""
    game, seat = str(view.get("game", "")), view.get("seat", 0)
    scores = list(view.get("scores", []))
    lines: list[str] = []
    if game.startswith("rummy") and view.get("last_round"):
        lr = view["last_round"]
        if lr.get("dead"):
            lines.append(f"Round {lr['round']} ends with no score: nobody went out before the "
                         + ("turn limit." if lr.get("cap") == "max_turns" else "stock ran out for good."))
        else:
            w = lr["winner"]
            how = " with rummy (all in one turn), so the points are doubled" if lr.get("rummy") else ""
            lines.append(f"Round {lr['round']}: {seat_name(w, seat)} went out{how} and "
                         f"{'score' if w == seat else 'scores'} {plural(lr['points'], 'point')}.")
            lines.append("cards left in the other hands (their points go to the winner):")
            for i, hand in enumerate(lr.get("hands", [])):
                if i != w:
                    lines.append(f"  {seat_name(i, seat):<9} {style.cards(hand) or '(none)'}  = "
                                 f"{plural(lr['hand_points'][i], 'point')}")
    elif game.startswith("tongits") and view.get("last_hand"):
        lh = view["last_hand"]
        w, how = lh["winner"], lh["how"]
        winner = seat_name(w, seat)
        lines.append(f"Hand {lh['hand_index'] + 1}: " + TONGITS_HOW.get(how, how).format(w=winner)
                     + f", so {winner} {'win' if w == seat else 'wins'}.")
        if lh.get("burned", -1) >= 0:
            lines.append(f"{seat_name(lh['burned'], seat)} called the draw and lost: burned, one chip more to pay.")
        lines.append("every hand is shown, with its points (the lowest wins a showdown):")
        for i, hand in enumerate(lh.get("hands", [])):
            lines.append(f"  {seat_name(i, seat):<9} {style.cards(hand) or '(empty)'}  = "
                         f"{plural(lh['points'][i], 'point')}")
        return lines + [score_changes(scores_before, scores, seat).replace("scores:", "chips:")]
    elif game.startswith("contract_rummy") and view.get("last_deal"):
        ld = view["last_deal"]
        out = ld["out"]
        lines.append(f"Deal {ld['deal']} (contract {ld['contract']}) ends: "
                     + (f"{seat_name(out, seat)} went out." if out >= 0 else
                        "nobody went out (a dead deal); every hand pays."))
        lines.append("penalty points for the cards left in hand (lowest total wins):")
        lines.append("  " + ", ".join(f"{seat_name(i, seat)} {p}" for i, p in enumerate(ld["penalties"])))
    elif game.startswith("ginny_o") and view.get("done"):
        final, running = view.get("final_scores") or scores, view.get("running_scores") or scores_before
        lines.append("The game is over: nobody can play any more.")
        lines.append("the tiles left on each rack are taken off its score (ace 15, joker 0):")
        lines.append("  " + ", ".join(f"{seat_name(i, seat)} {number(r)} - {number(r - f)} = {number(f)}"
                                      for i, (r, f) in enumerate(zip(running, final))))
        lines.append(f"your rack: {style.cards(view.get('hand', [])) or '(empty)'}")
        return lines
    elif game.startswith("i_doubt_it") and view.get("done"):
        places = view.get("places") or []
        first = [i for i, p in enumerate(places) if p == 1]
        if first:
            lines.append(f"{' and '.join(seat_name(i, seat) for i in first)} got rid of every card first "
                         f"and {'win' if seat in first else 'wins'}.")
        order = sorted((p, i) for i, p in enumerate(places) if p)
        if order:
            lines.append("places: " + ", ".join(f"{p}. {seat_name(i, seat)}" for p, i in order))
        return lines
    if scores_before and scores:
        lines.append(score_changes(scores_before, scores, seat))
    return lines


TONGITS_HOW = {
    "tongits": "{w} emptied the hand: Tongits",
    "draw": "{w} called a draw and nobody challenged",
    "draw_challenged": "{w} called a draw, was challenged, and had the lowest points in the showdown",
    "challenge": "{w} challenged the draw and had the lowest points in the showdown",
    "stock": "the stock ran out and {w} had the lowest points",
    "turn_cap": "the turn limit was reached and {w} had the lowest points",
}
"""Tongits' ways to win a hand (``last_hand["how"]``, TG-17, TG-21, TG-22, TG-25) in words."""


def new_events(before: list[str], after: list[str]) -> list[str]:
    """Events in ``after`` that were not in ``before`` (a sliding window of recent events)."""
    if after == before:
        return []
    if after[:len(before)] == before:
        return after[len(before):]
    for k in range(min(len(before), len(after)), 0, -1):
        if before[-k:] == after[:k]:
            return after[k:]
    return after


class Session:
    """One game in the terminal. ``input_fn(prompt) -> str``; everything is written to ``out``."""

    def __init__(self, ns: argparse.Namespace, input_fn: Callable[[str], str], out: TextIO):
        self.ns = ns = _namespace(ns)
        self.input_fn = input_fn
        self.out = out
        colour = not ns.no_color and hasattr(out, "isatty") and out.isatty() and "NO_COLOR" not in os.environ
        self.style = Style(colour)
        options = parse_env_options(ns.option)
        if ns.players is not None:
            if options.get("num_players", ns.players) != ns.players:
                raise ValueError(f"--players {ns.players} and --option num_players={options['num_players']} disagree")
            options["num_players"] = ns.players
        self.env = make_env(ns.game, **options)
        self.raw = self.env.unwrapped
        n = len(self.raw.possible_agents)
        if not 0 <= ns.seat < n:
            raise ValueError(f"--seat {ns.seat} is not a seat of this game: choose 0..{n - 1}")
        specs = [s.strip() for s in str(ns.opponents).split(",")]
        if len(specs) == 1:
            specs = specs * (n - 1)
        if len(specs) != n - 1:
            raise ValueError(f"--opponents lists {len(specs)} specs but there are {n - 1} opponents")
        self.opponent_specs = specs
        self.agents = {}
        others = [s for s in range(n) if s != ns.seat]
        for s, spec in zip(others, specs):
            self.agents[s] = make_agent(spec, ns.game)
        self.hint_agent = None
        self.hint_error = None
        self.events: list[str] = []
        self.explained = False
        """Whether a hand result has been shown (then the final screen need not repeat the hands)."""

    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")

    def ask(self, prompt: str) -> str:
        try:
            return self.input_fn(prompt)
        except EOFError:
            self.say()
            raise QuitGame from None

    # -- one game ---------------------------------------------------------------------------
    def run(self) -> int:
        ns, env, raw = self.ns, self.env, self.raw
        env.reset(seed=ns.seed)
        base_seed = ns.seed if ns.seed is not None else int(np.random.SeedSequence().entropy % 2**31)
        for s, agent in self.agents.items():
            agent.reset(s, base_seed + 1000 + s)
            if hasattr(agent, "bind"):  # a search agent (rummy_env.agents.ismcts) reads the engine itself
                agent.bind(raw)
        totals = {a: 0.0 for a in raw.possible_agents}
        human = raw.possible_agents[ns.seat]
        if len(set(self.opponent_specs)) == 1:
            opp = ", ".join(f"player_{s}" for s in self.agents) + f" ({self.opponent_specs[0]})"
        else:
            opp = ", ".join(f"player_{s} ({spec})" for s, spec in zip(self.agents, self.opponent_specs))
        self.say(self.style.bold(f"{title(raw.view(ns.seat))}: you are {human}; "
                                 f"{'opponent' if len(self.agents) == 1 else 'opponents'} {opp}. "
                                 "Type 'help' for help."))
        view = raw.view(ns.seat)
        self.events = list(view.get("events", []))
        for e in self.events:
            self.say(self.style.dim("  " + e))
        self.mark, self.scores = hand_mark(view), list(view.get("scores", []))
        try:
            for agent in env.agent_iter():
                obs, _, term, trunc, _ = env.last()
                if term or trunc:
                    env.step(None)
                    continue
                seat = raw.agent_name_mapping[agent]
                hand = view["hand"]
                if seat == ns.seat:
                    action = self.human_turn(obs["action_mask"])
                else:
                    action = self.agents[seat].act(obs["observation"], obs["action_mask"], raw.view(seat))
                env.step(action)
                for a in raw.possible_agents:
                    totals[a] += raw.rewards.get(a, 0.0)
                view = raw.view(ns.seat)
                if hand_mark(view) != self.mark:
                    self.end_of_hand(view)
                else:
                    self.report_events(view)
                    self.announce_new_cards(seat, action, hand, view)
        except QuitGame:
            self.say("You left the game.")
            return 0
        self.show_end(totals)
        return 0

    def report_events(self, view: dict, hold_new_hand: bool = False) -> list[str]:
        """Print the new public events; with ``hold_new_hand``, those from the opening of the next
        round on are returned instead, to be shown after the last round's result."""
        events = list(view.get("events", []))
        fresh = new_events(self.events, events)
        self.events = events
        cut = next((k for k, e in enumerate(fresh) if hold_new_hand and NEW_HAND_EVENT.match(e)), len(fresh))
        for e in fresh[:cut]:
            self.say(self.style.dim("  " + e))
        return fresh[cut:]

    def announce_new_cards(self, seat: int, action: int, before: list[str], view: dict) -> None:
        """Cards that came into your hand and that only you see: ``you draw 7H`` after your draw,
        ``new in your hand: ...`` after a pickup of the pile or an exchange. Taking a face-up card
        is already a public event."""
        new = sorted((Counter(view["hand"]) - Counter(before)).elements())
        text = self.raw.action_to_text(action) if seat == self.ns.seat else ""
        if not new or text.startswith("take"):
            return
        where = "rack" if "board" in view else "hand"
        self.say(("you draw " if text.startswith("draw") else f"new in your {where}: ") + self.style.cards(new))

    def end_of_hand(self, view: dict) -> None:
        """Explain the hand that just ended (after its last events), then wait for Enter before
        the next one and show the events that opened it."""
        held = self.report_events(view, hold_new_hand=True)
        self.say()
        for line in hand_result(view, self.scores, self.style):
            self.say(line if line.startswith(" ") else self.style.bold(line))
        self.explained = True
        self.mark, self.scores = hand_mark(view), list(view.get("scores", []))
        if view.get("done"):
            return
        word = HAND_WORD.get(str(view.get("game", "")).removesuffix("_v0"), "hand")
        answer = self.ask(f"press Enter for the next {word} (or type quit) ").strip().lower()
        if answer in ("quit", "exit", "q"):
            raise QuitGame
        for e in held:
            self.say(self.style.dim("  " + e))

    def board_text(self, view: dict) -> str | None:
        return format_board(view) if "board" in view else None

    def show_view(self, view: dict) -> None:
        self.say()
        self.say(format_view(view, self.style, self.board_text(view)))

    def list_moves(self, texts: list[str], word: str | None = None, limit: int | None = None) -> None:
        """The moves (those containing ``word``) numbered, in columns; more than ``limit`` are
        summed up by their first word, with the command that lists them."""
        rows = [(i, t) for i, t in enumerate(texts, 1) if word is None or word.lower() in t.lower()]
        if not rows:
            self.say(f"no legal move contains {word!r}")
            return
        if limit is not None and len(rows) > limit:
            self.summarise_moves(rows)
            return
        self.columns(rows, len(str(len(texts))))

    def columns(self, rows: list[tuple[int, str]], width: int) -> None:
        cells = [f"{i:>{width}}. {t}" for i, t in rows]
        cell = max(len(c) for c in cells) + 3
        per_line = max(1, (SCREEN_WIDTH - 2) // cell)
        for k in range(0, len(cells), per_line):
            self.say("  " + "".join(c.ljust(cell) for c in cells[k:k + per_line]).rstrip())

    def summarise_moves(self, rows: list[tuple[int, str]]) -> None:
        """Moves grouped by their first word: small groups listed, large ones counted."""
        groups: dict[str, list[tuple[int, str]]] = {}
        for row in rows:
            groups.setdefault(row[1].split()[0], []).append(row)
        small = [row for verb, group in groups.items() if len(group) <= 4 for row in group]
        if small:
            self.columns(small, len(str(rows[-1][0])))
        for verb, group in groups.items():
            if len(group) > 4:
                examples = ", ".join(t for _, t in group[:3])
                self.say(f"  {verb} ...: {plural(len(group), 'move')} (e.g. {examples})")
        sample = next((t for _, t in rows if len(t.split()) > 1), rows[0][1])
        self.say(f"  type a move (e.g. '{sample}'), or 'moves WORD' to list those containing WORD")

    def human_turn(self, mask: np.ndarray) -> int:
        raw, seat = self.raw, self.ns.seat
        legal = np.flatnonzero(mask)
        texts = [raw.action_to_text(int(a)) for a in legal]
        view = raw.view(seat)
        self.show_view(view)
        self.say(f"your moves ({len(texts)}):")
        self.list_moves(texts, limit=MAX_LISTED)
        while True:
            answer = self.ask(f"[player_{seat}] move> ").strip()
            if not answer:
                continue
            word, _, rest = answer.partition(" ")
            cmd = word.lower()
            if cmd in ("quit", "exit", "q"):
                raise QuitGame
            if cmd in ("help", "?", "h"):
                self.say(HELP)
                continue
            if cmd in ("view", "show", "table"):
                self.show_view(raw.view(seat))
                continue
            if cmd in ("moves", "list"):
                self.list_moves(texts, rest.strip() or None)
                continue
            if cmd == "hint":
                self.hint(mask, texts, legal)
                continue
            action = self.parse_answer(answer, legal, texts)
            if action is not None:
                self.say(f"you play: {raw.action_to_text(action)}")
                return action

    def parse_answer(self, answer: str, legal: np.ndarray, texts: list[str]) -> int | None:
        """The action id the answer names, or None after explaining why it is not a legal move."""
        if answer.lstrip("+-").isdigit():
            k = int(answer)
            if 1 <= k <= len(texts):
                return int(legal[k - 1])
            self.say(f"no move number {k}: choose 1..{len(texts)}, or type the move's text")
            return None
        try:
            action = self.raw.text_to_action(answer)
        except ValueError as e:
            self.say(f"not a move: {e}. Type a number from the list, the move's text, or 'help'.")
            return None
        if action in set(legal.tolist()):
            return action
        reason = ""
        try:
            reason = ": " + self.raw.game.illegal_reason(action)
        except Exception:  # the reason is a courtesy; the refusal stands without it
            reason = ""
        self.say(f"'{self.raw.action_to_text(action)}' is not legal now{reason}")
        return None

    def hint(self, mask: np.ndarray, texts: list[str], legal: np.ndarray) -> None:
        seat = self.ns.seat
        if self.hint_agent is None and self.hint_error is None:
            try:
                self.hint_agent = make_agent("heuristic", self.ns.game)
                self.hint_agent.reset(seat, 0)
            except ValueError as e:
                self.hint_error = str(e)
        if self.hint_agent is None:
            self.say(f"no hint available: {self.hint_error}")
            return
        obs = self.raw.observe(self.raw.possible_agents[seat])
        action = int(self.hint_agent.act(obs["observation"], mask.copy(), self.raw.view(seat)))
        k = int(np.searchsorted(legal, action)) + 1
        self.say(f"hint: {k}. {self.raw.action_to_text(action)}")

    def show_end(self, totals: dict[str, float]) -> None:
        raw, seat = self.raw, self.ns.seat
        view = raw.view(seat)
        self.show_view(view)
        truncated = any(raw.truncations.values())
        self.say(self.style.bold("Game over" + (" (stopped by the turn limit)" if truncated else "") + "."))
        scores, places = view.get("scores", []), view.get("places")
        for i, a in enumerate(raw.possible_agents):
            you = " (you)" if i == seat else ""
            if places:
                self.say(f"  {a + you:<18} place {places[i]}")
                continue
            score = number(scores[i]) if i < len(scores) else "-"
            self.say(f"  {a + you:<18} final score {score}")
        best = max(totals.values())
        winners = [a for a, r in totals.items() if r == best]
        if len(winners) == len(totals):
            self.say("A draw.")
        elif raw.possible_agents[seat] in winners:
            self.say("You win!" if len(winners) == 1 else "You share the win.")
        else:
            self.say(f"Winner: {' and '.join(winners)}.")
        revealed = view.get("revealed_hands")
        if revealed and not self.explained:
            self.say("hands:")
            for i, hand in enumerate(revealed):
                self.say(f"  player_{i}: {self.style.cards(hand) if hand else '(empty)'}")
        elif not self.explained:
            self.say("(the rules of this game do not reveal the other hands)")


def main(argv_or_namespace: Sequence[str] | argparse.Namespace | None = None, *,
         input_fn: Callable[[str], str] | None = None, out: TextIO | None = None) -> int:
    """Run one game; returns the exit status (0 played or left, 2 bad arguments, 130 after Ctrl-C)."""
    out = sys.stdout if out is None else out
    ns = _namespace(argv_or_namespace)
    try:
        session = Session(ns, input_fn if input_fn is not None else input, out)
    except ValueError as e:
        out.write(f"rummy-env play: {e}\n")
        return 2
    try:
        return session.run()
    except KeyboardInterrupt:
        out.write("\nYou left the game.\n")
        return INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
