"""A challenge as the API shows it, read from its table's record (``GameRecord.challenge``)."""

from __future__ import annotations

import asyncio

from service.games import lifecycle as game_flow
from service.games import records as game_records
from service.games.lifecycle import LoadedGame, LoadedTable
from service.games.records import ChallengeTerms
from service.http.problems import GameNotFound
from service.identity.store import PlayerRecord
from service.players.challenge_wire import Challenge, ChallengePlayer
from service.players.deps import PlayerServices
from service.players.problems import ChallengeNotFound
from service.players.turns import utc


async def load(services: PlayerServices, challenge_id: str) -> LoadedGame | LoadedTable:
    try:
        loaded = await game_flow.load_any(services, challenge_id)
    except GameNotFound:
        loaded = None
    if loaded is None or loaded.record.challenge is None:
        raise ChallengeNotFound(f"no challenge {challenge_id!r} (it may have expired)")
    return loaded


def status_of(loaded: LoadedGame | LoadedTable, terms: ChallengeTerms, now: float) -> str:
    if isinstance(loaded, LoadedGame):
        return "accepted"
    if terms.ended:
        return terms.ended
    return "expired" if now >= terms.expires else "open"


async def challenge_out(services: PlayerServices, loaded: LoadedGame | LoadedTable) -> Challenge:
    record = loaded.record
    terms = record.challenge
    assert terms is not None
    named = [terms.challenger, *(terms.invited or ())]
    profiles = dict(
        zip(named, await asyncio.gather(*(services.players.get(p) for p in named)), strict=True)
    )
    if isinstance(loaded, LoadedTable):
        seats, bots = len(loaded.seating.names), loaded.seating.bots
        held = [bool(h) or bool(bots and bots[s]) for s, h in enumerate(record.token_hashes)]
        rules = game_records.rules_of(loaded.seating.rules)
    else:
        seats, bots = len(record.token_hashes), record.bots
        held = [True] * seats
        rules = loaded.state.rules
    accepted = [
        p for seat, p in enumerate(record.players) if p and p != terms.challenger and held[seat]
    ]
    return Challenge(
        challenge_id=loaded.game_id,
        game_id=loaded.game_id,
        status=status_of(loaded, terms, game_records.now()),  # type: ignore[arg-type]
        challenger=_player_out(terms.challenger, profiles),
        to=None if terms.invited is None else [_player_out(p, profiles) for p in terms.invited],
        accepted=accepted,
        bots=[level for level in bots if level],  # type: ignore[misc]
        seats=seats,
        open_seats=held.count(False),
        preset=rules.preset,
        turns=rules.turns,
        rated=terms.rated,
        turn_seconds=record.turn_seconds if record.table is None else record.table.turn_seconds,
        created=utc(record.created),
        expires_at=utc(terms.expires),
        reason=terms.reason,  # type: ignore[arg-type]
    )


def _player_out(player_id: str, profiles: dict[str, PlayerRecord | None]) -> ChallengePlayer:
    player = profiles.get(player_id)
    if player is None:  # pragma: no cover - players are kept for good
        return ChallengePlayer(player_id=player_id, name="", bot=False)
    return ChallengePlayer(player_id=player_id, name=player.name, bot=player.bot)
