"""Play a game against the bots in the terminal: ``rummy-env play <game> [--seat N] [--opponents SPEC]``.

Each turn shows your view (your cards sorted and grouped by suit, the melds on the table with
their owners, the discard pile, hand sizes and scores; Ginny-O's board through the game's text
render) and the legal moves, numbered and as text. Answer with a number or with the move's text in
any case (``discard 7h``, ``meld 10h jh qh``); ``help``, ``hint`` (what the rule-based agent would
play), ``moves [WORD]`` (list every legal move, or those containing WORD), ``view`` and ``quit`` also
work. A bad answer gets a message and a new prompt. At the end the result and the hands (where the
rules reveal them) are shown.

Opponents are agent specs (``random``, ``heuristic``, ``ppo:PATH``; see :mod:`agents.registry`):
one spec for every opponent, or one per opponent separated by commas.

Only what your seat may know is shown: other seats' moves are reported through the public events of
your own view, never through their action texts (which can name hidden cards).

From Python: ``main(["rummy", "--seat", "0"], input_fn=..., out=...)`` (the tests drive it this way).
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import Callable, Sequence, TextIO

import numpy as np

from agents.registry import AGENT_SPECS, make_agent
from rummy_env.registry import GAMES, make_env

MAX_LISTED = 40
"""Moves listed each turn; ``moves`` lists all of them."""

STANDARD_KEYS = frozenset({
    "game", "seat", "num_players", "to_play", "phase", "done", "hand", "hand_sizes", "scores",
    "legal_actions", "melds", "discard", "stock_size", "events", "revealed_hands", "board"})
"""Keys every view gives (``rummy_env.base.Game.view``); other simple values are shown as
``key=value``."""

SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
SUIT_SYMBOL = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}

HELP = """\
Answer with:
  <number>        the move with that number in the list
  <move text>     the move itself, any case, e.g. 'discard 7h', 'meld 10h jh qh'
  moves [WORD]    list every legal move (or only those containing WORD)
  hint            what the rule-based agent would play here
  view            show the table again
  help            this text
  quit            leave the game"""


class QuitGame(Exception):
    """The person asked to leave (``quit`` or end of input)."""


def add_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The options of ``play`` (used by ``rummy-env play`` and ``python -m experiments.play``)."""
    parser.add_argument("game", help=f"one of: {', '.join(GAMES)}")
    parser.add_argument("--seat", type=int, default=0, help="your seat, 0-based (default 0)")
    parser.add_argument("--opponents", default="heuristic",
                        help=f"agent spec for the other seats ({' | '.join(AGENT_SPECS)}); one spec "
                             "for all, or one per opponent separated by commas (default heuristic)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the deal and the bots")
    parser.add_argument("--players", type=int, default=None,
                        help="number of players, for games that allow several")
    parser.add_argument("--no-color", action="store_true", help="plain text, no ANSI colours")
    return parser


def build_parser() -> argparse.ArgumentParser:
    return add_arguments(argparse.ArgumentParser(
        prog="rummy-env play", description="Play a rummy_env game against bots in the terminal."))


def _namespace(argv_or_namespace: Sequence[str] | argparse.Namespace | None) -> argparse.Namespace:
    if isinstance(argv_or_namespace, argparse.Namespace):
        ns = argv_or_namespace
        for key, default in (("seat", 0), ("opponents", "heuristic"), ("seed", None),
                             ("players", None), ("no_color", False)):
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


