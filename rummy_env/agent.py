"""The agent interface shared by baselines, trained policies, tournaments, the terminal player and
the Gymnasium wrapper's opponents. It lives in the environment package so that ``rummy_env`` never
imports ``agents``; ``rummy_env.agents.base`` re-exports it."""
from __future__ import annotations

import numpy as np


class Agent:
    """An agent sees only what its seat may see: the observation vector, the action mask and the
    structured view (``env.unwrapped.view(agent)``), never the engine state.

    ``view["legal_actions"]`` lists the legal action texts in ascending action-id order, aligned with
    ``np.flatnonzero(action_mask)``, so an agent that reasons on texts returns
    ``np.flatnonzero(action_mask)[i]`` for the i-th text.
    """

    name = "agent"
    uses_view = True
    """False for agents that read only the observation and mask: tournaments then skip the view."""
    uses_information_state = False
    """True for agents that decide from the seat's whole information state (the search agents, the
    language-model agent): harnesses call their ``act_on(env.information_state(seat))`` instead of
    :meth:`act` (:class:`rummy_env.information_state.InformationState`)."""

    def reset(self, seat: int, seed: int | None = None) -> None:
        """Called at the start of every episode with the agent's seat and a seed for its own RNG."""
        self.seat = seat
        self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, view: dict) -> int:
        raise NotImplementedError

    def forget_plan(self) -> None:
        """Drop what the agent planned from the last position it saw (e.g. the rest of a
        multi-step move); search agents call it before the agent plays a seat in another world.
        Agents that keep nothing between calls have nothing to drop."""

    def candidate_plans(self, count: int) -> list[list[int]] | None:
        """After :meth:`act` began a multi-step move (e.g. a Ginny-O play, placed tile by tile):
        up to ``count`` whole moves as action sequences, ranked by the agent, the one it began
        first; search agents compare these instead of single actions. None when the last decision
        was a single action (the default)."""
        return None


class RandomAgent(Agent):
    """Uniformly random among the legal actions."""

    name = "random"
    uses_view = False

    def __init__(self) -> None:
        self.reset(0, None)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, view: dict) -> int:
        legal = np.flatnonzero(action_mask.view(np.bool_) if action_mask.dtype == np.int8 else action_mask)
        return int(legal[self.rng.integers(len(legal))])
