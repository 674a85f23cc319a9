"""Command lines from argument dataclasses, as in CleanRL (one ``--flag`` per field).

Each field of an arguments dataclass is followed by its docstring, which becomes the flag's help::

    @dataclass
    class Args:
        seed: int = 1
        \"\"\"seed of everything\"\"\"

    args = parse_dataclass(Args, sys.argv[1:], __doc__)

Bools become ``--x/--no-x``; a field named ``opt`` is the repeatable ``--option KEY=VALUE``
(:mod:`rummy_env.experiments.options`); a field named ``game`` must name a game. An int field is a
count: at least 0, and at least 1 when the class names it in ``POSITIVE`` (0 there is no run at
all). A bad value is a one-line :class:`~rummy_env.experiments.usage.UsageError`.

:class:`RunArgs` holds the flags every training tool takes, :class:`SelfPlayArgs` those of the tools
that play in the training arena (``train_ppo``, ``train_dmc``); a tool's ``Args`` inherits them and
redeclares a field (its default, and its docstring where its meaning is the tool's).
"""
from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import os
import textwrap
from dataclasses import dataclass, field
from typing import ClassVar

from rummy_env.experiments.options import add_option_argument, checked_text
from rummy_env.experiments.usage import OneLineParser, count
from rummy_env.registry import game_key

game_name = checked_text(game_key)
"""argparse ``type`` of ``--game``: an unknown game is a usage error naming the games."""


def field_docs(cls) -> dict[str, str]:
    """The docstring under each field of the dataclass ``cls`` and its dataclass bases (read from
    their source; a subclass's docstring wins), by field name."""
    docs = {}
    for klass in reversed([k for k in cls.__mro__ if dataclasses.is_dataclass(k)]):
        body = ast.parse(textwrap.dedent(inspect.getsource(klass))).body[0].body
        for stmt, after in zip(body, body[1:]):
            if (isinstance(stmt, ast.AnnAssign) and isinstance(after, ast.Expr)
                    and isinstance(after.value, ast.Constant) and isinstance(after.value.value, str)):
                docs[stmt.target.id] = " ".join(after.value.value.split())
    return docs


@dataclass
class RunArgs:
    """The flags of every training tool; ``RUN_KIND`` names the tool's runs (``runs/<game>_<kind>_s<seed>``)."""

    RUN_KIND: ClassVar[str] = "run"
    POSITIVE: ClassVar[tuple[str, ...]] = ("conv_channels", "factor_dim", "torch_threads")
    game: str = "rummy"
    """game name (rummy, tongits, i_doubt_it, contract_rummy, ginny_o)"""
    opt: list[str] = field(default_factory=list)
    """environment options KEY=VALUE (repeatable --option)"""
    seed: int = 1
    """seed of everything the run draws"""
    run_dir: str = ""
    """output folder; none means runs/<game>_<kind>_s<seed>"""
    hidden: str = "256,256"
    """hidden layer sizes of the MLP, comma-separated"""
    conv_channels: int = 32
    """channels of the two conv layers over board planes (games with OBS_BOARD_SHAPE only)"""
    head: str = "flat"
    """policy head: flat (a logit per action) or factored (piece x square logits from embeddings; ginny_o only)"""
    factor_dim: int = 32
    """size of the piece and square embeddings of the factored head"""
    torch_threads: int = 1
    """torch CPU threads (1 keeps runs reproducible)"""

    def output_dir(self) -> str:
        """``--run-dir``, or ``runs/<game>_<RUN_KIND>_s<seed>`` without it."""
        return self.run_dir or os.path.join("runs", f"{game_key(self.game)}_{self.RUN_KIND}_s{self.seed}")


@dataclass
class SelfPlayArgs(RunArgs):
    """The flags of the tools that learn by playing in the training arena (``train_ppo``, ``train_dmc``)."""

    POSITIVE: ClassVar[tuple[str, ...]] = RunArgs.POSITIVE + ("total_timesteps", "num_envs", "num_steps")
    total_timesteps: int = 50_000
    """learner decisions in all"""
    num_envs: int = 16
    """games played side by side"""
    num_steps: int = 64
    """learner decisions per game per update"""
    reward_scale: float = 1.0
    """learner rewards are multiplied by this (e.g. 0.02 for point rewards); logs show raw returns"""
    learner_reward: str = "own"
    """what the learner is paid: own (the game's reward), relative (minus the others' mean, zero-sum:
    a penalty counts against the others' penalties) or deal_win_loss (at each deal's end: +1 sole
    best, 0 shared, -1 otherwise; with point rewards)"""
    return_per_deal: bool = False
    """end the learner's return at every scoring step (a deal's, round's or hand's end), the game playing on"""
    seat: str = "random"
    """learner seat: an int or 'random' (per episode)"""
    eval_every: int = 10
    """updates between two greedy evaluations (0: none)"""
    eval_episodes: int = 64
    """games per evaluation opponent"""
    save_every: int = 1
    """updates between two writes of checkpoint.pt and policy.pt"""
    resume: bool = True
    """continue from run_dir/checkpoint.pt when it exists"""
    progress: bool = True
    """show a progress bar on stderr"""


@dataclass
class FitArgs(RunArgs):
    """The flags of the tools that collect decisions and fit the network to them (``imitate``, ``improve``)."""

    POSITIVE: ClassVar[tuple[str, ...]] = RunArgs.POSITIVE + ("epochs", "batch_size")

    reward_scale: float = 1.0
    """rewards are multiplied by this for the network's targets"""
    epochs: int = 4
    """passes over the collected decisions (in imitate, the first fit's)"""
    batch_size: int = 512
    """decisions per minibatch"""
    learning_rate: float = 1e-3
    """Adam learning rate, decaying linearly to 0 over each fit"""
    vf_coef: float = 0.5
    """weight of the value error in the loss"""
    val_fraction: float = 0.05
    """share of the games held out for validation"""


def dataclass_parser(cls, doc: str, prog: str | None = None) -> argparse.ArgumentParser:
    """A parser with one ``--flag`` per field of the arguments dataclass ``cls`` (module docstring);
    each flag's help is the field's docstring and its default. ``doc``'s first paragraph is the
    description."""
    parser = OneLineParser(prog=prog, description=doc.split("\n\n")[0],
                           formatter_class=argparse.RawDescriptionHelpFormatter)
    docs = field_docs(cls)
    for f in dataclasses.fields(cls):
        if f.name == "opt":
            add_option_argument(parser, dest="opt")
            continue
        if f.name not in docs:
            raise ValueError(f"{cls.__name__}.{f.name} has no docstring (it is the flag's help)")
        name = "--" + f.name.replace("_", "-")
        shown = f.default if f.default != "" else "none"
        help_text = f"{docs[f.name]} (default: {shown})".replace("%", "%%")
        if f.type in ("bool", bool):
            parser.add_argument(name, action=argparse.BooleanOptionalAction, default=f.default, help=help_text)
        elif f.name == "game":
            parser.add_argument(name, type=game_name, default=f.default, help=help_text)
        else:
            kind = {"int": int, "float": float, "str": str}[f.type if isinstance(f.type, str) else f.type.__name__]
            if kind is int:
                kind = count(name, 1 if f.name in cls.POSITIVE else 0)
            parser.add_argument(name, type=kind, default=f.default, help=help_text)
    return parser


def parse_dataclass(cls, argv: list[str] | None, doc: str):
    """An instance of the arguments dataclass ``cls`` from the command line (see :func:`dataclass_parser`)."""
    return cls(**vars(dataclass_parser(cls, doc).parse_args(argv)))
