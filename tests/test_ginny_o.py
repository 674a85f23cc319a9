"""Tests of Ginny-O (rules GO-1..GO-44): scenario checks 1-17, PettingZoo API, randomized games
(small and full racks) against the independent reference ``tests/reference_ginny_o.py``, hidden
information, round trips, text and option/deal validation."""
from __future__ import annotations

import json

import numpy as np
import pytest

from rummy_env import ginny_o_v0
from rummy_env.cards import CARD_TEXT, JOKER, RANK_OF, parse_card
from rummy_env.games.ginny_o import CENTRE, NUM_ACTIONS, SQUARE_TEXT, GinnyOGame, Options
from rummy_env.melds import piece_text
from rummy_env.render import view_text
from tests import reference_ginny_o
from tests.harness import (check_determinize_writes_nothing, check_hidden_information, check_roundtrips,
                           play_random_games, random_legal_action, run_pettingzoo_tests)
from tests.redeals import redeal_ginny_o as redeal

R = ["G8 5H", "H8 6H", "I8 7H"]


# ------------------------------------------------------------------------------- helpers
def make(hand=None, after_draw=None, board=(), stock=(), hands=None, scores=None, first=0, fill=False, **opts):
    """A raw env at p0's turn. ``after_draw``: the 8 tiles p0 holds after drawing (7 on the rack,
    the 8th on top of the box). ``fill`` appends 10 unused tiles to the box. Seats without a
    given rack get unused tiles (7 while the box is not empty, else 1)."""
    opts.setdefault("num_players", 2)
    env = ginny_o_v0.raw_env(**opts)
    n = env.options.num_players
    stock = list(stock)
    if after_draw is not None:
        hand, stock = after_draw[:7], [after_draw[7]] + stock
    pool = [CARD_TEXT[c] for c in range(52) for _ in range(env.options.sets)]
    given = [list(hand or [])] + [list(hands[s]) if hands and s < len(hands) and hands[s] else None
                                  for s in range(1, n)]
    for t in [b.split()[1].split("=")[0] for b in board] + stock + [t for h in given if h for t in h]:
        if t != "JK" and t.upper() in pool:
            pool.remove(t.upper())
    if fill:
        stock += pool[:10]
        pool = pool[10:]
    racks = []
    for h in given:
        if h is None:
            h, pool = pool[:7 if stock else 1], pool[7 if stock else 1:]
        racks.append(h)
    deal = {"hands": racks, "stock": stock, "board": list(board), "first": first}
    if scores is not None:
        deal["scores"] = scores
    env.reset(seed=0, options={"deal": deal})
    return env


def act(env, *texts):
    for text in texts:
        a = env.game.text_to_action(text)
        assert env.game.legal_mask()[a], f"{text} should be legal: {env.game.illegal_reason(a)}"
        env.step(a)


def skip_turn(env):
    """The acting seat draws and returns its lowest tile (no play)."""
    act(env, "draw")
    rack = env.game.racks[env.game.current_player]
    act(env, f"return {CARD_TEXT[next(t for t in range(53) if rack[t])]}")


def legal(env, text) -> bool:
    return bool(env.game.legal_mask()[env.game.text_to_action(text)])


def gained(env, seat, *texts):
    before = env.game.scores[seat]
    act(env, *texts)
    return env.game.scores[seat] - before


def assert_refused(env, text):
    before = json.dumps(env.game.to_dict(), sort_keys=True)
    with pytest.raises(ValueError, match=text):
        env.step(env.game.text_to_action(text))
    assert json.dumps(env.game.to_dict(), sort_keys=True) == before


# ------------------------------------------------------------------------------- scenarios
def test_scenario_01_first_meld_on_centre():
    """GO-20, GO-22, GO-29, GO-43: first meld on H8, placement mask, score 18, refill."""
    env = make(after_draw="5H 6H 7H 2C 9D KS QD 4C".split(), fill=True)
    act(env, "draw")
    for t in ("place 5H at G8", "place 7H at G8", "place 5H at H8"):
        assert legal(env, t), t
    for t in ("place 6H at H8", "place 5H at A1"):
        assert not legal(env, t), t
    act(env, "place 5H at G8", "place 6H at H8")
    assert not legal(env, "commit")
    assert gained(env, 0, "place 7H at I8", "commit") == 18
    assert sum(env.game.racks[0]) == 7


def test_scenario_02_premium_once_and_blue():
    """GO-29, GO-30, GO-31: L8 yellow counts once; extending onto blue O8 triples only new tiles."""
    env = make(after_draw="8H 9H TH 2C 3C 4S 5S JH".split(), board=R,
               stock=["QH", "KH"], fill=True, hands=[None, "2S 3S 4D 5D 6D 7D 8D".split()])
    act(env, "draw")
    assert gained(env, 0, "place 8H at J8", "place 9H at K8", "place TH at L8", "commit") == 37
    skip_turn(env)
    act(env, "draw")
    assert gained(env, 0, "place JH at M8", "commit") == 10
    skip_turn(env)
    act(env, "draw")
    assert gained(env, 0, "place QH at N8", "place KH at O8", "commit") == 60


