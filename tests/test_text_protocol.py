"""The text protocol (issue 44): ``env.unwrapped.prompt(agent)`` and ``env.unwrapped.parse_reply``."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from rummy_env.registry import GAMES, make_env, make_raw_env
from rummy_env.text_protocol import PROMPT_LIMIT, play_line
from rummy_env.text_rules import RULES

MOVE_ORDER_FREE = ("meld", "secret", "play")
"""Move words whose cards or ranks may be given in any order (shared contract 2)."""


def variant(text: str) -> str:
    """The move written otherwise but meaning the same: lower case, and the cards or ranks of a meld,
    secret or play reversed."""
    words = text.split()
    if words[0] in MOVE_ORDER_FREE:
        words = words[:1] + words[:0:-1]
    return " ".join(words).lower()


def covered_by_play_line(text: str, line: str, hand: list[str]) -> bool:
    """Whether the I Doubt It play ``text`` is one the grouped ``line`` allows: at most as many
    cards as it says, each rank at most as often as the hand holds it."""
    ranks = Counter(text.split()[1:])
    most = int(line.split("1 to ")[1].split()[0])
    held = Counter(card[:-1] for card in hand)
    return sum(ranks.values()) <= most and all(held[r] >= k for r, k in ranks.items())


@pytest.mark.parametrize("game", list(GAMES))
def test_every_legal_move_of_random_play_round_trips_through_its_prompt_line(game):
    """At every decision of a random game: the prompt states the rules, lists every legal move on a
    line ``- <text>`` (or, for I Doubt It's plays, on the one play line that allows it, and for
    Ginny-O's placements, on its square's line among its tiles), stays
    within PROMPT_LIMIT, and ``parse_reply`` of each move in brackets, as written and as a variant,
    gives its action id."""
    env = make_raw_env(game)
    env.reset(seed=5600000)
    rng = np.random.default_rng(0)
    decisions = 0
    while not env.game.done and decisions < 150:
        seat = env.game.current_player
        agent = env.possible_agents[seat]
        view = env.view(agent)
        text = env.prompt(agent)
        assert text.startswith(RULES[game]) and len(text) <= PROMPT_LIMIT
        lines = set(text.splitlines())
        plays = [line for line in lines if line.startswith("- play <ranks>")]
        legal = np.flatnonzero(env.observe(agent)["action_mask"])
        legal_plays = [m for m in view["legal_actions"] if m.startswith("play ")]
        assert plays == ([play_line(legal_plays, view["hand"])] if legal_plays else [])
        for action, move in zip(legal, view["legal_actions"]):
            if move.startswith("play "):
                assert covered_by_play_line(move, plays[0], view["hand"]), (move, plays)
            elif move.startswith("place "):
                _, tile, _, square = move.split()
                line = next(l for l in lines if l.startswith(f"- place <tile> at {square}, "))
                assert tile in line.split("one of: ")[1].split(), (move, line)
            else:
                assert f"- {move}" in lines, move
            assert env.parse_reply(agent, f"I choose [{move}]") == action
            assert env.parse_reply(seat, f"[pass] no, [{variant(move)}]") == action
        env.step(int(rng.choice(legal)))
        decisions += 1
    assert decisions > 20


def test_the_play_line_allows_no_play_the_hand_cannot_make():
    """I Doubt It: a play of more copies of a rank than the hand holds, or of more cards than the
    line says, is not covered by the play line (the check above can fail)."""
    env = make_raw_env("i_doubt_it")
    env.reset(seed=5600001)
    view = env.view(env.agent_selection)
    line = [l for l in env.prompt(env.agent_selection).splitlines() if l.startswith("- play")][0]
    held = Counter(card[:-1] for card in view["hand"])
    missing = next(r for r in "A23456789TJQK" if held[r] == 0)
    assert not covered_by_play_line(f"play {missing}", line, view["hand"])
    some = next(r for r in held)
    assert not covered_by_play_line("play " + " ".join([some] * (held[some] + 1)), line, view["hand"])
    assert not covered_by_play_line("play " + " ".join([some] * 5), line, view["hand"])


def test_parse_reply_reads_the_last_bracket_and_refuses_like_text_to_action():
    env = make_env("rummy").unwrapped
    env.reset(seed=5600002)
    agent = env.agent_selection
    assert env.parse_reply(agent, "[take discard] or rather [DRAW   Stock]") == env.text_to_action("draw stock")
    for bad in ("draw a card", "[discard 1S]", "[]", "[meld 7C 7D]"):
        inner = bad[bad.find("[") + 1:bad.rfind("]")] if "[" in bad else None
        with pytest.raises(ValueError) as got:
            env.parse_reply(agent, bad)
        if inner is not None:
            with pytest.raises(ValueError) as direct:
                env.text_to_action(inner)
            assert str(got.value) == str(direct.value)
        else:
            assert "no move in square brackets" in str(got.value)
    with pytest.raises(ValueError, match="a reply is a string"):
        env.parse_reply(agent, None)
    with pytest.raises(ValueError, match="no agent "):
        env.parse_reply("player_9", "[draw stock]")


def test_a_long_reply_without_a_move_is_shortened_in_the_error():
    env = make_raw_env("tongits")
    env.reset(seed=5600003)
    with pytest.raises(ValueError, match=r"\.\.\.' is not|\.\.\.': the reply has no move") as got:
        env.parse_reply(0, "x" * 5000)
    assert len(str(got.value)) < 400


def test_only_the_seat_to_act_gets_a_prompt_and_an_unknown_agent_none():
    env = make_raw_env("rummy")
    env.reset(seed=5600004)
    other = next(a for a in env.possible_agents if a != env.agent_selection)
    with pytest.raises(ValueError, match=rf"{other} is not to act"):
        env.prompt(other)
    for bad in ("player_7", 2, -1, True, None):
        with pytest.raises(ValueError, match="no agent "):
            env.prompt(bad)


@pytest.mark.parametrize("game", list(GAMES))
def test_rules_summaries_are_a_few_hundred_words_and_cite_rule_ids(game):
    words = len(RULES[game].split())
    assert 200 <= words <= 500, words
    assert "-1" in RULES[game] or "-2" in RULES[game]
