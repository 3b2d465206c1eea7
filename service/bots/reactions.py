"""How this instance's drivers hear of games (``service.games.bus``): a commit that puts a bot
(or a run-out clock) on turn starts the game's driver, and a request that loads a game whose
owed move is overdue by more than a lease (the instance that took it died) drives it here, so
no game waits on the sweepers alone."""

from __future__ import annotations

import time

from service.bots.tasks import BotTasks
from service.games import movers
from service.games.bus import Committed, GameNews, Loaded, Subscriber


def drivers_told(bots: BotTasks, lease_seconds: float) -> Subscriber:
    """The subscriber that nudges ``bots``' drivers."""

    def heard(news: GameNews) -> None:
        record, state = news.record, news.state
        if not movers.controlled(record):
            return
        match news:
            case Committed():
                # A move the service made: its driver goes on by itself. Else start one, unless
                # other games wait for room (then it waits its turn among them).
                if not news.by_service and movers.mover(record, state, time.time()) is not None:
                    bots.nudge_in_turn(news.game_id)
            case Loaded():
                if movers.stalled(record, state, time.time(), lease_seconds):
                    bots.nudge(news.game_id)

    return heard
