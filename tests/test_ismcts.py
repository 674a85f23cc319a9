"""The search agents ``agents/ismcts.py`` (SO-ISMCTS; all five games) and ``agents/pimc.py`` (the
search-improved rule-based agent; Rummy and Tongits), with small budgets: only
legal actions over whole games, the same choices from the same seed, choices that depend only on the
seat's information (a re-dealt "real" world gives the same action), a time budget kept, the agent
specs, and a clear win over random play in a small duplicate tournament."""
from __future__ import annotations

import time

import numpy as np
import pytest

from rummy_env.agents.ismcts import ISMCTSAgent, Node
from rummy_env.agents.pimc import PIMCAgent
from rummy_env.agents.registry import check_agent_spec, heuristic_class, make_agent
from rummy_env.agents.specs import parse_ismcts_spec, parse_pimc_spec
from rummy_env.experiments.tournament import TournamentConfig, agent_move, run_tournament
from rummy_env.information_state import InformationState
from rummy_env.registry import make_raw_env

GAMES = ["rummy", "tongits", "i_doubt_it", "contract_rummy", "ginny_o"]
# Each game's scoring unit with small tables, so that whole games stay short.
SHORT = {
    "rummy": {"max_rounds": 1},
    "tongits": {"hands_per_match": 1},
    "i_doubt_it": {"num_players": 3},
    "contract_rummy": {"deals": [1], "num_players": 3},
    "ginny_o": {},
}


def play_to_end(env, agents: dict, seed: int) -> int:
    """Play one game on the raw ``env``; ``agents`` maps seats to agents (the rule-based agent
    elsewhere). Checks that every action an agent chooses is legal; returns its number of decisions."""
    env.reset(seed=seed)
    game = env.metadata["name"].removesuffix("_v0")
    agents = {**{s: make_agent("heuristic", game) for s in range(len(env.possible_agents))}, **agents}
    for seat, agent in agents.items():
        agent.reset(seat, seed + seat)
    decisions = 0
    while not env.game.done:
        seat = env.game.current_player
        mask = env.game.legal_mask().copy()
        agent = agents[seat]
        action = agent_move(agent, env, seat)
        if isinstance(agent, (ISMCTSAgent, PIMCAgent)):
            assert mask[action] == 1, f"illegal action {action} {env.action_to_text(action)!r}"
            decisions += 1
        env.step(action)
    return decisions


def position(game: str, seed: int, moves: int):
    """A raw env after ``moves`` random legal moves from a seeded deal, at a decision with at least
    two legal actions (or None if the game ends first)."""
    env = make_raw_env(game, **SHORT[game])
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        legal = np.flatnonzero(env.game.legal_mask())
        env.step(int(legal[rng.integers(len(legal))]))
        if env.game.done:
            return None
    while np.count_nonzero(env.game.legal_mask()) < 2:
        env.step(int(np.flatnonzero(env.game.legal_mask())[0]))
        if env.game.done:
            return None
    return env


def decide(env, seed: int, spec: str = "ismcts:12:preset=none") -> int:
    """The action a fresh agent of ``spec``, reset with ``seed``, chooses for the seat to act."""
    return decide_on(env.information_state(env.game.current_player), env.metadata["name"].removesuffix("_v0"),
                     seed, spec)


def decide_on(state, game: str, seed: int, spec: str) -> int:
    """The action a fresh agent of ``spec`` for ``game``, reset with ``seed``, chooses from the
    information state ``state``."""
    agent = make_agent(spec, game)
    agent.reset(state.seat, seed)
    return agent.act_on(state)


def twin(state, seed: int) -> InformationState:
    """The seat's information state in a re-dealt twin: the game of ``state.determinize(seed)``,
    wrapped as that seat's."""
    return InformationState(state.determinize(seed), state.seat, state.options)


@pytest.mark.parametrize("game", GAMES)
def test_only_legal_actions_over_whole_games(game):
    env = make_raw_env(game, **SHORT[game])
    assert play_to_end(env, {0: ISMCTSAgent(game, heuristic_class(game), iterations=1)}, 1) > 0


@pytest.mark.parametrize("game", ["rummy", "tongits"])
def test_heuristic_rollouts_and_bias_play_legal_actions(game):
    env = make_raw_env(game, **SHORT[game])
    assert play_to_end(env, {0: make_agent("ismcts:4:rollout=heuristic:bias=1:preset=none", game)}, 3) > 0


@pytest.mark.parametrize("game", GAMES)
def test_same_seed_same_choice(game):
    env = position(game, 11, 6)
    first = decide(env, 5)
    assert all(decide(env, 5) == first for _ in range(2))


