"""What players do: make a player, see a profile, replace a key, list the player's games.

A player's games are those the player was seated in with their key (``{"me": true}``), newest
first (``service.identity.store``). Each entry of a page is read from its game, as its public
view shows it, with the player's seat: whose turn it is, the deadline, the other players, the
result. A game that has expired leaves the list as a page meets it.
"""

from __future__ import annotations

import asyncio
from typing import Final

from service.games import lifecycle as game_flow
from service.games import records as game_records
from service.games.lifecycle import LoadedGame, LoadedTable
from service.http import cursors
from service.http.problems import (
    GameNotFound,
    InvalidField,
    PlayerNotFound,
    StaleVersion,
    UnknownPlayerKey,
    UnknownStreamKey,
)
from service.http.wire import utc_time
from service.identity import keys
from service.identity.apps import app_named
from service.identity.callers import player_of
from service.identity.keys import is_player_key
from service.identity.store import PlayerRecord
from service.identity.stream_keys import holds, player_of_stream_key, player_stream_key
from service.players.deps import PlayerServices
from service.players.turns import deadline, waits_for
from service.players.wire import (
    CreatePlayerRequest,
    MyGame,
    MyGamePlayer,
    MyGames,
    NewKey,
    OnlineBot,
    OnlineBots,
    PlayerCreated,
    PlayerProfile,
    PlayerStreamUrl,
)
from service.ratings import model as rating_model
from service.ratings.boards import ratings_of
from service.vocabulary.names import display_name

GAMES_PAGE_MAX: Final = 50
"""The most games a page of a player's list holds."""
SCAN_BUDGET: Final = 200
"""The most entries one request reads from a player's list to fill a page filtered by status:
past it, the page ends early with a cursor to read on."""


async def create(
    services: PlayerServices, request: CreatePlayerRequest, token: str | None
) -> PlayerCreated:
    """A new player and its key, shown only in this answer (201); the app's, when ``token`` is
    an app's key (401 for any other token: a player meant for an app never ends up outside
    it)."""
    app = None if token is None else app_named(services.settings.app_keys, token)
    name = display_name(request.name, "name")
    key = keys.new_key()
    player = PlayerRecord(keys.new_player_id(), name, request.bot, game_records.now(), app)
    await services.players.create(player, keys.key_hash(key))
    return PlayerCreated(player_id=player.player_id, name=name, bot=player.bot, key=key, app=app)


async def profile(services: PlayerServices, player_id: str) -> PlayerProfile:
    """What anyone may see of a player, its ratings among it; 404 for none. The built-in
    levels are players too (``bot-easy`` … ``bot-expert``), always online."""
    level = rating_model.built_in_player(player_id)
    if level is not None:
        return PlayerProfile(
            player_id=player_id,
            name=f"{level.capitalize()} bot",
            bot=True,
            created=utc_time(0),
            games=0,
            online=True,
            ratings=await ratings_of(services, player_id),
        )
    player = await services.players.get(player_id)
    if player is None:
        raise PlayerNotFound(f"no player {player_id!r}")
    online = player_id in await services.players.online(game_records.now()) if player.bot else None
    return PlayerProfile(
        player_id=player.player_id,
        name=player.name,
        bot=player.bot,
        created=utc_time(player.created),
        games=await services.players.game_count(player_id),
        online=online,
        ratings=await ratings_of(services, player_id),
    )


async def replace_key(services: PlayerServices, player_id: str, old_key: str) -> NewKey:
    """A new key for the player; the one sent stops working before the answer leaves. Of two
    replacements at once, one wins and the other is a 409 (its key was replaced meanwhile)."""
    key = keys.new_key()
    if not await services.players.replace_key(
        player_id, keys.key_hash(old_key), keys.key_hash(key)
    ):
        raise StaleVersion("this key was replaced while the request ran: use the newest key")
    return NewKey(player_id=player_id, key=key)


