"""GinnyOHeuristic: beats RandomAgent clearly and decides from public information only."""
from __future__ import annotations

import numpy as np

from rummy_env.agents import RandomAgent
from rummy_env.agents.heuristic_ginny_o import GinnyOHeuristic
from rummy_env import ginny_o_v0
from tests.redeals import redeal_ginny_o as redeal


def play(env, agents, seed):
    env.reset(seed=seed)
    for i, a in enumerate(agents):
        a.reset(i, seed)
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = env.agent_name_mapping[name]
        action = agents[seat].act(obs["observation"], obs["action_mask"], env.view(name))
        assert obs["action_mask"][action], env.action_to_text(action)
        env.step(action)
    return env.game.final_scores


def test_heuristic_beats_random():
    """At least 90% of 2-player games won against RandomAgent (seats alternate)."""
    env = ginny_o_v0.raw_env()
    wins = 0
    games = 20
    for g in range(games):
        h = g % 2
        agents = [None, None]
        agents[h], agents[1 - h] = GinnyOHeuristic(), RandomAgent()
        scores = play(env, agents, 1000 + g)
        wins += scores[h] > scores[1 - h]
    assert wins >= 0.9 * games, wins


def test_heuristic_ignores_hidden_tiles():
    """The choice depends on the view only: re-dealing the other racks and the box (same
    public state) never changes it."""
    env = ginny_o_v0.raw_env()
    env.reset(seed=5)
    rng = np.random.default_rng(0)
    agent = GinnyOHeuristic()
    checked = 0
    for _ in range(120):
        g = env.game
        if g.done:
            break
        seat = g.current_player
        agent.reset(seat, 0)
        choice = agent.act(g.observation(seat), g.legal_mask(), g.view(seat))
        for _ in range(3):
            other = redeal(g, seat, rng)
            agent.reset(seat, 0)
            assert agent.act(other.observation(seat), other.legal_mask(), other.view(seat)) == choice
            checked += 1
        agent.reset(seat, 0)
        g.step(agent.act(g.observation(seat), g.legal_mask(), g.view(seat)) if rng.random() < 0.7
               else int(rng.choice(np.flatnonzero(g.legal_mask()))))
    assert checked > 100