def test_scenario_03_cross_play_shares_tile():
    """GO-24, GO-29: column G 5S 5H 5D; both yellow squares double; the board's 5H adds 0."""
    env = make(after_draw="5S 5D 2C 3C 9D KS QD 4C".split(), board=R, fill=True)
    act(env, "draw")
    assert gained(env, 0, "place 5S at G7", "place 5D at G9", "commit") == 20


def test_scenario_04_illegal_parallel_placement():
    """GO-21, GO-43: a 2-tile cross line is never legal; 6C at H9 refused, state unchanged."""
    env = make(after_draw="5C 6C 7C 5D 2S 9S KD 3D".split(), board=R, fill=True)
    act(env, "draw", "place 5C at G9")
    assert legal(env, "place 5D at G10")
    assert not legal(env, "commit")
    assert_refused(env, "place 6C at H9")


def test_scenario_05_ace_one_in_run_fifteen_in_set():
    """GO-6, GO-29: A 2 3 scores 6; AH AS AD on yellow G7/G9 scores 60; AC AH AD first play 45."""
    env = make(after_draw="AS 2S 3S AH AD 9C 8C KD".split(), stock=["7C"], fill=True)
    act(env, "draw")
    assert gained(env, 0, "place AS at G8", "place 2S at H8", "place 3S at I8", "commit") == 6
    skip_turn(env)
    act(env, "draw")
    assert gained(env, 0, "place AH at G7", "place AD at G9", "commit") == 60
    env = make(after_draw="AC AH AD 2C 9D KS QD 4C".split(), fill=True)
    act(env, "draw")
    assert gained(env, 0, "place AC at G8", "place AH at H8", "place AD at I8", "commit") == 45


def test_scenario_06_joker_fixed_in_run():
    """GO-17, GO-33: JK=6H scores 0; it stays 6H, so a cross set 6S JK(6H) 6D is legal and
    6H JK(6H) 6D is not; JK=8H at H8 after 5H at G8 is masked out."""
    env = make(after_draw="5H JK 7H 6S 6D 6H 2C 4C".split(), fill=True)
    act(env, "draw")
    assert gained(env, 0, "place 5H at G8", "place JK=6H at H8", "place 7H at I8", "commit") == 12
    skip_turn(env)
    act(env, "draw")
    assert legal(env, "place 6S at H7")
    assert gained(env, 0, "place 6S at H7", "place 6D at H9", "commit") == 12
    env = make(after_draw="5H JK 7H 6S 6D 6H 2C 4C".split(), fill=True)
    act(env, "draw")
    act(env, "place 5H at G8")
    assert not legal(env, "place JK=8H at H8")


def test_scenario_06b_heart_pair_with_joker_heart_illegal():
    """GO-15, GO-17: column H 6H JK(6H) 6D repeats hearts: no such play exists."""
    env = make(after_draw="6H 6D 2C 3C 9S KS QD 4C".split(), board=["G8 5H", "H8 JK=6H", "I8 7H"], fill=True)
    act(env, "draw")
    h7, h9 = 6 * 15 + 7, 8 * 15 + 7
    assert ((h7, parse_card("6H")), (h9, parse_card("6D"))) not in env.game.legal_plays()
    assert not legal(env, "place 6H at H7")


def test_scenario_07_new_group_on_red_square():
    """GO-23, GO-25, GO-29: a new group on red D4 doubles; with a joker 26; not from blue A1."""
    env = make(after_draw="5S 6S 7S 2C 9D KD QD 4C".split(), board=R, fill=True)
    act(env, "draw")
    assert not legal(env, "place 5S at A1")
    assert gained(env, 0, "place 5S at D4", "place 6S at E4", "place 7S at F4", "commit") == 36
    env = make(after_draw="JK 6S 7S 2C 9D KD QD 4C".split(), board=R, fill=True)
    act(env, "draw")
    assert gained(env, 0, "place JK=5S at D4", "place 6S at E4", "place 7S at F4", "commit") == 26


def test_scenario_08_extending_onto_red():
    """GO-26, GO-31: KC on red L4 scores 10 x 2 = 20; L4 can no longer start a group."""
    group = [f"{c}4 {r}C" for c, r in zip("DEFGHIJK", "5 6 7 8 9 T J Q".split())]
    env = make(after_draw="KC 2S 3S 4S 9D KD QD 4H".split(), board=R + group, fill=True)
    act(env, "draw")
    assert gained(env, 0, "place KC at L4", "commit") == 20
    obs = env.game.observation(0)
    planes = obs[:ginny_o_v0.OBS_BOARD_SIZE].reshape(ginny_o_v0.OBS_BOARD_SHAPE)
    assert planes[14, 3, 11] == 0  # L4 no longer an open start square


