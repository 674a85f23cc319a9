"""The legal-move search (CR-11, CR-12, CR-16, CR-17, CR-22 .. CR-28) and the legal actions.

Legality is exact: CR-16 ("the rest of the contract can still be laid"), CR-12 (deep takes) and
CR-28 (no dead ends) are decided by a depth-first search over the catalogue melds whose natural
cards are in hand (:func:`_next_melds`, :func:`_can_complete`; at most three
melds deep, memoised per remaining hand), with an exact-cover search for contract 7 laid all at
once (CR-17, :func:`_runs_take_hand`). Cheap necessary conditions prune first
(:func:`_could_lay`, the catalogue's ``coverable`` and ``runs_needed``,
:func:`surplus_copies`); where only the existence of a contract matters, the search uses the
minimal melds alone (see :func:`_candidates`).

Names: ``counts`` is a hand as a count array (index 52 = jokers), ``present`` the mask of its
natural cards (:func:`rummy_env.cards.mask_of_counts`), ``hand_size`` its number of cards;
``sets_left`` / ``runs_left`` the melds of the contract still to lay, ``contract_runs`` the
(suit, lo, hi) extents of the contract's runs chosen so far (CR-9), ``new_melds`` the catalogue
entries chosen so far, ``must`` the must-use card (CR-12) and ``banned`` the banned text (CR-26),
-1 for none.
"""
from __future__ import annotations

import numpy as np

from ... import melds as ml
from ...cards import BIT, JOKER, NUM_CARDS, RANK_OF, SUIT_OF
from .options import CONTRACT, DRAW, PLACE
from .tables import RANKS_IN, SUIT_MASK


def lay_off_all(shapes: list, c: int, copies: int) -> bool:
    """CR-28: can ``copies`` pieces of card ``c`` (``JOKER``: jokers, any declaration) be laid off
    one after another on the melds of ``shapes``?"""
    if copies == 0:
        return True
    for k, shape in enumerate(shapes):
        declarations = ml.layoff_cards(shape, True) if c == JOKER else ([c] if ml.fits(shape, c, True) else [])
        for x in declarations:
            rest = shapes[:k] + [ml.extend(shape, x, True)] + shapes[k + 1:]
            if lay_off_all(rest, c, copies - 1):
                return True
    return False


def surplus_copies(counts: list) -> int:
    """Copies of a natural card beyond the first (beyond the second for an ace): the runs of one
    contract never share a position (CR-9; an ace may be low in one, high in another), so under
    CR-17 all of them but one spare card cannot be laid."""
    naturals = counts[:NUM_CARDS]
    # every held card beyond one per held card, less an ace's second copy
    return (sum(naturals) - NUM_CARDS + naturals.count(0)
            - (naturals[0] >= 2) - (naturals[13] >= 2) - (naturals[26] >= 2) - (naturals[39] >= 2))


def _usable_jokers(g, counts: list) -> int:
    """Jokers in ``counts``, at most the pack's (the catalogue's tables go no further)."""
    return counts[52] if counts[52] < g.num_jokers else g.num_jokers


