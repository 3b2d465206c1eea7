"""Answering a challenge: accepting it (the player's seat; the last seat taken deals the
game), declining it with a reason, canceling it. Each is one compare-and-set commit of the
challenge's table (``service.players.challenges``), its answer saved in the same commit under
the request's Idempotency-Key, so a retry gets it again and changes nothing more."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Final, cast

import msgspec

import engine
from service.games import records as game_records
from service.games.commits import Change, commit
from service.games.lifecycle import LoadedGame, LoadedTable
from service.games.records import ChallengeTerms, GameRecord
from service.http.idempotency import Retry, SavedAnswer, encoded
from service.http.problems import PlayerSeated
from service.identity.callers import list_game
from service.identity.store import PlayerRecord
from service.players.challenge_views import (
    Profiles,
    challenge_event,
    challenge_view,
    load,
    profiles_of,
    status_of,
)
from service.players.challenge_wire import ChallengeAccepted, DeclineReason
from service.players.deps import PlayerServices
from service.players.news import log_events
from service.players.problems import ChallengeClosed, NotYourChallenge
from service.tables import waiting_tables as waiting
from service.tables.seat_changes import SeatHolders, commit_seats, replaced, seat_race_lost
from service.tables.seating import SEAT_ATTEMPTS

_accepted_decoder: Final = msgspec.json.Decoder(ChallengeAccepted)


async def accept(
    services: PlayerServices, challenge_id: str, player: PlayerRecord, retry: Retry | None = None
) -> SavedAnswer:
    """``POST …/accept``: the player's seat (the one kept for them, or the first open one);
    the last seat taken deals the game. With an Idempotency-Key the answer is saved in the
    seat's commit: a retry gets it again, and never takes a second seat."""
    player_id = player.player_id
    recall = None if retry is None else retry.stored_key
    for _ in range(SEAT_ATTEMPTS):
        found = await load(services, challenge_id, recall=recall)
        if retry is not None and found.saved is not None:
            return retry.replayed(found.saved)
        loaded, terms = _standing_terms(found)
        seat, names = _seat_for(loaded, terms, player)
        holders = SeatHolders(
            names,
            replaced(
                loaded.record.token_hashes,
                seat,
                game_records.token_hash(game_records.new_token()),
            ),
            replaced(loaded.record.players, seat, player_id),
        )
        answer_of = functools.partial(
            _accepted,
            challenge_id,
            seat,
            game_records.rules_of(loaded.seating.rules),
            await profiles_of(services, terms),
        )
        await list_game(services.players, (player_id,), challenge_id, loaded.record.created)
        record = await commit_seats(
            services, loaded, holders, None if retry is None else (retry, answer_of)
        )
        if record is not None:
            break
    else:
        raise seat_race_lost(challenge_id)
    answer = answer_of(record)
    if terms.invited is None:
        if record.table is not None:
            await services.open_challenges.list_table(challenge_id, _listed(answer))
        else:
            await services.open_challenges.unlist_table(challenge_id)
    return answer


def _seat_for(
    loaded: LoadedTable, terms: ChallengeTerms, player: PlayerRecord
) -> tuple[int, tuple[str | None, ...]]:
    """The seat the player takes, and the table's names with it taken."""
    record, names = loaded.record, loaded.seating.names
    if player.player_id in record.players:
        seat = record.players.index(player.player_id)
        if terms.invited is None or _held(loaded, seat):
            raise PlayerSeated(f"the player holds seat {seat} of {loaded.game_id!r} already")
        return seat, names
    if terms.invited is not None:
        raise NotYourChallenge(f"challenge {loaded.game_id!r} is to other players")
    free = waiting.open_seats(loaded.seating)
    if not free:  # pragma: no cover - the last seat taken deals: it no longer stands
        raise ChallengeClosed(f"challenge {loaded.game_id!r} has no open seat left")
    return free[0], replaced(names, free[0], player.name)


def _accepted(
    challenge_id: str, seat: int, rules: engine.Rules, profiles: Profiles, record: GameRecord
) -> SavedAnswer:
    view = challenge_view(challenge_id, record, rules, profiles)
    return SavedAnswer(
        b"", encoded(ChallengeAccepted(challenge=view, game_id=challenge_id, seat=seat))
    )


