"""I Doubt It (docs/rules/i_doubt_it.md): scenario checks 1-15, PettingZoo API, random
games against an independent legality reference, hidden information, round trips, texts."""
from __future__ import annotations

import itertools
import json
from collections import Counter

import numpy as np
import pytest

from rummy_env import i_doubt_it_v0
from rummy_env.cards import CARD_TEXT, RANKS
from rummy_env.games.i_doubt_it import IDoubtItGame, Options, num_plays
from tests.harness import (check_determinize_writes_nothing, check_hidden_information, check_roundtrips,
                           play_random_games, random_legal_action, run_pettingzoo_tests)
from tests.redeals import redeal_i_doubt_it as redeal


def setup(deal: dict, **opts) -> i_doubt_it_v0.raw_env:
    e = i_doubt_it_v0.raw_env(**opts)
    e.reset(seed=0, options={"deal": deal})
    return e


def do(e, text: str, seat: int | None = None) -> None:
    if seat is not None:
        assert e.agent_selection == f"player_{seat}", (e.agent_selection, text)
    e.step(e.text_to_action(text))


def hand(e, seat: int) -> list[str]:
    return sorted(e.view(seat)["hand"])


def cards(text: str) -> list[str]:
    return sorted(text.split())


def state(e) -> str:
    return json.dumps(e.game.to_dict(), sort_keys=True)


def cumulative(e) -> list[float]:
    return [e._cumulative_rewards[a] for a in e.possible_agents]


# ---------------------------------------------------------------------------------------------
# scenario checks
SC1 = {"dealer": 3, "hands": [["AS", "AH", "9C"], ["KS", "2C"], ["QS", "3C"], ["JS", "4C"]], "discard": ["5D", "6D"]}


def test_scenario_01_truthful_play_doubted_nearest_left():
    """DI-4, DI-11, DI-14, DI-15, DI-16, DI-18..DI-20: a true play doubted; the doubter takes the pile."""
    e = setup(SC1)
    do(e, "play A A", 0)
    assert e.view(1)["claim"] == {"seat": 0, "count": 2, "rank": "A"}
    do(e, "pass", 1)
    do(e, "doubt", 2)
    v = e.view(3)
    assert v["last_reveal"] == {"seat": 0, "cards": ["AH", "AS"], "true": True, "taker": 2}
    assert hand(e, 2) == cards("QS 3C AS AH 5D 6D") and v["hand_sizes"] == [1, 2, 6, 2]
    assert v["pile_size"] == 0
    assert v["stats"][3]["passes"] == 0 and v["stats"][3]["doubts"] == 0   # p3 never asked
    assert e.agent_selection == "player_1" and v["rank"] == "K" and v["phase"] == "play"
    assert v["known"][2] == {"A": 2}


def test_scenario_02_after_pickup_taker():
    """DI-16 option after_pickup="taker": the seat that took the pile plays next."""
    e = setup(SC1, after_pickup="taker")
    do(e, "play A A", 0)
    do(e, "pass", 1)
    do(e, "doubt", 2)
    assert e.agent_selection == "player_2" and e.view(2)["rank"] == "K"


SC3 = {"dealer": 2, "hands": [["AS", "5C", "KD"], ["2C", "3C"], ["4C", "6C"]], "discard": ["9C", "9D", "9H"]}


@pytest.mark.parametrize("after_pickup,next_seat", [("next", 1), ("taker", 0)])
def test_scenario_03_lie_doubted(after_pickup, next_seat):
    """DI-5, DI-9, DI-20, DI-16: a lie is doubted; the player takes the whole pile."""
    e = setup(SC3, num_players=3, after_pickup=after_pickup)
    do(e, "play A 5", 0)
    assert e.view(0)["own_pile"] == ["AS", "5C"] and e.view(0)["pile_size"] == 5
    do(e, "doubt", 1)
    assert hand(e, 0) == cards("KD 9C 9D 9H AS 5C")
    v = e.view(1)
    assert v["pile_size"] == 0 and v["last_reveal"]["true"] is False and v["last_reveal"]["taker"] == 0
    assert v["stats"][0]["caught_lying"] == 1
    assert e.agent_selection == f"player_{next_seat}" and v["rank"] == "K"


