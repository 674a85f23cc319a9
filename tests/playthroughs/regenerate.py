"""Golden playthroughs: every step of a few short seeded games per game, written as text.

``python -m tests.playthroughs.regenerate [game ...]`` rewrites ``tests/playthroughs/<game>.txt``
(every game by default); ``tests/test_playthroughs.py`` replays the same games and names the first
line that differs. A playthrough is random legal play: ``env.reset(seed=seed)`` and the action
``rng.choice(legal ids)`` with ``rng = numpy.random.default_rng(seed)``, until every agent is done.

Each step of a playthrough is a block (OpenSpiel's playthrough files are the model)::

    step 12 player_1
      obs hand: 3 17 40 41=2         (each named part of the acting seat's observation: flat
      obs scores: 0=0.25             index within the part, "=value" unless the value is 1)
      view {"hand": [...], ...}      (the acting seat's view as compact JSON, without its
                                      event log, history, options and legal action texts)
      legal 23
      action 54 meld AC 2C 3C
      rewards 0 0

and the end of a playthrough gives each agent's return (the sum of its rewards) and how it ended.
"""
from __future__ import annotations

import json
import pathlib
import sys

import numpy as np

from rummy_env.registry import GAMES, make_raw_env

HERE = pathlib.Path(__file__).parent
PLAYTHROUGHS = {
    "rummy": [({"max_rounds": 1, "max_turns": 24}, 0), ({"num_players": 3, "max_rounds": 2, "max_turns": 12}, 1),
              ({"num_players": 6, "max_rounds": 1, "max_turnovers": 0}, 1)],
    "tongits": [({"hands_per_match": 1}, 0), ({"hands_per_match": 2, "chip_mode": "pay"}, 1)],
    "i_doubt_it": [({"num_players": 3, "max_plays": 30}, 0),
                   ({"num_players": 4, "max_cards_per_play": 2, "wrong_rank_claims": True, "max_plays": 20}, 1)],
    "contract_rummy": [({"num_players": 3, "deals": [1], "max_turns_per_deal": 15}, 0),
                       ({"num_players": 4, "deals": [7], "deal7_all_at_once": True, "max_turns_per_deal": 10}, 1)],
    "ginny_o": [({"max_turns": 12}, 0), ({"num_players": 3, "max_turns": 9, "board_layout": "bare"}, 1)],
}
"""Per game: (options, seed) of each playthrough; small options keep each file a few hundred KB."""
VIEW_LEFT_OUT = ("events", "history", "options", "legal_actions")


def number(value: float) -> str:
    """A float32 entry as short text (integers without a decimal point)."""
    return str(int(value)) if value == int(value) else f"{value:.6g}"


def nonzero_text(part: np.ndarray) -> str:
    flat = part.ravel()
    return " ".join(str(i) if flat[i] == 1 else f"{i}={number(flat[i])}" for i in np.flatnonzero(flat))


def view_text(view: dict) -> str:
    kept = {key: value for key, value in view.items() if key not in VIEW_LEFT_OUT}
    return json.dumps(kept, separators=(",", ":"), default=str)


def playthrough_lines(game: str, options: dict, seed: int) -> list[str]:
    """The text of one playthrough (see the module docstring), line by line."""
    env = make_raw_env(game, **options)
    layout = env.observation_layout()
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    lines = [f"== {game} options {json.dumps(options, sort_keys=True)} seed {seed}"]
    step = 0
    returns = dict.fromkeys(env.possible_agents, 0.0)
    ends = ""
    while env.agents:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        observed = env.observe(agent)
        lines.append(f"step {step} {agent}")
        for name, part in layout.split(observed["observation"]).items():
            lines.append(f"  obs {name}: {nonzero_text(part)}")
        lines.append(f"  view {view_text(env.view(agent))}")
        legal = np.flatnonzero(observed["action_mask"])
        action = int(rng.choice(legal))
        lines.append(f"  legal {len(legal)}")
        lines.append(f"  action {action} {env.action_to_text(action)}")
        env.step(action)
        lines.append("  rewards " + " ".join(number(env.rewards[a]) for a in env.possible_agents))
        for a in env.possible_agents:
            returns[a] += env.rewards[a]
        ends = " ".join(f"{a}:{'terminated' if env.terminations[a] else 'truncated' if env.truncations[a] else 'live'}"
                        for a in env.possible_agents)
        step += 1
    lines.append("end returns " + " ".join(number(returns[a]) for a in env.possible_agents) + " | " + ends)
    return lines


def file_text(game: str) -> str:
    """The whole ``<game>.txt``: a header, then each playthrough of :data:`PLAYTHROUGHS`."""
    header = [f"# Golden playthroughs of {game}: see tests/playthroughs/regenerate.py for the format.",
              f"# Regenerate with: python -m tests.playthroughs.regenerate {game}"]
    body = [line for options, seed in PLAYTHROUGHS[game] for line in playthrough_lines(game, options, seed)]
    return "\n".join(header + body) + "\n"


def main(argv: list[str]) -> None:
    for game in argv or list(GAMES):
        if game not in PLAYTHROUGHS:
            raise SystemExit(f"unknown game {game!r}: choose from {', '.join(PLAYTHROUGHS)}")
        path = HERE / f"{game}.txt"
        path.write_text(file_text(game))
        print(f"wrote {path} ({path.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main(sys.argv[1:])
