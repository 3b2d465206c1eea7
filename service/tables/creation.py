"""Creating a game or a table: a game dealt at once when every seat is named; otherwise a table
waiting for players, stored with its invite code (and listed in the lobby when asked).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from functools import partial
from typing import Final, NamedTuple

import msgspec

import engine
from engine import game
from service.bots.holdings import GameHoldings
from service.games import lifecycle as game_flow
from service.games import records as game_records
from service.games.lifecycle import LoadedTable
from service.games.records import GameRecord, Seating
from service.games.to_wire import waiting_view
from service.games.wire import CreateGameRequest, GameCreated, SeatToken
from service.http import idempotency
from service.http.idempotency import Retry, SavedAnswer
from service.http.problems import GameNotFound, InvalidSeat
from service.identity.callers import Caller, list_game, myself
from service.operations import metrics
from service.records.given import given_deals, seeded
from service.storage.game_store import GameExists, StoreUnavailable
from service.tables import invite_codes
from service.tables import waiting_tables as waiting
from service.tables.deps import TableServices
from service.vocabulary import to_engine
from service.vocabulary.names import display_name

_CREATE_ATTEMPTS: Final = 16


async def create(
    services: TableServices,
    request: CreateGameRequest,
    retry: Retry | None = None,
    *,
    client: str | None = None,
    caller: Caller | None = None,
) -> SavedAnswer:
    """A game dealt at once when every seat is named; otherwise a table waiting for players.
    A ``{"me": true}`` seat is the ``caller``'s, who must be a player (``service.identity``).
    With an Idempotency-Key (``retry``) its id is the key's, so a retry finds it made and is
    answered from the answer saved with it (``service.http.idempotency``). A game of bots only,
    and a game with a clock, takes one of the ``client``'s places (``service.bots.holdings``)."""
    if retry is not None:
        saved = await services.store.recall(idempotency.derived_id(retry), retry.stored_key)
        if saved is not None:
            return retry.replayed(saved)
    rules = to_engine.game_rules_from_wire(
        request.rules, request.call_seconds, request.turn_seconds
    )
    rules.check_players(len(request.players))  # open seats count: the pack must hold them all
    names, levels, me = _seats(request)
    players: tuple[str | None, ...] = ()
    if me is not None:
        player = await myself(services.players, caller)
        names[me] = player.name
        players = tuple(player.player_id if seat == me else None for seat in range(len(names)))
    bots = tuple(levels) if any(levels) else ()
    named = [name for name in names if name is not None]
    dealt_now = len(named) == len(names)
    given = None
    if dealt_now:
        if request.listed:
            raise InvalidSeat(
                "listed: the lobby shows tables with an open seat, and this one has none",
                field="listed",
            )
        given = await given_deals(services, request, rules, len(names))
    elif request.deal_from is not None or request.deal is not None:
        field = "deal" if request.deal is not None else "deal_from"
        raise InvalidSeat(f"{field}: a game of given deals has every seat named", field=field)
    request = msgspec.structs.replace(
        request, **(await seeded(services, request.seed, request.seed_key))._asdict()
    )
    holdings = [] if client is None else _holdings_of(services, request, rules, dealt_now, levels)
    async with _places(services, client or "", holdings) as places:
        if dealt_now:
            answer = await game_flow.create_game(
                services, request, named, bots, given=given, retry=retry, players=players
            )
        else:
            seated = _Seated(names, bots, players)
            answer = await _create_table(services, request, seated, retry)
        for made in places:
            made.append(answer.location.rsplit("/", 1)[-1])
    return answer


def _holdings_of(
    services: TableServices,
    request: CreateGameRequest,
    rules: engine.Rules,
    dealt_now: bool,
    levels: list[str | None],
) -> list[GameHoldings]:
    """The counts a new game takes a place in: a game of bots only, a game with a clock."""
    holdings = []
    if dealt_now and all(levels):
        holdings.append(services.bot_games)
    if request.turn_seconds is not None or rules.turns == "speed":
        holdings.append(services.clock_games)
    return holdings


@asynccontextmanager
async def _places(
    services: TableServices, client: str, holdings: list[GameHoldings]
) -> AsyncIterator[list[list[str]]]:
    """A place in each of ``holdings`` for one more game of ``client`` (each refusal a 429),
    kept for the game whose id the caller appends to each list, given back otherwise."""
    async with AsyncExitStack() as places:
        yield [
            await places.enter_async_context(held.place(client, partial(_in_play, services)))
            for held in holdings
        ]


async def _in_play(services: TableServices, game_id: str) -> bool:
    """Whether the game is still being played, or its table waits (not finished, not
    expired)."""
    try:
        loaded = await game_flow.load_any(services, game_id)
    except GameNotFound:
        return False
    return isinstance(loaded, LoadedTable) or loaded.state.status == "playing"


