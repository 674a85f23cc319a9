"""``rummy-env``: one command line for tournaments, replays, the demo, benchmarks, play and training.

Bad arguments (unknown game, unknown agent, bad option value, ...) print one line and exit with
status 2; a failure while running prints one line and exits with status 1; both read
``rummy-env <command>: error: <message>``, and a warning ``rummy-env <command>: warning: <message>``.
``python -m`` on a command's module (:data:`COMMAND_OF_MODULE`) runs that command.
"""
from __future__ import annotations

import argparse
import importlib
import inspect
import os
import sys
import warnings
from typing import Callable

from rummy_env.registry import GAMES, game_key
from .options import add_option_argument, parse_env_options
from .usage import OneLineParser, UsageError, one_line_warnings
from .usage import count as _count


# Third-party modules of the optional extras (pyproject.toml), by top-level import name.
EXTRA_OF_MODULE = {"torch": "train", "openskill": "train", "tqdm": "train", "matplotlib": "train",
                   "sb3_contrib": "train", "rlcard": "bench", "pyspiel": "bench", "ray": "ray",
                   "starlette": "web", "uvicorn": "web", "playwright": "web"}


def failure_message(error: Exception, prog: str = "rummy-env") -> str:
    """The one line for a failure while running ``prog`` (``rummy-env <command>``); a module of an
    optional extra that is not installed names the extra to install. A plain ``ValueError`` or
    ``RuntimeError``, or an error class of rummy_env (a tournament's, a rollout worker's), is its
    message alone; another exception is prefixed with its type."""
    extra = (EXTRA_OF_MODULE.get((error.name or "").partition(".")[0])
             if isinstance(error, ModuleNotFoundError) else None)
    if extra is not None:
        return (f"{prog}: error: this command needs the '{extra}' extra ({error.name} is not installed): "
                f"pip install 'rummy_env[{extra}]', or from a checkout: pip install -e '.[{extra}]'")
    plain = type(error) in (ValueError, RuntimeError) or type(error).__module__.startswith("rummy_env")
    return f"{prog}: error: {error}" if plain else f"{prog}: error: {type(error).__name__}: {error}"


def _lazy_main(module: str) -> Callable:
    """The ``main`` of a tool module, imported only when its command runs."""
    return importlib.import_module(module).main


def _forward(func: Callable, argv: list[str], prog: str) -> int:
    """Call a tool's ``main`` with ``argv`` (or through ``sys.argv`` if it takes no arguments)."""
    saved = sys.argv
    sys.argv = [prog, *argv]  # the tool's own usage and error lines then name `rummy-env <command>`
    try:
        rc = func(argv) if inspect.signature(func).parameters else func()
    finally:
        sys.argv = saved
    return int(rc or 0)


AGENTS_HELP = ("random, heuristic, ppo (the game's committed policy), ppo:PATH, ismcts[:N][:KEY=VALUE...] and "
               "pimc[:W][:KEY=VALUE...] (the game's best known search recipe, at N iterations or W worlds; "
               "knobs written out replace the recipe's) and llm:model=NAME[:KEY=VALUE...] (a chat model); "
               "`rummy-env agents` lists them with their cost")
"""What ``--agents`` and ``--opponents`` take, in their help."""


# -- subcommands ----------------------------------------------------------------------------------
def cmd_tournament(args: argparse.Namespace) -> int:
    from .tournament import TournamentConfig, check_config, default_out_dir, describe, run_tournament

    agents = tuple(a.strip() for a in args.agents.split(",") if a.strip())
    try:
        config = TournamentConfig(game=args.game, agents=agents, games=args.games, seed=args.seed,
                                  options=parse_env_options(args.option), workers=args.workers,
                                  backend=args.backend, address=args.address,
                                  stall_timeout=args.stall_timeout)
        check_config(config)
    except ValueError as e:
        raise UsageError(f"rummy-env tournament: error: {e}") from None
    out = args.out or str(default_out_dir(config))
    results = run_tournament(config, out_dir=out, progress=not args.quiet, log_games=not args.no_log)
    print(describe(results))
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from .replay import load_game, replay_game

    if not os.path.exists(args.file):
        raise UsageError(f"rummy-env replay: error: no such file {args.file!r}")
    try:
        record = load_game(args.file, args.game_index)
    except ValueError as e:
        raise UsageError(f"rummy-env replay: error: {e}") from None
    result = replay_game(record, show=None if args.quiet else print)
    header = (f"{record['game']}_v0 game {args.game_index}: seed {record['seed']}, "
              f"options {record.get('options', {})}, seats {record.get('seating')}")
    if result.ok:
        print(f"{header}\nreproduced: {result.steps} actions, returns {result.returns} "
              f"match the recorded {result.recorded}")
        return 0
    print(f"{header}\nNOT reproduced: " + "; ".join(result.problems), file=sys.stderr)
    return 1


