"""Contract Rummy options (rules file, "Options"), the contracts and phases, and the scenario
set-up from ``options["deal"]`` (rules file, "Scenario set-up"); a bad value raises
``ValueError`` naming it."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ... import melds as ml
from ...cards import CARD_TEXT, JOKER, NUM_CARDS, make_pack, parse_card

CONTRACTS = {1: (10, 2, 0), 2: (10, 1, 1), 3: (10, 0, 2), 4: (10, 3, 0),
             5: (12, 2, 1), 6: (12, 1, 2), 7: (12, 0, 3)}
"""CR-7: contract -> (hand size, sets, runs)."""
DRAW, CONTRACT, PLACE, PLAY = range(4)
"""The phases of a turn (CR-10 .. CR-27), ``PHASES`` in words."""
PHASES = ("draw", "contract", "place", "play")


@dataclass(frozen=True)
class Options:
    """Game options (rules file, "Options"); a bad value raises ``ValueError`` naming it."""

    num_players: int = 4
    num_decks: int = 0
    num_jokers: int = -1
    deals: tuple = (1, 2, 3, 4, 5, 6, 7)
    deal7_all_at_once: bool = True
    deep_discard: bool = True
    joker_swap: bool = True
    contract_runs_distinct_suits: bool = False
    min_run_length: int = 3
    max_turns_per_deal: int = 300
    reward_mode: str = "points"

    def __post_init__(self):
        def is_int(v):
            return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))

        if not is_int(self.num_players) or not 3 <= self.num_players <= 8:
            raise ValueError(f"num_players must be an int in 3..8, got {self.num_players!r}")
        if not is_int(self.num_decks) or not 0 <= self.num_decks <= 3:
            raise ValueError(f"num_decks must be 0 (auto) or 1..3, got {self.num_decks!r}")
        if not is_int(self.num_jokers) or not -1 <= self.num_jokers <= 2:
            raise ValueError(f"num_jokers must be -1 (auto) or 0..2, got {self.num_jokers!r}")
        try:
            deals = tuple(self.deals)
        except TypeError:
            raise ValueError(f"deals must be a non-empty sequence of contracts 1..7, got {self.deals!r}") from None
        if not deals or not all(is_int(d) and 1 <= d <= 7 for d in deals):
            raise ValueError(f"deals must be a non-empty sequence of contracts 1..7, got {self.deals!r}")
        object.__setattr__(self, "deals", tuple(int(d) for d in deals))
        for name in ("deal7_all_at_once", "deep_discard", "joker_swap", "contract_runs_distinct_suits"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be a bool, got {getattr(self, name)!r}")
        if not is_int(self.min_run_length) or self.min_run_length not in (3, 4):
            raise ValueError(f"min_run_length must be 3 or 4, got {self.min_run_length!r}")
        if not is_int(self.max_turns_per_deal) or self.max_turns_per_deal < 1:
            raise ValueError(f"max_turns_per_deal must be an int >= 1, got {self.max_turns_per_deal!r}")
        if self.reward_mode not in ("points", "win_loss"):
            raise ValueError(f"reward_mode must be 'points' or 'win_loss', got {self.reward_mode!r}")
        need = max(self.num_players * CONTRACTS[d][0] + 1 for d in self.deals)
        if self.pack_size < need:
            raise ValueError(f"num_decks/num_jokers: a pack of {self.pack_size} cards is too small for "
                             f"{self.num_players} players (a deal needs {need}, CR-2)")

    @property
    def decks(self) -> int:
        """CR-2: 1 deck for 3-4 seats, 2 for 5-8, unless set."""
        return self.num_decks or (1 if self.num_players <= 4 else 2)

    @property
    def jokers(self) -> int:
        """CR-2: one joker per deck, at most 2, unless set."""
        return self.num_jokers if self.num_jokers >= 0 else min(self.decks, 2)

    @property
    def pack_size(self) -> int:
        return 52 * self.decks + self.jokers

    def to_dict(self) -> dict:
        return {k: (list(v) if k == "deals" else v) for k, v in self.__dict__.items()}


def ml_pack(opts: Options) -> list:
    """The pack of ``opts`` (CR-2): ``decks`` x 52 cards, then the jokers."""
    return make_pack(opts.decks, opts.jokers)


def set_up_deal(game, deal: dict) -> None:
    """Scenario set-up from ``options["deal"]`` (rules file, "Scenario set-up")."""
    if not isinstance(deal, dict):
        raise ValueError(f"deal must be a dict, got {type(deal).__name__}")
    allowed = {"dealer", "hands", "stock", "discard", "deal_index", "melds", "to_play", "scores", "turns"}
    unknown = set(deal) - allowed
    if unknown:
        raise ValueError(f"unknown deal key(s) {sorted(unknown)}; allowed: {sorted(allowed)}")
    n = game.num_players

    def seat(key, default):
        v = deal.get(key, default)
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or not 0 <= v < n:
            raise ValueError(f"deal {key!r} must be a seat 0..{n - 1}, got {v!r}")
        return int(v)

    di = deal.get("deal_index", 0)
    if not isinstance(di, int) or isinstance(di, bool) or not 0 <= di < len(game.opts.deals):
        raise ValueError(f"deal 'deal_index' must be 0..{len(game.opts.deals) - 1}, got {di!r}")
    game.deal_idx = di
    game.dealer = seat("dealer", int(game.rng.integers(n)))
    game.contract = game.opts.deals[di]
    game.contract7_at_once = game.contract == 7 and game.opts.deal7_all_at_once
    hs, game.need_sets, game.need_runs = CONTRACTS[game.contract]
    if "hands" not in deal:
        raise ValueError("deal needs 'hands'")
    hands = deal["hands"]
    if not isinstance(hands, (list, tuple)) or len(hands) != n:
        raise ValueError(f"deal 'hands' must hold {n} hands, got "
                         f"{len(hands) if isinstance(hands, (list, tuple)) else hands!r}")
    game.hands = []
    for s, h in enumerate(hands):
        cnt = [0] * 53
        for c in (parse_card(t, allow_joker=True) for t in _texts(h, f"'hands' of seat {s}")):
            cnt[c] += 1
        game.hands.append(cnt)
    game.hsize = [sum(h) for h in game.hands]
    used = [0] * 53
    for h in game.hands:
        for c in range(53):
            used[c] += h[c]
    game.melds = []
    game.down = [False] * n
    owned = [[0, 0] for _ in range(n)]
    melds = deal.get("melds", [])
    if not isinstance(melds, (list, tuple)):
        raise ValueError(f"deal 'melds' must be a list of melds, got {melds!r}")
    for m in melds:
        if not isinstance(m, dict) or "owner" not in m or "cards" not in m:
            raise ValueError(f"deal meld {m!r} needs 'owner' and 'cards'")
        owner = m["owner"]
        if not isinstance(owner, int) or isinstance(owner, bool) or not 0 <= owner < n:
            raise ValueError(f"deal meld owner must be a seat 0..{n - 1}, got {owner!r}")
        texts = _texts(m["cards"], "meld 'cards'")
        pieces = [ml.parse_piece(t) for t in texts]
        shape = ml.classify(pieces, True, game.opts.min_run_length)
        if shape is None:
            raise ValueError(f"deal meld {' '.join(texts)} is not a valid meld (CR-13, CR-14)")
        if len(game.melds) >= game.M:
            raise ValueError(f"deal has more than {game.M} melds")
        for p in pieces:
            used[JOKER if p >= NUM_CARDS else p] += 1
        owned[owner][0 if shape.kind == ml.SET else 1] += 1
        game.down[owner] = True
        game._add_meld(pieces, shape, owner)
    for s in range(n):
        if game.down[s] and owned[s] != [game.need_sets, game.need_runs]:
            raise ValueError(f"deal melds of seat {s} are {owned[s][0]} set(s) and {owned[s][1]} run(s), "
                             f"not contract {game.contract} (CR-8)")
    if game.melds and game.contract == 7 and game.opts.deal7_all_at_once:
        raise ValueError("deal melds are impossible in deal 7 under deal7_all_at_once (CR-17)")
    for s in range(n):
        if game.hsize[s] == 0:
            raise ValueError(f"deal hand of seat {s} is empty")
        if not game.down[s] and game.hsize[s] != hs:
            raise ValueError(f"deal hand of seat {s} has {game.hsize[s]} cards; contract {game.contract} "
                             f"deals {hs} (CR-7)")
    pile = None
    if "discard" in deal:
        pile = [parse_card(t, allow_joker=True) for t in _texts(deal["discard"], "'discard'")]
        if not pile:
            raise ValueError("deal 'discard' is empty: leave the key out to turn up the stock's top card")
        for c in pile:
            used[c] += 1
    full = [game.opts.decks] * 52 + [game.num_jokers]
    if "stock" in deal:
        stock_top_first = [parse_card(t, allow_joker=True) for t in _texts(deal["stock"], "'stock'")]
        for c in stock_top_first:
            used[c] += 1
        if used != full:
            raise ValueError("deal cards (hands, stock, discard, meld pieces) are not exactly the pack: "
                             + _pack_diff(used, full))
        stock = stock_top_first[::-1]
    else:
        if any(u > f for u, f in zip(used, full)):
            raise ValueError("deal cards are not a part of the pack: " + _pack_diff(used, full))
        rest = [c for c in range(53) for _ in range(full[c] - used[c])]
        stock = [rest[i] for i in game.rng.permutation(len(rest))]
    if pile is None:
        if not stock:
            raise ValueError("deal has no discard and an empty stock")
        pile = [stock.pop()]
    if not stock and len(pile) == 1:
        raise ValueError("deal has an empty stock and a one-card discard pile (CR-33)")
    game.pile = pile
    game.stock = stock
    game.current_player = seat("to_play", (game.dealer + 1) % n)
    scores = deal.get("scores", [0] * n)
    if not isinstance(scores, (list, tuple)) or len(scores) != n or not all(
            isinstance(x, int) and not isinstance(x, bool) for x in scores):
        raise ValueError(f"deal 'scores' must be {n} ints, got {scores!r}")
    game.scores = list(scores)
    turns = deal.get("turns", 0)
    if not isinstance(turns, int) or isinstance(turns, bool) or not 0 <= turns < game.opts.max_turns_per_deal:
        raise ValueError(f"deal 'turns' must be 0..{game.opts.max_turns_per_deal - 1}, got {turns!r}")
    game.turns = turns
    game.known = [[0] * 53 for _ in range(n)]
    game.from_new_stock = None
    game._reset_turn()
    game._rebuild_buffers()
    game._state_changed()


def _texts(v, where: str) -> list:
    """Card or piece texts of a deal value: a list of strings, or one string of words."""
    if isinstance(v, str):
        return v.split()
    if not isinstance(v, (list, tuple)) or not all(isinstance(t, str) for t in v):
        raise ValueError(f"deal {where} must be a list of card texts, got {v!r}")
    return list(v)


def _pack_diff(used: list, full: list) -> str:
    extra = [f"{CARD_TEXT[c]} x{u - f}" for c, (u, f) in enumerate(zip(used, full)) if u > f]
    missing = [f"{CARD_TEXT[c]} x{f - u}" for c, (u, f) in enumerate(zip(used, full)) if u < f]
    return f"too many: {' '.join(extra) or '-'}; missing: {' '.join(missing) or '-'}"
