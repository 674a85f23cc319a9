"""Play a game against the bots in the terminal: ``rummy-env play <game> [--seat N] [--opponents SPEC]``.

Each turn shows your view as :func:`rummy_env.render.view_text` draws it (the one text layout,
also ``render_mode="ansi"`` and the replay's: your cards sorted and grouped by suit, the melds on the
table with their owners and ``@k`` numbers, the discard pile, hand sizes, scores and the game's state
in words; Ginny-O's board with a legend; I Doubt It's pile, pending claim and the rank due) and the
legal moves, numbered and as text, in columns or summed up when there are many. Answer with a number or with the move's text in
any case (``discard 7h``, ``meld 10h jh qh``); ``help``, ``hint`` (what the rule-based agent would
play), ``moves [WORD]`` (list every legal move, or those containing WORD), ``view`` and ``quit`` also
work. A bad answer gets a message and a new prompt. Your own draws are announced to you ("you draw
7H"); the others' draws stay hidden. Every end of a hand, round or deal is explained in words (who
won and how, the hands the rules reveal with their points, the score changes), then the game waits
for Enter before the next hand. Long move lists are summed up; ``moves WORD`` lists them.

Environment options go as ``--option KEY=VALUE`` (e.g. ``--option target_score=50`` for a shorter
Rummy match), read by :mod:`rummy_env.experiments.options` as in every other command.

Opponents are agent specs (``random``, ``heuristic``, ``ppo``, ``ppo:PATH``, ``ismcts``, ``pimc``;
see :mod:`rummy_env.agents.registry`, ``rummy-env agents``): one spec for every opponent, or one per
opponent separated by commas. A bot that takes longer than half a second over a move shows a
"player_1 is thinking..." line.

Only what your seat may know is shown: other seats' moves are reported through the public events of
your own view, never through their action texts (which can name hidden cards).

From Python: ``main(["rummy", "--seat", "0"], input_fn=..., out=...)`` (the tests drive it this way).
"""
from __future__ import annotations

import argparse
import re
import sys
import threading
from collections import Counter
from typing import Callable, Sequence, TextIO

import numpy as np

from rummy_env.agents.registry import AGENT_SPECS, make_agent
from rummy_env.experiments.options import add_option_argument, parse_env_options
from rummy_env.experiments.tournament import agent_move
from rummy_env.registry import GAMES, make_env
from rummy_env.render import (MAX_LISTED, TextStyle, move_lines, number, plural, seat_name, title, use_colour,
                              view_text)

INTERRUPTED = 130
"""Exit status after Ctrl-C (128 + SIGINT), as shells report it."""
THINKING_AFTER = 0.5
"""Seconds a bot may take over a move before the table says that it is thinking."""

HAND_WORD = {"rummy": "round", "tongits": "hand", "contract_rummy": "deal"}
"""What each game calls one deal of the cards (its rules' word)."""
NEW_HAND_EVENT = re.compile(r"^round \d+: ")
"""An event that opens the next round (Rummy's deal): shown after the last round's result."""

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


def hand_result(view: dict, scores_before: Sequence, style: TextStyle) -> list[str]:
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
        self.style = TextStyle(not ns.no_color and use_colour(out))
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
            self.agents[s] = make_agent(spec, ns.game, options)
        self.thinking_after = THINKING_AFTER
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
                    action = self.bot_move(seat)
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

    def bot_move(self, seat: int) -> int:
        """The move of the bot in ``seat``; a line says that it is thinking once it has taken
        longer than ``thinking_after`` seconds."""
        line = self.style.dim(f"  {seat_name(seat, self.ns.seat)} is thinking...")
        timer = threading.Timer(self.thinking_after, self.say, [line])
        timer.daemon = True
        timer.start()
        try:
            return agent_move(self.agents[seat], self.raw, seat)
        finally:
            timer.cancel()
            timer.join()

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

    def show_view(self, view: dict) -> None:
        self.say()
        self.say(view_text(view, self.style.colour))

    def list_moves(self, texts: list[str], word: str | None = None, limit: int | None = None) -> None:
        """The moves (those containing ``word``) numbered, in columns; more than ``limit`` are
        summed up by their first word, with the command that lists them."""
        rows = [(i, t) for i, t in enumerate(texts, 1) if word is None or word.lower() in t.lower()]
        if not rows:
            self.say(f"no legal move contains {word!r}")
            return
        for line in move_lines(rows, limit=limit):
            self.say(line)
        if limit is not None and len(rows) > limit:
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


if __name__ == "__main__":  # runs as `rummy-env play`
    from rummy_env.experiments.cli import run_as_command
    sys.exit(run_as_command("play"))
