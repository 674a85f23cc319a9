"""Named observation layouts (rummy_env.layout): parts tile the observation, ``split`` gives views of
each part's shape, bad declarations are refused, and every environment offers its layout through
``env.unwrapped.observation_layout()``."""
from __future__ import annotations

import numpy as np
import pytest

from rummy_env import ginny_o_v0
from rummy_env.cards import CARD_TEXT
from rummy_env.layout import ObservationLayout, parse_range
from rummy_env.registry import GAMES, make_env

EXAMPLE = [("hand", 52, "{0,1}", "my hand"), ("melds", (3, 4), "[0, 1]", "meld slots"), ("score", 1, "-inf..inf", "")]


def test_parts_follow_each_other_in_order():
    layout = ObservationLayout(EXAMPLE)
    assert layout.names() == ["hand", "melds", "score"]
    assert [(p.start, p.stop, p.shape) for p in layout] == [(0, 52, (52,)), (52, 64, (3, 4)), (64, 65, (1,))]
    assert layout.size == 65 and layout["melds"].slice == slice(52, 64) and layout.start("score") == 64
    assert layout.part_at(63).name == "melds"


def test_split_gives_views_reshaped_to_each_part():
    layout = ObservationLayout(EXAMPLE)
    obs = np.arange(65, dtype=np.float32)
    parts = layout.split(obs)
    assert list(parts) == ["hand", "melds", "score"]
    assert parts["melds"].shape == (3, 4) and parts["melds"][1, 2] == 52 + 6
    parts["score"][0] = -1.0
    assert obs[64] == -1.0, "split returns views, not copies"
    batch = layout.split(np.zeros((5, 65), np.float32))
    assert batch["melds"].shape == (5, 3, 4) and batch["hand"].shape == (5, 52)


@pytest.mark.parametrize("parts,message", [
    ([("a", 2, "{0,1}", ""), ("a", 3, "{0,1}", "")], "repeat"),
    ([("a", 0, "{0,1}", "")], "shape"),
    ([("a b", 2, "{0,1}", "")], "identifier"),
    ([("a", 2, "0-1", "")], "range notation"),
])
def test_bad_declarations_are_refused(parts, message):
    with pytest.raises(ValueError, match=message):
        ObservationLayout(parts)


def test_split_refuses_an_observation_of_another_size():
    with pytest.raises(ValueError, match="size 65"):
        ObservationLayout(EXAMPLE).split(np.zeros(64, np.float32))


def test_unknown_part_names_the_parts():
    with pytest.raises(KeyError, match="hand, melds, score"):
        ObservationLayout(EXAMPLE)["board"]


def test_range_notation():
    assert parse_range("{0,1}") == (0.0, 1.0, True)
    assert parse_range("0..inf") == (0.0, np.inf, True)
    assert parse_range("-inf..inf") == (-np.inf, np.inf, True)
    assert parse_range("[0, 1.2]") == (0.0, 1.2, False)
    low, high, integer = ObservationLayout(EXAMPLE).bounds()
    assert (low[52], high[52], integer[52]) == (0.0, 1.0, False) and integer[0] and high[64] == np.inf


@pytest.mark.parametrize("game", list(GAMES))
def test_env_offers_its_layout_and_split_covers_the_observation(game):
    env = make_env(game)
    env.reset(seed=3)
    layout = env.unwrapped.observation_layout()
    obs = env.observe(env.agent_selection)["observation"]
    parts = layout.split(obs)
    assert layout.size == obs.shape[0] == env.observation_space(env.agent_selection)["observation"].shape[0]
    assert np.array_equal(np.concatenate([part.ravel() for part in parts.values()]), obs)
    assert all(parts[p.name].shape == p.shape for p in layout)


@pytest.mark.parametrize("game,options", [("rummy", {"num_players": 3}), ("tongits", {}), ("i_doubt_it", {}),
                                          ("contract_rummy", {}), ("ginny_o", {"num_players": 3})])
def test_hand_part_holds_the_views_hand(game, options):
    """The ``hand`` part (Ginny-O: ``rack``) counts the cards of the observing seat's hand in its view."""
    env = make_env(game, **options)
    env.reset(seed=1)
    agent = env.agent_selection
    parts = env.unwrapped.observation_layout().split(env.observe(agent)["observation"])
    first = parts["rack" if game == "ginny_o" else "hand"]
    cards = env.unwrapped.view(agent)["hand"]
    if game == "i_doubt_it":
        assert first.sum() == len(cards) and first[0] == sum(card[0] == "A" for card in cards)
    else:
        counts = {text: int(first[c]) for c, text in enumerate(CARD_TEXT[:len(first)]) if first[c]}
        assert counts == {text: cards.count(text) for text in set(cards)}


def test_ginny_o_board_parts_are_the_board_planes():
    env = ginny_o_v0.env()
    env.reset(seed=0)
    layout = env.unwrapped.observation_layout()
    assert layout.start("rack") == ginny_o_v0.OBS_BOARD_SIZE
    assert sum(layout[name].size for name in layout.names()[:8]) == np.prod(ginny_o_v0.OBS_BOARD_SHAPE)
    obs = env.observe(env.agent_selection)["observation"]
    planes = obs[:ginny_o_v0.OBS_BOARD_SIZE].reshape(ginny_o_v0.OBS_BOARD_SHAPE)
    parts = layout.split(obs)
    assert np.array_equal(parts["premium"], planes[7:12]) and np.array_equal(parts["open_start"], planes[14])
    assert parts["open_start"][7, 7] == 1 and parts["premium"].sum() > 0
