"""The agent interface (defined in :mod:`rummy_env.agent`, which the Gymnasium wrapper uses too,
so that ``rummy_env`` never imports ``agents``)."""
from rummy_env.agent import Agent, RandomAgent

__all__ = ["Agent", "RandomAgent"]