def cmd_demo(args: argparse.Namespace) -> int:
    from .demo import main as demo_main

    argv = ["--workers", str(args.workers), "--seed", str(args.seed)]
    if args.games is not None:
        argv += ["--games", str(args.games)]
    if args.out:
        argv += ["--out", args.out]
    return demo_main(argv)


# Commands whose arguments all go to another tool's ``main`` (parsed there, not here).
FORWARDED = {"bench": ("rummy_env.experiments.benchmark", "bench"), "train": ("rummy_env.experiments.train_ppo", "train"),
             "train-dmc": ("rummy_env.experiments.train_dmc", "train-dmc"),
             "imitate": ("rummy_env.experiments.imitate", "imitate"),
             "improve": ("rummy_env.experiments.improve", "improve"),
             "serve": ("rummy_env.experiments.web.server", "serve")}


def cmd_play(args: argparse.Namespace) -> int:
    from rummy_env.agents.registry import check_agent_spec

    try:
        for spec in args.opponents.split(","):
            check_agent_spec(spec.strip(), args.game)
    except ValueError as e:
        raise UsageError(f"rummy-env play: error: {e}") from None
    return int(_lazy_main("rummy_env.experiments.play")(args) or 0)


def cmd_agents(args: argparse.Namespace) -> int:
    from .catalog import agents_text

    print(agents_text(args.game))
    return 0


def cmd_options(args: argparse.Namespace) -> int:
    from .catalog import options_text

    print(options_text(args.game))
    return 0


def cmd_train_rllib(args: argparse.Namespace) -> int:
    from rummy_env.registry import make_raw_env

    def usage(message: str) -> UsageError:
        return UsageError(f"rummy-env train-rllib: error: {message}")

    if not 0.0 <= args.rule_based_share <= 1.0:
        raise usage(f"--rule-based-share must lie in [0, 1], got {args.rule_based_share}")
    if args.minibatch_size > args.batch_size:
        raise usage(f"--minibatch-size ({args.minibatch_size}) must not exceed --batch-size ({args.batch_size})")
    try:
        make_raw_env(args.game, **parse_env_options(args.option))
    except (TypeError, ValueError) as e:
        raise usage(f"bad option for {args.game}: {e}") from None
    return int(_lazy_main("rummy_env.experiments.train_rllib")(args) or 0)


