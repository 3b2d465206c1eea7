"""The games of bots only each client has in play, bounded per client (``BOT_GAMES_PER_CLIENT``).

A game of bots only costs the instance a stream of decisions for as long as it plays (an
``expert`` game, minutes of a worker's time) and nobody waits for it, so one client could keep
the worker processes busy with many. Each instance keeps, per client address, the ids of the
bot-only games that client created on it; a create past the bound first looks again at those
games (one load each, only then) and forgets the finished or expired ones, and is refused with
429 ``bot-games-quota`` if the client still holds as many. The place is reserved before the
game is made, so concurrent creates cannot pass the bound together.

The count is per instance (behind a load balancer, a client's bound is this many per instance
it reaches); at most ``CLIENTS`` clients are remembered, the least recent forgotten first.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Final

from service.http.problems import BotGamesQuotaReached

CLIENTS: Final = 100_000
"""Clients remembered at most (each with at most the bound's game ids)."""
RETRY_AFTER_SECONDS: Final = 60
_RESERVED: Final = ""
"""A place taken by a create still under way (no game id is empty)."""

StillPlaying = Callable[[str], Awaitable[bool]]


class BotGameHoldings:
    def __init__(self, most: int) -> None:
        self.most = most
        """Bot-only games in play per client at most; 0: no bound."""
        self._held: OrderedDict[str, list[str]] = OrderedDict()

    def held(self, client: str) -> int:
        """Bot-only games the client holds as last counted (creates under way included)."""
        return len(self._held.get(client, ()))

    @asynccontextmanager
    async def place(self, client: str, still_playing: StillPlaying) -> AsyncIterator[list[str]]:
        """A place for one more bot-only game of ``client``, or ``BotGamesQuotaReached``; the
        caller appends the new game's id to the list it is given, else the place is given back
        when the block ends."""
        if self.most == 0:
            yield []
            return
        held = self._held.get(client, [])
        if len(held) >= self.most:
            playing = [game_id for game_id in held if await _playing(game_id, still_playing)]
            held = self._held.get(client, [])  # other creates may have changed it meanwhile
            held[:] = [g for g in held if g == _RESERVED or g in playing]
        if len(held) >= self.most:
            raise BotGamesQuotaReached(
                f"this client has {len(held)} games of bots only in play here, the most it may "
                f"hold (BOT_GAMES_PER_CLIENT={self.most}); try again once one has finished",
                field="players",
                retry_after=RETRY_AFTER_SECONDS,
            )
        held.append(_RESERVED)
        self._held[client] = held
        self._held.move_to_end(client)
        while len(self._held) > CLIENTS:
            self._held.popitem(last=False)
        made: list[str] = []
        try:
            yield made
        finally:
            held.remove(_RESERVED)
            held.extend(made)
            if not held:
                self._held.pop(client, None)


async def _playing(game_id: str, still_playing: StillPlaying) -> bool:
    return game_id == _RESERVED or await still_playing(game_id)
