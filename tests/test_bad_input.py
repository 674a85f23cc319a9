"""The shared contract under bad input, on all five games (shared README, contract items 1, 2 and 4):
a refused step changes nothing (the reward waiting in ``last()`` included), anything that is not an
action id is refused with ``ValueError``, malformed action text is refused instead of read as another
action, ``action_to_text`` refuses ids outside the action space, deals with values of the wrong type
and unknown ``reset`` options are refused with ``ValueError``."""
from __future__ import annotations

import copy

import numpy as np
import pytest

from rummy_env.agents.registry import make_agent
from rummy_env.actions import parse_index, split_words
from rummy_env.cards import CARD_TEXT
from rummy_env.games.contract_rummy import ml_pack
from rummy_env.registry import GAMES, make_env, make_raw_env

SMALL_OPTIONS = {
    "rummy": {"num_players": 2, "reward_mode": "zero_sum", "max_rounds": 5, "max_turns": 5},
    "tongits": {"hands_per_match": 2},
    "i_doubt_it": {"num_players": 3, "max_cards_per_play": 2},
    "contract_rummy": {"num_players": 3, "deals": (1, 2), "max_turns_per_deal": 5},
    "ginny_o": {"num_players": 2, "max_turns": 12},
}
"""Small matches (and caps of 5 so that 5 is a bad value for every int of a deal)."""
PLAY_OPTIONS = {**SMALL_OPTIONS,
                "rummy": {"num_players": 2, "reward_mode": "zero_sum", "target_score": 0, "max_rounds": 3},
                "contract_rummy": {"num_players": 3, "deals": (1, 2)}}
"""Options for playing a match with a round/hand/deal ending before the match ends."""
MULTI_ROUND = ("rummy", "tongits", "contract_rummy")
"""Games whose episode is a match of several rounds: a seat can act with a reward pending."""

NOT_ACTION_IDS = [-1, -(2 ** 70), 2 ** 70, float("inf"), float("-inf"), float("nan"), 1.5, 1.0, True, False,
                  "0", "draw stock", None, [0], (0,), np.float64(2.0), np.array([0]), 2 + 0j, object()]


def _same(a, b, where: str = "") -> None:
    """Assert that two snapshots are equal (numpy arrays by value, NaN equal to NaN)."""
    assert type(a) is type(b), f"{where}: {type(a).__name__} != {type(b).__name__}"
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), where
    elif isinstance(a, dict):
        assert list(a) == list(b), f"{where}: keys {list(a)} != {list(b)}"
        for k in a:
            _same(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), f"{where}: length {len(a)} != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            _same(x, y, f"{where}[{i}]")
    elif isinstance(a, float) and np.isnan(a):
        assert np.isnan(b), where
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


def _snapshot(env) -> dict:
    """Everything an agent or a trainer can read from the wrapped env, deep-copied."""
    raw = env.unwrapped
    return copy.deepcopy({
        "agent_selection": env.agent_selection, "agents": list(raw.agents), "last": env.last(),
        "observations": {a: env.observe(a) for a in raw.possible_agents},
        "views": {a: raw.view(a) for a in raw.possible_agents},
        "rewards": raw.rewards, "cumulative_rewards": raw._cumulative_rewards,
        "terminations": raw.terminations, "truncations": raw.truncations, "infos": raw.infos,
        "game": raw.game.to_dict(),
    })


def _play_until_reward_pending(game: str):
    """A wrapped env, played by the rule-based agents, stopped where the seat to act has a non-zero
    reward waiting in ``last()``."""
    env = make_env(game, **PLAY_OPTIONS[game])
    agents = {}
    for name in env.possible_agents:
        seat = env.unwrapped.agent_name_mapping[name]
        agents[name] = make_agent("heuristic", game)
        agents[name].reset(seat, seed=seat)
    env.reset(seed=1)
    for step in range(20_000):
        if not env.unwrapped.agents:  # the episode ended with nothing pending: play another
            env.reset(seed=step)
        obs, reward, term, trunc, _ = env.last()
        if reward != 0:
            return env
        agent = env.agent_selection
        if term or trunc:
            env.step(None)
        else:
            env.step(agents[agent].act(obs["observation"], obs["action_mask"], env.unwrapped.view(agent)))
    raise AssertionError(f"{game}: no seat ever acted with a reward pending")