def test_scenario_04_nobody_doubts_hidden_cards():
    """DI-19, DI-21: nobody doubts; the cards stay hidden; p1 and p2 see only the claim."""
    deal = {"rank": "7", "to_play": 0, "hands": [["7S", "8S", "9S"], ["2C", "3C"], ["4C", "5C"]]}
    seen = []
    for play in ("play 8 9", "play 7 8"):
        e = setup(deal, num_players=3)
        do(e, play, 0)
        window_obs = [e.game.observation(s).copy() for s in (1, 2)]
        assert e.view(1)["claim"] == {"seat": 0, "count": 2, "rank": "7"}
        do(e, "pass", 1)
        do(e, "pass", 2)
        after = [(e.game.observation(s).copy(), json.dumps(e.view(s))) for s in (1, 2)]
        for s in (1, 2):
            text = json.dumps(e.view(s))
            assert "8S" not in text and "9S" not in text and "7S" not in text
        assert e.view(1)["pile_size"] == 2 and e.view(1)["last_reveal"] is None
        assert e.agent_selection == "player_1" and e.view(1)["rank"] == "6"
        seen.append((window_obs, after))
    (w0, a0), (w1, a1) = seen   # p1, p2 cannot tell which two cards p0 played
    for s in range(2):
        np.testing.assert_array_equal(w0[s], w1[s])
        np.testing.assert_array_equal(a0[s][0], a1[s][0])
        assert a0[s][1] == a1[s][1]


def test_scenario_05_wrap():
    """DI-14, DI-15: ... 3, 2, then A again, then K."""
    e = setup({"rank": "2", "to_play": 1, "hands": [["5C", "6C"], ["2C", "2D", "8C"], ["9C", "TC"]]}, num_players=3)
    do(e, "play 2 2", 1)
    do(e, "pass", 2)
    do(e, "pass", 0)
    assert e.agent_selection == "player_2" and e.view(2)["rank"] == "A"
    do(e, "play 9", 2)
    assert e.view(0)["claim"]["rank"] == "A"
    do(e, "pass", 0)
    do(e, "pass", 1)
    assert e.agent_selection == "player_0" and e.view(0)["rank"] == "K"


SC6 = {"rank": "K", "to_play": 0, "hands": [["KS", "KH"], ["2C", "3C"], ["4C"]], "discard": ["5C", "6C"]}
SC7 = {**SC6, "hands": [["KS", "3H"], ["2C", "3C"], ["4C"]]}


@pytest.mark.parametrize("mode,expected", [("winner", [1, -1, -1]), ("rank", [1, -1, 0])])
def test_scenario_06_final_play_true(mode, expected):
    """DI-22, DI-18, DI-20, DI-24, DI-25, DI-29, rewards: a true final play wins at once."""
    e = setup(SC6, num_players=3, reward_mode=mode)
    do(e, "play K K", 0)
    assert e.game.done and not e.game.truncated
    assert all(e.terminations.values()) and not any(e.truncations.values())
    assert e.view(0)["hand_sizes"] == [0, 6, 1] and hand(e, 1) == cards("2C 3C 5C 6C KS KH")
    assert e.view(0)["events"][-3:] == ["player_1 takes the pile (4 cards)", "player_0 goes out, place 1", "game over"]
    assert e.view(0)["last_reveal"]["taker"] == 1
    assert cumulative(e) == expected


def test_scenario_07_final_play_false():
    """DI-22, DI-24: a false final play: the player takes the pile and play goes on."""
    e = setup(SC7, num_players=3)
    do(e, "play 3 K", 0)
    assert not e.game.done
    assert hand(e, 0) == cards("KS 3H 5C 6C")
    assert e.agent_selection == "player_1" and e.view(1)["rank"] == "Q"


def test_scenario_08_no_auto_doubt_last():
    """DI-23, DI-24: with auto_doubt_last=False a final play gets an ordinary window."""
    e = setup(SC6, num_players=3, auto_doubt_last=False)
    do(e, "play K K", 0)
    assert e.view(1)["phase"] == "doubt"
    do(e, "pass", 1)
    do(e, "pass", 2)
    assert e.game.done and cumulative(e) == [1, -1, -1] and e.view(1)["hand_sizes"] == [0, 2, 1]
    e = setup(SC7, num_players=3, auto_doubt_last=False)
    do(e, "play 3 K", 0)
    do(e, "pass", 1)
    do(e, "pass", 2)
    assert e.game.done and cumulative(e) == [1, -1, -1] and e.view(1)["last_reveal"] is None
    e = setup(SC7, num_players=3, auto_doubt_last=False)
    do(e, "play 3 K", 0)
    do(e, "doubt", 1)
    assert not e.game.done and hand(e, 0) == cards("KS 3H 5C 6C")