# The search-improved rule-based agent (agents/pimc.py) rolls out whole episodes with the rule-based
# agents: a few milliseconds in Rummy and Tongits, up to a second in the other games.
INFORMATION_CASES = [(game, "ismcts:12:preset=none") for game in GAMES] + [
    ("rummy", "pimc:6:screen=2:candidates=4:preset=none"), ("tongits", "pimc:6:screen=2:candidates=4:preset=none"),
    ("ginny_o", "pimc:4:screen=1:candidates=3:value=ppo:depth=4:preset=none"),
    ("ginny_o", "pimc:4:screen=1:candidates=3:value=ppo:depth=4:base=ppo:preset=none"),
    ("i_doubt_it", "pimc:4:screen=1:candidates=3:claims=truthful:preset=none"),
    ("i_doubt_it", "pimc:4:screen=1:candidates=3:value=cards:depth=4:claims=truthful:preset=none"),
    ("i_doubt_it", "ismcts:12:rollout=heuristic:bias=1:depth=4:value=cards:claims=truthful:preset=none"),
    ("ginny_o", "pimc:4:screen=2:candidates=4:value=score:depth=turn:moves=plans:preset=none"),
    ("contract_rummy", "ismcts:6:rollout=heuristic:bias=1:moves=plans:preset=none"),
    ("contract_rummy", "ismcts:6:rollout=heuristic:bias=1:moves=plans:tree=1:baseline=rule:gate=1:preset=none")]


@pytest.mark.parametrize("game,spec", INFORMATION_CASES)
def test_choice_depends_only_on_the_seats_information(game, spec):
    """The information state of a position and that of its re-dealt twin (a game built from the
    state's ``determinize``, wrapped as the same seat's state) give the same action with the same
    seed; the twins do differ."""
    differed = 0
    for seed in range(4):
        env = position(game, 100 + seed, 4 + 3 * seed)
        if env is None:
            continue
        state = env.information_state(env.game.current_player)
        other = twin(state, 1000 + seed)
        assert other.action_mask().tolist() == state.action_mask().tolist()
        differed += other._game.to_dict() != state._game.to_dict()   # the test may look at both games
        assert decide_on(other, game, seed, spec) == decide_on(state, game, seed, spec)
    assert differed > 0


def redealt_choice_changes(new_agent, first_seed: int, first_moves: int) -> int:
    """In how many of six Tongits positions (deal ``first_seed + i`` after ``first_moves + i`` random
    moves) a fresh ``new_agent()`` with the same seed chooses differently in the real game and in a
    re-dealt one (``determinize`` with seed ``10 * first_seed + i``)."""
    changed = 0
    for seed in range(6):
        env = position("tongits", first_seed + seed, first_moves + seed)
        if env is None:
            continue
        state = env.information_state(env.game.current_player)
        choices = []
        for position_state in (state, twin(state, 10 * first_seed + seed)):
            agent = new_agent()
            agent.reset(state.seat, seed)
            choices.append(agent.act_on(position_state))
        changed += choices[0] != choices[1]
    return changed


def test_search_that_peeks_is_caught():
    """The independence check can fail: a search over the true game (a clone of the state's private
    game, not ``determinize``; tests/test_layering.py forbids that reach in ``agents/``) chooses
    differently in some re-dealt twin."""
    class Peeking(ISMCTSAgent):
        def act_on(self, state):
            self.true_game = state._game
            return super().act_on(state)

        def _iterate(self, root, world):
            super()._iterate(root, self.true_game.clone())

    assert redealt_choice_changes(lambda: Peeking("tongits", heuristic_class("tongits"), iterations=40), 200, 2) > 0


def test_seconds_budget_is_kept(monkeypatch):
    """With only a time budget the search stops at the first clock reading past its deadline, on a
    clock that moves 1 s per reading: it reads the clock once to set the deadline and once after
    each iteration, so 3 s give 3 iterations. No wall-clock assertion: what a decision costs is
    measured by experiments/measure_agent_costs.py (docs/results/agent_costs.json)."""
    readings = iter(range(1_000))  # a search that ignored its deadline would run out of readings
    monkeypatch.setattr(time, "perf_counter", lambda: float(next(readings)))
    env = position("rummy", 7, 3)
    seat = env.game.current_player
    agent = ISMCTSAgent("rummy", heuristic_class("rummy"), iterations=None, seconds=3.0)
    agent.reset(seat, 0)
    agent.act_on(env.information_state(seat))
    assert agent.last_iterations == 3


