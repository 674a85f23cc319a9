"""Tongits' options (tongits.md "Options"), the phases of a turn (TG-5..TG-8, TG-20), the turn
cap (TG-25) and the scenario set-up from a ``deal`` (tongits.md "Deal keys")."""
from __future__ import annotations

from dataclasses import dataclass

from ...cards import CARD_TEXT, NUM_CARDS, cards_text, make_pack, mask_of
from ...melds import classify
from ...validate import (OptionRule, PackTally, check_bool, check_deal_keys, check_option_rules, check_int,
                         check_list, check_record, int_list)
from .actions import MAX_MELDS

NUM_PLAYERS = 3
PHASES = ("draw", "pickup", "meld", "response")
DRAW, PICKUP, MELD, RESPONSE = 0, 1, 2, 3
TURN_CAP = 100
"""Turns per hand after which ``discard_take_must_meld=False`` settles the hand (TG-25)."""


@dataclass(frozen=True)
class Options:
    """Tongits options (tongits.md "Options"); a bad value raises ``ValueError`` naming it."""

    discard_take_must_meld: bool = True
    count_hand_melds: bool = True
    require_meld_to_contest: bool = True
    hands_per_match: int = 3
    chip_mode: str = "bank"
    reward_mode: str = "chips"

    RULES = {
        "discard_take_must_meld": OptionRule("TG-7", boolean=True),
        "count_hand_melds": OptionRule("TG-30", boolean=True),
        "require_meld_to_contest": OptionRule("TG-20, TG-26", boolean=True),
        "hands_per_match": OptionRule("TG-35", ints=(1, None)),
        "chip_mode": OptionRule("TG-31", choices=("bank", "pay")),
        "reward_mode": OptionRule("Rewards", choices=("chips", "win_loss")),
    }
    """Each option's allowed values and rule ids (tongits.md)."""

    def __post_init__(self):
        check_option_rules(self)

    @property
    def num_players(self) -> int:
        return NUM_PLAYERS


DEAL_KEYS = ("dealer", "hands", "stock", "discard", "melds", "turn", "phase", "blocked", "chips", "hand_index")
"""The keys of a scenario deal (tongits.md "Deal keys")."""


def set_up_deal(game, deal: dict) -> None:
    """Write the scenario position ``deal`` (tongits.md "Deal keys") onto ``game``, whose hand
    state is fresh; ``ValueError`` on any problem. The caller builds the derived state after."""
    check_deal_keys(deal, DEAL_KEYS)

    def seat_of(key, v):
        return check_int(f"deal {key}", v, 0, NUM_PLAYERS - 1, what="a seat")

    dealer = seat_of("dealer", deal["dealer"]) if "dealer" in deal else int(game.rng.integers(NUM_PLAYERS))
    has_turn = "turn" in deal
    if "phase" in deal and not has_turn:
        raise ValueError("deal 'phase' needs 'turn'")
    turn = seat_of("turn", deal["turn"]) if has_turn else dealer
    phase = deal.get("phase", "draw" if has_turn else "meld")
    if phase not in ("draw", "meld"):
        raise ValueError(f"deal phase must be 'draw' or 'meld', got {phase!r}")
    tally = PackTally(make_pack())
    if "hands" not in deal:
        extra = sorted(set(deal) & {"stock", "discard", "melds", "turn"})
        if extra:
            raise ValueError(f"deal without 'hands' cannot set {extra}")
        hands_in = None
    else:
        hands_in = check_list("deal hands (three card lists)", deal["hands"], NUM_PLAYERS)
    if hands_in is None:   # a fresh deal (TG-3) by the given dealer
        perm = game.rng.permutation(NUM_CARDS).tolist()
        hands_in = [[], [], []]
        for k in range(NUM_PLAYERS):
            hands_in[(dealer + k) % 3] = [CARD_TEXT[c] for c in perm[12 * k + (k > 0):12 * k + 12 + 1]]
    hand_cards = [tally.take(f"hands[{i}]", h) for i, h in enumerate(hands_in)]
    discard = tally.take("discard", deal.get("discard", []))
    melds = []
    melds_in = check_list("deal melds", deal.get("melds", []), longest=MAX_MELDS)
    for i, m in enumerate(melds_in):
        check_record(f"deal melds[{i}]", m, ("owner", "cards", "secret"), required=("cards",))
        owner = seat_of(f"melds[{i}] owner", m.get("owner"))
        secret = check_bool(f"deal melds[{i}] secret", m.get("secret", False))
        cards = tally.take(f"melds[{i}]", m["cards"])
        shape = classify(cards, ace_high=False)
        if shape is None:
            raise ValueError(f"deal melds[{i}] {cards_text(cards)} is not a valid meld")
        if secret and not (shape.kind == "set" and shape.size == 4):
            raise ValueError(f"deal melds[{i}] secret must be four cards of one rank")
        mask = mask_of(cards)
        if shape.kind == "set":
            melds.append([owner, mask, secret, 0, shape.rank, 0, 0])
        else:
            melds.append([owner, mask, secret, 1, shape.suit, shape.lo, shape.hi])
    if "stock" in deal:
        stock = tally.take("stock", deal["stock"])
        tally.check_all_listed("'stock' is given")
    else:
        rest = tally.unlisted()
        stock = [rest[i] for i in game.rng.permutation(len(rest))]
    sizes = [len(h) for h in hand_cards]
    if not has_turn:
        want = [13 if s == dealer else 12 for s in range(NUM_PLAYERS)]
        if sizes != want:
            raise ValueError(f"deal without 'turn' needs 13 cards for the dealer and 12 for the others, "
                             f"got {sizes}")
        if len(stock) != 15 or melds or discard:
            raise ValueError("deal without 'turn' needs 15 stock cards, no melds and an empty discard pile")
    else:
        if 0 in sizes:
            raise ValueError(f"deal hands[{sizes.index(0)}] is empty")
        if phase == "draw" and not stock:
            raise ValueError("deal phase 'draw' with an empty stock")
    blocked = int_list("deal blocked", deal.get("blocked", []), lo=0, hi=NUM_PLAYERS - 1, what="a seat")
    chips = int_list("deal chips", deal.get("chips", [0, 0, 0]), NUM_PLAYERS)
    hand_index = check_int("deal hand_index", deal.get("hand_index", 0), 0, game.options.hands_per_match - 1)
    game.dealer = dealer
    game.turn = game.current_player = turn
    game.phase = DRAW if phase == "draw" else MELD
    game.hands = [mask_of(h) for h in hand_cards]
    game.stock = stock[::-1]
    game.discard = discard
    game.melds = melds
    for b in blocked:
        game.blocked[b] = True
    game.chips = chips
    game.hand_index = hand_index
