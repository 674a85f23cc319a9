"""Build the example notebooks from the cell sources below and execute them (outputs are committed).

    .venv/bin/python notebooks/build_notebooks.py            # build and execute all four
    .venv/bin/python notebooks/build_notebooks.py 01 04      # only those whose name starts so
    .venv/bin/python notebooks/build_notebooks.py --no-execute

The sources here are the single place the notebooks are edited; ``tests/test_notebooks.py`` checks
the committed notebooks match them and still run top to bottom.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
TIMEOUT = 120
"""Seconds one cell may run when executing."""

SETUP = '''\
# Needs the package installed (`make setup`, or `pip install -e '.[train,dev]'`): agents/ and
# experiments/ are importable as rummy_env.agents and rummy_env.experiments.
import rummy_env
print("rummy_env", rummy_env.__version__)'''


def md(text: str):
    return new_markdown_cell(text.strip("\n"))


def code(text: str):
    return new_code_cell(text.strip("\n"))


# ---------------------------------------------------------------------------------------------
NB01 = [
    md("""
# Quick start: the five rummy_env games

Every game is a [PettingZoo](https://pettingzoo.farama.org/) AEC environment in the style of
PettingZoo's classic games: `<game>_v0.env()` wrapped, `raw_env()` unwrapped, observations
`{"observation", "action_mask"}`, one discrete action space per game, and readable action texts.
This notebook makes each environment, looks at it, plays a random game and reads masks and action
texts.
"""),
    code(SETUP),
    code("""
import time
import numpy as np
from PIL import Image
from rummy_env import rummy_v0, tongits_v0, i_doubt_it_v0, contract_rummy_v0, ginny_o_v0

MODULES = [rummy_v0, tongits_v0, i_doubt_it_v0, contract_rummy_v0, ginny_o_v0]
for mod in MODULES:
    env = mod.env()
    env.reset(seed=0)
    agent = env.possible_agents[0]
    print(f"{mod.__name__.split('.')[-1]:<18} agents {len(env.possible_agents)}  "
          f"observation {env.observation_space(agent)['observation'].shape}  "
          f"actions {env.action_space(agent).n}  reward modes {mod.raw_env.reward_modes}")
"""),
    md("""
## Looking at a game
`env.unwrapped` shows itself as HTML in Jupyter: the current player's view only (their hand,
the melds with their owners, the discard pile, hand sizes and scores). `render_mode="rgb_array"`
gives the same picture as an image array, and `"ansi"` as text.
"""),
    code("""
env = rummy_v0.env(render_mode="rgb_array")
env.reset(seed=1)
env.unwrapped
"""),
    code("""