def test_specs():
    assert parse_ismcts_spec("ismcts") == {}
    assert parse_ismcts_spec("ismcts:400") == {"iterations": 400}
    assert parse_ismcts_spec("ismcts:50:rollout=heuristic:c=1.5") == {
        "iterations": 50, "rollout": "heuristic", "exploration": 1.5}
    assert parse_ismcts_spec("ismcts:seconds=0.5") == {"seconds": 0.5, "iterations": None}
    agent = make_agent("ismcts:30:seconds=1:preset=none", "rummy")
    assert (agent.iterations, agent.seconds, agent.rollout) == (30, 1.0, "random")
    for bad, words in [("ismcts:x", "'x' is not an integer"), ("ismcts:0", "iterations must be an int >= 1"),
                       ("ismcts:rollout=greedy", "rollout must be one of"), ("ismcts:lead=3", "unknown key"),
                       ("ismcts:depth=3", "depth and value go together"), ("ismcts:value=ppo", "go together"),
                       ("ismcts:depth=0:value=ppo", "depth must be an int >= 1"),
                       ("ismcts:depth=2:value=cards", "hand sizes, not rummy's"),
                       ("ismcts:claims=truthful", "belief about I Doubt It claims, not for rummy"),
                       ("ismcts:seconds=-1", "'-1' is not a number"), ("ismcts:c=abc", "'abc' is not a number")]:
        with pytest.raises(ValueError, match=words):
            check_agent_spec(bad + ":preset=none", "rummy")
    assert parse_ismcts_spec("ismcts:40:depth=4:value=cards:claims=truthful") == {
        "iterations": 40, "depth": 4, "value": "cards", "claims": "truthful"}
    assert parse_ismcts_spec("ismcts:10:moves=plans:candidates=4") == {"iterations": 10, "moves": "plans",
                                                                        "candidates": 4}
    for bad, words in [("ismcts:moves=all", "moves must be one of"), ("ismcts:candidates=1", "candidates must be")]:
        with pytest.raises(ValueError, match=words):
            check_agent_spec(bad + ":preset=none", "contract_rummy")
    agent = make_agent("ismcts:40:depth=4:value=cards:claims=truthful:preset=none", "i_doubt_it")
    assert (agent.depth, agent.cutoff_value.value, agent.deal_options) == (4, "cards", {"truthful_claim": True})


def test_truncated_ismcts_rollout_stops_at_depth_and_adds_the_value():
    """With depth=D an iteration steps the world at most D times after leaving the tree, then adds
    the value's estimate of the cut-off world to the return it backs up."""
    env = position("i_doubt_it", 7, 6)
    seat = env.game.current_player
    agent = make_agent("ismcts:1:depth=3:value=cards:preset=none", "i_doubt_it")
    agent.reset(seat, 0)
    agent.prepare(env.information_state(seat))
    estimates = []
    agent.cutoff_value = lambda worlds, s, value=agent.cutoff_value: estimates.append(value(worlds, s)[0]) or \
        np.array(estimates[-1:])
    world = env.game.determinize(seat, np.random.default_rng(0))
    steps = []
    world_step = world.step
    world.step = lambda action: steps.append(action) or world_step(action)
    root = Node()
    agent._low, agent._high = np.inf, -np.inf
    agent._iterate(root, world)
    assert len(estimates) == 1 and not world.done
    (action, total), = root.total.items()
    assert len(steps) == 1 + 3 and total == pytest.approx(estimates[0])   # no reward before the end


def test_search_refuses_act_without_the_information_state_and_another_seats_state():
    env = position("rummy", 3, 2)
    seat = env.game.current_player
    for spec in ("ismcts:5:preset=none", "pimc:4:preset=none"):
        agent = make_agent(spec, "rummy")
        agent.reset(seat, 0)
        with pytest.raises(ValueError, match=r"act_on\(env.information_state\(seat\)\)"):
            agent.act(env.game.observation(seat), env.game.legal_mask().copy(), {})
        with pytest.raises(ValueError, match=f"plays seat {seat}, not seat {1 - seat}"):
            agent.act_on(env.information_state(1 - seat))
        agent.reset(1 - seat, 0)
        with pytest.raises(ValueError, match="not to act"):
            agent.act_on(env.information_state(1 - seat))


def test_beats_random_in_a_duplicate_tournament(tmp_path):
    """Tongits (one hand, 3 seats): ISMCTS with 30 iterations per decision against two random
    seats, 16 deal seeds x 3 seatings; par is 1/3."""
    config = TournamentConfig(game="tongits", agents=("ismcts:30:preset=none", "random", "random"), games=48, seed=7,
                              options={"hands_per_match": 1}, workers=1)
    results = run_tournament(config, out_dir=None, progress=False)
    ismcts = results["summary"][0]
    assert ismcts["win_share_ci"][0] > 1 / 3, ismcts


def test_terminal_play_against_ismcts():
    """`rummy-env play` gives the search agent its seat's information state: a whole Tongits hand against it."""
    from tests.test_play import run
    rc, out, _ = run(["tongits", "--seed", "4", "--opponents", "ismcts:3:preset=none", "--option", "hands_per_match=1"])
    assert rc == 0
    assert "Game over" in out and "Traceback" not in out


@pytest.mark.parametrize("game", ["rummy", "tongits"])
def test_pimc_plays_legal_actions_over_whole_games(game):
    env = make_raw_env(game, **SHORT[game])
    assert play_to_end(env, {0: make_agent("pimc:4:screen=1:candidates=3:preset=none", game)}, 2) > 0