def test_scenario_09_two_decks_eight_of_a_rank():
    """DI-1, DI-8, DI-19: two decks, max_cards_per_play=8; the window asks p1..p5 in order."""
    hands = [["7C", "7C", "7D", "7D", "7H", "7H", "7S", "7S", "2C"], ["AC"], ["AD"], ["AH"], ["AS"], ["KC"]]
    e = setup({"rank": "7", "to_play": 0, "hands": hands}, num_players=6, max_cards_per_play=8)
    assert e.game.options.num_decks == 2 and e.action_space("player_0").n == 203_491
    a = e.text_to_action("play 7 7 7 7 7 7 7 7")
    assert e.game.legal_mask()[a] == 1
    e.step(a)
    assert e.view(1)["claim"] == {"seat": 0, "count": 8, "rank": "7"}
    for s in range(1, 6):
        assert e.agent_selection == f"player_{s}"
        do(e, "pass")
    assert e.agent_selection == "player_1" and e.view(0)["pile_size"] == 8
    e4 = setup({"rank": "7", "to_play": 0, "hands": hands}, num_players=6)
    with pytest.raises(ValueError, match="max_cards_per_play"):
        e4.text_to_action("play 7 7 7 7 7")
    e1 = i_doubt_it_v0.raw_env(num_players=3)
    e1.reset(seed=1)
    with pytest.raises(ValueError, match="play 7 7 7 7 7"):
        e1.text_to_action("play 7 7 7 7 7")
    with pytest.raises(ValueError, match="7C"):
        e1.reset(options={"deal": {"hands": [["7C", "7C"], ["2C"], ["3C"]]}})


def test_scenario_10_no_zero_card_play_no_pass_on_turn():
    """DI-7: no empty play, no pass or doubt on a turn; the refusal leaves the state unchanged."""
    e = setup(SC1)
    with pytest.raises(ValueError, match="'play'"):
        e.text_to_action("play")
    mask = e.game.legal_mask()
    assert mask[0] == 0 and mask[1] == 0
    for text in ("pass", "doubt"):
        before = state(e)
        with pytest.raises(ValueError, match=f"'{text}'"):
            do(e, text)
        assert state(e) == before


def test_scenario_11_only_held_cards_suit_order():
    """DI-5, DI-6, DI-19: only held ranks; the lowest suit moves; windows allow only doubt/pass."""
    e = setup({"rank": "7", "to_play": 0, "hands": [["7S", "7C", "8S"], ["2C", "3C"], ["4C", "5C"]]}, num_players=3)
    mask = e.game.legal_mask()
    for text in ("play 7 7 7", "play 9"):
        assert mask[e.text_to_action(text)] == 0
    legal = {e.action_to_text(a) for a in np.flatnonzero(mask)}
    assert legal == {"play 7", "play 8", "play 7 7", "play 7 8", "play 7 7 8"}
    do(e, "play 7", 0)
    assert e.view(0)["own_pile"] == ["7C"] and hand(e, 0) == cards("7S 8S")
    asked = []
    while e.view(0)["phase"] == "doubt":
        mask = e.game.legal_mask()
        assert mask.sum() == 2 and mask[0] == mask[1] == 1
        asked.append(e.agent_selection)
        do(e, "pass")
    assert asked == ["player_1", "player_2"]


def test_scenario_12_misclaim():
    """DI-12, DI-13: misclaim takes the pile back at once; no window; it counts as a play."""
    deal = {"rank": "A", "to_play": 0, "hands": [["AS", "5C"], ["2C", "3C"], ["4C", "6C"]], "discard": ["9C", "9D"]}
    e = setup(deal, num_players=3, wrong_rank_claims=True)
    assert e.action_space("player_0").n == 2382 and e.action_to_text(2381) == "misclaim"
    do(e, "misclaim", 0)
    assert hand(e, 0) == cards("AS 5C 9C 9D") and e.view(0)["pile_size"] == 0
    assert e.agent_selection == "player_1" and e.view(1)["rank"] == "K" and e.view(1)["phase"] == "play"
    assert e.view(1)["plays_made"] == 1
    e = setup(deal, num_players=3)
    with pytest.raises(ValueError, match="misclaim"):
        e.text_to_action("misclaim")


