"""Contract Rummy options (rules file, "Options"), the contracts and phases, and the scenario
set-up from ``options["deal"]`` (rules file, "Scenario set-up"); a bad value raises
``ValueError`` naming it."""
from __future__ import annotations

from dataclasses import dataclass

from ... import melds as ml
from ...cards import JOKER, NUM_CARDS, make_pack
from ...validate import (OptionRule, PackTally, card_list, check_deal_keys, check_option_rules, check_int,
                         piece_list)

CONTRACTS = {1: (10, 2, 0), 2: (10, 1, 1), 3: (10, 0, 2), 4: (10, 3, 0),
             5: (12, 2, 1), 6: (12, 1, 2), 7: (12, 0, 3)}
"""CR-7: contract -> (hand size, sets, runs)."""
DRAW, CONTRACT, PLACE, PLAY = range(4)
"""The phases of a turn (CR-10 .. CR-27), ``PHASES`` in words."""
PHASES = ("draw", "contract", "place", "play")
DEAL_KEYS = ("dealer", "hands", "stock", "discard", "deal_index", "melds", "to_play", "scores", "turns")
"""The keys of ``options["deal"]`` (:func:`set_up_deal`)."""


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

    RULES = {
        "num_players": OptionRule("CR-2", ints=(3, 8)),
        "num_decks": OptionRule("CR-2 (0: auto)", ints=(0, 3)),
        "num_jokers": OptionRule("CR-2 (-1: auto)", ints=(-1, 2)),
        "deals": OptionRule("CR-7", words="a non-empty list of contracts 1..7, in order"),
        "deal7_all_at_once": OptionRule("CR-17", boolean=True),
        "deep_discard": OptionRule("CR-11", boolean=True),
        "joker_swap": OptionRule("CR-22", boolean=True),
        "contract_runs_distinct_suits": OptionRule("CR-9", boolean=True),
        "min_run_length": OptionRule("CR-14", ints=(3, 4)),
        "max_turns_per_deal": OptionRule("CR-33", ints=(1, None)),
        "reward_mode": OptionRule("Rewards", choices=("points", "win_loss")),
    }
    """Each option's allowed values and rule ids (contract_rummy.md)."""

    def __post_init__(self):
        check_option_rules(self)
        if not isinstance(self.deals, (list, tuple, range)) or not self.deals:
            raise ValueError(f"deals must be a non-empty sequence of contracts 1..7, got {self.deals!r} "
                             "(a single contract is a one-element list, e.g. deals=[1])")
        object.__setattr__(self, "deals", tuple(check_int(f"deals[{i}]", d, 1, 7, what="a contract")
                                                for i, d in enumerate(self.deals)))
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
    """Scenario set-up from ``options["deal"]`` (rules file, "Scenario set-up"): ``hands`` (one card
    list per seat), optionally ``melds`` (``owner`` and ``cards``, each down seat's whole contract),
    ``discard`` (bottom first), ``stock`` (top first; without it the rest of the pack is shuffled),
    ``dealer``, ``to_play``, ``deal_index``, ``scores`` and ``turns``."""
    check_deal_keys(deal, DEAL_KEYS)
    opts = game.opts
    n = game.num_players
    tally = PackTally(ml_pack(opts))
    game.deal_idx = check_int("deal: 'deal_index'", deal.get("deal_index", 0), 0, len(opts.deals) - 1)
    game.dealer = check_int("deal: 'dealer'", deal.get("dealer", int(game.rng.integers(n))), 0, n - 1, what="a seat")
    game.contract = opts.deals[game.deal_idx]
    game.contract7_at_once = game.contract == 7 and opts.deal7_all_at_once
    hand_size, game.need_sets, game.need_runs = CONTRACTS[game.contract]
    hands = deal.get("hands")
    if not isinstance(hands, (list, tuple)) or len(hands) != n:
        raise ValueError(f"deal 'hands' must be a list of {n} hands (card lists), got {hands!r}")
    listed = {}   # deal place -> its cards, counted against the pack once the melds are checked
    game.hands = []
    for s, texts in enumerate(hands):
        counts = [0] * 53
        listed[f"hands[{s}]"] = card_list(f"deal hands[{s}]", texts, allow_joker=opts.jokers > 0, allow_string=True)
        for c in listed[f"hands[{s}]"]:
            counts[c] += 1
        game.hands.append(counts)
    game.hsize = [sum(h) for h in game.hands]
    game.melds = []
    game.down = [False] * n
    laid = [[0, 0] for _ in range(n)]   # per seat: sets, runs
    melds = deal.get("melds", [])
    if not isinstance(melds, (list, tuple)):
        raise ValueError(f"deal 'melds' must be a list of melds, got {melds!r}")
    if len(melds) > game.M:
        raise ValueError(f"deal has more than {game.M} melds")
    for k, meld in enumerate(melds):
        if not isinstance(meld, dict) or set(meld) != {"owner", "cards"}:
            raise ValueError(f"deal meld {meld!r} must be a dict of 'owner' and 'cards'")
        owner = check_int(f"deal: melds[{k}] 'owner'", meld["owner"], 0, n - 1, what="a seat")
        pieces = piece_list(f"deal melds[{k}]", meld["cards"], allow_joker=opts.jokers > 0, allow_string=True)
        shape = ml.classify(pieces, True, opts.min_run_length)
        if shape is None:
            raise ValueError(f"deal meld {' '.join(map(ml.piece_text, pieces))} is not a valid meld "
                             "(CR-13, CR-14)")
        listed[f"melds[{k}]"] = [p if p < NUM_CARDS else JOKER for p in pieces]   # a joker piece: a joker
        laid[owner][0 if shape.kind == ml.SET else 1] += 1
        game.down[owner] = True
        game._add_meld(pieces, shape, owner)
    for s in range(n):
        if game.down[s] and laid[s] != [game.need_sets, game.need_runs]:
            raise ValueError(f"deal melds of seat {s} are {laid[s][0]} set(s) and {laid[s][1]} run(s), "
                             f"not contract {game.contract} (CR-8)")
    if game.melds and game.contract7_at_once:
        raise ValueError("deal melds are impossible in deal 7 under deal7_all_at_once (CR-17)")
    for s in range(n):
        if game.hsize[s] == 0:
            raise ValueError(f"deal hand of seat {s} is empty")
        if not game.down[s] and game.hsize[s] != hand_size:
            raise ValueError(f"deal hand of seat {s} has {game.hsize[s]} cards; contract {game.contract} "
                             f"deals {hand_size} (CR-7)")
    for place, cards in listed.items():
        tally.count(place, cards)
    pile = None
    if "discard" in deal:
        pile = tally.take("discard", deal["discard"], allow_string=True)
        if not pile:
            raise ValueError("deal 'discard' is empty: leave the key out to turn up the stock's top card")
    if "stock" in deal:
        stock = tally.take("stock", deal["stock"], allow_string=True)[::-1]
        tally.check_all_listed("'stock' is given")
    else:
        rest = tally.unlisted()
        stock = [rest[i] for i in game.rng.permutation(len(rest))]
    if pile is None:
        if not stock:
            raise ValueError("deal has no discard and an empty stock")
        pile = [stock.pop()]
    if not stock and len(pile) == 1:
        raise ValueError("deal has an empty stock and a one-card discard pile (CR-33)")
    game.pile = pile
    game.stock = stock
    game.current_player = check_int("deal: 'to_play'", deal.get("to_play", (game.dealer + 1) % n), 0, n - 1,
                                    what="a seat")
    scores = deal.get("scores", [0] * n)
    if not isinstance(scores, (list, tuple)) or len(scores) != n:
        raise ValueError(f"deal 'scores' must be {n} ints, got {scores!r}")
    game.scores = [check_int(f"deal: 'scores'[{s}]", x) for s, x in enumerate(scores)]
    game.turns = check_int("deal: 'turns'", deal.get("turns", 0), 0, opts.max_turns_per_deal - 1)
    game.known = [[0] * 53 for _ in range(n)]
    game.from_new_stock = None
    game._reset_turn()
    game._rebuild_buffers()
    game._state_changed()
