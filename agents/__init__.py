"""Agents that play rummy_env games through one small interface (:class:`rummy_env.agents.base.Agent`)."""
from .base import Agent, RandomAgent

__all__ = ["Agent", "RandomAgent"]