def test_pimc_specs():
    assert parse_pimc_spec("pimc") == {}
    assert parse_pimc_spec("pimc:40:screen=8:candidates=6:z=1.5:points=0.01") == {
        "worlds": 40, "screen": 8, "candidates": 6, "z": 1.5, "points": 0.01}
    agent = make_agent("pimc:10:preset=none", "tongits")
    assert (agent.worlds, agent.screen, agent.candidates) == (10, 4, 8)
    for bad, words in [("pimc:1", "worlds must be an int >= 2"), ("pimc:8:candidates=1", "candidates must be"),
                       ("pimc:8:lead=2", "unknown key"), ("pimc:x", "'x' is not an integer"),
                       ("pimc:8:depth=2", "depth needs a value"), ("pimc:8:value=net", "no checkpoint file 'net'"),
                       ("pimc:8:value=ppo:depth=0", "depth must be an int >= 1"),
                       ("pimc:8:value=ppo:depth=2.5", "'2.5' is not an integer"),
                       ("pimc:8:base=random", "base must be one of"),
                       ("pimc:8:claims=truthful", "belief about I Doubt It claims, not for rummy"),
                       ("pimc:8:claims=liar", "claims must be one of"),
                       ("pimc:8:value=cards:depth=4", "hand sizes, not rummy's")]:
        with pytest.raises(ValueError, match=words):
            check_agent_spec(bad + ":preset=none", "rummy")
    assert parse_pimc_spec("pimc:6:value=ppo:depth=8:base=ppo") == {
        "worlds": 6, "value": "ppo", "depth": 8, "base": "ppo"}
    agent = make_agent("pimc:6:value=ppo:depth=8:preset=none", "contract_rummy")
    assert (agent.value, agent.depth, agent.base_agent) == ("ppo", 8, None)
    assert make_agent("pimc:6:claims=truthful:preset=none", "i_doubt_it").deal_options == {"truthful_claim": True}


def test_pimc_value_cards_scores_hand_sizes_and_refuses_another_return():
    """``value=cards`` (I Doubt It) scores a cut-off rollout by ``position_value``: 2 p - 1 with p the
    seat's share of exp(-hand size / HAND_SCALE) over the seats, higher for a smaller hand; once a
    seat is out, +1 for it and -1 for the others; the first decision refuses a
    reward_mode other than ``winner``, whose return it estimates."""
    from rummy_env.agents.heuristic_i_doubt_it import HAND_SCALE, position_value
    env = make_raw_env("i_doubt_it")
    env.reset(seed=5)
    game = env.game
    assert [position_value(game, s) for s in range(4)] == pytest.approx([-0.5] * 4)   # 13 cards each
    game.hand_size = [3, 13, 13, 13]
    share = 1.0 / (1.0 + 3.0 * np.exp(-10 / HAND_SCALE))
    assert position_value(game, 0) == pytest.approx(2 * share - 1)
    assert position_value(game, 1) == pytest.approx(2 * (1 - share) / 3 - 1)
    game.out = [False, False, True, False]
    assert [position_value(game, s) for s in range(4)] == [-1.0, -1.0, 1.0, -1.0]
    agent = make_agent("pimc:4:value=cards:depth=4:preset=none", "i_doubt_it")
    ranked = make_raw_env("i_doubt_it", reward_mode="rank")
    ranked.reset(seed=5)
    agent.reset(0, 0)
    with pytest.raises(ValueError, match="value=cards estimates the return of reward_mode='winner'"):
        agent.act_on(ranked.information_state(0))


# Contract Rummy's committed policy was trained on one deal, 4 seats, win_loss rewards.
CONTRACT_RUMMY_VALUE_UNIT = {"deals": [1], "reward_mode": "win_loss"}


def test_pimc_value_ppo_refuses_another_return_or_observation():
    """The value head estimates the return it was trained on: another reward_mode or another
    observation size (3 seats) is refused at the first decision."""
    agent = make_agent("pimc:4:value=ppo:depth=4:preset=none", "contract_rummy")
    agent.reset(0, 1)
    for options, words in [({"deals": [1]}, "reward_mode='win_loss'"),
                           ({**CONTRACT_RUMMY_VALUE_UNIT, "num_players": 3}, "takes observations of")]:
        env = make_raw_env("contract_rummy", **options)
        env.reset(seed=1)
        with pytest.raises(ValueError, match=words):
            agent.act_on(env.information_state(0))


def test_pimc_value_from_a_checkpoint_path():
    """``value=PATH`` scores cut-off rollouts with that checkpoint's value head: the committed
    policy's path decides exactly as ``value=ppo`` with the same seed; another game's checkpoint is
    refused."""
    from rummy_env.agents.policy_checkpoint import committed_checkpoint
    path = committed_checkpoint("contract_rummy")
    env = make_raw_env("contract_rummy", **CONTRACT_RUMMY_VALUE_UNIT)
    choices = {}
    for spec in ("pimc:4:screen=1:candidates=3:value=ppo:depth=2:preset=none", f"pimc:4:screen=1:candidates=3:value={path}:depth=2:preset=none"):
        env.reset(seed=5)
        agents = [make_agent(spec if s == 0 else "heuristic", "contract_rummy") for s in range(4)]
        for s, agent in enumerate(agents):
            agent.reset(s, 9)
        made, searched = [], 0
        while searched < 6:
            seat = env.game.current_player
            mask = env.game.legal_mask().copy()
            action = agent_move(agents[seat], env, seat)
            if seat == 0:
                made.append(action)
                searched += np.count_nonzero(mask) > 1
            env.game.step(action)
        choices[spec.split(":")[4]] = made
    assert choices["value=ppo"] == choices[f"value={path}"] and len(choices["value=ppo"]) >= 6
    with pytest.raises(ValueError, match="trained on tongits, not contract_rummy"):
        make_agent(f"pimc:4:value={committed_checkpoint('tongits')}:depth=2:preset=none", "contract_rummy")


