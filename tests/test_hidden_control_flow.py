"""Shared contract 3, the flow of the game, for all five games: two deals that differ only in
cards seat i cannot see, played with the same actions, give the same acting agent, the same ends
and the same observation, view and mask of seat i at every step (not only the same observation
at one state, which ``check_hidden_information`` of each game's tests checks)."""
from __future__ import annotations

import functools

import pytest

from rummy_env import contract_rummy_v0, ginny_o_v0, i_doubt_it_v0, rummy_v0, tongits_v0
from rummy_env.cards import CARD_TEXT, RANKS
from rummy_env.games.tongits import RESPONSE
from tests.harness import check_hidden_control_flow, replay_public_steps


def texts(cards) -> list:
    return [CARD_TEXT[c] for c in cards]


def counted(counts) -> list:
    """Card ids of a count array (index = card id, 52 = joker), each repeated by its count."""
    return [c for c, k in enumerate(counts) for _ in range(k)]


# ---- the opening position of a fresh game as a scenario deal (each rules file, "deal keys") ----
def rummy_deal(game) -> dict:
    d = game.to_dict()
    return {"dealer": d["dealer"], "to_play": d["current_player"], "hands": [texts(h) for h in d["hands"]],
            "stock": texts(d["stock_top_last"][::-1]), "discard": texts(d["discard"])}


def tongits_deal(game) -> dict:
    """The fresh deal, with cards swapped so that every hand holds the four cards of the rank of
    its first card: a seat holding four of one rank is qualified (TG-20, TG-26), and a shuffle of
    the hidden cards takes that away from the other seats."""
    d = game.to_dict()
    hands = [[c for c in range(52) if h >> c & 1] for h in d["hands"]]
    places = hands + [d["stock"]]
    for hand in hands:
        for suit in range(4):
            card = 13 * suit + hand[0] % 13
            holder = next(p for p in places if card in p)
            if holder is not hand:
                spare = next(c for c in hand[1:] if c % 13 != hand[0] % 13)
                hand[hand.index(spare)] = card
                holder[holder.index(card)] = spare
    return {"dealer": d["dealer"], "hands": [texts(h) for h in hands], "stock": texts(d["stock"][::-1])}


def i_doubt_it_deal(game) -> dict:
    d = game.to_dict()
    return {"dealer": d["dealer"], "to_play": d["current_player"], "rank": RANKS[d["rank"]],
            "hands": [texts(h) for h in d["hands"]]}


def contract_rummy_deal(game) -> dict:
    d = game.to_dict()
    return {"dealer": d["dealer"], "to_play": d["current_player"], "hands": [texts(counted(h)) for h in d["hands"]],
            "stock": texts(d["stock"][::-1]), "discard": texts(d["pile"])}


def ginny_o_deal(game) -> dict:
    d = game.to_dict()
    return {"first": d["current_player"], "hands": [texts(counted(r)) for r in d["racks"]], "stock": texts(d["box"])}


def after_draw_call(game) -> str | None:
    """Tongits positions right after ``call draw`` where an opponent of the caller owns no meld,
    so that only its hidden hand says whether it is qualified (TG-20): unqualified, or qualified
    by four of one rank in hand."""
    if game.done or game.phase != RESPONSE or any(game.responses):
        return None
    opponents = [(game.caller + k) % 3 for k in (1, 2)]
    if not all(map(game.qualified, opponents)):
        return "after call, unqualified opponent"
    if any(not game.faceup[s] and not game.secrets[s] for s in opponents):
        return "after call, opponent qualified by its hand"
    return None


GAMES = {
    "rummy": (lambda: rummy_v0.raw_env(num_players=3, target_score=30), rummy_deal, None),
    "tongits": (lambda: tongits_v0.raw_env(hands_per_match=2), tongits_deal, after_draw_call),
    "i_doubt_it": (lambda: i_doubt_it_v0.raw_env(num_players=3), i_doubt_it_deal, None),
    "contract_rummy": (lambda: contract_rummy_v0.raw_env(num_players=3, deals=(1, 2)), contract_rummy_deal, None),
    "ginny_o": (lambda: ginny_o_v0.raw_env(num_players=3), ginny_o_deal, None),
}


@pytest.mark.parametrize("game", list(GAMES))
def test_hidden_cards_do_not_steer_the_game(game):
    """Three random games per game, 20 shuffled replays each (``check_hidden_control_flow``):
    enough compared positions, and in Tongits positions right after ``call draw`` with an opponent
    whose qualification only its hidden hand decides (the old TG-20 skipped unqualified ones)."""
    env_fn, deal_of, label = GAMES[game]
    totals: dict = {}
    for seed in range(3):
        counts = check_hidden_control_flow(env_fn, deal_of, seed=seed, samples=20, max_steps=150, label=label)
        for key, n in counts.items():
            totals[key] = totals.get(key, 0) + n
    assert totals["positions"] >= 1000 and totals["complete"] >= 10, totals
    if label is not None:
        assert totals.get("after call, unqualified opponent", 0) >= 5, totals
        assert totals.get("after call, opponent qualified by its hand", 0) >= 5, totals


def test_tongits_draw_call_does_not_tell_a_four_of_a_kind_in_hand():
    """TG-20: p0 calls Draw; p1 holds 9C 9D 9H 9S (qualified) or, in the other deal, gave 9S to p2
    for 3D (nobody qualified but p0). p0 cannot tell the two deals apart, so the same answers must
    give it the same acting agents, ends, observations and views in both."""
    melds = [{"owner": 0, "cards": ["TD", "JD", "QD"]}]
    qualified = {"dealer": 0, "turn": 0, "phase": "draw", "melds": melds,
                 "hands": [["2C", "5H"], ["9C", "9D", "9H", "9S", "KC"], ["3D", "6S", "KH"]]}
    unqualified = dict(qualified, hands=[["2C", "5H"], ["9C", "9D", "9H", "3D", "KC"], ["9S", "6S", "KH"]])
    env_fn = functools.partial(tongits_v0.raw_env, hands_per_match=2)
    texts = tongits_v0.raw_env()
    texts.reset(seed=0)
    actions = [texts.text_to_action(t) for t in ("call draw", "fold", "fold")]
    first, first_end = replay_public_steps(env_fn, 0, qualified, actions, seat=0)
    second, second_end = replay_public_steps(env_fn, 0, unqualified, actions, seat=0)
    assert [r[0] for r in second] == [r[0] for r in first] == ["player_0", "player_1", "player_2", "player_0"]
    assert first_end == second_end == "complete"
    assert second[:-1] == first[:-1]
    # The hand is over and p0 deals the next one: the revealed hands (TG-29) differ, nothing else.
    assert second[-1][:5] == first[-1][:5]
