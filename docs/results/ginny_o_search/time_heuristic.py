"""CPU seconds for 6 two-player Ginny-O games of GinnyOHeuristic against itself (seeds 0-5), env included."""
import time

from rummy_env import ginny_o_v0
import importlib.util

import rummy_env.games.ginny_o as module

if hasattr(module, "_PLAYS_CACHE"):  # the old engine: its own agent file, from the old tree
    spec = importlib.util.spec_from_file_location("rummy_env.agents.heuristic_ginny_o_old",
                                                  module.__file__.replace("rummy_env/games/ginny_o.py",
                                                                          "agents/heuristic_ginny_o.py"))
    old = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(old)
    GinnyOHeuristic = old.GinnyOHeuristic
else:
    from rummy_env.agents.heuristic_ginny_o import GinnyOHeuristic

t0 = time.process_time()
steps = 0
for seed in range(6):
    env = ginny_o_v0.raw_env()
    env.reset(seed=seed)
    agents = {a: GinnyOHeuristic() for a in env.agents}
    for s, a in enumerate(env.agents):
        agents[a].reset(s, 0)
    while not env.game.done:
        a = env.agent_selection
        obs = env.observe(a)
        env.step(agents[a].act(obs["observation"], obs["action_mask"], env.game.view(env.game.current_player)))
        steps += 1
print(module.__file__, f"{time.process_time() - t0:.2f} s CPU, {steps} steps")
