"""The games each client has in play that make the service move by itself, bounded per client:
games of bots only (``BOT_GAMES_PER_CLIENT``) and games with a clock (``CLOCK_GAMES_PER_CLIENT``).

A game of bots only costs the instance a stream of decisions for as long as it plays (an
``expert`` game, minutes of a worker's time) and nobody waits for it, so one client could keep
the worker processes busy with many. A game with a clock (a turn clock, a speed game's calls)
puts a due entry in every sweep and a bot's move on every deadline a person lets pass: a
thousand of them from one client made every other game's clock late. Each instance keeps, per
client address, the ids of such games that client created on it; a create past the bound first
looks again at those games (one load each, only then) and forgets the finished or expired ones,
and is refused with a 429 naming the bound if the client still holds as many. The place is
reserved before the game is made, so concurrent creates cannot pass the bound together.

The count is per instance (behind a load balancer, a client's bound is this many per instance
it reaches); at most ``CLIENTS`` clients are remembered, the least recent forgotten first.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Final

from service.http.problems import BotGamesQuotaReached, ClockGamesQuotaReached

CLIENTS: Final = 100_000
"""Clients remembered at most (each with at most the bound's game ids)."""
RETRY_AFTER_SECONDS: Final = 60
_RESERVED: Final = ""
"""A place taken by a create still under way (no game id is empty)."""

StillPlaying = Callable[[str], Awaitable[bool]]
Refusal = Callable[[int, int], Exception]
"""The problem a create past the bound raises, from the games held and the bound."""


def bot_games_refused(held: int, most: int) -> Exception:
    return BotGamesQuotaReached(
        f"this client has {held} games of bots only in play here, the most it may hold "
        f"(BOT_GAMES_PER_CLIENT={most}); try again once one has finished",
        field="players",
        retry_after=RETRY_AFTER_SECONDS,
    )


def clock_games_refused(held: int, most: int) -> Exception:
    return ClockGamesQuotaReached(
        f"this client has {held} games with a clock in play here, the most it may hold "
        f"(CLOCK_GAMES_PER_CLIENT={most}); try again once one has finished",
        field="turn_seconds",
        retry_after=RETRY_AFTER_SECONDS,
    )


def bot_games(most: int) -> GameHoldings:
    """Each client's games of bots only."""
    return GameHoldings(most, bot_games_refused)


def clock_games(most: int) -> GameHoldings:
    """Each client's games with a turn clock or a speed game's calls."""
    return GameHoldings(most, clock_games_refused)


class GameHoldings:
    """One client's games of one kind in play here, at most ``most`` (0: no bound)."""

    def __init__(self, most: int, refusal: Refusal) -> None:
        self.most = most
        self._refusal = refusal
        self._held: OrderedDict[str, list[str]] = OrderedDict()

    def held(self, client: str) -> int:
        """Games the client holds as last counted (creates under way included)."""
        return len(self._held.get(client, ()))

    @asynccontextmanager
    async def place(self, client: str, still_playing: StillPlaying) -> AsyncIterator[list[str]]:
        """A place for one more game of ``client``, or the refusal (a 429); the caller appends
        the new game's id to the list it is given, else the place is given back when the block
        ends."""
        if self.most == 0:
            yield []
            return
        held = self._held.get(client, [])
        if len(held) >= self.most:
            playing = [game_id for game_id in held if await _playing(game_id, still_playing)]
            held = self._held.get(client, [])  # other creates may have changed it meanwhile
            held[:] = [g for g in held if g == _RESERVED or g in playing]
        if len(held) >= self.most:
            raise self._refusal(len(held), self.most)
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
