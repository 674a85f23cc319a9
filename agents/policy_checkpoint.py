"""Policy checkpoint files: loading (``torch.load(..., weights_only=True)`` on the CPU), the network
stored in one, and the checks against an env's options and observation layout.

A checkpoint records the env options it was trained with (``"options"``); :func:`check_options`
warns (one line, the options that differ) when they differ, and refuses (``ValueError``) when the
observation or action size differs. It also records the observation layout
(``"observation_layout"``, :func:`layout_record`: each named part's shape and offsets) and refuses an
env whose layout differs (:func:`check_layout`); checkpoints written before the layout was recorded
load unchecked.

Each game's committed best policy is ``checkpoints/<game>/policy_fp16.pt`` in the repository
(:func:`committed_checkpoint`; the agent spec ``ppo`` with no path), or for an env whose options it
was not trained on, a committed policy in a folder below that was (Contract Rummy's ``default_rules/``).
"""
from __future__ import annotations

import dataclasses
import itertools
import warnings
from pathlib import Path

import torch

import rummy_env
from rummy_env.registry import game_key, make_raw_env

from .policy_net import PolicyNet

CHECKPOINT_FORMAT = "rummy_env-ppo/1"


def committed_checkpoint(game: str, options: dict | None = None) -> str:
    """``checkpoints/<game>/policy_fp16.pt`` of the repository this package lies in (an editable
    install); ``ValueError`` saying where it looked when it is missing (e.g. a wheel install).

    Given the env's ``options``, the game's committed policy trained on exactly those options (the
    defaults filled in): that file if it was, else the first ``checkpoints/<game>/<folder>/policy_fp16.pt``
    that was (Contract Rummy: ``default_rules/``, the seven-deal agent, while the main file plays one
    deal and is the value head of the searches' ``value=ppo``); the main file when none was."""
    folder = Path(rummy_env.__file__).resolve().parents[1] / "checkpoints" / game_key(game)
    path = folder / "policy_fp16.pt"
    if not path.is_file():
        raise ValueError(f"agent spec 'ppo': no committed {game_key(game)} checkpoint at {path} "
                         f"(only a repository checkout has checkpoints/); pass ppo:PATH")
    if options is not None:
        wanted = filled_options(game, options)
        for candidate in (path, *sorted(folder.glob("*/policy_fp16.pt"))):
            trained = load_checkpoint(str(candidate), game).get("options")
            if trained is not None and filled_options(game, trained) == wanted:
                return str(candidate)
    return str(path)


def filled_options(game: str, options: dict) -> dict:
    """The env options of ``game`` built with ``options``, every default filled in."""
    return dataclasses.asdict(make_raw_env(game, **options).options)


def layout_record(layout) -> list[dict]:
    """What a checkpoint stores of an :class:`rummy_env.layout.ObservationLayout`: each part's name,
    shape and offsets, in order."""
    return [{"name": p.name, "shape": list(p.shape), "start": p.start, "stop": p.stop} for p in layout]


def check_layout(path: str, data: dict, layout) -> None:
    """``ValueError`` naming the first differing part when checkpoint ``data`` (from ``path``) records an
    observation layout other than ``layout``; nothing to check for a checkpoint without one."""
    if "observation_layout" not in data:
        return
    trained, mine = data["observation_layout"], layout_record(layout)
    for old, new in itertools.zip_longest(trained, mine):
        if old != new:
            raise ValueError(f"checkpoint {path!r} was trained on another observation layout: part "
                             f"{old} there, {new} in this env (the policy would read the wrong entries)")


def policy_from_checkpoint(data: dict) -> PolicyNet:
    """The network stored in a checkpoint dict (training checkpoint or policy export); a
    checkpoint without ``"head"`` in its config has the flat head."""
    if data.get("format") != CHECKPOINT_FORMAT:
        raise ValueError(f"not a rummy_env PPO checkpoint (format {data.get('format')!r})")
    cfg = data["model_config"]
    net = PolicyNet(cfg["obs_size"], cfg["num_actions"], tuple(cfg["hidden"]),
                    None if cfg["board_shape"] is None else tuple(cfg["board_shape"]),
                    cfg["board_offset"], cfg["conv_channels"], cfg.get("obs_log1p", False),
                    cfg.get("head", "flat"), cfg.get("action_grid"), cfg.get("factor_dim", 32), cfg.get("prior"),
                    prior_candidates=cfg.get("prior_candidates", 0))
    net.load_state_dict(data["model"])
    net.eval()
    net.name = f"{data.get('game')} policy"
    return net



def load_checkpoint(path: str, game: str | None = None) -> dict:
    """The checkpoint dict in file ``path`` (CPU). ``ValueError`` if the file is not a PPO
    checkpoint or was trained on another game than ``game``."""
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except FileNotFoundError:
        raise ValueError(f"no checkpoint file {path!r}") from None
    except Exception as e:  # torch.load raises many kinds, with pages of advice, on a file that is not a checkpoint
        raise ValueError(f"{path!r} is not a rummy_env checkpoint (torch.load: {type(e).__name__})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path!r} is not a rummy_env PPO checkpoint")
    trained_on = data.get("game")
    if game is not None and trained_on is not None and game_key(game) != trained_on:
        raise ValueError(f"checkpoint {path!r} was trained on {trained_on}, not {game_key(game)}")
    return data



def check_options(path: str, data: dict, game: str, options: dict) -> None:
    """Compare the env ``options`` with those checkpoint ``data`` (from ``path``) was trained with,
    both with the game's defaults filled in: ``ValueError`` when the observation or action size
    or the recorded observation layout (:func:`check_layout`) differs, else a one-line
    ``UserWarning`` listing the options that differ. A checkpoint without recorded options
    (``"options"`` missing) is checked for sizes only."""
    env = make_raw_env(game, **options)
    cfg = data["model_config"]
    seat = env.possible_agents[0]
    obs_size, num_actions = env.observation_space(seat)["observation"].shape[0], env.action_space(seat).n
    if (obs_size, num_actions) != (cfg["obs_size"], cfg["num_actions"]):
        raise ValueError(f"checkpoint {path!r} takes observations of {cfg['obs_size']} and "
                         f"{cfg['num_actions']} actions; {game} with options {options} has {obs_size} "
                         f"and {num_actions} (trained with options {data.get('options')})")
    check_layout(path, data, env.observation_layout())
    if "options" not in data:
        return
    mine = dataclasses.asdict(env.options)
    trained = filled_options(game, data["options"])
    differ = [f"{k}={mine[k]!r} (trained with {trained[k]!r})" for k in mine if mine[k] != trained[k]]
    if differ:
        warnings.warn(f"checkpoint {path!r} plays {game} with other options than it was trained with: "
                      f"{', '.join(differ)}", stacklevel=3)
