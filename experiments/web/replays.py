"""One step of a logged game for the replay viewer: the table before action ``step`` of a
``games.jsonl`` record (:mod:`rummy_env.experiments.replay`'s format), from one seat's view or with
every hand shown.

From a seat's view the other seats' moves are told through the public events only, never by their
action texts (which can name hidden cards, e.g. a draw).
"""
from __future__ import annotations

from html import escape

from rummy_env.registry import make_raw_env
from rummy_env.render import view_to_html

EVERY_CARD = "all"
"""The ``seat`` of the view with every hand shown."""


def check_record(record: object) -> dict:
    """``record`` if it has what a replay needs, else ``ValueError`` naming what is missing."""
    if not isinstance(record, dict):
        raise ValueError("a game record is a JSON object (one line of games.jsonl)")
    missing = [key for key in ("game", "seed", "actions") if key not in record]
    if missing:
        raise ValueError(f"the game record lacks {', '.join(missing)}")
    if not isinstance(record["actions"], list) or not all(isinstance(a, str) for a in record["actions"]):
        raise ValueError("the record's actions must be a list of action texts")
    if not isinstance(record.get("options", {}), dict):
        raise ValueError("the record's options must be a JSON object")
    return record


def replay_frame(record: dict, seat: int | str, step: int) -> dict:
    """The table before action ``step`` (``step == len(actions)``: the end) of ``record``, seen by
    ``seat`` (an int) or by :data:`EVERY_CARD`; ``ValueError`` for a bad record, seat or step."""
    check_record(record)
    actions = record["actions"]
    if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step <= len(actions):
        raise ValueError(f"step must be 0..{len(actions)}, got {step!r}")
    try:
        env = make_raw_env(record["game"], **record.get("options", {}))
        env.reset(seed=record["seed"])
    except (TypeError, ValueError) as e:
        raise ValueError(f"cannot rebuild the game of this record: {e}") from None
    num_seats = len(env.possible_agents)
    if seat != EVERY_CARD and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < num_seats):
        raise ValueError(f"seat must be 0..{num_seats - 1} or {EVERY_CARD!r}, got {seat!r}")
    for k, text in enumerate(actions[:step]):
        if env.game.done:
            raise ValueError(f"the game ended after {k} actions but the log goes on")
        try:
            env.step(env.text_to_action(text))
        except ValueError as e:
            raise ValueError(f"action {k} ({text!r}) was refused: {e}") from None
    actor = -1 if env.game.done else int(env.game.current_player)
    if seat == EVERY_CARD:
        view = dict(env.view(max(actor, 0)), revealed_hands=[env.view(s)["hand"] for s in range(num_seats)])
    else:
        view = env.view(seat)
    if step == len(actions):
        line = "the end" + (f": returns {record['returns']}" if "returns" in record else "")
    elif seat == EVERY_CARD or seat == actor:
        line = f"next: player_{actor} plays {actions[step]}"
    else:
        line = f"next: player_{actor} moves"
    seating = record.get("seating") or []
    html = (f'<div class="head">{escape(line)}</div>'
            + view_to_html(dict(view, legal_actions=[]), record["game"]))
    return {"step": step, "steps": len(actions), "num_seats": num_seats, "seating": seating, "html": html}