def _listed(answer: SavedAnswer) -> bytes:
    """The open challenge's lobby entry: its view, as the answer holds it."""
    return encoded(_accepted_decoder.decode(answer.body).challenge)


async def decline(
    services: PlayerServices,
    challenge_id: str,
    player_id: str,
    reason: DeclineReason,
    retry: Retry | None = None,
) -> SavedAnswer:
    """``POST …/decline``: by a player challenged who has not accepted; the game will not be."""

    def ended(loaded: LoadedTable, terms: ChallengeTerms) -> ChallengeTerms:
        if terms.invited is None or player_id not in terms.invited:
            raise NotYourChallenge(
                f"only a player challenged by name declines challenge {challenge_id!r}"
            )
        if _held(loaded, loaded.record.players.index(player_id)):
            raise PlayerSeated(f"the player accepted challenge {challenge_id!r} already")
        return msgspec.structs.replace(terms, ended="declined", reason=reason, ended_by=player_id)

    return await _end(services, challenge_id, player_id, ended, retry)


async def cancel(
    services: PlayerServices, challenge_id: str, player_id: str, retry: Retry | None = None
) -> SavedAnswer:
    """``POST …/cancel``: by its challenger, while it stands."""

    def ended(_: LoadedTable, terms: ChallengeTerms) -> ChallengeTerms:
        if terms.challenger != player_id:
            raise NotYourChallenge(f"only its challenger cancels challenge {challenge_id!r}")
        return msgspec.structs.replace(terms, ended="canceled", ended_by=player_id)

    return await _end(services, challenge_id, player_id, ended, retry)


async def _end(
    services: PlayerServices,
    challenge_id: str,
    by: str,
    ended: Callable[[LoadedTable, ChallengeTerms], ChallengeTerms],
    retry: Retry | None,
) -> SavedAnswer:
    """Commit the challenge's end as ``ended`` has it (a 4xx if it may not), its answer saved
    with it under the request's key; then off the lists, its players told."""
    recall = None if retry is None else retry.stored_key
    for _ in range(SEAT_ATTEMPTS):
        found = await load(services, challenge_id, recall=recall)
        if retry is not None and found.saved is not None:
            return retry.replayed(found.saved)
        loaded, terms = _standing_terms(found)
        record = msgspec.structs.replace(loaded.record, challenge=ended(loaded, terms))
        rules = game_records.rules_of(loaded.seating.rules)
        view = challenge_view(challenge_id, record, rules, await profiles_of(services, terms))
        answer = SavedAnswer(b"", encoded(view))
        saved = None if retry is None else retry.saved(answer.body)
        change = Change(record, None)
        if await commit(services, challenge_id, loaded.stored_version, change, saved=saved):
            break
    else:
        raise seat_race_lost(challenge_id)
    await _told_of_end(services, challenge_id, record, by)
    return answer


async def _told_of_end(
    services: PlayerServices, challenge_id: str, record: GameRecord, by: str
) -> None:
    """After a decline or a cancel: the challenge off the lists, its players told."""
    terms = record.challenge
    assert terms is not None
    players = [(seat, p) for seat, p in enumerate(record.players) if p is not None]
    if terms.invited is None:
        await services.open_challenges.unlist_table(challenge_id)
    for _, player_id in players:
        await services.players.drop_games(player_id, [challenge_id])
    made = []
    for seat, player_id in players:
        if player_id == by:
            continue
        if player_id == terms.challenger and terms.ended == "declined":
            reason = cast("DeclineReason", terms.reason)
            event = challenge_event("challenge_declined", challenge_id, seat, reason=reason)
        else:
            event = challenge_event("challenge_canceled", challenge_id, seat)
        made.append((player_id, event))
    await log_events(services.players, services.channels, made)


def _standing_terms(loaded: LoadedGame | LoadedTable) -> tuple[LoadedTable, ChallengeTerms]:
    """The table and terms of a challenge that stands; 409 naming how it ended otherwise."""
    terms = loaded.record.challenge
    assert terms is not None  # ``_load`` checked
    status = status_of(loaded.record, terms, game_records.now())
    if status != "open" or not isinstance(loaded, LoadedTable):
        raise ChallengeClosed(f"challenge {loaded.game_id!r} is {status}")
    return loaded, terms


def _held(loaded: LoadedTable, seat: int) -> bool:
    return bool(loaded.record.token_hashes[seat])
