"""Single-observer information-set MCTS (SO-ISMCTS; Cowling, Powley and Whitehouse 2012) for all
five games, through the engine protocol of :class:`rummy_env.base.Game`.

One search per decision, one tree over the acting seat's information sets:

- **Determinization.** Every iteration starts from a new world, ``state.determinize(rng)`` of
  the seat's :class:`rummy_env.information_state.InformationState`: a game with everything the
  seat cannot see dealt again uniformly among the deals consistent with what it has seen. The agent
  is given only that object, so it decides from the seat's information alone (tests/test_ismcts.py
  gives it a position and its re-dealt twin and checks that the same seed chooses the same action).
- **Tree.** A node is one of the seat's own decisions. Its edges are the seat's actions, with
  visit count, total return and *availability* count (how many iterations the action was legal
  there). The child reached through action ``a`` is keyed by ``a`` and the seat's observation
  vector at its next decision (``game.observation(seat)``), i.e. by what the seat will have seen:
  a card drawn from the stock leads to a different node per card, moves it cannot tell apart to the
  same node.
- **Selection** (UCT restricted to the actions legal in this iteration's world): an untried legal
  action first (uniformly at random; then the iteration leaves the tree), else the legal action with
  the highest ``Q + c * sqrt(ln(availability) / visits)``. With ``bias`` b > 0, the rule-based
  agent's choice in this world (from the seat's observation, mask and view there) is a *progressive
  bias* (Chaslot et al. 2008): it is tried first among the untried actions and gets
  ``+ b / (visits + 1)``, so a small budget starts from the rule-based move and leaves it only for a
  move that does better in the search.
- **Other seats** are part of the environment, as in SO-ISMCTS: inside the tree and in the rollout
  they play the rollout policy in the determinized world (they get no tree of their own).
- **Rollout** to the end of the episode by the rollout policy: ``random`` (uniform over the legal
  actions, the default) or ``heuristic`` (the game's rule-based agent in every seat, from its
  observation, mask and view: several times slower per step, but its games are shorter and
  better informed).
- **Truncated rollouts** (``depth=D`` with a value of :mod:`.cutoff_value`: ``ppo``, a
  checkpoint path, ``cards`` in I Doubt It, ``score`` in Ginny-O): the rollout stops D steps after
  the iteration leaves the tree (or at the end of the episode) and the value's estimate of the
  seat's return from there is added to the rewards collected.
- **Belief** (``claims=truthful``, I Doubt It only): worlds are dealt believing that the player
  whose claim is pending told the truth when its re-dealt cards allow it
  (``IDoubtItGame.determinize(..., truthful_claim=True)``; agents/pimc.py says why).
- **Whole moves at the root** (``moves=plans``): the search chooses only among the ``candidates``
  best moves the rule-based agent ranks in the real game (``Agent.candidate_plans``: Contract
  Rummy's draws and discards, Ginny-O's plays); a multi-step move is played whole in every
  iteration and, once chosen, to its end. Decisions where the agent ranks none play its move.
- **Tree depth** (``tree=D``): an iteration keeps at most D of the seat's own decisions in the
  tree; later ones are the rollout policy's. ``tree=1`` is flat UCB over the root's actions, so the
  seat's later moves in the search are the rule-based agent's (with heuristic rollouts), not the
  half-explored statistics of deeper nodes.
- **Returns** are the seat's rewards from the decision to the end of the episode, in the game's own
  reward scale (the env's ``reward_mode``), or with ``credit=win`` its win credit as tournaments
  count it (1 for the sole highest return from the decision on, split on ties, else 0; whole
  rollouts only): Tongits' chips reward big wins, while a tournament counts only who won. For UCT
  they are normalized to [0, 1] by the lowest and highest return seen so far in this search (so
  one exploration constant ``c`` suits every game and reward mode, whatever its range).
- **Budget**: ``iterations`` per decision and/or ``seconds`` per decision (the search stops at the
  first one reached; at least one iteration). The move played is the most visited root action.
  A decision with one legal action is played without search.
- **Gate** (``gate=z``): the move played is the rule-based agent's (in the real game, from the
  seat's information) unless the most visited root action's mean return beats the rule-based
  move's by more than ``z`` standard errors (Welch's difference of the two means over their own
  iterations). A search's departures are bets on its uniform worlds, which ignore what the
  opponents' play reveals; the gate keeps only those the search is sure of
  (``experiments/studies/decision_gain.py`` measures what they are worth in the real deal).
- **Paired baseline** (``baseline=rule``): an iteration that chooses another root action than the
  rule-based move (as the gate defines it) also plays the rule-based move in a copy of the same
  world, with the same rollout policy and horizon, and backs up the difference of the two returns;
  an iteration that chooses the rule-based move backs up 0. A control variate: the luck of the
  world (which hidden cards the re-deal gave whom) cancels, so UCT and the gate compare moves on
  their paired gain over the rule-based move instead of on unpaired means. The baseline does not
  depend on the action chosen, so each action's mean stays an unbiased estimate of its gain. An
  iteration that departs costs two rollouts.

The agent decides from the seat's information state: harnesses call
``agent.act_on(env.information_state(seat))`` (``uses_information_state``; e.g.
``rummy_env.experiments.tournament.play_game``). The rule-based agent it rolls out with, biases
towards and gates by is given to it (``rule_class``, built by :mod:`rummy_env.agents.registry`).
"""
from __future__ import annotations