def _candidates(g, counts: list, present: int, sets: bool, runs: bool, minimal: int = 0) -> list:
    """Catalogue melds whose natural cards and jokers are in ``counts`` (sets, runs or both).

    ``minimal``: only the minimal melds (3-piece sets, ``min_run_length``-piece runs). Every
    meld holds a minimal one holding any given piece of it, with a smaller run extent (CR-9),
    so where only the existence of a whole contract matters (no banned card, CR-28, and not
    contract 7 laid all at once, CR-17) the minimal melds decide it exactly."""
    cat = g.catalogue
    jokers = _usable_jokers(g, counts)
    out: list = []
    if sets:
        table = cat.minimal_set_table if minimal else cat.set_table
        clubs = present & SUIT_MASK
        diamonds = present >> 13 & SUIT_MASK
        hearts = present >> 26 & SUIT_MASK
        spades = present >> 39
        if jokers == 0:  # ranks with 3+ suits
            ranks = (clubs & diamonds & (hearts | spades)) | (hearts & spades & (clubs | diamonds))
        elif jokers == 1:  # 2+ suits
            ranks = (clubs & (diamonds | hearts | spades)) | (diamonds & (hearts | spades)) | (hearts & spades)
        else:
            ranks = clubs | diamonds | hearts | spades
        for r in RANKS_IN[ranks]:
            suits = (clubs >> r & 1) | (diamonds >> r & 1) << 1 | (hearts >> r & 1) << 2 | (spades >> r & 1) << 3
            out.extend(table[(r * 16 + suits) * 3 + jokers])
    if runs:
        need = g.opts.min_run_length - jokers
        for s in range(4):
            ranks = (present >> (13 * s)) & SUIT_MASK
            if ranks and ranks.bit_count() >= need:
                # only cards in a window of min_run positions with enough of them can be in a run:
                # looking the runs up by those alone makes the memo hit far more often
                ranks = cat.coverable_in_suit(ranks, jokers)
                if ranks:
                    out.extend(cat.runs_for(s, ranks, 1 if counts[13 * s] >= 2 else 0, jokers, minimal))
    return out


def _candidates_with(g, counts: list, present: int, c: int, sets: bool, runs: bool,
                     minimal: int = 0) -> list:
    """The candidates (:func:`_candidates`) holding a natural ``c`` (``JOKER``: a joker)."""
    cat = g.catalogue
    if c == JOKER:
        return [i for i in _candidates(g, counts, present, sets, runs, minimal) if cat.jokers_in[i]]
    jokers = _usable_jokers(g, counts)
    out: list = []
    r = RANK_OF[c] - 1
    if sets:
        rank = present >> r
        table = cat.minimal_set_table if minimal else cat.set_table
        suits = (rank & 1) | (rank >> 12 & 2) | (rank >> 24 & 4) | (rank >> 36 & 8)
        out.extend(i for i in table[(r * 16 + suits) * 3 + jokers] if c in cat.naturals[i])
    if runs:
        s = SUIT_OF[c]
        ranks = (present >> (13 * s)) & SUIT_MASK
        if ranks.bit_count() >= g.opts.min_run_length - jokers:
            ranks = cat.coverable_in_suit(ranks, jokers)
            if ranks >> r & 1:
                out.extend(cat.runs_with(c, ranks, 1 if counts[13 * s] >= 2 else 0, jokers, minimal))
    return out


def _could_lay(g, counts: list, present: int, sets_left: int, runs_left: int) -> bool:
    """Cheap necessary condition for laying ``sets_left`` sets and ``runs_left`` runs: joker-free
    sets come from ranks with 3+ suits, joker-free runs from stretches of ``min_run_length``
    present positions, and every other meld holds a joker of its own (CR-13, CR-14)."""
    jokers_needed = 0
    if sets_left:
        clubs = present & SUIT_MASK
        diamonds = present >> 13 & SUIT_MASK
        hearts = present >> 26 & SUIT_MASK
        spades = present >> 39
        ranks = (clubs & diamonds & (hearts | spades)) | (hearts & spades & (clubs | diamonds))
        if g.multi_deck:
            natural_sets = 0
            for r in RANKS_IN[ranks]:
                natural_sets += (counts[r] + counts[13 + r] + counts[26 + r] + counts[39 + r]) // 3
        else:
            natural_sets = ranks.bit_count()
        if sets_left > natural_sets:
            jokers_needed = sets_left - natural_sets
            if jokers_needed > counts[52]:
                return False
    if runs_left:
        cat = g.catalogue
        natural_runs = 0
        for shift in (0, 13, 26, 39):
            ranks = (present >> shift) & SUIT_MASK
            if ranks:
                if g.multi_deck:
                    coverable = cat.coverable_in_suit(ranks, 0)
                    if coverable == ranks:
                        cards = sum(counts[shift:shift + 13])
                    else:
                        cards = sum(counts[shift + r] for r in RANKS_IN[coverable])
                    natural_runs += cards // g.opts.min_run_length
                else:
                    natural_runs += cat.joker_free_runs[ranks]
        if runs_left > natural_runs:
            jokers_needed += runs_left - natural_runs
    return jokers_needed <= counts[52]


