"""The ``rummy-env`` command line (issue 7): subcommands, help, one-line errors with exit status 2."""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

import pytest

from rummy_env.experiments.cli import FORWARDED, build_parser, main
from rummy_env.experiments.options import parse_env_options, parse_option

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
    (["tournament", "--game", "rummy", "--agents", "random,genius"], ["unknown agent 'genius'", "ppo[:PATH]"]),
    (["tournament", "--game", "rummy", "--agents", "random,ppo:/no/such/model.pt"], ["no such checkpoint"]),
    (["tournament", "--game", "rummy", "--agents", "random", "--option", "num_players=9"], ["bad option", "num_players"]),
    (["tournament", "--game", "rummy", "--agents", "random", "--option", "ace_high=maybe"], ["bad option", "ace_high"]),
    (["tournament", "--game", "rummy", "--agents", "random", "--option", "colour=red"], ["bad option", "colour"]),
    (["tournament", "--game", "rummy", "--agents", "random", "--option", "render_mode=human"], ["render_mode"]),
    (["tournament", "--game", "rummy", "--option", "num_players"], ["bad --option 'num_players'", "KEY=VALUE"]),
    (["tournament", "--game", "rummy", "--option", "a=1", "--option", "a=2"], ["--option a given twice"]),
    (["play", "rummy", "--option", "deals=1,,2"], ["empty item"]),
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
    assert parse_option("target_score=null") == ("target_score", None)
    assert parse_option("deals=[1, 2]") == ("deals", [1, 2])
    assert parse_option("deals=1,2") == ("deals", [1, 2])
    assert parse_option("deals=[7]") == ("deals", [7])
    assert parse_option('name="a,b"') == ("name", "a,b")
    with pytest.raises(ValueError, match="not valid JSON"):
        parse_option("deals=[1,")
    with pytest.raises(ValueError, match="empty item"):
        parse_option("deals=1,")


def test_every_tool_reads_options_with_the_one_parser():
    """``--option`` (and the old ``--opt``) in the tournament, play, train and imitate parsers give
    the same options: ``none`` is None and ``1,2`` a list everywhere."""
    pytest.importorskip("torch")
    import rummy_env.experiments.imitate as imitate
    import rummy_env.experiments.train_ppo as train_ppo

    argv = ["--option", "deals=1,2", "--opt", "target_score=none"]
    expected = {"deals": [1, 2], "target_score": None}
    parser = build_parser()
    assert parse_env_options(parser.parse_args(["tournament", "--game", "rummy", *argv]).option) == expected
    assert parse_env_options(parser.parse_args(["play", "rummy", *argv]).option) == expected
    assert parse_env_options(train_ppo.parse_args(argv).opt) == expected
    assert parse_env_options(imitate.parse_args(argv).opt) == expected


def _subcommand_parsers() -> dict[str, argparse.ArgumentParser]:
    """Every subcommand's parser: the ones built here and those of the forwarded tools."""
    import importlib

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    parsers = {name: p for name, p in sub.choices.items() if name not in FORWARDED}
    for name, (module, _) in FORWARDED.items():
        parsers[name] = importlib.import_module(module).build_parser()
    return parsers


