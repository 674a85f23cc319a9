"""I Doubt It's options (``docs/rules/i_doubt_it.md``, "Options"), turn-flow constants and the
reading of a scenario deal (rules file keys ``DEAL_KEYS``; DI-1..DI-4, DI-27)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ...cards import make_pack, parse_rank
from ...validate import OptionRule, PackTally, check_deal_keys, check_option_rules, check_int, check_list

GAME_NAME = "i_doubt_it_v0"
PLAY_PHASE, DOUBT_PHASE, OVER_PHASE = 0, 1, 2
PHASES = ("play", "doubt", "over")
REWARD_MODES = ("winner", "rank")
AFTER_PICKUP = ("next", "taker")
MAX_EVENTS = 20
"""Events kept for the view (the most recent ones)."""
DEAL_KEYS = ("dealer", "hands", "discard", "rank", "to_play", "stock")


@dataclass(frozen=True)
class Options:
    """Options of I Doubt It (rules file, "Options"); a bad value raises ``ValueError`` naming it."""

    num_players: int = 4
    num_decks: int | None = None
    max_cards_per_play: int = 4
    wrong_rank_claims: bool = False
    after_pickup: str = "next"
    auto_doubt_last: bool = True
    play_to_end: bool = False
    reward_mode: str = "winner"
    max_plays: int = 1000

    RULES = {
        "num_players": OptionRule("DI-1", ints=(3, 11)),
        "num_decks": OptionRule("DI-1", words="None (1 deck for 3-5 players, 2 for 6-11), 1 or 2"),
        "max_cards_per_play": OptionRule("DI-8", words="1 .. 4 x num_decks"),
        "wrong_rank_claims": OptionRule("DI-13", boolean=True),
        "after_pickup": OptionRule("DI-16", choices=AFTER_PICKUP),
        "auto_doubt_last": OptionRule("DI-22, DI-23", boolean=True),
        "play_to_end": OptionRule("DI-25, DI-26", boolean=True),
        "reward_mode": OptionRule("Rewards", choices=REWARD_MODES),
        "max_plays": OptionRule("DI-28", ints=(1, None)),
    }
    """Each option's allowed values and rule ids (i_doubt_it.md)."""

    def __post_init__(self):
        check_option_rules(self)
        if self.num_decks is None:
            decks = 1 if self.num_players <= 5 else 2   # DI-1
        else:
            decks = check_int("num_decks (None for the default)", self.num_decks, 1, 2)
        object.__setattr__(self, "num_decks", decks)
        object.__setattr__(self, "max_cards_per_play", check_int(
            f"max_cards_per_play (with {decks} deck(s))", self.max_cards_per_play, 1, 4 * decks))


class Deal(NamedTuple):
    """A starting position: the dealer, each seat's cards, the initial pile (bottom first), the
    required rank index and the seat to play."""

    dealer: int
    hands: list[list[int]]
    discard: list[int]
    rank: int
    to_play: int


def read_deal(options: Options, rng: np.random.Generator, deal: dict | None) -> Deal:
    """A new deal (DI-1..DI-4), or the scenario ``deal`` (rules file keys) checked; ``ValueError``
    naming a bad key or value."""
    n = options.num_players
    decks = options.num_decks
    deal = check_deal_keys({} if deal is None else deal, DEAL_KEYS)
    if "stock" in deal:
        check_list("deal 'stock' (empty or absent: I Doubt It deals every card, DI-2)", deal["stock"], 0)

    def seat_of(key):
        return check_int(f"deal '{key}'", deal[key], 0, n - 1, what="a seat")

    if "dealer" in deal:
        dealer = seat_of("dealer")
    elif "to_play" in deal:
        dealer = (seat_of("to_play") - 1) % n
    else:
        dealer = int(rng.integers(n))
    to_play = seat_of("to_play") if "to_play" in deal else (dealer + 1) % n
    rank_text = deal.get("rank", "A")
    if not isinstance(rank_text, str):
        raise ValueError(f"deal 'rank' must be a rank text such as 'A', '7' or '10', got {rank_text!r}")
    try:
        rank = parse_rank(rank_text) - 1
    except ValueError as err:
        raise ValueError(f"deal 'rank': {err}") from None
    tally = PackTally(make_pack(decks))   # DI-1
    discard = tally.take("'discard'", deal.get("discard", []), allow_string=True)
    if "hands" in deal:
        hands_texts = check_list("deal 'hands' (one hand per seat)", deal["hands"], n)
        hands = [tally.take(f"'hands' of player_{s}", h, allow_string=True) for s, h in enumerate(hands_texts)]
        for s, h in enumerate(hands):
            if not h:
                raise ValueError(f"deal 'hands': the hand of player_{s} is empty (DI-27)")
    else:
        if discard:
            raise ValueError("deal 'discard' needs 'hands': a full deal gives every card to the players (DI-2)")
        pack = make_pack(decks)
        perm = rng.permutation(len(pack))
        hands = [[] for _ in range(n)]
        for i, j in enumerate(perm):   # DI-3: one at a time, from the dealer's left
            hands[(dealer + 1 + i) % n].append(pack[int(j)])
    return Deal(dealer, hands, discard, rank, to_play)