def _game(name: str) -> str:
    try:
        return game_key(name)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def build_parser() -> argparse.ArgumentParser:
    games = ", ".join(GAMES)
    parser = OneLineParser(prog="rummy-env", description="rummy_env tools: tournaments between agents, "
                           "game replays, the demo, benchmarks, playing in the terminal and PPO training.",
                           epilog="Errors print one line; set RUMMY_ENV_TRACEBACK=1 to see the traceback "
                           "of a failure while running.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    sub.required = True
    cpus = os.cpu_count() or 1

    t = sub.add_parser("tournament", help="play agents against each other with duplicate deals; "
                       "report win shares, mean rewards (95%% CIs) and openskill ratings",
                       description="Every deal seed is replayed with the agents rotated through all "
                       "seats (duplicate deals), so card and seat luck cancel. Writes results.json, "
                       "results.csv, win_shares.png and the replay log games.jsonl under --out. "
                       "Seating: with k agents and n seats (k <= n) seat s gets agent s mod k, so "
                       "ppo,heuristic in a 4-seat game seats ppo, heuristic, ppo, heuristic; "
                       "with k > n every n-agent subset plays; every seating is rotated through all seats.")
    t.add_argument("--game", required=True, type=_game, help=f"one of: {games}")
    t.add_argument("--agents", default="random,heuristic",
                   help=f"comma-separated agent specs ({AGENTS_HELP}) (default random,heuristic)")
    t.add_argument("--games", type=_count("--games", 1), default=1000,
                   help="number of games, rounded up to whole deal seeds x seatings (default 1000)")
    t.add_argument("--seed", type=_count("--seed", 0), default=0, help="base seed (default 0)")
    t.add_argument("--workers", type=_count("--workers", 1), default=cpus,
                   help=f"worker processes (default: all {cpus} cores)")
    t.add_argument("--backend", choices=("process", "ray"), default="process",
                   help="where games run: a local process pool, or Ray tasks (needs the 'ray' extra; "
                   "a local Ray with --workers CPUs, or the cluster at --address) (default process)")
    t.add_argument("--address", default=None,
                   help="with --backend ray: join the Ray cluster at this address, e.g. HEAD_IP:6379 "
                   "or auto, and use all its CPUs (default: start a local Ray)")
    t.add_argument("--stall-timeout", type=float, default=600.0, metavar="SECONDS",
                   help="with 2+ process workers: fail, naming the chunk and game, when a worker finishes no "
                   "game for this long; finished games stay in the log (0: wait forever; default 600)")
    t.add_argument("--out", default=None, help="output directory (default: runs/tournament_<game>_<agents>_seed<S>)")
    add_option_argument(t)
    t.add_argument("--no-log", action="store_true", help="do not write the per-game replay log (default: write it)")
    t.add_argument("--quiet", action="store_true", help="no progress bar (default: a progress bar on stderr)")
    t.set_defaults(func=cmd_tournament)

    r = sub.add_parser("replay", help="replay one logged game step by step and check its returns",
                       description="Rebuilds the environment from the logged seed and options, steps "
                       "the logged action texts, prints the table before each action and checks that "
                       "the returns match the log (exit status 1 if they do not).")
    r.add_argument("file", help="a games.jsonl replay log written by `rummy-env tournament`")
    r.add_argument("--game-index", type=_count("--game-index", 0), default=0,
                   help="the game's index in the tournament (default 0)")
    r.add_argument("--quiet", action="store_true", help="only check, do not print the tables (default: print them)")
    r.set_defaults(func=cmd_replay)

    d = sub.add_parser("demo", help="baseline tournament (random vs heuristic) in every available game, "
                       "one table", description="Plays random against the rule-based agent in every "
                       "game whose environment and heuristic exist and prints one table.")
    d.add_argument("--games", type=_count("--games", 1), default=None,
                   help="games per game type (default: sized per game to finish in about a minute)")
    d.add_argument("--workers", type=_count("--workers", 1), default=cpus, help=f"worker processes (default: all {cpus} cores)")
    d.add_argument("--seed", type=_count("--seed", 0), default=0, help="base seed of every tournament (default 0)")
    d.add_argument("--out", default=None, help="output directory (default: runs/demo)")
    d.set_defaults(func=cmd_demo)

    b = sub.add_parser("bench", help="random-play throughput against peer libraries (rummy_env.experiments.benchmark)",
                       description="Runs rummy_env.experiments.benchmark; further arguments go to it "
                       "(see `rummy-env bench --help`).", add_help=False)
    b.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)

    p = sub.add_parser("play", help="play a game in the terminal against agents",
                       description="Play one seat in the terminal; the other seats are agents.")
    p.add_argument("game", type=_game, help=f"one of: {games}")
    p.add_argument("--seat", type=_count("--seat", 0), default=0, help="your seat (default 0)")
    p.add_argument("--opponents", default="heuristic",
                   help=f"agent spec for the other seats ({AGENTS_HELP}); one for all, or one per opponent "
                   "separated by commas (default heuristic)")
    p.add_argument("--seed", type=_count("--seed", 0), default=None, help="seed of the deal and the bots (default: random)")
    p.add_argument("--players", type=_count("--players", 2), default=None,
                   help="number of players, for games that allow several (default: the game's default)")
    add_option_argument(p)
    p.add_argument("--no-color", action="store_true", help="plain text, no ANSI colours (default: colours)")
    p.set_defaults(func=cmd_play)

    tr = sub.add_parser("train", help="train a PPO agent (rummy_env.experiments.train_ppo)",
                        description="Runs rummy_env.experiments.train_ppo; further arguments go to it "
                        "(see `rummy-env train --help`).", add_help=False)
    tr.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)

    dm = sub.add_parser("train-dmc", help="Deep Monte-Carlo over the rule-based agent, gated so it starts as that "
                        "agent (rummy_env.experiments.train_dmc)",
                        description="Runs rummy_env.experiments.train_dmc; further arguments go to it "
                        "(see `rummy-env train-dmc --help`).", add_help=False)
    dm.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)

    rl = sub.add_parser("train-rllib", help="PPO with RLlib on a Ray cluster: self-play against the "
                        "rule-based agent, rollouts on remote env runners (rummy_env.experiments.train_rllib)",
                        description="Trains one shared action-masking PPO policy for the learner's seats "
                        "while the rule-based agent plays the others; needs the 'ray' extra. Writes the "
                        "per-iteration env steps/s, returns and losses to --out (JSON).")
    rl.add_argument("--game", required=True, type=_game, help=f"one of: {games}")
    rl.add_argument("--iterations", type=_count("--iterations", 1), default=10,
                    help="PPO iterations, --batch-size env steps each (default 10)")
    rl.add_argument("--env-runners", type=_count("--env-runners", 1), default=2,
                    help="remote env runners sampling in parallel, one CPU each (default 2)")
    rl.add_argument("--address", default=None, help="join the Ray cluster at this address, e.g. HEAD_IP:6379 "
                    "or auto (default: start a local Ray with env-runners + 1 CPUs)")
    rl.add_argument("--rule-based-share", type=float, default=0.5,
                    help="chance that the rule-based agent plays a seat in an episode; the learner "
                    "keeps at least one seat (default 0.5)")
    rl.add_argument("--batch-size", type=_count("--batch-size", 1), default=4000,
                    help="env steps per iteration (default 4000)")
    rl.add_argument("--minibatch-size", type=_count("--minibatch-size", 1), default=500,
                    help="SGD minibatch size (default 500)")
    rl.add_argument("--epochs", type=_count("--epochs", 1), default=4, help="SGD passes over each batch (default 4)")
    rl.add_argument("--seed", type=_count("--seed", 0), default=0, help="seed of RLlib and of the deals (default 0)")
    add_option_argument(rl)
    rl.add_argument("--out", default=None, help="result JSON (default: runs/rllib_<game>_s<seed>.json)")
    rl.set_defaults(func=cmd_train_rllib)

    im = sub.add_parser("imitate", help="clone the rule-based agent into a policy network, a PPO warm "
                        "start (rummy_env.experiments.imitate)", description="Runs rummy_env.experiments.imitate; further "
                        "arguments go to it (see `rummy-env imitate --help`).", add_help=False)
    im.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    ip = sub.add_parser("improve", help="one step of rollout policy improvement over the rule-based agent, "
                        "learned into a residual policy (rummy_env.experiments.improve)",
                        description="Runs rummy_env.experiments.improve; further arguments go to it (see "
                        "`rummy-env improve --help`).", add_help=False)
    ip.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    sv = sub.add_parser("serve", help="the card table in the browser: play the bots, seat several people, "
                        "watch replays (rummy_env.experiments.web, the `web` extra)",
                        description="Runs rummy_env.experiments.web.server; further arguments go to it (see "
                        "`rummy-env serve --help`).", add_help=False)
    sv.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)

    ag = sub.add_parser("agents", help="list the agent specs, each game's search recipes and their cost per decision",
                        description="Lists every agent spec family with its meaning, then per game the "
                        "recipe a bare ismcts or pimc stands for, the tournament behind it and the "
                        "seconds per decision of each agent (docs/results/agent_costs.json).")
    ag.add_argument("--game", type=_game, default=None, help=f"only this game, one of: {games} (default: all)")
    ag.set_defaults(func=cmd_agents)
    op = sub.add_parser("options", help="list a game's options with defaults, allowed values and rule ids",
                        description="Lists the options --option KEY=VALUE takes for a game: default, "
                        "allowed values and the rule ids of docs/rules/<game>.md they set.")
    op.add_argument("game", type=_game, help=f"one of: {games}")
    op.set_defaults(func=cmd_options)
    parser.commands = sub.choices  # every command's parser, by name (subcommand_parser)
    return parser


