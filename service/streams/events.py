"""``GET /v1/games/{game_id}/events``: an event per applied action, as the stream's viewer sees it.

Only version numbers travel on a game's channel (nothing secret, and nothing that could go stale):
a notice just wakes the stream, which loads the game and renders every version it has not sent
yet, for its own viewer. The stream keeps its own copy of the game at the last version it sent and
steps it forward with the engine, so each event carries the view exactly as it was right after
that action, even when several actions land between two wake-ups or the client resumes from an
old ``Last-Event-ID``. It does so a slice of versions at a time, each slice encoded once and
shared by every stream of the game and viewer that reaches it (``shared_slices``): a crowd
resuming one long game costs about what one resume does.

Events: ``snapshot`` (first, unless resuming: the current view), then ``action`` per version
(``GameEvent``); a ``snapshot`` again, with the same id, when a seat is handed to a bot without
an action (its player left). The event id is the version. An idle stream sends a
``: keep-alive`` comment every ``HEARTBEAT_SECONDS``. The stream ends with a ``finished`` event
(``GameFinishedEvent``, its id the last version) when the game is over, or after
``idle_timeout`` seconds without an action, or once it has lived ``lifetime`` seconds, however
busy its game: an EventSource reconnects with ``Last-Event-ID`` (within ``RETRY_MS``), and a
load balancer may send it to another instance. Without a lifetime, the streams an instance took
over from one that died stayed with it, for as long as their games lasted: after every restart,
one instance carried most of them.

A table waiting for players sends a ``snapshot`` per change of its seats, with no event id: a
reconnection before the deal starts afresh, and the deal's snapshot (id 0) is never skipped.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
from collections.abc import AsyncGenerator, AsyncIterator, Iterator
from typing import Final

import msgspec
from litestar.response import ServerSentEventMessage

from engine import game
from engine.game.state import RECORD_CHUNK, GameState, Record
from service.games.lifecycle import LoadedGame, LoadedTable, load_any, load_game, view_of
from service.games.to_wire import log_entry_to_wire
from service.games.wire import GameView
from service.http.problems import GameNotFound
from service.storage.channels import channel_of
from service.storage.game_store import StoreUnavailable
from service.streams.deps import StreamServices
from service.streams.shared_slices import SharedSlices, Slice
from service.streams.wire import GameEvent, GameFinishedEvent

_encoder: Final = msgspec.json.Encoder()
_log = logging.getLogger(__name__)

STREAM_EVENTS: Final[tuple[tuple[str, type[msgspec.Struct], str], ...]] = (
    # (the SSE event type, the struct of its data, what it says): the stream names its events
    # from here, and the OpenAPI document describes each (service.app.document).
    (
        "snapshot",
        GameView,
        "The game as the viewer sees it now: first, unless resuming; while a table waits, one "
        "per change of its seats (no id), and the deal's (id 0).",
    ),
    ("action", GameEvent, "An applied action, and the view right after it; id: version."),
    ("finished", GameFinishedEvent, "The game is over: the stream's last event."),
)
_EVENT_OF: Final = {struct: event for event, struct, _ in STREAM_EVENTS}


def message(data: msgspec.Struct, version: int | None = None) -> ServerSentEventMessage:
    """The server-sent event of ``data``, of the type ``STREAM_EVENTS`` gives its struct."""
    return Encoded(data=_framed(data, version), event=_EVENT_OF[type(data)], id=version)


class Encoded(ServerSentEventMessage):
    """Events encoded already (``data``, the bytes of the wire), sent as they are: a slice of a
    catch-up is encoded once for every stream that takes it, and leaves in one write, not one
    per event (each write passes every middleware and the server)."""

    def encode(self) -> bytes:
        assert isinstance(self.data, bytes)
        return self.data


def _framed(data: msgspec.Struct, version: int | None) -> bytes:
    """The event's bytes on the wire: JSON from msgspec holds no line break (it escapes them in
    strings), so the data is one ``data:`` line as it is, where Litestar's encoder splits every
    event's data on a regular expression, a third of a catch-up's time. Lines end in LF alone,
    as the player's stream's: a CR LF split between two reads is two line ends to some readers,
    which then see an event with no data."""
    head = b"" if version is None else b"id: %d\n" % version
    return head + b"event: %s\ndata: %s\n\n" % (
        _EVENT_OF[type(data)].encode(),
        _encoder.encode(data),
    )


KEEP_ALIVE: Final = Encoded(data=b": keep-alive\n\n")
"""A comment, which an SSE reader skips: what an idle stream sends."""

RETRY_MS: Final = 1000
"""The reconnection delay a stream asks of an EventSource (its ``retry`` field), in place of the
browser's own (3 to 5 s): a stream ends once a minute or so (its lifetime), and reconnects."""

HEARTBEAT_SECONDS: float = 15.0
"""An idle stream sends a comment this often, so proxies (nginx cuts at 60 s by default) and
load balancers keep the connection open."""


