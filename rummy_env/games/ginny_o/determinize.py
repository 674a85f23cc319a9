"""Copies of a Ginny-O game for search: :func:`clone` and :func:`determinize`, the re-deal that
keeps what a seat knows (GO-7), with what each seat knows of the tiles it put into the box (GO-11,
GO-34).

A seat that returns or exchanges tiles knows they went into the box. With ``reshuffle_on_return``
(GO-14) the box is mixed, so each later draw by another seat takes a uniformly random box tile:
the returned tiles lie in the box or among the tiles the other seats have drawn since (at most as
many per seat as it drew since, and never more than its rack holds). The re-deal of
:func:`deal_unseen` puts them uniformly among exactly those places, which is where a random draw
puts them. Without mixing the box is a queue: a returned tile keeps its place at the bottom until
it is drawn; the seat that drew it is not followed further (the tile then counts as unseen).

The seat also sees the tiles it draws, and tiles placed on the board are public: such a tile of
the kind it returned is taken to be the returned one (exact with one set of tiles; with two sets
the other copy may have been the one drawn or placed).

The unseen tiles of one position for one seat are worked out once and kept in a module-level
cache holding the last ones (their game held weakly, its position and the seat), for a search
that determinizes one position many times; nothing is written on the game.
"""
from __future__ import annotations

import weakref
from typing import NamedTuple

import numpy as np

from ...rng import copy_rng, fresh_rng
from .moves import legal_mask, legal_plays


class ReturnedTiles(NamedTuple):
    """Tiles one seat put into the box in one turn that it still knows about."""

    tiles: tuple[int, ...]
    draws_then: tuple[int, ...]
    """Tiles each seat had drawn from the box when these went in (mixed box)."""
    placed_since: tuple[int, ...]
    """Of these tiles, how many each seat has placed on the board since (mixed box)."""
    places: tuple[int, ...]
    """Each tile's place in the box counted from the first tile ever drawn (unmixed box)."""


def draws_allowed(returned: ReturnedTiles, draws: list[int], rack_size: int, seat: int) -> int:
    """How many of ``seat``'s rack tiles may be tiles of ``returned`` (mixed box): those it drew
    since, less those it placed since, and no more than its rack holds."""
    return min(draws[seat] - returned.draws_then[seat] - returned.placed_since[seat], rack_size)


def add_returned(game, seat: int, tiles: list[int]) -> None:
    """``seat`` puts ``tiles`` into the box (before they join it); known from now on."""
    kept = []
    for returned in game.returned[seat]:
        if game.options.reshuffle_on_return and all(
                draws_allowed(returned, game.draws, sum(game.racks[q]), q) >= sum(game.racks[q])
                for q in range(game.num_players) if q != seat):
            continue  # anywhere unseen: nothing known any more
        kept.append(returned)
    zeros = (0,) * game.num_players
    first_place = sum(game.draws) + len(game.box)
    kept.append(ReturnedTiles(tuple(tiles), tuple(game.draws), zeros,
                              tuple(range(first_place, first_place + len(tiles)))))
    game.returned[seat] = tuple(kept)


def _without(returned: tuple[ReturnedTiles, ...], k: int, tile: int, placed_by: int | None = None):
    """``returned`` with one ``tile`` taken from its entry ``k`` (the entry dropped once empty)."""
    entry = returned[k]
    i = entry.tiles.index(tile)
    tiles = entry.tiles[:i] + entry.tiles[i + 1:]
    if not tiles:
        return returned[:k] + returned[k + 1:]
    placed = entry.placed_since
    if placed_by is not None:
        placed = placed[:placed_by] + (placed[placed_by] + 1,) + placed[placed_by + 1:]
    entry = entry._replace(tiles=tiles, placed_since=placed, places=entry.places[:i] + entry.places[i + 1:])
    return returned[:k] + (entry,) + returned[k + 1:]


def note_draw(game, seat: int, tile: int) -> None:
    """``seat`` draws ``tile`` from the top of the box (GO-10, GO-12, GO-34)."""
    if game.options.reshuffle_on_return:
        own = game.returned[seat]
        for k in range(len(own) - 1, -1, -1):
            if tile in own[k].tiles:
                game.returned[seat] = _without(own, k, tile)
                break
    else:
        place = sum(game.draws)
        for s in range(game.num_players):
            known = game.returned[s]
            for k, entry in enumerate(known):
                if place in entry.places:
                    game.returned[s] = _without(known, k, entry.tiles[entry.places.index(place)])
                    break
    game.draws[seat] += 1


