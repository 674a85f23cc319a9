"""A small OpenAI-compatible chat-completions server on 127.0.0.1 for the language-model tests.

It is no language model: it plays by rule. It reads the move lines of the prompt (the first user
message, :mod:`rummy_env.text_protocol`) and answers one of them in square brackets, picked by its
seeded generator (I Doubt It's grouped ``play`` line by a one-card play). On command it answers
otherwise, one request per entry of ``script`` (then by rule again), or for every request from
``fail_after`` requests on:

- ``"garbage"``: a reply without a move in brackets;
- ``"illegal"``: ``[layoff AS @16]``, a Rummy and Tongits move text that is never legal in the tests;
- ``"500"`` / ``"429"``: that HTTP status with an error body (``retry-after-ms: 1``, so the client's
  retries come at once);
- ``"slow"``: the rule's answer after ``slow_s`` seconds (longer than the tests' client timeouts).

Usage counts characters / 4 as tokens. ``requests`` records each request's mode and messages.

    python tests/llm_server.py --port 8000      # serve until interrupted
"""
from __future__ import annotations

import argparse
import json
import random
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MOVE_LINE = re.compile(r"^- (.+)$", re.MULTILINE)
HELD = re.compile(r"^play <ranks>:.*\(you hold ([^)]+)\)")
PLACE = re.compile(r"^place <tile> at (\w+), <tile> one of: (.+)$")
GARBAGE = "I would rather not say."
ILLEGAL = "[layoff AS @16]"


def rule_move(prompt: str, rng: random.Random) -> str:
    """One of the legal moves of the prompt's last move list; I Doubt It's grouped line stands for a
    play of one of the ranks it says the hand holds, a Ginny-O square's line for one of its tiles."""
    moves = []
    for line in MOVE_LINE.findall(prompt.rpartition("Legal moves (")[2]):  # the latest list
        held, place = HELD.search(line), PLACE.search(line)
        if held:
            line = f"play {rng.choice(held.group(1).split(', '))[0]}"
        elif place:
            line = f"place {rng.choice(place.group(2).split())} at {place.group(1)}"
        moves.append(line)
    return rng.choice(moves) if moves else ""


class RuleServer(ThreadingHTTPServer):
    """The server; ``url`` is its ``base_url`` (``http://127.0.0.1:PORT/v1``)."""

    daemon_threads = True

    def __init__(self, seed: int = 0, slow_s: float = 2.0, port: int = 0):
        super().__init__(("127.0.0.1", port), _Handler)
        self.rng = random.Random(seed)
        self.slow_s = slow_s
        self.script: list[str] = []
        self.fail_after: tuple[int, str] | None = None
        self.requests: list[tuple[str, list[dict]]] = []
        self.lock = threading.Lock()
        self.url = f"http://127.0.0.1:{self.server_address[1]}/v1"

    def next_mode(self) -> str:
        with self.lock:
            if self.fail_after is not None and len(self.requests) >= self.fail_after[0]:
                return self.fail_after[1]
            return self.script.pop(0) if self.script else "rule"

    def start(self) -> "RuleServer":
        threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()


class _Handler(BaseHTTPRequestHandler):
    server: RuleServer

    def log_message(self, format, *args) -> None:  # quiet
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        if not self.path.endswith("/chat/completions"):
            return self._send(404, {"error": {"message": f"no route {self.path}"}})
        messages = body.get("messages", [])
        mode = self.server.next_mode()
        with self.server.lock:
            self.server.requests.append((mode, messages))
            prompt = next((m.get("content") or "" for m in messages if m.get("role") == "user"), "")
            move = rule_move(prompt, self.server.rng)
        if mode in ("500", "429"):
            return self._send(int(mode), {"error": {"message": f"injected {mode}", "type": "server_error"}})
        if mode == "slow":
            time.sleep(self.server.slow_s)
        reply = {"garbage": GARBAGE, "illegal": ILLEGAL}.get(mode, f"I play [{move}]")
        prompt_chars = sum(len(m.get("content") or "") for m in messages)
        self._send(200, {
            "id": f"chatcmpl-{len(self.server.requests)}", "object": "chat.completion", "created": 0,
            "model": body.get("model", ""),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": reply}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": prompt_chars // 4, "completion_tokens": len(reply) // 4 + 1,
                      "total_tokens": prompt_chars // 4 + len(reply) // 4 + 1},
        })

    def _send(self, status: int, payload: dict) -> None:
        data = json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("retry-after-ms", "1")
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout)
            pass


def main() -> None:
    parser = argparse.ArgumentParser(description="a rule-playing OpenAI-compatible server on 127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    server = RuleServer(args.seed, port=args.port)
    print(f"serving on {server.url}")
    server.serve_forever()


if __name__ == "__main__":
    main()