def _snapshot(loaded: LoadedGame, seat: int | None) -> ServerSentEventMessage:
    return message(loaded.view(seat), loaded.state.version)


CATCH_UP_SLICE: Final = 64
"""Actions a stream replays or renders between two turns of the event loop: a long game's
catch-up (tens of thousands of actions) must not hold the loop from other requests, a slice
about 2 ms. Fewer, larger writes serve the other requests better than many small ones: with 32
streams resuming a 40,000-action game, slices of 16 put ``/healthz`` p99 at 230 to 360 ms, and
slices of 64 at 33 to 180 ms (``tests/benchmarks/bench_limits.py``, on two busy cores)."""


async def _state_at(newest: GameState, version: int) -> GameState:
    """The game as it was at ``version``, rebuilt from the newest state's shuffles and log, a
    slice of actions at a time."""
    state = game.replay(newest.players, newest.rules, newest.shuffle_record, ())
    # Replayed from the recorded shuffles, which hold the packs but not the seed: a seeded
    # game's views must still say so.
    state = dataclasses.replace(state, seed=newest.seed)
    for done, record in enumerate(_records(newest, 0, version), start=1):
        state = game.apply(state, record.seat, record.action)
        if done % CATCH_UP_SLICE == 0:
            await asyncio.sleep(0)
    return state


def _records(state: GameState, start: int, stop: int) -> Iterator[Record]:
    """The records of versions ``start + 1`` to ``stop``, straight from their chunks (every
    chunk but the last is full): ``GameState.log`` builds the whole log anew on each call."""
    first = start // RECORD_CHUNK
    skip = start - first * RECORD_CHUNK
    left = stop - start
    for chunk in state.records[first:]:
        for record in chunk[skip:]:
            if left <= 0:
                return
            yield record
            left -= 1
        skip = 0


def _catch_up(
    follower: GameState,
    newest: LoadedGame,
    seat: int | None,
    shown: tuple[object, ...],
    shared: SharedSlices,
) -> Iterator[Slice]:
    """The events from ``follower``'s version to ``newest``'s, a slice at a time, each slice with
    the state reached. Linear in the events: the log entries from the follower's version on,
    each action applied once, and a slice another stream of this game and viewer rendered is
    taken as it is (``service.streams.shared_slices``); the caller yields to the loop between
    slices. Its players' ``bot`` and ``away`` are the newest record's. With no new version but
    seats moved otherwise than ``shown`` (a seat handed to a bot as its player left), a
    snapshot of the newest view."""
    newest_state = newest.state
    if newest_state.version <= follower.version:
        if _seats(newest) != shown:
            yield Slice(_snapshot(newest, seat), follower)
        return
    # The packs dealt after ``follower``'s version are already recorded in ``newest``: hand them
    # to the follower so its deals are the game's deals, not fresh shuffles.
    state = dataclasses.replace(follower, pending=newest_state.shuffles[len(follower.shuffles) :])
    start = follower.version
    while start < newest_state.version:
        # Slices end on multiples of CATCH_UP_SLICE, so streams resumed anywhere meet on them.
        stop = min(start - start % CATCH_UP_SLICE + CATCH_UP_SLICE, newest_state.version)
        key = (newest.game_id, seat, start, newest.record)
        rendered = shared.get(key)
        if rendered is None:
            rendered = _render(state, newest, seat, stop)
            shared.put(key, rendered)
        yield rendered
        state, start = rendered.reached, stop


def _render(state: GameState, newest: LoadedGame, seat: int | None, stop: int) -> Slice:
    """The events of versions after ``state``'s up to ``stop``, ``newest``'s actions applied."""
    newest_state = newest.state
    records = _records(newest_state, state.version, stop)
    events = bytearray()
    for entry in game.public_log(newest_state, seat, since=state.version, until=stop):
        record = next(records)
        state = game.apply(state, record.seat, record.action)
        event = GameEvent(
            version=state.version,
            entry=log_entry_to_wire(entry),
            view=view_of(newest.game_id, state, seat, newest.record),
        )
        events += _framed(event, state.version)
    reached = newest_state if state.version == newest_state.version else state
    return Slice(Encoded(data=bytes(events)), reached)


def _seats(loaded: LoadedGame) -> tuple[object, ...]:
    """Who moves each seat, as views show it (``players[].bot`` and ``away``)."""
    return loaded.record.bots, loaded.record.away


def _finished(state: GameState) -> ServerSentEventMessage:
    finished = GameFinishedEvent(version=state.version, winners=list(state.winners or ()))
    return message(finished, state.version)


async def _while_waiting(  # noqa: PLR0913  # the stream's parts, each passed on
    services: StreamServices,
    loaded: LoadedTable,
    seat: int | None,
    woken: asyncio.Event,
    reached: Reached,
    *,
    idle_timeout: float,
    ends_at: float,
) -> AsyncIterator[ServerSentEventMessage]:
    """A snapshot of the table at each change of its seats, until it is dealt (or idle)."""
    while True:
        yield message(loaded.view(seat))
        async for comment in keep_alive_until_woken(woken, idle_timeout, ends_at):
            yield comment
        if not woken.is_set():
            return
        woken.clear()
        now = await load_any(services, loaded.game_id)
        reached.saw(now)
        if not isinstance(now, LoadedTable):
            return
        loaded = now


