"""rummy_env: PettingZoo environments for the rummy family of card games.

``from rummy_env import rummy_v0, tongits_v0, i_doubt_it_v0, contract_rummy_v0, ginny_o_v0``;
each module has ``env(**options)`` and ``raw_env(**options)`` (PettingZoo classic style) and
documents its observation, actions, rewards and options. ``rummy_env.registry`` finds a game by
name; ``rummy_env.vector`` and ``rummy_env.gym_wrapper`` are the batched and single-agent layers.
"""