def test_scenario_13_play_to_end():
    """DI-26, DI-22, DI-18: places go on; out seats are skipped in windows and as doubters."""
    deal = {"rank": "K", "to_play": 0, "hands": [["KS"], ["2C", "3C"], ["4C"]], "discard": ["5C"]}
    e = setup(deal, num_players=3, play_to_end=True, reward_mode="rank")
    do(e, "play K", 0)
    v = e.view(1)
    assert v["out"] == [True, False, False] and v["places"][0] == 1 and not e.game.done
    assert hand(e, 1) == cards("2C 3C 5C KS")
    do(e, "play 2", 1)
    assert e.view(1)["claim"] == {"seat": 1, "count": 1, "rank": "Q"}
    do(e, "pass", 2)
    assert e.agent_selection == "player_2"
    do(e, "play 4", 2)   # claim J, final: p1 doubts automatically, p0 skipped
    v = e.view(1)
    assert v["last_reveal"] == {"seat": 2, "cards": ["4C"], "true": False, "taker": 2}
    assert hand(e, 2) == cards("2C 4C") and not e.game.done
    assert e.agent_selection == "player_1" and v["rank"] == "T"
    assert not any(e.terminations.values())


def test_scenario_13b_play_to_end_last_place():
    """DI-23, DI-26: when one seat still holds cards it takes last place and the game ends."""
    deal = {"rank": "K", "to_play": 0, "hands": [["KS"], ["QC"], ["4C", "5C"]]}
    e = setup(deal, num_players=3, play_to_end=True, reward_mode="rank", auto_doubt_last=False)
    do(e, "play K", 0)
    do(e, "pass", 1)
    do(e, "pass", 2)
    assert e.view(1)["places"] == [1, 0, 0] and not e.game.done
    do(e, "play Q", 1)
    assert e.view(2)["window"] == {"asked": [2], "passed": []}
    do(e, "pass", 2)
    assert e.game.done and not e.game.truncated and e.view(0)["places"] == [1, 2, 3]
    assert cumulative(e) == [1, 0, -1]


def test_scenario_14_cap():
    """DI-28, DI-29: after max_plays plays the game is truncated; places by cards held."""
    deal = {"dealer": 2, "hands": [["AS", "2C"], ["3C"], ["4C", "5C", "6C"]]}
    for mode, expected in (("rank", [1, 0, -1]), ("winner", [0, 0, 0])):
        e = setup(deal, num_players=3, max_plays=2, reward_mode=mode)
        do(e, "play A", 0)
        do(e, "pass", 1)
        do(e, "pass", 2)
        do(e, "play 3", 1)
        assert hand(e, 1) == cards("AS 3C")
        assert e.game.done and e.game.truncated
        assert all(e.truncations.values()) and not any(e.terminations.values())
        assert cumulative(e) == expected


def test_scenario_15_deal():
    """DI-1..DI-4: deal sizes from the dealer's left; two decks for 6 players; empty hand refused."""
    e = i_doubt_it_v0.raw_env(num_players=5)
    e.reset(seed=3, options={"deal": {"dealer": 4}})
    v = e.view(0)
    assert v["hand_sizes"] == [11, 11, 10, 10, 10] and e.agent_selection == "player_0" and v["rank"] == "A"
    e = i_doubt_it_v0.raw_env(num_players=6)
    e.reset(seed=3, options={"deal": {"dealer": 5}})
    assert e.game.options.num_decks == 2 and e.view(0)["hand_sizes"] == [18, 18, 17, 17, 17, 17]
    total = Counter(c for s in range(6) for c in e.view(s)["hand"])
    assert total == Counter({t: 2 for t in CARD_TEXT[:52]})
    with pytest.raises(ValueError, match="empty"):
        e.reset(options={"deal": {"hands": [["AS"], [], ["2C"], ["3C"], ["4C"], ["5C"]]}})


@pytest.mark.parametrize("n,sizes", [(3, [18, 17, 17]), (4, [13] * 4), (11, [10] * 5 + [9] * 6)])
def test_deal_sizes_and_dealer(n, sizes):
    """DI-2, DI-3, DI-4 for other player counts, with a random dealer."""
    e = i_doubt_it_v0.raw_env(num_players=n)
    for seed in range(4):
        e.reset(seed=seed)
        dealer = e.game.dealer
        got = [e.game.hand_size[(dealer + 1 + i) % n] for i in range(n)]
        assert got == sizes and e.agent_selection == f"player_{(dealer + 1) % n}"


# ---------------------------------------------------------------------------------------------
# independent reference legality
_REF_TABLES: dict[tuple[int, bool], np.ndarray] = {}


