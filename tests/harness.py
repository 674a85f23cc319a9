"""Checks shared by every game's test module.

Each game's tests supply the game-specific pieces (an independent reference legality check, a
card-conservation check, a way to re-deal hidden information) and call these drivers.
"""
from __future__ import annotations

import copy
import json
import pickle
import re
from collections import deque
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


STATE_TYPES = (type(None), bool, int, float, str, bytes, list, tuple, dict, set, frozenset, deque, np.ndarray,
               np.generic, np.random.Generator)
"""Attribute types a game's state is made of; any other attribute (the options, or a table shared
by the games of one set of options: a catalogue, a layout, the masks or the play search, which
owns its caches) is compared by identity."""


def _frozen(value):
    if isinstance(value, memoryview):
        return bytes(value)
    if isinstance(value, STATE_TYPES):
        return pickle.dumps(value)
    return id(value)


def attribute_snapshot(game) -> dict:
    """Every attribute of ``game``, each pickled (a memoryview by the bytes it shows, a shared
    table by identity: :data:`STATE_TYPES`), and its generator's state: two equal snapshots mean
    nothing on the game was written in between."""
    snap = {name: _frozen(value) for name, value in vars(game).items()}
    snap[" rng state"] = pickle.dumps(game.rng.bit_generator.state)
    return snap


def check_determinize_writes_nothing(game, rng: np.random.Generator, draws: int = 2, **options) -> None:
    """``draws`` determinizations for every seat of ``game`` (with the keyword ``options`` of the
    game's ``determinize``) leave every attribute of it (and its generator) bit-identical. The
    legal mask is built first, as a search finds a position."""
    game.legal_mask()
    before = attribute_snapshot(game)
    for seat in range(game.num_players):
        for _ in range(draws):
            game.determinize(seat, rng, **options)
    after = attribute_snapshot(game)
    assert after.keys() == before.keys(), f"determinize added or removed {sorted(after.keys() ^ before.keys())}"
    changed = sorted(name for name in before if before[name] != after[name])
    assert not changed, f"determinize wrote {changed} on the real game"


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


# ---- control flow under hidden information (shared contract 3) -----------------------------
CARD_TOKEN = re.compile(r"\b(?:[2-9TJQKA][CDHS]|JK)\b")
"""A canonical card text (``7H``, ``TS``, ``JK``) as a word of a view or an action text."""


def card_texts_in(obj) -> set:
    """Every canonical card text written anywhere in ``obj`` (a view, an action text...)."""
    return set(CARD_TOKEN.findall(obj if isinstance(obj, str) else json.dumps(obj)))


def permute_hidden_cards(deal: dict, fixed: set, rng: np.random.Generator) -> tuple[dict, set]:
    """A copy of the scenario ``deal`` in which the cards of ``"hands"`` and ``"stock"`` whose
    text is not in ``fixed`` are shuffled among their positions, every other card staying put,
    and the set of the shuffled texts."""
    out = copy.deepcopy(deal)
    rows = list(out["hands"]) + ([out["stock"]] if "stock" in out else [])
    slots = [(row, j) for row in rows for j, text in enumerate(row) if text not in fixed]
    texts = [row[j] for row, j in slots]
    for (row, j), k in zip(slots, rng.permutation(len(slots))):
        row[j] = texts[k]
    return out, set(texts)


PUBLIC_STEP_FIELDS = ("acting agent", "terminations", "truncations", "reward", "observation", "view", "mask")


def _public_step(env, seat: int) -> tuple:
    """What must not depend on the cards ``seat`` cannot see: the acting agent, every agent's
    termination and truncation, the seat's reward, observation, view and (when it acts) mask."""
    game = env.game
    agent = env.possible_agents[seat]
    acting = game.current_player == seat and not game.done
    return (env.agent_selection, tuple(env.terminations.values()), tuple(env.truncations.values()),
            env.rewards[agent], game.observation(seat).tobytes(), json.dumps(game.view(seat), sort_keys=True),
            game.legal_mask().tobytes() if acting else None)