def _run_fits_contract(g, i: int, contract_runs: list) -> bool:
    """CR-9 between run ``i`` and the contract's runs chosen so far."""
    suit, lo, hi = g.catalogue.run_extent[i]
    for other_suit, other_lo, other_hi in contract_runs:
        if other_suit == suit and (g.opts.contract_runs_distinct_suits
                                   or not (hi < other_lo - 1 or other_hi < lo - 1)):
            return False
    return True


def _remove_meld(g, counts: list, present: int, i: int) -> int:
    """Remove meld ``i``'s pieces from ``counts``; returns the new presence mask."""
    cat = g.catalogue
    naturals = cat.naturals[i]
    for c in naturals:
        counts[c] -= 1
    counts[52] -= cat.jokers_in[i]
    present &= ~cat.natural_mask[i]
    if g.multi_deck:
        for c in naturals:
            if counts[c]:
                present |= BIT[c]
    return present


def _return_meld(g, counts: list, i: int) -> None:
    """Undo :func:`_remove_meld`."""
    cat = g.catalogue
    for c in cat.naturals[i]:
        counts[c] += 1
    counts[52] += cat.jokers_in[i]


def _candidates_cover(g, candidates: list, present: int) -> bool:
    """CR-17 prune: three runs taking all cards but one need every card but one in some run."""
    covered = 0
    natural_mask = g.catalogue.natural_mask
    for i in candidates:
        covered |= natural_mask[i]
    return (present & ~covered).bit_count() <= 1


def _rest_is_playable(g, counts: list, hand_size: int, new_melds: list, banned: int) -> bool:
    """Whether the hand left after the whole contract is no dead end (CR-17, CR-28)."""
    if g.contract7_at_once:
        return hand_size == 0 or (hand_size == 1 and (banned < 0 or counts[banned] == 0))
    if hand_size == 0 or banned < 0 or counts[banned] != hand_size:
        return True
    shapes = [m[1] for m in g.melds] + [g.catalogue.shape[i] for i in new_melds]
    return lay_off_all(shapes, banned, hand_size)


def _can_complete(g, counts: list, present: int, hand_size: int, sets_left: int, runs_left: int,
                  contract_runs: list, new_melds: list, banned: int, memo: dict) -> bool:
    """Can ``sets_left`` more sets and ``runs_left`` more runs be laid (CR-9, CR-16, CR-17,
    CR-28)? Sets are chosen first, then runs; ``memo`` keeps the answer per remaining state
    (cards, melds still needed, the contract's runs; the new melds where the rest needs them)."""
    if g.contract7_at_once:
        return _runs_take_hand(g, counts, present, hand_size, runs_left, contract_runs, banned, True, memo)
    if sets_left == 0 and runs_left == 0:
        return _rest_is_playable(g, counts, hand_size, new_melds, banned)
    key = (bytes(counts), sets_left, runs_left, tuple(sorted(contract_runs)),
           tuple(sorted(new_melds)) if banned >= 0 else None)
    found = memo.get(key)
    if found is not None:
        return found
    cat = g.catalogue
    ok = False
    for i in _candidates(g, counts, present, sets_left > 0, sets_left == 0, banned < 0):
        if sets_left == 0 and not _run_fits_contract(g, i, contract_runs):
            continue
        present_after = _remove_meld(g, counts, present, i)
        new_melds.append(i)
        if sets_left:
            ok = _can_complete(g, counts, present_after, hand_size - cat.length[i], sets_left - 1,
                                    runs_left, contract_runs, new_melds, banned, memo)
        else:
            ok = _can_complete(g, counts, present_after, hand_size - cat.length[i], 0, runs_left - 1,
                                    contract_runs + [cat.run_extent[i]], new_melds, banned, memo)
        new_melds.pop()
        _return_meld(g, counts, i)
        if ok:
            break
    memo[key] = ok
    return ok


