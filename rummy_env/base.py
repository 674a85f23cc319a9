"""The thin PettingZoo AEC layer shared by all five games.

A game is a plain-Python engine (the package ``rummy_env/games/<game>/``) that follows the
:class:`Game` protocol below. :class:`CardGameEnv` wraps one as a PettingZoo AEC environment
and keeps the shared contract of the rules' README: seeded ``reset`` with
``options={"deal": ...}`` (any other key, or an impossible deal, refused with ``ValueError``),
``action_to_text`` / ``text_to_action`` (grammar and id checks in :mod:`rummy_env.actions`),
observations that hold only what the seat may know.

Illegal actions (shared contract 4): a masked-out action id is refused with a ``ValueError``
naming its text and why, and so is anything that is not an action id (a float, even ``1.0``,
NaN, infinity, a bool, a string, ``None`` for a live agent, an int outside ``0..n-1``; numpy
integers are ids). A refused step changes nothing at all: not the game, the agent to act,
``last()`` (the pending reward included), rewards, terminations, truncations or infos. With
``illegal_action_penalty=True`` a masked-out id instead follows PettingZoo classic's
convention: the offender gets -1, the others 0, and the episode ends.

Observation formats (``action_mask`` option): ``"observation"`` (default, PettingZoo classic)
observes ``{"observation": Box, "action_mask": int8}``; ``"info"`` observes the bare Box and puts
the mask in ``infos[agent]["action_mask"]`` (so also in ``last()``'s info). In both the Box has the
finite bounds of the game's named layout, the unbounded parts capped by :meth:`CardGameEnv._range_caps`;
the parts a game names in ``clipped_parts`` can exceed their cap and are clipped into it.
``max_cycles=N`` truncates every agent once ``N * num_players`` steps have been played (PettingZoo's
``max_cycles``: N turns of every agent).
"""
from __future__ import annotations

import dataclasses
from typing import Any, Protocol

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import BaseWrapper

from .actions import check_action_id
from .information_state import InformationState
from .layout import ObservationLayout
from .rng import copy_rng, fresh_rng, seeded_rng


ACTION_MASK_FORMATS = ("observation", "info")
"""Values of the ``action_mask`` option: the mask in the observation Dict, or in the infos."""

RESET_OPTIONS = ("deal", "options")
"""Keys ``reset(options=...)`` accepts: ``"deal"`` (a scenario, shared contract 1) and ``"options"``,
which PettingZoo's ``api_test`` passes to check the signature and which is ignored."""


class Game(Protocol):
    """What an engine offers the wrapper. Seats are ints 0..n-1."""

    num_players: int
    num_actions: int
    current_player: int
    """Seat to act; meaningless once ``done``."""
    done: bool
    truncated: bool
    """True when the episode ended by a cap (truncation), not a normal end."""

    def legal_mask(self) -> np.ndarray:
        """int8 mask over all actions for ``current_player`` (the engine may cache it; the
        wrapper copies before handing it out)."""

    def step(self, action: int) -> np.ndarray | None:
        """Apply a legal action. Returns the per-seat rewards of this step, or None for all 0."""

    def illegal_reason(self, action: int) -> str:
        """Why ``action`` is not legal now (called only for masked-out actions)."""

    def observation(self, seat: int) -> np.ndarray:
        """float32 vector of fixed length ``observation_size``: what ``seat`` may know."""

    def view(self, seat: int) -> dict:
        """JSON-serialisable structured view of what ``seat`` may know.

        Keys every game gives (the renderers, terminal player and agents rely on them):
        ``game`` (e.g. ``"rummy_v0"``), ``seat``, ``num_players``, ``to_play`` (seat to act,
        -1 once over), ``phase`` (str), ``done`` (bool), ``hand`` (own card texts, sorted by
        suit then rank, jokers last), ``hand_sizes`` (list of int), ``scores`` (list of
        numbers: the game's running totals), ``legal_actions`` (action texts in ascending
        action-id order, i.e. aligned with ``np.flatnonzero(action_mask)``; only when
        ``seat == to_play``, else ``[]``), ``melds`` (list of ``{"index", "owner", "cards"}``
        with piece texts in table order; ``[]`` in games without melds), ``discard`` (public
        pile, bottom first; ``[]`` where it is face down), ``stock_size`` (int), ``events``
        (recent public events as text, newest last, at most 20). Games add their own keys
        (e.g. Ginny-O's ``board``); ``revealed_hands`` appears when the rules make hands public.
        """

    def action_to_text(self, action: int) -> str: ...

    def text_to_action(self, text: str) -> int: ...

    def clone(self) -> "Game":
        """An independent copy in the same state (its generator too), copied directly."""

    def determinize(self, seat: int, rng: np.random.Generator, **options: Any) -> "Game":
        """An independent copy in which everything ``seat`` cannot see is dealt again uniformly at
        random among the deals consistent with what it has seen; its generator is drawn from ``rng``.

        Keyword options change how the unseen cards are dealt; a game accepts only its own, each
        with a default, and refuses any other with ``TypeError``. The options:

        - ``truthful_claim`` (I Doubt It, default False): deal from the belief that the pending
          claim is true where it can be (``IDoubtItGame.determinize``).

        Rummy, Tongits, Contract Rummy and Ginny-O take none."""

    def to_dict(self) -> dict: ...


