"""AEC wrappers for learners that read rewards per move.

Most of a seat's reward in these games is paid on other seats' moves (a hand is won or lost on
someone else's discard or doubt). Readers that credit a seat only with ``env.rewards[seat]`` right
after its own step (Tianshou's ``PettingZooEnv``, PettingZoo's SB3 action-mask tutorial) drop that
part. :class:`CreditOnTurn` moves it onto the seat's own steps::

    from rummy_env import tongits_v0
    from rummy_env.wrappers import CreditOnTurn
    env = CreditOnTurn(tongits_v0.env())
"""
from __future__ import annotations

from pettingzoo.utils.wrappers import BaseWrapper


class CreditOnTurn(BaseWrapper):
    """Rewards credited on the agent's own steps.

    After the agent to act steps, ``rewards[agent]`` (and ``_cumulative_rewards[agent]``, which
    ``last()`` and PettingZoo's SB3 tutorial read) is everything the agent was paid since its
    previous step, this step included; every other agent's reward is 0. On the step that ends the
    episode every agent is paid what it is still owed. So what an agent is credited on its own
    steps, plus what it is paid on the last step when that is not its own, sums to its episode
    return. The raw env's ``rewards`` stay as they are (``env.unwrapped.rewards``).
    """

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.env.reset(seed=seed, options=options)
        self.owed = {agent: 0.0 for agent in self.env.possible_agents}
        self.rewards = {agent: 0.0 for agent in self.env.agents}
        self._cumulative_rewards = dict(self.rewards)

    def step(self, action) -> None:
        actor = self.env.agent_selection
        was_dead = self.env.terminations[actor] or self.env.truncations[actor]
        self.env.step(action)
        if was_dead:
            self.rewards = {agent: 0.0 for agent in self.env.agents}
            self._cumulative_rewards = {agent: self._cumulative_rewards.get(agent, 0.0) for agent in self.env.agents}
            return
        for agent, reward in self.env.rewards.items():
            self.owed[agent] += reward
        over = all(self.env.terminations[a] or self.env.truncations[a] for a in self.env.agents)
        paid = self.env.agents if over else [actor]
        self.rewards = {agent: 0.0 for agent in self.env.agents}
        for agent in paid:
            self.rewards[agent], self.owed[agent] = self.owed[agent], 0.0
        self._cumulative_rewards = dict(self.rewards)