def test_scenario_09_groups_never_join():
    """GO-25: 3C E6 + 4C F6 extends the D-column group (15); 5C at G6 would join two groups."""
    board = ["H6 6C", "H7 7C", "H8 8C", "D4 2S", "D5 2H", "D6 2C"]
    env = make(hand="3C 4C 5C".split(), board=board, stock=[], hands=[None, ["KH"]])
    act(env, "place 3C at E6", "place 4C at F6")
    assert legal(env, "commit")
    assert_refused(env, "place 5C at G6")
    assert gained(env, 0, "commit") == 15


def test_scenario_10_run_direction_and_wrap():
    """GO-5, GO-16: 7D 6D 5D reads descending (18; illegal with descending_runs=False);
    K A 2 never; Q K A scores 21."""
    env = make(after_draw="7D 6D 5D 2C 9S KS QS AS".split(), stock=["3H", "4H"])
    act(env, "draw")
    assert gained(env, 0, "place 7D at G8", "place 6D at H8", "place 5D at I8", "commit") == 18
    env = make(after_draw="7D 6D 5D 2C 9S KS QS AS".split(), stock=["3H"], descending_runs=False)
    act(env, "draw")
    assert not legal(env, "place 7D at G8")
    env = make(after_draw="KS AS 2S 7D 6D 3C 9H QS".split(), stock=["3H"])
    act(env, "draw")
    kas = tuple(parse_card(t) for t in ("KS", "AS", "2S"))
    assert not any(tuple(p for _, p in play) == kas for play in env.game.legal_plays())
    assert not legal(env, "place KS at G8")  # K A 2 wraps; nothing else starts with KS at G8
    env = make(after_draw="QS KS AS 7D 6D 3C 9H 2S".split(), stock=["3H"])
    act(env, "draw")
    assert gained(env, 0, "place QS at G8", "place KS at H8", "place AS at I8", "commit") == 21


def test_scenario_11_crossing_tile_scores_twice():
    """GO-32: 8S 8H 8D down column J (24) plus row 8 extended by 8H (8) = 32."""
    env = make(after_draw="8S 8H 8D 2C 9D KS QD 4C".split(), board=R, fill=True)
    act(env, "draw")
    assert gained(env, 0, "place 8S at J7", "place 8H at J8", "place 8D at J9", "commit") == 32


def test_scenario_12_draw_and_return():
    """GO-11, GO-14, GO-42: with reshuffle_on_return=False the returned 9C goes to the bottom;
    the other seat sees one tile returned, not which; pass masked out; return masked after place."""
    env = make(hand="2C 3C 4C 8S 9D KS QD".split(), stock=["9C", "4D"], fill=True, reshuffle_on_return=False)
    size = len(env.game.box)
    p1_view_before = env.game.view(1)["hand"]
    act(env, "draw")
    assert not legal(env, "pass")
    act(env, "return 9C")
    assert sum(env.game.racks[0]) == 7 and len(env.game.box) == size
    assert env.game.box[-1] == parse_card("9C")
    v1 = env.game.view(1)
    assert v1["hand"] == p1_view_before and "9C" not in json.dumps(v1["events"])
    assert "returns a tile" in v1["events"][-1]
    env = make(after_draw="5H 6H 7H 2C 9D KS QD 4C".split(), fill=True)
    act(env, "draw", "place 5H at G8")
    assert not any(legal(env, f"return {t}") for t in "6H 7H 2C 9D KS QD 4C".split())


def test_scenario_13_exchange():
    """GO-34, GO-41: exchange 2C, 9D: box 4S 8D KC 2C 9D, p0 draws 4S 8D, box KC 2C 9D."""
    env = make(hand="2C 9D 3H 5H 7H 9H JH".split(), stock="4S 8D KC".split(), reshuffle_on_return=False)
    act(env, "exchange 2C")
    assert not legal(env, "draw")
    assert not any(env.game.legal_mask()[109:])
    act(env, "exchange 9D", "commit")
    g = env.game
    assert [CARD_TEXT[t] for t in g.box] == "KC 2C 9D".split()
    assert g.racks[0][parse_card("4S")] == 1 and g.racks[0][parse_card("8D")] == 1
    assert g.racks[0][parse_card("2C")] == 0 and g.current_player == 1


def test_scenario_14_refill_empties_box():
    """GO-12, GO-13: the refill takes the last tile; then p1 may only place or pass."""
    env = make(hand="2C 3C 4C 9D 9S KS QD".split(), stock=["5C", "8H"])
    act(env, "draw")
    assert gained(env, 0, "place 2C at G8", "place 3C at H8", "place 4C at I8", "place 5C at J8",
                  "commit") == 14
    g = env.game
    assert sum(g.racks[0]) == 5 and g.racks[0][parse_card("8H")] == 1 and not g.box
    mask = g.legal_mask()
    assert g.current_player == 1 and mask[1] and not mask[0] and not mask[3:109].any()


