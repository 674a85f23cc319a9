"""An agent for any OpenAI-compatible chat model (issue 44), playing through the text protocol
(:mod:`rummy_env.text_protocol`): each decision sends the prompt of the seat's view
(``text_protocol.prompt``, what ``env.prompt(seat)`` sends) as one user message and plays the move of
the reply (``text_protocol.parse_reply`` with the information state's ``text_to_action``).

Spec: ``llm:model=NAME[:base_url=URL][:temperature=T][:retries=N][:timeout=S][:fallback=heuristic|random]``
(:func:`rummy_env.agents.specs.parse_llm_spec`; a URL's or a model name's own colons are kept). The API key comes from
``OPENAI_API_KEY`` (local servers that ignore it need none); without ``base_url`` the ``openai``
package's default (``OPENAI_BASE_URL`` or OpenAI's API) is used.

- An invalid reply (no ``[...]``, a text that is no move, a move that is not legal now) is answered
  with the error and the model is asked again, up to ``retries`` times; then the fallback agent's
  move is played and counted.
- HTTP errors and timeouts are retried by the ``openai`` client (``max_retries=retries``,
  exponential backoff, honouring ``Retry-After``), then raise :class:`LLMServerError` naming the
  server and the model.
- Every decision is kept (:meth:`LLMAgent.pop_decisions`): the prompt, each reply with its error,
  token usage and latency, the move played and whether it was the fallback's. Tournaments write
  them into ``games.jsonl`` and sum them per agent in the summary.

Like the search agents it decides from the seat's information state (its view and action texts
only): harnesses call ``agent.act_on(env.information_state(seat))``. The fallback agent is given to
it (``fallback_agent``, built by :mod:`rummy_env.agents.registry`)."""
from __future__ import annotations

import os
import time

import numpy as np

from rummy_env.text_protocol import parse_reply, prompt

from .base import Agent, InformationStateAgent

FALLBACKS = ("heuristic", "random")
REASK = "Your answer was not accepted: {error}. Answer with exactly one of the legal moves listed above, in square brackets."


class LLMServerError(RuntimeError):
    """The chat-completions server failed (HTTP error or timeout) after all retries."""


class LLMAgent(InformationStateAgent):
    """Plays one seat by asking a chat model (module docstring)."""

    name = "llm"

    def __init__(self, game: str, model: str, base_url: str | None = None, temperature: float = 0.0,
                 retries: int = 2, timeout: float = 60.0, fallback: str = "heuristic",
                 fallback_agent: Agent | None = None):
        if not 0 <= temperature <= 2:
            raise ValueError(f"llm temperature must be in 0..2, got {temperature}")
        if timeout <= 0:
            raise ValueError(f"llm timeout must be > 0 seconds, got {timeout}")
        if retries < 0:
            raise ValueError(f"llm retries must be >= 0, got {retries}")
        if fallback not in FALLBACKS:
            raise ValueError(f"llm fallback must be one of {', '.join(FALLBACKS)}, got {fallback!r}")
        if (fallback == "heuristic") != (fallback_agent is not None):
            raise ValueError("llm fallback=heuristic goes with the rule-based agent (fallback_agent), which "
                             "make_agent builds; fallback=random with none")
        try:
            import openai
        except ImportError:
            raise ValueError("llm agents need the openai package: pip install 'rummy_env[llm]'") from None
        self.game_name, self.model, self.temperature, self.retries = game, model, temperature, retries
        self.client = openai.OpenAI(base_url=base_url or None, api_key=os.environ.get("OPENAI_API_KEY") or "none",
                                    timeout=timeout, max_retries=retries)
        self.server = str(self.client.base_url)
        self.api_error = openai.APIError
        self.fallback = fallback
        self.fallback_agent = fallback_agent
        self.decisions: list[dict] = []
        self.reset(0, None)

    def reset(self, seat: int, seed: int | None = None) -> None:
        super().reset(seat, seed)
        if self.fallback_agent is not None:
            self.fallback_agent.reset(seat, int(self.rng.integers(2**31)))
        self.decisions = []

    def pop_decisions(self) -> list[dict]:
        """The decisions since the last call (or ``reset``), oldest first, and forget them."""
        decisions, self.decisions = self.decisions, []
        return decisions

    def decide(self, state) -> int:
        """The model's move for ``state`` (the seat's :class:`~rummy_env.information_state.InformationState`)."""
        view, action_mask = state.view(), state.action_mask()
        text = prompt(view)
        messages = [{"role": "user", "content": text}]
        attempts = []
        action = None
        for _ in range(self.retries + 1):
            reply, attempt = self._ask(messages)
            action, error = self._read(state, reply, action_mask)
            attempts.append({**attempt, "error": error})
            if error is None:
                break
            messages += [{"role": "assistant", "content": reply},
                         {"role": "user", "content": REASK.format(error=error)}]
        fallback = attempts[-1]["error"] is not None
        if fallback:
            action = self._fallback_move(state.observation(), action_mask, view)
        self.decisions.append({
            "seat": self.seat, "decision": len(self.decisions), "prompt": text, "attempts": attempts,
            "move": state.action_to_text(action), "fallback": fallback,
            "invalid_replies": sum(a["error"] is not None for a in attempts),
            "prompt_tokens": sum(a["prompt_tokens"] or 0 for a in attempts),
            "completion_tokens": sum(a["completion_tokens"] or 0 for a in attempts),
            "latency_s": sum(a["latency_s"] for a in attempts),
        })
        return action

    def _ask(self, messages: list[dict]) -> tuple[str, dict]:
        """The model's reply to ``messages`` and the attempt's record (reply, tokens, latency)."""
        start = time.perf_counter()
        try:
            response = self.client.chat.completions.create(model=self.model, messages=messages,
                                                           temperature=self.temperature)
        except self.api_error as e:
            raise LLMServerError(f"language model server {self.server} (model {self.model!r}) failed after "
                                 f"{self.retries} retries: {type(e).__name__}: {e}") from None
        latency = time.perf_counter() - start
        reply = (response.choices[0].message.content or "") if response.choices else ""
        usage = response.usage
        return reply, {"reply": reply, "latency_s": latency,
                       "prompt_tokens": getattr(usage, "prompt_tokens", None),
                       "completion_tokens": getattr(usage, "completion_tokens", None)}

    def _read(self, state, reply: str, action_mask: np.ndarray) -> tuple[int | None, str | None]:
        """The legal action of ``reply`` in ``state``, or None and why it is not one."""
        try:
            action = parse_reply(reply, state.text_to_action)
        except ValueError as e:
            return None, str(e)
        if not action_mask[action]:
            return None, f"{state.action_to_text(action)!r} is not a legal move now"
        return action, None

    def _fallback_move(self, observation: np.ndarray, action_mask: np.ndarray, view: dict) -> int:
        if self.fallback_agent is None:
            legal = np.flatnonzero(action_mask)
            return int(legal[self.rng.integers(len(legal))])
        self.fallback_agent.forget_plan()
        return int(self.fallback_agent.act(observation, action_mask, view))