frame = env.render()
print(frame.shape, frame.dtype)
Image.fromarray(frame).resize((frame.shape[1] // 2, frame.shape[0] // 2))
"""),
    code("""
text_env = rummy_v0.env(render_mode="ansi")
text_env.reset(seed=1)
print(text_env.render())
"""),
    md("""
## The structured view
`env.unwrapped.view(agent)` is a JSON-friendly dict of what that seat may know; the renderers,
the terminal player and text-based agents all read it. Every game has the same core keys.
"""),
    code("""
view = env.unwrapped.view(env.agent_selection)
{k: view[k] for k in ("game", "seat", "to_play", "phase", "hand", "hand_sizes", "scores",
                      "discard", "stock_size", "legal_actions")}
"""),
    md("""
## Masks and action texts
The mask marks exactly the legal actions. Every action id has one canonical text and back;
text input is case-insensitive. An illegal action raises `ValueError` naming the action and why,
and leaves the state unchanged.
"""),
    code("""
obs, reward, terminated, truncated, info = env.last()
legal = np.flatnonzero(obs["action_mask"])
raw = env.unwrapped
print("legal ids:  ", legal.tolist())
print("their texts:", [raw.action_to_text(a) for a in legal])
print("text -> id: ", raw.text_to_action("DRAW   stock"), raw.text_to_action("take discard"))
illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
try:
    env.step(illegal)
except ValueError as e:
    print("ValueError:", e)
"""),
    md("""
## A random game, the PettingZoo way
The standard AEC loop: `agent_iter`, `last`, `step`; a finished agent steps `None`.
"""),
    code("""
def random_game(mod, seed, **options):
    env = mod.env(**options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    returns = {a: 0.0 for a in env.possible_agents}
    steps = 0
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        returns[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(rng.choice(legal)))
        steps += 1
    return env, steps, returns

env, steps, returns = random_game(rummy_v0, seed=3)
print(steps, "steps; returns", returns)
env.unwrapped
"""),
    md("""
## Every game, one random game each
"""),
    code("""
for mod in MODULES:
    start = time.perf_counter()
    env, steps, returns = random_game(mod, seed=0)
    wall = time.perf_counter() - start
    print(f"{mod.__name__.split('.')[-1]:<18} {steps:>5} steps in {wall:5.2f} s   returns "
          + ", ".join(f"{r:+.2f}" for r in returns.values()))
"""),
    md("""
The last view of the Ginny-O game (a board game: its view adds the `board`):
"""),
    code("""
env.unwrapped
"""),
]

# ---------------------------------------------------------------------------------------------
NB02 = [
    md("""
# Write your own agent and rank it against the baselines

An agent implements `rummy_env.agents.base.Agent`: `reset(seat, seed)` at the start of each game and
`act(observation, action_mask, view) -> action id`. It sees only what its seat may see. Here we
write a small rule-based Rummy agent that reasons on the view's action texts, then rank it
against the random agent (and the rule-based baseline when it exists) in one-round Rummy with the tournament tools
of `rummy_env.experiments.tournament`: duplicate deals with seat rotation, win shares with bootstrap
confidence intervals, and openskill ratings.
"""),
    code(SETUP),
    code("""
import numpy as np
from rummy_env.agents.base import Agent, RandomAgent
from rummy_env.agents.registry import make_agent
from rummy_env import rummy_v0
from rummy_env.cards import POINTS, parse_card


class MeldFirst(Agent):
    \"\"\"Draw from the stock; lay down the longest meld, then any lay-off; discard the card worth
    the most points.\"\"\"

    name = "meld_first"

    def act(self, observation, action_mask, view):
        legal = np.flatnonzero(action_mask)
        texts = view["legal_actions"]          # aligned with `legal`
        def pick(i):
            return int(legal[i])
        melds = [i for i, t in enumerate(texts) if t.startswith("meld ")]
        if melds:
            return pick(max(melds, key=lambda i: len(texts[i].split())))
        for i, t in enumerate(texts):
            if t.startswith("layoff "):
                return pick(i)
        if "draw stock" in texts:
            return pick(texts.index("draw stock"))
        discards = [i for i, t in enumerate(texts) if t.startswith("discard ")]
        if discards:
            return pick(max(discards, key=lambda i: POINTS[parse_card(texts[i].split()[1])]))
        return pick(int(self.rng.integers(len(legal))))
"""),
    md("""
Try it on one position: the view, the legal texts and the agent's choice.
"""),
    code("""
env = rummy_v0.env()
env.reset(seed=7)
raw = env.unwrapped
agent = MeldFirst()
agent.reset(seat=0, seed=0)
for _ in range(2):
    obs, *_ = env.last()
    seat = raw.agent_name_mapping[env.agent_selection]
    a = agent.act(obs["observation"], obs["action_mask"], raw.view(seat))
    print(f"player_{seat} plays {raw.action_to_text(a)!r}")
    env.step(a)
raw
"""),
    md("""
## A small tournament
`rummy_env.experiments.tournament.run_tournament` takes agent *specs* (`random`, `heuristic`, `ppo:PATH`),
which a process pool can rebuild. For an agent defined in a notebook we use the same building
blocks in-process: the seatings (every agent in every seat on the same deal), the deal and agent
seeds, `play_game`, and `summarize` for the statistics.
"""),
    code("""
from rummy_env.experiments import tournament as T

from rummy_env.registry import make_raw_env

def in_process_tournament(game, agents, labels, deals=40, seed=0, **options):
    env = make_raw_env(game, **options)
    n = len(env.possible_agents)
    lineup = T.seatings(len(agents), n)
    records = []
    for deal in range(deals):
        for rotation, seating in enumerate(lineup):
            seat_agents = [agents[a] for a in seating]
            seeds = [T.agent_seed(seed, deal, rotation, s) for s in range(n)]
            result = T.play_game(env, seat_agents, T.deal_seed(seed, deal), seeds)
            records.append({"index": len(records), "deal": deal, "agent_index": list(seating), **result})
    return T.summarize(records, labels, labels, n, ci_seed=seed)

contenders = {"meld_first": MeldFirst(), "random": RandomAgent()}
try:
    contenders["heuristic"] = make_agent("heuristic", "rummy")
except ValueError as e:
    print("skipping the rule-based baseline:", e)

summary = in_process_tournament("rummy", list(contenders.values()), list(contenders),
                                deals=20, num_players=len(contenders), max_rounds=1)
print(T.format_table(summary))
"""),
    code("""
import matplotlib.pyplot as plt

names = [s["agent"] for s in summary]
share = np.array([s["win_share"] for s in summary])
lo = np.array([s["win_share_ci"][0] for s in summary])
hi = np.array([s["win_share_ci"][1] for s in summary])
fig, ax = plt.subplots(figsize=(5, 3))
ax.bar(names, share, color="#4C72B0")
ax.errorbar(names, share, yerr=[share - lo, hi - share], fmt="none", ecolor="black", capsize=5)
ax.axhline(summary[0]["equal_share"], color="gray", ls="--", lw=1, label="equal strength")
ax.set_ylim(0, 1); ax.set_ylabel("win share (95% CI)"); ax.legend(); ax.set_title("Rummy")
plt.show()
"""),
    md("""
For agents the registry knows, the command line does the same with a process pool and writes
results, a plot and a replayable log:

```
rummy-env tournament rummy --agents heuristic,random --games 1000 --workers 2
```
"""),
]

# ---------------------------------------------------------------------------------------------
NB03 = [
    md("""
# Train a PPO agent (a short run)

`rummy_env.experiments.train_ppo` is single-file PPO in the CleanRL style: many games side by side, one seat
learns, the other seats are played by opponents (a pool of its past selves, the rule-based agent,
random). Here a very short run on one-round Rummy (reward +1 win / -1 loss) shows the moving parts and the learning curve;
real runs use the command line with far more steps.
"""),
    code(SETUP),
    code("""
import tempfile
from rummy_env.experiments import train_ppo

run_dir = tempfile.mkdtemp(prefix="ppo_rummy_")
args = train_ppo.parse_args([
    "--game", "rummy", "--opt", "max_rounds=1", "--opt", "reward_mode=win_loss", "--no-progress",
    "--total-timesteps", "2048", "--num-envs", "8", "--num-steps", "128",
    "--eval-every", "1", "--eval-episodes", "4", "--seed", "1", "--run-dir", run_dir,
])
trainer = train_ppo.train(args)
print(len(trainer.train_rows), "updates;", len(trainer.eval_rows), "evaluation rows")
"""),
    code("""
keys = ("update", "global_step", "episodes", "ep_return", "win_share", "entropy", "value_loss", "sps")
for row in trainer.train_rows:
    print("  ".join(f"{k} {row[k]:.3g}" if isinstance(row[k], float) else f"{k} {row[k]}" for k in keys))
for row in trainer.eval_rows:
    print(row)
"""),
    md("""
The learning curve written by the run (`learning_curve.png` in the run directory): training
return and win share, and the greedy policy's win share against the evaluation opponents.
"""),
    code("""
from IPython.display import Image as PNG
PNG(filename=f"{run_dir}/learning_curve.png")
"""),
    md("""
The trained policy is an ordinary agent: load `policy.pt` and play it, e.g. against random.
"""),
    code("""
import numpy as np
from rummy_env.agents.registry import load_ppo_agent
from rummy_env.agents.base import RandomAgent
from rummy_env.experiments.tournament import play_game
from rummy_env import rummy_v0

policy = load_ppo_agent(f"{run_dir}/policy.pt", "rummy")
env = rummy_v0.raw_env(max_rounds=1)
wins = 0
for g in range(10):
    seats = [policy, RandomAgent()] if g % 2 == 0 else [RandomAgent(), policy]
    result = play_game(env, seats, env_seed=g, agent_seeds=[g, g + 100])
    me = 0 if g % 2 == 0 else 1
    wins += result["returns"][me] > max(r for i, r in enumerate(result["returns"]) if i != me)
print(f"PPO won {wins} of 10 games against random after a few thousand steps")
"""),
    md("""
A longer run from the command line (resumable; rerun the same command after an interruption):

```
rummy-env train --game rummy --opt max_rounds=1 --total-timesteps 2000000 --run-dir runs/rummy_ppo
rummy-env play rummy --opponents ppo:runs/rummy_ppo/policy.pt
```
"""),
]

# ---------------------------------------------------------------------------------------------
NB04 = [
    md("""
# Ginny-O: rummy on a crossword board

Ginny-O places card tiles on a 15x15 board; every row and column line must be a meld. Coloured
squares multiply: yellow x2 and green x3 the tile, red x2 and blue x3 the meld; red squares are
start squares. A play is a series of `place <tile> at <square>` actions in reading order, closed
by `commit`. This notebook sets up positions with `reset(options={"deal": ...})` and draws them.
"""),
    code(SETUP),
    code("""
import numpy as np
from PIL import Image
from rummy_env import ginny_o_v0

env = ginny_o_v0.env(render_mode="rgb_array")
env.reset(seed=0, options={"deal": {
    "first": 0,
    "hands": [["8H", "9H", "TH", "5S", "5D", "2C", "KD"], ["AC", "3D", "4S", "7C", "QS", "JD", "6C"]],
    "board": ["G8 5H", "H8 6H", "I8 7H"],
}})
raw = env.unwrapped
raw
"""),
    md("""
The same position as an image (`render_mode="rgb_array"`):
"""),
    code("""
Image.fromarray(env.render())
"""),
    md("""
Player 0 draws, then extends the run 5H 6H 7H along row 8 onto J8, K8 and L8 (L8 is yellow: that
tile counts double) and commits the play.
"""),
    code("""
def play(*texts):
    for t in texts:
        a = raw.text_to_action(t)
        print(f"{raw.agent_selection}: {raw.action_to_text(a)}")
        env.step(a)

play("draw")
legal = [raw.action_to_text(a) for a in np.flatnonzero(env.last()[0]["action_mask"])]
print(len(legal), "legal actions, e.g.", legal[:8])
"""),
    code("""
play("place 8H at J8", "place 9H at K8", "place TH at L8", "commit")
print("scores:", raw.view(0)["scores"])
raw
"""),
    md("""
A cross play shares a board tile: 5S above and 5D below the 5H on G8 make the column set
5S 5H 5D (G7 and G9 are yellow).
"""),
    code("""
env.reset(seed=0, options={"deal": {
    "first": 0,
    "hands": [["5S", "5D", "2C", "KD", "3C", "9S", "QH"], ["AC", "3D", "4S", "7C", "QS", "JD", "6C"]],
    "board": ["G8 5H", "H8 6H", "I8 7H"],
}})
play("draw", "place 5S at G7", "place 5D at G9", "commit")
print("scores:", raw.view(0)["scores"])
Image.fromarray(env.render())
"""),
    md("""
## A random game to the end
"""),
    code("""
env.reset(seed=4)
rng = np.random.default_rng(4)
steps = 0
for agent in env.agent_iter():
    obs, reward, terminated, truncated, info = env.last()
    if terminated or truncated:
        env.step(None)
        continue
    env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    steps += 1
print(steps, "steps; final scores", raw.view(0)["scores"])
raw
"""),
]

NOTEBOOKS = {
    "01_quickstart.ipynb": NB01,
    "02_your_own_agent.ipynb": NB02,
    "03_train_ppo.ipynb": NB03,
    "04_ginny_o_board.ipynb": NB04,
}


def build(name: str):
    nb = new_notebook(cells=NOTEBOOKS[name])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    return nb


def execute(nb, timeout: int = TIMEOUT):
    """Run ``nb`` top to bottom in a fresh kernel started in ``notebooks/`` (raises on an error)."""
    from nbclient import NotebookClient
    NotebookClient(nb, timeout=timeout, kernel_name="python3",
                   resources={"metadata": {"path": str(HERE)}}).execute()
    for cell in nb.cells:  # an image shown as PNG need not be stored twice
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if "image/png" in data:
                data.pop("image/jpeg", None)
    return nb


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("only", nargs="*", help="build only notebooks whose name starts with these")
    parser.add_argument("--no-execute", action="store_true", help="write the notebooks without outputs")
    ns = parser.parse_args(argv)
    failed = []
    for name in NOTEBOOKS:
        if ns.only and not any(name.startswith(p) for p in ns.only):
            continue
        nb = build(name)
        if not ns.no_execute:
            start = time.perf_counter()
            try:
                execute(nb)
            except Exception as e:  # report every notebook, then fail
                failed.append(name)
                print(f"{name}: FAILED: {type(e).__name__}: {str(e).strip().splitlines()[-1]}")
                continue
            print(f"{name}: executed in {time.perf_counter() - start:.1f} s")
        nbformat.write(nb, HERE / name)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
