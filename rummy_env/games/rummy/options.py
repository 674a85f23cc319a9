"""Rummy's options (rummy.md "Options"), the phases of a turn and the scenario set-up from a
``deal`` (rummy.md "Scenario set-up")."""
from __future__ import annotations

import dataclasses

from ...cards import BIT, cards_text, make_pack, mask_of, parse_card
from ...melds import classify
from ...validate import (OptionRule, PackTally, check_deal_keys, check_option_rules, check_int, check_list,
                         check_record, int_list)
from .actions import NUM_MELD_SLOTS
from .tables import fit_mask

HAND_SIZE = {2: 10, 3: 7, 4: 7, 5: 6, 6: 6}
"""k by number of players (RM-3)."""

DRAW, PLAY = 0, 1
PHASE_NAMES = ("draw", "play")
REWARD_MODES = ("points", "zero_sum", "win_loss")
DEAL_KEYS = frozenset({"dealer", "hands", "stock", "discard", "melds", "to_play", "scores", "rounds_played",
                       "turnovers", "turns"})


@dataclasses.dataclass(frozen=True)
class Options:
    """Rummy options (rummy.md "Options"); a bad value raises ``ValueError`` naming it."""

    num_players: int = 2
    ace_high: bool = False
    must_discard_to_go_out: bool = False
    target_score: int = 150
    max_rounds: int = 100
    max_turnovers: int = 3
    max_turns: int = 300
    shuffle_turnover: bool = False
    reward_mode: str = "points"

    RULES = {
        "num_players": OptionRule("RM-3", ints=(2, 6)),
        "ace_high": OptionRule("RM-12, RM-22", boolean=True),
        "must_discard_to_go_out": OptionRule("RM-20", boolean=True),
        "target_score": OptionRule("RM-28", ints=(0, None)),
        "max_rounds": OptionRule("RM-28, RM-29", ints=(1, None)),
        "max_turnovers": OptionRule("RM-26a", ints=(0, None)),
        "max_turns": OptionRule("RM-26b", ints=(1, None)),
        "shuffle_turnover": OptionRule("RM-24", boolean=True),
        "reward_mode": OptionRule("Rewards", choices=REWARD_MODES),
    }
    """Each option's allowed values and rule ids (rummy.md)."""

    def __post_init__(self) -> None:
        check_option_rules(self)


def set_up_deal(game, deal: dict) -> None:
    """Write the scenario position ``deal`` (rummy.md "Scenario set-up") onto ``game``, whose round
    state is fresh; ``ValueError`` on any problem. The caller builds the observation after."""
    opts, n, k = game.options, game.num_players, game.k
    check_deal_keys(deal, DEAL_KEYS)
    tally = PackTally(make_pack())

    def seat(value, name: str) -> int:
        return check_int(f"deal: {name}", value, 0, n - 1, what="a seat")

    hands_in = check_list("deal: 'hands' (one hand per seat)", deal.get("hands"), n)
    hand_cards = [tally.take(f"hand {p}", h) for p, h in enumerate(hands_in)]
    for p, h in enumerate(hand_cards):
        if not h:
            raise ValueError(f"deal: hand {p} is empty")
        if len(h) > k:
            raise ValueError(f"deal: hand {p} has {len(h)} cards, more than k = {k} (RM-3)")
    melds_in = check_list("deal: 'melds'", deal.get("melds", []))
    front = [0] * n
    for i, md in enumerate(melds_in):
        check_record(f"deal: meld {i}", md, ("owner", "cards", "layoffs"), required=("cards",))
        owner = seat(md.get("owner"), f"meld {i} owner")
        mc = tally.take(f"meld {i}", md["cards"])
        shape = classify(mc, opts.ace_high)
        if shape is None:
            raise ValueError(f"deal: meld {i} ({cards_text(mc)}) is not a valid meld under the options")
        mask = mask_of(mc)
        layoffs = md.get("layoffs", {})
        if not isinstance(layoffs, dict):
            raise ValueError(f"deal: meld {i} 'layoffs' must be a dict card -> seat, got {layoffs!r}")
        own = mask
        for text, q in layoffs.items():
            c = parse_card(text)
            if not mask & BIT[c]:
                raise ValueError(f"deal: meld {i} layoff {text!r} is not a card of the meld")
            q = seat(q, f"meld {i} layoff seat of {text}")
            if q == owner:
                raise ValueError(f"deal: meld {i} layoff {text!r} names the meld's own owner {q}")
            own &= ~BIT[c]
            front[q] |= BIT[c]
        front[owner] |= own
        game.meld_owner.append(owner)
        game.meld_mask.append(mask)
        game.meld_shape.append(shape)
        game.meld_fit.append(fit_mask(shape, mask, opts.ace_high))
    if len(game.meld_owner) > NUM_MELD_SLOTS:
        raise ValueError(f"deal: at most {NUM_MELD_SLOTS} melds fit the table")
    table = sum(m.bit_count() for m in game.meld_mask)
    if sum(len(h) for h in hand_cards) + table != n * k:
        raise ValueError(f"deal: hand sizes plus table cards must be n*k = {n * k}, got "
                         f"{sum(len(h) for h in hand_cards)} + {table}")
    for p in range(n):
        if front[p].bit_count() != k - len(hand_cards[p]):
            raise ValueError(f"deal: seat {p} has {front[p].bit_count()} table cards but "
                             f"k - hand size = {k - len(hand_cards[p])}")
    discard = tally.take("discard pile", deal["discard"]) if "discard" in deal else None
    if discard is not None and not discard:
        raise ValueError("deal: the discard pile is empty")
    if "stock" in deal:
        stock_top_first = tally.take("stock", deal["stock"])
        tally.check_all_listed("'stock' is given")
    if "dealer" in deal:
        game.dealer = seat(deal["dealer"], "dealer")
    else:
        game.dealer = int(game.rng.integers(n))
    if "stock" not in deal:
        rest = tally.unlisted()
        stock_top_first = [rest[i] for i in game.rng.permutation(len(rest))]
    if discard is None:
        if not stock_top_first:
            raise ValueError("deal: the discard pile is empty (no stock card to turn up)")
        discard = [stock_top_first.pop(0)]
    scores = int_list("deal: 'scores'", deal.get("scores", [0] * n), n, lo=0)
    if opts.target_score > 0 and max(scores) >= opts.target_score:
        raise ValueError(f"deal: a total {max(scores)} already reaches target_score {opts.target_score}")
    rounds = check_int("deal: 'rounds_played'", deal.get("rounds_played", 0), 0, opts.max_rounds - 1)
    turnovers = check_int("deal: 'turnovers'", deal.get("turnovers", 0), 0, opts.max_turnovers)
    turns = check_int("deal: 'turns'", deal.get("turns", 0), 0, opts.max_turns - 1)
    if not stock_top_first and turnovers == opts.max_turnovers:
        raise ValueError("deal: the stock is empty and turnovers = max_turnovers (RM-26)")
    game.current_player = seat(deal["to_play"], "to_play") if "to_play" in deal else (game.dealer + 1) % n
    game.hands = [mask_of(h) for h in hand_cards]
    game.front = front
    game.discard = discard
    game.pile_mask = mask_of(discard)
    game.stock = stock_top_first[::-1]
    game.scores = scores
    game.rounds_played = rounds
    game.turnovers = turnovers
    game.turns = turns
    game.clean_start = front[game.current_player] == 0
    game.events.append(("deal", game.rounds_played + 1, game.dealer))