def test_every_option_of_every_subcommand_has_help_with_its_default():
    """Each visible option says what it does and, unless required, shows its default value; options
    without a value (None, flags) still say what happens by default."""
    pytest.importorskip("torch")
    parsers = _subcommand_parsers()
    assert set(parsers) == {"tournament", "replay", "demo", "bench", "play", "train", "train-dmc", "imitate", "improve", "train-rllib",
                            "agents", "options", "serve"}
    for command, parser in parsers.items():
        for action in parser._actions:
            if action.help == argparse.SUPPRESS or isinstance(action, argparse._HelpAction) or not action.option_strings:
                continue
            text = parser._get_formatter()._expand_help(action)
            where = f"rummy-env {command} {action.option_strings[0]}"
            assert text.strip(), where
            if action.required:
                continue
            assert "default" in text, (where, text)
            if action.default not in (None, False, True, []) and not isinstance(action.default, bool):
                shown = {str(action.default)} | ({f"{action.default:g}"} if isinstance(action.default, float) else set())
                assert any(value in text for value in shown), (where, text)


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
    proc = subprocess.run([sys.executable, "-m", "rummy_env.experiments.cli", "tournament", "--game", "rummy",
                           "--agents", "random,nobody"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.strip() == ("rummy-env tournament: error: unknown agent 'nobody': choose one of "
                                   "random, heuristic, ismcts[:N], pimc[:W], ppo[:PATH], llm:model=NAME[:...]")
    code = ("import sys, experiments, rummy_env.experiments.cli, rummy_env.experiments.tournament, rummy_env.experiments.replay, "
            "rummy_env.experiments.io, rummy_env.experiments.demo, rummy_env.agents.registry; print('torch' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert proc.stdout.strip() == "False", proc.stderr


def test_demo_prints_each_lineup_and_one_table(tmp_path, capsys, monkeypatch):
    """The demo plays every game (here only Rummy, with the random agent standing in for its
    heuristic), prints each lineup before playing it (one line, as stdout is not a terminal here)
    and one table."""
    import rummy_env.agents.registry as registry
    import rummy_env.experiments.demo as demo

    monkeypatch.setitem(demo.DEMO_GAMES, "rummy", 2)
    monkeypatch.setattr(demo, "GAMES", {"rummy": demo.GAMES["rummy"]})
    monkeypatch.setitem(registry.HEURISTICS, "rummy", ("rummy_env.agents.base", "RandomAgent"))
    rc, out, _ = run(["demo", "--workers", "1", "--out", str(tmp_path)], capsys)
    assert rc == 0
    assert "[1/1] rummy: heuristic vs random, 2 games ... done in" in out
    assert [line.split(" | ")[:3] for line in out.splitlines() if line.startswith("| rummy")] == \
        [["| rummy (2p)", "H vs R", "2"]]
    assert (tmp_path / "rummy" / "results.json").exists()


def test_demo_seats_one_heuristic_against_random_in_every_other_seat():
    """The lineup of the README's baseline table: 1 heuristic + (n-1) random in n-seat games."""
    import rummy_env.experiments.demo as demo

    assert demo.lineup("rummy") == ("heuristic", "random")
    assert demo.lineup("tongits") == ("heuristic", "random", "random")
    assert demo.lineup("i_doubt_it") == ("heuristic", "random", "random", "random")


def test_a_command_needing_a_missing_extra_names_the_extra(tmp_path, capsys, monkeypatch):
    """On a base install (no ``train`` extra) a tournament cannot import tqdm and training cannot
    import torch: one line naming the extra to install, not a ModuleNotFoundError."""
    monkeypatch.setitem(sys.modules, "tqdm", None)  # `import tqdm` now fails as if not installed
    rc, _, err = run(["tournament", "--game", "rummy", "--agents", "random", "--games", "2", "--workers", "1",
                      "--option", "max_rounds=1", "--out", str(tmp_path / "t"), "--quiet"], capsys)
    assert rc == 1
    assert err.strip() == ("rummy-env tournament: error: this command needs the 'train' extra (tqdm is not "
                           "installed): pip install 'rummy_env[train]', or from a checkout: pip install -e '.[train]'")
    monkeypatch.setitem(sys.modules, "torch", None)
    monkeypatch.delitem(sys.modules, "rummy_env.experiments.train_ppo", raising=False)
    rc, _, err = run(["train", "--help"], capsys)
    assert rc == 1 and "needs the 'train' extra (torch is not installed)" in err and "Traceback" not in err


# -- issue 40 item 6: what a newcomer tripped on -------------------------------------------------
def test_python_m_on_a_command_module_runs_that_command(tmp_path):
    """``python -m rummy_env.experiments.tournament`` plays as ``rummy-env tournament`` does, and its
    errors read the same."""
    proc = subprocess.run([sys.executable, "-m", "rummy_env.experiments.tournament", "--game", "rummy",
                           "--agents", "random,random", "--games", "2", "--workers", "1", "--no-log", "--quiet",
                           "--option", "max_rounds=1", "--out", str(tmp_path / "t")], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 0 and "2 games = 1 deal seed x 2 seatings, 1 worker (process)" in proc.stdout, proc.stderr
    proc = subprocess.run([sys.executable, "-m", "rummy_env.experiments.replay", "no-such.jsonl"], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stderr.strip() == "rummy-env replay: error: no such file 'no-such.jsonl'"


def test_a_bad_option_of_a_forwarded_tool_is_one_line(tmp_path, capsys):
    pytest.importorskip("torch")
    rc, _, err = run(["train", "--opt", "max_rounds=abc", "--run-dir", str(tmp_path / "run")], capsys)
    assert rc == 1 and err.strip() == "rummy-env train: error: max_rounds must be an int >= 1, got 'abc'", err


@pytest.mark.parametrize("argv,message", [
    (["train", "--total-timesteps", "-5"], "--total-timesteps must be at least 1, got -5"),
    (["train", "--num-envs", "0"], "--num-envs must be at least 1, got 0"),
    (["train", "--seed", "-1"], "--seed must be at least 0, got -1"),
    (["train", "--eval-every", "-1"], "--eval-every must be at least 0, got -1"),
    (["imitate", "--decisions", "0"], "--decisions must be at least 1, got 0"),
    (["imitate", "--dagger-rounds", "-1"], "--dagger-rounds must be at least 0, got -1"),
    (["improve", "--workers", "0"], "--workers must be at least 1, got 0"),
])
def test_training_counts_below_their_minimum_are_refused(argv, message, capsys):
    pytest.importorskip("torch")
    rc, _, err = run(argv, capsys)
    assert_one_line_error(rc, err, f"rummy-env {argv[0]}: error: argument {argv[1]}: {message}")
    assert "usage:" not in err


def test_a_file_that_is_not_a_checkpoint_is_named(tmp_path, capsys):
    pytest.importorskip("torch")
    path = tmp_path / "notes.txt"
    path.write_text("not a checkpoint\n")
    rc, _, err = run(["tournament", "--game", "rummy", "--agents", f"ppo:{path},random", "--games", "2",
                      "--workers", "1", "--no-log", "--quiet", "--out", str(tmp_path / "t")], capsys)
    assert rc == 1 and err.strip() == (f"rummy-env tournament: error: {str(path)!r} is not a rummy_env checkpoint "
                                       "(torch.load: UnpicklingError)"), err


def test_an_options_mismatch_is_one_warning_line(tmp_path, capsys):
    pytest.importorskip("torch")
    rc, out, err = run(["tournament", "--game", "rummy", "--agents", "ppo,random", "--games", "2", "--workers", "1",
                        "--option", "max_rounds=1", "--option", "reward_mode=win_loss", "--option", "max_turns=200",
                        "--no-log", "--quiet", "--out", str(tmp_path / "t")], capsys)
    assert rc == 0
    [line] = err.splitlines()
    assert line.startswith("rummy-env tournament: warning: checkpoint ") and line.endswith(
        "plays rummy with other options than it was trained with: max_turns=200 (trained with 300)"), err


def test_the_tournament_help_says_how_agents_fill_the_seats(capsys):
    with pytest.raises(SystemExit):
        main(["tournament", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "seat s gets agent s mod k" in text and "every seating is rotated through all seats" in text


def test_the_learner_return_of_an_rllib_iteration_without_episodes_is_explained():
    pytest.importorskip("ray")
    from rummy_env.experiments.train_rllib import learner_return_text

    assert learner_return_text({"learner_return_mean": 0.25, "episodes": 3}) == "0.25"
    assert learner_return_text({"learner_return_mean": float("nan"), "episodes": 0}).startswith(
        "n/a (no episode ended in this iteration")
