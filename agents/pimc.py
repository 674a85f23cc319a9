"""A search-improved rule-based agent: determinized flat Monte Carlo (perfect-information Monte
Carlo, PIMC) over a few candidate moves, with common random numbers, that leaves the rule-based
agent's move only when the search finds a better one with confidence (issue 16).

At each of its decisions with more than one legal action:

- **Rule-based move.** The game's rule-based agent chooses from the seat's observation, mask and
  view; this is the default move.
- **Worlds.** Each evaluation samples a world ``state.determinize(rng)`` from the seat's
  :class:`rummy_env.information_state.InformationState` (everything the seat cannot see dealt again
  consistently with what it has seen) and plays every candidate in a copy of
  that same world, then rolls out to the end of the episode with the rule-based agent in every seat.
  The rule-based agents are deterministic and the world fixes the stock order, so two candidates
  differ on a world only through the move: the paired differences carry little noise (common
  random numbers).
- **Value** of a rollout: the seat's win credit under the tournament's rule (1 for the highest
  return from the decision on, ties split) plus ``points`` times its return, so that among equally
  winning moves the one that scores more is preferred.
- **Truncated rollouts** (``value=ppo``, ``value=PATH``, ``value=cards`` or ``value=score``, for
  the long games, where one whole rule-based rollout costs 0.2-1 s): a rollout stops after
  ``depth`` further steps, or with ``depth=turn`` when the seat is to act again (or at the end of
  the episode), and its value is the seat's *episode return*, not win credit: the rewards
  collected so far plus, at a cut-off, the estimate of :mod:`.cutoff_value` (a value head on the
  seat's observation, I Doubt It's hand-size or Ginny-O's score estimate). In these games' reward
  modes the return is, up to ties, 2 x win - 1, so it ranks moves as win credit does.
- **Whole moves** (``moves=plans``): the candidates are the moves the default agent ranks
  (``Agent.candidate_plans``: Ginny-O's best plays, placed tile by tile to the commit; Contract
  Rummy's draws and discards), not random legal actions; each is played whole in the rollouts, and
  the chosen one is played to its end before the next search. Decisions where the agent ranks none
  are not searched.
- **Belief** (``claims=truthful``, I Doubt It only): worlds are dealt with the belief that the
  player whose claim is pending told the truth when its re-dealt cards allow it
  (``IDoubtItGame.determinize(..., truthful_claim=True)``), instead of uniformly. Uniform worlds
  make almost every claim a lie, while the rule-based players claim truthfully whenever they can,
  so a search over them doubts far too often (docs/journal/search.md, "Why I Doubt It resists").
- **PPO default move** (``base=ppo``): the committed PPO policy's greedy move replaces the
  rule-based one as the move a challenger must beat; rollouts are still rule-based. The registry
  builds that agent (``base_agent``), checked against the env's options there.
- **Screen, then test.** ``screen`` worlds rank every legal action (at most ``candidates`` of
  them: the rule-based move and the others in a random order); the best challenger then plays
  against the rule-based move on ``worlds`` fresh worlds, and it is played only when its mean
  paired gain is above ``z`` standard errors (and above zero). The test uses worlds the screen did
  not see, so picking the luckiest of many candidates does not bias it. With only two legal
  actions there is nothing to screen; when the first half of the test worlds shows no gain the
  test stops there (futility stop) and the rule-based move is played.

Budget per decision: at most ``screen * (number of candidates) + 2 * worlds`` rollouts. The agent is
given only the seat's information state (``act_on(state)``, as ISMCTS; harnesses build it with
``env.information_state(seat)``), so it decides from the seat's information alone
(tests/test_ismcts.py gives it a position and its re-dealt twin and checks the choice). The
rule-based agent class it rolls out with is given to it (``rule_class``, built by
:mod:`rummy_env.agents.registry`).

This module's spec is
``pimc[:W][:screen=S][:candidates=K][:z=Z][:points=P][:value=ppo|cards|score|PATH[:depth=D|turn]][:base=ppo]``
``[:claims=truthful][:moves=plans]``.
"""
from __future__ import annotations

import math

import numpy as np

from rummy_env.registry import game_key
from rummy_env.validate import check_choice, check_int, check_number

from .base import Agent, InformationStateAgent, rule_based_agents, win_credit
from .cutoff_value import CutoffValue

