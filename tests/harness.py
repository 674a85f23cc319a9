"""Checks shared by every game's test module.

Each game's tests supply the game-specific pieces (an independent reference legality check, a
card-conservation check, a way to re-deal hidden information) and call these drivers.
"""
from __future__ import annotations

import json
import pickle
from typing import Callable

import numpy as np
from pettingzoo.test import api_test, seed_test


def run_pettingzoo_tests(env_fn: Callable, num_cycles: int = 300) -> None:
    """PettingZoo's ``api_test`` and ``seed_test`` on ``env_fn()``."""
    api_test(env_fn(), num_cycles=num_cycles)
    seed_test(env_fn, num_cycles=num_cycles)


def random_legal_action(mask: np.ndarray, rng: np.random.Generator) -> int:
    legal = np.flatnonzero(mask)
    return int(legal[rng.integers(len(legal))])


# Options of each game that keep episodes short, so that a few hundred steps see several end.
SHORT_EPISODE_OPTIONS = {
    "rummy": {"max_rounds": 1, "max_turns": 12},
    "tongits": {"hands_per_match": 1},
    "i_doubt_it": {"num_players": 3, "max_plays": 25},
    "contract_rummy": {"num_players": 3, "deals": (1,), "max_turns_per_deal": 10},
    "ginny_o": {"max_turns": 6},
}


def play_random_games(raw_env_fn: Callable[[], object], num_games: int, seed: int,
                      reference_mask: Callable[[object], np.ndarray],
                      check_invariants: Callable[[object], None],
                      illegal_probe_every: int = 7, max_steps: int = 100_000) -> dict:
    """Play ``num_games`` complete games with random legal actions on fresh ``raw_env_fn()``s.

    At every step: ``check_invariants(game)`` (e.g. every card in exactly one place), the mask
    equals ``reference_mask(game)`` (an independent, slow legality check), and every
    ``illegal_probe_every``-th step a random masked-out action is stepped and must raise
    ``ValueError`` with the engine state (``to_dict``) unchanged. Returns simple statistics.
    """
    rng = np.random.default_rng(seed)
    steps = 0
    ends = {"terminated": 0, "truncated": 0}
    for g in range(num_games):
        env = raw_env_fn()
        env.reset(seed=seed * 100_003 + g)
        game = env.game
        n_steps = 0
        while not game.done:
            check_invariants(game)
            mask = game.legal_mask()
            ref = np.asarray(reference_mask(game), dtype=np.int8)
            if not np.array_equal(mask, ref):
                diff = np.flatnonzero(mask != ref)
                raise AssertionError(
                    f"game {g} step {n_steps}: mask differs from reference at "
                    + ", ".join(f"{a} '{game.action_to_text(int(a))}' (mask {mask[a]}, ref {ref[a]})"
                                for a in diff[:10]))
            if n_steps % illegal_probe_every == 0:
                illegal = np.flatnonzero(mask == 0)
                if len(illegal):
                    bad = int(illegal[rng.integers(len(illegal))])
                    before = json.dumps(game.to_dict(), sort_keys=True)
                    try:
                        env.step(bad)
                    except ValueError as err:
                        assert game.action_to_text(bad) in str(err), str(err)
                    else:
                        raise AssertionError(f"masked-out action {bad} '{game.action_to_text(bad)}' was accepted")
                    assert json.dumps(game.to_dict(), sort_keys=True) == before, "state changed by a refused action"
            env.step(random_legal_action(mask, rng))
            n_steps += 1
            if n_steps > max_steps:
                raise AssertionError(f"game {g} did not end within {max_steps} steps")
        check_invariants(game)
        ends["truncated" if game.truncated else "terminated"] += 1
        steps += n_steps
    return {"games": num_games, "steps": steps, **ends}


