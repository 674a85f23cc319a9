"""The agent interface (defined in :mod:`rummy_env.agent`, which the Gymnasium wrapper uses too,
so that ``rummy_env`` never imports ``agents``), and the win rule that tournaments, training and
the search agents share."""
import numpy as np

from rummy_env.agent import Agent, RandomAgent

__all__ = ["Agent", "InformationStateAgent", "RandomAgent", "rule_based_agents", "win_credit"]


def win_credit(returns: list[float]) -> list[float]:
    """Win credit of each seat: 1 for the sole highest return, 1/m each for an m-way tie (the win
    share of tournaments, of training episodes and of the training evaluation, and the value the
    search agents back up with win credit)."""
    best = max(returns)
    winners = [r == best for r in returns]
    share = 1.0 / sum(winners)
    return [share if w else 0.0 for w in winners]


def rule_based_agents(cls: type[Agent], num_seats: int, rng) -> list[Agent]:
    """One rule-based agent (class ``cls``, see :func:`rummy_env.agents.registry.heuristic_class`) per
    seat, each reset for its seat with a seed drawn from the generator ``rng``: the search agents'
    rule-based seats."""
    agents = []
    for seat in range(num_seats):
        agent = cls()
        agent.reset(seat, int(rng.integers(2**31)))
        agents.append(agent)
    return agents


class InformationStateAgent(Agent):
    """An agent that decides from its seat's whole information state
    (:class:`rummy_env.information_state.InformationState`): harnesses call :meth:`act_on`, and
    :meth:`act` is refused with a message saying so. Subclasses implement :meth:`decide`."""

    uses_information_state = True

    def act(self, observation: np.ndarray, action_mask: np.ndarray, view: dict) -> int:
        raise ValueError(f"{self.name} decides from the seat's information state: call "
                         "agent.act_on(env.information_state(seat))")

    def act_on(self, state) -> int:
        """The move for ``state``, this agent's seat's information state (``ValueError`` for another seat's)."""
        if state.seat != self.seat:
            raise ValueError(f"{self.name} plays seat {self.seat}, not seat {state.seat}")
        return self.decide(state)

    def decide(self, state) -> int:
        raise NotImplementedError