@pytest.mark.parametrize("game", list(GAMES))
def test_refused_step_keeps_the_pending_reward_and_everything_else(game):
    """Issue: step() zeroed the acting seat's cumulative reward before validating the action, so a
    refused step wiped the round's reward from last(). Now nothing at all changes."""
    env = _play_until_reward_pending(game)
    raw = env.unwrapped
    live = not (raw.terminations[env.agent_selection] or raw.truncations[env.agent_selection])
    if game in MULTI_ROUND:
        assert live, "the pending reward should be found between rounds, with the seat still to act"
    mask = env.last()[0]["action_mask"]
    bad_actions = [a for a in NOT_ACTION_IDS if a is not None or live]
    if live:
        bad_actions.insert(0, int(np.flatnonzero(mask == 0)[0]))
    before = _snapshot(env)
    assert before["last"][1] != 0
    for action in bad_actions:
        with pytest.raises(ValueError):
            env.step(action)
        _same(_snapshot(env), before, f"after step({action!r})")


@pytest.mark.parametrize("game", list(GAMES))
def test_step_refuses_anything_but_an_action_id(game):
    """inf, NaN, huge ints, floats (1.0 included), bools, strings, None for a live agent: ValueError
    (no OverflowError), state unchanged."""
    env = make_env(game, **SMALL_OPTIONS[game])
    env.reset(seed=0)
    n = env.action_space(env.agent_selection).n
    before = _snapshot(env)
    for action in NOT_ACTION_IDS + [n, np.int64(n), np.int64(-1)]:
        with pytest.raises(ValueError):
            env.step(action)
        _same(_snapshot(env), before, f"after step({action!r})")


@pytest.mark.parametrize("game", list(GAMES))
@pytest.mark.parametrize("int_type", [np.int64, np.int32, np.int16, np.uint16, np.intp])
def test_step_accepts_numpy_integers(game, int_type):
    env = make_env(game, **SMALL_OPTIONS[game])
    env.reset(seed=0)
    twin = make_env(game, **SMALL_OPTIONS[game])
    twin.reset(seed=0)
    legal = int(np.flatnonzero(env.last()[0]["action_mask"])[0])
    env.step(int_type(legal))
    twin.step(legal)
    _same(_snapshot(env), _snapshot(twin))


# -- action text -------------------------------------------------------------------------------