def check_roundtrips(raw_env_fn: Callable[[], object], seed: int, steps_before: int = 40,
                     steps_after: int = 200) -> None:
    """Mid-game ``clone()``, ``to_dict()``/``from_dict()`` (through JSON) and pickle all
    reproduce the state, and play continues identically with the same actions."""
    env = raw_env_fn()
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    game = env.game
    for _ in range(steps_before):
        if game.done:
            break
        game.step(random_legal_action(game.legal_mask(), rng))
    copies = [game.clone(), type(game).from_dict(json.loads(json.dumps(game.to_dict()))),
              pickle.loads(pickle.dumps(game))]
    for copy in copies:
        assert copy.to_dict() == game.to_dict()
    for _ in range(steps_after):
        if game.done:
            break
        action = random_legal_action(game.legal_mask(), rng)
        for copy in copies:
            assert copy.to_dict() == game.to_dict()
            np.testing.assert_array_equal(copy.legal_mask(), game.legal_mask())
        expected = game.step(action)
        for copy in copies:
            got = copy.step(action)
            assert (got is None) == (expected is None)
            if got is not None:
                np.testing.assert_array_equal(got, expected)
            for seat in range(game.num_players):
                np.testing.assert_array_equal(copy.observation(seat), game.observation(seat))
    for copy in copies:
        assert copy.to_dict() == game.to_dict()


def check_hidden_information(raw_env_fn: Callable[[], object], seed: int, num_states: int,
                             redeal: Callable[[object, int, np.random.Generator], object],
                             redeals_per_state: int = 10, max_walk: int = 300) -> int:
    """For states reached by random play, ``redeal(game, seat, rng)`` returns a copy of the game
    with everything ``seat`` cannot see re-dealt consistently; the seat's observation and view
    must stay bit-identical. Returns the number of (state, re-deal) pairs checked."""
    rng = np.random.default_rng(seed)
    checked = 0
    env = raw_env_fn()
    env.reset(seed=seed)
    game = env.game
    for _ in range(num_states):
        for _ in range(int(rng.integers(1, max_walk))):
            if game.done:
                env.reset()
                game = env.game
            game.step(random_legal_action(game.legal_mask(), rng))
        if game.done:
            continue
        for seat in range(game.num_players):
            obs = game.observation(seat)
            view = json.dumps(game.view(seat), sort_keys=True)
            for _ in range(redeals_per_state):
                other = redeal(game, seat, rng)
                assert obs.dtype == other.observation(seat).dtype
                np.testing.assert_array_equal(other.observation(seat), obs)
                assert json.dumps(other.view(seat), sort_keys=True) == view
                checked += 1
    return checked


def play_agents(raw_env, agents: list, seed: int, check: Callable | None = None):
    """Play one episode of ``raw_env`` (reset with ``seed``) with one agent per seat, each deciding
    from its observation, mask and view; ``check(game, seat, action)`` is called before every step.
    Returns the finished engine."""
    raw_env.reset(seed=seed)
    for seat, agent in enumerate(agents):
        agent.reset(seat, seed=seed * 10 + seat)
    game = raw_env.game
    while not game.done:
        seat = game.current_player
        mask = game.legal_mask()
        action = agents[seat].act(game.observation(seat), mask, game.view(seat))
        assert mask[action], game.action_to_text(action)
        if check is not None:
            check(game, seat, action)
        game.step(action)
    return game


def agent_ignores_hidden_information(make_agent: Callable, game, seat: int, action: int,
                                     redeal: Callable, rng: np.random.Generator, redeals: int) -> int:
    """A fresh ``make_agent()`` at ``seat`` chooses ``action`` in every one of ``redeals``
    re-deals of what the seat cannot see. Returns how many re-deals changed a hidden hand."""
    changed = 0
    for _ in range(redeals):
        other = redeal(game, seat, rng)
        agent = make_agent()
        agent.reset(seat, seed=0)
        assert agent.act(other.observation(seat), other.legal_mask(), other.view(seat)) == action
        changed += other.hands != game.hands
    return changed