def test_scenario_15_end_and_rack_penalty():
    """GO-36a, GO-37, GO-38, rewards: racks subtracted; p1 wins 85 to 78."""
    for mode, exp in (("rank", (-1, 1)), ("score_diff", (-7, 7))):
        env = make(hand="AS JK 7D".split(), stock=[], hands=[None, ["KH"]], scores=[100, 95], reward_mode=mode)
        act(env, "pass", "pass")
        g = env.game
        assert g.done and not g.truncated and g.final_scores == [78, 85]
        assert env.terminations["player_0"] and not env.truncations["player_0"]
        assert (env._cumulative_rewards["player_0"], env._cumulative_rewards["player_1"]) == exp


def test_scenario_16_stall():
    """GO-36b: 10 turns without a play (2 x stall_rounds 5) with the box not empty end the game."""
    env = make(hand="2C 3C 4C 9D 9S KS QD".split(), fill=True, reshuffle_on_return=False)
    g = env.game
    for _ in range(10):
        assert not g.done
        skip_turn(env)
    assert g.done and not g.truncated and env.terminations["player_1"]
    assert g.final_scores == [-_rack_value(g.racks[s]) for s in range(2)]


def _rack_value(rack):
    return sum(k * (0 if t == JOKER else 15 if RANK_OF[t] == 1 else min(RANK_OF[t], 10)) for t, k in enumerate(rack))


def test_scenario_17_two_sets():
    """GO-4, GO-15: 3 players, two sets: 7H 7H 7S is no set; 7H 7S 7D scores 21; three 7H refused."""
    env = make(after_draw="7H 7H 7S 7D 2C 3C 4C 9S".split(), fill=True, num_players=3)
    act(env, "draw")
    plays = env.game.legal_plays()
    g8, h8, i8 = CENTRE - 1, CENTRE, CENTRE + 1
    h, s = parse_card("7H"), parse_card("7S")
    assert ((g8, h), (h8, h), (i8, s)) not in plays
    assert gained(env, 0, "place 7H at G8", "place 7S at H8", "place 7D at I8", "commit") == 21
    with pytest.raises(ValueError, match="7H"):
        ginny_o_v0.raw_env(num_players=3).reset(options={"deal": {
            "hands": [["7H", "7H"], ["7H"], ["2C"]], "stock": []}})


# ------------------------------------------------------------------------------- independent reference
# tests/reference_ginny_o.py decides legality from the rules alone (its own card model, line and
# meld checker, group finder and exhaustive search); these tests compare it with the mask.
def check_invariants(game, totals):
    """Tiles conserved (board + placed + racks + box = the dealt tiles); every line of the
    committed board a meld by the reference's checker (GO-19)."""
    counts = [0] * 53
    for p in game.board:
        if p >= 0:
            counts[JOKER if p >= 52 else p] += 1
    for _, p in game.placed:
        counts[JOKER if p >= 52 else p] += 1
    for r in game.racks:
        for t in range(53):
            counts[t] += r[t]
    for t in game.box:
        counts[t] += 1
    assert counts == totals
    view = game.view(game.current_player)
    for line in reference_ginny_o.board_lines(reference_ginny_o.committed_board(view)):
        assert reference_ginny_o.is_meld(line, view["descending_runs"]), line


_BOARDS: dict = {}


def board_pool(descending, sets, count=8):
    """Boards reached by random legal plays (engine games), as deal texts; cached per options."""
    key = (descending, sets)
    if key not in _BOARDS:
        rng = np.random.default_rng(7 + 2 * descending + sets)
        boards = [[]]
        for i in range(count):
            game = GinnyOGame.new(Options(num_players=2 if sets == 1 else 3, descending_runs=descending),
                                  np.random.default_rng(100 + i))
            for _ in range(int(rng.integers(4, 14))):
                if game.done:
                    break
                if game.phase == "start":
                    game.step(0)
                plays = game.legal_plays()
                if plays:
                    for q, p in plays[int(rng.integers(len(plays)))]:
                        game.step(109 + 225 * p + q)
                    game.step(2)
                else:
                    game.step(3 + next(t for t in range(53) if game.racks[game.current_player][t]))
            boards.append([f"{SQUARE_TEXT[q]} {piece_text(p)}" for q, p in enumerate(game.board) if p >= 0])
        _BOARDS[key] = boards
    return _BOARDS[key]


