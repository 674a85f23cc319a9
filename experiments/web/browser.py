"""A server on a background thread and a real browser playing at it: what the browser test and the
screenshot script share.

The browser is the system's Chromium (Debian's ``chromium`` package) driven by Playwright for
Python, launched by its ``executable_path``; Playwright's own browser download is not used.
"""
from __future__ import annotations

import contextlib
import shutil
import socket
import threading
import time
from typing import Callable, Iterator

import numpy as np
import uvicorn

from .server import create_app
from .tables import Tables

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")
PREFERRED_WORDS = ("meld", "layoff", "place", "commit")
"""Moves a scripted person prefers, so that games end sooner than at random (first word)."""


def chromium_path() -> str | None:
    """The system Chromium's executable, or None when none is installed."""
    return next((path for path in map(shutil.which, CHROMIUM_NAMES) if path), None)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def running_server(tables: Tables, start: dict | None = None) -> Iterator[str]:
    """Serve ``create_app(tables, start)`` on 127.0.0.1 on a background thread; yields its base URL."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(tables, start), host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the web server did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def launch_chromium(playwright):
    """Playwright's Chromium on the system's executable (``RuntimeError`` when none is installed)."""
    path = chromium_path()
    if path is None:
        raise RuntimeError("no system Chromium found (apt-get install chromium)")
    return playwright.chromium.launch(executable_path=path, args=["--no-sandbox"])


def click_a_move(page, rng: np.random.Generator, choose: Callable[[list[str]], str] | None = None) -> bool:
    """Click one legal-move control (``data-action``) once it is this seat's turn: ``choose(texts)``'s
    move, else a random one, a preferred one if any; wait for the table to change. False once the
    result panel shows."""
    page.wait_for_selector('[data-testid="result"], #moves [data-action]', state="attached", timeout=60_000)
    if page.locator('[data-testid="result"]').count():
        return False
    version = page.locator(".head").first.get_attribute("data-version")
    texts = page.locator("#moves [data-action]").evaluate_all("nodes => nodes.map(n => n.dataset.action)")
    if choose is not None:
        text = choose(texts)
    else:
        preferred = [t for t in texts if t.split()[0] in PREFERRED_WORDS]
        pool = preferred or texts
        text = pool[rng.integers(len(pool))]
    control = page.locator(f'#moves [data-action="{text}"]')
    if not control.is_visible():  # in a folded group: open it
        control.locator("xpath=ancestor::details/summary").click()
    control.click()
    page.wait_for_function("v => document.querySelector('.head').dataset.version !== v", arg=version,
                           timeout=60_000)
    return True


def play_until_result(page, rng: np.random.Generator, max_moves: int = 3000) -> int:
    """Click moves until the result panel shows; returns the number of clicks."""
    for clicks in range(max_moves):
        if not click_a_move(page, rng):
            return clicks
    raise RuntimeError(f"no result after {max_moves} moves")
