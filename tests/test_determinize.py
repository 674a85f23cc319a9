"""``env.unwrapped.clone()`` and ``env.unwrapped.determinize(agent, seed)`` in all five games.

A determinized world must look exactly the same to its agent (observation, legal mask, view,
agent to act), re-deal what the agent cannot see (other seats' hidden cards vary across samples),
uniformly among the consistent deals (chi-square tests), and be independent of the original
(stepping it to the end changes nothing there). A clone is the same state, steps the same way,
and is independent too.
"""
from __future__ import annotations

import json
import math
import pickle
from collections import Counter

import numpy as np
import pytest

from rummy_env.cards import BIT, cards_of, parse_card
from rummy_env.registry import make_raw_env
from tests.harness import SHORT_EPISODE_OPTIONS, random_legal_action

GAMES = ["rummy", "tongits", "i_doubt_it", "contract_rummy", "ginny_o"]
OPTION_SETS = {
    "rummy": [{}, {"num_players": 4, "max_turnovers": 5}],
    "tongits": [{}],
    "i_doubt_it": [{"num_players": 4}, {"num_players": 6, "max_cards_per_play": 3}],
    "contract_rummy": [{"num_players": 4}],
    "ginny_o": [{}, {"num_players": 3}],
}
CASES = [(game, options) for game in GAMES for options in OPTION_SETS[game]]


def case_id(case) -> str:
    game, options = case
    return game + "".join(f"-{k}={v}" for k, v in options.items())


def public_snapshot(env) -> tuple:
    """Everything the original environment shows, for checking that a copy never changes it."""
    game = env.game
    return (json.dumps(game.to_dict(), sort_keys=True, default=str),
            [env.observe(a)["observation"].tobytes() + env.observe(a)["action_mask"].tobytes()
             for a in env.possible_agents],
            json.dumps([env.view(a) for a in env.possible_agents], sort_keys=True),
            env.agent_selection, dict(env.rewards), dict(env._cumulative_rewards), dict(env.terminations),
            dict(env.truncations))


def play_to_end(env, rng: np.random.Generator, max_steps: int = 5000) -> int:
    """Random legal actions through the AEC API until every agent is done; returns the steps."""
    steps = 0
    while env.agents and steps < max_steps:
        _obs, _reward, term, trunc, _info = env.last()
        if term or trunc:
            env.step(None)
        else:
            env.step(random_legal_action(env.observe(env.agent_selection)["action_mask"], rng))
        steps += 1
    return steps


