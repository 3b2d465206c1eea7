"""What ratings answer: a player's ratings, and a leaderboard's page.

A board ranks the players of one rating key by their conservative rating, best first. The
established players (at least ``PROVISIONAL_GAMES`` rated games) have their board; the
provisional ones have another, shown when asked (``provisional=true``), so a newcomer's lucky
first games never top the list. A page starts at the top, at a cursor, or (``around``) centred
on a player.
"""

from __future__ import annotations

from typing import Final

from engine.rules import PRESET_NAMES
from service.http import cursors
from service.http.problems import InvalidField, PlayerNotFound
from service.http.wire import utc_time
from service.identity.callers import player_of
from service.ratings import model
from service.ratings.deps import RatingServices
from service.ratings.problems import LeaderboardNotFound, NotRanked
from service.ratings.wire import (
    Leaderboard,
    Ranked,
    Rating,
    RatingHistory,
    RatingPoint,
    rating_out,
)

BOARD_PAGE_MAX: Final = 100
"""The most players a page of a leaderboard holds."""
_CURSOR_ID: Final = "rank"
_LAST_RANK: Final = 10**9


def key_of(preset: str, turns: str) -> str:
    """The rating key of a preset and a mode; 404 for a preset there is not."""
    key = preset + (model.SPEED_SUFFIX if turns == "speed" else "")
    if key not in model.RATING_KEYS:
        raise LeaderboardNotFound(
            f"no leaderboard {preset!r}: the presets are {', '.join(PRESET_NAMES)}"
        )
    return key


async def ratings_of(services: RatingServices, player_id: str) -> dict[str, Rating]:
    """The player's rating under each key it has played rated games under."""
    found = await services.ratings.player_entries(player_id, model.RATING_KEYS)
    return {key: rating_out(model.decode_entry(data)) for key, data in found.items()}


async def leaderboard(
    services: RatingServices,
    key: str,
    *,
    provisional: bool,
    around: str | None,
    viewer_token: str | None,
    cursor: str | None,
    limit: int,
) -> Leaderboard:
    """A page of the board of ``key``: from the top, from ``cursor``, or centred on ``around``
    (``me``: the caller's player, whose key is then required); 404 for a player not on it. A
    bearer token sent must be a player's key (401 otherwise), as on every route whose token is
    optional."""
    start: int | str = 0
    caller = None if viewer_token is None else await player_of(services.players, viewer_token)
    if around is not None:
        if cursor is not None:
            raise InvalidField("cursor: a page around a player takes no cursor", field="cursor")
        start = around
        if around == "me":
            start = caller or await player_of(services.players, None)  # None: a 401
    elif cursor is not None:
        rank, _ = cursors.position_of(cursor)
        if not 0 <= rank <= _LAST_RANK:
            raise InvalidField("cursor: not a cursor of this list", field="cursor")
        start = int(rank)
    page = await services.ratings.page(key, provisional, start, limit)
    if page is None:
        board = "provisional" if provisional else "established"
        raise NotRanked(
            f"around: player {start!r} has no {board} rating under {key!r} "
            "(a player with fewer than 10 rated games is on the provisional board)"
        )
    ranked = []
    for offset, (player_id, data) in enumerate(page.entries):
        entry = model.decode_entry(data)
        ranked.append(
            Ranked(
                rank=page.start + offset + 1,
                player_id=player_id,
                name=entry.name,
                bot=entry.bot,
                rating=entry.rating,
                mu=entry.mu,
                sigma=entry.sigma,
                games=entry.games,
            )
        )
    after = page.start + len(page.entries)
    return Leaderboard(
        key=key,
        provisional=provisional,
        total=page.total,
        players=ranked,
        next_cursor=cursors.cursor_of((float(after), _CURSOR_ID)) if after < page.total else None,
    )


async def history(services: RatingServices, player_id: str, key: str) -> RatingHistory:
    """The player's rating after each of their last rated games under ``key``, newest first;
    404 for a player there is not (the built-in levels are players)."""
    if model.built_in_player(player_id) is None and await services.players.get(player_id) is None:
        raise PlayerNotFound(f"no player {player_id!r}")
    points = [model.decode_point(data) for data in await services.ratings.history(key, player_id)]
    return RatingHistory(
        key=key,
        player_id=player_id,
        points=[
            RatingPoint(
                game_id=point.game_id,
                finished=utc_time(point.finished),
                rating=point.rating,
                mu=point.mu,
                sigma=point.sigma,
                games=point.games,
                place=point.place + 1,
                seats=point.seats,
            )
            for point in points
        ],
    )
