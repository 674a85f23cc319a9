"""Every command the README and the docs show runs as written.

Commands are the lines of shell code blocks (and inline code in prose) that start with
``rummy-env``, ``python -m``, ``.venv/bin/python -m`` or ``make``, in README.md, docs/*.md and every
Markdown file under docs/guides/. Each is parsed, every flag of it, by the real argument parser of
its tool (every tool module exposes ``build_parser()``; a command module's is its ``rummy-env``
subcommand's), and every ``make`` target must exist. In the README, every path a command names
must exist in the repository or be written by an earlier README command (a tournament's or run's
output folder), and the tournaments and replays are run, shortened to a few games.
"""
from __future__ import annotations

import glob
import importlib
import importlib.util
import os
import re
import shlex

import pytest

from rummy_env.experiments.cli import COMMAND_OF_MODULE, FORWARDED, build_parser, main, subcommand_parser
from rummy_env.experiments.tournament import TournamentConfig, default_out_dir
from rummy_env.experiments.usage import UsageError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PREFIXES = ("rummy-env", "python -m", ".venv/bin/python -m", "make ")
# Folders the commands write: --out / --run-dir values, and the defaults below.
OUTPUT_FLAGS = ("--out", "--run-dir")
SHORT_GAMES = 9  # a tournament shortened to this many games (enough for the README's --game-index 7)


def doc_commands(path: str) -> list[tuple[str, bool]]:
    """The commands of the Markdown file ``path`` (relative to the repository) in order, each with
    whether it is inline code in prose (often a fragment: a flag shown with its command);
    ``\\``-continued lines joined, a leading ``$ `` dropped, an optional ``[--flag VALUE]`` kept
    without its brackets."""
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        text = f.read()
    commands = []
    pieces = re.split(r"^```([^\n]*)\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)
    # re.split gives: prose, language, block body, prose, language, block body, ..., prose
    for i in range(0, len(pieces), 3):
        commands += [(span, True) for span in re.findall(r"`([^`\n]+)`", pieces[i])
                     if span.startswith(PREFIXES) and (span.startswith("make ") or " --" in span)]
        if i + 2 < len(pieces) and pieces[i + 1].strip() in ("", "sh", "bash", "console"):
            for line in pieces[i + 2].replace("\\\n", " ").splitlines():
                line = line.strip().removeprefix("$ ")
                if line.startswith(PREFIXES):
                    commands.append((re.sub(r"\[(--[^]]*)\]", r"\1", line), False))
    return commands


DOCS = ["README.md", *sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "*.md"))),
        *sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "guides", "**", "*.md"),
                                                            recursive=True))]
COMMANDS = [command for command, _ in doc_commands("README.md")]
DOC_COMMANDS = [(path, command, inline) for path in DOCS for command, inline in doc_commands(path)]


def words(command: str) -> list[str]:
    return shlex.split(command, comments=True)


def tool_argv(command: str) -> tuple[str, list[str]]:
    """("rummy-env" or the module run by ``python -m``, its arguments)."""
    argv = words(command)
    if argv[0] == "rummy-env":
        return "rummy-env", argv[1:]
    return argv[2], argv[3:]


def paths_named(argv: list[str]) -> list[str]:
    """Every argument (or comma-separated item, ``ppo:`` stripped) that names a file or folder."""
    found = []
    for arg in argv:
        for item in arg.split(","):
            item = item.removeprefix("ppo:")
            if "/" in item and not item.startswith("-") and "=" not in item:
                found.append(item)
    return found


def written_by(command: str) -> list[str]:
    """Folders (or files) a README command creates."""
    argv = words(command)
    if argv[0] == "make":
        return [os.path.join("runs", "demo")] if argv[1:] == ["demo"] else []
    out = [argv[i + 1] for i, a in enumerate(argv[:-1]) if a in OUTPUT_FLAGS]
    if argv[:2] == ["rummy-env", "tournament"] and not out:
        args = build_parser().parse_args(argv[1:])
        agents = tuple(a.strip() for a in args.agents.split(","))
        out.append(str(default_out_dir(TournamentConfig(game=args.game, agents=agents, seed=args.seed))))
    return out


def test_the_readme_shows_commands_of_every_kind():
    kinds = {c.split()[0] if not c.startswith("rummy-env") else " ".join(c.split()[:2]) for c in COMMANDS}
    assert {"rummy-env tournament", "rummy-env replay", "rummy-env play", "rummy-env train", "make"} <= kinds, kinds