def _runs_take_hand(g, counts: list, present: int, hand_size: int, runs_left: int,
                    contract_runs: list, banned: int, spare: bool, memo: dict) -> bool:
    """CR-17: can ``runs_left`` runs take every card left but, if ``spare``, one discardable
    card? Exact cover: the lowest natural card left is in the next run or is the spare card."""
    if runs_left == 0:
        return hand_size == 0 or (spare and hand_size == 1 and (banned < 0 or counts[banned] == 0))
    if not present or hand_size > 14 * runs_left + spare:
        return False
    key = (bytes(counts), runs_left, tuple(sorted(contract_runs)), spare)
    found = memo.get(key)
    if found is not None:
        return found
    need, lone = g.catalogue.runs_needed(present, _usable_jokers(g, counts))
    if need - (1 if spare and lone else 0) > runs_left:
        memo[key] = False
        return False
    cat = g.catalogue
    lowest = (present & -present).bit_length() - 1
    ok = False
    for i in _candidates_with(g, counts, present, lowest, False, True):
        if not _run_fits_contract(g, i, contract_runs):
            continue
        present_after = _remove_meld(g, counts, present, i)
        ok = _runs_take_hand(g, counts, present_after, hand_size - cat.length[i], runs_left - 1,
                                  contract_runs + [cat.run_extent[i]], banned, spare, memo)
        _return_meld(g, counts, i)
        if ok:
            break
    if not ok and spare and lowest != banned:
        counts[lowest] -= 1
        ok = _runs_take_hand(g, counts, present if counts[lowest] else present & ~BIT[lowest],
                                  hand_size - 1, runs_left, contract_runs, banned, False, memo)
        counts[lowest] += 1
    memo[key] = ok
    return ok


def meld_uses(g, i: int, must: int) -> bool:
    """Whether catalogue meld ``i`` puts a card of the must-use text on the table (CR-12)."""
    return must in g.catalogue.naturals[i] if must < JOKER else g.catalogue.jokers_in[i] > 0


def _next_melds(g, counts: list, present: int, hand_size: int, sets_left: int, runs_left: int,
                contract_runs: list, must: int, banned: int, first_only: bool, new_melds: list,
                memo: dict | None = None) -> list:
    """The melds that can be laid next with the rest of the contract still layable after them
    (with the ``must`` card in one of the melds, CR-12). ``first_only``: stop at the first.

    Candidates differing only in joker places leave the same cards: a relaxed search (without
    their own CR-9 extent and with the banned card ignored, so it finds a superset) is run once
    per remainder (``memo``), and the exact one only where the relaxed one succeeds."""
    if memo is None:
        memo = {}
    cat = g.catalogue
    if g.contract7_at_once:
        if g.multi_deck and surplus_copies(counts) > 1:
            return []
        if (present & ~cat.coverable(present, _usable_jokers(g, counts))).bit_count() > 1:
            return []
        candidates = _candidates(g, counts, present, sets_left > 0, runs_left > 0)
        if not _candidates_cover(g, candidates, present):
            return []
    if first_only and must >= 0:  # existence: the meld with the must-use card may come first
        candidates = _candidates_with(g, counts, present, must, sets_left > 0, runs_left > 0,
                                           banned < 0 and not g.contract7_at_once)
    elif not g.contract7_at_once:
        candidates = _candidates(g, counts, present, sets_left > 0, runs_left > 0)
    out = []
    for i in candidates:
        if cat.is_set[i]:
            if not sets_left:
                continue
            sets_after, runs_after, runs_chosen = sets_left - 1, runs_left, contract_runs
        else:
            if not runs_left or not _run_fits_contract(g, i, contract_runs):
                continue
            sets_after, runs_after, runs_chosen = sets_left, runs_left - 1, contract_runs + [cat.run_extent[i]]
        must_after = -1 if must >= 0 and meld_uses(g, i, must) else must
        if must_after >= 0 and first_only:
            continue
        present_after = _remove_meld(g, counts, present, i)
        size_after = hand_size - cat.length[i]
        key = (bytes(counts), sets_after, runs_after, must_after, len(contract_runs))
        ok = memo.get(key)
        if ok is None:  # the relaxed search
            if must_after < 0:
                ok = _can_complete(g, counts, present_after, size_after, sets_after, runs_after,
                                        contract_runs, [], -1, memo)
            else:
                ok = bool(_next_melds(g, counts, present_after, size_after, sets_after, runs_after,
                                           contract_runs, must_after, -1, True, [], {}))
            memo[key] = ok
        if ok and (runs_chosen is not contract_runs or banned >= 0):  # the exact one
            new_melds.append(i)
            if must_after < 0:
                ok = _can_complete(g, counts, present_after, size_after, sets_after, runs_after,
                                        runs_chosen, new_melds, banned, memo)
            else:
                ok = bool(_next_melds(g, counts, present_after, size_after, sets_after, runs_after,
                                           runs_chosen, must_after, banned, True, new_melds, {}))
            new_melds.pop()
        _return_meld(g, counts, i)
        if ok:
            out.append(i)
            if first_only:
                return out
    return out


