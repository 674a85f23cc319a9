"""The terminal player (``experiments/play.py``) driven by scripted answers through ``input_fn``."""
from __future__ import annotations

import argparse
import importlib.util
import io
import re

import numpy as np
import pytest

from experiments import play
from experiments.play import format_view, group_by_suit, main, new_events
from rummy_env.registry import GAMES

AVAILABLE = [g for g, mod in GAMES.items() if importlib.util.find_spec(mod) is not None]
# Full games are played in the games with short episodes; the others are played for a few turns.
FULL_GAME = [g for g in ("rummy", "tongits", "i_doubt_it") if g in AVAILABLE]


def games_param(names):
    return pytest.mark.parametrize("game", names or [pytest.param("none", marks=pytest.mark.skip(
        reason="no such game environment exists yet"))])


class Capture(io.StringIO):
    """The player's output; remembers a legal move of the latest move list: the one numbered 1, or
    the first example of a summed-up list."""

    first_move = None

    def write(self, text: str) -> int:
        if text.startswith("your moves ("):
            self.first_move = None
        m = re.match(r"^\s+1\. (.+?)(?:\s{3,}\d+\. .*)?$", text)
        if m:
            self.first_move = m.group(1)
        example = re.search(r"moves? \(e\.g\. ([^,)]+)", text)
        if example and self.first_move is None:
            self.first_move = example.group(1)
        return super().write(text)


class Scripted:
    """Answers the prompts: first the given lines, then the first listed move, alternating its
    number, its text in upper case and its text in lower case."""

    def __init__(self, out: Capture, script=(), limit: int = 5000):
        self.out, self.script, self.limit = out, list(script), limit
        self.prompts = 0
        self.move_prompts = 0

    def __call__(self, prompt: str) -> str:
        self.prompts += 1
        self.move_prompts += "move>" in prompt
        if self.prompts > self.limit:
            raise AssertionError("the game did not end within the prompt limit")
        if self.script:
            answer = self.script.pop(0)
            if isinstance(answer, BaseException):
                raise answer
        else:
            first = self.out.first_move
            answer = ("1", first.upper(), first.lower())[self.prompts % 3]
        self.out.write(prompt + answer + "\n")
        return answer


def run(args, script=(), limit=5000):
    out = Capture()
    answers = Scripted(out, script, limit)
    rc = main(args, input_fn=answers, out=out)
    return rc, out.getvalue(), answers


def test_new_events_follows_a_sliding_window():
    assert new_events([], ["a"]) == ["a"]
    assert new_events(["a", "b"], ["a", "b", "c"]) == ["c"]
    assert new_events(["a", "b", "c"], ["b", "c", "d", "e"]) == ["d", "e"]
    assert new_events(["a", "b"], ["a", "b"]) == []
    assert new_events(["a"], ["x", "y"]) == ["x", "y"]


def test_group_by_suit_keeps_order_and_puts_jokers_last():
    groups = group_by_suit(["3C", "9C", "TD", "2S", "JK", "KS"])
    assert [cards for _, cards in groups] == [["3C", "9C"], ["TD"], ["2S", "KS"], ["JK"]]
    assert groups[0][0].endswith("clubs") and groups[-1][0] == "jokers"


def test_format_view_shows_melds_by_owner_and_colours_red_cards():
    view = {"game": "rummy_v0", "seat": 1, "num_players": 2, "to_play": 1, "phase": "play", "done": False,
            "hand": ["AC", "9H"], "hand_sizes": [5, 2], "scores": [3.0, 0],
            "melds": [{"index": 0, "owner": 0, "cards": ["7D", "8D", "9D"]}], "discard": ["KS"],
            "stock_size": 20, "events": []}
    text = format_view(view, play.Style(False))
    assert "player_0   @0: 7D 8D 9D" in text and "player_1 (you)" in text and "score 3" in text
    assert "discard pile (top card last): KS" in text and "stock: 20 cards" in text
    coloured = format_view(view, play.Style(True))
    assert "\033[31m9H\033[0m" in coloured and "\033[31mAC" not in coloured


