"""The terminal player (``experiments/play.py``) driven by scripted answers through ``input_fn``."""
from __future__ import annotations

import argparse
import io
import re

import numpy as np
import pytest

from rummy_env.experiments import play
from rummy_env.experiments.play import main, new_events
from rummy_env.registry import GAMES

# Full games are played in the games with short episodes; the others are played for a few turns.
FULL_GAME = ["rummy", "tongits", "i_doubt_it"]


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

    def __init__(self, out: Capture, script=(), limit: int = 5000, pause_answer: str | None = None):
        self.out, self.script, self.limit, self.pause_answer = out, list(script), limit, pause_answer
        self.prompts = 0
        self.move_prompts = 0

    def __call__(self, prompt: str) -> str:
        self.prompts += 1
        self.move_prompts += "move>" in prompt
        if self.prompts > self.limit:
            raise AssertionError("the game did not end within the prompt limit")
        if self.pause_answer is not None and "press Enter" in prompt:
            self.out.write(prompt + self.pause_answer + "\n")
            return self.pause_answer
        if self.script:
            answer = self.script.pop(0)
            if isinstance(answer, BaseException):
                raise answer
        else:
            first = self.out.first_move
            answer = ("1", first.upper(), first.lower())[self.prompts % 3]
        self.out.write(prompt + answer + "\n")
        return answer


def run(args, script=(), limit=5000, pause_answer=None):
    out = Capture()
    answers = Scripted(out, script, limit, pause_answer)
    rc = main(args, input_fn=answers, out=out)
    return rc, out.getvalue(), answers


def test_new_events_follows_a_sliding_window():
    assert new_events([], ["a"]) == ["a"]
    assert new_events(["a", "b"], ["a", "b", "c"]) == ["c"]
    assert new_events(["a", "b", "c"], ["b", "c", "d", "e"]) == ["d", "e"]
    assert new_events(["a", "b"], ["a", "b"]) == []
    assert new_events(["a"], ["x", "y"]) == ["x", "y"]


@pytest.mark.parametrize("game", FULL_GAME)
def test_full_game_with_numbers_and_texts(game):
    rc, out, answers = run([game, "--seed", "4", "--opponents", "random"])
    assert rc == 0
    assert "Game over" in out and "Traceback" not in out
    assert answers.prompts > 3
    assert re.search(r"You win!|You share the win\.|Winner: player_\d|A draw\.", out)
    assert out.count("you play: ") == answers.move_prompts


@pytest.mark.parametrize("game", list(GAMES))
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


@pytest.mark.parametrize("game", list(GAMES))
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


@pytest.mark.parametrize("game", list(GAMES))
def test_end_of_input_and_interrupt_leave_cleanly(game):
    rc, out, _ = run([game, "--seed", "1"] + ["--opponents", "random"], [EOFError()])
    assert rc == 0 and "You left the game." in out
    rc, out, _ = run([game, "--seed", "1", "--opponents", "random"], [KeyboardInterrupt()])
    assert rc == 130 and "You left the game." in out


@pytest.mark.parametrize("game", list(GAMES))
def test_hint_names_a_legal_move_or_says_why_not(game):
    rc, out, _ = run([game, "--seed", "2", "--opponents", "random"], ["hint", "quit"])
    assert rc == 0
    m = re.search(r"^hint: (\d+)\. (.+)$", out, re.M)
    if m is None:
        assert "no hint available: no heuristic agent" in out
    else:
        listed = re.search(rf"(?:^|\s){m.group(1)}\. (.+?)(?:\s{{3,}}\d+\. |$)", out, re.M)
        assert listed is None or listed.group(1) == m.group(2)


@pytest.mark.parametrize("game", list(GAMES))
def test_other_seat_and_namespace(game):
    ns = argparse.Namespace(game=game, seat=1, opponents="random", seed=7)
    out = Capture()
    answers = Scripted(out, ["quit"])
    assert main(ns, input_fn=answers, out=out) == 0
    assert "you are player_1" in out.getvalue()