def _legal_melds(g) -> list:
    """CR-15/CR-16: every ``meld`` that keeps the rest of the contract layable."""
    seat = g.current_player
    if g.laid:
        contract_runs = [(sh.suit, sh.lo, sh.hi) for sh in (g.melds[k][1] for k in g.laid)
                         if sh.kind == ml.RUN]
        sets_left = g.need_sets - (len(g.laid) - len(contract_runs))
        runs_left = g.need_runs - len(contract_runs)
    else:
        contract_runs = []
        sets_left, runs_left = g.need_sets, g.need_runs
    if not _could_lay(g, g.hands[seat], g.present[seat], sets_left, runs_left):
        return []
    return _next_melds(g, list(g.hands[seat]), g.present[seat], g.hsize[seat], sets_left,
                            runs_left, contract_runs, g.must, g.banned, False, [])


# ------------------------------------------------------------------ lay-offs and swaps (CR-18 .. CR-28)
def _dead_after(g, banned_copies: int, hand_size: int, shapes: list) -> bool:
    """CR-28: the hand left (``hand_size`` cards, ``banned_copies`` of the banned text) is a dead end."""
    banned = g.banned
    return (banned >= 0 and hand_size > 0 and banned_copies == hand_size
            and not lay_off_all(shapes, banned, hand_size))


def _layoff_ok(g, k: int, piece: int, hand: list, hand_size: int, shapes: list) -> bool:
    """CR-28 for ``layoff piece @k`` (the piece fits and is held)."""
    banned = g.banned
    if banned < 0:
        return True
    held = JOKER if piece >= NUM_CARDS else piece
    banned_left = hand[banned] - (1 if held == banned else 0)
    if hand_size - 1 == 0 or banned_left != hand_size - 1:
        return True
    after = list(shapes)
    after[k] = ml.extend(after[k], piece % NUM_CARDS, True)
    return lay_off_all(after, banned, hand_size - 1)


def _swap_ok(g, c: int, hand: list, hand_size: int) -> bool:
    """CR-22/CR-23/CR-28: a ``swap c`` leaves a legal lay-off of the freed joker."""
    shapes = [m[1] for m in g.melds]
    after = list(hand)
    after[c] -= 1
    after[52] += 1
    banned = g.banned
    if banned >= 0 and _dead_after(g, after[banned], hand_size, shapes):
        return False
    for k, m in enumerate(g.melds):
        for x in m[3]:
            if _layoff_ok(g, k, NUM_CARDS + x, after, hand_size, shapes):
                return True
    return False