def positions(game: str, options: dict, seed: int, count: int, max_walk: int = 60):
    """``count`` positions reached by random play (new episodes as they end)."""
    env = make_raw_env(game, **options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(count):
        for _ in range(int(rng.integers(1, max_walk))):
            if env.game.done:
                env.reset(seed=int(rng.integers(1 << 30)))
            env.step(random_legal_action(env.game.legal_mask(), rng))
        if not env.game.done:
            yield env


def everything_seen(env, agent: str) -> bool:
    """Rummy after an unshuffled turnover (RM-24): the stock order is public, and so is every card
    drawn from it; when at most one opponent holds cards never turned over, a determinization
    has nothing to re-deal."""
    game = env.game
    if env.metadata["name"] != "rummy_v0" or not game.turned or game.options.shuffle_turnover:
        return False
    turned = 0
    for packet in game.turned:   # a card may be in several packets
        turned |= packet
    seat = env.agent_name_mapping[agent]
    holders = [q for q in range(game.num_players)
               if q != seat and game.hands[q] & ~game.known[q] & ~turned]
    return len(holders) <= 1


def other_seats_view(env, agent: str) -> bytes:
    """The other seats' observations (each holds its own cards): a fingerprint of hidden cards."""
    return b"".join(env.observe(a)["observation"].tobytes() for a in env.possible_agents if a != agent)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_determinized_world_looks_the_same_to_its_agent(case):
    check_determinized_worlds(*case, seed=11, count=40)


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_determinized_world_looks_the_same_to_its_agent_in_many_positions(case):
    check_determinized_worlds(*case, seed=111, count=1500)


def check_determinized_worlds(game: str, options: dict, seed: int, count: int) -> None:
    """In ``count`` positions of random play, for every seat and six seeds: the determinized
    world shows the seat the same observation, mask, view and agent to act, and the other seats'
    cards vary across the seeds wherever anything is hidden."""
    checked = varied = hidden = 0
    for env in positions(game, options, seed=seed, count=count):
        for agent in env.possible_agents:
            obs = env.observe(agent)
            view = json.dumps(env.view(agent), sort_keys=True)
            fingerprints = {other_seats_view(env, agent)}
            for sample in range(6):
                world = env.determinize(agent, seed=sample)
                assert world is not env and world.game is not env.game
                assert world.agent_selection == env.agent_selection
                assert world.game.current_player == env.game.current_player
                seen = world.observe(agent)
                assert seen["observation"].dtype == obs["observation"].dtype
                np.testing.assert_array_equal(seen["observation"], obs["observation"])
                np.testing.assert_array_equal(seen["action_mask"], obs["action_mask"])
                assert json.dumps(world.view(agent), sort_keys=True) == view
                fingerprints.add(other_seats_view(world, agent))
                checked += 1
            if everything_seen(env, agent):
                assert len(fingerprints) == 1
            else:
                hidden += 1
                varied += len(fingerprints) > 1
    assert checked >= 6 * count
    assert varied >= 0.9 * hidden, f"hidden cards varied in only {varied} of {hidden} positions"


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_stepping_a_determinized_world_or_a_clone_never_changes_the_original(case):
    game, options = case
    options = {**options, **(SHORT_EPISODE_OPTIONS[game] if game != "i_doubt_it" else {"max_plays": 60})}
    rng = np.random.default_rng(5)
    for env in positions(game, options, seed=12, count=6, max_walk=30):
        before = public_snapshot(env)
        for agent in env.possible_agents:
            assert play_to_end(env.determinize(agent, seed=int(rng.integers(1 << 30))), rng) > 0
        assert play_to_end(env.clone(), rng) > 0
        assert public_snapshot(env) == before


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_clone_is_the_same_state_and_steps_the_same_way(case):
    game, options = case
    rng = np.random.default_rng(3)
    for env in positions(game, options, seed=13, count=5, max_walk=40):
        twin = env.clone()
        assert twin is not env and twin.game is not env.game
        assert public_snapshot(twin) == public_snapshot(env)
        assert twin.agents == env.agents and twin.infos == env.infos
        # The same actions give the same states, deals and reshuffles included (the generator is copied).
        for _ in range(150):
            if not env.agents:
                break
            _obs, _reward, term, trunc, _info = env.last()
            mask = env.observe(env.agent_selection)["action_mask"]
            action = None if term or trunc else random_legal_action(mask, rng)
            env.step(action)
            twin.step(action)
            assert twin.game.to_dict() == env.game.to_dict()
            assert (twin.agent_selection, twin.rewards, twin.terminations) == (env.agent_selection, env.rewards,
                                                                               env.terminations)
        assert public_snapshot(twin) == public_snapshot(env)
        copy = pickle.loads(pickle.dumps(twin.game))
        assert copy.to_dict() == twin.game.to_dict()


@pytest.mark.parametrize("game", GAMES)
def test_the_same_seed_gives_the_same_world(game):
    for env in positions(game, OPTION_SETS[game][0], seed=14, count=3):
        agent = env.agent_selection
        first, second = env.determinize(agent, seed=9), env.determinize(agent, seed=9)
        assert first.game.to_dict() == second.game.to_dict()
        assert first.game.to_dict() != env.determinize(agent, seed=10).game.to_dict()


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_a_determinization_after_a_step_deals_the_new_position(case):
    """Determinizing the same seat before and after each step (I Doubt It, Ginny-O and Tongits
    keep what they re-deal until the next step): the world after the step looks like the new
    position (observation and view)."""
    game, options = case
    rng = np.random.default_rng(4)
    for env in positions(game, options, seed=15, count=3, max_walk=30):
        for step in range(60):
            if env.game.done:
                break
            agent = env.possible_agents[step % len(env.possible_agents)]
            env.determinize(agent, seed=1)
            env.step(random_legal_action(env.game.legal_mask(), rng))
            world = env.determinize(agent, seed=1)
            np.testing.assert_array_equal(world.observe(agent)["observation"], env.observe(agent)["observation"])
            assert json.dumps(world.view(agent), sort_keys=True) == json.dumps(env.view(agent), sort_keys=True)

# -- uniformity ------------------------------------------------------------------------------------
def chi_square_p(statistic: float, df: int) -> float:
    """Upper tail of the chi-square distribution (Wilson-Hilferty normal approximation)."""
    z = ((statistic / df) ** (1 / 3) - (1 - 2 / (9 * df))) / math.sqrt(2 / (9 * df))
    return 0.5 * math.erfc(z / math.sqrt(2))


def assert_uniform(counts: Counter, expected: dict, alpha: float = 1e-4) -> None:
    """Chi-square of observed counts against expected counts over the same cells."""
    statistic = sum((counts.get(cell, 0) - e) ** 2 / e for cell, e in expected.items())
    assert set(counts) <= set(expected), f"counts outside the expected cells: {set(counts) - set(expected)}"
    p = chi_square_p(statistic, len(expected) - 1)
    assert p > alpha, f"chi-square {statistic:.1f} with {len(expected) - 1} df: p = {p:.2g}"


def test_fresh_two_player_rummy_deal_gives_each_unseen_card_to_the_opponent_with_probability_10_of_41():
    env = make_raw_env("rummy")
    env.reset(seed=21)
    game = env.game
    seat = game.current_player
    opponent = 1 - seat
    unseen = [c for c in range(52) if not (game.hands[seat] | game.pile_mask) & BIT[c]]
    assert len(unseen) == 41
    samples = 4000
    in_opponent = Counter()
    for s in range(samples):
        world = env.determinize(f"player_{seat}", seed=s)
        in_opponent.update(cards_of(world.game.hands[opponent]))
    assert set(in_opponent) <= set(unseen)
    # Each sample puts exactly 10 of the 41 cards in the hand: 41 cells, 40 degrees of freedom.
    assert_uniform(in_opponent, {c: samples * 10 / 41 for c in unseen})


def test_a_biased_redeal_fails_the_rummy_uniformity_check():
    """The check above catches a scheme that keeps the opponent's real cards more often."""
    env = make_raw_env("rummy")
    env.reset(seed=21)
    game = env.game
    seat = game.current_player
    opponent = 1 - seat
    unseen = [c for c in range(52) if not (game.hands[seat] | game.pile_mask) & BIT[c]]
    samples = 4000
    biased = Counter()
    rng = np.random.default_rng(0)
    real = cards_of(game.hands[opponent])
    for s in range(samples):
        hand = cards_of(env.determinize(f"player_{seat}", seed=s).game.hands[opponent])
        if rng.random() < 0.1:   # one sample in ten keeps the real hand
            hand = real
        biased.update(hand)
    with pytest.raises(AssertionError):
        assert_uniform(biased, {c: samples * 10 / 41 for c in unseen})


def test_rummy_taken_discard_stays_with_its_taker_and_the_rest_is_uniform():
    deal = {"hands": [["2C", "3C", "4C", "9D", "TD", "QH", "KH", "5S", "7S", "AS"],
                      ["2D", "3D", "4D", "8C", "9C", "JH", "5H", "6S", "8S", "KS"]],
            "discard": ["7C"], "dealer": 1}
    env = make_raw_env("rummy")
    env.reset(seed=1, options={"deal": deal})
    env.step(env.text_to_action("take discard"))   # player_0 takes 7C (RM-32)
    env.step(env.text_to_action("discard AS"))
    assert env.agent_selection == "player_1"
    taken = parse_card("7C")
    own = env.game.hands[1] | env.game.pile_mask
    unseen = [c for c in range(52) if not own & BIT[c] and c != taken]
    samples = 3000
    counts = Counter()
    for s in range(samples):
        hand = env.determinize("player_1", seed=s).game.hands[0]
        assert hand & BIT[taken]
        counts.update(c for c in cards_of(hand) if c != taken)
    assert_uniform(counts, {c: samples * 9 / len(unseen) for c in unseen})


def test_tongits_secret_ranks_are_uniform_among_ranks_whose_four_cards_are_unseen():
    env = make_raw_env("tongits")
    rng = np.random.default_rng(0)
    for episode in range(400):   # a position where another seat has laid a secret
        env.reset(seed=episode)
        game = env.game
        while not game.done and not any(m[2] for m in game.melds):
            mask = game.legal_mask()
            secrets = np.flatnonzero(mask[386:399])
            env.step(386 + int(secrets[0]) if len(secrets) else random_legal_action(mask, rng))
        if not game.done and any(m[2] for m in game.melds):
            break
    else:
        pytest.fail("no secret laid in 400 games")
    k, meld = next((k, m) for k, m in enumerate(game.melds) if m[2])
    seat = (meld[0] + 1) % 3
    seen = game.hands[seat] | sum(BIT[c] for c in game.discard) | sum(m[1] for m in game.melds if not m[2])
    free = [r for r in range(1, 14) if not any(seen & BIT[13 * s + r - 1] for s in range(4))]
    assert len(free) >= 3
    samples = 3000
    ranks = Counter()
    for s in range(samples):
        world = env.determinize(f"player_{seat}", seed=s).game
        secret = world.melds[k]
        assert secret[1] == sum(BIT[13 * s_ + secret[4] - 1] for s_ in range(4))
        ranks[secret[4]] += 1
    assert_uniform(ranks, {r: samples / len(free) for r in free})


def test_i_doubt_it_revealed_cards_stay_with_their_taker_and_the_rest_is_uniform():
    deal = {"hands": [["AC", "2C", "3C"], ["4D", "5D", "6D", "7D"], ["8H", "9H", "TH", "JH"]],
            "rank": "A", "to_play": 0}
    env = make_raw_env("i_doubt_it", num_players=3)
    env.reset(seed=1, options={"deal": deal})
    env.step(env.text_to_action("play 2"))      # player_0 claims an ace, plays 2C
    env.step(env.text_to_action("doubt"))       # player_1 doubts: 2C revealed, player_0 takes it
    game = env.game
    assert game.known[0][1] == 1
    seat = 2
    unseen_players = [0, 1]
    samples = 3000
    counts = Counter()
    for s in range(samples):
        world = env.determinize(f"player_{seat}", seed=s).game
        assert world.hand_ranks[0][1] >= 1   # the revealed two stays with its taker
        for q in unseen_players:
            for c, x in enumerate(world.hand_cards[q]):
                if x and not (q == 0 and c == parse_card("2C")):
                    counts[(c, q)] += x
    pool = [c for q in unseen_players for c, x in enumerate(game.hand_cards[q]) for _ in range(x)
            if not (q == 0 and c == parse_card("2C"))]
    free_slots = {0: game.hand_size[0] - 1, 1: game.hand_size[1]}
    total = sum(free_slots.values())
    assert_uniform(counts, {(c, q): samples * free_slots[q] / total for c in pool for q in unseen_players})


def test_contract_rummy_picked_up_cards_stay_and_the_rest_is_uniform():
    env = make_raw_env("contract_rummy", num_players=3)
    rng = np.random.default_rng(2)
    env.reset(seed=4)
    game = env.game
    while not any(sum(k) for k in game.known):   # until a seat has taken from the pile
        env.step(random_legal_action(game.legal_mask(), rng))
        if game.done:
            pytest.fail("nobody took from the pile")
    holder = next(s for s in range(3) if sum(game.known[s]))
    seat = (holder + 1) % 3
    others = [s for s in range(3) if s != seat]
    samples = 2000
    counts = Counter()
    for s in range(samples):
        world = env.determinize(f"player_{seat}", seed=s).game
        for q in others:
            assert all(world.hands[q][c] >= game.known[q][c] for c in range(53))
            for c in range(53):
                if world.hands[q][c] > game.known[q][c]:
                    counts[(c, q)] += world.hands[q][c] - game.known[q][c]
    pool = Counter(game.stock)
    for q in others:
        pool.update({c: game.hands[q][c] - game.known[q][c] for c in range(53) if game.hands[q][c] > game.known[q][c]})
    slots = {q: game.hsize[q] - sum(game.known[q]) for q in others}
    total = sum(slots.values()) + len(game.stock)
    assert_uniform(counts, {(c, q): samples * x * slots[q] / total for c, x in pool.items() for q in others})


def contract_rummy_after_a_reshuffle():
    """A 3-player Contract Rummy position (one deck, one joker) after the pile was shuffled into a
    new stock (CR-4, CR-32), at the start of a turn, with cards left in the stock and another seat
    holding both a card drawn from the new stock and older hidden cards; with the new stock's
    cards (the pile but its top card when it was shuffled)."""
    env = make_raw_env("contract_rummy", num_players=3, deals=[1])
    rng = np.random.default_rng(3)
    for episode in range(200):
        env.reset(seed=episode)
        game = env.game
        new_stock = None
        while not game.done:
            action = random_legal_action(game.legal_mask(), rng)
            if action == 0 and not game.stock:
                new_stock = Counter(game.pile[:-1])
            env.step(action)
            if new_stock is None or game.done or game.phase != 0 or len(game.stock) < 4:
                continue
            seat = game.current_player
            for q in range(3):
                hidden = [c for c in range(53) for _ in range(game.hands[q][c] - game.known[q][c])]
                if q != seat and any(c in new_stock for c in hidden) and any(c not in new_stock for c in hidden):
                    return env, seat, new_stock
    pytest.fail("no such position in 200 deals")


def test_contract_rummy_after_a_reshuffle_the_stock_holds_only_cards_of_the_new_stock():
    """CR-4: the new stock is made of the pile's cards, which are public; the re-dealt stock keeps
    to them, each other seat keeps as many of them as it drew and holds, and within that class
    the cards are dealt uniformly (the stock and each seat's share of the class)."""
    env, seat, new_stock = contract_rummy_after_a_reshuffle()
    game = env.game
    others = [q for q in range(3) if q != seat]

    def from_new_stock(hands, q):
        return sum(x - game.known[q][c] for c, x in enumerate(hands[q]) if c in new_stock and x > game.known[q][c])

    slots = {q: from_new_stock(game.hands, q) for q in others}
    slots["stock"] = len(game.stock)
    pool = Counter(game.stock)
    for q in others:
        pool.update({c: x - game.known[q][c] for c, x in enumerate(game.hands[q]) if c in new_stock and x > game.known[q][c]})
    samples = 1500
    counts = Counter()
    for s in range(samples):
        world = env.determinize(f"player_{seat}", seed=s).game
        assert not Counter(world.stock) - new_stock, "a card that was not in the pile is in the new stock"
        counts.update((c, "stock") for c in world.stock)
        for q in others:
            assert from_new_stock(world.hands, q) == slots[q]
            counts.update({(c, q): x - game.known[q][c] for c, x in enumerate(world.hands[q])
                           if c in new_stock and x > game.known[q][c]})
    total = sum(slots.values())
    assert_uniform(counts, {(c, place): samples * x * size / total
                            for c, x in pool.items() for place, size in slots.items() if size})


def test_ginny_o_racks_and_box_are_uniform():
    env = make_raw_env("ginny_o", num_players=3)
    rng = np.random.default_rng(1)
    env.reset(seed=2)
    for _ in range(12):
        env.step(random_legal_action(env.game.legal_mask(), rng))
    game = env.game
    seat = game.current_player
    others = [q for q in range(3) if q != seat]
    samples = 1500
    counts = Counter()
    for s in range(samples):
        world = env.determinize(f"player_{seat}", seed=s).game
        for q in others:
            for t, x in enumerate(world.racks[q]):
                if x:
                    counts[(t, q)] += x
    pool = Counter(game.box)
    for q in others:
        pool.update({t: x for t, x in enumerate(game.racks[q]) if x})
    total = len(game.box) + sum(sum(game.racks[q]) for q in others)
    assert_uniform(counts, {(t, q): samples * x * sum(game.racks[q]) / total
                            for t, x in pool.items() for q in others})


GINNY_O_DEAL = {"hands": ["2C 5D 9H KS 3S 7C JD", "4C 6D 8H QS 2S 9C TD"],
                "stock": "AH 3H 5H 7H 9S JS KH AC 4D 6S", "first": 0}
"""Player 0 draws AH first; 10 tiles in the box."""


def ginny_o_after(texts: list[str], **options):
    """A two-player Ginny-O game of :data:`GINNY_O_DEAL` after the actions ``texts``."""
    env = make_raw_env("ginny_o", **options)
    env.reset(seed=0, options={"deal": GINNY_O_DEAL})
    for text in texts:
        env.step(env.game.text_to_action(text))
    return env


def where_is(env, seat: int, tile: str, samples: int) -> Counter:
    """Over ``samples`` determinizations for ``seat``: how often ``tile`` lies in the box, at its
    bottom, and in each other rack."""
    t = parse_card(tile, allow_joker=True)
    found = Counter()
    for s in range(samples):
        world = env.determinize(seat, seed=s).game
        found["box"] += world.box.count(t)
        found["bottom"] += world.box[-1] == t
        for q in range(world.num_players):
            if q != seat:
                found[q] += world.racks[q][t]
    return found


def test_ginny_o_own_returned_tile_is_in_the_box_until_another_seat_draws():
    """The agent knows the tile it returned (GO-11) is in the box: before the next seat draws, no
    re-deal puts it in that seat's rack (as an unseen tile it went there about 7 times in 17)."""
    env = ginny_o_after(["draw", "return KS"])
    assert env.game.current_player == 1 and len(env.game.box) == 10
    found = where_is(env, 0, "KS", 200)
    assert found["box"] == 200 and found[1] == 0


def test_ginny_o_own_returned_tile_is_drawn_as_likely_as_any_box_tile():
    """Once the next seat has drawn one tile from the mixed box of 10 (GO-14), the agent's returned
    tile is in that seat's rack with probability 1/10 (as an unseen tile: 8 in 17)."""
    env = ginny_o_after(["draw", "return KS", "draw"])
    samples, p = 1000, 0.1
    found = where_is(env, 0, "KS", samples)
    assert found["box"] + found[1] == samples
    assert abs(found[1] - samples * p) < 4 * math.sqrt(samples * p * (1 - p)), found


def test_ginny_o_exchanged_tiles_stay_in_the_box_and_an_unmixed_box_keeps_their_places():
    """Exchanged tiles (GO-34) the agent did not draw back are in the box for it; without mixing
    (GO-14) a returned tile keeps its place at the bottom of the box until the box reaches it."""
    env = ginny_o_after(["exchange KS", "exchange 2C", "commit"])
    kept = {"KS", "2C"} - set(env.game.view(0)["hand"])
    assert kept and all(where_is(env, 0, tile, 100)["box"] == 100 for tile in kept)
    env = ginny_o_after(["draw", "return KS", "draw", "return 4C"], reshuffle_on_return=False)
    ks = parse_card("KS")
    assert all(env.determinize(0, seed=s).game.box[-2] == ks for s in range(100))
    assert where_is(env, 1, "4C", 100)["bottom"] == 100


def test_determinize_and_clone_refuse_an_environment_that_was_never_reset():
    env = make_raw_env("rummy")
    with pytest.raises(ValueError, match="reset"):
        env.clone()
    with pytest.raises(ValueError, match="reset"):
        env.determinize("player_0", seed=0)


def test_determinize_refuses_a_seed_that_is_not_an_int_and_an_unknown_agent():
    env = make_raw_env("rummy")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="seed"):
        env.determinize("player_0", seed=1.5)
    for agent in ("player_2", 2, -1, True, None):
        with pytest.raises(ValueError, match="no agent "):
            env.determinize(agent, seed=0)
    assert env.determinize(1, seed=0).game.to_dict() == env.determinize("player_1", seed=0).game.to_dict()