import math
import time

import numpy as np

from rummy_env.registry import game_key
from rummy_env.validate import check_choice, check_int, check_number

from .base import Agent, InformationStateAgent, rule_based_agents, win_credit
from .cutoff_value import CutoffValue

ROLLOUTS = ("random", "heuristic")
CLAIMS = ("uniform", "truthful")
MOVES = ("actions", "plans")
CREDITS = ("return", "win")
BASELINES = ("none", "rule")
DEFAULT_CANDIDATES = 3
DEFAULT_ITERATIONS = 200
DEFAULT_EXPLORATION = 0.7


class Node:
    """One of the searching seat's information sets: per-action statistics and children."""

    __slots__ = ("visits", "total", "squares", "available", "children")

    def __init__(self) -> None:
        self.visits: dict[int, int] = {}
        self.total: dict[int, float] = {}
        self.squares: dict[int, float] = {}
        """Per action: the sum of squared returns (for the gate's standard errors)."""
        self.available: dict[int, int] = {}
        self.children: dict[tuple[int, bytes], Node] = {}


class ISMCTSAgent(InformationStateAgent):
    """SO-ISMCTS with a budget of ``iterations`` and/or ``seconds`` per decision (module docstring)."""

    name = "ismcts"
    uses_view = False

    def __init__(self, game: str, rule_class: type[Agent], iterations: int | None = DEFAULT_ITERATIONS,
                 seconds: float | None = None, rollout: str = "random", exploration: float = DEFAULT_EXPLORATION, bias: float = 0.0,
                 depth: int | None = None, value: str | None = None, claims: str = "uniform",
                 moves: str = "actions", candidates: int = DEFAULT_CANDIDATES, credit: str = "return",
                 tree: int | None = None, gate: float | None = None, baseline: str = "none") -> None:
        if iterations is None and seconds is None:
            raise ValueError("ismcts needs a budget: iterations, seconds or both")
        if iterations is not None:
            check_int("ismcts iterations", iterations, lo=1)
        if seconds is not None:
            check_number("ismcts seconds", seconds, strict=True)
        if rollout not in ROLLOUTS:
            raise ValueError(f"ismcts rollout must be one of {', '.join(ROLLOUTS)}, got {rollout!r}")
        check_number("ismcts exploration constant c", exploration)
        check_number("ismcts bias", bias)
        if (depth is None) != (value is None):
            raise ValueError("ismcts depth and value go together: a rollout cut off after depth steps needs a value")
        if depth is not None:
            check_int("ismcts depth", depth, lo=1)
        check_choice("ismcts claims", claims, CLAIMS)
        check_choice("ismcts moves", moves, MOVES)
        check_int("ismcts candidates", candidates, lo=2)
        check_choice("ismcts credit", credit, CREDITS)
        if credit == "win" and depth is not None:
            raise ValueError("ismcts credit=win needs whole rollouts: a value's estimate at a cut-off is no win credit")
        if tree is not None:
            check_int("ismcts tree", tree, lo=1)
        if gate is not None:
            check_number("ismcts gate", gate)
        check_choice("ismcts baseline", baseline, BASELINES)
        if claims == "truthful" and game_key(game) != "i_doubt_it":
            raise ValueError(f"ismcts claims=truthful is a belief about I Doubt It claims, not for {game}")
        self.game_name = game
        self.iterations = iterations
        self.seconds = seconds
        self.rollout = rollout
        self.exploration = float(exploration)
        self.bias = float(bias)
        self.depth = depth
        self.rule_class = rule_class
        """The game's rule-based agent class (a no-argument constructor)."""
        self.cutoff_value = None if value is None else CutoffValue(game, value, "ismcts", rule_class)
        self.deal_options = {"truthful_claim": True} if claims == "truthful" else {}
        self.moves = moves
        self.candidates = candidates
        self.credit = credit
        self.tree_depth = tree
        """The most of the seat's own decisions an iteration keeps in the tree (None: no limit)."""
        self.gate = gate
        """Standard errors a departure from the rule-based move needs (None: no gate)."""
        self.baseline = baseline == "rule"
        """Whether returns are backed up less the rule-based move's return in the same world."""
        self.rule_move = -1
        """During a search with a gate or a baseline: the rule-based move at the root."""
        self.last_departed = False
        """Whether the latest search played another move than the rule-based agent's (with a gate)."""
        self.num_seats = 0
        self.own_rule_agent: Agent | None = None
        """With ``moves=plans``: the rule-based agent ranking this seat's moves in the real game."""
        self.root_moves: dict[int, list[int]] | None = None
        """With ``moves=plans``, during a search: each root move's first action and its actions."""
        self.plan: list[int] = []
        """The rest of the multi-step move chosen at an earlier decision."""
        self.prepared = False
        """Whether this episode's rule-based agents are built (at the first decision after ``reset``)."""
        self.rule_agents: list[Agent] = []
        """The rule-based agent of every seat, for heuristic rollouts and the bias."""
        self.last_iterations = 0
        """Iterations of the latest search (0 when the decision had one legal action)."""
        self.last_visits: dict[int, int] = {}
        """The latest search's visit count per root action (empty when it did not search)."""
        self.reset(0, None)

    def reset(self, seat: int, seed: int | None = None) -> None:
        super().reset(seat, seed)
        self.prepared = False
        self.plan = []

    def prepare(self, state) -> None:
        """At the first decision of an episode: check the value against the rules
        (:meth:`CutoffValue.check_options`, ``ValueError``) and build the rule-based agents this
        search needs, one per seat (seeded from this agent's generator)."""
        if self.cutoff_value is not None:
            self.cutoff_value.check_options(state.options)
        self.num_seats = state.num_seats
        self.rule_agents = []
        if self.moves == "plans":
            self.own_rule_agent = self.rule_class()
            self.own_rule_agent.reset(self.seat)
        if self.rollout == "heuristic" or self.bias > 0 or self.gate is not None or self.baseline:
            self.rule_agents = rule_based_agents(self.rule_class, state.num_seats, self.rng)
        self.prepared = True

    # -- deciding ---------------------------------------------------------------------------------
    def decide(self, state) -> int:
        """The move for ``state`` (the seat's :class:`~rummy_env.information_state.InformationState`)."""
        if not self.prepared:
            self.prepare(state)
        action_mask = state.action_mask()
        legal = np.flatnonzero(action_mask)
        self.last_iterations, self.last_visits = 0, {}
        if self.plan:   # the rest of the multi-step move chosen earlier
            action = self.plan.pop(0)
            if action_mask[action]:
                return action
            self.plan = []
        if not len(legal):
            raise ValueError(f"ismcts plays seat {self.seat}, which is not to act")
        self.root_moves = None
        if self.moves == "plans":
            self.root_moves = self._ranked_moves(state, action_mask)
            legal = np.array(list(self.root_moves))
        if len(legal) == 1:
            return self._play_move(int(legal[0]))
        if self.gate is not None or self.baseline:
            self.rule_move = self._rule_move(state, action_mask)
        root = Node()
        self._low, self._high = math.inf, -math.inf
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        done = 0
        while True:
            self._iterate(root, state.determinize(self.rng, **self.deal_options))
            done += 1
            if self.iterations is not None and done >= self.iterations:
                break
            if deadline is not None and time.perf_counter() >= deadline:
                break
        self.last_iterations = done
        visits = self.last_visits = root.visits
        best = int(max(legal, key=lambda a: (visits.get(int(a), 0), root.total.get(int(a), 0.0))))
        if self.gate is not None:
            best = self._gated(root, best)
        return self._play_move(best)

    def _rule_move(self, state, action_mask: np.ndarray) -> int:
        """The rule-based move at the root: the first of the ranked moves (``moves=plans``), else the
        rule-based agent's action from the seat's information state."""
        if self.root_moves is not None:
            return next(iter(self.root_moves))   # the rule-based agent's own move comes first
        rule_agent = self.rule_agents[self.seat]
        rule_agent.forget_plan()
        return int(rule_agent.act(state.observation(), action_mask.copy(), state.view()))

    def _gated(self, root: Node, best: int) -> int:
        """``best`` if its mean return beats the rule-based move's by more than ``gate`` standard
        errors, else the rule-based move (module docstring, Gate)."""
        rule = self.rule_move
        self.last_departed = False
        if best == rule or root.visits.get(rule, 0) < 2 or root.visits.get(best, 0) < 2:
            return rule
        means, variances = [], []
        for action in (best, rule):
            n = root.visits[action]
            mean = root.total[action] / n
            means.append(mean)
            variances.append(max(root.squares[action] / n - mean * mean, 0.0) * n / (n - 1) / n)
        gain = means[0] - means[1]
        self.last_departed = gain > 0 and gain > self.gate * math.sqrt(variances[0] + variances[1])
        return best if self.last_departed else rule

    def _ranked_moves(self, state, action_mask: np.ndarray) -> dict[int, list[int]]:
        """The rule-based agent's ``candidates`` best moves from the seat's information state (its
        own move alone when it ranks none), keyed by their first actions (the first move for each)."""
        rule = int(self.own_rule_agent.act(state.observation(), action_mask.copy(), state.view()))
        moves: dict[int, list[int]] = {}
        for move in self.own_rule_agent.candidate_plans(self.candidates) or [[rule]]:
            moves.setdefault(move[0], move)
        self.own_rule_agent.forget_plan()   # this agent plays the rest of the chosen move itself
        return moves

    def _play_move(self, action: int) -> int:
        """``action``, keeping the rest of its whole move (``moves=plans``) to play next."""
        if self.root_moves is not None:
            self.plan = self.root_moves[action][1:]
        return action

    def _iterate(self, root: Node, world) -> None:
        """One iteration in ``world``: select at the root, play on in the tree and roll out
        (:meth:`_playout`), back up (less the paired baseline's return with ``baseline=rule``)."""
        self._forget_plans()
        action, in_tree = self._select(root, world, self.root_moves)
        baseline = 0.0
        if self.baseline and action != self.rule_move:
            baseline, _ = self._playout(world.clone(), self.rule_move, in_tree, None)
            self._forget_plans()
        total, path = self._playout(world, action, in_tree, root)
        if self.baseline:
            total = 0.0 if action == self.rule_move else total - baseline
        self._low = min(self._low, total)
        self._high = max(self._high, total)
        for node, action in path:
            node.visits[action] = node.visits.get(action, 0) + 1
            node.total[action] = node.total.get(action, 0.0) + total
            node.squares[action] = node.squares.get(action, 0.0) + total * total

    def _playout(self, world, action: int, in_tree: bool, root: Node | None) -> tuple[float, list]:
        """Plays the root ``action`` in ``world`` (its whole move with ``moves=plans``), then the
        seat's later decisions in the tree below ``root`` (``None``: none, as with ``tree=1``) and
        the rollout (to the end, or ``depth`` steps and the value's estimate). Returns the seat's
        return (or win credit) and the path of (node, action) to back up."""
        seat = self.seat
        path: list[tuple[Node, int]] = [(root, action)]
        tree_depth = 1 if root is None else self.tree_depth
        returns = np.zeros(self.num_seats)
        rollout_steps = -1 if self.depth is None else self.depth
        for step in self.root_moves[action] if self.root_moves is not None else (action,):
            rewards = world.step(step)
            if rewards is not None:
                returns += rewards
        while not world.done:
            if in_tree and world.current_player == seat:
                if len(path) == tree_depth:
                    in_tree = False
                    continue
                parent, last = path[-1]
                key = (last, world.observation(seat).tobytes())
                node = parent.children.get(key)
                if node is None:
                    node = parent.children[key] = Node()
                action, in_tree = self._select(node, world)
                path.append((node, action))
                rewards = world.step(action)
            elif in_tree:
                rewards = world.step(self._rollout_action(world))
            elif rollout_steps == 0:
                returns[seat] += float(self.cutoff_value([world], seat)[0])
                break
            else:
                rollout_steps -= 1
                rewards = world.step(self._rollout_action(world))
            if rewards is not None:
                returns += rewards
        total = win_credit(returns.tolist())[seat] if self.credit == "win" else float(returns[seat])
        return total, path

    def _forget_plans(self) -> None:
        """Plans made in another world do not hold in this one."""
        for agent in self.rule_agents:
            agent.forget_plan()

    def _select(self, node: Node, world, only: dict | None = None) -> tuple[int, bool]:
        """(action, still in the tree) for the seat at ``node`` in ``world``: an untried legal action
        (leaving the tree), else UCT over the legal actions with availability counts and the bias;
        counts availability for every legal action. ``only``: the root's moves (``moves=plans``),
        the actions considered there."""
        available, visits, totals = node.available, node.visits, node.total
        legal = np.flatnonzero(world.legal_mask()).tolist()
        if only is not None:
            legal = [a for a in legal if a in only]
        guide = self._rule_action(world) if self.bias > 0 else -1
        untried = []
        for a in legal:
            available[a] = available.get(a, 0) + 1
            if a not in visits:
                untried.append(a)
        if untried:
            if guide in untried:
                return guide, False
            return untried[int(self.rng.integers(len(untried)))], False
        low, span = self._low, self._high - self._low
        c = self.exploration
        best, best_score = -1, -math.inf
        for a in legal:
            n = visits[a]
            mean = totals[a] / n
            q = (mean - low) / span if span > 0 else 0.5
            score = q + c * math.sqrt(math.log(available[a]) / n)
            if a == guide:
                score += self.bias / (n + 1)
            if score > best_score:
                best, best_score = a, score
        return best, True

    def _rollout_action(self, world) -> int:
        """The rollout policy's action for the seat to act in ``world``."""
        if self.rollout == "heuristic":
            return self._rule_action(world)
        legal = np.flatnonzero(world.legal_mask())
        return int(legal[self.rng.integers(len(legal))])

    def _rule_action(self, world) -> int:
        """The rule-based agent's action for the seat to act in ``world``, from that seat's view."""
        s = world.current_player
        return int(self.rule_agents[s].act(world.observation(s), world.legal_mask().copy(), world.view(s)))