async def stream_url(services: PlayerServices, player_id: str, base_url: str) -> PlayerStreamUrl:
    """The URL of the player's stream with its stream key (``service.identity.stream_keys``)."""
    key_hash = await services.players.key_hash_of(player_id)
    if key_hash is None:  # the key resolved, so only a store that lost it gets here
        raise UnknownPlayerKey("no player holds this key: it is unknown, or it was replaced")
    key = player_stream_key(player_id, key_hash)
    return PlayerStreamUrl(url=f"{base_url.rstrip('/')}/v1/players/me/events?key={key}")


async def streamer(services: PlayerServices, token: str | None, stream_key: str | None) -> str:
    """The player a stream is for: its stream key's (a browser's), else its key's."""
    if stream_key is None:
        return await player_of(services.players, token)
    if is_player_key(stream_key):
        raise InvalidField(
            "key: a player's key never goes in a URL; send it as Authorization, or open the URL "
            "of POST /v1/players/me/stream-url",
            field="key",
        )
    player_id = player_of_stream_key(stream_key)
    key_hash = None if player_id is None else await services.players.key_hash_of(player_id)
    if player_id is None or key_hash is None or not holds(stream_key, player_id, key_hash):
        raise UnknownStreamKey("the stream key is no player's, or the player's key was replaced")
    return player_id


async def online_bots(services: PlayerServices) -> OnlineBots:
    """The bot players with a stream open now, on any instance."""
    online = await services.players.online(game_records.now())
    players = await asyncio.gather(*(services.players.get(player_id) for player_id in online))
    return OnlineBots(
        bots=[
            OnlineBot(player_id=p.player_id, name=p.name)
            for p in players
            if p is not None and p.bot
        ]
    )


async def my_games(
    services: PlayerServices,
    player_id: str,
    status: str,
    cursor: str | None,
    limit: int,
) -> MyGames:
    """A page of the player's games, newest first (``status``: only those in it, or all)."""
    after = None if cursor is None else cursors.position_of(cursor)
    page: list[MyGame] = []
    scanned = 0
    while len(page) < limit and scanned < SCAN_BUDGET:
        wanted = limit - len(page)
        entries = await services.players.games(player_id, after, wanted + 1)  # one to peek
        read = entries[:wanted]
        games = await asyncio.gather(*(_loaded(services, game_id) for _, game_id in read))
        gone = [game_id for (_, game_id), loaded in zip(read, games, strict=True) if not loaded]
        if gone:
            await services.players.drop_games(player_id, gone)
        for (created, _), loaded in zip(read, games, strict=True):
            mine = None if loaded is None else my_game(services, loaded, player_id, created)
            if mine is not None and status in ("all", mine.status):
                page.append(mine)
        if len(entries) <= wanted:  # the end of the list
            return MyGames(games=page)
        scanned += wanted
        after = read[-1]
    assert after is not None  # the loop ran, and read on
    return MyGames(games=page, next_cursor=cursors.cursor_of(after))


async def _loaded(services: PlayerServices, game_id: str) -> LoadedGame | LoadedTable | None:
    try:
        return await game_flow.load_any(services, game_id)
    except GameNotFound:
        return None


def my_game(
    services: PlayerServices, loaded: LoadedGame | LoadedTable, player_id: str, created: float
) -> MyGame | None:
    """The player's entry for a game, None if the player no longer holds a seat in it."""
    seat = game_records.seat_of_player(player_id, loaded.record.players)
    if seat is None:
        return None
    view = game_flow.shared_view(services, loaded, None)
    record = loaded.record
    return MyGame(
        game_id=loaded.game_id,
        seat=seat,
        status=view.status,
        preset=view.rules.preset,
        turns="speed" if view.rules.turns == "speed" else "in_turn",
        version=view.version,
        round=view.round,
        rounds=view.rounds,
        my_turn=waits_for(view, seat),
        turn=view.turn if view.status == "playing" else None,
        deadline=deadline(view, record),
        players=[
            MyGamePlayer(
                seat=player.seat,
                name=player.name,
                player_id=record.players[player.seat] if record.players else None,
                bot=player.bot,
                score=player.score,
            )
            for player in view.players
        ],
        winners=view.winners,
        created=utc_time(created),
    )