def note_placement(game, seat: int, tile: int) -> None:
    """``seat`` places ``tile`` from its rack on the board, where every seat sees it (mixed box)."""
    if not game.options.reshuffle_on_return:
        return
    rack_size = sum(game.racks[seat])
    for s in range(game.num_players):
        known = game.returned[s]
        if s == seat or not known:
            continue
        for k in range(len(known) - 1, -1, -1):
            if tile in known[k].tiles and draws_allowed(known[k], game.draws, rack_size, seat) > 0:
                game.returned[s] = _without(known, k, tile, placed_by=seat)
                break


class KnownPlaces(NamedTuple):
    """Where the tiles a seat returned may lie in one position (:func:`known_places`), for
    :func:`deal_unseen`: ``chain`` (mixed box) holds, per returned entry that still restricts
    anything, smallest first, how many of each other rack's tiles may be its tiles and the tiles;
    ``queued`` (unmixed box) each tile's place counted from the top of the box; ``left`` the
    unseen pool less these tiles; ``box_size`` the size of the box; ``mixed``: whether the box
    is mixed on a return (GO-14)."""

    chain: list[tuple[list[tuple[int, int]], tuple[int, ...]]]
    queued: list[tuple[int, int]]
    left: list[int]
    box_size: int
    mixed: bool


def known_places(game, seat: int, pool: list[int], sizes: dict[int, int]) -> KnownPlaces | None:
    """What ``seat`` knows of where the tiles it returned lie (None when nothing), with the
    unseen ``pool`` (sorted) and the other racks' ``sizes``."""
    known = game.returned[seat]
    if not known:
        return None
    left = list(pool)
    chain = []
    queued = []
    mixed = game.options.reshuffle_on_return
    if mixed:
        for returned in known:
            counts = [(q, draws_allowed(returned, game.draws, size, q)) for q, size in sizes.items()]
            if any(count < sizes[q] for q, count in counts):   # else anywhere unseen: nothing to keep
                chain.append((sum(count for _, count in counts), counts, returned.tiles))
        chain.sort(key=lambda item: item[0])   # smallest first: the places nest, so this is uniform
        for _, _, tiles in chain:
            for tile in tiles:
                left.remove(tile)
    else:
        first_place = sum(game.draws)
        for returned in known:
            for tile, place in zip(returned.tiles, returned.places):
                queued.append((place - first_place, tile))
                left.remove(tile)
    return KnownPlaces([(counts, tiles) for _, counts, tiles in chain], queued, left, len(game.box), mixed)


def deal_unseen(known: KnownPlaces | None, pool: list[int], sizes: dict[int, int],
                rng: np.random.Generator) -> tuple[dict[int, list[int]], list[int]]:
    """Deal the unseen ``pool`` (sorted) uniformly over the other racks (``sizes``) and the box,
    keeping what the seat knows of the tiles it returned (``known``, from :func:`known_places`):
    each other rack's tiles (its first places hold the tiles it drew last) and the box, top first."""
    if known is None:
        order = rng.permutation(len(pool)).tolist()
        racks, dealt = {}, 0
        for q, size in sizes.items():
            racks[q] = [pool[i] for i in order[dealt:dealt + size]]
            dealt += size
        return racks, [pool[i] for i in order[dealt:]]
    mixed = known.mixed
    places: dict[int, list] = {q: [None] * size for q, size in sizes.items()}
    in_box: list[tuple[float, int]] = list(known.queued)
    if mixed:
        uniforms = iter(rng.random(2 * sum(len(tiles) for _, tiles in known.chain)).tolist())
        box_free = known.box_size
        taken = dict.fromkeys(sizes, 0)
        for counts, tiles in known.chain:
            free = [(q, count - taken[q]) for q, count in counts if count > taken[q]]
            rack_free = sum(k for _, k in free)
            for tile in tiles:
                i = int(next(uniforms) * (box_free + rack_free))
                if i < box_free:
                    box_free -= 1
                    in_box.append((next(uniforms), tile))
                else:
                    i -= box_free
                    for n, (q, k) in enumerate(free):
                        if i < k:
                            break
                        i -= k
                    count = k + taken[q]
                    places[q][[j for j in range(count) if places[q][j] is None][i]] = tile
                    taken[q] += 1
                    free[n] = (q, k - 1)
                    rack_free -= 1
    left = known.left
    filler = iter([left[i] for i in rng.permutation(len(left)).tolist()])
    racks = {q: [tile if tile is not None else next(filler) for tile in rack] for q, rack in places.items()}
    box = list(filler)
    for place, tile in sorted(in_box):   # ascending places; a mixed box's at uniformly random ones
        box.insert(place if not mixed else int(place * (len(box) + 1)), tile)
    return racks, box