MALFORMED_TEXT = {
    "rummy": ["layoff 7H @1 6", "layoff 7H @ 16", "layoff 7H @٣", "layoff 7H @01", "layoff 7H 3", "layoff 7H",
              "discard 7H 8H", "discard 7ſ", "draw\u00a0stock", "draw stock\u2003", "draw\x00stock",
              "take discard 1", "meld 7C 7D 7S 7C", "meld"],
    "tongits": ["layoff 7H @1 6", "layoff 7H @ 16", "layoff 7H @١", "layoff 7H @01", "discard 7ſ",
                "call\u00a0draw", "challenge\x1c", "secret 7C 7D 7H 7S 7S", "fold now"],
    "i_doubt_it": ["play\u20037", "doubt\u00a0", "play ٧", "play 1٠", "play 7 7 7", "play", "pass pass",
                   "misclaim", "play 7\x00"],
    "contract_rummy": ["take discard ٣", "take discard 03", "take discard 0", "layoff TH @٠", "layoff TH @0 1",
                       "swap 9H @1 2", "swap 9H @", "draw\u00a0stock", "discard JK JK", "take discard ³"],
    "ginny_o": ["place 7H at H٨", "place 7H at H08", "place 7H at H8 9", "place 7H at H 8", "place 7H at P8",
                "place 7H at H16", "draw\u00a0", "return 7ſ", "exchange", "commit\x7f"],
}
"""Texts that must be refused per game: non-ASCII digits or spaces, control characters, extra words
(``layoff 7H @1 6`` was read as ``layoff 7H @16``), leading zeros, out-of-range numbers."""
COMMON_MALFORMED = ["", "   ", "\t\n", "ＤＲＡＷ", "draw\u200bstock", "é"]
WELL_FORMED = {
    "rummy": {"  DRAW \t stock\n": "draw stock", "layoff 7h @16": "layoff 7H @16",
              "meld 10h jh qh": "meld TH JH QH"},
    "tongits": {"Call   Draw": "call draw", "LAYOFF 7H @16": "layoff 7H @16"},
    "i_doubt_it": {" play 10 a ": "play A T", "PASS": "pass"},
    "contract_rummy": {"take discard 1": "take discard", "TAKE  discard 3": "take discard 3",
                       "layoff jk=4s @2": "layoff JK=4S @2"},
    "ginny_o": {"place jk=6h AT h8": "place JK=6H at H8", "place 7H at O15": "place 7H at O15"},
}


@pytest.mark.parametrize("game", list(GAMES))
def test_malformed_action_text_is_refused(game):
    env = make_raw_env(game, **SMALL_OPTIONS[game])
    env.reset(seed=0)
    for text in MALFORMED_TEXT[game] + COMMON_MALFORMED:
        with pytest.raises(ValueError, match="unknown action text") as err:
            env.text_to_action(text)
        assert repr(text) in str(err.value)
    for text in (None, 5, b"draw stock", ["draw", "stock"]):
        with pytest.raises(ValueError):
            env.text_to_action(text)


@pytest.mark.parametrize("game", list(GAMES))
def test_well_formed_variants_still_read(game):
    """Any run of ASCII whitespace, any case, ``10`` for T: the canonical action."""
    env = make_raw_env(game, **SMALL_OPTIONS[game])
    env.reset(seed=0)
    for text, canonical in WELL_FORMED[game].items():
        assert env.action_to_text(env.text_to_action(text)) == canonical


def test_shared_tokenizer_and_number_parser():
    assert split_words(" Draw\t STOCK \n") == ["draw", "stock"]
    for text in ("draw\u00a0stock", "", " ", "dr\x00aw", "٣"):
        with pytest.raises(ValueError, match="unknown action text"):
            split_words(text)
    assert parse_index("16", "k", 0, 16) == 16 and parse_index("0", "k", 0, 16) == 0
    for word in ("17", "-1", "01", "", "٣", "³", "1 ", "+1", "1" * 5000):
        with pytest.raises(ValueError, match="k must be a number 0..16"):
            parse_index(word, "k", 0, 16)


@pytest.mark.parametrize("game", list(GAMES))
def test_action_to_text_refuses_ids_outside_the_action_space(game):
    """Rummy's action_to_text(-1) read a layoff from the end of its table; I Doubt It's was
    'misclaim' with the option off."""
    env = make_raw_env(game, **SMALL_OPTIONS[game])
    env.reset(seed=0)
    n = env.action_space(env.possible_agents[0]).n
    assert env.action_to_text(np.int64(n - 1)) == env.action_to_text(n - 1)
    for action in [n, -1, np.int64(-1), 2 ** 70] + NOT_ACTION_IDS[1:]:
        for owner in (env, env.game):
            with pytest.raises(ValueError):
                owner.action_to_text(action)


# -- deals and reset options ---------------------------------------------------------------------

def _rest(used: list[str], pack: list[str]) -> list[str]:
    rest = list(pack)
    for text in used:
        rest.remove(text)
    return rest


