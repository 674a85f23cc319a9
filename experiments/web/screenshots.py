"""Screenshots of the web table for the docs: the lobby, each game's table a few moves in, and the
replay viewer, taken in the system's Chromium (:mod:`.browser`).

``python -m rummy_env.experiments.web.screenshots [--out docs/images/web]`` writes ``lobby.png``,
``<game>.png`` for the five games and ``replay.png``.
"""
from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np
from playwright.sync_api import sync_playwright

from rummy_env.agents.registry import heuristic_class
from rummy_env.registry import GAMES

from ..io import read_jsonl, write_bytes
from .browser import click_a_move, launch_chromium, play_until_result, running_server
from .tables import Tables

MOVES_BEFORE_SHOT = {"rummy": 14, "tongits": 10, "i_doubt_it": 6, "contract_rummy": 14, "ginny_o": 10}
"""Clicks before each game's picture, so that the table has melds, a pile or tiles on the board; the
person clicks the move the rule-based agent would play."""
VIEWPORT = {"width": 1100, "height": 900}


def shoot(page, path: Path) -> None:
    write_bytes(path, page.screenshot(full_page=True))
    print(f"wrote {path}")


def take_screenshots(out: Path, seed: int = 5) -> None:
    rng = np.random.default_rng(seed)
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        tables = Tables(bot_delay=0.0, log_path=Path(tmp) / "games.jsonl")
        with running_server(tables) as base:
            browser = launch_chromium(p)
            page = browser.new_page(viewport=VIEWPORT)
            page.goto(f"{base}/lobby")
            shoot(page, out / "lobby.png")
            for game in GAMES:
                table = tables.create(game, {}, [0], "heuristic", seed=seed)
                page.goto(f"{base}/t/{table.id}/0?token={table.tokens[0]}")
                hint = heuristic_class(game)()
                hint.reset(0, seed)

                def choose(texts: list[str]) -> str:
                    obs = table.env.observe(table.env.possible_agents[0])
                    return table.env.action_to_text(hint.act(obs["observation"], obs["action_mask"], table.view(0)))

                for _ in range(MOVES_BEFORE_SHOT[game]):
                    if not click_a_move(page, rng, choose):
                        break
                page.wait_for_selector("#moves [data-action], [data-testid='result']", state="attached")
                shoot(page, out / f"{game}.png")
            table = tables.create("rummy", {"max_rounds": 1, "max_turns": 60}, [0], "random", seed=seed)
            page.goto(f"{base}/t/{table.id}/0?token={table.tokens[0]}")
            play_until_result(page, rng)
            page.goto(f"{base}/replay")
            page.set_input_files("#file", str(tables.log_path))
            page.wait_for_selector("#where[data-step='0']")
            page.select_option("#game", str(len(read_jsonl(tables.log_path)) - 1))  # the Rummy round
            page.wait_for_selector("#where[data-step='0']")
            for step in range(1, 25):
                page.click('[data-testid="forward"]')
                page.wait_for_selector(f"#where[data-step='{step}']")
            shoot(page, out / "replay.png")
            browser.close()


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``python -m rummy_env.experiments.web.screenshots``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="docs/images/web", help="folder of the pictures (default docs/images/web)")
    parser.add_argument("--seed", type=int, default=5, help="seed of the deals and the clicks (default 5)")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    ns = parser.parse_args(argv)
    take_screenshots(Path(ns.out), ns.seed)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