@games_param(FULL_GAME)
def test_full_game_with_numbers_and_texts(game):
    rc, out, answers = run([game, "--seed", "4", "--opponents", "random"])
    assert rc == 0
    assert "Game over" in out and "Traceback" not in out
    assert answers.prompts > 3
    assert re.search(r"You win!|You share the win\.|Winner: player_\d|A draw\.", out)
    assert out.count("you play: ") == answers.move_prompts


@games_param(AVAILABLE)
def test_bad_answers_get_a_message_and_a_new_prompt(game):
    script = ["", "help", "  frobnicate the cards ", "0", "9999", "-3", "discard ZZ", "moves", "view",
              "moves nosuchword", "quit"]
    rc, out, answers = run([game, "--seed", "1", "--opponents", "random"], script)
    assert rc == 0 and "Traceback" not in out
    assert "Answer with:" in out
    assert "not a move: " in out and "frobnicate" in out
    assert "no move number 0" in out and "no move number 9999" in out
    assert "no legal move contains 'nosuchword'" in out
    assert out.count("you play:") == 0
    assert out.rstrip().endswith("You left the game.")
    assert answers.prompts == len(script)


@games_param(AVAILABLE)
def test_illegal_move_text_is_refused_with_its_reason(game):
    """A well-formed move that is not legal now is named and refused; the game goes on."""
    out = io.StringIO()
    ns = argparse.Namespace(game=game, seat=0, opponents="random", seed=1, players=None, no_color=True)
    refused = []

    def answer(prompt):
        if refused:
            return "quit"
        raw = session.raw
        mask = raw.game.legal_mask()
        refused.append(raw.action_to_text(int(np.flatnonzero(mask == 0)[0])))
        return refused[0].swapcase()

    session = play.Session(ns, answer, out)
    assert session.run() == 0
    text = out.getvalue()
    assert f"'{refused[0]}' is not legal now: " in text and "you play:" not in text


@games_param(AVAILABLE)
def test_end_of_input_and_interrupt_leave_cleanly(game):
    rc, out, _ = run([game, "--seed", "1"] + ["--opponents", "random"], [EOFError()])
    assert rc == 0 and "You left the game." in out
    rc, out, _ = run([game, "--seed", "1", "--opponents", "random"], [KeyboardInterrupt()])
    assert rc == 130 and "You left the game." in out


@games_param(AVAILABLE)
def test_hint_names_a_legal_move_or_says_why_not(game):
    rc, out, _ = run([game, "--seed", "2", "--opponents", "random"], ["hint", "quit"])
    assert rc == 0
    m = re.search(r"^hint: (\d+)\. (.+)$", out, re.M)
    if m is None:
        assert "no hint available: no heuristic agent" in out
    else:
        listed = re.search(rf"(?:^|\s){m.group(1)}\. (.+?)(?:\s{{3,}}\d+\. |$)", out, re.M)
        assert listed is None or listed.group(1) == m.group(2)


@games_param(AVAILABLE)
def test_other_seat_and_namespace(game):
    ns = argparse.Namespace(game=game, seat=1, opponents="random", seed=7)
    out = Capture()
    answers = Scripted(out, ["quit"])
    assert main(ns, input_fn=answers, out=out) == 0
    assert "you are player_1" in out.getvalue()


def test_bad_arguments_give_a_message_and_status_2():
    game = AVAILABLE[0] if AVAILABLE else "rummy"
    for args, message in (
        (["nosuchgame"], "unknown game 'nosuchgame'"),
        ([game, "--seat", "17"], "--seat 17 is not a seat"),
        ([game, "--opponents", "wizard"], "unknown agent 'wizard'"),
        ([game, "--opponents", "random,random,random,random,random,random,random,random,random,random,random"],
         "--opponents lists 11 specs"),
    ):
        if not AVAILABLE and args[0] != "nosuchgame":
            continue
        rc, out, answers = run(args)
        assert rc == 2 and message in out and answers.prompts == 0, (args, out)