DEFAULT_WORLDS = 16
DEFAULT_SCREEN = 4
DEFAULT_CANDIDATES = 8
DEFAULT_Z = 1.0
DEFAULT_POINTS = 0.0
BASES = ("heuristic", "ppo")
"""Who chooses the default move: the rule-based agent, or the committed PPO policy (greedy)."""
MOVES = ("actions", "plans")
"""What the search compares: single legal actions, or the whole moves the default agent ranks
(``candidate_plans``; decisions where it offers none are not searched)."""
CLAIMS = ("uniform", "truthful")
"""How worlds are dealt: uniformly, or believing a pending I Doubt It claim true when it can be."""


class PIMCAgent(InformationStateAgent):
    """The rule-based move, replaced by a searched one only when it is better with confidence."""

    name = "pimc"
    uses_view = True

    def __init__(self, game: str, rule_class: type[Agent], worlds: int = DEFAULT_WORLDS, screen: int = DEFAULT_SCREEN,
                 candidates: int = DEFAULT_CANDIDATES, z: float = DEFAULT_Z, points: float = DEFAULT_POINTS,
                 value: str = "rollout", depth: int | str | None = None, base: str = "heuristic",
                 claims: str = "uniform", moves: str = "actions", base_agent: Agent | None = None) -> None:
        for name, number, low in (("worlds", worlds, 2), ("screen", screen, 1), ("candidates", candidates, 2)):
            check_int(f"pimc {name}", number, lo=low)
        check_number("pimc z", z)
        check_number("pimc points", points)
        check_choice("pimc base", base, BASES)
        check_choice("pimc claims", claims, CLAIMS)
        check_choice("pimc moves", moves, MOVES)
        if claims == "truthful" and game_key(game) != "i_doubt_it":
            raise ValueError(f"pimc claims=truthful is a belief about I Doubt It claims, not for {game}")
        if depth is not None:
            if depth != "turn":
                check_int("pimc depth", depth, lo=1)
            if value == "rollout":
                raise ValueError("pimc depth needs a value (value=ppo, cards, score or a checkpoint path): a "
                                 "rollout cut off before the end needs one")
        if (base == "ppo") != (base_agent is not None):
            raise ValueError("pimc base=ppo goes with the PPO agent choosing the default move (base_agent), "
                             "which make_agent builds; base=heuristic with none")
        self.game = game
        self.rule_class = rule_class
        self.value = value
        self.cutoff_value = None if value == "rollout" else CutoffValue(game, value, "pimc", rule_class)
        self.depth = depth
        self.moves = moves
        self.deal_options = {"truthful_claim": True} if claims == "truthful" else {}
        self.base_agent = base_agent
        """the greedy PPO agent choosing the default move (``base=ppo``); None: the rule-based agent"""
        self.worlds = worlds
        self.screen = screen
        self.candidates = candidates
        self.z = float(z)
        self.points = float(points)
        self.prepared = False
        """Whether this episode's rule-based agents are built (at the first decision after ``reset``)."""
        self.rule_agents: list[Agent] = []
        """One rule-based agent per seat for the rollouts."""
        self.own_rule_agent: Agent | None = None
        """The rule-based agent choosing this seat's default move in the real game: apart from the
        rollouts' agents, so that a plan it keeps between calls (Ginny-O's multi-step plays) is not
        overwritten in the sampled worlds."""
        self.last_iterations = 0
        """Rollouts of the latest decision (0 when it had one legal action), as ISMCTS counts iterations."""
        self.last_deviated = False
        """Whether the latest decision left the rule-based move."""
        self.plan: list[int] = []
        """The rest of the multi-step move (``candidate_plans``) chosen at an earlier decision."""
        self.reset(0, None)

    def reset(self, seat: int, seed: int | None = None) -> None:
        super().reset(seat, seed)
        self.prepared = False
        self.plan = []

    def prepare(self, state) -> None:
        """At the first decision of an episode: builds one rule-based agent per seat for the rollouts
        and one for this seat's default move. With a value head (``value=ppo`` or ``value=PATH``),
        ``ValueError`` when the rules' ``reward_mode`` or observation differs from the checkpoint's
        (:meth:`CutoffValue.check_options`: the head would estimate another return than the
        rollouts collect)."""
        if self.cutoff_value is not None:
            self.cutoff_value.check_options(state.options)
        self.rule_agents = rule_based_agents(self.rule_class, state.num_seats, self.rng)
        self.own_rule_agent = self.rule_class()
        self.own_rule_agent.reset(self.seat)   # the rule-based agents draw nothing from their generator
        self.prepared = True

    def decide(self, state) -> int:
        """The move for ``state`` (the seat's :class:`~rummy_env.information_state.InformationState`)."""
        if not self.prepared:
            self.prepare(state)
        action_mask = state.action_mask()
        legal = np.flatnonzero(action_mask)
        self.last_iterations, self.last_deviated = 0, False
        if not len(legal):
            raise ValueError(f"pimc plays seat {self.seat}, which is not to act")
        if self.plan:   # the rest of the multi-step move chosen earlier
            action = self.plan.pop(0)
            if action_mask[action]:
                return action
            self.plan = []
        base = self.own_rule_agent if self.base_agent is None else self.base_agent
        rule = int(base.act(state.observation(), action_mask.copy(), state.view()))
        if len(legal) == 1:
            return rule
        if self.moves == "plans":
            candidates = base.candidate_plans(self.candidates) or [[rule]]
        else:
            others = [int(a) for a in legal if a != rule]
            order = self.rng.permutation(len(others))[: self.candidates - 1]
            candidates = [[rule]] + [[others[i]] for i in order]
        if len(candidates) == 1:
            return rule
        chosen = self._choose(state, candidates)
        if self.moves == "plans":   # this agent plays the rest of the chosen move itself
            base.forget_plan()
            self.plan = chosen[1:]
        return chosen[0]

    def _choose(self, state, candidates: list[list[int]]) -> list[int]:
        """The move to play among ``candidates`` (the default move first): the screen's best
        challenger if the test shows it better with confidence, else the default."""
        rule = candidates[0]
        if len(candidates) == 2:
            challenger = candidates[1]
        else:
            screened = self._values(state, candidates, self.screen)
            challenger = candidates[1 + int(np.argmax(screened.mean(axis=0)[1:]))]
        first = self._values(state, [rule, challenger], self.worlds // 2)
        gains = first[:, 1] - first[:, 0]
        if gains.mean() <= 0:   # futility stop: half the test worlds show no gain
            return rule
        rest = self._values(state, [rule, challenger], self.worlds - self.worlds // 2)
        gains = np.concatenate([gains, rest[:, 1] - rest[:, 0]])
        mean = float(gains.mean())
        error = float(gains.std(ddof=1)) / math.sqrt(len(gains))
        self.last_deviated = mean > 0 and mean > self.z * error
        return challenger if self.last_deviated else rule

    def _values(self, state, moves: list[list[int]], worlds: int) -> np.ndarray:
        """Rollout values, one row per sampled world and one column per move (each move, a list
        of actions, played in a copy of the same world); the rollouts cut off at the depth get the
        value's estimate added (the value head's in one batched forward)."""
        values = np.empty((worlds, len(moves)))
        cut_cells, cut_worlds = [], []
        for w in range(worlds):
            world = state.determinize(self.rng, **self.deal_options)
            for i, move in enumerate(moves):
                values[w, i], cut_world = self._rollout(world.clone(), move)
                if cut_world is not None:
                    cut_cells.append((w, i))
                    cut_worlds.append(cut_world)
        if cut_worlds:
            rows, cols = zip(*cut_cells)
            values[rows, cols] += self.cutoff_value(cut_worlds, self.seat)
        self.last_iterations += worlds * len(moves)
        return values

    def _rollout(self, world, move: list[int]) -> tuple[float, object | None]:
        """The seat's value after playing ``move`` (its actions) in ``world`` and the rule-based
        agents after it, to the end of the episode, for ``depth`` further steps or (``depth=turn``)
        until the seat is to act again; with the world when cut off there (the value's estimate is
        still to be added), else None."""
        returns = np.zeros(len(self.rule_agents))
        for agent in self.rule_agents:   # plans made in another world do not hold in this one
            agent.forget_plan()
        rewards = None
        for action in move:
            if rewards is not None:
                returns += rewards
            rewards = world.step(action)
        steps_left = self.depth if isinstance(self.depth, int) else -1
        while True:
            if rewards is not None:
                returns += rewards
            if world.done:
                break
            if steps_left == 0 or (self.depth == "turn" and world.current_player == self.seat):
                return float(returns[self.seat]), world
            steps_left -= 1
            s = world.current_player
            mask = world.legal_mask()
            rewards = world.step(int(self.rule_agents[s].act(world.observation(s), mask.copy(), world.view(s))))
        if self.value != "rollout":
            return float(returns[self.seat]), None
        return win_credit(returns.tolist())[self.seat] + self.points * float(returns[self.seat]), None