def test_truncated_rollout_never_steps_past_depth():
    """A rollout with depth=D steps the world at most 1 + D times (the candidate move and D
    more) and, cut off, returns the world for the value head; the value of a
    set of worlds is the collected return plus that head's estimate."""
    env = make_raw_env("contract_rummy", **CONTRACT_RUMMY_VALUE_UNIT)
    env.reset(seed=3)
    seat = env.game.current_player
    agent = make_agent("pimc:4:value=ppo:depth=5:preset=none", "contract_rummy")
    agent.reset(seat, 0)
    agent.prepare(env.information_state(seat))
    legal = np.flatnonzero(env.game.legal_mask())
    for trial in range(6):
        world = env.game.determinize(seat, np.random.default_rng(trial))
        steps = []
        world_step = world.step
        world.step = lambda action: steps.append(action) or world_step(action)
        collected, cut_world = agent._rollout(world, [int(legal[trial % len(legal)])])
        assert len(steps) == 1 + 5 and not world.done and cut_world is world
        assert collected == 0.0  # one deal: no reward before it ends
    values = agent._values(env.information_state(seat), [[int(legal[0])]], 3)
    assert values.shape == (3, 1) and np.all(np.abs(values) < 2)


def test_pimc_that_peeks_is_caught():
    """The independence check can fail for PIMC too: rolling out copies of the true game (the
    state's private game cloned, not determinize) chooses differently in some re-dealt twin."""
    class Peeking(PIMCAgent):
        def _values(self, state, actions, worlds):
            return np.array([[self._rollout(state._game.clone(), a)[0] for a in actions] for _ in range(worlds)])

    assert redealt_choice_changes(lambda: Peeking("tongits", heuristic_class("tongits"), worlds=6, screen=2,
                                                  candidates=4), 300, 4) > 0


def test_pimc_keeps_the_rule_based_plan_of_the_real_game():
    """Ginny-O's rule-based agent plans a multi-step play and keeps the plan between calls. A pimc
    whose rollouts all tie (values zeroed after they are played) never leaves the rule-based move,
    so it must play exactly a lone rule-based agent's moves in the real game: the rollouts, which
    call rule-based agents in other worlds, must not disturb the plan of the real game."""
    class NeverDeviating(PIMCAgent):
        def _values(self, state, actions, worlds):
            return super()._values(state, actions, worlds) * 0.0

    env = make_raw_env("ginny_o")
    env.reset(seed=11)
    search = NeverDeviating("ginny_o", heuristic_class("ginny_o"), worlds=2, screen=1, candidates=2, value="ppo",
                            depth=2)
    shadow, other = make_agent("heuristic", "ginny_o"), make_agent("heuristic", "ginny_o")
    search.reset(0, 5)
    shadow.reset(0, 5)
    other.reset(1, 6)
    compared = rollouts = 0
    while not env.game.done and compared < 40:
        seat = env.game.current_player
        observation, mask, view = env.game.observation(seat), env.game.legal_mask(), env.game.view(seat)
        if seat == 0:
            action = shadow.act(observation, mask.copy(), view)
            assert search.act_on(env.information_state(0)) == action, f"decision {compared}"
            compared += 1
            rollouts += search.last_iterations
        else:
            action = other.act(observation, mask.copy(), view)
        env.step(action)
    assert compared >= 20 and rollouts > 0


@pytest.mark.filterwarnings("ignore:invalid value encountered in divide")  # one game: a constant return
def test_measure_long_games_one_game_with_another_value_head(tmp_path):
    """``measure_long_games --only GAME --value PATH --specs S`` calibrates that checkpoint's value
    head and times that spec only; ``--value`` without ``--only`` is refused."""
    import json

    from rummy_env.agents.policy_checkpoint import committed_checkpoint
    from rummy_env.experiments.studies import measure_long_games
    path = committed_checkpoint("i_doubt_it")
    out = tmp_path / "cost.json"
    measure_long_games.main(["--only", "i_doubt_it", "--value", path, "--games", "1", "--deals", "1",
                             "--decisions", "1", "--specs", "pimc:2:screen=1:candidates=2:value=ppo:depth=1:preset=none",
                             "--out", str(out)])
    record = json.loads(out.read_text())
    assert [v["checkpoint"] for v in record["value_head"]] == [path]
    assert [r["spec"] for r in record["search"]] == ["pimc:2:screen=1:candidates=2:value=ppo:depth=1:preset=none"]
    with pytest.raises(SystemExit):
        measure_long_games.main(["--value", path])


