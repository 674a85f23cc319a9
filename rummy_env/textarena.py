"""The five games in TextArena's registry (the ``textarena`` extra; tested with textarena 0.7.4).

``import rummy_env.textarena`` registers ``rummy_env/Rummy-v0``, ``rummy_env/Tongits-v0``,
``rummy_env/IDoubtIt-v0``, ``rummy_env/GinnyO-v0`` and ``rummy_env/ContractRummy-v0`` (each also
as ``...-v0-raw``, without wrappers), so ``textarena.make(...)`` gives an environment with
TextArena's contract: ``reset(num_players, seed)``, ``get_observation()`` -> (player id, text),
``step(action)`` -> (done, info), ``close()`` -> (rewards, game info).

Observations follow the text protocol (:mod:`rummy_env.text_protocol`): each player gets the rules
once (a ``PROMPT`` message) and, when it is to act, its situation and legal moves (a
``GAME_BOARD`` message); the default wrappers (TextArena's ``GameBoardObservationWrapper`` and
``ActionFormattingWrapper``) show the rules and the latest board, i.e. ``env.prompt(agent)``. An
action is read like a reply (the last ``[...]``). An invalid one is refused with the reason and
asked again, up to ``error_allowance`` times in a row; one more ends the game with -1 for the
offender and 0 for the others. At a normal end the seats with the highest episode return get +1
(all level: 0 each) and the others -1; ``game_info`` holds every seat's ``return``.
"""
from __future__ import annotations

import dataclasses

import textarena as ta
from textarena.envs.registration import register_with_versions
from textarena.wrappers import ActionFormattingWrapper
from textarena.wrappers.ObservationWrappers.llm_observation_wrapper import GameBoardObservationWrapper

from .registry import make_raw_env
from .text_protocol import turn_text
from .text_rules import RULES

IDS = {
    "rummy": "rummy_env/Rummy-v0",
    "tongits": "rummy_env/Tongits-v0",
    "i_doubt_it": "rummy_env/IDoubtIt-v0",
    "ginny_o": "rummy_env/GinnyO-v0",
    "contract_rummy": "rummy_env/ContractRummy-v0",
}
"""TextArena id of each game."""


class RummyTextArenaEnv(ta.Env):
    """One of the five games behind TextArena's ``Env`` interface (module docstring); ``options``
    are the game's options (``num_players`` comes from ``reset``)."""

    def __init__(self, game: str, error_allowance: int = 1, **options):
        if not isinstance(error_allowance, int) or error_allowance < 0:
            raise ValueError(f"error_allowance must be an int >= 0, got {error_allowance!r}")
        if "num_players" in options:
            raise ValueError("num_players is given to reset(num_players, seed), not to make()")
        self.game = game
        self.error_allowance = error_allowance
        self.options = options
        self.raw = None

    def reset(self, num_players: int, seed: int | None = None) -> None:
        """Deal a new game for ``num_players`` (``ValueError`` for a count the game does not allow)."""
        self.raw = make_raw_env(self.game, **self.options)
        if len(self.raw.possible_agents) != num_players:
            if "num_players" not in {f.name for f in dataclasses.fields(self.raw.options)}:
                raise ValueError(f"{self.game} is played by exactly {len(self.raw.possible_agents)} players, "
                                 f"got num_players={num_players!r}")
            self.raw = make_raw_env(self.game, num_players=num_players, **self.options)
        self.raw.reset(seed=seed)
        self.returns = [0.0] * num_players
        self.errors = 0
        self.state = ta.State(num_players=num_players, max_turns=None)  # no seed: leaves `random` alone
        self.state.standard_resets(game_state={"game": self.game},
                                   role_mapping={pid: f"Player {pid}" for pid in range(num_players)},
                                   player_prompt_function=self._rules_text)
        self._show_turn()

    def _rules_text(self, player_id: int, game_state: dict) -> str:
        return f"{RULES[self.game]}\n\nYou are Player {player_id} (player_{player_id} in the game's text)."

    def _show_turn(self, error: str | None = None) -> None:
        """The board message of the seat to act: its situation and moves (after ``error``, if any)."""
        seat = self.raw.game.current_player
        self.state.current_player_id = seat
        text = turn_text(self.raw.view(seat))
        if error is not None:
            text = f"Your last answer was not accepted: {error}\n\n{text}"
        self.state.add_observation(text, ta.ObservationType.GAME_BOARD, to_id=seat)

    def step(self, action: str) -> tuple[bool, dict]:
        seat = self.state.current_player_id
        self.state.add_observation(action, ta.ObservationType.PLAYER_ACTION, from_id=seat, to_id=seat)
        error = None
        try:
            move = self.raw.parse_reply(seat, action)
        except ValueError as e:
            error = str(e)
        else:
            if not self.raw.game.legal_mask()[move]:
                error = f"{self.raw.action_to_text(move)!r} is not a legal move now"
        if error is not None:
            self._refuse(seat, error)
        else:
            self._play(seat, move)
        return self.state.done, {}

    def _refuse(self, seat: int, error: str) -> None:
        self.errors += 1
        if self.errors > self.error_allowance:
            self.state.game_info[seat]["invalid_move"] = True
            self.state.rewards = {pid: -1 if pid == seat else 0 for pid in range(self.state.num_players)}
            self._finish(f"Player {seat} made {self.errors} invalid moves in a row: {error}")
            return
        self.state.add_observation(f"Invalid move: {error}", ta.ObservationType.GAME_ADMIN, to_id=seat)
        self._show_turn(error)

    def _play(self, seat: int, move: int) -> None:
        self.errors = 0
        self.raw.step(move)
        self.state.turn += 1
        self.state.game_info[seat]["turn_count"] += 1
        for pid, name in enumerate(self.raw.possible_agents):
            self.returns[pid] += self.raw.rewards[name]
        if not self.raw.game.done:
            self._show_turn()
            return
        best = max(self.returns)
        level = all(r == best for r in self.returns)
        self.state.rewards = {pid: 0 if level else (1 if r == best else -1) for pid, r in enumerate(self.returns)}
        winners = [f"Player {pid}" for pid, r in enumerate(self.returns) if r == best]
        self._finish(f"the game is over; highest return: {', '.join(winners)}")

    def _finish(self, reason: str) -> None:
        for pid in range(self.state.num_players):
            self.state.game_info[pid].update(reason=reason, **{"return": self.returns[pid]})
        self.state.add_observation(reason, ta.ObservationType.GAME_ADMIN)
        self.state.done = True


for _game, _id in IDS.items():
    register_with_versions(id=_id, entry_point=RummyTextArenaEnv, game=_game,
                           wrappers={"default": [GameBoardObservationWrapper, ActionFormattingWrapper]})
