"""A rated game's end moves its players' ratings, once (``service.ratings.store``): a subscriber
of the games' bus (``service.games.bus``) hears the commit that finishes a rated game and
applies its result in a task of its own.

Applying reads the seats' entries, computes their new ones (``service.ratings.model``) and
asks the store to write them all with the game's marker in one step, which refuses a game
applied before (another instance saw the finish too: nothing more to do) and entries changed
since they were read (a game of the same players applied meanwhile: read and compute again).

An instance that dies after a game's finishing commit and before that step leaves the game
unrated for now: the next load of the finished game on any instance (the bus's ``Loaded``)
applies it, as the marker says whether it was.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from typing import Final

from engine.game.state import GameState
from service.games.bus import Committed, GameNews, Loaded, Subscriber
from service.games.records import GameRecord
from service.identity.store import PlayerStore
from service.ratings import model
from service.ratings.model import GameResult
from service.ratings.store import Applied, Change, RatingStore
from service.storage.game_store import StoreUnavailable

KNOWN_RATED: Final = 4096
"""Finished rated games this process knows are applied, so loading them again asks nothing."""
_log = logging.getLogger(__name__)


async def apply_result(ratings: RatingStore, result: GameResult) -> Applied:
    """Apply a game's result exactly once: ``applied`` now, or ``done`` before."""
    ids = [seated.player_id for seated in result.seats]
    encoded = model.encode(result)
    while True:
        found = await ratings.entries(result.key, ids)
        before = [None if data is None else model.decode_entry(data) for data in found]
        after = model.rated(result, before)
        points = model.points_of(result, after)
        changes = [
            Change(
                player_id,
                data,
                model.encode(entry),
                entry.rating,
                entry.provisional,
                model.encode(point),
            )
            for player_id, data, entry, point in zip(ids, found, after, points, strict=True)
        ]
        outcome = await ratings.apply(result.key, result.game_id, changes, encoded)
        if outcome != "stale":
            return outcome


async def result_for(
    players: PlayerStore, game_id: str, record: GameRecord, state: GameState
) -> GameResult | None:
    """The result of a finished rated game (each seat's player read for its ``bot`` mark);
    None for a game that changes no rating."""
    if not record.rated or state.status != "finished" or model.rating_key(state.rules) is None:
        return None
    profiles = await asyncio.gather(
        *(
            players.get(player_id)
            for player_id in record.rated
            if model.built_in_player(player_id) is None
        )
    )
    programs = {p.player_id for p in profiles if p is not None and p.bot}
    bots = [
        model.built_in_player(player_id) is not None or player_id in programs
        for player_id in record.rated
    ]
    return model.result_of(game_id, record, state, bots)


def ratings_told(ratings: RatingStore, players: PlayerStore) -> Subscriber:
    """The subscriber that applies each rated game's result when it finishes (and when a
    finished one is loaded that this process does not know is applied)."""
    tasks: set[asyncio.Task[None]] = set()
    known: OrderedDict[str, None] = OrderedDict()

    async def rate(game_id: str, record: GameRecord, state: GameState, check: bool) -> None:
        try:
            result = await result_for(players, game_id, record, state)
            if result is not None and (
                not check or not await ratings.is_applied(result.key, game_id)
            ):
                await apply_result(ratings, result)
        except StoreUnavailable:
            _log.warning("game %s: ratings not updated (store unavailable)", game_id)
            return
        known[game_id] = None
        if len(known) > KNOWN_RATED:
            known.popitem(last=False)

    def heard(news: GameNews) -> None:
        record, state = news.record, news.state
        if not record.rated or state.status != "finished" or news.game_id in known:
            return
        check = isinstance(news, Loaded)
        assert check or isinstance(news, Committed)
        task = asyncio.create_task(rate(news.game_id, record, state, check))
        tasks.add(task)  # held until done: the loop keeps only weak references
        task.add_done_callback(tasks.discard)

    return heard
