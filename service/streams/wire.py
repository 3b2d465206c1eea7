"""The JSON shapes of a game's event stream (``GET /v1/games/{game_id}/events``)."""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta

from service.games.log_wire import LogEntryOut
from service.games.wire import GameView
from service.http.wire import Out
from service.vocabulary.wire import Seat, Version


class GameEvent(Out, frozen=True):
    """The data of one server-sent event of type ``action``; its event id is ``version``."""

    version: Version
    entry: LogEntryOut
    view: Annotated[
        GameView,
        Meta(description="The game as the stream's viewer saw it right after this action."),
    ]


class GameFinishedEvent(Out, frozen=True):
    """The data of the server-sent event of type ``finished``, the last of a game's stream."""

    version: Version
    winners: list[Seat]
