"""The web table in a real browser: Playwright drives the system's Chromium through the lobby, a
whole Rummy round and a whole Ginny-O game against random bots (clicking ``data-action`` controls
until ``data-testid="result"`` shows), and the replay viewer."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("playwright")
pytest.importorskip("uvicorn")
from playwright.sync_api import sync_playwright  # noqa: E402

from rummy_env.experiments.io import read_jsonl  # noqa: E402
from rummy_env.experiments.web.browser import (chromium_path, launch_chromium, play_until_result,  # noqa: E402
                                               running_server)
from rummy_env.experiments.web.tables import Tables  # noqa: E402

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(chromium_path() is None, reason="no system Chromium (apt-get install chromium)")]


def test_lobby_rummy_round_ginny_o_game_and_replay_in_chromium(tmp_path):
    rng = np.random.default_rng(0)
    log = tmp_path / "games.jsonl"
    with running_server(Tables(bot_delay=0.0, log_path=log)) as base, sync_playwright() as p:
        browser = launch_chromium(p)
        page = browser.new_page()
        for game, options in (("rummy", "max_rounds=1\nmax_turns=60"), ("ginny_o", "")):
            page.goto(f"{base}/lobby")
            page.select_option("select[name=game]", game)
            page.fill("textarea[name=options]", options)
            page.fill("input[name=opponents]", "random")
            page.fill("input[name=seed]", "3")
            page.click('[data-testid="start"]')
            page.click('[data-testid="seat-link-0"]')
            assert play_until_result(page, rng) > 0
            assert "Game over" in page.locator('[data-testid="result"]').inner_text()
        records = read_jsonl(log)
        assert [r["game"] for r in records] == ["rummy", "ginny_o"]

        page.goto(f"{base}/replay")
        page.set_input_files("#file", str(log))
        page.wait_for_selector("#where[data-step='0']")
        page.select_option("#game", "1")
        page.wait_for_selector("#where[data-step='0']")
        first = page.locator("#frame").inner_html()
        page.click('[data-testid="forward"]')
        page.wait_for_selector("#where[data-step='1']")
        assert page.locator("#frame").inner_html() != first
        page.click('[data-testid="back"]')
        page.wait_for_selector("#where[data-step='0']")
        page.select_option("#seat", "0")
        page.click("#last")
        page.wait_for_selector(f"#where[data-step='{len(records[1]['actions'])}']")
        assert "the end" in page.locator("#frame").inner_text()
        browser.close()
