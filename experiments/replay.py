"""Replay a logged game step by step and check that it reproduces the recorded returns.

A tournament's ``games.jsonl`` holds one JSON object per game: ``game``, ``options``, ``seed``
(the environment seed), ``seating``, ``actions`` (canonical action texts, in order) and ``returns``
(per seat). A replay rebuilds the environment from ``game`` + ``options`` with
``render_mode="ansi"``, resets it with ``seed``, steps every action text through
``text_to_action`` in the standard AEC loop (``agent_iter`` / ``last`` / ``step``), renders the
acting seat's table before every action (``render()``, which draws the one text layout of
:func:`rummy_env.render.view_text` that the terminal player shows too, with the legal moves), and
compares the returns it sums with the recorded ones.

Command line: ``rummy-env replay FILE --game-index K [--quiet]``.
"""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from typing import Callable

from rummy_env.registry import make_env

from .io import read_jsonl


@dataclass
class ReplayResult:
    returns: list[float]
    recorded: list[float]
    steps: int
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def load_game(path: str, index: int) -> dict:
    """The record with game index ``index`` in the JSON-lines log ``path`` (``ValueError`` if absent)."""
    records = read_jsonl(path)
    for rec in records:
        if rec.get("index") == index:
            return rec
    indices = sorted(r.get("index", -1) for r in records)
    span = f"{indices[0]}..{indices[-1]}" if indices else "none"
    raise ValueError(f"{path} has no game with index {index} ({len(records)} games logged, indices {span})")


def replay_game(record: dict, show: Callable[[str], None] | None = None) -> ReplayResult:
    """Replay ``record``; ``show`` (e.g. ``print``) gets the rendered table before every action,
    the action line after it and the final table. Problems are collected, not raised."""
    env = make_env(record["game"], render_mode="ansi", **record.get("options", {}))
    env.reset(seed=record["seed"])
    raw = env.unwrapped
    names = raw.possible_agents
    seating = record.get("seating") or [""] * len(names)
    recorded = [float(x) for x in record["returns"]]
    returns = [0.0] * len(names)
    actions = record["actions"]
    problems: list[str] = []
    step = 0
    for agent in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        if step >= len(actions):
            problems.append(f"the log ends after {len(actions)} actions but the game goes on "
                            f"({agent} to play)")
            break
        text = actions[step]
        if show is not None:
            show(env.render())
            who = f"{agent} ({seating[raw.agent_name_mapping[agent]]})" if seating[0] else agent
            show(f"step {step}: {who}: {text}\n")
        try:
            env.step(raw.text_to_action(text))
        except ValueError as e:
            problems.append(f"step {step} ({agent}: {text!r}) was refused: {e}")
            break
        step += 1
        for i, name in enumerate(names):
            returns[i] += raw.rewards.get(name, 0.0)
    if not problems and step < len(actions):
        problems.append(f"the game ended after {step} actions but the log has {len(actions)}")
    if show is not None:
        show(env.render())
    if not problems and not all(math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-6)
                                for a, b in zip(returns, recorded)):
        problems.append(f"returns differ: replayed {returns}, recorded {recorded}")
    env.close()
    return ReplayResult(returns=returns, recorded=recorded, steps=step, problems=problems)


if __name__ == "__main__":  # runs as `rummy-env replay`
    from rummy_env.experiments.cli import run_as_command
    sys.exit(run_as_command("replay"))
