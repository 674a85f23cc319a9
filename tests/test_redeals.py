"""What the tests' re-deals (tests/redeals.py) keep, as their docstring says: the seat's observation
and view, and not what the seat can work out beyond them, where the engines' ``determinize`` keeps it
too: the stock order after an unshuffled Rummy turnover (RM-24) and the cards of a Contract Rummy
stock made by a reshuffle (CR-32)."""
from __future__ import annotations

from collections import Counter

import numpy as np

from rummy_env.registry import make_raw_env
from tests.redeals import redeal_contract_rummy, redeal_rummy


def keeps_the_view(game, redealt, seat: int) -> bool:
    return (np.array_equal(redealt.observation(seat), game.observation(seat))
            and redealt.view(seat) == game.view(seat))


def draw_from_the_stock_until(env, rng: np.random.Generator, stop) -> None:
    """Random play that always draws from the stock and discards, until ``stop(game)`` holds before
    a ``draw stock`` (the game must not end first)."""
    game = env.game
    draw = env.text_to_action("draw stock")
    while not stop(game):
        assert not game.done
        legal = np.flatnonzero(game.legal_mask())
        discards = [a for a in legal if env.action_to_text(int(a)).startswith("discard")]
        game.step(draw if draw in legal else int(rng.choice(discards or legal)))


def test_rummy_redeal_after_an_unshuffled_turnover_reshuffles_the_public_stock_order():
    """After an unshuffled turnover the stock order is public (RM-24): the re-deal keeps the seat's
    observation and view but not that order; the engine's determinize keeps it."""
    env = make_raw_env("rummy", shuffle_turnover=False, max_rounds=1, target_score=0)
    env.reset(seed=1)
    draw_from_the_stock_until(env, np.random.default_rng(1), lambda g: g.turnovers == 1 and g.phase == 0)
    game, seat = env.game, 1 - env.game.current_player
    rng = np.random.default_rng(2)
    redeals = [redeal_rummy(game, seat, rng) for _ in range(5)]
    assert all(keeps_the_view(game, r, seat) for r in redeals)
    assert any(r.stock != game.stock for r in redeals)
    assert all(game.determinize(seat, rng).stock == game.stock for _ in range(5))


def test_contract_rummy_redeal_after_a_reshuffle_mixes_the_new_stock_with_hidden_cards():
    """A reshuffle makes the old pile the new stock (CR-32), so which cards the stock holds is public:
    the re-deal keeps the observation and view of a seat that did not draw, but puts other hidden
    cards into the stock; the engine's determinize keeps the stock within the old pile."""
    env = make_raw_env("contract_rummy", num_players=3, deals=(1,), max_turns_per_deal=200)
    env.reset(seed=3)
    draw_from_the_stock_until(env, np.random.default_rng(3), lambda g: g.phase == 0 and not g.stock)
    game = env.game
    old_pile = Counter(game.pile)
    game.step(env.text_to_action("draw stock"))
    assert game.stock and not Counter(game.stock) - old_pile
    seat = (game.current_player + 1) % game.num_players
    rng = np.random.default_rng(4)
    redeals = [redeal_contract_rummy(game, seat, rng) for _ in range(5)]
    assert all(keeps_the_view(game, r, seat) for r in redeals)
    assert any(Counter(r.stock) - old_pile for r in redeals)
    assert not any(Counter(game.determinize(seat, rng).stock) - old_pile for _ in range(5))
