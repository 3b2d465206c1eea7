"""``GET /v1/players/me/events``: one stream of everything that concerns a player, across games.

A player's events are logged (``service.identity.store``: the newest ``EVENTS_KEPT``, each with
an id) and wake the player's streams on every instance (``service.players.news``). A stream:

1. notes where the log ends (or resumes after ``Last-Event-ID``) before it answers, then
   subscribes, so that an event logged in between is read from the log, not missed;
2. first sends what is pending, with no id: a ``your_turn`` for every game that waits for the
   player (so a program that reconnects, or whose events were trimmed away, misses nothing);
3. then every logged event after its starting point, each with its id, and each new one as it
   comes; a keep-alive while idle.

It ends after its lifetime (``STREAM_LIFETIME``, so that streams spread over the instances) or
``idle_timeout``: a client reconnects with the last id it read (``Last-Event-ID``, as an
EventSource does by itself) and loses nothing the log still holds.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass
from typing import Final

import msgspec

from service.identity.store import PRESENCE_SECONDS, event_position, player_channel
from service.players import challenges, lifecycle
from service.players.deps import PlayerServices
from service.players.event_wire import PlayerEvent
from service.storage.game_store import StoreUnavailable
from service.streams.events import keep_alive_until_woken, wake_on_notices

_encoder: Final = msgspec.json.Encoder()
_decoder: Final = msgspec.json.Decoder(PlayerEvent)
_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Sent:
    """One event of the stream: its id (None for what is pending) and its data."""

    event_id: str | None
    event: PlayerEvent


KEEP_ALIVE: Final = None
"""What the stream yields while idle (a comment in SSE, an empty line in NDJSON)."""


async def start_of(
    services: PlayerServices, player_id: str, last_event_id: str | None
) -> tuple[int, int]:
    """Where a stream starts in the player's log: after ``Last-Event-ID``, or (without one, or
    with one that is no id) after the log's last event, read before the stream subscribes."""
    resume = None if last_event_id is None else event_position(last_event_id.strip())
    if resume is not None:
        return resume
    return await services.players.last_event(player_id) or (0, 0)


async def player_events(  # noqa: PLR0913  # the stream's parts, each passed on
    services: PlayerServices,
    player_id: str,
    after: tuple[int, int],
    *,
    idle_timeout: float,
    lifetime: float,
    bot: bool = False,
) -> AsyncIterator[Sent | None]:
    """The player's stream from ``after`` (``start_of``): ``Sent`` events, ``KEEP_ALIVE``
    while idle; a ``bot`` player is online while it is open (``GET /v1/bots/online``). A store
    out of reach once the stream has begun ends it, as an idle stream ends: the client
    reconnects."""
    ends_at = time.monotonic() + lifetime
    events = _player_events(services, player_id, after, idle_timeout, ends_at)
    presence = Presence(services, player_id) if bot else None
    async with contextlib.aclosing(events):
        try:
            if presence is not None:
                await presence.renewed()
            async for sent in events:
                yield sent
                if presence is not None:
                    await presence.renewed()
        except StoreUnavailable as error:
            _log.warning("stream of player %s ended: %s", player_id, error)
        finally:
            if presence is not None:
                await presence.ended()


class Presence:
    """A bot's open stream, that keeps it online: renewed as the stream goes (each event or
    keep-alive), at most once every half ``PRESENCE_SECONDS``; ended with the stream. An
    instance that dies leaves it to lapse."""

    def __init__(self, services: PlayerServices, player_id: str) -> None:
        self._services = services
        self._player_id = player_id
        self._stream_id = secrets.token_hex(8)
        self._until = 0.0

    async def renewed(self) -> None:
        now = time.time()
        if now < self._until - PRESENCE_SECONDS / 2:
            return
        self._until = now + PRESENCE_SECONDS
        await self._services.players.present(self._player_id, self._stream_id, self._until)

    async def ended(self) -> None:
        with contextlib.suppress(StoreUnavailable):  # it lapses by itself
            await self._services.players.absent(self._player_id, self._stream_id)


async def _player_events(
    services: PlayerServices,
    player_id: str,
    after: tuple[int, int],
    idle_timeout: float,
    ends_at: float,
) -> AsyncGenerator[Sent | None, None]:
    async with services.channels.start_subscription([player_channel(player_id)]) as subscriber:
        woken = asyncio.Event()
        listener = asyncio.create_task(wake_on_notices(subscriber.iter_events(), woken))
        try:
            for event in await pending(services, player_id):
                yield Sent(None, event)
            while True:
                # Read from the log: what came between the start and the subscription too.
                for event_id, data in await services.players.events_after(player_id, after):
                    yield Sent(event_id, _decoder.decode(data))
                    after = event_position(event_id) or after
                async for _ in keep_alive_until_woken(woken, idle_timeout, ends_at):
                    yield KEEP_ALIVE
                if not woken.is_set():
                    return
                woken.clear()
        finally:
            listener.cancel()
            # Done before the subscription ends, which closes the notices it iterates.
            with contextlib.suppress(asyncio.CancelledError):
                await listener


async def pending(services: PlayerServices, player_id: str) -> list[PlayerEvent]:
    """A ``challenge`` for each challenge to the player that stands, and a ``your_turn`` for
    each game that waits for the player now (of the newest games in the player's list)."""
    page = await lifecycle.my_games(services, player_id, "playing", None, lifecycle.GAMES_PAGE_MAX)
    return [
        *await challenges.pending(services, player_id),
        *(
            PlayerEvent("your_turn", game.game_id, game.seat, game.version, deadline=game.deadline)
            for game in page.games
            if game.my_turn
        ),
    ]


def sse_frame(sent: Sent | None) -> bytes:
    """A server-sent event: its type the event's, its data the event's JSON, its id the log's.
    Lines end in LF alone: a CR LF split between two reads is two line ends to some readers
    (httpx's line splitter, under httpx-sse), which then see an event with no data."""
    if sent is None:
        return b": keep-alive\n\n"
    head = b"" if sent.event_id is None else b"id: %s\n" % sent.event_id.encode()
    return head + b"event: %s\ndata: %s\n\n" % (
        sent.event.type.encode(),
        _encoder.encode(sent.event),
    )


def ndjson_line(sent: Sent | None) -> bytes:
    """One JSON object a line, with its ``id`` when logged; an empty line while idle."""
    if sent is None:
        return b"\n"
    event = _encoder.encode(sent.event)
    if sent.event_id is None:
        return event + b"\n"
    return b'{"id":"%s",%s\n' % (sent.event_id.encode(), event[1:])