def rummy_after_turnover(shuffle_turnover: bool):
    """A 4-player Rummy position after a turnover (RM-24) in which another seat holds a card of
    the turned packet."""
    env = make_raw_env("rummy", num_players=4, max_turnovers=5, shuffle_turnover=shuffle_turnover)
    rng = np.random.default_rng(7)
    for episode in range(50):
        env.reset(seed=episode)
        game = env.game
        while not game.done:
            env.step(random_legal_action(game.legal_mask(), rng))
            packet = game.turned[-1] if game.turned else 0
            seat = game.current_player
            if any(game.hands[q] & packet & ~game.known[q] for q in range(4) if q != seat) and len(game.stock) > 3:
                return env, seat
    pytest.fail("no turnover in 50 games")


def test_rummy_after_an_unshuffled_turnover_the_stock_and_the_cards_drawn_from_it_stay():
    env, seat = rummy_after_turnover(shuffle_turnover=False)
    game = env.game
    turned = 0
    for packet in game.turned:
        turned |= packet
    for s in range(50):
        world = env.determinize(f"player_{seat}", seed=s).game
        assert world.stock == game.stock
        for q in range(4):
            assert world.hands[q] & turned == game.hands[q] & turned
            assert world.hands[q].bit_count() == game.hands[q].bit_count()


