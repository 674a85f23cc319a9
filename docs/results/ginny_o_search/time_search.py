"""Time Ginny-O's legal-play search on positions of seeded random games (2 and 4 players): every
play of the acting rack (what the mask needs) and the first-play check (has_play), then random play
through the engine (mask, step, observation) on unseen seeds. Caches start cold in every repeat: the
old module-level caches are cleared, the new code gets one PlaySearch per game. CPU time (process_time); prints the minimum
over repeats and a checksum of every legal mask."""
import hashlib
import time

import numpy as np

import rummy_env.games.ginny_o as module
from rummy_env import ginny_o_v0
from rummy_env.games.ginny_o import GinnyOGame

OLD = hasattr(module, "_PLAYS_CACHE")


def cold(games_positions):
    """Fresh copies of the positions, with cold caches (one search per game in the new code)."""
    if OLD:
        for cache in (module._PLAYS_CACHE, module._CROSS_CACHE, module._SEQ_CACHE):
            cache.clear()
    out = []
    for dicts in games_positions:
        search = None
        for d in dicts:
            g = GinnyOGame.from_dict(d)
            if not OLD:
                search = search or g.search
                g.search = search
            out.append(g)
    return out


def positions(num_players, games, seed):
    env = ginny_o_v0.raw_env(num_players=num_players, max_turns=200)
    rng = np.random.default_rng(seed)
    out = []
    for e in range(games):
        env.reset(seed=seed + e)
        g = env.game
        dicts = []
        while not g.done:
            dicts.append(g.to_dict())
            g.step(int(rng.choice(np.flatnonzero(g.legal_mask()))))
        out.append(dicts)
    return out


def run():
    print(module.__file__)
    recorded = positions(2, 6, 10) + positions(4, 3, 20)
    best_all, best_first = 1e9, 1e9
    for rep in range(5):
        games = cold(recorded)
        racks = [list(g.racks[g.current_player]) for g in games]
        t0 = time.process_time()
        for g, counts in zip(games, racks):
            g.plays_for(counts) if not OLD else g._enumerate_plays(counts)
        t1 = time.process_time()
        games = cold(recorded)
        t2 = time.process_time()
        found = sum(g.has_play(counts) for g, counts in zip(games, racks))
        t3 = time.process_time()
        best_all, best_first = min(best_all, t1 - t0), min(best_first, t3 - t2)
    digest = hashlib.sha256()
    for g in cold(recorded):
        digest.update(g.legal_mask().tobytes())
    print(f"positions {len(games)}  all plays {best_all:.3f} s  has_play {best_first:.3f} s  found {found}  "
          f"masks {digest.hexdigest()[:16]}")


def play_loop():
    best = 1e9
    for rep in range(3):
        env = ginny_o_v0.raw_env(num_players=2)
        if OLD:
            cold([])
        rng = np.random.default_rng(5)
        t0 = time.process_time()
        steps = 0
        for e in range(20):
            env.reset(seed=1000 * rep + e)
            g = env.game
            while not g.done:
                g.step(int(rng.choice(np.flatnonzero(g.legal_mask()))))
                g.observation(g.current_player)
                steps += 1
        best = min(best, (time.process_time() - t0) / steps)
    print(f"random play: {1e6 * best:.0f} us per step ({steps} steps in the last repeat)")


run()
play_loop()