def reference_table(game) -> np.ndarray:
    """Per action id, the cards of each rank it puts down, laid out from the rules alone (the
    action ids of docs/rules/i_doubt_it.md), not from the engine's texts or tables: 0 ``doubt`` and
    1 ``pass`` (99: never a play), then every multiset of 1..m ranks, by number of cards, then
    lexicographically by rank index (A=0 .. K=12); last, with ``wrong_rank_claims``, ``misclaim``,
    which needs no particular card (DI-13)."""
    key = (game.options.max_cards_per_play, game.options.wrong_rank_claims)
    if key not in _REF_TABLES:
        rows = [[99] * 13, [99] * 13]
        for k in range(1, key[0] + 1):
            for ranks in itertools.combinations_with_replacement(range(13), k):
                row = [0] * 13
                for r in ranks:
                    row[r] += 1
                rows.append(row)
        if key[1]:
            rows.append([0] * 13)
        _REF_TABLES[key] = np.array(rows, dtype=np.int16)
    return _REF_TABLES[key]


def reference_mask(game) -> np.ndarray:
    """Legal actions from the rules alone: doubt/pass in a window (DI-19); in the play phase
    every play of 1..m cards whose ranks the hand holds (DI-6..DI-8) and misclaim (DI-13)."""
    need = reference_table(game)
    assert len(need) == game.num_actions
    mask = np.zeros(game.num_actions, dtype=np.int8)
    if game.done:
        return mask
    if game.phase == 1:
        mask[:2] = 1
        return mask
    hc = game.hand_cards[game.current_player]
    held = np.asarray(hc).reshape(4, 13).sum(axis=0)   # card id = 13 * suit + rank index
    mask[:] = (need <= held).all(axis=1)
    return mask


ENDINGS: Counter = Counter()


def check_invariants(game, _calls=[0]) -> None:
    """Card conservation, consistent counts, public knowledge never wrong, incremental
    observation vector equal to a rebuild."""
    n = game.num_players
    hc = np.array(game.hand_cards, dtype=np.int64)
    ranks = hc.reshape(n, 4, 13).sum(axis=1)
    assert (ranks == np.array(game.hand_ranks)).all() and (ranks.sum(axis=1) == game.hand_size).all()
    known = np.array(game.known)
    assert (known >= 0).all() and (known <= ranks).all()   # public lower bounds never wrong
    for s in range(n):
        if game.out[s]:
            assert game.hand_size[s] == 0
        else:   # DI-27 (a final play waits in its window with an empty hand)
            assert game.hand_size[s] > 0 or (game.phase == 1 and s == game.pending)
    total = hc.sum(axis=0) + np.bincount(np.array(game.pile, dtype=np.int64), minlength=52)
    assert total.tolist() == game._initial_total
    assert len(game.pile) == len(game.pile_owner)
    if game.done:
        ENDINGS[(game.options.play_to_end, game.truncated)] += 1
        assert sorted(p for p in game.places if p) == sorted(game.places) and min(game.places) == 1
    _calls[0] += 1
    if _calls[0] % 20 == 0 or game.done:
        fresh = IDoubtItGame.from_dict(game.to_dict())
        np.testing.assert_array_equal(fresh._vec, game._vec)