def small_rack_env(seed):
    """A raw env dealt a random board and small racks (1-3 tiles; a joker only beside one other tile) with an
    empty box: short games that reach many boards and end by passing."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 5))
    opts = dict(num_players=n, descending_runs=bool(rng.random() < 0.7),
                board_layout="standard" if rng.random() < 0.7 else "bare",
                reward_mode="rank" if rng.random() < 0.5 else "score_diff")
    sets = 1 if n == 2 else 2
    boards = board_pool(opts["descending_runs"], sets)
    board = boards[int(rng.integers(len(boards)))]
    on_board = sum(b.split()[1].startswith("JK") for b in board)
    opts["jokers_per_set"] = max(int(rng.integers(0, 3)), -(-on_board // sets))
    env = ginny_o_v0.raw_env(**opts)
    pool = [c for c in range(52) for _ in range(sets)]
    for b in board:
        t = b.split()[1]
        if not t.startswith("JK"):
            pool.remove(parse_card(t))
    rng.shuffle(pool)
    jokers = env.options.tile_limits()[JOKER] - sum(b.split()[1].startswith("JK") for b in board)
    hands = []
    for _ in range(n):
        size = int(rng.choice([1, 2, 3], p=[0.35, 0.4, 0.25]))
        hand = [CARD_TEXT[pool.pop()] for _ in range(size)]
        if jokers > 0 and rng.random() < 0.1:
            hand = hand[:1] + ["JK"]
            jokers -= 1
        hands.append(hand)
    env.reset(seed=seed, options={"deal": {"hands": hands, "stock": [], "board": board}})
    return env


def test_small_rack_games_against_reference():
    """GO-19..GO-44: 500 complete games (2-4 players, both layouts, both run directions, jokers)
    from small-rack deals on boards of all sizes; mask == the independent reference at every
    step, masked-out actions refused with the state unchanged, tiles conserved, every board line
    a meld, every game ends."""
    seeds = iter(range(10_000))
    totals_of = {}
    reference = reference_ginny_o.ReferenceMask()

    def fresh():
        env = small_rack_env(next(seeds))
        env.reset = lambda seed=None, options=None, _env=env: None  # keep the dealt position
        totals = [0] * 53
        g = env.game
        for p in g.board:
            if p >= 0:
                totals[JOKER if p >= 52 else p] += 1
        for r in g.racks:
            totals = [a + b for a, b in zip(totals, r)]
        totals_of[id(g)] = totals
        return env

    stats = play_random_games(fresh, num_games=500, seed=1, reference_mask=reference.mask,
                              check_invariants=lambda g: check_invariants(g, totals_of[id(g)]),
                              illegal_probe_every=3)
    assert stats["games"] == 500 and stats["terminated"] == 500
    assert reference.positions >= 1500 and reference.multi_tile_plays >= 500


FULL_RACK_CONFIGS = (dict(), dict(num_players=3), dict(num_players=4, jokers_per_set=4, board_layout="bare"),
                     dict(descending_runs=False, reshuffle_on_return=False, stall_rounds=2),
                     dict(num_players=2, num_sets=2, jokers_per_set=0, max_turns=30, reward_mode="score_diff"))


def test_random_full_games_against_reference():
    """GO-10..GO-44 on full-size racks (default deals, the options of ``FULL_RACK_CONFIGS``),
    uniformly random legal actions: the whole mask (start, exchange, return, pass, placements,
    commit) == the independent reference at every step, masked-out actions refused, tiles
    conserved, every board line a meld."""
    games = iter(range(1000))
    reference = reference_ginny_o.ReferenceMask()

    def fresh():
        return ginny_o_v0.raw_env(**FULL_RACK_CONFIGS[next(games) % len(FULL_RACK_CONFIGS)])

    def invariants(game):
        check_invariants(game, game.options.tile_limits())

    stats = play_random_games(fresh, num_games=15, seed=5, reference_mask=reference.mask, check_invariants=invariants)
    assert stats["games"] == 15 and reference.decisions == stats["steps"]


def toward_plays(mask, rng) -> int:
    """A random legal action that mostly draws (90%) and, when it can, places or commits (95%),
    so that games reach many play phases with full racks."""
    legal = np.flatnonzero(mask)
    if mask[0] and rng.random() < 0.9:
        return 0
    placing = legal[(legal == 2) | (legal >= 109)]
    if len(placing) and rng.random() < 0.95:
        return int(placing[rng.integers(len(placing))])
    return int(legal[rng.integers(len(legal))])


def assert_mask_is_reference(game, reference, where):
    """The env's mask equals the reference's; returns the mask."""
    mask = game.legal_mask()
    diff = np.flatnonzero(mask != reference.mask(game))
    assert not len(diff), (f"{where}: mask (1) and reference (0) differ: "
                           + ", ".join(f"{game.action_to_text(a)} {mask[a]}" for a in diff[:10])
                           + "\n" + view_text(game.view(game.current_player)))
    return mask


def walk_placements(game, reference, where, depth=8):
    """The mask equals the reference's after every sequence of up to ``depth`` legal placements
    of this turn (GO-43; on clones). With the full depth 8 (GO-27) the plays the mask lets one
    commit are exactly the reference's."""
    mask = assert_mask_is_reference(game, reference, where)
    if not depth:
        return
    for action in np.flatnonzero(mask[109:]) + 109:
        child = game.clone()
        child.step(int(action))
        walk_placements(child, reference, where, depth - 1)


def compare_full_rack_games(num_games, seed):
    """Complete games (default deals, ``FULL_RACK_CONFIGS`` in turn) played by ``toward_plays``:
    at every decision the env's mask equals the reference's, and at the start of every play
    phase so does every placement sequence (``walk_placements``). Returns the reference (its
    counts say what was covered)."""
    reference = reference_ginny_o.ReferenceMask()
    rng = np.random.default_rng(seed)
    for g in range(num_games):
        env = ginny_o_v0.raw_env(**FULL_RACK_CONFIGS[g % len(FULL_RACK_CONFIGS)])
        env.reset(seed=seed * 1000 + g)
        game = env.game
        while not game.done:
            if game.phase == "play" and not game.placed:
                walk_placements(game, reference, f"game {g}")
            env.step(toward_plays(assert_mask_is_reference(game, reference, f"game {g}"), rng))
    return reference