def test_bad_arguments_give_a_message_and_status_2():
    game = "rummy"
    for args, message in (
        (["nosuchgame"], "unknown game 'nosuchgame'"),
        ([game, "--seat", "17"], "--seat 17 is not a seat"),
        ([game, "--opponents", "wizard"], "unknown agent 'wizard'"),
        ([game, "--opponents", "random,random,random,random,random,random,random,random,random,random,random"],
         "--opponents lists 11 specs"),
    ):
        rc, out, answers = run(args)
        assert rc == 2 and message in out and answers.prompts == 0, (args, out)


ONE_ROUND = ["--option", "max_rounds=1", "--option", "target_score=0"]
INTERNAL_FIELD = re.compile(r"\b[a-z_]+=(True|False|None|-?\d+)\b")
"""An internal field shown as ``key=value`` (``rummy_possible=True``, ``caller=-1``)."""


def blocks_after(out: str, start: str) -> list[str]:
    """The text after each line starting with ``start``, up to the next prompt."""
    return [part.split("move>")[0] for part in out.split("\n" + start)[1:]]


def test_option_shortens_a_rummy_match_to_one_round():
    rc, out, _ = run(["rummy", "--seed", "4", "--opponents", "random", *ONE_ROUND])
    assert rc == 0 and "Game over" in out
    assert out.count("\nRound 1") == 1 and "\nRound 2" not in out
    assert "the match is over after 1 round" in out
    assert "press Enter" not in out  # no pause after the last round


def test_unknown_option_gives_a_message_and_status_2():
    rc, out, answers = run(["rummy", "--option", "no_such_option=1"])
    assert rc == 2 and "unknown option" in out and "no_such_option" in out and answers.prompts == 0


def test_rummy_round_end_is_explained_then_pauses_before_the_next_round():
    rc, out, _ = run(["rummy", "--seed", "5", "--opponents", "heuristic", "--option", "max_rounds=2",
                      "--option", "target_score=0"])
    assert rc == 0
    first, pause, deal, second = (out.index("\nRound 1"), out.index("press Enter for the next round"),
                                  out.index("round 2: "), out.index("\nRound 2"))
    assert first < pause < deal < second  # the next deal is shown after the pause
    result = out[first:pause]
    m = re.search(r"Round 1: (you|player_1) went out and scores? (\d+) points?\.", result)
    assert m, result
    loser_points = re.findall(r"^  (?:you|player_1) +[2-9TJQKA][CDHS].* = (\d+) points?$", result, re.M)
    assert [int(p) for p in loser_points] == [int(m.group(2))] or "rummy" in result
    assert re.search(r"scores: you \d+.*, player_1 \d+", result)


def test_quit_at_the_pause_leaves_the_game():
    rc, out, _ = run(["rummy", "--seed", "5", "--opponents", "heuristic", "--option", "max_rounds=2",
                      "--option", "target_score=0"], pause_answer="quit")
    assert rc == 0 and out.rstrip().endswith("You left the game.") and "\nRound 2" not in out


def test_tongits_hand_ends_show_every_hand_with_points_and_chips():
    rc, out, _ = run(["tongits", "--seed", "3", "--opponents", "random"])
    assert rc == 0
    for k in (1, 2, 3):
        start = out.index(f"\nHand {k}: ")
        result = out[start:start + 600]
        assert re.search(rf"Hand {k}: .*, so (you win|player_\d wins)\.", result)
        assert len(re.findall(r"^  (you|player_\d) +.* = \d+ points?$", result, re.M)) == 3
        assert "chips: you " in result
    assert not re.search(r"(draw_challenged|turn_cap|wins the hand (draw|stock|tongits|challenge))", out)


def test_contract_rummy_deal_end_shows_penalties_and_the_contract_in_words():
    rc, out, _ = run(["contract_rummy", "--seed", "2", "--opponents", "random", "--option", "deals=[1]",
                      "--option", "max_turns_per_deal=40"])
    assert rc == 0
    assert "contract 1: two sets of 3" in out
    result = out[out.index("\nDeal 1 (contract 1) ends: "):]
    assert re.search(r"penalty points .*\n  you \d+, player_1 \d+, player_2 \d+, player_3 \d+", result)