# ------------------------------------------------------------------ legal actions
def legal_actions(g) -> list:
    """Legal action ids of ``current_player`` (unsorted)."""
    if g.done:
        return []
    seat = g.current_player
    hand = g.hands[seat]
    hand_size = g.hsize[seat]
    out = []
    if g.phase == DRAW:
        pile = g.pile
        if g.stock or len(pile) >= 2:
            out.append(0)
        top = pile[-1]
        if not g.down[seat] or hand[top] + 1 != hand_size + 1 or \
                lay_off_all([m[1] for m in g.melds], top, hand_size + 1):
            out.append(1)
        if g.opts.deep_discard and len(pile) >= 2:
            out.extend(_deep_takes(g, seat))
        return out
    if g.phase == CONTRACT:
        return [g.A_MELD + i for i in _legal_melds(g)]
    banned = g.banned
    free = banned < 0 or hand[banned] < hand_size - 1  # no lay-off can leave only banned cards (CR-28)
    shapes = None if free else [m[1] for m in g.melds]
    if g.phase == PLACE:
        first_layoff = g.A_LAY
        c = g.must
        if g.freed or c == JOKER:
            for k, m in enumerate(g.melds):
                for x in m[3]:
                    if free or _layoff_ok(g, k, NUM_CARDS + x, hand, hand_size, shapes):
                        out.append(first_layoff + 104 * k + NUM_CARDS + x)
            return out
        for k, m in enumerate(g.melds):
            if c in m[3] and (free or _layoff_ok(g, k, c, hand, hand_size, shapes)):
                out.append(first_layoff + 104 * k + c)
        if g.opts.joker_swap:
            for k, m in enumerate(g.melds):
                if c in m[4] and _swap_ok(g, c, hand, hand_size):
                    out.append(g.A_SWAP + 52 * k + c)
        return out
    # PLAY
    if g.down[seat]:
        if not (g.went_down and g.contract7_at_once):
            first_layoff = g.A_LAY
            holds_joker = hand[52] > 0
            present = g.present[seat]
            for k, m in enumerate(g.melds):
                first = first_layoff + 104 * k
                if free:
                    held = present & m[5]   # the natural cards in hand that fit
                    while held:
                        low = held & -held
                        out.append(first + low.bit_length() - 1)
                        held ^= low
                    if holds_joker:
                        out.extend([first + NUM_CARDS + x for x in m[3]])
                    continue
                for x in m[3]:
                    if hand[x] and _layoff_ok(g, k, x, hand, hand_size, shapes):
                        out.append(first + x)
                    if holds_joker and _layoff_ok(g, k, NUM_CARDS + x, hand, hand_size, shapes):
                        out.append(first + NUM_CARDS + x)
            if g.opts.joker_swap and not g.went_down:
                for k, m in enumerate(g.melds):
                    for x in m[4]:
                        if hand[x] and _swap_ok(g, x, hand, hand_size):
                            out.append(g.A_SWAP + 52 * k + x)
    else:
        out.extend([g.A_MELD + i for i in _legal_melds(g)])
    present = g.present[seat]
    if 0 <= banned < NUM_CARDS:
        present &= ~BIT[banned]
    for s, ids in enumerate(g._discard_ids):
        ranks = (present >> (13 * s)) & SUIT_MASK
        if ranks:
            out.extend(ids[ranks])
    if hand[JOKER] and banned != JOKER:
        out.append(g.A_DISC + JOKER)
    return out


