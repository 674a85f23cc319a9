"""The Ginny-O game: state, turn flow, illegal-action reasons and stepping (GO-7..GO-44).

State: the board (225 squares, each ``-1`` or a piece), the group of every board tile (GO-25)
and each group's start square, racks as count lists of length 53 (index 52 = jokers), the box
(a list, top first), scores, and the turn's phase (GO-40..GO-42) with this turn's drawn tile,
exchange choices and placements; for ``determinize``, the tiles each seat has drawn and what it
knows of the tiles it returned (:mod:`.determinize`).

Legal plays are searched once when a play phase opens (:class:`~.moves.PlaySearch`); the
placement mask of GO-43 is the set of next steps of the plays that begin with the placements
made so far. ``step`` works out the new position's plays and mask (:mod:`.moves`) once.
"""
from __future__ import annotations

import numpy as np

from ...cards import ACE_FIFTEEN_POINTS, CARD_TEXT, JOKER, NUM_CARDS
from ...melds import piece_text
from . import determinize as copies
from . import serialisation
from .actions import ACTIONS, COMMIT, DRAW, EXCHANGE0, NUM_ACTIONS, PASS, PLACE0, RETURN0
from .board import LAYOUTS, NEIGHBOURS, NSQ, SQUARE_TEXT, board_groups, score_play
from .determinize import ReturnedTiles, add_returned, note_draw, note_placement
from .moves import Play, PlaySearch, legal_mask, legal_plays
from .observation import board_block, write_observation
from .options import RACK_SIZE, Options, read_deal
from .view import committed_view, view

RACK_VALUE = ACE_FIFTEEN_POINTS + (0,)
"""End-of-game rack penalty per tile (GO-37): ace 15, joker 0."""


