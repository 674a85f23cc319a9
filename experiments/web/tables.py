"""The tables of the web server: one game each, its seats (people, who hold secret tokens, and bots),
its moves and the updates its browsers wait for. Nothing here knows about HTTP.

A person moves with :meth:`Table.move`; every refusal is a :class:`TableError` carrying the HTTP
status the server answers with (403 wrong token, 409 not this seat's turn or the game is over, 400
move text that does not parse or is not legal) and changes nothing. Bots move in
:meth:`Table.play_bots`, their decisions computed on a thread pool so that a search bot never holds
up other tables, after ``bot_delay`` seconds so that people can follow. Every finished table is
appended to a ``games.jsonl`` in the tournament's format (:mod:`rummy_env.experiments.tournament`),
which ``rummy-env replay`` and the imitation tools read.

What a seat is shown comes from ``view(seat)`` only; a spectator gets :func:`public_view`, the
part of the view every seat shares.
"""
from __future__ import annotations

import asyncio
import secrets
from concurrent.futures import Executor
from pathlib import Path

from rummy_env.agents.registry import agent_labels, check_agent_spec, make_agent
from rummy_env.experiments.tournament import agent_move
from rummy_env.registry import game_key, make_raw_env
from rummy_env.render import TextStyle

from ..io import append_jsonl, read_jsonl
from ..play import NEW_HAND_EVENT, hand_mark, hand_result, new_events

PERSON = "human"
"""The seat spec of a person (every other seat spec is an agent spec)."""
SPECTATOR = -1
"""The seat number of a spectator's view."""
LOG_LINES = 200
"""Lines of events and hand results kept per seat."""


