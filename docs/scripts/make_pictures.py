"""Draw the pictures of the docs: one mid-game position per game, ``docs/images/<game>.png``.

Rule-based agents play a seeded game for a fixed number of decisions; the position is drawn with
``render_mode="rgb_array"`` (rummy_env/render/image.py), the acting seat's view. Run from the repository
root: ``python docs/scripts/make_pictures.py``.
"""
from __future__ import annotations

from pathlib import Path

from PIL import Image

from rummy_env.agents.registry import make_agent
from rummy_env.registry import GAMES, make_env

IMAGES = Path(__file__).resolve().parents[1] / "images"
POSITIONS = {"rummy": (3, 14), "tongits": (5, 16), "i_doubt_it": (1, 24), "contract_rummy": (2, 40), "ginny_o": (7, 12)}
"""game -> (deal seed, decisions played before the picture)."""


def position_picture(game: str, seed: int, decisions: int) -> Image.Image:
    """The acting seat's view after ``decisions`` rule-based decisions of the game dealt by ``seed``."""
    env = make_env(game, render_mode="rgb_array")
    env.reset(seed=seed)
    agents = {name: make_agent("heuristic", game) for name in env.possible_agents}
    for i, name in enumerate(env.possible_agents):
        agents[name].reset(i, seed + i)
    for played, name in enumerate(env.agent_iter()):
        if played == decisions:
            break
        obs, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        env.step(agents[name].act(obs["observation"], obs["action_mask"], env.unwrapped.view(name)))
    return Image.fromarray(env.render())


def main() -> None:
    IMAGES.mkdir(exist_ok=True)
    for game in GAMES:
        path = IMAGES / f"{game}.png"
        position_picture(game, *POSITIONS[game]).save(path, optimize=True)
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