def _deep_takes(g, seat: int) -> list:
    """CR-11/CR-12: the legal ``take discard K``, K >= 2."""
    hand = g.hands[seat]
    hand_size = g.hsize[seat]
    pile = g.pile
    out = []
    if g.down[seat]:  # CR-12: the must-use card can be laid off or swapped in
        fits = swappable = 0   # masks of the cards that fit a meld and that a joker stands for
        for m in g.melds:
            fits |= m[5]
            for x in m[4]:
                swappable |= BIT[x]
        if fits:
            fits |= 1 << JOKER   # a joker fits wherever a card does
        if not g.opts.joker_swap:
            swappable = 0
        for depth in range(2, len(pile) + 1):
            c = pile[-depth]
            if fits >> c & 1:
                out.append(depth)
            elif swappable >> c & 1:
                after = list(hand)
                for taken in pile[-depth:]:
                    after[taken] += 1
                if _swap_ok(g, c, after, hand_size + depth):
                    out.append(depth)
        return out
    cat = g.catalogue
    at_once = g.contract7_at_once
    sets_left, runs_left = g.need_sets, g.need_runs
    counts = list(hand)
    with_pile = g.present[seat]
    for c in pile:
        counts[c] += 1
        if c < NUM_CARDS:
            with_pile |= BIT[c]
    # the contract must be layable with the whole pile taken: _could_lay only gains from more cards
    if not _could_lay(g, counts, with_pile, sets_left, runs_left):
        return out
    if at_once:  # CR-17: all but one card of the hand must fit runs, even with the whole pile
        jokers = min(counts[52], g.num_jokers)
        if (g.present[seat] & ~cat.coverable(with_pile, jokers)).bit_count() > 1:
            return out
    counts = list(hand)
    counts[pile[-1]] += 1
    present = g.present[seat] | (BIT[pile[-1]] if pile[-1] < NUM_CARDS else 0)
    surplus = surplus_copies(counts) if at_once and g.multi_deck else 0
    layable = False  # _could_lay so far (once true, true for every deeper take)
    num_jokers = g.num_jokers
    jokers = counts[52] if counts[52] < num_jokers else num_jokers
    for depth in range(2, len(pile) + 1):
        if at_once and hand_size + depth > 43:  # CR-17: three runs hold at most 42 cards
            break
        c = pile[-depth]
        counts[c] += 1
        if g.multi_deck and c < NUM_CARDS and counts[c] > (2 if c % 13 == 0 else 1):
            surplus += 1
            if at_once and surplus > 1:  # CR-9, CR-17: and taking more only adds copies
                break
        if c == JOKER:
            jokers = counts[52] if counts[52] < num_jokers else num_jokers
            layable = layable or _could_lay(g, counts, present, sets_left, runs_left)
            if layable and _next_melds(g, counts, present, hand_size + depth, sets_left, runs_left, [], c, -1,
                                       True, []):
                out.append(depth)
            continue
        present |= BIT[c]
        if at_once:
            # every card but one goes into a run (CR-17): the taken ones too
            if (present & ~cat.coverable(present, jokers)).bit_count() > 1:
                continue
            need, lone = cat.runs_needed(present, jokers)
            if need - lone > runs_left:
                continue
        r = RANK_OF[c] - 1
        possible = False
        if sets_left:  # a set holding c: 3 suits of its rank, jokers included
            rank = present >> r
            possible = (rank & 1) + (rank >> 13 & 1) + (rank >> 26 & 1) + (rank >> 39 & 1) + jokers >= 3
        if runs_left and not possible:  # a run holding c: a window of min_run positions around it
            ranks = (present >> (13 * SUIT_OF[c])) & SUIT_MASK
            possible = cat.coverable_in_suit(ranks, jokers) >> r & 1
        if possible:
            layable = layable or _could_lay(g, counts, present, sets_left, runs_left)
            if layable and _next_melds(g, counts, present, hand_size + depth, sets_left, runs_left, [], c, -1,
                                       True, []):
                out.append(depth)
    return out


def legal_mask(g) -> np.ndarray:
    """int8 mask over all actions for ``current_player``."""
    buf = bytearray(g.num_actions)
    if not g.done:
        for a in legal_actions(g):
            buf[a] = 1
    return np.frombuffer(buf, dtype=np.int8)