@pytest.mark.parametrize("path,command", [(p, c) for p, c, _ in DOC_COMMANDS if c.startswith("make ")])
def test_make_targets_exist(path, command):
    with open(os.path.join(ROOT, "Makefile"), encoding="utf-8") as f:
        makefile = f.read()
    targets = set(re.findall(r"^([\w-]+):", makefile, flags=re.MULTILINE))
    variables = set(re.findall(r"^([A-Z_]+) *\??=", makefile, flags=re.MULTILINE))
    assignments = [w for w in words(command)[1:] if "=" in w]
    assert {w.partition("=")[0] for w in assignments} <= variables, (path, command)
    assert set(words(command)[1:]) - set(assignments) <= targets, (path, command)


def parser_of(command: str):
    """The real parser of ``command``'s tool and the arguments it parses."""
    tool, argv = tool_argv(command)
    if tool in ("rummy-env", "rummy_env.experiments.cli"):
        if argv and argv[0] in build_parser().commands:
            return subcommand_parser(argv[0]), argv[1:]
        return build_parser(), argv
    if tool in COMMAND_OF_MODULE:
        return subcommand_parser(COMMAND_OF_MODULE[tool]), argv
    assert importlib.util.find_spec(tool) is not None, f"no module {tool}"
    module = importlib.import_module(tool)
    assert hasattr(module, "build_parser"), f"{tool} builds its parser inside main: give it build_parser()"
    return module.build_parser(), argv


def parse(command: str) -> None:
    """Parse with the tool's real parser, every flag; a usage error fails, ``--help`` passes."""
    parser, argv = parser_of(command)
    try:
        parser.parse_args(argv)
    except UsageError as error:
        pytest.fail(f"{command!r} does not parse: {error}")
    except SystemExit as exit:
        if exit.code != 0:
            pytest.fail(f"{command!r} does not parse")


def check_flags(command: str) -> None:
    """Every ``--flag`` of an inline fragment is one its tool's parser has (in its help)."""
    parser, argv = parser_of(command)
    text = parser.format_help()
    for flag in (word.split("=")[0] for word in argv if word.startswith("--")):
        if not re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", text):
            pytest.fail(f"{command!r}: {flag} is not a flag of it")


@pytest.mark.parametrize("path,command,inline", [(p, c, i) for p, c, i in DOC_COMMANDS if not c.startswith("make ")])
def test_every_flag_of_every_documented_command_parses(path, command, inline):
    pytest.importorskip("torch")
    (check_flags if inline else parse)(command)


@pytest.mark.parametrize("check", [parse, check_flags])
def test_a_flag_no_tool_has_fails_the_check(check):
    pytest.importorskip("torch")
    for command in ("rummy-env tournament --game rummy --no-such-flag", "rummy-env train --no-such-flag 1",
                    "python -m rummy_env.experiments.tournament --game rummy --no-such-flag",
                    "python -m rummy_env.experiments.studies.search_curve --no-such-flag"):
        with pytest.raises(pytest.fail.Exception):
            check(command)


@pytest.mark.parametrize("command", [c for c in COMMANDS if not c.startswith("make ")])
def test_readme_command_names_paths_that_exist(command):
    created = [p for earlier in COMMANDS[:COMMANDS.index(command)] for p in written_by(earlier)]
    outputs = written_by(command)
    for path in paths_named(tool_argv(command)[1]):
        if path in outputs:
            continue
        assert os.path.exists(os.path.join(ROOT, path)) or any(
            path.startswith(folder.rstrip("/") + "/") for folder in created), \
            f"{command!r}: {path} neither exists nor is written by an earlier README command"


def shortened(command: str) -> list[str]:
    """A tournament or replay of the README as arguments of ``rummy-env``, quick and quiet."""
    argv = words(command)[1:]
    if argv[0] == "tournament":
        if "--games" not in argv:
            argv += ["--games", str(SHORT_GAMES)]
        i = argv.index("--games") + 1
        argv[i] = str(min(int(argv[i]), SHORT_GAMES))
        argv = [re.sub(r"\bismcts(:\d+)?(?=[:,]|$)", "ismcts:2", word) for word in argv]  # a token search budget
        for flag in ("--workers", "--address"):  # no Ray cluster here: --backend ray starts a local one
            if flag in argv:
                i = argv.index(flag)
                del argv[i:i + 2]
        argv += ["--workers", "1"]
    return argv + ["--quiet"]


def test_readme_tournaments_and_replays_run(tmp_path, monkeypatch, capsys):
    """The README's tournaments (shortened) and then its replays, in order, in an empty folder
    (with the repository's checkpoints): each exits with status 0."""
    runnable = [c for c in COMMANDS if c.split()[:2] in (["rummy-env", "tournament"], ["rummy-env", "replay"])]
    assert any("replay" in c for c in runnable)
    os.symlink(os.path.join(ROOT, "checkpoints"), tmp_path / "checkpoints")
    monkeypatch.chdir(tmp_path)
    for command in runnable:
        rc = main(shortened(command))
        assert rc == 0, (command, capsys.readouterr().err)