def test_full_rack_plays_against_reference():
    """GO-20..GO-27, GO-42, GO-43 with full racks, 4 complete games (2-4 players, both layouts
    and run directions, 0-4 jokers per set): at every play phase reached, the env's legal plays
    (every placement sequence its mask allows, ``walk_placements``) equal the reference's,
    whose search covers every subset and order of all the acting seat's tiles (up to 8 after a
    draw; a joker as every card); the mask also agrees at every other decision. Plays in these
    games have up to 4 tiles; ``test_crafted_full_racks_against_reference`` adds 8-tile plays,
    group joins and two jokers on a rack."""
    reference = compare_full_rack_games(num_games=4, seed=3)
    assert reference.positions >= 150 and reference.multi_tile_plays >= 3000
    assert reference.joker_plays >= 2000 and reference.placement_actions >= 8000


CRAFTED_DEALS = (
    # GO-25: row 6 3C 4C 5C would join the two groups (2C..6C), as in scenario 9.
    (["H6 6C", "H7 7C", "H8 8C", "D4 2S", "D5 2H", "D6 2C"], "3C 4C 5C", {}),
    # GO-25: column J KC QC JC TC 9C would join the kings' group on L4 and the centre run.
    (["H8 7C", "I8 8C", "J8 9C", "J4 KC", "K4 KD", "L4 KS"], "QC JC TC", {}),
    # GO-17: two jokers on the rack.
    (["H8 7C", "I8 8C", "J8 9C", "J4 KC", "K4 KD", "L4 KS"], "QC JK TC JK", {}),
    # GO-22, GO-27: all 8 tiles in one first play; 8 tiles round the centre run.
    ([], "2H 3H 4H 5H 6H 7H 8H 9H", {}),
    (R, "3H 4H 8H 9H TH JH QH KH", {}),
)
FOUR_JOKER_DEAL = (R, "JK JK JK JK", dict(num_players=4, jokers_per_set=4))


def compare_crafted_turns(deals, repeats, seed, walk_depth=8):
    """Each deal (board, tiles, options) ``repeats`` times, p0 holding the tiles plus random
    ones (8 after its draw): the mask must equal the reference's after every sequence of up to
    ``walk_depth`` placements and at every decision of p0's turn, placements chosen by
    ``toward_plays``. Returns the reference (its counts)."""
    reference = reference_ginny_o.ReferenceMask()
    rng = np.random.default_rng(seed)
    for board, tiles, opts in deals:
        sets = 2 if opts.get("num_players", 2) > 2 else 1
        unused = [t for t in CARD_TEXT[:52] for _ in range(sets)]
        for t in [b.split()[1] for b in board] + tiles.split():
            if t != "JK":
                unused.remove(t)
        for _ in range(repeats):
            extra = [unused[i] for i in rng.choice(len(unused), 8 - len(tiles.split()), replace=False)]
            env = make(after_draw=tiles.split() + extra, board=board, fill=True, **opts)
            act(env, "draw")
            game = env.game
            walk_placements(game, reference, f"{board} {tiles}", walk_depth)
            while game.current_player == 0 and not game.done:
                env.step(toward_plays(assert_mask_is_reference(game, reference, f"{board} {tiles}"), rng))
    return reference


def test_crafted_full_racks_against_reference():
    """Positions random games rarely reach (``CRAFTED_DEALS``): groups that one play could join
    (GO-25), plays of all 8 tiles (GO-27), two jokers on a rack (GO-17), each with random other
    tiles; the mask equals the reference's after every placement sequence of the turn."""
    reference = compare_crafted_turns(CRAFTED_DEALS, repeats=1, seed=0)
    assert reference.group_joins_refused >= 3 and reference.longest_play == 8 and reference.joker_plays >= 1000


@pytest.mark.slow
def test_four_joker_racks_against_reference():
    """As ``test_crafted_full_racks_against_reference`` with four jokers on the rack (4 players,
    4 jokers per set), three deals; each has tens of thousands of plays, so the masks are
    compared at the turn's start, after every first placement, and along the turn played."""
    reference = compare_crafted_turns([FOUR_JOKER_DEAL], repeats=3, seed=1, walk_depth=1)
    assert reference.joker_plays >= 50_000


@pytest.mark.slow
def test_full_rack_plays_against_reference_long():
    """As ``test_full_rack_plays_against_reference``, over 30 games (about 5 minutes): some
    plays in them would join two groups (GO-25)."""
    reference = compare_full_rack_games(num_games=30, seed=11)
    assert reference.positions >= 1000 and reference.multi_tile_plays >= 20_000 and reference.joker_plays >= 15_000
    assert reference.group_joins_refused >= 1


