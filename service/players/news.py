"""What a game's commits tell its players (``service.games.bus``): each commit of a game with
players' seats may log an event for some of them (``PlayerEvent``), which wakes their streams on
every instance (``service.players.events``).

- ``game_start`` to every player when the game is dealt (version 0);
- ``your_turn`` to the player whose turn starts (its draw), or, in a speed game, to every
  player still in the round when a call opens (nobody has chosen yet);
- ``game_finish`` to every player when the game is over.

Logging is a task of its own (a bus subscriber must be quick and never raise), after the commit:
an instance that dies in between loses the event, but never what a player must do next, which a
stream sends first on every connection (the games on the player's turn).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Final

import msgspec
from litestar.channels import ChannelsPlugin

from engine.game.state import GameState
from service.games.bus import Committed, GameNews, Subscriber
from service.games.lifecycle import view_of
from service.games.records import GameRecord
from service.identity.store import PlayerStore, player_channel
from service.players.event_wire import PlayerEvent
from service.players.turns import deadline, waits_for
from service.storage.game_store import StoreUnavailable

_encoder: Final = msgspec.json.Encoder()
_log = logging.getLogger(__name__)


def events_of(game_id: str, record: GameRecord, state: GameState) -> list[tuple[str, PlayerEvent]]:
    """The events a commit leaving the game at ``state`` makes, each with its player."""
    seats = [(seat, player) for seat, player in enumerate(record.players) if player is not None]
    if not seats:
        return []
    view = view_of(game_id, state, None, record)
    version = view.version
    if view.status == "finished":
        return [
            (player, PlayerEvent("game_finish", game_id, seat, version, winners=view.winners))
            for seat, player in seats
        ]
    made = []
    if version == 0:
        made += [
            (player, PlayerEvent("game_start", game_id, seat, version)) for seat, player in seats
        ]
    turn_starts = not view.call.chosen if view.call is not None else view.phase == "draw"
    if turn_starts:
        due = deadline(view, record)
        made += [
            (player, PlayerEvent("your_turn", game_id, seat, version, deadline=due))
            for seat, player in seats
            if waits_for(view, seat)
        ]
    return made


def players_told(players: PlayerStore, channels: ChannelsPlugin) -> Subscriber:
    """The subscriber that logs the players' events of each commit."""
    logging_tasks: set[asyncio.Task[None]] = set()

    def heard(news: GameNews) -> None:
        if not isinstance(news, Committed) or not news.record.players:
            return
        made = events_of(news.game_id, news.record, news.state)
        if made:
            task = asyncio.create_task(log_events(players, channels, made))
            logging_tasks.add(task)  # held until done: the loop keeps only weak references
            task.add_done_callback(logging_tasks.discard)

    return heard


async def log_events(
    players: PlayerStore, channels: ChannelsPlugin, made: list[tuple[str, PlayerEvent]]
) -> None:
    """Log each event for its player and wake the player's streams; an event the store cannot
    take is noted in the log and left."""
    for player_id, event in made:
        try:
            await players.log_event(player_id, _encoder.encode(event))
        except StoreUnavailable:
            _log.warning(
                "player %s: event %s not logged (store unavailable)", player_id, event.type
            )
            continue
        if not players.announces_events:
            channels.publish(b"", player_channel(player_id))