class GinnyOGame:
    """One Ginny-O episode (the ``Game`` protocol of ``rummy_env.base``)."""

    num_actions = NUM_ACTIONS

    # ---------------------------------------------------------------- construction
    def __init__(self, options: Options, search: PlaySearch | None = None):
        """An empty board and racks; ``search`` (for ``options``' layout and runs) may be shared."""
        self.options = options
        self.num_players = options.num_players
        self.premium = LAYOUTS[options.board_layout]
        self.search = search or PlaySearch(options.board_layout, options.descending_runs)
        self.rng = np.random.default_rng(0)
        self.board = [-1] * NSQ
        self.group = [-1] * NSQ
        self.group_start: list[int] = []
        self.racks = [[0] * 53 for _ in range(self.num_players)]
        self.box: list[int] = []
        self.draws = [0] * self.num_players
        """Tiles each seat has drawn from the box so far."""
        self.returned: list[tuple[ReturnedTiles, ...]] = [() for _ in range(self.num_players)]
        """What each seat knows of the tiles it put into the box (:mod:`.determinize`)."""
        self.scores = [0] * self.num_players
        self.final_scores: list[int] | None = None
        self.current_player = 0
        self.phase = "start"
        self.drew = -1            # tile drawn this turn (-1: none)
        self.box_empty_start = False
        self.placed: list[tuple[int, int]] = []
        self.chosen: list[int] = []
        self.stall = 0
        self.turns = 0
        self.done = False
        self.truncated = False
        self.events: list[str] = []
        self.history: list[str] = []
        self._mask: np.ndarray | None = None
        self._plays: list[Play] | None = None
        self._observations: dict[int, np.ndarray] = {}
        self._board_block = None
        self._committed_view = None

    def state_changed(self) -> None:
        """Work out again what derives from the state (the legal plays and mask, the cached
        observation parts and view) after the state was set directly."""
        self._observations = {}
        self._board_block = None
        self._committed_view = None
        self._plays = None
        self._update_moves()

    def _update_moves(self) -> None:
        """The legal plays (when not narrowed already) and mask of the position (:mod:`.moves`)."""
        if self._plays is None:
            self._plays = legal_plays(self)
        self._mask = legal_mask(self, self._plays)

    @classmethod
    def new(cls, options: Options, rng: np.random.Generator, deal: dict | None = None) -> "GinnyOGame":
        """A fresh game (GO-8, GO-9), or the position of a scenario ``deal``."""
        g = cls(options)
        g.rng = np.random.default_rng(int(rng.integers(2 ** 63)))
        n = g.num_players
        if deal is None:
            tiles = [t for t in range(53) for _ in range(options.tile_limits()[t])]
            rng.shuffle(tiles)
            for s in range(n):
                for t in tiles[RACK_SIZE * s:RACK_SIZE * (s + 1)]:
                    g.racks[s][t] += 1
            g.box = tiles[RACK_SIZE * n:]
            g.current_player = int(rng.integers(n))
        else:
            position = read_deal(options, deal, rng)
            g.board, g.group, g.group_start = position.board, position.group, position.group_start
            g.racks, g.box, g.current_player = position.racks, position.box, position.first
            if position.scores is not None:
                g.scores = position.scores
        g._start_turn()
        g._update_moves()
        return g

    def set_board(self, board: list[int]) -> None:
        """Put a committed board (225 pieces, -1 empty) in place, checked and its groups numbered
        (GO-15, GO-22..GO-25); ``ValueError`` naming a problem."""
        self.group, self.group_start = board_groups(board, self.premium, self.options.descending_runs)
        self.board = list(board)
        self.state_changed()

    # ---------------------------------------------------------------- turn flow
    def _start_turn(self) -> None:
        self.placed = []
        self._board_block = None
        self.chosen = []
        self.drew = -1
        self.box_empty_start = not self.box
        self.phase = "play" if self.box_empty_start else "start"
        self._plays = None
        self._observations = {}

    def _end_turn(self, played: bool) -> np.ndarray | None:
        """The stall count and the end of the game (GO-36), else the next seat's turn."""
        n = self.num_players
        self.stall = 0 if played else self.stall + 1
        self.turns += 1
        end = False
        if not self.box:
            if self.stall >= n or not any(sum(r) for r in self.racks):
                end = True
        elif self.stall >= self.options.stall_rounds * n:
            end = True
        if not end and self.options.max_turns and self.turns >= self.options.max_turns:
            self.truncated = True
            end = True
        if end:
            return self._finish()
        self.current_player = (self.current_player + 1) % n
        self._start_turn()
        return None

    def _finish(self) -> np.ndarray:
        """GO-37/GO-38 and Rewards: subtract racks, rank or score_diff rewards."""
        n = self.num_players
        self.done = True
        self.phase = "over"
        self.final_scores = [self.scores[s] - sum(RACK_VALUE[t] * k for t, k in enumerate(self.racks[s]))
                             for s in range(n)]
        self.events.append("game over: final scores " + " ".join(str(x) for x in self.final_scores))
        self.events = self.events[-20:]
        final = self.final_scores
        if self.options.reward_mode == "rank":
            rewards = np.zeros(n, dtype=np.float32)
            for s in range(n):
                better = sum(1 for t in range(n) if final[t] > final[s])
                equal = sum(1 for t in range(n) if final[t] == final[s])
                # places better+1 .. better+equal shared: average of 1 - 2(p-1)/(n-1)
                average_place = better + (equal + 1) / 2
                rewards[s] = 1 - 2 * (average_place - 1) / (n - 1)
        else:
            total = sum(final)
            rewards = np.array([final[s] - (total - final[s]) / (n - 1) for s in range(n)], dtype=np.float32)
        self._plays = None
        self._observations = {}
        return rewards

    def _draw(self, rack: list[int]) -> int:
        """The acting seat draws the top tile of the box onto ``rack``."""
        tile = self.box.pop(0)
        rack[tile] += 1
        note_draw(self, self.current_player, tile)
        return tile

    def _event(self, text: str) -> None:
        self.events.append(f"player_{self.current_player} {text}")
        if len(self.events) > 20:
            del self.events[0]

    def _to_box(self, tiles: list[int]) -> None:
        """Returned or exchanged tiles go to the bottom of the box, which is then mixed (GO-14)."""
        add_returned(self, self.current_player, tiles)
        self.box.extend(tiles)
        if self.options.reshuffle_on_return:
            self.rng.shuffle(self.box)

    # ---------------------------------------------------------------- legality
    def legal_plays(self) -> list[Play]:
        """Legal plays that begin with this turn's placements (GO-43); play phase only.
        Each is a tuple of ``(square, piece)`` in reading order (:func:`.moves.legal_plays`)."""
        return self._plays

    def legal_mask(self) -> np.ndarray:
        """int8 mask over the 23,509 actions (GO-40..GO-44; :func:`.moves.legal_mask`)."""
        return self._mask

    def plays_for(self, counts: list[int]) -> list[Play]:
        """Every legal play (GO-20..GO-27) of rack ``counts`` on the committed board."""
        return list(self.search.plays(self.board, self.group, counts))

    def has_play(self, counts: list[int]) -> bool:
        """Whether rack ``counts`` has any legal play on the committed board."""
        return self.search.has_play(self.board, self.group, counts)

    def illegal_reason(self, action: int) -> str:
        """Why ``action`` is not legal now."""
        a = int(action)
        if self.done:
            return "the game is over"
        rack = self.racks[self.current_player]
        phase = self.phase
        if a == DRAW:
            return "draw only at the start of a turn while the box is not empty (GO-10, GO-13)"
        if a == PASS:
            if self.placed:
                return "tiles are placed this turn: commit them (GO-42)"
            return "pass only when the box was empty at the start of the turn (GO-13, GO-42)"
        if a == COMMIT:
            if phase == "start":
                return "nothing to commit at the start of a turn: draw or exchange (GO-40)"
            return "the tiles placed so far do not form a legal play (GO-20..GO-27)" if self.placed \
                else "no tiles placed yet (GO-42)"
        if a < EXCHANGE0:
            t = a - RETURN0
            if phase != "play" or self.drew < 0:
                return "return only after a draw this turn (GO-11)"
            if self.placed:
                return "return only before any placement (GO-42)"
            return f"the rack holds no {CARD_TEXT[t]}"
        if a < PLACE0:
            t = a - EXCHANGE0
            if phase not in ("start", "exchange"):
                return "exchange only instead of drawing, at the start of a turn (GO-34, GO-35)"
            return f"the rack holds no unchosen {CARD_TEXT[t]}"
        if phase != "play":
            return "place only after a draw, or when the box was empty at turn start (GO-42)"
        q = (a - PLACE0) % NSQ
        piece = (a - PLACE0) // NSQ
        t = JOKER if piece >= NUM_CARDS else piece
        if not rack[t]:
            return f"the rack holds no unplaced {CARD_TEXT[t]}"
        if self.board[q] >= 0 or any(s == q for s, _ in self.placed):
            return f"square {SQUARE_TEXT[q]} is taken"
        if self.placed and q <= self.placed[-1][0]:
            return "placements go in reading order (GO-43)"
        return "no legal play (GO-20..GO-27) can be completed with this placement (GO-43)"

    # ---------------------------------------------------------------- stepping
    def step(self, action: int) -> np.ndarray | None:
        """Apply a legal action (the wrapper checks the mask first); the legal plays and mask of
        the new position are worked out here, once."""
        result = self._apply(int(action))
        self._update_moves()
        return result

    def _apply(self, a: int) -> np.ndarray | None:
        seat = self.current_player
        rack = self.racks[seat]
        self._observations = {}
        if a == DRAW:
            self.drew = self._draw(rack)
            self.phase = "play"
            self._plays = None
            self._event("draws a tile")
            return None
        if a == PASS:
            self._event("passes")
            return self._end_turn(False)
        if a == COMMIT:
            if self.phase == "exchange":
                k = len(self.chosen)
                for t in self.chosen:
                    rack[t] -= 1
                self._to_box(self.chosen)
                for _ in range(k):
                    self._draw(rack)
                self._event(f"exchanges {k} tile{'s' if k > 1 else ''}")
                return self._end_turn(False)
            return self._commit_play()
        if a < EXCHANGE0:
            t = a - RETURN0
            rack[t] -= 1
            self._to_box([t])
            self._event("returns a tile to the box")
            return self._end_turn(False)
        if a < PLACE0:
            self.phase = "exchange"
            self.chosen.append(a - EXCHANGE0)
            return None
        q = (a - PLACE0) % NSQ
        piece = (a - PLACE0) // NSQ
        placed_count = len(self.placed)
        self._plays = [play for play in self._plays
                       if len(play) > placed_count and play[placed_count] == (q, piece)]
        self.placed.append((q, piece))
        self._board_block = None
        tile = JOKER if piece >= NUM_CARDS else piece
        note_placement(self, seat, tile)
        rack[tile] -= 1
        return None

    def _commit_play(self) -> np.ndarray | None:
        """Score the play (GO-29..GO-33), join or start its group (GO-25), refill (GO-12)."""
        seat = self.current_player
        rack = self.racks[seat]
        placed = self.placed
        points = score_play(self.board, placed, self.options.board_layout, self.options.descending_runs)
        touched = {self.group[t] for q, _ in placed for t in NEIGHBOURS[q] if self.board[t] >= 0}
        if touched:
            group = touched.pop()
        else:
            group = len(self.group_start)
            self.group_start.append(next(q for q, _ in placed if self.premium[q] in "RC"))
        for q, piece in placed:
            self.board[q] = piece
            self.group[q] = group
        self._board_block = None
        self._committed_view = None
        self.scores[seat] += points
        while self.box and sum(rack) < RACK_SIZE:
            self._draw(rack)
        text = " ".join(f"{piece_text(p)}@{SQUARE_TEXT[q]}" for q, p in placed)
        self._event(f"plays {text} for {points}")
        self.history.append(f"player_{seat} {text} {points}")
        return self._end_turn(True)

    # ---------------------------------------------------------------- observation / view
    def observation(self, seat: int) -> np.ndarray:
        """float32 vector (length ``obs_size(n)``), documented in ``rummy_env.ginny_o_v0``."""
        cached = self._observations.get(seat)
        if cached is None:
            if self._board_block is None:
                self._board_block = board_block(self)
            cached = self._observations[seat] = write_observation(self, seat, self._board_block)
        return cached.copy()

    def view(self, seat: int) -> dict:
        """Structured view (``rummy_env.base.Game.view``) plus ``board``, ``premium``,
        ``placed``, ``groups`` and turn details (:func:`.view.view`)."""
        if self._committed_view is None:
            self._committed_view = committed_view(self)
        return view(self, seat, self._committed_view)

    # ---------------------------------------------------------------- text
    def action_to_text(self, action: int) -> str:
        """Canonical text of action id ``action``; ``ValueError`` for anything but an id 0..23508."""
        return ACTIONS.action_to_text(action)

    def text_to_action(self, text: str) -> int:
        return ACTIONS.text_to_action(text)

    # ---------------------------------------------------------------- copies (:mod:`.determinize`), serialisation
    def clone(self) -> "GinnyOGame":
        """An independent copy in the same state (:func:`.determinize.clone`)."""
        return copies.clone(self)

    def determinize(self, seat: int, rng: np.random.Generator) -> "GinnyOGame":
        """A copy with what ``seat`` cannot see dealt again, this game unchanged
        (:func:`.determinize.determinize`)."""
        return copies.determinize(self, seat, rng)

    def to_dict(self) -> dict:
        """JSON-serialisable exact state (:func:`.serialisation.to_dict`)."""
        return serialisation.to_dict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "GinnyOGame":
        """The game in the state ``d`` written by :meth:`to_dict`."""
        return serialisation.from_dict(cls, d)

    def __getstate__(self):
        return serialisation.to_dict(self)

    def __setstate__(self, state):
        self.__dict__.update(serialisation.from_dict(GinnyOGame, state).__dict__)