class RandomDealEnv(i_doubt_it_v0.raw_env):
    """A third of the games are full deals; a third start from a small random scenario deal;
    a third from a small deal in which the seats, in turn order, hold 1-3 cards of the rank
    they will have to claim, so that going out, places and play_to_end are reached often."""

    def _new_game(self, rng, deal):
        o = self.options
        kind = rng.choice(3, p=[0.2, 0.4, 0.4])
        if deal is None and kind:
            n = o.num_players
            pack = [c for c in range(52) for _ in range(o.num_decks)]
            rng.shuffle(pack)
            rank = int(rng.integers(13))
            to_play = int(rng.integers(n))
            if kind == 1:
                sizes = rng.integers(1, min(6, (len(pack) - 5) // n) + 1, size=n)
                hands, i = [], 0
                for k in sizes:
                    hands.append([CARD_TEXT[c] for c in pack[i:i + k]])
                    i += int(k)
                discard = [CARD_TEXT[c] for c in pack[i:i + int(rng.integers(0, 6))]]
            else:
                hands = [[] for _ in range(n)]
                for j in range(n):
                    r = (rank - j) % 13
                    copies = [c for c in pack if c % 13 == r and CARD_TEXT[c] not in sum(hands, [])]
                    hands[(to_play + j) % n] = [CARD_TEXT[c] for c in copies[:int(rng.integers(1, 4))]]
                discard = []
            deal = {"hands": hands, "discard": discard, "rank": RANKS[rank], "to_play": to_play}
        game = super()._new_game(rng, deal)
        game._initial_total = [0] * 52
        for c in itertools.chain(game.pile, *([c for c in range(52) for _ in range(h[c])] for h in game.hand_cards)):
            game._initial_total[c] += 1
        return game


def random_options(rng: np.random.Generator, big: bool = False) -> dict:
    n = int(rng.integers(3, 12))
    decks = [None, 1, 2][int(rng.integers(3))]
    nd = decks if decks is not None else (1 if n <= 5 else 2)
    m = 8 if big else int(rng.integers(1, min(4, 4 * nd) + 1))
    if big:
        nd, decks = 2, 2
    return dict(num_players=n, num_decks=decks, max_cards_per_play=m,
                wrong_rank_claims=bool(rng.random() < 0.4), after_pickup=["next", "taker"][int(rng.integers(2))],
                auto_doubt_last=bool(rng.random() < 0.6), play_to_end=bool(rng.random() < 0.4),
                reward_mode=["winner", "rank"][int(rng.integers(2))],
                max_plays=int(rng.integers(3, 8)) if big else int(rng.choice([4, 8, 16, 40])))


def test_random_games_against_reference():
    """>= 2,000 complete games over 3-11 players and all options, every step checked against the
    independent reference mask, card conservation and the public-knowledge invariant."""
    rng = np.random.default_rng(2024)
    ENDINGS.clear()
    games = 0
    ends = Counter()
    for i in range(100):
        opts = random_options(rng)
        stats = play_random_games(lambda: RandomDealEnv(**opts), num_games=20, seed=i,
                                  reference_mask=reference_mask, check_invariants=check_invariants)
        games += stats["games"]
        ends.update(terminated=stats["terminated"], truncated=stats["truncated"])
    for i in range(2):   # 203,491-action layout
        opts = random_options(rng, big=True)
        stats = play_random_games(lambda: RandomDealEnv(**opts), num_games=4, seed=500 + i,
                                  reference_mask=reference_mask, check_invariants=check_invariants,
                                  illegal_probe_every=3)
        games += stats["games"]
    assert games >= 2000
    assert ends["terminated"] > 300 and ends["truncated"] > 300, ends
    assert ENDINGS[(True, False)] > 10, ENDINGS   # play_to_end games played to the last place


# ---------------------------------------------------------------------------------------------
# hidden information
@pytest.mark.parametrize("opts", [{}, {"num_players": 3, "play_to_end": True, "auto_doubt_last": False},
                                  {"num_players": 7, "wrong_rank_claims": True, "after_pickup": "taker"}])
def test_hidden_information(opts):
    """Shared contract 3: observation and view do not depend on other hands or unseen pile cards."""
    redeal.changed = 0
    checked = check_hidden_information(lambda: i_doubt_it_v0.raw_env(**opts), seed=7, num_states=25,
                                       redeal=redeal, redeals_per_state=3)
    assert checked > 100
    assert redeal.changed > checked // 2


def test_known_cards_are_public_lower_bounds():
    """Revealed cards picked up are known; a face-down play lowers the bound; a reveal refines it."""
    e = setup(SC1)
    do(e, "play A A", 0)
    do(e, "pass", 1)
    do(e, "doubt", 2)          # p2 takes AS AH publicly
    do(e, "play 2", 1)         # claim K
    do(e, "pass", 2)
    do(e, "pass", 3)
    do(e, "pass", 0)
    assert e.view(0)["known"][2] == {"A": 2}
    do(e, "play A", 2)         # claim Q, face down: at least one A remains
    assert e.view(0)["known"][2] == {"A": 1}
    do(e, "doubt", 3)          # shown: an A (not Q): exactly one A left the hand
    assert e.view(0)["known"][2] == {"A": 2}   # 1 remaining + the A taken back with the pile
    obs = e.game.observation(1)   # seat-relative: p2 is index 1 for p1
    known0 = 74 + 16 * 4
    assert obs[known0 + 13 * 1 + 0] == 2


# ---------------------------------------------------------------------------------------------
# API, round trips, texts, options, illegal actions
def test_pettingzoo_api_4p():
    run_pettingzoo_tests(lambda: i_doubt_it_v0.env())


def test_pettingzoo_api_8p():
    run_pettingzoo_tests(lambda: i_doubt_it_v0.env(num_players=8), num_cycles=200)


@pytest.mark.parametrize("opts", [{}, {"num_players": 9, "wrong_rank_claims": True, "play_to_end": True},
                                  {"num_players": 6, "max_cards_per_play": 8}])
def test_roundtrips(opts):
    check_roundtrips(lambda: i_doubt_it_v0.raw_env(**opts), seed=11)


def test_text_roundtrip_every_action():
    """Every id of the default and misclaim layouts; a sample of the 203,491-action layout."""
    for opts in ({}, {"wrong_rank_claims": True}):
        e = i_doubt_it_v0.raw_env(**opts)
        e.reset(seed=0)
        n = e.action_space("player_0").n
        assert n == (2382 if opts else 2381)
        texts = [e.action_to_text(a) for a in range(n)]
        assert len(set(texts)) == n
        assert all(e.text_to_action(t) == a for a, t in enumerate(texts))
    assert texts[:3] == ["doubt", "pass", "play A"] and texts[14:17] == ["play K", "play A A", "play A 2"]
    assert texts[28] == "play 2 2"
    e = i_doubt_it_v0.raw_env(num_players=6, max_cards_per_play=8)
    e.reset(seed=0)
    assert e.action_space("player_0").n == 203_491 == 2 + num_plays(8)
    rng = np.random.default_rng(0)
    for a in list(rng.integers(0, 203_491, size=3000)) + [2, 203_490]:
        assert e.text_to_action(e.action_to_text(int(a))) == a
    assert e.action_to_text(203_490) == "play K K K K K K K K"


def test_text_parsing_variants():
    e = i_doubt_it_v0.raw_env()
    e.reset(seed=0)
    a = e.text_to_action("play 7 7 K")
    assert e.action_to_text(a) == "play 7 7 K"
    assert e.text_to_action("  PLAY k 7   7 ") == a
    assert e.action_to_text(e.text_to_action("play 10 t")) == "play T T"
    for bad in ("play", "play X", "hold", "", "play 7 7 7 7 7", "doubt now", "misclaim"):
        with pytest.raises(ValueError):
            e.text_to_action(bad)


@pytest.mark.parametrize("opt,value", [
    ("num_players", 2), ("num_players", 12), ("num_players", "4"), ("num_decks", 3), ("num_decks", 0),
    ("max_cards_per_play", 0), ("max_cards_per_play", 5), ("wrong_rank_claims", 1),
    ("after_pickup", "doubter"), ("auto_doubt_last", "yes"), ("play_to_end", None),
    ("reward_mode", "points"), ("max_plays", 0), ("max_plays", 2.5)])
def test_option_validation(opt, value):
    with pytest.raises(ValueError, match=opt):
        i_doubt_it_v0.env(**{opt: value})


def test_option_validation_other():
    with pytest.raises(ValueError, match="colour"):
        i_doubt_it_v0.env(colour="red")
    with pytest.raises(ValueError, match="illegal_action_penalty"):
        i_doubt_it_v0.env(illegal_action_penalty="yes")
    assert Options(num_players=4, num_decks=2, max_cards_per_play=8).max_cards_per_play == 8
    assert Options(num_players=8).num_decks == 2 and Options(num_players=5).num_decks == 1


@pytest.mark.parametrize("deal,match", [
    ({"hands": [["AS"], ["2C"]]}, "hands"),
    ({"hands": [["AS"], ["2C"], []]}, "empty"),
    ({"hands": [["AS"], ["2C"], ["ZZ"]]}, "ZZ"),
    ({"hands": [["AS"], ["2C"], ["JK"]]}, "JK"),
    ({"hands": [["AS"], ["2C"], ["3C"]], "discard": ["AS"]}, "AS"),
    ({"hands": [["AS"], ["2C"], ["3C"]], "rank": "1"}, "rank"),
    ({"hands": [["AS"], ["2C"], ["3C"]], "rank": 7}, "rank"),
    ({"hands": [["AS"], ["2C"], ["3C"]], "to_play": 3}, "to_play"),
    ({"hands": [["AS"], ["2C"], ["3C"]], "dealer": -1}, "dealer"),
    ({"hands": [["AS"], ["2C"], ["3C"]], "stock": ["4C"]}, "stock"),
    ({"hands": [["AS"], ["2C"], ["3C"]], "score": 1}, "score"),
    ({"discard": ["4C"]}, "discard"),
])
def test_deal_validation(deal, match):
    e = i_doubt_it_v0.raw_env(num_players=3)
    with pytest.raises(ValueError, match=match):
        e.reset(options={"deal": deal})


def test_deal_accepts_ten_and_two_deck_copies():
    e = setup({"hands": [["10H", "7C", "7C"], ["2C"], ["3C"], ["4C"], ["5C"], ["6C"]], "rank": "10"}, num_players=6)
    assert e.view(0)["rank"] == "T" and hand(e, 0) == cards("TH 7C 7C")


def test_illegal_action_refused_state_unchanged():
    """Shared contract 4: ValueError naming the text and the reason; state unchanged."""
    e = setup(SC3, num_players=3)
    before = state(e)
    a = e.text_to_action("play K K")
    with pytest.raises(ValueError, match="play K K") as err:
        e.step(a)
    assert "DI-6" in str(err.value) and state(e) == before
    do(e, "play A", 0)
    before = state(e)
    with pytest.raises(ValueError, match="play 2.*DI-19"):
        do(e, "play 2")
    assert state(e) == before
    with pytest.raises(ValueError):
        e.step(2381)


def test_illegal_action_penalty():
    e = i_doubt_it_v0.env(illegal_action_penalty=True)
    e.reset(seed=0)
    first = e.agent_selection
    e.step(0)   # pass/doubt on a turn is illegal
    assert all(e.unwrapped.terminations.values())
    assert e.unwrapped._cumulative_rewards[first] == -1
    assert all(v == 0 for a, v in e.unwrapped._cumulative_rewards.items() if a != first)


def test_rank_rewards_shared_places():
    """Rewards "rank" with shared places (DI-29): equal card counts share the average."""
    deal = {"dealer": 2, "hands": [["AS"], ["3C", "4C"], ["5C", "6C"]]}
    e = setup(deal, num_players=3, reward_mode="rank")
    do(e, "play A", 0)   # final, true: p1 takes the pile (3 cards), p2 holds 2
    assert cumulative(e) == [1, -1, 0]
    e = setup({"dealer": 3, "hands": [["AS"], ["3C", "4C"], ["5C", "6C"], ["7C", "8C"]]}, reward_mode="rank")
    do(e, "play A", 0)   # p1 takes it: 3 cards; p2, p3 share places 2 and 3
    assert cumulative(e) == pytest.approx([1, -1, 0, 0])


def test_render_and_view_keys():
    e = i_doubt_it_v0.env(render_mode="ansi")
    e.reset(seed=1)
    text = e.render()
    assert "I Doubt It" in text
    v = e.unwrapped.view(e.agent_selection)
    for key in ("game", "seat", "num_players", "to_play", "phase", "done", "hand", "hand_sizes", "scores",
                "legal_actions", "melds", "discard", "stock_size", "events", "pile_size", "claim", "rank"):
        assert key in v
    assert v["discard"] == [] and v["legal_actions"] == [e.unwrapped.action_to_text(a)
                                                         for a in np.flatnonzero(e.observe(e.agent_selection)["action_mask"])]
    json.dumps(v)


def test_observation_layout():
    """Offsets documented in i_doubt_it_v0: own hand, pile, required rank, hand sizes."""
    e = setup(SC3, num_players=3)
    obs = e.observe("player_1")["observation"]
    assert obs.shape == (74 + 29 * 3,) and obs.dtype == np.float32
    assert list(obs[0:13]) == [0, 1, 1] + [0] * 10   # p1 holds 2C 3C
    assert obs[26 + 0] == 1 and obs[39] == 3          # claim A due; pile 3
    assert list(obs[74:77]) == [2, 2, 3]              # sizes: me (p1), p2, p0
    assert obs[40] == 1                                # play phase
    assert list(obs[74 + 3 * 3:74 + 4 * 3]) == [0, 0, 1]   # p0 (index 2 for p1) to act


@pytest.mark.parametrize("opts", [{}, {"num_players": 8, "wrong_rank_claims": True}])
def test_determinize_leaves_the_real_game_bit_identical(opts):
    """Determinizing every seat (uniformly and with ``truthful_claim``) at positions of both
    phases through a game writes nothing on the game: every attribute and the generator's state
    stay bit-identical."""
    rng = np.random.default_rng(4)
    game = IDoubtItGame.new(Options(**opts), np.random.default_rng(3))
    seen = Counter()
    for step in range(120):
        if step % 7 == 0 or game.phase == 1 and seen[1] < 6:
            seen[game.phase] += 1
            for truthful in (False, True):
                check_determinize_writes_nothing(game, rng, truthful_claim=truthful)
        game.step(random_legal_action(game.legal_mask(), rng))
        if game.done:
            break
    assert seen[0] >= 3 and seen[1] >= 3, seen