@pytest.mark.filterwarnings("ignore:invalid value encountered in divide")  # one game: a constant return
def test_measure_long_games_calibrates_a_hand_written_estimate():
    """``--value score`` (Ginny-O) calibrates ``heuristic_ginny_o.position_value`` on seat 0's
    decisions; another game's estimate is refused."""
    from rummy_env.experiments.studies.measure_long_games import value_calibration
    record = value_calibration("ginny_o", 1, 500000, "score")
    assert record["checkpoint"] == "score" and record["decisions"] > 10
    assert -1 < record["mean_estimate"] < 1 and record["mean_return"] in (-1.0, 0.0, 1.0)
    with pytest.raises(ValueError, match="--value cards is i_doubt_it's estimate, not one for ginny_o"):
        value_calibration("ginny_o", 1, 500000, "cards")


def test_claim_truth_matches_the_engines_reveal():
    """``measure_claim_truth.claim_is_true`` agrees with the engine's reveal (DI-20) at every doubt
    in rule-based games with a doubter forced, and the measurement covers its doubt decisions."""
    from rummy_env.experiments.studies.measure_claim_truth import claim_is_true, measure, rule_based_turns
    env = make_raw_env("i_doubt_it")
    checked = {True: 0, False: 0}
    for seed in range(3):
        for seat, agent in rule_based_turns(env, seed):
            game = env.game
            mask = game.legal_mask().copy()
            if game.view(seat)["phase"] == "doubt":
                expected = claim_is_true(game)
                game.step(game.text_to_action("doubt"))
                reveal = [e for e in game.events if e[0] == "reveal"][-1]
                assert reveal[3] == expected
                checked[expected] += 1
                continue
            game.step(int(agent.act(game.observation(seat), mask, game.view(seat))))
    assert checked[True] > 10 and checked[False] > 10, checked
    result = measure(1, 4, 0)
    assert result["doubt_decisions"] > 0 and 0 <= result["sampled_worlds_claim_true"] <= 1


def ginny_o_play_position(seed: int):
    """A 2-player Ginny-O env (deal ``seed``) played by rule-based agents to the first play decision
    of the seat to act at which its rule-based agent begins a play (nothing placed yet)."""
    env = make_raw_env("ginny_o")
    env.reset(seed=seed)
    agents = [make_agent("heuristic", "ginny_o") for _ in range(2)]
    for seat, agent in enumerate(agents):
        agent.reset(seat, seed)
    game = env.game
    while not game.done:
        seat = game.current_player
        probe = make_agent("heuristic", "ginny_o")
        probe.reset(seat, seed)
        probe.act(game.observation(seat), game.legal_mask().copy(), game.view(seat))
        if probe.candidate_plans(2) and len(probe.candidate_plans(2)) == 2 and game.turns > 4:
            return env
        game.step(int(agents[seat].act(game.observation(seat), game.legal_mask().copy(), game.view(seat))))
    return None


def test_ginny_o_candidate_plans_are_whole_legal_plays_best_first():
    """The rule-based Ginny-O agent's ``candidate_plans``: after it begins a play, its best plays as
    action sequences, the one it began first (the rest of that one is its plan); each is legal step
    by step in the real game and ends with the commit; after a single-action decision, None."""
    env = ginny_o_play_position(11)
    game = env.game
    seat = game.current_player
    agent = make_agent("heuristic", "ginny_o")
    agent.reset(seat, 0)
    first = agent.act(game.observation(seat), game.legal_mask().copy(), game.view(seat))
    plans = agent.candidate_plans(5)
    assert 2 <= len(plans) <= 5 and plans[0][0] == first and plans[0][1:] == agent._plan
    assert len({tuple(plan) for plan in plans}) == len(plans)
    for plan in plans:
        world = game.clone()
        for action in plan:
            assert world.legal_mask()[action] and world.current_player == seat
            world.step(action)
        assert plan[-1] == 2 and world.current_player != seat   # committed: the turn passed
    world = game.clone()
    for action in plans[0]:
        world.step(action)
    while world.current_player != seat:   # the opponent's turn
        world.step(int(np.flatnonzero(world.legal_mask())[0]))
    agent.act(world.observation(seat), world.legal_mask().copy(), world.view(seat))   # start of turn: draw
    assert agent.candidate_plans(5) is None


def test_ginny_o_position_value_and_pimc_plans_rollout_to_the_seats_next_turn():
    """``value=score``: tanh of the seat's lead, its score with 2 points off for every rack tile and
    10 back for every joker, over the other seat's; ``depth=turn`` rolls a whole play out until the
    seat is to act again and adds that estimate; ``moves=plans`` compares whole plays and plays the
    chosen one to its commit, then searches again."""
    from rummy_env.agents.heuristic_ginny_o import SCORE_SCALE, position_value
    from rummy_env.cards import JOKER
    env = ginny_o_play_position(11)
    game = env.game
    seat = game.current_player
    totals = [game.scores[s] - 2 * sum(game.racks[s]) + 10 * game.racks[s][JOKER] for s in range(2)]
    assert position_value(game, seat) == pytest.approx(np.tanh((totals[seat] - totals[1 - seat]) / SCORE_SCALE))
    assert position_value(game, seat) == pytest.approx(-position_value(game, 1 - seat))
    agent = make_agent("pimc:2:screen=1:candidates=3:value=score:depth=turn:moves=plans:preset=none", "ginny_o")
    agent.reset(seat, 0)
    agent.prepare(env.information_state(seat))
    probe = make_agent("heuristic", "ginny_o")
    probe.reset(seat, 0)
    probe.act(game.observation(seat), game.legal_mask().copy(), game.view(seat))
    plan = probe.candidate_plans(1)[0]
    world = game.determinize(seat, np.random.default_rng(0))
    collected, cut_world = agent._rollout(world, plan)
    assert cut_world is world and world.current_player == seat and world.phase in ("start", "play")
    assert world.turns == game.turns + 2 and collected == 0.0
    first = agent.act_on(env.information_state(seat))
    rest = list(agent.plan)
    assert agent.last_iterations > 0 and rest[-1] == 2
    game.step(first)
    for action in rest:   # the chosen play, to its commit, without another search
        assert agent.act_on(env.information_state(seat)) == action
        assert agent.last_iterations == 0
        game.step(action)
    assert game.current_player != seat and agent.plan == []