def clone(game):
    """An independent copy in the same state, copied directly. The caches stay shared: the
    mask, plays and observations are replaced, never changed, on a step, and the play search
    is keyed by board and rack."""
    g = object.__new__(type(game))
    g.__dict__.update(game.__dict__)
    g.rng = copy_rng(game.rng)
    for name in ("board", "group", "group_start", "box", "scores", "placed", "chosen", "events", "history"):
        setattr(g, name, list(getattr(game, name)))
    g.racks = [list(r) for r in game.racks]
    g.draws = list(game.draws)
    g.returned = list(game.returned)
    g.final_scores = None if game.final_scores is None else list(game.final_scores)
    g._observations = dict(game._observations)
    return g


def unseen_tiles(game, seat: int) -> tuple[list[int], dict[int, int]]:
    """The tiles ``seat`` cannot place (the box and the other racks), sorted so that a deal
    depends only on what the seat has seen, not on where the tiles are; each other rack's size."""
    sizes = {q: sum(game.racks[q]) for q in range(game.num_players) if q != seat}
    pool = list(game.box)
    for q in sizes:
        rack = game.racks[q]
        for t in range(53):
            if rack[t]:
                pool += [t] * rack[t]
    pool.sort()
    return pool, sizes


_LAST_UNSEEN: list = [None, None, None]
"""The last unseen tiles worked out: [a weak reference to their game, the game's position and
the seat, (unseen pool, other rack sizes, :class:`KnownPlaces`)]."""


def _unseen(game, seat: int) -> tuple:
    """The unseen pool, other rack sizes and known places of ``game``'s position for ``seat``,
    kept for the next call. A turn ends with ``turns`` raised; within one, a draw or exchange
    changes the phase, box or choices and a placement the tiles placed, so no two positions of
    one game share the key."""
    ref, key, unseen = _LAST_UNSEEN
    here = (game.turns, game.phase, len(game.placed), len(game.chosen), len(game.box), seat)
    if ref is None or ref() is not game or key != here:
        pool, sizes = unseen_tiles(game, seat)
        unseen = pool, sizes, known_places(game, seat, pool, sizes)
        _LAST_UNSEEN[:] = weakref.ref(game), here, unseen
    return unseen


def determinize(game, seat: int, rng: np.random.Generator):
    """An independent copy in which everything ``seat`` cannot see (GO-7) is dealt again
    uniformly at random: the other racks and the box over the same slots (rack sizes and the
    box size kept; tiles placed this turn are public and stay), the tiles ``seat`` returned or
    exchanged only where they can be (above). When another seat is to act, the tiles it drew or
    chose to exchange are private too: they become tiles of its new rack (the drawn tile one it
    may have drawn, the chosen ones a random subset); once it has placed tiles, which it can
    complete into a legal play (GO-43), deals in which it cannot are rejected and drawn again.
    The copy's generator is drawn from ``rng``; ``game`` is left unchanged."""
    pool, sizes, known = _unseen(game, seat)
    g = clone(game)
    g.rng = fresh_rng(rng)
    acting = game.current_player
    started = acting != seat and bool(game.placed) and not game.done
    while True:
        racks, g.box = deal_unseen(known, pool, sizes, rng)
        for q, tiles in racks.items():
            rack = [0] * 53
            for t in tiles:
                rack[t] += 1
            g.racks[q] = rack
            if q == acting:
                if game.chosen and game.returned[seat]:   # the rack's first places are not random then
                    g.chosen = [tiles[i] for i in rng.permutation(len(tiles))[:len(game.chosen)].tolist()]
                elif game.chosen:
                    g.chosen = tiles[:len(game.chosen)]
                if game.drew >= 0 and tiles:
                    g.drew = tiles[0]
        if acting == seat or game.done:   # the acting rack is the seat's own: the same moves
            break
        g._plays = legal_plays(g)
        g._mask = legal_mask(g, g._plays)
        if not started or g._mask.any():
            break
    g._observations = {}
    return g