async def game_events(  # noqa: PLR0913  # the stream's parts, each passed on
    services: StreamServices,
    game_id: str,
    seat: int | None,
    last_event_id: int | None,
    *,
    idle_timeout: float,
    lifetime: float,
) -> AsyncIterator[ServerSentEventMessage]:
    """The stream's events. A store out of reach, or the game expired, once the stream has
    begun (its 200 sent) ends it, as an idle stream ends: the client's reconnection with
    ``Last-Event-ID`` is answered 503 or 404 as any request is, or resumes. Raised, it broke
    the connection mid-response and logged an error."""
    ends_at = time.monotonic() + lifetime
    events = _game_events(
        services, game_id, seat, last_event_id, idle_timeout=idle_timeout, ends_at=ends_at
    )
    async with contextlib.aclosing(events):  # the subscription ends with the stream
        try:
            async for event in events:
                yield event
        except (StoreUnavailable, GameNotFound) as error:
            _log.warning("stream of game %s ended: %s", game_id, error)


async def _game_events(  # noqa: PLR0913  # the stream's parts, each passed on
    services: StreamServices,
    game_id: str,
    seat: int | None,
    last_event_id: int | None,
    *,
    idle_timeout: float,
    ends_at: float,
) -> AsyncGenerator[ServerSentEventMessage, None]:
    async with services.channels.start_subscription([channel_of(game_id)]) as subscriber:
        woken = asyncio.Event()
        reached = Reached()
        listener = asyncio.create_task(wake_on_notices(subscriber.iter_events(), woken, reached))
        try:
            # Loaded again after subscribing, so an action applied in between is not missed.
            loaded = await load_any(services, game_id)
            reached.saw(loaded)
            if isinstance(loaded, LoadedTable):
                waiting = _while_waiting(
                    services,
                    loaded,
                    seat,
                    woken,
                    reached,
                    idle_timeout=idle_timeout,
                    ends_at=ends_at,
                )
                async for message in waiting:
                    yield message
                loaded = await load_any(services, game_id)
                reached.saw(loaded)
                if isinstance(loaded, LoadedTable):  # idle before the deal
                    return
                last_event_id = None  # dealt: the deal's snapshot comes next
            newest = loaded
            if last_event_id is None or not 0 <= last_event_id <= newest.state.version:
                yield _snapshot(loaded, seat)
                follower = newest.state
            else:
                follower = await _state_at(newest.state, last_event_id)
            shown = _seats(newest)
            while True:
                slices = _catch_up(follower, newest, seat, shown, services.shared_slices)
                shown = _seats(newest)
                for done in slices:
                    yield done.events
                    follower = done.reached
                    await asyncio.sleep(0)
                if newest.state.status != "playing":
                    yield _finished(newest.state)
                    return
                async for comment in keep_alive_until_woken(woken, idle_timeout, ends_at):
                    yield comment
                if not woken.is_set():
                    return
                woken.clear()
                newest = await load_game(services, game_id)
                reached.saw(newest)
        finally:
            listener.cancel()


async def keep_alive_until_woken(
    woken: asyncio.Event, idle_timeout: float, ends_at: float
) -> AsyncIterator[ServerSentEventMessage]:
    """Keep-alive comments until a notice wakes the stream, or ``idle_timeout`` seconds pass
    without one, or the stream's lifetime ends (``ends_at``, of ``time.monotonic``; the caller
    tells which by ``woken``)."""
    idle_until = min(time.monotonic() + idle_timeout, ends_at)
    while not woken.is_set():
        left = idle_until - time.monotonic()
        if left <= 0:
            return
        try:
            await asyncio.wait_for(woken.wait(), timeout=min(left, HEARTBEAT_SECONDS))
        except TimeoutError:
            if idle_until - time.monotonic() > 0:
                yield KEEP_ALIVE


class Reached:
    """The stored version of the game a stream last loaded. A game's notice is the stored
    version its commit made; one of this version or an earlier one wakes nothing: a new
    subscription on Redis reads the notices the game's event stream still holds, and each would
    otherwise load the game again for nothing (during an outage, ending the stream)."""

    __slots__ = ("version",)

    def __init__(self) -> None:
        self.version = -1

    def saw(self, loaded: LoadedGame | LoadedTable) -> None:
        self.version = loaded.stored_version

    def is_news(self, notice: bytes) -> bool:
        try:
            return int(notice) > self.version
        except ValueError:  # not a game's notice: wake, and let the load tell
            return True


async def wake_on_notices(
    notices: AsyncIterator[bytes], woken: asyncio.Event, reached: Reached | None = None
) -> None:
    """Set ``woken`` at each notice (with ``reached``, at each of a version not yet loaded)."""
    async for notice in notices:
        if reached is None or reached.is_news(notice):
            woken.set()