def _base_deals(game: str) -> list[dict]:
    """Valid deals of ``game`` (under SMALL_OPTIONS) giving every deal key, melds included."""
    if game == "rummy":
        hands = ["AC 2C 3C 4D 5D 6D 9H".split(), "AS 2S 3S 4S 5H 6H 8C 9C TC".split()]
        melds = [{"owner": 0, "cards": ["7C", "7D", "7H", "7S"], "layoffs": {"7S": 1}}]
        used = hands[0] + hands[1] + melds[0]["cards"] + ["KD"]
        return [{"dealer": 0, "hands": hands, "melds": melds, "discard": ["KD"],
                 "stock": _rest(used, list(CARD_TEXT[:52])), "to_play": 1, "scores": [10, 20],
                 "rounds_played": 1, "turnovers": 1, "turns": 2}]
    if game == "tongits":
        hands = ["AC 2C 3C 4D 5D 6D 9H".split(), "AS 2S 3S 4S 5H 6H 8C 9C TC".split(), "KC KH".split()]
        melds = [{"owner": 0, "cards": ["7C", "7D", "7H"], "secret": False}]
        used = hands[0] + hands[1] + hands[2] + melds[0]["cards"] + ["KD"]
        return [{"dealer": 0, "hands": hands, "melds": melds, "discard": ["KD"],
                 "stock": _rest(used, list(CARD_TEXT[:52])), "turn": 1, "phase": "draw", "blocked": [2],
                 "chips": [1, -1, 0], "hand_index": 1}]
    if game == "i_doubt_it":
        return [{"dealer": 0, "hands": [["AC", "2C"], ["3C", "4C"], ["5C"]], "discard": ["6C"], "rank": "7",
                 "to_play": 1, "stock": []}]
    if game == "contract_rummy":
        opts = make_raw_env(game, **SMALL_OPTIONS[game]).options
        pack = [CARD_TEXT[c] for c in ml_pack(opts)]
        hands = ["AC 2C".split(), "AS 2S 3S 4S 5S 6S 8S 9S TS JS".split(), "AH 2H 3H 4H 5H 6H 9H TH JH QH".split()]
        melds = [{"owner": 0, "cards": ["7C", "7D", "7H"]}, {"owner": 0, "cards": ["8C", "8D", "JK=8H"]}]
        used = hands[0] + hands[1] + hands[2] + "7C 7D 7H 8C 8D JK".split() + ["KD"]
        return [{"dealer": 0, "hands": hands, "melds": melds, "discard": ["KD"], "stock": _rest(used, pack),
                 "deal_index": 0, "to_play": 1, "scores": [10, 20, 30], "turns": 2}]
    hands = ["AC 2C 3C 4C 5C 6C 7C".split(), "AD 2D 3D 4D 5D 6D 7D".split()]
    base = {"hands": hands, "stock": ["9S", "TS"], "board": ["G8 5H", "H8 JK=6H", "I8 7H"], "scores": [3, 4],
            "discard": []}
    return [{**base, "first": 1}, {**base, "dealer": 0}]


BAD_VALUES = [None, 5, "x", [None], {"a": 1}, 2.5, True]


def _fuzzed(deal: dict):
    """(where, deal) with one value replaced by a bad one: each key, the first element of each
    list, and each key of the first dict in a list (a meld)."""
    for key, value in deal.items():
        for bad in BAD_VALUES:
            yield f"{key}={bad!r}", {**deal, key: bad}
        if isinstance(value, list) and value:
            for bad in BAD_VALUES:
                if bad == 5 and key in ("scores", "chips"):
                    continue  # 5 is a good score
                yield f"{key}[0]={bad!r}", {**deal, key: [bad] + value[1:]}
            if isinstance(value[0], dict):
                for field in value[0]:
                    for bad in BAD_VALUES:
                        yield f"{key}[0].{field}={bad!r}", {**deal, key: [{**value[0], field: bad}] + value[1:]}
            if isinstance(value[0], list) and value[0]:
                for bad in BAD_VALUES:
                    yield f"{key}[0][0]={bad!r}", {**deal, key: [[bad] + value[0][1:]] + value[1:]}


