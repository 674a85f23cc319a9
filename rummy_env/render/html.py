"""The HTML back end (Jupyter's ``_repr_html_``, the web tables): a seat's view as a
self-contained HTML fragment with inline styles (:func:`view_to_html`), cards as small faces
(:func:`card_html`); a view with a ``board`` (Ginny-O) shows it by
:func:`~rummy_env.render.board.board_html`."""
from __future__ import annotations

import html
from typing import Iterable

from ..games.i_doubt_it.view import pile_lines
from .board import board_html
from .common import SUIT_SYMBOL, card_face, is_red, meld_groups, number, owner_text, seat_label, status_line

_CARD_STYLE = ("display:inline-block;width:30px;height:42px;margin:1px;border:1px solid #888;"
               "border-radius:4px;background:#fcfcf8;text-align:center;vertical-align:top;"
               "font:bold 13px/17px sans-serif;box-shadow:1px 1px 1px rgba(0,0,0,.25);")
_BACK_STYLE = ("display:inline-block;width:30px;height:42px;margin:1px;border:2px solid #ddd;"
               "border-radius:4px;background:#2846a0;color:#eee;text-align:center;vertical-align:top;"
               "font:11px/42px sans-serif;")


def card_html(text: str, highlight: bool = False) -> str:
    """One card as an inline-block ``<span>``: rank over suit symbol, red hearts and diamonds."""
    label, suit, joker, stands = card_face(text)
    if suit is None and not joker:
        return f'<span style="{_BACK_STYLE}" title="{html.escape(label)}">{html.escape(label)}</span>'
    extra = "outline:2px solid #e6aa14;" if highlight else ""
    title = html.escape(str(text))
    if joker:
        below = "&#9733;"
        if stands:
            s_label, s_suit, _, _ = card_face(stands)
            colour = "#c41e2d" if is_red(s_suit) else "#191919"
            below = f'<span style="color:{colour};font-size:11px">={s_label}{SUIT_SYMBOL[s_suit]}</span>'
        return f'<span style="{_CARD_STYLE}{extra}color:#7828a0" title="{title}">JK<br>{below}</span>'
    colour = "#c41e2d" if is_red(suit) else "#191919"
    return (f'<span style="{_CARD_STYLE}{extra}color:{colour}" title="{title}">{label}<br>'
            f'<span style="font-size:17px">{SUIT_SYMBOL[suit]}</span></span>')


def cards_html(cards: Iterable[str], highlight_last: bool = False) -> str:
    """Cards side by side, the last one outlined when ``highlight_last`` (a discard pile's top)."""
    cards = list(cards)
    return "".join(card_html(c, highlight_last and i == len(cards) - 1) for i, c in enumerate(cards))


def view_to_html(view: dict, name: str = "") -> str:
    """The view as a self-contained HTML fragment (inline styles only), for Jupyter."""
    e = html.escape
    seat, to_play = view.get("seat", -1), view.get("to_play", -1)
    n = int(view.get("num_players", len(view.get("hand_sizes", []))))
    sizes = list(view.get("hand_sizes", [])) + [None] * n
    scores = list(view.get("scores", [])) + [None] * n
    revealed = view.get("revealed_hands") or None
    out = ['<div style="background:#16603a;color:#f5f5f0;padding:8px 10px;border-radius:6px;'
           'font:13px sans-serif;max-width:960px">',
           f'<div style="font-weight:bold;font-size:14px;margin-bottom:6px">{e(status_line(view, name))}</div>',
           '<table style="border-collapse:collapse;color:#f5f5f0;margin-bottom:6px">',
           '<tr><th style="text-align:left;padding:1px 8px">seat</th><th style="padding:1px 8px">cards</th>'
           '<th style="padding:1px 8px">score</th><th></th></tr>']
    for i in range(n):
        mark = (" (you)" if i == seat else "") + (" &larr; to play" if i == to_play and not view.get("done") else "")
        shown = cards_html(revealed[i]) if revealed and i < len(revealed) and revealed[i] else ""
        out.append(f'<tr><td style="padding:1px 8px">{seat_label(i)}{mark}</td>'
                   f'<td style="padding:1px 8px;text-align:center">{"-" if sizes[i] is None else sizes[i]}</td>'
                   f'<td style="padding:1px 8px;text-align:center">{e(number(scores[i]))}</td>'
                   f'<td>{shown}</td></tr>')
    out.append("</table>")
    if "board" in view:
        out.append(board_html(view))
    discard = list(view.get("discard", []) or [])
    if "pile_size" in view:
        out.append("<div>" + "<br>".join(e(line) for line in pile_lines(view)) + "</div>")
    else:
        out.append(f'<div>stock: {int(view.get("stock_size", 0))} cards'
                   + (f' &nbsp; discard pile ({len(discard)}, top card last):</div><div>'
                      + cards_html(discard[-20:], highlight_last=True) if discard else "")
                   + "</div>")
    for owner, melds in meld_groups(view):
        out.append(f'<div style="margin-top:6px">melds of {e(owner_text(owner))}:</div><div>')
        for m in melds:
            out.append(f'<span style="display:inline-block;margin:0 10px 4px 0" title="meld {m.get("index")}">'
                       f'<span style="font-size:10px;vertical-align:top">@{e(str(m.get("index", "?")))}</span>'
                       f'{cards_html(m.get("cards", []))}</span>')
        out.append("</div>")
    hand = list(view.get("hand", []) or [])
    out.append(f'<div style="margin-top:6px;color:#ffe678">hand of {seat_label(seat)} ({len(hand)}):</div>'
               f'<div>{cards_html(hand)}</div>')
    legal = view.get("legal_actions", []) or []
    if legal:
        out.append(f'<details style="margin-top:4px"><summary>{len(legal)} legal actions</summary>'
                   f'<div style="font-family:monospace">{e(", ".join(legal))}</div></details>')
    events = list(view.get("events", []) or [])[-6:]
    if events:
        out.append('<div style="margin-top:4px;color:#c8dcc8">' + "<br>".join(e(str(x)) for x in events) + "</div>")
    out.append("</div>")
    return "".join(out)