def test_ginny_o_end_shows_rack_penalties_and_the_board_has_a_legend():
    rc, out, _ = run(["ginny_o", "--seed", "3", "--opponents", "heuristic"])
    assert rc == 0 and "premium squares: y/g tile x2/x3" in out and "your rack (7 tiles): " in out
    result = out[out.index("The game is over"):]
    assert re.search(r"you -?\d+ - \d+ = -?\d+, player_1 -?\d+ - \d+ = -?\d+", result)


def test_i_doubt_it_table_shows_pile_claim_and_next_rank_and_sums_up_long_move_lists():
    rc, out, _ = run(["i_doubt_it", "--seed", "5", "--opponents", "heuristic"], limit=400)
    assert rc == 0
    tables = blocks_after(out, "=== I Doubt It")
    assert tables and all("stock" not in t and "discard pile" not in t for t in tables)
    assert all(re.search(r"^pile: \d+ cards? face down", t, re.M) for t in tables)
    assert any(re.search(r'^claim: player_\d played \d cards? saying "\w+ \w+" - doubt it or pass$', t, re.M)
               for t in tables)
    assert any(re.search(r"^next play must claim: (aces|twos|threes|fours|fives|sixes|sevens|eights|"
                         r"nines|tens|jacks|queens|kings) \(you hold \d\)$", t, re.M) for t in tables)
    for moves in blocks_after(out, "your moves ("):
        assert len(moves.strip().splitlines()) <= 6, moves  # 300+ moves fit an 80x24 screen
    assert re.search(r"(you|player_\d) got rid of every card first and wins?\.", out)
    assert "card(s)" not in out


def test_moves_word_lists_only_the_moves_containing_it():
    rc, out, _ = run(["i_doubt_it", "--seed", "3", "--opponents", "heuristic"], ["moves", "moves Q", "quit"])
    full = out[out.index("move> moves\n"):out.index("move> moves Q")]
    only_q = out[out.index("move> moves Q"):out.index("move> quit")]
    numbered = re.findall(r"\d+\. (play [^\n]+?)(?=\s{3,}\d+\.|\n)", only_q)
    assert numbered and all("Q" in m for m in numbered)
    assert len(re.findall(r"\d+\. play", full)) > 100


def test_own_draws_are_announced_and_the_others_stay_hidden():
    rc, out, _ = run(["rummy", "--seed", "4", "--opponents", "random", *ONE_ROUND])
    draws = re.findall(r"you play: draw stock\n(?:  .*\n)*?you draw ([2-9TJQKA][CDHS])\n", out)
    assert draws and len(draws) == out.count("you play: draw stock")
    after = out.split(f"you draw {draws[0]}\n", 1)[1].split("move>")[0]
    assert draws[0] in after.split("your hand")[1]  # the drawn card is in the hand shown next
    assert not re.search(r"player_1 draws? [2-9TJQKA][CDHS]", out)


@pytest.mark.parametrize("game", list(GAMES))
def test_status_shows_words_not_internal_fields(game):
    rc, out, _ = run([game, "--seed", "3", "--opponents", "random"], ["1", "1", "1", "1", "quit"])
    assert rc == 0
    assert not INTERNAL_FIELD.search(out), INTERNAL_FIELD.search(out)
    assert "#0" not in out and "card(s)" not in out and not re.search(r"\b1 (cards|tiles|points)\b", out)


def test_one_opponent_is_named_in_the_singular():
    _, out, _ = run(["rummy", "--seed", "1", "--opponents", "random"], ["quit"])
    assert "opponent player_1 (random)" in out and "opponents" not in out.splitlines()[0]
    _, out, _ = run(["i_doubt_it", "--seed", "1", "--opponents", "random"], ["quit"])
    assert "opponents player_1, player_2, player_3 (random)" in out


def test_cards_you_pick_up_are_named_to_you():
    rc, out, _ = run(["i_doubt_it", "--seed", "3", "--opponents", "heuristic"], limit=400)
    pickups = re.findall(r"^  player_0 takes the pile \((\d+) cards?\)\n(?:  .*\n)*?new in your hand: (.+)$", out, re.M)
    assert rc == 0 and pickups and len(pickups) == out.count("  player_0 takes the pile")
    assert all(int(n) == len(cards.split()) for n, cards in pickups)
