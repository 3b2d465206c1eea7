"""What a new game is dealt from: a client's seed mixed with the deployment's secret and the
creator's seed key, or given deals (``deal``, or ``deal_from`` a finished game) checked before
anything is stored.
"""

from __future__ import annotations

import secrets
import weakref
from typing import NamedTuple

import engine
from engine import game
from engine.cards import Card
from engine.errors import DealError
from engine.game.dealing import check_deal
from engine.records import deal_from
from engine.seeds import mixed_seed, new_secret
from service.games import lifecycle as game_flow
from service.games.wire import SEED_KEY_BYTES, CreateGameRequest, DealIn
from service.http.engine_problems import deal_field
from service.http.problems import GameNotFinished, GameNotFound, InvalidField, TableWaiting
from service.records.deps import RecordServices
from service.records.store import SEED_SECRET_KEY, RecordStore
from service.vocabulary.to_engine import card_from_code
from service.vocabulary.wire import SEED_LIMIT

_secrets: weakref.WeakKeyDictionary[RecordStore, str] = weakref.WeakKeyDictionary()


async def deployment_secret(services: RecordServices) -> str:
    """``SEED_SECRET``, or the one kept in the store (made by the first instance that needed
    it: every instance on the store reads the same)."""
    if services.settings.seed_secret:
        return services.settings.seed_secret
    store = services.records
    known = _secrets.get(store)
    if known is None:
        kept = await store.put_new(SEED_SECRET_KEY, new_secret().encode(), expires=False)
        known = _secrets[store] = kept.decode()
    return known


def new_seed_key() -> str:
    """A creator's seed key: 128 random bits, URL-safe base64 without padding."""
    return secrets.token_urlsafe(SEED_KEY_BYTES)


class Seeded(NamedTuple):
    """What the engine shuffles with for a client's seed, and the key that deals it again."""

    seed: int | None
    seed_key: str | None


async def seeded(services: RecordServices, seed: int | None, seed_key: str | None) -> Seeded:
    """The seed the engine shuffles with for a client's ``seed``: mixed with the deployment's
    secret (so no seat recovers the deal by trying seeds) and with a key of the creator's, the
    ``seed_key`` given or a new one (so a stranger's create with the same seed deals another
    game: the deployment is no oracle for it). None and None without a seed."""
    if seed is None:
        if seed_key is not None:
            raise InvalidField(
                "seed_key: a seed_key goes with the seed it was made for", field="seed_key"
            )
        return Seeded(None, None)
    key = seed_key or new_seed_key()
    secret = await deployment_secret(services)
    return Seeded(mixed_seed(seed, f"{secret}/{key}") % SEED_LIMIT, key)


class Given(NamedTuple):
    """What ``new_game`` takes of given deals: the first dealer (None: the seed picks) and the
    deals by round."""

    first_dealer: int | None
    deals: dict[int, game.Deal]


async def given_deals(
    services: RecordServices, request: CreateGameRequest, rules: engine.Rules, players: int
) -> Given | None:
    """The deals ``request`` gives (checked against the rules and the players), or None."""
    if request.deal_from is not None and request.deal is not None:
        raise InvalidField("give `deal` or `deal_from`, not both", field="deal")
    if request.rotate_seats and request.deal_from is None:
        raise InvalidField("rotate_seats moves the hands of `deal_from`", field="rotate_seats")
    if request.deal_from is not None:
        return await _dealt_from(services, request.deal_from, request.rotate_seats, rules, players)
    if request.deal is not None:
        return Given(None, _given(request.deal, rules, players))
    return None


async def _dealt_from(
    services: RecordServices, game_id: str, rotate: int, rules: engine.Rules, players: int
) -> Given:
    try:
        source = (await game_flow.load_game(services, game_id)).state
    except (GameNotFound, TableWaiting) as error:
        raise InvalidField(f"deal_from: {error}", field="deal_from") from None
    if source.status != "finished":
        raise GameNotFinished(
            f"deal_from: game {game_id!r} is still played: its deals are secret until it is over",
            field="deal_from",
        )
    if source.rules != rules or len(source.players) != players:
        raise InvalidField(
            f"deal_from: game {game_id!r} was dealt for {len(source.players)} players under "
            "its own rules: give the same number of players and the same rules",
            field="deal_from",
        )
    if rotate >= players:
        raise InvalidField(
            f"rotate_seats: {players} seats, so 0 to {players - 1}", field="rotate_seats"
        )
    dealt = deal_from(source, rotate)
    return Given(dealt.first_dealer, dealt.deals)


def _given(deals: list[DealIn], rules: engine.Rules, players: int) -> dict[int, game.Deal]:
    given: dict[int, game.Deal] = {}
    for index, deal in enumerate(deals):
        at = f"deal[{index}]"
        if deal.round in given:
            raise InvalidField(
                f"{at}.round: round {deal.round} is given twice", field=f"{at}.round"
            )
        hands = tuple(
            tuple(_cards(hand, f"{at}.hands[{seat}]")) for seat, hand in enumerate(deal.hands)
        )
        upcard = None if deal.upcard is None else card_from_code(deal.upcard, f"{at}.upcard")
        upcards = _cards(deal.upcards or [], f"{at}.upcards")
        one = game.Deal(hands, upcard, _cards(deal.stock, f"{at}.stock"), upcards)
        try:
            check_deal(rules, players, deal.round, one, index=index)
        except DealError as error:
            raise InvalidField(str(error), field=deal_field(error)) from None
        given[deal.round] = one
    return given


def _cards(codes: list[str], field: str) -> tuple[Card, ...]:
    return tuple(card_from_code(code, f"{field}[{i}]") for i, code in enumerate(codes))
