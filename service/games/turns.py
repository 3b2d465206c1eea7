"""A seat's turn: ``POST /v1/games/{id}/actions``. Load the game → check the token → (a retried
Idempotency-Key answers from its saved response) → apply the action → commit it with the seat's
new view saved for the key (``service.games.commits``). Two actions racing for the same version
cannot both commit; the loser answers 409 and nothing of it is applied."""

from __future__ import annotations

from typing import Final

import msgspec

from service.games.action_wire import ActionRequest
from service.games.bus import Loaded
from service.games.commits import acted, commit
from service.games.deps import GameServices
from service.games.lifecycle import load_game, view_of
from service.games.to_engine import action_from_wire
from service.http.idempotency import Retry
from service.http.problems import StaleVersion
from service.identity.callers import Caller
from service.operations import metrics

_encoder: Final = msgspec.json.Encoder()


async def take_turn(
    services: GameServices,
    game_id: str,
    caller: Caller,
    retry: Retry | None,
    request: ActionRequest,
) -> bytes:
    """Apply one action as the caller's seat; the JSON of the seat's new view (or of the
    first response to its Idempotency-Key, ``retry``)."""
    saved_key = None if retry is None else retry.stored_key
    loaded = await load_game(services, game_id, recall=saved_key, caller=caller)
    seat = loaded.seat_of(caller)
    if retry is not None and loaded.saved is not None:
        # The first attempt's commit may be all its instance did before it died: the nudge
        # makes sure the bot or clock it owed still moves.
        services.bus.publish(Loaded(game_id, loaded.record, loaded.state))
        return retry.replayed(loaded.saved).body
    if request.expected_version is not None and request.expected_version != loaded.state.version:
        raise StaleVersion(
            f"expected_version is {request.expected_version} but the game is at version "
            f"{loaded.state.version}",
            field="expected_version",
        )
    action = action_from_wire(request)
    change = acted(loaded, seat, action, by_token=True)
    assert change.state is not None
    response = _encoder.encode(view_of(game_id, change.state, seat, change.record))
    saved = None if retry is None else retry.saved(response)
    if not await commit(services, game_id, loaded.stored_version, change, saved=saved):
        # Another request won the race. If it was this very request's first attempt, its
        # response is saved under the key by now.
        if retry is not None:
            data = await services.store.recall(game_id, retry.stored_key)
            if data is not None:
                return retry.replayed(data).body
        raise StaleVersion(
            f"the game moved on from version {loaded.state.version} while this action was "
            "applied; load it again"
        )
    metrics.count_action(action)
    return response
