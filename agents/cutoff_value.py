"""What scores a search rollout cut off before the end of the episode (``value=`` and ``depth=`` of
``pimc`` and ``ismcts``, issue 16): the seat's *episode return* is the rewards the rollout collected
plus an estimate of the rest where it stopped.

- ``value=ppo``: the value head of the game's committed PPO policy
  (``checkpoints/<game>/policy_fp16.pt``), on the seat's observation in each cut-off world, one
  batched forward per set of worlds.
- ``value=PATH``: the value head of the policy checkpoint at ``PATH``, e.g. a clone from
  ``rummy-env imitate``, whose head learned the return of rule-based play (what the rollouts play).
- ``value=cards`` (I Doubt It only): the rule-based agent's ``position_value``
  (``heuristic_i_doubt_it.position_value``), an estimate of the ``winner`` return from the public
  hand sizes.
- ``value=score`` (Ginny-O only): the rule-based agent's ``position_value``
  (``heuristic_ginny_o.position_value``), an estimate of the ``rank`` return from the scores and
  racks in the world.

A value head learned the return of the reward mode it was trained with (e.g. Contract Rummy's
``win_loss``), so :meth:`CutoffValue.check_options` refuses env options whose ``reward_mode`` or observation
differs from the checkpoint's; ``cards`` and ``score`` estimate their game's default reward mode
only. A rollout that reaches the end scores the same return, so cut-off and whole rollouts are on
one scale.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from rummy_env.registry import game_key, make_raw_env

NAMED = ("ppo", "cards", "score")
"""The named values; any other value is the path of a policy checkpoint whose value head to use."""
ESTIMATES = {"cards": ("i_doubt_it", "winner", "hand sizes"), "score": ("ginny_o", "rank", "scores and racks")}
"""The hand-written estimates, each the ``position_value(game, seat)`` of the game's rule-based agent:
(game, the reward mode whose return they estimate, what from)."""


class CutoffValue:
    """The estimate of a seat's return from a cut-off world, for a search's ``value=`` key."""

    def __init__(self, game: str, value: str, owner: str, rule_class: type) -> None:
        """``rule_class``: the game's rule-based agent class, whose ``position_value`` is the
        ``cards`` and ``score`` estimate."""
        if not isinstance(value, str) or not value:
            raise ValueError(f"{owner} value must be one of {', '.join(NAMED)} or a checkpoint path, got {value!r}")
        self.game = game
        self.value = value
        self.owner = owner
        self.path = None
        self.net = None
        if value in ESTIMATES:
            estimate_game, reward_mode, what = ESTIMATES[value]
            if game_key(game) != estimate_game:
                raise ValueError(f"{owner} value={value} estimates {estimate_game}'s return from {what}, not {game}'s")
            self.estimate = rule_class.position_value
            return
        from .policy_checkpoint import committed_checkpoint, load_checkpoint, policy_from_checkpoint
        self.path = committed_checkpoint(game) if value == "ppo" else value
        self.checkpoint = load_checkpoint(self.path, game)
        self.net = policy_from_checkpoint(self.checkpoint)

    def check_options(self, options) -> None:
        """``ValueError`` when a game with ``options`` (the rules' dataclass, e.g. an information
        state's ``options``) pays another return than this value estimates, or (a value head) gives
        another observation than its checkpoint was trained on."""
        if self.net is None:
            reward_mode = ESTIMATES[self.value][1]
            if options.reward_mode != reward_mode:
                raise ValueError(f"{self.owner} value={self.value} estimates the return of reward_mode={reward_mode!r}, "
                                 f"not {options.reward_mode!r}")
            return
        from .policy_checkpoint import check_options
        trained = make_raw_env(self.game, **self.checkpoint.get("options", {})).options.reward_mode
        if options.reward_mode != trained:
            raise ValueError(f"{self.owner} value={self.value}: the {self.game} checkpoint {self.path!r} learned the "
                             f"return of reward_mode={trained!r}; this env has reward_mode="
                             f"{options.reward_mode!r} (play it with --option reward_mode={trained})")
        check_options(self.path, self.checkpoint, self.game, dataclasses.asdict(options))

    def __call__(self, worlds: list, seat: int) -> np.ndarray:
        """The estimate of ``seat``'s return from here in each of the cut-off ``worlds``."""
        if self.net is None:
            return np.array([self.estimate(world, seat) for world in worlds])
        import torch
        observations = np.stack([world.observation(seat) for world in worlds])
        with torch.inference_mode():
            return self.net.value(torch.as_tensor(observations, dtype=torch.float32)).numpy()