def replay_public_steps(raw_env_fn: Callable[[], object], seed: int, deal: dict, actions: list, seat: int,
                        unseen: set = frozenset()) -> tuple[list, str]:
    """Reset a fresh ``raw_env_fn()`` with ``seed`` and ``deal`` and step ``actions``: the
    ``_public_step`` records of ``seat`` (one more than the actions stepped) and how the replay
    ended: ``"complete"``, ``"illegal"`` (at an action illegal here) or ``"revealed"`` (at the
    first record whose view shows a card text of ``unseen``, the last one returned)."""
    env = raw_env_fn()
    env.reset(seed=seed, options={"deal": copy.deepcopy(deal)})
    records = []
    for a in [None] + list(actions):
        if a is not None:
            if env.game.done or not env.game.legal_mask()[a]:
                return records, "illegal"
            env.step(a)
        records.append(_public_step(env, seat))
        if unseen & card_texts_in(records[-1][5]):
            return records, "revealed"
    return records, "complete"


def check_hidden_control_flow(raw_env_fn: Callable[[], object], deal_of: Callable[[object], dict], seed: int,
                              samples: int, max_steps: int = 300,
                              label: Callable[[object], str | None] | None = None) -> dict:
    """Shared contract 3, the flow of the game: play one random game from the scenario deal
    ``deal_of(game)`` of a seeded fresh game, then ``samples`` times pick a seat i and a prefix of
    t actions, shuffle the cards i never saw in those t steps (never in its view, never named by
    an action) among their positions in the deal (``permute_hidden_cards``) and replay the same
    actions from that deal: at every step the acting agent, the ends, and seat i's reward,
    observation, view and mask must be those of the first game. A replay stops early at an action
    that is illegal in the shuffled deal, or where seat i's view shows a shuffled card (a hand that
    ends and is shown, TG-29; an action that names ranks only, I Doubt It's plays, may move another
    card of a shuffled hand): there only the acting agent and the ends are compared, since from
    there on the deals differ in what the seat sees. ``label(game)`` (on the first game, after each
    action) names positions to count; half the prefixes end just after one of them. Returns
    counts: ``positions`` compared (plus one per label met), replays ``complete``, stopped as
    ``illegal`` or ``revealed``, and ``unchanged`` (nothing to shuffle). Cards shown in a view
    that the seat may not see are the business of ``check_hidden_information``: here such a card
    counts as seen."""
    rng = np.random.default_rng(seed)
    env = raw_env_fn()
    env.reset(seed=seed)
    deal = deal_of(env.game)
    env.reset(seed=seed, options={"deal": copy.deepcopy(deal)})
    game = env.game
    n = game.num_players
    first = [[_public_step(env, s)] for s in range(n)]
    seen = [[card_texts_in(first[s][0][5])] for s in range(n)]   # seen[s][t]: in seat s's views up to t actions
    named = [set()]                                                # named[t]: named by the first t actions
    labels = [label(game) if label else None]
    actions = []
    while not game.done and len(actions) < max_steps:
        a = random_legal_action(game.legal_mask(), rng)
        named.append(named[-1] | card_texts_in(game.action_to_text(a)))
        env.step(a)
        actions.append(a)
        for s in range(n):
            first[s].append(_public_step(env, s))
            seen[s].append(seen[s][-1] | card_texts_in(first[s][-1][5]))
        labels.append(label(game) if label else None)
    labelled = [step for step, name in enumerate(labels) if name]
    counts = {"positions": 0, "complete": 0, "illegal": 0, "revealed": 0, "unchanged": 0}
    for _ in range(samples):
        seat = int(rng.integers(n))
        t = int(rng.integers(1, len(actions) + 1))
        if labelled and rng.random() < 0.5:   # end the prefix just after a labelled position
            t = min(int(rng.choice(labelled)) + 1, len(actions))
        other, unseen = permute_hidden_cards(deal, seen[seat][t] | named[t], rng)
        if other == deal:
            counts["unchanged"] += 1
            continue
        records, end = replay_public_steps(raw_env_fn, seed, other, actions[:t], seat, unseen)
        for step, record in enumerate(records):
            fields = 3 if end == "revealed" and step == len(records) - 1 else len(PUBLIC_STEP_FIELDS)
            differ = [name for name, x, y in zip(PUBLIC_STEP_FIELDS[:fields], record, first[seat][step]) if x != y]
            assert not differ, (
                f"seed {seed}, seat {seat}, step {step} (after "
                f"{[game.action_to_text(a) for a in actions[max(0, step - 3):step]]}): {differ} differ between "
                f"two deals that differ only in cards the seat cannot see")
        counts["positions"] += len(records)
        for step in range(len(records)):
            if labels[step]:
                counts[labels[step]] = counts.get(labels[step], 0) + 1
        counts[end] += 1
    return counts