def test_pettingzoo_api_and_seed():
    """PettingZoo api_test and seed_test."""
    run_pettingzoo_tests(lambda: ginny_o_v0.env(), num_cycles=100)


def test_pettingzoo_render():
    """render(): "ansi" a text board, "rgb_array" a uint8 picture (GO view), both modes of
    PettingZoo's render_test."""
    from pettingzoo.test import render_test
    render_test(lambda render_mode=None: ginny_o_v0.env(render_mode=render_mode))
    env = ginny_o_v0.env(render_mode="rgb_array")
    env.reset(seed=3)
    img = env.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
    env = ginny_o_v0.env(render_mode="ansi")
    env.reset(seed=3)
    assert "H" in env.render() and "rack" in env.render()


def test_hidden_information():
    """Shared contract 3 / GO-7: a seat's observation and view do not change when the other
    racks and the box are re-dealt; the re-deals really change the hidden state."""
    env = ginny_o_v0.raw_env(num_players=3)
    env.reset(seed=11)
    for _ in range(5):
        env.game.step(random_legal_action(env.game.legal_mask(), np.random.default_rng(0)))
    rng = np.random.default_rng(1)
    changed = sum(redeal(env.game, 0, rng).to_dict()["racks"] != env.game.to_dict()["racks"] for _ in range(5))
    assert changed >= 4
    for n in (2, 3):
        checked = check_hidden_information(lambda: ginny_o_v0.raw_env(num_players=n), seed=n, num_states=6,
                                           redeal=redeal, redeals_per_state=3, max_walk=60)
        assert checked > 0


def test_roundtrips():
    """clone, to_dict/from_dict (JSON) and pickle reproduce the state and the continuation."""
    check_roundtrips(lambda: ginny_o_v0.raw_env(), seed=3, steps_before=30, steps_after=150)
    check_roundtrips(lambda: ginny_o_v0.raw_env(num_players=3, reshuffle_on_return=False), seed=4,
                    steps_before=60, steps_after=100)
    env = make(after_draw="5H 6H 7H 2C 9D KS QD 4C".split(), fill=True)
    act(env, "draw", "place 5H at G8")
    copy = GinnyOGame.from_dict(json.loads(json.dumps(env.game.to_dict())))
    np.testing.assert_array_equal(copy.legal_mask(), env.game.legal_mask())


def test_text_roundtrip_every_action():
    """Every id's canonical text parses back; input is case-insensitive and accepts 10 for T."""
    game = GinnyOGame(Options())
    for a in range(NUM_ACTIONS):
        assert game.text_to_action(game.action_to_text(a)) == a
    for text, a in (("draw", 0), ("pass", 1), ("commit", 2), ("return 2C", 4), ("exchange JK", 108),
                    ("place 7H at H8", 109 + 225 * 32 + 112), ("place JK=6H at G8", 11809 + 225 * 31 + 111),
                    ("  PLACE  10h   AT  a1 ", 109 + 225 * 35), ("Return jk", 55)):
        assert game.text_to_action(text) == a
    for bad in ("", "draw 2", "place 7H H8", "place 7H at P1", "place 7H at A16", "return XX", "place JK at H8",
                "exchange", "fold"):
        with pytest.raises(ValueError):
            game.text_to_action(bad)


@pytest.mark.parametrize("name,value", [
    ("num_players", 1), ("num_players", 5), ("num_sets", 3), ("jokers_per_set", 5), ("jokers_per_set", -1),
    ("board_layout", "scrabble"), ("descending_runs", 1), ("reshuffle_on_return", "yes"), ("stall_rounds", 0),
    ("max_turns", -1), ("reward_mode", "points")])
def test_option_validation(name, value):
    """A bad option value raises ValueError naming the option."""
    with pytest.raises(ValueError, match=name):
        ginny_o_v0.raw_env(**{name: value})


@pytest.mark.parametrize("deal,match", [
    ({"hands": [["2C"]], "stock": []}, "hands"),
    ({"hands": [["2C"] * 8, ["3C"]], "stock": []}, "at most 7"),
    ({"hands": [["2C", "3C"], ["4C"]], "stock": ["5C"]}, "exactly 7"),
    ({"hands": [["2X"], ["4C"]], "stock": []}, "2X"),
    ({"hands": [["2C"], ["4C"]], "stock": [], "board": ["Z8 5H"]}, "Z8"),
    ({"hands": [["2C"], ["4C"]], "stock": [], "first": 2}, "seat"),
    ({"hands": [["2C"], ["2C"]], "stock": []}, "2C"),
    ({"hands": [["JK", "JK", "JK"], ["4C"]], "stock": []}, "JK"),
    ({"hands": [["JK", "JK"], ["4C"]], "stock": [], "board": R[:1] + ["H8 JK=6H", "I8 7H"]}, "JK"),
    ({"hands": [["2C"], ["4C"]], "stock": [], "board": ["H8 5H", "H8 6H"]}, "two tiles"),
    ({"hands": [["2C"], ["4C"]], "stock": [], "board": ["G8 5H", "H8 6H", "I8 8H"]}, "not a meld"),
    ({"hands": [["2C"], ["4C"]], "stock": [], "board": ["A1 5H", "B1 6H", "C1 7H"]}, "H8"),
    ({"hands": [["2C"], ["4C"]], "stock": [], "board": R + ["A1 5S", "B1 6S", "C1 7S"]}, "red"),
    ({"hands": [["2C"], ["4C"]], "stock": [], "discard": ["5C"]}, "discard"),
    ({"hands": [["2C"], ["4C"]], "stock": [], "first": 0, "dealer": 1}, "both"),
    ({"hands": [["2C"], ["4C"]], "stock": [], "board": ["G8 5H", "H8 JK"]}, "JK"),
])
def test_deal_validation(deal, match):
    """Every refused deal of the rules' list raises ValueError naming the problem."""
    with pytest.raises(ValueError, match=match):
        ginny_o_v0.raw_env().reset(options={"deal": deal})