@pytest.mark.parametrize("game", list(GAMES))
def test_deal_values_of_the_wrong_type_are_refused_with_value_error(game):
    """Contract Rummy and Ginny-O raised TypeError (a hand of None, ``"scores": 5``, a meld's
    ``"cards": 5``); some games took None for a default. Every bad value: ValueError."""
    env = make_env(game, **SMALL_OPTIONS[game])
    for deal in _base_deals(game):
        env.reset(seed=0, options={"deal": deal})  # the base deal is valid
        checked = 0
        for where, bad_deal in _fuzzed(deal):
            try:
                env.reset(seed=0, options={"deal": bad_deal})
            except ValueError:
                checked += 1
                continue
            except Exception as err:  # noqa: BLE001 - the point of the test
                raise AssertionError(f"{game} deal {where}: {type(err).__name__}: {err}") from None
            raise AssertionError(f"{game} deal {where} was accepted")
        assert checked > 50
    for deal in (5, "x", [None], {"a": 1}, []):
        with pytest.raises(ValueError):
            env.reset(seed=0, options={"deal": deal})


@pytest.mark.parametrize("game", list(GAMES))
def test_unknown_reset_options_are_refused(game):
    env = make_env(game, **SMALL_OPTIONS[game])
    env.reset(seed=3)
    before = _snapshot(env)
    for options in ({"foo": 1}, {"deal": None, "seed": 2}, {"Deal": {}}, 5, "deal", [("deal", None)]):
        with pytest.raises(ValueError, match="deal"):
            env.reset(seed=4, options=options)
        _same(_snapshot(env), before, f"after reset(options={options!r})")
    env.reset(seed=3, options={"deal": None, "options": 1})  # what PettingZoo's api_test passes
    _same(_snapshot(env), before)


@pytest.mark.parametrize("game", GAMES)
def test_single_agent_gym_env_refuses_anything_but_an_action_id(game):
    """The Gymnasium wrapper uses the same id check as the AEC env: ``ValueError``, never
    ``OverflowError`` or ``TypeError``, and the episode goes on."""
    from rummy_env.gym_wrapper import SingleAgentEnv
    env = SingleAgentEnv(game, seat=0, **SMALL_OPTIONS[game])
    obs, info = env.reset(seed=0)
    for bad in NOT_ACTION_IDS:
        with pytest.raises(ValueError):
            env.step(bad)
    legal = int(np.flatnonzero(env.action_masks())[0])
    env.step(np.int64(legal))


@pytest.mark.parametrize("text", ["7\u017f", "\u0667H", "7H\u200b", "\uff17H"])
def test_card_texts_are_ascii(text):
    """``cards.parse_card`` reads deals too: ``'7ſ'`` upper-cases to ``'7S'`` and must be refused."""
    from rummy_env.cards import parse_card
    with pytest.raises(ValueError, match="bad card"):
        parse_card(text)


def test_view_of_an_unknown_agent_names_the_agents():
    env = make_raw_env("rummy")
    env.reset(seed=0)
    for agent in ("player_7", 7, -1, "0"):
        with pytest.raises(ValueError, match=r"no agent .*: the agents are player_0, player_1 \(or seats 0..1\)"):
            env.view(agent)
    assert env.view("player_1").keys() == env.view(1).keys()


def test_a_single_contract_not_in_a_list_says_how_to_write_one():
    with pytest.raises(ValueError, match=r"deals must be a non-empty sequence of contracts 1..7, got 1 "
                                         r"\(a single contract is a one-element list, e.g. deals=\[1\]\)"):
        make_raw_env("contract_rummy", deals=1)
