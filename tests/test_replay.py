"""Replays (issue 7): a logged game rebuilt from its seed + options + action texts reproduces its
returns; a log that does not match is caught."""
from __future__ import annotations

import copy

import pytest

from rummy_env.experiments import io
from rummy_env.experiments.replay import load_game, replay_game
from rummy_env.experiments.tournament import TournamentConfig, run_tournament

GAME = "rummy"


@pytest.fixture(scope="module")
def log(tmp_path_factory):
    out = tmp_path_factory.mktemp("replay")
    config = TournamentConfig(game=GAME, agents=("random", "random"), games=6, seed=7,
                              options={"max_rounds": 2, "reward_mode": "zero_sum"})
    run_tournament(config, out_dir=out, progress=False)
    return out / "games.jsonl"


def test_replay_reproduces_recorded_returns(log):
    """Every logged game, replayed through the AEC API from its seed, options and action texts,
    ends with exactly the recorded returns after exactly the recorded number of actions."""
    records = io.read_jsonl(log)
    assert len(records) == 6
    for rec in records:
        result = replay_game(rec)
        assert result.ok, result.problems
        assert result.steps == len(rec["actions"])
        assert result.returns == pytest.approx(rec["returns"])
    assert sum(any(r != 0 for r in rec["returns"]) for rec in records) >= 3  # not all dead rounds


def test_replay_renders_every_step(log):
    """With a ``show`` callback the replay emits the ansi table before every action, the action
    line, and the final table."""
    rec = load_game(str(log), 3)
    lines = []
    result = replay_game(rec, show=lines.append)
    assert result.ok
    actions = [line for line in lines if line.startswith("step ")]
    assert len(actions) == len(rec["actions"])
    assert actions[0].startswith("step 0: player_") and actions[0].rstrip().endswith(rec["actions"][0])
    assert len(lines) == 2 * len(rec["actions"]) + 1
    assert all(isinstance(line, str) and line for line in lines)


def test_replay_detects_a_wrong_log(log):
    """Changed returns, a changed action, a missing action and an extra action are all reported."""
    rec = load_game(str(log), 0)

    bad = copy.deepcopy(rec)
    bad["returns"][0] += 1
    assert any("returns differ" in p for p in replay_game(bad).problems)

    bad = copy.deepcopy(rec)
    bad["actions"] = bad["actions"][:-1]
    assert any("the log ends after" in p for p in replay_game(bad).problems)

    bad = copy.deepcopy(rec)
    bad["actions"].append(bad["actions"][-1])
    assert any("the game ended after" in p for p in replay_game(bad).problems)

    bad = copy.deepcopy(rec)
    assert bad["actions"][0].startswith(("draw", "take"))  # a turn starts in the draw phase (RM rules)
    bad["actions"][0] = "discard 2C"
    assert any("was refused" in p for p in replay_game(bad).problems)


def test_replay_of_other_seed_fails(log):
    """The seed matters: the same actions on another deal do not replay."""
    rec = load_game(str(log), 1)
    rec["seed"] += 1
    assert not replay_game(rec).ok


def test_load_game_names_missing_index(log):
    with pytest.raises(ValueError, match="no game with index 99 .*6 games logged, indices 0..5"):
        load_game(str(log), 99)
