"""The ``rummy-env`` command line (issue 7): subcommands, help, one-line errors with exit status 2."""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

import pytest

from experiments.cli import main, parse_option

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(argv, capsys):
    rc = main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def assert_one_line_error(rc, err, *words):
    assert rc == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    for w in words:
        assert w in lines[0], (w, lines[0])


@pytest.mark.parametrize("argv,words", [
    (["tournament", "--game", "poker"], ["unknown game 'poker'", "rummy, tongits"]),
    (["tournament", "--game", "rummy", "--agents", "random,genius"], ["unknown agent 'genius'", "ppo:PATH"]),
    (["tournament", "--game", "rummy", "--agents", "random,ppo:/no/such/model.pt"], ["no such checkpoint"]),
    (["tournament", "--game", "rummy", "--agents", "random", "--option", "num_players=9"], ["bad option", "num_players"]),
    (["tournament", "--game", "rummy", "--agents", "random", "--option", "ace_high=maybe"], ["bad option", "ace_high"]),
    (["tournament", "--game", "rummy", "--agents", "random", "--option", "colour=red"], ["bad option", "colour"]),
    (["tournament", "--game", "rummy", "--agents", "random", "--option", "render_mode=human"], ["render_mode"]),
    (["tournament", "--game", "rummy", "--option", "num_players"], ["bad --option 'num_players'", "key=value"]),
    (["tournament", "--game", "rummy", "--games", "0"], ["--games must be at least 1"]),
    (["tournament", "--game", "rummy", "--workers", "two"], ["--workers must be an integer"]),
    (["tournament"], ["--game"]),
    (["replay", "/no/such/games.jsonl"], ["no such file"]),
    (["play", "poker"], ["unknown game 'poker'"]),
    (["play", "rummy", "--opponents", "genius"], ["unknown agent 'genius'"]),
    (["juggle"], ["invalid choice: 'juggle'"]),
    ([], ["COMMAND"]),
])
def test_bad_arguments_give_one_line_and_status_2(argv, words, capsys):
    rc, _, err = run(argv, capsys)
    assert_one_line_error(rc, err, *words)


def test_parse_option_types():
    assert parse_option("num_players=3") == ("num_players", 3)
    assert parse_option("ace_high=True") == ("ace_high", True)
    assert parse_option("ace_high=false") == ("ace_high", False)
    assert parse_option("ratio=0.5") == ("ratio", 0.5)
    assert parse_option("reward_mode=zero_sum") == ("reward_mode", "zero_sum")
    assert parse_option("target_score=none") == ("target_score", None)
    assert parse_option("deals=[1, 2]") == ("deals", [1, 2])
    with pytest.raises(argparse.ArgumentTypeError, match="not valid JSON"):
        parse_option("deals=[1,")


@pytest.mark.parametrize("command", ["tournament", "replay", "demo", "play"])
def test_help_of_each_subcommand(command, capsys):
    with pytest.raises(SystemExit) as exc:
        main([command, "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: rummy-env {command}")


def test_top_level_help_lists_every_command(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    for command in ["tournament", "replay", "demo", "bench", "play", "train", "imitate"]:
        assert f"    {command}" in out


@pytest.mark.parametrize("command", ["train", "imitate"])
def test_forwarded_help_names_the_command(command, capsys):
    pytest.importorskip("torch")
    with pytest.raises(SystemExit) as exc:
        main([command, "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: rummy-env {command}") and "--game" in out


def test_tournament_then_replay(tmp_path, capsys):
    """A small tournament writes its files and prints the table; `replay` of one of its games
    reproduces the returns (exit 0), an index that is not in the log is a one-line error."""
    out = tmp_path / "t"
    rc, stdout, _ = run(["tournament", "--game", "rummy", "--agents", "random,random", "--games", "4",
                         "--workers", "1", "--seed", "9", "--option", "max_rounds=1", "--out", str(out),
                         "--quiet"], capsys)
    assert rc == 0
    assert "random#1" in stdout and "win share [95% CI]" in stdout
    results = json.loads((out / "results.json").read_text())
    assert results["options"] == {"max_rounds": 1} and results["seed"] == 9 and results["games"] == 4

    rc, stdout, _ = run(["replay", str(out / "games.jsonl"), "--game-index", "2"], capsys)
    assert rc == 0
    assert "step 0: player_" in stdout and "reproduced:" in stdout

    rc, stdout, _ = run(["replay", str(out / "games.jsonl"), "--game-index", "2", "--quiet"], capsys)
    assert rc == 0 and stdout.count("\n") == 2

    rc, _, err = run(["replay", str(out / "games.jsonl"), "--game-index", "40"], capsys)
    assert_one_line_error(rc, err, "no game with index 40")


def test_replay_of_tampered_log_exits_1(tmp_path, capsys):
    out = tmp_path / "t"
    assert run(["tournament", "--game", "rummy", "--agents", "random", "--games", "2", "--workers", "1",
                "--option", "max_rounds=1", "--out", str(out), "--quiet"], capsys)[0] == 0
    lines = (out / "games.jsonl").read_text().splitlines()
    rec = json.loads(lines[0])
    rec["returns"] = [r + 5 for r in rec["returns"]]
    (out / "bad.jsonl").write_text(json.dumps(rec) + "\n")
    rc, _, err = run(["replay", str(out / "bad.jsonl"), "--game-index", str(rec["index"]), "--quiet"], capsys)
    assert rc == 1 and "NOT reproduced" in err and "returns differ" in err


def test_entry_point_module_one_line_error_and_no_torch():
    """Through a real process: the one-line error and status 2; importing the experiments package
    and its tools does not import torch."""
    proc = subprocess.run([sys.executable, "-m", "experiments.cli", "tournament", "--game", "rummy",
                           "--agents", "random,nobody"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.strip() == ("rummy-env tournament: error: unknown agent 'nobody': choose one of "
                                   "random, heuristic, ppo:PATH")
    code = ("import sys, experiments, experiments.cli, experiments.tournament, experiments.replay, "
            "experiments.io, experiments.demo, agents.registry; print('torch' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert proc.stdout.strip() == "False", proc.stderr


def test_demo_plays_available_games_and_lists_the_rest(tmp_path, capsys, monkeypatch):
    """The demo runs every game that has an environment and a heuristic (here only Rummy, with the
    random agent standing in for its heuristic) in one table, and names why the others are skipped."""
    import agents.registry as registry
    import experiments.demo as demo

    monkeypatch.setitem(demo.DEMO_GAMES, "rummy", 2)
    fake = {game: (f"agents.heuristic_missing_{game}", "Missing") for game in registry.HEURISTICS}
    fake["rummy"] = ("agents.base", "RandomAgent")
    monkeypatch.setattr(registry, "HEURISTICS", fake)
    rc, out, _ = run(["demo", "--workers", "1", "--out", str(tmp_path)], capsys)
    assert rc == 0
    table = [line for line in out.splitlines() if line.startswith("rummy (2p)")]
    assert [line.split()[2] for line in table] == ["random", "heuristic"]
    assert "tongits: skipped, no heuristic agent for tongits" in out
    assert (tmp_path / "rummy" / "results.json").exists()