def test_deal_defaults_and_dealer():
    """Unlisted stock: the box is every other tile; 'dealer' d means first = d + 1."""
    env = ginny_o_v0.raw_env()
    env.reset(seed=1, options={"deal": {"hands": [list("2C 3C 4C 5C 6C 7C 8C".split()),
                                                  list("2D 3D 4D 5D 6D 7D 8D".split())], "dealer": 1}})
    assert len(env.game.box) == 54 - 14 and env.game.current_player == 0


def test_illegal_action_refused_and_penalty():
    """Shared contract 4: ValueError naming the text, state unchanged; penalty mode -1 and end."""
    env = make(after_draw="5H 6H 7H 2C 9D KS QD 4C".split(), fill=True)
    assert_refused(env, "pass")
    assert_refused(env, "place 5H at G8")
    env = make(after_draw="5H 6H 7H 2C 9D KS QD 4C".split(), fill=True, illegal_action_penalty=True)
    env.step(env.game.text_to_action("pass"))
    assert env.terminations["player_0"] and env._cumulative_rewards["player_0"] == -1
    assert env._cumulative_rewards["player_1"] == 0


def test_truncation_by_max_turns():
    """GO-36d: the max_turns cap truncates (racks subtracted all the same)."""
    env = ginny_o_v0.raw_env(max_turns=3)
    env.reset(seed=2)
    g = env.game
    while not g.done:
        if g.phase == "start":
            env.step(0)
        else:
            env.step(3 + next(t for t in range(53) if g.racks[g.current_player][t]))
    assert g.truncated and g.turns == 3 and env.truncations["player_0"] and not env.terminations["player_0"]
    assert g.final_scores == [-_rack_value(r) for r in g.racks]


def test_observation_layout():
    """The board planes reshape to OBS_BOARD_SHAPE; tiles, premium squares and rack land where
    the module docstring says."""
    env = make(after_draw="5S 6S 7S 2C 9D KS QD 4C".split(), board=["G8 5H", "H8 JK=6H", "I8 7H"], fill=True)
    obs = env.game.observation(0)
    assert obs.shape == env.observation_space("player_0")["observation"].shape
    planes = obs[:ginny_o_v0.OBS_BOARD_SIZE].reshape(ginny_o_v0.OBS_BOARD_SHAPE)
    assert planes[0, 7, 6:9].tolist() == [1, 1, 1] and planes[0].sum() == 3
    assert planes[6, 7, 7] == 1 and planes[1, 7, 7] == pytest.approx(6 / 13) and planes[4, 7, 7] == 1
    assert planes[7, 0, 3] == 1 and planes[8, 1, 5] == 1 and planes[9, 3, 3] == 1 and planes[10, 0, 0] == 1
    assert planes[12, 7, 7] == 1 and planes[14, 3, 3] == 1 and planes[14, 7, 7] == 0
    rack = obs[ginny_o_v0.OBS_BOARD_SIZE:ginny_o_v0.OBS_BOARD_SIZE + 53]
    assert rack[parse_card("5S")] == 1 and rack.sum() == 7


@pytest.mark.parametrize("opts", [{"num_players": 2}, {"num_players": 3, "reshuffle_on_return": False}])
def test_determinize_leaves_the_real_game_bit_identical(opts):
    """Determinizing every seat (the acting one and the others) in the start, exchange and play
    phases (with tiles placed) through a game writes nothing on the game: every attribute and
    the generator's state stay bit-identical."""
    rng = np.random.default_rng(6)
    game = GinnyOGame.new(Options(**opts), np.random.default_rng(5))
    seen = set()
    for step in range(160):
        position = game.phase + (" placed" if game.placed else "")
        if step % 5 == 0 or position not in seen:
            seen.add(position)
            check_determinize_writes_nothing(game, rng, draws=3)
        action = random_legal_action(game.legal_mask(), rng)
        game.step(0 if game.legal_mask()[0] and rng.random() < 0.8 else action)   # mostly draw: exchanges stall
        if game.done:
            break
    assert {"start", "exchange", "play", "play placed"} <= seen, seen