def test_ismcts_plans_searches_the_rule_based_plays_and_plays_the_chosen_one_whole():
    """``ismcts moves=plans`` in Ginny-O: the root considers only the first tiles of the rule-based
    agent's ranked plays, every iteration plays the chosen play whole, and the chosen play is then
    placed to its commit without another search."""
    env = ginny_o_play_position(11)
    game = env.game
    seat = game.current_player
    probe = make_agent("heuristic", "ginny_o")
    probe.reset(seat, 0)
    probe.act(game.observation(seat), game.legal_mask().copy(), game.view(seat))
    plays = probe.candidate_plans(3)
    agent = make_agent("ismcts:8:rollout=heuristic:depth=6:value=score:moves=plans:candidates=3:preset=none", "ginny_o")
    agent.reset(seat, 0)
    first = agent.act_on(env.information_state(seat))
    assert agent.last_iterations == 8 and [first] + agent.plan in plays
    assert set(agent.root_moves) == {play[0] for play in plays}
    rest = list(agent.plan)
    game.step(first)
    for action in rest:
        assert agent.act_on(env.information_state(seat)) == action
        assert agent.last_iterations == 0
        game.step(action)
    assert game.current_player != seat and agent.plan == []


def add_rewards_to(world, returns: np.ndarray) -> None:
    """Make ``world.step`` add every reward vector it returns to ``returns``."""
    step = world.step

    def recorded_step(action):
        rewards = step(action)
        if rewards is not None:
            returns[:] += rewards
        return rewards
    world.step = recorded_step


def test_win_credit_and_a_root_only_tree():
    """credit=win backs up the seat's win credit (1 for the sole highest return from the decision
    on, split on ties, else 0) instead of its return; tree=1 keeps the tree at the root: the seat's
    later decisions are the rollout policy's, and no child node is ever made."""
    env = position("tongits", 5, 3)
    seat = env.game.current_player
    agent = make_agent("ismcts:60:rollout=heuristic:credit=win:tree=1:preset=none", "tongits")
    agent.reset(seat, 0)
    agent.prepare(env.information_state(seat))
    root = Node()
    agent._low, agent._high = np.inf, -np.inf
    credits = set()
    for i in range(60):
        world = env.game.determinize(seat, np.random.default_rng(i))
        returns = np.zeros(3)
        add_rewards_to(world, returns)
        before = sum(root.total.values())
        agent._iterate(root, world)
        credit = sum(root.total.values()) - before
        best = returns.max()
        assert credit == pytest.approx(1 / np.count_nonzero(returns == best) if returns[seat] == best else 0.0)
        credits.add(round(credit, 6))
    assert not root.children and sum(root.visits.values()) == 60
    assert 0.0 in credits and 1.0 in credits   # the positions covered both lost and won
    with pytest.raises(ValueError, match="credit=win needs whole rollouts"):
        make_agent("ismcts:5:depth=2:value=cards:credit=win:preset=none", "i_doubt_it")
    for bad, words in [("ismcts:credit=points", "credit must be one of"), ("ismcts:tree=0", "tree must be")]:
        with pytest.raises(ValueError, match=words):
            check_agent_spec(bad + ":preset=none", "tongits")


def test_decision_gain_counts_departures_and_scores_them_in_the_real_game():
    """experiments/studies/decision_gain: the rule-based agent itself never departs from its move (no gain
    either way); random play departs, and each true gain is a difference of two win credits."""
    from rummy_env.experiments.studies.decision_gain import measure
    heuristic, random = measure("tongits", {"hands_per_match": 1}, ["heuristic", "random"], positions=12, seed=3,
                                worlds=4, sample=0.5)
    assert heuristic["positions"] == random["positions"] == 12
    assert heuristic["deviations"] == 0 and heuristic["model_gain"] == heuristic["true_gain"] == 0.0
    assert random["deviations"] > 0 and -1.0 <= random["true_gain"] <= 1.0 and -1.0 <= random["model_gain"] <= 1.0


