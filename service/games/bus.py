"""What a game tells the other features, as lila's ``Bus``: a feature that must react to a
game's commit or to a request that loaded it subscribes here (the composition root wires the
subscribers once), so the game never calls another feature by name.

Subscribers run in the publishing task, synchronously, after the commit: each must be quick and
must not raise (a bot driver is started as a task of its own; see ``service.bots.reactions``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engine.game.state import GameState
from service.games.records import GameRecord


@dataclass(frozen=True, slots=True)
class Committed:
    """A change of the game is in the store, its due entry with it (``service.games.movers``)."""

    game_id: str
    record: GameRecord
    state: GameState
    by_service: bool = False
    """A move the service made (a bot, a clock, a speed game's caller): its driver goes on by
    itself."""


@dataclass(frozen=True, slots=True)
class Loaded:
    """A request loaded the game: a move the service owes in it may be overdue (the instance
    that took it died), and whoever drives such moves may look."""

    game_id: str
    record: GameRecord
    state: GameState


GameNews = Committed | Loaded
Subscriber = Callable[[GameNews], None]


class GameBus:
    """The subscribers to every game's news, in the order they subscribed."""

    __slots__ = ("_subscribers",)

    def __init__(self) -> None:
        self._subscribers: list[Subscriber] = []

    def subscribe(self, subscriber: Subscriber) -> None:
        self._subscribers.append(subscriber)

    def publish(self, news: GameNews) -> None:
        for subscriber in self._subscribers:
            subscriber(news)