class TableError(Exception):
    """A refused request; ``status`` is the HTTP status it answers with."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def public_view(env) -> dict:
    """What every seat may know: the entries that are the same in every seat's view (hand sizes,
    scores, melds, the discard pile, the board, the public events, hands the rules reveal), with
    ``seat`` -1, an empty hand and no legal moves."""
    views = [env.view(s) for s in range(len(env.possible_agents))]
    shared = {key: value for key, value in views[0].items()
              if all(other.get(key) == value for other in views[1:])}
    shared.update(seat=SPECTATOR, hand=[], legal_actions=[])
    return shared


def seat_specs(num_seats: int, people: list[int], opponents: str) -> list[str]:
    """The spec of every seat: ``human`` for the seats in ``people``, the bots' specs in seat order
    from ``opponents`` (one spec for every bot, or one per bot separated by commas)."""
    bad = [p for p in people if not 0 <= p < num_seats]
    if bad or len(set(people)) != len(people):
        raise ValueError(f"people must be distinct seats 0..{num_seats - 1}, got {people}")
    bots = [s for s in range(num_seats) if s not in people]
    specs = [s.strip() for s in opponents.split(",")] if bots else []
    if len(specs) == 1:
        specs = specs * len(bots)
    if len(specs) != len(bots):
        raise ValueError(f"opponents lists {len(specs)} specs but there are {len(bots)} bot seats")
    by_seat = dict(zip(bots, specs))
    return [PERSON if s in people else by_seat[s] for s in range(num_seats)]


class Table:
    """One game at one table. ``specs`` gives each seat's spec (:data:`PERSON` or an agent spec);
    ``deal`` is a scenario (shared contract 1), for tests; a table with one is not logged, since
    its seed alone does not replay it."""

    def __init__(self, table_id: str, game: str, options: dict, specs: list[str], seed: int | None = None,
                 deal: dict | None = None, bot_delay: float = 0.0, log_path: str | Path | None = None,
                 executor: Executor | None = None):
        self.id = table_id
        self.game = game_key(game)
        self.options = dict(options)
        self.env = make_raw_env(self.game, **self.options)
        num_seats = len(self.env.possible_agents)
        if len(specs) != num_seats:
            raise ValueError(f"{self.game} with these options has {num_seats} seats, got {len(specs)} seat specs")
        for spec in specs:
            if spec != PERSON:
                check_agent_spec(spec, self.game)
        self.specs = list(specs)
        self.seed = secrets.randbelow(2**31) if seed is None else int(seed)
        self.scenario = deal
        self.env.reset(seed=self.seed, options=None if deal is None else {"deal": deal})
        self.agent_seeds = [self.seed + 1000 + s for s in range(num_seats)]
        self.bots = {}
        for seat, spec in enumerate(specs):
            if spec != PERSON:
                agent = make_agent(spec, self.game, self.options)
                agent.reset(seat, self.agent_seeds[seat])
                self.bots[seat] = agent
        self.tokens = {seat: secrets.token_urlsafe(16) for seat, spec in enumerate(specs) if spec == PERSON}
        self.watch_token = secrets.token_urlsafe(16)
        self.bot_delay = bot_delay
        self.log_path = None if log_path is None else Path(log_path)
        self.executor = executor
        self.actions: list[str] = []
        self.returns = [0.0] * num_seats
        self.version = 0
        """Moves applied so far; every update a browser receives carries it."""
        self.thinking: int | None = None
        """The bot seat deciding now, if any."""
        self.listeners: set[asyncio.Event] = set()
        self._bot_task: asyncio.Task | None = None
        view = public_view(self.env)
        self._events = list(view.get("events", []))
        self._mark, self._scores = hand_mark(view), list(view.get("scores", []))
        self.logs = {seat: list(self._events) for seat in (SPECTATOR, *range(num_seats))}
        """Per seat (and the spectator): the public events and the explained hand results."""

    # -- reading ---------------------------------------------------------------------------
    @property
    def num_seats(self) -> int:
        return len(self.specs)

    @property
    def done(self) -> bool:
        return bool(self.env.game.done)

    @property
    def to_play(self) -> int:
        return -1 if self.done else int(self.env.game.current_player)

    def view(self, seat: int) -> dict:
        """``view(seat)``, or :func:`public_view` for :data:`SPECTATOR`."""
        return public_view(self.env) if seat == SPECTATOR else self.env.view(seat)

    def check_token(self, seat: int, token: str | None) -> None:
        """403 unless ``token`` is the secret of person seat ``seat`` (or the spectators' token for
        :data:`SPECTATOR`); 404 for a seat the table does not have."""
        if seat != SPECTATOR and not 0 <= seat < self.num_seats:
            raise TableError(404, f"table {self.id} has seats 0..{self.num_seats - 1}, not {seat}")
        expected = self.watch_token if seat == SPECTATOR else self.tokens.get(seat)
        if expected is None:
            raise TableError(403, f"seat {seat} of table {self.id} is a bot ({self.specs[seat]})")
        if not isinstance(token, str) or not secrets.compare_digest(token.encode(), expected.encode()):
            raise TableError(403, f"missing or wrong token for seat {seat} of table {self.id}")

    # -- moving ----------------------------------------------------------------------------
    def move(self, seat: int, token: str | None, text: object) -> str:
        """A person's move by its text (any case, as ``text_to_action`` reads it); returns the
        canonical text. Refusals (:class:`TableError`) change nothing."""
        self.check_token(seat, token)
        if self.done:
            raise TableError(409, f"table {self.id}: the game is over")
        if seat != self.to_play:
            raise TableError(409, f"not your turn: player_{self.to_play} is to play")
        if not isinstance(text, str):
            raise TableError(400, f"a move is a text such as 'discard 7H', got {text!r}")
        try:
            action = self.env.text_to_action(text)
        except ValueError as e:
            raise TableError(400, str(e)) from None
        if not self.env.game.legal_mask()[action]:
            raise TableError(400, f"illegal move '{self.env.action_to_text(action)}': "
                                  f"{self.env.game.illegal_reason(action)}")
        self._apply(action)
        return self.actions[-1]

    def _apply(self, action: int) -> None:
        env = self.env
        self.actions.append(env.action_to_text(action))
        env.step(action)
        for seat, name in enumerate(env.possible_agents):
            self.returns[seat] += env.rewards.get(name, 0.0)
        self.version += 1
        self._record_events()
        if self.done:
            self._log_game()
        self.notify()

    def _record_events(self) -> None:
        """Add the new public events to every seat's log; at the end of a hand, its result in
        words (who won, how, the points; :func:`rummy_env.experiments.play.hand_result`) before
        the events that open the next one."""
        public = public_view(self.env)
        events = list(public.get("events", []))
        fresh = new_events(self._events, events)
        self._events = events
        ended = hand_mark(public) != self._mark
        cut = next((k for k, e in enumerate(fresh) if ended and NEW_HAND_EVENT.match(e)), len(fresh))
        plain = TextStyle(False)
        for seat, log in self.logs.items():
            log.extend(fresh[:cut])
            if ended:
                view = public if seat == SPECTATOR else self.env.view(seat)
                lines = hand_result(view, self._scores, plain)
                log.extend(line for line in lines if seat != SPECTATOR or not line.startswith("your "))
            log.extend(fresh[cut:])
            del log[:-LOG_LINES]
        if ended:
            self._mark, self._scores = hand_mark(public), list(public.get("scores", []))

    def _log_game(self) -> None:
        """Append the finished game to ``games.jsonl`` in the tournament's record format."""
        if self.log_path is None or self.scenario is not None:
            return
        index = len(read_jsonl(self.log_path)) if self.log_path.exists() else 0
        append_jsonl(self.log_path, [{
            "index": index, "game": self.game, "env": f"{self.game}_v0", "options": self.options,
            "seed": self.seed, "deal": None, "rotation": 0, "seating": agent_labels(self.specs),
            "agent_index": list(range(self.num_seats)), "agent_specs": self.specs,
            "agent_seeds": self.agent_seeds, "actions": self.actions, "returns": self.returns,
            "steps": len(self.actions), "truncated": bool(self.env.game.truncated), "table": self.id,
        }])

    # -- bots and updates -------------------------------------------------------------------
    def notify(self) -> None:
        """Wake every browser waiting for an update."""
        for event in self.listeners:
            event.set()

    def ensure_bots(self) -> None:
        """Start the bots' loop on the running event loop unless it runs already."""
        if self._bot_task is None or self._bot_task.done():
            self._bot_task = asyncio.get_running_loop().create_task(self.play_bots())

    async def play_bots(self) -> None:
        """While a bot is to play: wait ``bot_delay``, show it thinking, decide on the executor."""
        loop = asyncio.get_running_loop()
        while not self.done and self.to_play in self.bots:
            seat = self.to_play
            if self.bot_delay:
                await asyncio.sleep(self.bot_delay)
            self.thinking = seat
            self.notify()
            try:
                action = await loop.run_in_executor(self.executor, self._bot_action, seat)
            finally:
                self.thinking = None
            self._apply(action)

    def _bot_action(self, seat: int) -> int:
        return agent_move(self.bots[seat], self.env, seat)


class Tables:
    """Every table of one server, by id."""

    def __init__(self, bot_delay: float = 0.0, log_path: str | Path | None = None,
                 executor: Executor | None = None):
        self.bot_delay = bot_delay
        self.log_path = log_path
        self.executor = executor
        self.tables: dict[str, Table] = {}

    def create(self, game: str, options: dict, people: list[int], opponents: str, seed: int | None = None,
               deal: dict | None = None) -> Table:
        """A new table (``ValueError`` naming the problem for a bad game, option or spec)."""
        num_seats = len(make_raw_env(game, **options).possible_agents)
        specs = seat_specs(num_seats, people, opponents)
        table = Table(secrets.token_hex(4), game, options, specs, seed=seed, deal=deal, bot_delay=self.bot_delay,
                      log_path=self.log_path, executor=self.executor)
        self.tables[table.id] = table
        return table

    def get(self, table_id: str) -> Table:
        table = self.tables.get(table_id)
        if table is None:
            raise TableError(404, f"no table {table_id!r}")
        return table