def test_rummy_after_a_shuffled_turnover_the_stock_holds_only_turned_cards_and_each_hand_its_count():
    env, seat = rummy_after_turnover(shuffle_turnover=True)
    game = env.game
    packet = game.turned[-1]
    stocks = set()
    for s in range(200):
        world = env.determinize(f"player_{seat}", seed=s).game
        assert all(packet & BIT[c] for c in world.stock)
        assert len(world.stock) == len(game.stock)
        stocks.add(tuple(world.stock))
        for q in range(4):
            assert (world.hands[q] & packet).bit_count() == (game.hands[q] & packet).bit_count()
            assert world.hands[q].bit_count() == game.hands[q].bit_count()
    assert len(stocks) > 100


def test_i_doubt_it_truthful_claim_belief_keeps_what_the_seat_sees_and_believes_claims():
    """``determinize(seat, rng, truthful_claim=True)`` (the belief of pimc's ``claims=truthful``)
    shows the seat the same observation, mask and view, keeps every hand size, still varies the
    hidden cards in most positions, and makes the pending claim true in most worlds, where uniform worlds make it
    true in few: at every doubt decision of seat 0 in four rule-based 4-player games."""
    from rummy_env.experiments.studies.measure_claim_truth import claim_is_true, rule_based_turns
    env = make_raw_env("i_doubt_it")
    rng = np.random.default_rng(3)
    decisions, believed, uniform, varied, varied_uniformly = 0, 0.0, 0.0, 0, 0
    for seed in range(4):
        for seat, agent in rule_based_turns(env, seed):
            game = env.game
            if seat == 0 and game.view(0)["phase"] == "doubt":
                view = json.dumps(game.view(0), sort_keys=True)
                worlds = [game.determinize(0, rng, truthful_claim=True) for _ in range(8)]
                for world in worlds:
                    np.testing.assert_array_equal(world.observation(0), game.observation(0))
                    np.testing.assert_array_equal(world.legal_mask(), game.legal_mask())
                    assert json.dumps(world.view(0), sort_keys=True) == view
                    assert world.hand_size == game.hand_size and len(world.pile) == len(game.pile)
                uniform_worlds = [game.determinize(0, rng) for _ in range(8)]
                varied += len({np.array(w.hand_cards[1:]).tobytes() for w in worlds}) > 1
                varied_uniformly += len({np.array(w.hand_cards[1:]).tobytes() for w in uniform_worlds}) > 1
                believed += np.mean([claim_is_true(w) for w in worlds])
                uniform += np.mean([claim_is_true(w) for w in uniform_worlds])
                decisions += 1
            game.step(int(agent.act(game.observation(seat), game.legal_mask().copy(), game.view(seat))))
    # late in a game few cards are unseen, and the claim can leave one deal of them
    assert decisions > 100 and varied >= 0.5 * varied_uniformly > 0, (decisions, varied, varied_uniformly)
    assert believed / decisions > 0.8 and uniform / decisions < 0.1, (believed / decisions, uniform / decisions)