def test_gate_departs_from_the_rule_based_move_only_by_a_margin_of_standard_errors():
    """gate=z plays the rule-based move unless the most visited root action's mean return beats it
    by more than z standard errors (Welch): checked on hand-made root statistics, and end to end: a
    huge gate plays the rule-based move at every position, while the ungated search departs."""
    env = position("tongits", 5, 3)
    seat = env.game.current_player
    game = env.game
    observation, mask = game.observation(seat), game.legal_mask()
    rule_agent = make_agent("heuristic", "tongits")
    rule_agent.reset(seat, 0)
    rule = int(rule_agent.act(observation, mask.copy(), game.view(seat)))
    other = int(next(a for a in np.flatnonzero(mask) if a != rule))
    root = Node()   # 100 visits each: returns 0/1 with means 0.6 (other) and 0.5 (rule)
    root.visits = {other: 100, rule: 100}
    root.total = {other: 60.0, rule: 50.0}
    root.squares = {other: 60.0, rule: 50.0}
    gain_in_errors = 0.1 / np.sqrt(0.6 * 0.4 / 99 + 0.5 * 0.5 / 99)   # 1.41
    for gate, played in [(1.0, other), (gain_in_errors - 0.01, other), (gain_in_errors + 0.01, rule), (2.0, rule)]:
        agent = make_agent(f"ismcts:5:gate={gate}:preset=none", "tongits")
        agent.reset(seat, 0)
        agent.prepare(env.information_state(seat))
        agent.rule_move = agent._rule_move(env.information_state(seat), mask)
        assert agent.rule_move == rule
        assert agent._gated(root, other) == played, gate
        assert agent.last_departed == (played == other)
    departures = {"ismcts:40:rollout=heuristic:preset=none": 0, "ismcts:40:rollout=heuristic:gate=100:preset=none": 0}
    positions = 0
    for deal in range(4):
        for steps in (2, 5, 9):
            env = position("tongits", deal, steps)
            if env is None:
                continue
            game = env.game
            seat = game.current_player
            positions += 1
            rule_agent.reset(seat, 0)
            rule = int(rule_agent.act(game.observation(seat), game.legal_mask().copy(), game.view(seat)))
            for spec in departures:
                agent = make_agent(spec, "tongits")
                agent.reset(seat, deal)
                departures[spec] += agent.act_on(env.information_state(seat)) != rule
    assert positions >= 8
    assert departures["ismcts:40:rollout=heuristic:gate=100:preset=none"] == 0
    assert departures["ismcts:40:rollout=heuristic:preset=none"] > 0
    with pytest.raises(ValueError, match="'x' is not a number"):
        check_agent_spec("ismcts:gate=x:preset=none", "tongits")


def rule_based_return(world, first: int) -> float:
    """The acting seat's return in ``world`` (a copy is played) from ``first`` on, with every seat's
    rule-based agent playing the rest: written apart from the search, as the test's reference."""
    world = world.clone()
    seat = world.current_player
    agents = [make_agent("heuristic", "tongits") for _ in range(3)]
    for s, agent in enumerate(agents):
        agent.reset(s, 0)
    total = 0.0
    action = first
    while True:
        rewards = world.step(action)
        if rewards is not None:
            total += rewards[seat]
        if world.done:
            return total
        s = world.current_player
        action = agents[s].act(world.observation(s), world.legal_mask().copy(), world.view(s))


def test_paired_baseline_backs_up_the_gain_over_the_rule_based_move_in_the_same_world():
    """baseline=rule: an iteration that plays the rule-based move backs up 0; one that plays another
    move backs up its return less the rule-based move's return in the same world (both checked
    against whole rule-based playouts of a copy of that world, written apart from the search)."""
    env = position("tongits", 5, 3)
    seat = env.game.current_player
    agent = make_agent("ismcts:40:rollout=heuristic:tree=1:baseline=rule:preset=none", "tongits")
    agent.reset(seat, 0)
    agent.prepare(env.information_state(seat))
    game = env.game
    agent.rule_move = agent._rule_move(env.information_state(seat), game.legal_mask())
    root = Node()
    agent._low, agent._high = np.inf, -np.inf
    departed = nonzero = 0
    for i in range(40):
        world = game.determinize(seat, np.random.default_rng(i))
        expected = {int(a): rule_based_return(world, int(a)) for a in np.flatnonzero(world.legal_mask())}
        visits, totals = dict(root.visits), dict(root.total)
        agent._iterate(root, world)
        chosen = next(a for a in root.visits if root.visits[a] != visits.get(a, 0))
        backed_up = root.total[chosen] - totals.get(chosen, 0.0)
        gain = expected[chosen] - expected[agent.rule_move]
        assert backed_up == pytest.approx(gain), (i, chosen)
        departed += chosen != agent.rule_move
        nonzero += gain != 0
    assert root.total[agent.rule_move] == 0.0 and root.visits[agent.rule_move] >= 1
    assert departed >= 10 and nonzero >= 3   # the iterations covered departures that gained or lost
    with pytest.raises(ValueError, match="baseline must be one of"):
        check_agent_spec("ismcts:baseline=mean:preset=none", "tongits")