def format_view(view: dict, style: Style, board_text: str | None = None) -> str:
    """The seat's view as text: players, stock and discard, melds by owner, the hand by suit."""
    seat, to_play = view.get("seat", 0), view.get("to_play", -1)
    lines = []
    state = "game over" if view.get("done") else f"phase: {view.get('phase')}"
    lines.append(style.bold(f"=== {view.get('game')} | you are player_{seat} | {state} ==="))
    if board_text:
        lines.append(board_text.rstrip())
    sizes, scores = view.get("hand_sizes", []), view.get("scores", [])
    for i in range(int(view.get("num_players", len(sizes)))):
        who = f"player_{i}" + (" (you)" if i == seat else "")
        turn = "  <- to play" if i == to_play and not view.get("done") else ""
        size = sizes[i] if i < len(sizes) else "-"
        score = scores[i] if i < len(scores) else "-"
        if isinstance(score, float) and score.is_integer():
            score = int(score)
        lines.append(f"  {who:<18} {size:>3} cards   score {score}{turn}")
    extra = [f"{k}={v}" for k, v in view.items()
             if k not in STANDARD_KEYS and isinstance(v, (bool, int, float, str))]
    if extra:
        lines.append("  " + "  ".join(extra))
    discard = list(view.get("discard", []) or [])
    pile = style.cards(discard[-12:]) if discard else "(empty)"
    more = f"... {len(discard) - 12} more below, " if len(discard) > 12 else ""
    lines.append(f"stock: {view.get('stock_size', 0)}   discard pile ({more}top card last): {pile}")
    melds = list(view.get("melds", []) or [])
    if melds:
        lines.append("melds on the table:")
        owners: dict = {}
        for m in melds:
            owners.setdefault(m.get("owner"), []).append(m)
        for owner in sorted(owners, key=lambda o: (not isinstance(o, int), o if isinstance(o, int) else 0)):
            name = f"player_{owner}" if isinstance(owner, int) and owner >= 0 else "table"
            parts = [f"#{m.get('index')}: {style.cards(m.get('cards', []))}" for m in owners[owner]]
            lines.append(f"  {name:<10} " + "   ".join(parts))
    hand = list(view.get("hand", []) or [])
    lines.append(style.bold(f"your hand ({len(hand)} cards):"))
    for label, cards in group_by_suit(hand):
        lines.append(f"  {label:<11} {style.cards(cards)}")
    return "\n".join(lines)


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
        self.ns = ns
        self.input_fn = input_fn
        self.out = out
        colour = not ns.no_color and hasattr(out, "isatty") and out.isatty() and "NO_COLOR" not in os.environ
        self.style = Style(colour)
        options = {} if ns.players is None else {"num_players": ns.players}
        try:
            self.env = make_env(ns.game, **options)
        except ModuleNotFoundError as e:
            if not (e.name or "").startswith("rummy_env."):
                raise
            raise ValueError(f"game {ns.game!r} is not available in this build ({e.name} is missing)") from None
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

    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")

    def ask(self, prompt: str) -> str:
        try:
            return self.input_fn(prompt)
        except EOFError:
            raise QuitGame from None

    # -- one game ---------------------------------------------------------------------------
    def run(self) -> int:
        ns, env, raw = self.ns, self.env, self.raw
        env.reset(seed=ns.seed)
        base_seed = ns.seed if ns.seed is not None else int(np.random.SeedSequence().entropy % 2**31)
        for s, agent in self.agents.items():
            agent.reset(s, base_seed + 1000 + s)
        totals = {a: 0.0 for a in raw.possible_agents}
        human = raw.possible_agents[ns.seat]
        opp = ", ".join(f"player_{s}: {spec}" for s, spec in zip(self.agents, self.opponent_specs))
        self.say(self.style.bold(f"{raw.metadata['name']}: you are {human}; opponents {opp}. "
                                 "Type 'help' for help."))
        self.events = list(raw.view(ns.seat).get("events", []))
        for e in self.events:
            self.say(self.style.dim("  " + e))
        try:
            for agent in env.agent_iter():
                obs, _, term, trunc, _ = env.last()
                if term or trunc:
                    env.step(None)
                    continue
                seat = raw.agent_name_mapping[agent]
                if seat == ns.seat:
                    action = self.human_turn(obs["action_mask"])
                else:
                    action = self.agents[seat].act(obs["observation"], obs["action_mask"], raw.view(seat))
                env.step(action)
                for a in raw.possible_agents:
                    totals[a] += raw.rewards.get(a, 0.0)
                self.report_events()
        except QuitGame:
            self.say("You left the game.")
            return 0
        self.show_end(totals)
        return 0

    def report_events(self) -> None:
        events = list(self.raw.view(self.ns.seat).get("events", []))
        for e in new_events(self.events, events):
            self.say(self.style.dim("  " + e))
        self.events = events

    def board_text(self, view: dict) -> str | None:
        if "board" not in view:
            return None
        return self.raw.game.render_text(self.ns.seat)

    def show_view(self, view: dict) -> None:
        self.say()
        self.say(format_view(view, self.style, self.board_text(view)))

    def list_moves(self, texts: list[str], word: str | None = None, limit: int | None = None) -> None:
        rows = [(i, t) for i, t in enumerate(texts, 1) if word is None or word.lower() in t.lower()]
        if not rows:
            self.say(f"no legal move contains {word!r}")
            return
        shown = rows if limit is None else rows[:limit]
        width = len(str(len(texts)))
        for i, t in shown:
            self.say(f"  {i:>{width}}. {t}")
        if len(shown) < len(rows):
            self.say(f"  ... and {len(rows) - len(shown)} more: type 'moves' to list all, "
                     "or 'moves WORD' to filter")

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
        self.say(self.style.bold("Game over" + (" (stopped by the turn cap)" if truncated else "") + "."))
        scores = view.get("scores", [])
        for i, a in enumerate(raw.possible_agents):
            you = " (you)" if i == seat else ""
            score = scores[i] if i < len(scores) else "-"
            self.say(f"  {a + you:<18} score {score}   reward {totals[a]:+.3g}")
        best = max(totals.values())
        winners = [a for a, r in totals.items() if r == best]
        if len(winners) == len(totals):
            self.say("A draw.")
        elif raw.possible_agents[seat] in winners:
            self.say("You win!" if len(winners) == 1 else "You share the win.")
        else:
            self.say(f"Winner: {', '.join(winners)}.")
        revealed = view.get("revealed_hands")
        if revealed:
            self.say("hands:")
            for i, hand in enumerate(revealed):
                self.say(f"  player_{i}: {self.style.cards(hand) if hand else '(empty)'}")
        else:
            self.say("(the rules of this game do not reveal the other hands)")


def main(argv_or_namespace: Sequence[str] | argparse.Namespace | None = None, *,
         input_fn: Callable[[str], str] | None = None, out: TextIO | None = None) -> int:
    """Run one game; returns the exit status (0 played or left, 2 bad arguments)."""
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
        return 0


if __name__ == "__main__":
    sys.exit(main())