class CardGameEnv(AECEnv):
    """PettingZoo AEC environment over a :class:`Game` engine.

    Subclasses set ``metadata``, ``reward_modes`` (default first) and ``options_class``, and
    implement :meth:`_new_game` and :meth:`_sizes`.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human", "rgb_array"], "is_parallelizable": False}
    reward_modes: tuple[str, ...] = ()

    def __init__(self, render_mode: str | None = None, reward_mode: str | None = None,
                 illegal_action_penalty: bool = False, action_mask: str = "observation",
                 max_cycles: int | None = None, **options: Any):
        super().__init__()
        if action_mask not in ACTION_MASK_FORMATS:
            raise ValueError(f"action_mask {action_mask!r} is not one of {list(ACTION_MASK_FORMATS)}")
        if max_cycles is not None and (not isinstance(max_cycles, (int, np.integer)) or isinstance(max_cycles, bool)
                                       or max_cycles < 1):
            raise ValueError(f"max_cycles must be None or an int >= 1, got {max_cycles!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not one of {self.metadata['render_modes']}")
        if reward_mode is not None and reward_mode not in self.reward_modes:
            raise ValueError(f"reward_mode {reward_mode!r} is not one of {list(self.reward_modes)}")
        if not isinstance(illegal_action_penalty, bool):
            raise ValueError(f"illegal_action_penalty must be a bool, got {illegal_action_penalty!r}")
        self.render_mode = render_mode
        self.illegal_action_penalty = illegal_action_penalty
        self.mask_in_info = action_mask == "info"
        self.max_cycles = max_cycles
        self.options = self._make_options(reward_mode=reward_mode or self.reward_modes[0], **options)
        n = self.options.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        _, num_actions = self._sizes()
        self._num_actions = num_actions
        self.observation_box = self._observation_box()
        layout = self.observation_layout()
        self._clipped = [(layout[name].slice, self.observation_box.low[layout[name].start],
                          self.observation_box.high[layout[name].start]) for name in self.clipped_parts]
        mask_space = spaces.Box(0, 1, (num_actions,), np.int8)
        self.observation_spaces = {
            a: self.observation_box if self.mask_in_info else spaces.Dict(
                {"observation": self.observation_box, "action_mask": mask_space})
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(num_actions) for a in self.possible_agents}
        self.np_random = np.random.default_rng()
        self.seed_used: int | None = None
        self.game: Game | None = None

    # -- subclass hooks -------------------------------------------------------------------
    options_class: type
    """The game's ``Options`` dataclass; it validates values in ``__post_init__``."""

    def _make_options(self, **options: Any):
        """``options_class(**options)``, refusing unknown names with a ``ValueError``."""
        known = [f.name for f in dataclasses.fields(self.options_class)]
        unknown = sorted(set(options) - set(known))
        if unknown:
            raise ValueError(f"unknown option(s) {unknown} for {self.metadata['name']}; options are {known}")
        return self.options_class(**options)

    def _sizes(self) -> tuple[int, int]:
        """(observation length, number of actions) for ``self.options``."""
        raise NotImplementedError

    def observation_layout(self) -> ObservationLayout:
        """The observation's named parts for ``self.options``."""
        raise NotImplementedError

    def _new_game(self, rng: np.random.Generator, deal: dict | None) -> Game:
        raise NotImplementedError

    clipped_parts: tuple[str, ...] = ()
    """Observation parts whose values can exceed their cap (e.g. chip totals): clipped into it."""

    def _range_caps(self) -> dict[str, tuple[float, float]]:
        """Finite (low, high) for every layout part whose declared range is unbounded, from the options."""
        return {}

    # -- observation bounds -----------------------------------------------------------------
    def _observation_box(self) -> spaces.Box:
        """The observation Box: the layout's ranges, unbounded ends replaced by :meth:`_range_caps`."""
        layout = self.observation_layout()
        low, high, _ = layout.bounds()
        for name, (cap_low, cap_high) in self._range_caps().items():
            low[layout[name].slice], high[layout[name].slice] = cap_low, cap_high
        if not (np.isfinite(low).all() and np.isfinite(high).all()):
            unbounded = sorted({layout.part_at(int(i)).name for i in np.flatnonzero(~np.isfinite(low + high))})
            raise ValueError(f"{self.metadata['name']}: no finite cap for observation part(s) {unbounded}")
        return spaces.Box(low.astype(np.float32), high.astype(np.float32), dtype=np.float32)

    def clip_observation(self, obs: np.ndarray) -> np.ndarray:
        """``obs`` (a game observation) with the ``clipped_parts`` clipped into their caps, in place."""
        for part, low, high in self._clipped:
            np.clip(obs[part], low, high, out=obs[part])
        return obs

    # -- spaces ---------------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # -- AEC API --------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start an episode: a seeded deal, or the scenario ``options["deal"]`` (shared contract 1).

        ``options`` is ``None`` or a dict of :data:`RESET_OPTIONS`; anything else, an unknown key
        or an impossible deal raises ``ValueError`` and leaves the environment as it was (except
        that an unseeded failed deal may have drawn from the generator).
        """
        if options is None:
            deal = None
        elif not isinstance(options, dict):
            raise ValueError(f"reset options must be None or a dict with keys among {list(RESET_OPTIONS)}, "
                             f"got {options!r}")
        else:
            unknown = [key for key in options if key not in RESET_OPTIONS]
            if unknown:
                raise ValueError(f"unknown reset option(s) {unknown}: known are {list(RESET_OPTIONS)}")
            deal = options.get("deal")
        rng = self.np_random if seed is None else np.random.default_rng(seed)
        self.game = self._new_game(rng, deal)
        if seed is not None:
            self.np_random = rng
            self.seed_used = seed
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.game.current_player]
        self.num_steps = 0
        self.cycles_ended = False
        if self.mask_in_info:
            self._masks_to_infos()

    def _masks_to_infos(self) -> None:
        """``infos[agent]["action_mask"]`` for every agent (``action_mask="info"``)."""
        for agent in self.agents:
            self.infos[agent] = {**self.infos[agent], "action_mask": self._action_mask(agent)}

    def _action_mask(self, agent: str) -> np.ndarray:
        """The agent's legal actions (a copy); all zeros when it is not its turn or the episode is over."""
        game = self.game
        if self.agent_name_mapping[agent] == game.current_player and not game.done and not self.cycles_ended:
            return game.legal_mask().copy()
        return np.zeros(self._num_actions, dtype=np.int8)

    def observe(self, agent: str) -> dict[str, np.ndarray] | np.ndarray:
        obs = self.game.observation(self.agent_name_mapping[agent])
        if self._clipped:
            self.clip_observation(obs)
        if self.mask_in_info:
            return obs
        return {"observation": obs, "action_mask": self._action_mask(agent)}

    def step(self, action: int | None) -> None:
        """Apply ``action`` for the agent to act; a refused action changes nothing (module docstring)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.game
        a = check_action_id(action, self._num_actions)
        if not game.legal_mask()[a]:
            if not self.illegal_action_penalty:
                raise ValueError(f"illegal action {a} '{game.action_to_text(a)}' for {agent}: "
                                 f"{game.illegal_reason(a)}")
            self._cumulative_rewards[agent] = 0.0
            for other in self.agents:
                self.rewards[other] = -1.0 if other == agent else 0.0
                self.terminations[other] = True
            if self.mask_in_info:
                self._masks_to_infos()
            self.infos[agent] = {**self.infos[agent], "illegal_action": game.action_to_text(a)}
            self._accumulate_rewards()
            return
        self._cumulative_rewards[agent] = 0.0
        rewards = game.step(a)
        seats = self.possible_agents  # every agent stays in self.agents until the episode ends
        if rewards is None:
            for other in seats:
                self.rewards[other] = 0.0
        else:
            for seat, other in enumerate(seats):
                self.rewards[other] = float(rewards[seat])
                self._cumulative_rewards[other] += float(rewards[seat])
        self.num_steps += 1
        if not game.done and self.max_cycles is not None and self.num_steps >= self.max_cycles * len(seats):
            self.cycles_ended = True
        if game.done or self.cycles_ended:
            ended = self.truncations if game.truncated or not game.done else self.terminations
            for other in seats:
                ended[other] = True
        else:
            self.agent_selection = self.possible_agents[game.current_player]
        if self.mask_in_info:
            self._masks_to_infos()
        if self.render_mode == "human":
            self.render()

    # -- copies for search ------------------------------------------------------------------
    def clone(self) -> "CardGameEnv":
        """An independent raw environment in the same state (game, agents, rewards, cumulative
        rewards, terminations, truncations, infos, agent to act, options, generator), steppable
        through the AEC API; stepping either never changes the other."""
        twin = self._copy_env()
        twin.game = self.game.clone()
        twin.np_random = copy_rng(self.np_random)
        return twin

    def determinize(self, agent: str | int, seed: int) -> "CardGameEnv":
        """An independent raw environment like :meth:`clone`, in which everything ``agent`` (name
        or seat) cannot see is dealt again uniformly at random among the deals consistent with
        what it has seen (each engine's ``determinize`` says what is public). ``agent`` gets the
        same observation, view and legal actions; the same ``seed`` gives the same world."""
        seat = self._seat_of(agent)
        rng = seeded_rng(seed)
        twin = self._copy_env()
        twin.game = self.game.determinize(seat, rng)
        twin.np_random = fresh_rng(rng)
        return twin

    def information_state(self, agent: str | int) -> InformationState:
        """What ``agent`` (name or seat) may know now, as one object (:mod:`rummy_env.information_state`):
        what the search agents decide from; ``ValueError`` before ``reset``."""
        if self.game is None:
            raise ValueError("call reset() before information_state()")
        return InformationState(self.game, self._seat_of(agent), self.options)

    def _seat_of(self, agent: str | int) -> int:
        """The seat of ``agent`` (name or seat); ``ValueError`` for anything else."""
        if isinstance(agent, str) and agent in self.agent_name_mapping:
            return self.agent_name_mapping[agent]
        if isinstance(agent, (int, np.integer)) and not isinstance(agent, bool) and 0 <= agent < len(
                self.possible_agents):
            return int(agent)
        raise ValueError(f"no agent {agent!r}: the agents are {', '.join(self.possible_agents)} "
                         f"(or seats 0..{len(self.possible_agents) - 1})")

    def _copy_env(self) -> "CardGameEnv":
        """A copy of this environment's own state, still sharing the game and the generator."""
        if self.game is None:
            raise ValueError("call reset() before clone() or determinize()")
        twin = object.__new__(type(self))
        twin.__dict__.update(self.__dict__)
        twin.agents = list(self.agents)
        twin.rewards = dict(self.rewards)
        twin._cumulative_rewards = dict(self._cumulative_rewards)
        twin.terminations = dict(self.terminations)
        twin.truncations = dict(self.truncations)
        twin.infos = {agent: dict(info) for agent, info in self.infos.items()}
        return twin

    # -- shared contract helpers -----------------------------------------------------------
    def action_to_text(self, action: int) -> str:
        """Canonical text of an action id; ``ValueError`` for anything but an id of the action space,
        and before ``reset()``."""
        return self._reset_game("action_to_text").action_to_text(action)

    def text_to_action(self, text: str) -> int:
        """The action id of ``text`` (:mod:`rummy_env.actions` grammar); ``ValueError`` for anything
        else, and before ``reset()``."""
        return self._reset_game("text_to_action").text_to_action(text)

    def view(self, agent: str | int) -> dict:
        """Structured, information-safe view of ``agent`` (name or seat); ``ValueError`` naming the
        agents for anything else."""
        return self.game.view(self._seat_of(agent))

    def prompt(self, agent: str | int) -> str:
        """The text protocol's prompt for ``agent`` (name or seat), the seat to act: rules, situation,
        legal moves, answer instruction (:mod:`rummy_env.text_protocol`); ``ValueError`` for a seat
        that is not to act, and before ``reset()``."""
        from .text_protocol import prompt
        return prompt(self._reset_game("prompt").view(self._seat_of(agent)))

    def parse_reply(self, agent: str | int, reply: str) -> int:
        """The action id of the last ``[...]`` in ``agent``'s ``reply`` to :meth:`prompt`, read as
        :meth:`text_to_action` reads; its ``ValueError`` for anything else. Legality is the mask's
        business, as for any action id; ``ValueError`` before ``reset()``."""
        from .text_protocol import parse_reply
        game = self._reset_game("parse_reply")
        self._seat_of(agent)
        return parse_reply(reply, game.text_to_action)

    def _reset_game(self, method: str) -> Game:
        """The game; ``ValueError`` naming ``method`` before the first ``reset()`` (the action texts
        depend on the options and the game, and nothing is reset behind the caller's back)."""
        if self.game is None:
            raise ValueError(f"call reset() before {method}()")
        return self.game

    def render(self):
        if self.render_mode is None:
            return None
        if self.game is None:
            raise ValueError("call reset() before render()")
        seat = self.game.current_player
        if self.render_mode == "rgb_array":
            from .render import view_to_rgb
            return view_to_rgb(self.game.view(seat), self.metadata["name"])
        from .render import render_as_text
        return render_as_text(self.game.view(seat), self.render_mode)

    def _repr_html_(self) -> str:
        from .render import view_to_html
        if self.game is None:
            return f"<pre>{self.metadata['name']} (not reset)</pre>"
        return view_to_html(self.game.view(self.game.current_player), self.metadata["name"])

    def close(self) -> None:
        pass


ORDERED_ATTRIBUTES = frozenset({"rewards", "terminations", "truncations", "infos", "agent_selection",
                                "num_agents", "agents"})
"""Attributes the wrapper refuses with ``AttributeError`` before the first ``reset()``."""


class CardGameWrapper(BaseWrapper):
    """PettingZoo classic's order checks over the raw env, shown inline in Jupyter.

    Built on PettingZoo's public ``BaseWrapper`` only (its ``OrderEnforcingWrapper`` keeps its state
    in private flags, and its iterator reads them): before the first ``reset()`` the
    :data:`ORDERED_ATTRIBUTES` raise ``AttributeError`` and ``step``, ``last``, ``observe``,
    ``state``, ``render`` and ``agent_iter`` raise ``ValueError``; ``step`` once every agent is done
    only warns (PettingZoo's warning); ``agent_iter`` refuses to hand out a turn that was not
    stepped. ``last`` and ``step`` go straight to the raw env.
    """

    def __init__(self, env: CardGameEnv):
        super().__init__(env)
        self._reset_done = False
        self._stepped = False
        """Whether ``step`` or ``reset`` was called since ``agent_iter`` last handed out a turn."""

    def __getattr__(self, name: str) -> Any:
        if name in ORDERED_ATTRIBUTES and not self._reset_done:
            raise AttributeError(f"{name} cannot be accessed before reset()")
        return super().__getattr__(name)

    def _check_reset(self, method: str) -> None:
        if not self._reset_done:
            raise ValueError(f"call reset() before {method}()")

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.env.reset(seed=seed, options=options)
        self._reset_done = True
        self._stepped = True

    def step(self, action) -> None:
        if not self._reset_done:
            self._check_reset("step")
        self._stepped = True
        if self.env.agents:
            self.env.step(action)
        else:
            EnvLogger.warn_step_after_terminated_truncated()

    def last(self, observe: bool = True):
        if not self._reset_done:
            self._check_reset("last")
        return self.env.last(observe)

    def observe(self, agent: str):
        self._check_reset("observe")
        return self.env.observe(agent)

    def state(self) -> np.ndarray:
        self._check_reset("state")
        return self.env.state()

    def render(self):
        self._check_reset("render")
        return self.env.render()

    def agent_iter(self, max_iter: int = 2**63) -> "AgentTurns":
        self._check_reset("agent_iter")
        return AgentTurns(self, max_iter)

    def _repr_html_(self) -> str:
        return self.unwrapped._repr_html_()


class AgentTurns:
    """What :meth:`CardGameWrapper.agent_iter` returns: the agent to act, turn after turn, until no
    agent is left or ``max_iter`` turns were handed out; ``ValueError`` for a turn handed out
    before the last one was stepped (or the env reset)."""

    def __init__(self, wrapper: CardGameWrapper, max_iter: int):
        self.wrapper = wrapper
        self.max_iter = max_iter

    def __iter__(self):
        wrapper = self.wrapper
        raw = wrapper.unwrapped
        for _ in range(self.max_iter):
            if not raw.agents:
                return
            if not wrapper._stepped:
                raise ValueError("call step() or reset() before the next turn of agent_iter()")
            wrapper._stepped = False
            yield raw.agent_selection


def wrap(raw: CardGameEnv) -> AECEnv:
    """PettingZoo classic's ``env()``: the raw env behind an order-enforcing wrapper.

    Illegal actions are handled by the raw env itself (``ValueError`` or the penalty
    option), so PettingZoo's ``TerminateIllegalWrapper`` is not used.
    """
    return CardGameWrapper(raw)