def _seats(request: CreateGameRequest) -> tuple[list[str | None], list[str | None], int | None]:
    """Each seat's name (None for an open one, "" for the caller's until its player is known),
    each seat's bot level (None for a person or an open seat), as the request's seat specs give
    them, and the caller's seat (``{"me": true}``; at most one), if any."""
    names: list[str | None] = []
    levels: list[str | None] = []
    me: int | None = None
    for index, player in enumerate(request.players):
        spec = waiting.seat_spec(player, index)
        match spec:
            case waiting.NamedSeat(name=name):
                names.append(display_name(name, f"players[{index}].name"))
            case waiting.MeSeat():
                if me is not None:
                    raise InvalidSeat(
                        f"players[{index}]: a player holds one seat of a game, and "
                        f"players[{me}] is already me",
                        field=f"players[{index}]",
                    )
                me = index
                names.append("")
            case waiting.OpenSeat():
                names.append(None)
            case waiting.BotSeat(level=level, name=None):
                names.append(waiting.bot_name(level, index))
            case waiting.BotSeat(name=str(name)):
                names.append(display_name(name, f"players[{index}].name"))
        levels.append(spec.level if isinstance(spec, waiting.BotSeat) else None)
    return names, levels, me


class _Seated(NamedTuple):
    """Who sits where at a new table: each seat's name (None: open), bot level (empty: no
    bots) and player (empty: no players)."""

    names: list[str | None]
    bots: tuple[str | None, ...]
    players: tuple[str | None, ...]


async def _create_table(
    services: TableServices, request: CreateGameRequest, seated: _Seated, retry: Retry | None
) -> SavedAnswer:
    names, bots, players = seated
    # Checked by ``create``; the rules of a request are decoded once (a cache).
    rules = to_engine.game_rules_from_wire(
        request.rules, request.call_seconds, request.turn_seconds
    )
    tokens = [
        None if name is None or (bots and bots[seat]) else game_records.new_token()
        for seat, name in enumerate(names)
    ]
    hashes = tuple(b"" if t is None else game_records.token_hash(t) for t in tokens)
    for _ in range(_CREATE_ATTEMPTS):
        game_id = game_records.new_game_id() if retry is None else idempotency.derived_id(retry)
        code = invite_codes.new_code()
        seating = Seating(
            names=tuple(names),
            rules=waiting.encoded_rules(rules),
            seed=request.seed,
            first_dealer=game.choose_first_dealer(len(names), request.seed),
            invite_code=code,
            listed=request.listed,
            bots=bots,
            turn_seconds=request.turn_seconds,
            call_seconds=game_flow.call_seconds_of(rules, request.call_seconds),
        )
        record = GameRecord(
            state=b"",
            token_hashes=hashes,
            created=game_records.now(),
            table=seating,
            players=players,
        )
        answer = _table_created(game_id, record, seating, tokens, request.seed_key)
        # The code first: a table is never stored with a code another waiting table holds.
        if not await services.tables.reserve_code(code, game_id):
            continue
        await list_game(services.players, players, game_id, record.created)
        try:
            await services.store.create(
                game_id,
                game_records.encode_record(record),
                idempotency=None
                if retry is None
                else retry.saved(answer.body, answer.status, answer.location),
            )
        except GameExists:
            if retry is not None:  # the first attempt, on another instance, made it meanwhile
                # (the code reserved here leads to a table holding another: it answers "full")
                return await game_flow.created_before(services, game_id, retry)
            continue  # 96 random bits: practically never
        break
    else:  # pragma: no cover - 16 clashes in a row: the code space is full
        raise StoreUnavailable("no free invite code was found; try again")
    if request.listed:
        await services.tables.list_table(game_id, waiting.lobby_entry(game_id, seating))
    metrics.GAMES_CREATED.labels(preset=rules.preset).inc()
    return answer


def _table_created(
    game_id: str,
    record: GameRecord,
    seating: Seating,
    tokens: list[str | None],
    seed_key: str | None,
) -> SavedAnswer:
    """The answer to a table's creation (201): its people's tokens, its code, its view."""
    return game_flow.created_answer(
        GameCreated(
            game_id=game_id,
            seats=[
                SeatToken(seat=seat, name=name, token=token)
                for seat, (name, token) in enumerate(zip(seating.names, tokens, strict=True))
                if name is not None and token is not None
            ],
            invite_code=seating.invite_code,
            view=waiting_view(game_id, seating, None, record.players),
            seed_key=seed_key,
        ),
        game_id,
    )