def subcommand_parser(command: str) -> argparse.ArgumentParser:
    """The parser of ``rummy-env <command>`` (a forwarded command's: its tool's ``build_parser()``)."""
    if command in FORWARDED:
        return importlib.import_module(FORWARDED[command][0]).build_parser()
    return build_parser().commands[command]


COMMAND_OF_MODULE = {"rummy_env.experiments.tournament": "tournament", "rummy_env.experiments.replay": "replay",
                     "rummy_env.experiments.demo": "demo", "rummy_env.experiments.play": "play",
                     "rummy_env.experiments.train_rllib": "train-rllib",
                     **{module: command for command, (module, _) in FORWARDED.items() if command != "bench"}}
"""The ``rummy-env`` command each tool module runs as under ``python -m`` (:func:`run_as_command`);
the benchmark runs its own ``main`` (its file also runs in a peer library's venv without rummy_env)."""


def run_as_command(command: str) -> int:
    """``python -m <module>``: run ``rummy-env <command>`` with the process's arguments."""
    return main([command, *sys.argv[1:]])


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``rummy-env``; returns the exit status."""
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    prog = f"rummy-env {argv[0]}" if argv and argv[0] in parser.commands else "rummy-env"
    shown = warnings.showwarning
    warnings.showwarning = one_line_warnings(prog)
    try:
        if argv and argv[0] in FORWARDED:  # everything after the command belongs to the tool
            module, what = FORWARDED[argv[0]]
            return _forward(_lazy_main(module), argv[1:], f"rummy-env {what}")
        args = parser.parse_args(argv)
        return args.func(args)
    except UsageError as e:
        print(str(e), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # a failure while running: one line, not a traceback
        if os.environ.get("RUMMY_ENV_TRACEBACK"):
            raise
        print(failure_message(e, prog), file=sys.stderr)
        return 1
    finally:
        warnings.showwarning = shown


if __name__ == "__main__":
    sys.exit(main())
