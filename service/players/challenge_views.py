"""A challenge as the API shows it, read from its table's record (``GameRecord.challenge``):
the same record before and after a commit (so a commit's saved answer is built from the
record it writes), with the profiles of its challenger and the players challenged."""

from __future__ import annotations

import asyncio
from typing import Literal

import engine
from service.games import lifecycle as game_flow
from service.games import records as game_records
from service.games.lifecycle import LoadedGame, LoadedTable
from service.games.records import ChallengeTerms, GameRecord
from service.http.problems import GameNotFound
from service.http.wire import utc_time
from service.identity.store import PlayerRecord
from service.players.challenge_wire import Challenge, ChallengePlayer, DeclineReason
from service.players.deps import PlayerServices
from service.players.event_wire import PlayerEvent
from service.players.problems import ChallengeNotFound

Profiles = dict[str, PlayerRecord | None]


async def load(
    services: PlayerServices, challenge_id: str, *, recall: str | None = None
) -> LoadedGame | LoadedTable:
    """The challenge's table or game (with ``recall``, the answer saved under that key); 404
    for none."""
    try:
        loaded = await game_flow.load_any(services, challenge_id, recall=recall)
    except GameNotFound:
        loaded = None
    if loaded is None or loaded.record.challenge is None:
        raise ChallengeNotFound(f"no challenge {challenge_id!r} (it may have expired)")
    return loaded


def held_seats(record: GameRecord) -> list[bool]:
    """Each seat: taken (a token's or a bot's); every seat of a dealt game is."""
    if record.table is None:
        return [True] * len(record.token_hashes)
    bots = record.table.bots
    return [bool(h) or bool(bots and bots[s]) for s, h in enumerate(record.token_hashes)]


def status_of(record: GameRecord, terms: ChallengeTerms, now: float) -> str:
    if all(held_seats(record)):
        return "accepted"  # (a table whose every seat is held is dealt in the same step)
    if terms.ended:
        return terms.ended
    return "expired" if now >= terms.expires else "open"


async def profiles_of(services: PlayerServices, terms: ChallengeTerms) -> Profiles:
    named = [terms.challenger, *(terms.invited or ())]
    found = await asyncio.gather(*(services.players.get(p) for p in named))
    return dict(zip(named, found, strict=True))


async def challenge_out(services: PlayerServices, loaded: LoadedGame | LoadedTable) -> Challenge:
    terms = loaded.record.challenge
    assert terms is not None
    rules = (
        loaded.state.rules
        if isinstance(loaded, LoadedGame)
        else game_records.rules_of(loaded.seating.rules)
    )
    profiles = await profiles_of(services, terms)
    return challenge_view(loaded.game_id, loaded.record, rules, profiles)


def challenge_view(
    challenge_id: str, record: GameRecord, rules: engine.Rules, profiles: Profiles
) -> Challenge:
    terms = record.challenge
    assert terms is not None
    held = held_seats(record)
    bots = record.bots if record.table is None else record.table.bots
    accepted = [
        p for seat, p in enumerate(record.players) if p and p != terms.challenger and held[seat]
    ]
    return Challenge(
        challenge_id=challenge_id,
        game_id=challenge_id,
        status=status_of(record, terms, game_records.now()),  # type: ignore[arg-type]
        challenger=_player_out(terms.challenger, profiles),
        to=None if terms.invited is None else [_player_out(p, profiles) for p in terms.invited],
        accepted=accepted,
        bots=[level for level in bots if level],  # type: ignore[misc]
        seats=len(held),
        open_seats=held.count(False),
        preset=rules.preset,
        turns=rules.turns,
        rated=terms.rated,
        turn_seconds=record.turn_seconds if record.table is None else record.table.turn_seconds,
        created=utc_time(record.created),
        expires_at=utc_time(terms.expires),
        reason=terms.reason,  # type: ignore[arg-type]
    )


def _player_out(player_id: str, profiles: Profiles) -> ChallengePlayer:
    player = profiles.get(player_id)
    if player is None:  # pragma: no cover - players are kept for good
        return ChallengePlayer(player_id=player_id, name="", bot=False)
    return ChallengePlayer(player_id=player_id, name=player.name, bot=player.bot)


def challenge_event(
    kind: Literal["challenge", "challenge_canceled", "challenge_declined"],
    challenge_id: str,
    seat: int,
    *,
    challenge: Challenge | None = None,
    reason: DeclineReason | None = None,
) -> PlayerEvent:
    """A challenge event: its ``game_id`` and ``challenge_id`` are both the challenge's."""
    return PlayerEvent(
        kind, challenge_id, seat, challenge_id=challenge_id, challenge=challenge, reason=reason
    )
